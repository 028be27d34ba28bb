"""A pytest summary line cut short (``FAILED id - AssertionError: assert 0.3...``) is stored,
shown in the rule and told on the prompt by the line that holds its message whole (pytest's
``E`` line), taken as the tool wrote it; nothing else of the excerpt changes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers.hooks import run_hook
from helpers.hooks import sample_payload as sample
from helpers.paths import REPO_ROOT
from hypothesis import given
from hypothesis import strategies as st

from pokayokay.failures.signature import whole_lines
from pokayokay.failures.store import FailureStore

OUTPUTS = REPO_ROOT / "tests" / "data" / "outputs"
CUT = OUTPUTS / "pytest_cut_short_summary.txt"  # real pytest 8 output, -q, 80 columns
TWO = OUTPUTS / "pytest_two_failures.txt"


def test_the_cut_short_summary_gives_way_to_the_assertion_pytest_printed_whole() -> None:
    text = CUT.read_text("utf-8")
    summary = "FAILED tests/test_cart.py::test_total_is_decimal - AssertionError: assert 0.3..."
    assert summary in text.splitlines()
    assert whole_lines([summary], text) == [
        "E       AssertionError: assert 0.30000000000000004 == Decimal('0.30')"
    ]


def test_each_of_two_failures_finds_its_own_line() -> None:
    text = TWO.read_text("utf-8")
    cut = "FAILED tests/test_cart.py::test_normalise_keeps_trailing[ab ] - AssertionErro..."
    whole = "FAILED tests/test_cart.py::test_total - assert (2 * 3) == 7"
    assert whole_lines([cut, whole], text) == [
        "E       AssertionError: assert 'ab' == 'ab '",
        whole,
    ]


def test_a_line_not_cut_short_or_not_a_summary_stays() -> None:
    text = "Loading...\nLoading modules\nE   x\n"
    lines = ("Loading...", "FAILED a.py::t - fine", "note - Loading...", "FAILED a.py::t - ...")
    for line in lines:
        assert whole_lines([line], text) == [line]


def test_a_cut_short_line_with_nothing_to_complete_it_stays() -> None:
    line = "FAILED a.py::t - AssertionError: assert 0.3..."
    assert whole_lines([line], line + "\n1 failed in 0.1s\n") == [line]


_lines = st.lists(st.text(st.characters(blacklist_categories=("Cs",)), max_size=40), max_size=6)


@given(_lines, st.text(st.characters(blacklist_categories=("Cs",)), max_size=300))
def test_every_line_kept_is_one_given_or_a_line_of_the_output(lines: list[str], text: str) -> None:
    out = whole_lines(lines, text)
    stripped = {raw.strip() for raw in text.splitlines()}
    assert all(line in lines or line in stripped for line in out)
    assert len(out) <= len(lines)
    if not any(line.rstrip().endswith("...") for line in lines):
        assert out == lines


def failing_run(project: Path, session: str, n: int) -> dict[str, Any]:
    payload = sample(
        "PostToolUseFailure.Bash.json",
        project,
        session_id=session,
        tool_use_id=f"toolu_{n:04d}",
        error="Exit code 1\n" + CUT.read_text("utf-8"),
    )
    command = "python -m pytest -q tests/test_cart.py"
    payload["tool_input"] = {"command": command, "description": "run"}
    return payload


def test_the_registered_capture_stores_the_whole_assertion(project: Path) -> None:
    for name in ("tests/test_cart.py", "src/shop/cart.py"):
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text("# project file\n", encoding="utf-8")
    assert run_hook("PostToolUseFailure", failing_run(project, "s1", 1)) == (0, "", "")
    with FailureStore.for_project(project) as store:
        [group] = store.failure_groups()
    assert group.signature == "test:tests/test_cart.py::test_total_is_decimal"
    assert group.excerpt == "E       AssertionError: assert 0.30000000000000004 == Decimal('0.30')"
