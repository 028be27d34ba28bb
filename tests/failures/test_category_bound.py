"""The category bound of a command (decision 0150) against the capture's own parse.

``bound_for_command(command)`` claims: a failing Bash or PowerShell call running ``command``
whose cut output holds none of the bound's witnesses is classified in the bound's category by
the capture's parse (redaction, the mistakes scan, the first mistake's text, then the body).
The property runs the parse (``capture.failure_keys``) on real outputs from tests/data, their
lines mixed with the literals of every row the bound steps over, secrets redaction replaces
(markers written next to those literals) and line breaks, and checks the claim whenever the
bound holds.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.paths import DATA_DIR
from hypothesis import given, settings
from hypothesis import strategies as st

from pokayokay.failures.category_bound import (
    EXTRA_KINDS,
    bound_for_command,
    markers,
    witnesses,
)
from pokayokay.failures.classify import BUILTIN_RULES, classify, command_bound
from pokayokay.failures.reach import COMMAND_TOOLS, bound_holds
from pokayokay.hooks import capture

COMMANDS = (
    "pytest tests/test_checkout.py",
    ".venv/bin/python -m pytest -q tests/",
    "ruff check .",
    "npm test",
    "cargo test",
    "git push origin main",
    "mypy pokayokay",
    "make build",
    "pip install stripe",
)
OUTPUTS = sorted((DATA_DIR / "outputs").glob("*.txt"))
LINES = [
    line
    for path in OUTPUTS
    for line in Path(path).read_text(encoding="utf-8").splitlines()
    if line.strip()
][:400]
STEPPED = sorted({lit for c in COMMANDS for lit in (command_bound("Bash", c) or ("", ()))[1]})
SECRETS = (
    "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "password=hunter2hunter2",
    "sk-ant-api03-" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv",
    "token: 9f8e7d6c5b4a39281706f5e4d3c2b1a0",
)
PIECE = st.one_of(
    st.sampled_from(LINES),
    st.sampled_from(STEPPED),
    st.sampled_from(SECRETS),
    st.sampled_from(["\n", " ", "! ", "[", "]", "error", "denied", "\r"]),
    # a literal cut in two around a secret: redaction's marker lands between its halves
    st.builds(
        lambda lit, cut, secret: lit[:cut] + secret + lit[cut:],
        st.sampled_from(STEPPED),
        st.integers(0, 30),
        st.sampled_from(SECRETS),
    ),
)
OUTPUT = st.lists(PIECE, min_size=1, max_size=12).map("".join)


def _category(tool: str, command: str, error: str) -> set[str]:
    payload = {
        "hook_event_name": "PostToolUseFailure",
        "session_id": "s",
        "tool_name": tool,
        "tool_input": {"command": command},
        "error": error,
        "cwd": "/tmp",
    }
    return {category for _signature, category in capture.failure_keys(payload)}


def _check(command: str, tool: str, error: str) -> bool:
    bound = bound_for_command(command)
    if bound is None or not bound_holds(bound[1], error):
        return False
    assert _category(tool, command, error) <= {bound[0]}
    return True


def test_the_tools_are_the_captures() -> None:
    assert frozenset(capture.COMMAND_TOOLS) == COMMAND_TOOLS


def test_the_benchmark_command_is_bound_and_a_plain_pytest_failure_holds_it() -> None:
    bound = bound_for_command("pytest tests/test_checkout.py")
    assert bound is not None and bound[0] == "testing"
    error = (DATA_DIR / "outputs" / "pytest_two_failures.txt").read_text(encoding="utf-8")
    assert bound_holds(bound[1], "Exit code 1\n" + error)
    assert _category("Bash", "pytest tests/test_checkout.py", "Exit code 1\n" + error) == {
        "testing"
    }
    # an earlier row's literal in the output unbinds it: the parse says permissions
    denied = "Exit code 1\nPermissionError: [Errno 13] Permission denied: '/srv/cart.db'"
    assert not bound_holds(bound[1], denied)
    assert _category("Bash", "pytest tests/test_checkout.py", denied) == {"permissions"}
    assert not bound_holds(bound[1], "\x1b[31m" + error)


def test_no_bound_for_a_command_the_classifier_reads_otherwise() -> None:
    assert bound_for_command("pytest  tests/") is None  # whitespace collapsed by the parse
    assert bound_for_command("ls") is None  # no row decides by the command alone
    assert bound_for_command("pytest --token=" + SECRETS[0]) is None  # redacted by the parse


def test_every_marker_redaction_writes_is_known() -> None:
    from pokayokay.safety.redact import redact

    known = set(markers())
    for secret in (*SECRETS, "api_key=Zq8wX3vB7nM2kL5jH9gF", "secret: Zq8wX3vB7nM2kL5jH9gF1"):
        redacted = redact(f"x {secret} y")
        at = redacted.find("[redacted:")
        assert at >= 0, secret
        assert redacted[at : redacted.index("]", at) + 1] in known
    assert {"[redacted:" + kind + "]" for kind in EXTRA_KINDS} <= known


def test_witnesses_of_a_literal_a_marker_can_end_or_start() -> None:
    marks = ("[redacted:token]",)
    assert witnesses("! [", marks) == ("! [", "! ")
    assert witnesses("en] x", marks) == ("en] x", " x")
    assert witnesses("token", marks) is None  # a marker holds it whole
    assert witnesses("a\nb", marks) is None


@given(st.sampled_from(COMMANDS), st.lists(PIECE, max_size=8).map("".join))
@settings(max_examples=150, deadline=None)
def test_the_classifier_gives_the_bound_category_when_no_literal_is_there(
    command: str, text: str
) -> None:
    bound = command_bound("Bash", command)
    if bound is not None and not any(lit in text for lit in bound[1]):
        assert classify("Bash", command, text) == bound[0]


@given(st.sampled_from(COMMANDS), st.sampled_from(sorted(COMMAND_TOOLS)), OUTPUT)
@settings(max_examples=150, deadline=None)
def test_the_parse_classifies_a_bound_failure_in_the_bound_category(
    command: str, tool: str, error: str
) -> None:
    _check(command, tool, error)


def test_the_property_reaches_both_answers() -> None:
    """The generated outputs hold the bound and break it (the property is not vacuous)."""
    held = [_check(c, "Bash", "\n".join(LINES[i : i + 30])) for c in COMMANDS for i in (0, 60)]
    assert any(held)
    assert not all(bound_holds(bound_for_command(COMMANDS[0])[1], line) for line in STEPPED)  # type: ignore[index]


@pytest.mark.slow
@given(st.sampled_from(COMMANDS), st.sampled_from(sorted(COMMAND_TOOLS)), OUTPUT)
@settings(max_examples=600, deadline=None)
def test_the_parse_classifies_a_bound_failure_in_the_bound_category_many(
    command: str, tool: str, error: str
) -> None:
    _check(command, tool, error)


def test_rows_before_the_bound_row_are_the_only_ones_stepped_over() -> None:
    """A sanity check of command_bound's walk: the bound row is the first the command decides."""
    category, literals = command_bound("Bash", "ruff check .") or ("", ())
    assert category == "lint"
    first = next(
        r for r in BUILTIN_RULES if r.error is None and r.command is not None
        and r.command.search("ruff check .")
    )  # fmt: skip
    assert first.category == "lint" and literals
