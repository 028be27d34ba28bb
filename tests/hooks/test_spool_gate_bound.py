"""The spool gate's settled path (decision 0150) gives the verdict of the parse it skips.

``spool_gate.could_change`` passes over, unparsed, a spooled failure whose every reachable
signature is a group recurring at the named place in the category its command is bound to
(``failures.category_bound``, kept with the signals). The property: for generated signals
(groups of the real outputs' signatures, categories, sample commands, paths) and spooled
failures (real outputs mixed with the literals that unbind a command and with secrets), the
verdict with the bounds equals the verdict without them (every record parsed as before).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers.hooks import gate_in_fresh_interpreter
from helpers.paths import DATA_DIR
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pokayokay.failures.category_bound import bound_for_command
from pokayokay.failures.classify import command_bound
from pokayokay.hooks import capture
from pokayokay.hooks.spool_gate import could_change
from pokayokay.infra.lean_json import dumps
from pokayokay.skills.failure_boost import (
    FailureSignals,
    GroupSignal,
    signals_from_data,
    signals_to_data,
)

COMMANDS = ("pytest tests/", "pytest tests/test_cart.py", "npm test", "ruff check .", "tsc")
OUTPUTS = {p.name: p.read_text(encoding="utf-8") for p in sorted((DATA_DIR / "outputs").glob("*"))}
STEPPED = sorted({lit for c in COMMANDS for lit in (command_bound("Bash", c) or ("", ()))[1]})
SECRET = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
PATHS = ("tests/test_cart.py", "src/cart.py", "src/cart.test.js")
NAMED = ("src/cart.py", "tests/test_cart.py", "src/")


def _payload(root: Path, command: str, error: str) -> dict[str, Any]:
    return {
        "session_id": "s-new",
        "cwd": str(root),
        "hook_event_name": "PostToolUseFailure",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "run it"},
        "tool_use_id": "toolu_bound",
        "error": error,
        "is_interrupt": False,
    }


def _signatures(name: str) -> list[str]:
    payload = _payload(Path("/tmp"), "pytest", "Exit code 1\n" + OUTPUTS[name])
    return [signature for signature, _category in capture.failure_keys(payload)]


SIGNATURES = sorted({s for name in OUTPUTS for s in _signatures(name)})
GROUP = st.tuples(
    st.sampled_from(SIGNATURES),
    st.sampled_from(("testing", "types", "lint", "shell")),
    st.sampled_from(COMMANDS),
    st.lists(st.sampled_from(PATHS), min_size=1, max_size=2, unique=True),
)
ERROR = st.tuples(
    st.sampled_from(sorted(OUTPUTS)),
    st.lists(st.sampled_from([*STEPPED, SECRET, "\n", "[", "! "]), max_size=2).map("".join),
    st.booleans(),
).map(lambda t: "Exit code 1\n" + (t[1] + OUTPUTS[t[0]] if t[2] else OUTPUTS[t[0]] + t[1]))


def _signals(groups: list[tuple[str, str, str, list[str]]]) -> FailureSignals:
    kept = [
        GroupSignal(category, 3, 1_700_000_000.0, tuple(paths), command, signature)
        for signature, category, command, paths in {g[0]: g for g in groups}.values()
    ]
    bounds = {}
    for group in kept:
        bound = bound_for_command(group.sample_command or "")
        if bound is not None:
            bounds[group.sample_command] = bound
    signals = FailureSignals(kept, sorted({p for g in kept for p in g.paths}), [], bounds)
    back = signals_from_data(signals_to_data(signals, ["k"]), ["k"])  # as the prompt reads it
    assert back is not None and back.bounds == bounds
    return back


def _project(root: Path) -> Path:
    for path in PATHS:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("x = 1\n", encoding="utf-8")
    return root


def _check(root: Path, groups: list[Any], command: str, error: str, named: list[str]) -> bool:
    """The verdicts with and without the bounds agree; returns the verdict."""
    signals = _signals(groups)
    record = ("s-new", dumps(_payload(root, command, error)).encode(), str(root))
    fast = could_change([record], str(root), named, signals)
    signals.bounds = None
    slow = could_change([record], str(root), named, signals)
    assert fast == slow
    return fast


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _project(tmp_path_factory.mktemp("bound-project"))


@given(
    groups=st.lists(GROUP, min_size=1, max_size=4),
    command=st.sampled_from(COMMANDS),
    error=ERROR,
    named=st.lists(st.sampled_from(NAMED), min_size=1, max_size=2, unique=True),
)
@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_the_settled_verdict_is_the_parsed_one(
    root: Path, groups: list[Any], command: str, error: str, named: list[str]
) -> None:
    _check(root, groups, command, error, named)


@pytest.mark.slow
@given(
    groups=st.lists(GROUP, min_size=1, max_size=6),
    command=st.sampled_from(COMMANDS),
    error=ERROR,
    named=st.lists(st.sampled_from(NAMED), min_size=1, max_size=3, unique=True),
)
@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_the_settled_verdict_is_the_parsed_one_many(
    root: Path, groups: list[Any], command: str, error: str, named: list[str]
) -> None:
    _check(root, groups, command, error, named)


def _steady(root: Path) -> tuple[FailureSignals, dict[str, Any]]:
    """The benchmark's steady case: the spooled pytest failure's groups recur in testing."""
    signatures = _signatures("pytest_two_failures.txt")
    groups = [(s, "testing", "pytest tests/", ["tests/test_cart.py"]) for s in signatures]
    payload = _payload(root, "pytest tests/", "Exit code 1\n" + OUTPUTS["pytest_two_failures.txt"])
    return _signals(groups), payload


def test_the_steady_case_is_settled_without_the_parse(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    signals, payload = _steady(root)
    calls: list[object] = []
    real = capture.failure_keys
    monkeypatch.setattr(capture, "failure_keys", lambda *a: calls.append(a) or real(*a))
    record = ("s-new", dumps(payload).encode(), str(root))
    assert not could_change([record], str(root), ["src/cart.py"], signals)
    assert calls == []
    # another category for the group: parsed, and ingested first
    signals.groups[0].category = "lint"  # type: ignore[misc]
    assert could_change([record], str(root), ["src/cart.py"], signals)
    assert calls


def test_user_rows_send_the_failure_to_the_parse(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A project's own classifier rows come before the built-in table: no bound holds."""
    signals, payload = _steady(root)
    (root / ".claude").mkdir(exist_ok=True)
    settings_file = root / ".claude" / "pokayokay.md"
    settings_file.write_text(
        "---\nfailure_categories:\n  - category: lint\n    error: 'FAILED'\n---\n", "utf-8"
    )
    try:
        calls: list[object] = []
        real = capture.failure_keys
        monkeypatch.setattr(capture, "failure_keys", lambda *a: calls.append(a) or real(*a))
        record = ("s-new", dumps(payload).encode(), str(root))
        assert could_change([record], str(root), ["src/cart.py"], signals)  # lint now
        assert calls
    finally:
        settings_file.unlink()


