"""The classifier's row literals read ahead (decision 0138) are the literal reader's own: each
built-in pattern's entry in :data:`pokayokay.failures.classify_literals.READ_AHEAD` is what
:func:`pokayokay.infra.literals.required_literals` reads from it (so a row skips exactly the
texts it skipped when the strings were read on first use), and no entry is missing or stale.
When a row changes, the failure prints the module to write."""

from __future__ import annotations

import pytest

from pokayokay.failures import classify_literals
from pokayokay.failures.classify import BUILTIN_RULES, row
from pokayokay.failures.classify_literals import READ_AHEAD
from pokayokay.infra import literals
from pokayokay.infra.lazyre import Lazy
from pokayokay.infra.literals import required_literals

HEADER = classify_literals.__doc__


def builtin_patterns() -> dict[str, tuple[str, ...]]:
    """Each built-in pattern (first use order) and what the reader reads from it."""
    table: dict[str, tuple[str, ...]] = {}
    for rule in BUILTIN_RULES:
        for looks in (rule.tool, rule.command, rule.error):
            if looks is not None and looks.pattern not in table:
                table[looks.pattern] = required_literals(looks.pattern) or ()
    return table


def render(table: dict[str, tuple[str, ...]]) -> str:
    """The text of pokayokay/failures/classify_literals.py for ``table``."""
    out = [
        f'"""{HEADER}"""\n\nfrom __future__ import annotations\n\n# fmt: off\n'
        "READ_AHEAD: dict[str, tuple[str, ...]] = {\n"
    ]
    for pattern, needs in table.items():
        out.append("    (\n")
        chunks = [repr(pattern[i : i + 60]) for i in range(0, len(pattern), 60)]
        out.extend(f"        {chunk}\n" for chunk in chunks)
        out.append("    ): (\n")
        out.extend(f"        {need!r},\n" for need in needs)
        out.append("    ),\n")
    out.append("}\n# fmt: on\n")
    return "".join(out)


def test_every_builtin_pattern_has_the_readers_literals() -> None:
    expected = builtin_patterns()
    assert expected == READ_AHEAD, (
        "a classifier row changed: write pokayokay/failures/classify_literals.py as\n"
        + render(expected)
    )


def test_the_table_is_the_rendered_module() -> None:
    from pathlib import Path

    text = Path(classify_literals.__file__).read_text("utf-8")
    assert text == render(builtin_patterns())


def test_the_rows_use_the_table_and_skip_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    """A built-in row reads nothing on its first use, and skips (and matches) the texts the
    row reading its literals does."""
    texts = [
        "pytest tests/test_x.py",
        "ModuleNotFoundError: No module named 'x'",
        "error TS2322: Type 'a'",
        "npm ERR! code E404",
        "git push",
        "",
    ]
    reading = {pattern: Lazy(pattern, literals=True) for pattern in READ_AHEAD}
    for lazy in reading.values():
        lazy.search("")  # the literals read now, before the reader is taken away

    def no_reading(pattern: str, flags: int = 0) -> tuple[str, ...] | None:
        raise AssertionError(f"literals read for {pattern!r}")

    monkeypatch.setattr(literals, "required_literals", no_reading)
    for pattern, read in reading.items():
        given = row("testing", lazy=True, error=pattern).error
        assert given is not None
        for text in texts:
            assert (given.search(text) is None) == (read.search(text) is None), (pattern, text)
