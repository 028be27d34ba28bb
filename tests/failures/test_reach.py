"""``failures.reach``: a signature the capture's parse gives a call is never ruled out.

The spool gate skips the parse of a spooled failure when :func:`reach.can_reach` is False for
every signature the signals hold (decision 0143), so the property that keeps its verdict equal
to ingest-then-answer is: for every call, every signature ``capture.failure_keys`` gives it (as
the store keeps it) is reachable from the call's texts. Checked on the real outputs in
tests/data (the labelled failure corpus and ``outputs/``) and on generated outputs built from
their lines and from the shapes the parse rewrites (the project root cut out of a path, gcc's
``-Werror=``, secrets redacted, numbers, hex, temporary paths, long lines, refusals).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers.hooks import gate_in_fresh_interpreter
from helpers.paths import DATA_DIR
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from pokayokay.failures.reach import call_text, can_reach, reaches_any, words
from pokayokay.hooks.capture import failure_keys

CORPUS = YAML(typ="safe").load((DATA_DIR / "failure_corpus.yaml").read_text("utf-8"))
OUTPUTS = [p.read_text("utf-8") for p in sorted((DATA_DIR / "outputs").glob("*.txt"))]
LINES = sorted(
    {line for text in [*OUTPUTS, *(str(c.get("output", "")) for c in CORPUS)] for line in
     text.split("\n") if line.strip()}
)  # fmt: skip
COMMANDS = sorted({str(c["command"]) for c in CORPUS if c.get("command")})
TOOLS = ("Bash", "Bash", "Edit", "Read", "PowerShell")


def _payload(root: Path, tool: str, command: str | None, error: str) -> dict[str, Any]:
    tool_input: dict[str, Any] = {"description": "run it"}
    if command is not None:
        tool_input["command"] = command
    return {
        "session_id": "s-a",
        "cwd": str(root),
        "hook_event_name": "PostToolUseFailure",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": "toolu_reach",
        "error": error,
        "is_interrupt": False,
    }


def _check(root: Path, tool: str, command: str | None, error: str) -> int:
    """Every signature the parse gives the call is reachable; the number of them."""
    keys = failure_keys(_payload(root, tool, command, error))
    call = call_text(tool, command, error)
    for signature, _category in keys:
        assert can_reach(signature, call), (signature, error[:300])
    return len(keys)


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    project = tmp_path / "proj"
    project.mkdir()
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    return project


def test_every_signature_of_the_real_outputs_is_reachable(root: Path) -> None:
    checked = 0
    for case in CORPUS:
        if case.get("event") == "PostToolBatch" or not case.get("output"):
            continue
        output = str(case["output"]).replace("{root}", str(root)).rstrip("\n")
        error = f"Exit code {case.get('exit_code', 1)}\n{output}"
        command = str(case["command"]).replace("{root}", str(root)) if case.get("command") else None
        checked += _check(root, str(case.get("tool", "Bash")), command, error)
    for output in OUTPUTS:
        checked += _check(root, "Bash", "pytest -q", f"Exit code 1\n{output}")
        checked += _check(root, "Bash", "npm test", output)
    assert checked >= 90


# Shapes the parse rewrites or joins, with ``{root}`` for the project root.
FRAGMENTS = [
    "src{root}/app.py:3:1: F401 `os` imported but unused",
    "x{root}/tests/test_a.py::test_b FAILED",
    "FAILED a{root}/tests/test_cart.py::test_total - assert 1 == 2",
    "ERROR {root}/x{root}/y.py failed",
    "Traceback (most recent call last):\n  File \"{root}/a.py\", line 3\nKeyError: 'x'",
    "src/a.c:3:5: error: unused variable 'y' [-Werror=unused-variable]",
    "src/a.c:3:5: error: unused variable 'y' [-Werror,-Wunused-variable]",
    "error: token=ghp_0123456789abcdefghijABCDEFGHIJ012345 rejected",
    "FAILED tests/test_a.py::test_key[password: hunter2xyz] - assert 1",
    "FAILED tests/test_a.py::test_b[AKIAIOSFODNN7EXAMPLE] - assert 1",
    "error: at 0x7ffe12ab in /tmp/pytest-of-dev/pytest-3/x.py 2026-11-28T10:11:12Z",
    "Error: failed after 350ms, id 3f2a9b1c7d, uuid 123e4567-e89b-12d3-a456-426614174000",
    "<tool_use_error>String to replace not found in file.</tool_use_error>",
    "PreToolUse:Bash hook error: [pokayokay guard]: blocked rm",
    "Permission to use Bash with command rm -rf x has been denied.",
    "The user doesn't want to proceed with this tool use.",
    "E" * 1200 + "rror: long line",
    "FAILED tests/test_" + "x" * 260 + ".py::test_y - assert 0",
    "npm error code EUSAGE\nnpm error Invalid tag name. See npm help.",
    "",
]


def _outputs(root: Path) -> Any:
    piece = st.one_of(st.sampled_from(LINES), st.sampled_from(FRAGMENTS))
    return st.lists(piece, min_size=0, max_size=12).map(
        lambda lines: "\n".join(lines).replace("{root}", str(root))
    )


def _generated(root: Path, data: st.DataObject) -> None:
    output = data.draw(_outputs(root))
    header = data.draw(st.sampled_from(("Exit code 1\n", "Exit code 2\n", "", "Error: ")))
    tool = data.draw(st.sampled_from(TOOLS))
    command = data.draw(
        st.one_of(
            st.none(),
            st.sampled_from(COMMANDS),
            st.sampled_from(("gcc -Werror=unused x.c", f"python {root}/tests/test_a.py")),
        )
    )
    _check(root, tool, command, header + output)


@given(data=st.data())
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_every_signature_of_generated_outputs_is_reachable(root: Path, data: st.DataObject) -> None:
    _generated(root, data)


@pytest.mark.slow
@given(data=st.data())
@settings(
    max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_every_signature_of_generated_outputs_is_reachable_many(
    root: Path, data: st.DataObject
) -> None:
    _generated(root, data)


def test_words_skip_the_written_prefix_and_redaction_markers() -> None:
    assert words("test:tests/test_cart.py::test_total") == [
        "tests", "test", "cart", "py", "test", "total",
    ]  # fmt: skip
    # the marker's own ``:`` is not the first one
    assert words("FAILED x - token=[redacted:github-token] y") == ["failed", "x", "token", "y"]
    assert words("a:b [redacted:pass") == ["b"]  # a marker cut at the signature's end
    assert words("a:b [reda") == ["b"]
    assert words("x [redacted:jwt] y") == ["x", "y"]
    assert words("ModuleNotFoundError: No module named 'stripe'") == [
        "no", "module", "named", "stripe",
    ]  # fmt: skip


def test_a_signature_whose_word_the_call_lacks_is_ruled_out() -> None:
    call = call_text("Bash", "pytest tests/test_checkout.py", "FAILED tests/test_checkout.py::t")
    assert not can_reach("FAILED tests/test_billing.py::test_billing_totals", call)
    assert can_reach("test:tests/test_checkout.py::t", call)
    assert not reaches_any(["ruff:E501 line", "String to replace not found"], call)
    # Pieces joined where the root was cut out, or after gcc's -Werror=
    joined = call_text("Bash", None, "srcx/home/dev/p/app/y.py: -Werror=shadow")
    assert can_reach("error: srcapp/y.py", joined)
    assert can_reach("gcc:-Wshadow", joined)
    assert not can_reach("error: srcapq/y.py", joined)


def test_an_ansi_escape_rules_nothing_out() -> None:
    """Its removal joins words anywhere: every signature may be reached."""
    call = call_text("Bash", None, "\x1b[31mFAIL\x1b[0mED x")
    assert call is None
    assert can_reach("anything at all", call)


def test_the_gate_rules_out_a_new_failure_without_the_parse_or_re(tmp_path: Path) -> None:
    """A spooled failure whose texts reach no signature of the signals: the gate answers no
    in a fresh interpreter that imports neither ``re`` nor the capture pipeline."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "cart.py").write_text("x = 1\n", "utf-8")
    from pokayokay.failures.model import Failure
    from pokayokay.failures.store import FailureStore
    from pokayokay.infra.lean_json import dumps
    from pokayokay.skills.failure_boost import signals_from_groups, signals_to_data

    failures = [
        Failure(
            ts=1_700_000_000.0 + n,
            session_id=s,
            tool="Bash",
            command="ruff check",
            signature="ruff:E501",
            category="lint",
            paths=("src/cart.py",),
            excerpt="E501",
            exit_code=1,
        )
        for n, s in enumerate(("s-a", "s-b"))
    ]
    with FailureStore(tmp_path / "f.db") as store:
        store.record_failures(failures)
        signals = signals_from_groups(store.failure_groups(), store.single_session_owners())
    data = dumps(signals_to_data(signals, ["k"]))
    payload = _payload(tmp_path, "Bash", "pytest", "Exit code 1\nFAILED tests/test_a.py::t")
    out = gate_in_fresh_interpreter(data, "s-c", payload, tmp_path)
    assert out == ("False", "False False"), out


