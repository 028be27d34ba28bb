"""Issue 25 item 4: a committed ``failure_categories`` regex had no time limit; ``(a+)+$`` made
SessionEnd run past 60 s and ``failures`` take 52 s. Now a pattern that can backtrack without
end is refused when the settings are read, with the key named, and every user pattern runs with
a time budget per match (decision 0060)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import pytest
from helpers.paths import FIXTURE_SAMPLES_DIR
from hypothesis import given, settings
from hypothesis import strategies as st

from pokayokay.config.settings import load_settings
from pokayokay.errors import SettingsError
from pokayokay.failures.classify import classify, rules_from_settings
from pokayokay.infra import regex_budget
from pokayokay.infra.regex_budget import Budgeted
from pokayokay.infra.regex_safety import MAX_PATTERN, unsafe_reason

CONSOLE_SCRIPT = Path(sys.executable).parent / "pokayokay"

CATASTROPHIC = [
    r"(a+)+$", r"(a|ab)*c", r"(\w+\s?)*$", r"((a+))+", r"(x?y?)+z", r"(?:a|b){2,}$",
    r"(.*a){12}", r"(\d+)*x", r".*.*=", r"\s*\s+$", r"\d+\w*!", r"(?:a*)b*c", r"(a)\1",
    r"(?P<x>a)(?P=x)", r"(?(1)a|b)", r".*\b.*!", r".*(?=x).*!",
]
ACCEPTED = [
    r"ModuleNotFoundError", r"lockfile .* stale", r"a.*b.*c", r"(?i)timed? ?out", r"(ab)+",
    r"[a-z]+://\S+", r"\bE\d{3}\b", r"(?:foo|bar) failed", r"^FAILED .*::", r"x{2,5}y",
    r"(?:ab){3}", r"[)(]+ok", r"(?#note)a+", r"(?i:abc)+", r"\d+\.\d+", r"a\{1",
    r"npm ERR! code E\w+", r"^hatch test", r"Bash|PowerShell", r"(?<=a)b+", r"\w+Error: .*",
]


@pytest.mark.parametrize("pattern", CATASTROPHIC)
def test_patterns_that_can_backtrack_without_end_are_refused(pattern: str) -> None:
    assert unsafe_reason(pattern) is not None


@pytest.mark.parametrize("pattern", ACCEPTED)
def test_ordinary_patterns_are_accepted(pattern: str) -> None:
    assert unsafe_reason(pattern) is None


def test_a_very_long_pattern_is_refused() -> None:
    assert unsafe_reason("a" * (MAX_PATTERN + 1)) is not None


# Nested repeats, generated: any atom repeated inside a group that is repeated again.
ATOMS = st.sampled_from(["a", ".", r"\w", r"\d", r"\s", "[a-z]", "[^x]", "(?:ab|a)", "x"])
# Possessive repeats ("++") exist from Python 3.11 on.
POSSESSIVE = ["++"] if sys.version_info >= (3, 11) else []
VARYING = st.sampled_from(["*", "+", "?", "{1,}", "{0,3}", "{2,9}", "*?", *POSSESSIVE])
REPEATS = st.sampled_from(["*", "+", "{2,}", "{1,5}", "+?", "{3,}"])


@given(atom=ATOMS, inner=VARYING, outer=REPEATS, before=st.sampled_from(["", "^", "x"]),
       after=st.sampled_from(["", "$", "!", "y"]), capture=st.booleans())
def test_any_nested_repeat_is_refused(
    atom: str, inner: str, outer: str, before: str, after: str, capture: bool
) -> None:
    group = f"({atom}{inner})" if capture else f"(?:{atom}{inner})"
    pattern = f"{before}{group}{outer}{after}"
    re.compile(pattern)
    assert unsafe_reason(pattern) is not None, pattern


def _checks_without_raising(pattern: str) -> None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # re's FutureWarning on "[[" and the like
            re.compile(pattern)
    except (re.error, OverflowError, RecursionError):
        return
    reason = unsafe_reason(pattern)
    assert reason is None or isinstance(reason, str)


REGEX_TEXT = st.text(alphabet="ab()[]{}|*+?.^$\\:=!<>P-,0123456789dws#", max_size=30)


@given(REGEX_TEXT)
def test_the_check_never_fails_on_any_pattern_re_accepts(pattern: str) -> None:
    _checks_without_raising(pattern)


@pytest.mark.slow
@settings(max_examples=5000, deadline=None)
@given(REGEX_TEXT)
def test_the_check_never_fails_on_any_pattern_re_accepts_many(pattern: str) -> None:
    _checks_without_raising(pattern)


@given(pattern=st.sampled_from(ACCEPTED), char=st.sampled_from("ax1 =\n:"),
       length=st.integers(0, 64 << 10))
@settings(max_examples=25, deadline=None)
def test_an_accepted_pattern_answers_within_its_budget_on_any_long_run(
    pattern: str, char: str, length: int
) -> None:
    """What the static check lets through is bounded at run time: a run of one character up
    to capture's 64 KiB field limit, the worst case for a backtracking engine."""
    compiled = Budgeted(pattern)
    started = time.perf_counter()
    compiled.search(char * length + "!")
    assert time.perf_counter() - started < 1.0 + regex_budget.BUDGET