def test_the_steady_case_imports_neither_re_nor_the_pipeline(root: Path) -> None:
    signals, payload = _steady(root)
    data = dumps(signals_to_data(signals, ["k"]))
    out = gate_in_fresh_interpreter(data, "s-new", payload, root)
    assert out == ("False", "False False"), out


def test_each_real_output_agrees_both_ways(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every real output under every command, its groups recurring at the named place in the
    category the parse gives it: the verdicts agree, and the settled path is taken (no parse)
    for some and not for others (an output naming `error TS`, a command with no bound)."""
    parsed: list[object] = []
    real = capture.failure_keys
    monkeypatch.setattr(capture, "failure_keys", lambda *a: parsed.append(a) or real(*a))
    settled = sent = 0
    for output in OUTPUTS.values():
        error = "Exit code 1\n" + output
        for command in COMMANDS:
            keys = real(_payload(root, command, error))
            groups = [(s, c, command, ["tests/test_cart.py", "src/cart.py"]) for s, c in keys]
            if not groups:
                continue
            before = len(parsed)
            assert not _check(root, groups, command, error, ["src/cart.py"])
            if len(parsed) == before + 1:  # parsed only on the path without the bounds
                settled += 1
            else:
                sent += 1
    assert settled and sent, (settled, sent)