def _written_by(module: Path) -> set[str]:
    """The texts ``module`` writes into a signature of its own accord: the literal keys (or an
    f-string key's literal head) it passes to ``.add(...)``, and every ``<placeholder>`` in a
    string constant."""
    import ast

    written: set[str] = set()
    for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "add"
            and node.args
        ):
            key = node.args[0]
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                written.add(key.value)
            elif isinstance(key, ast.JoinedStr) and isinstance(key.values[0], ast.Constant):
                written.add(str(key.values[0].value))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
            at = text.find("<")
            while at >= 0:
                end = text.find(">", at)
                if end < 0:
                    break
                inner = text[at + 1 : end]
                if inner and all(c.isalpha() or c == "-" for c in inner):
                    written.add(f"x:{text[at : end + 1]}")
                at = text.find("<", at + 1)
    return written


def test_every_text_the_parse_writes_itself_is_in_written() -> None:
    """reach.WRITTEN is kept by hand beside the modules that write those texts: a key or a
    placeholder added there and forgotten here would rule out every signature holding it, so
    the prompt would stop ingesting a failure that changes its answer."""
    package = Path(__file__).resolve().parents[2] / "pokayokay" / "failures"
    written = _written_by(package / "mistakes.py") | _written_by(package / "signature.py")
    assert {"black:would-reformat", "git:rejected-", "x:<n>", "x:<site-packages>"} <= written
    nothing = call_text("Bash", "", "")
    assert nothing is not None
    missing = sorted(key for key in written if not can_reach(key, nothing))
    assert not missing, missing