def test_a_match_past_its_budget_is_no_match_reported_once_and_not_run_again() -> None:
    slow = Budgeted("x+yz")  # accepted, yet quadratic on a long run of x
    reports: list[tuple[str, int]] = []
    slow.on_timeout = lambda pattern, length: reports.append((pattern, length))
    started = time.perf_counter()
    assert slow.search("x" * (64 << 10)) is None
    assert slow.gave_up and time.perf_counter() - started < 2.0
    assert slow.search("xyz") is None  # given up for this process
    assert reports == [("x+yz", 64 << 10)]
    assert Budgeted("x+yz").search("xxyz") is not None


def test_capture_logs_a_user_pattern_that_ran_out_of_time(project: Path, tmp_path: Path) -> None:
    from pokayokay.failures.user_categories import user_rules

    (project / ".claude").mkdir()
    (project / ".claude" / "pokayokay.md").write_text(
        "---\nfailure_categories:\n  - category: slow\n    error: 'x+yz'\n---\n")
    rules = user_rules(str(project), tmp_path / "state")
    assert classify("Bash", "make", "x" * (64 << 10), rules) != "slow"
    log = Path(os.environ["POKAYOKAY_HOME"]) / "logs" / "pokayokay.log"
    assert log.read_text().count("'x+yz' ran past its 50 ms budget") == 1
    assert classify("Bash", "make", "xxyz", rules) != "slow"  # not run again in this process


def test_user_rows_behave_like_re() -> None:
    rows = rules_from_settings([{"category": "lockfile", "error": r"lockfile .* stale"},
                                {"category": "hatch", "command": r"^hatch test", "tool": "Bash"}])
    assert classify("Bash", "npm ci", "error: lockfile is stale", rows) == "lockfile"
    assert classify("Bash", "hatch test -x", "boom", rows) == "hatch"
    assert classify("Edit", "hatch test", "boom", rows) != "hatch"


def test_a_refused_row_names_its_key() -> None:
    with pytest.raises(ValueError, match=r"failure_categories\[1\]: error: regex '\(a\+\)\+\$'"):
        rules_from_settings([{"category": "ok", "error": "fine"},
                             {"category": "slow", "error": "(a+)+$"}])


def write_settings(project: Path, pattern: str) -> None:
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / "pokayokay.md").write_text(
        "---\nfailure_categories:\n  - category: timeouts\n    error: 'timed out'\n"
        f"  - category: slow\n    error: '{pattern}'\n---\n"
    )


def test_settings_refuse_a_catastrophic_pattern_with_the_key_named(project: Path) -> None:
    write_settings(project, "(a+)+$")
    with pytest.raises(SettingsError) as caught:
        load_settings(project)
    assert "failure_categories: row 2.error: regex refused" in caught.value.message
    write_settings(project, "lockfile .* stale")
    assert [r["category"] for r in load_settings(project).failure_categories] == [
        "timeouts", "slow"]


def run(
    args: list[str], project: Path, stdin: str = ""
) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.perf_counter()
    result = subprocess.run(
        [str(CONSOLE_SCRIPT), *args], input=stdin, cwd=project, capture_output=True, text=True,
        timeout=60, env=dict(os.environ, CLAUDE_PROJECT_DIR=str(project)),
    )
    return result, time.perf_counter() - started


def sample(name: str, project: Path, **changes: Any) -> str:
    data: dict[str, Any] = json.loads((FIXTURE_SAMPLES_DIR / name).read_text("utf-8"))
    data.update(cwd=str(project), **changes)
    data.pop("transcript_path", None)
    return json.dumps(data)


def test_a_committed_catastrophic_pattern_costs_session_end_and_failures_nothing(
    project: Path,
) -> None:
    """The issue's case, as Claude Code and a user run it: the failing output is the pattern's
    worst input. Before: SessionEnd past 60 s, ``failures`` 52 s. Each call gets 60 s here
    only to stop a hang; each must take a few seconds at most."""
    write_settings(project, "(a+)+$")
    hostile = "Exit code 1\n" + "a" * 40 + "!"
    for n in range(3):
        hook, took = run(["hook", "PostToolUseFailure"], project, sample(
            "PostToolUseFailure.Bash.json", project, tool_use_id=f"toolu_{n}",
            tool_input={"command": "make check"}, error=hostile))
        assert hook.returncode == 0 and took < 10, (took, hook.stderr)
    end, took = run(["hook", "SessionEnd"], project, sample("SessionEnd.other.json", project))
    # Fails open (exit 1, one stderr line naming the key), never blocks (2), finishes at once.
    assert end.returncode in (0, 1) and took < 10, (took, end.stderr)
    assert "failure_categories: row 2.error: regex refused" in end.stderr
    listed, took = run(["failures", "--json"], project)
    assert took < 10, took
    said = listed.stdout + listed.stderr
    assert listed.returncode == 0 or "failure_categories: row 2.error" in said, said
    log = (Path(os.environ["POKAYOKAY_HOME"]) / "logs" / "pokayokay.log").read_text()
    assert "failure_categories: row 2.error: regex refused" in log
    doctor, _ = run(["doctor"], project)
    assert "failure_categories: row 2.error" in doctor.stdout + doctor.stderr
