"""Every pattern capture runs over tool output is linear-time (issue 25 item 2: one output line of
2,000 spaces took 2.4 s in a cubic path pattern, 8,000 over 100 s, and killed the ingester).

The capture handler itself (classify, mistakes, signature, evidence paths with the project's
files, redaction, excerpt) runs on adversarial outputs and commands up to the input cap
(``spool.FIELD_MAX`` characters: capture cuts longer fields first): one long line, 80-column
lines, and a command, each a short unit repeated. A pattern that is worse than linear shows as
a time at the cap far above four times the time at a quarter of it; a linear one stays near
four times, whatever the machine's load."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers.paths import FIXTURE_SAMPLES_DIR
from hypothesis import given, settings
from hypothesis import strategies as st

from pokayokay.hooks import capture
from pokayokay.infra import spool

CAP = spool.FIELD_MAX
SAMPLE_ROOT = "/home/dev/project"
# The issue's alphabet: spaces, tabs, dots, slashes, colons, brackets; then the units that made
# a pattern quadratic or cubic before (code frames, shell separators, options, test-file runs).
ISSUE_UNITS = [" ", "\t", ".", "/", ":", "[", "]", "(", ")", "{", "}", "<", ">", " \t"]
FOUND_UNITS = ["|", ";", "&&", "a;", " | ", "> 1 ", "py -a/", "python -Xa ", "test_", "a_test",
               "a-://", "a:b@", "/tmp/", "_", "C:\\Users\\"]  # fmt: skip
# Issue 24 item 4's formats: xo rows, mypy --pretty heads, ld symbols, ava and jest reports,
# make targets, unittest imports, cd into a missing folder.
FORMAT_UNITS = ["✖  1:1  a  ", "a.py:1: error: ", "undefined reference to `a", "✘ [fail]: a",
                "● a", "No rule to make target 'a", "Failed to import test module: a\n",
                "cd: a: ", "npm error code EUSAGE\n"]  # fmt: skip
TOKENS = [" ", "\t", ".", "/", ":", "[", "]", "(", ")", "|", ";", "&", "-", "=", '"', "'", "`",
          "\\", "a", "1", "_", "@", "~", "*", "\n", "E", "py", "test_", ".py", "::", "-X", "File",
          "error", "FAIL", "file://", "C:", "0x", "line", "at "]  # fmt: skip


def payload(project: Path, error: str, command: str) -> dict[str, Any]:
    text = (FIXTURE_SAMPLES_DIR / "PostToolUseFailure.Bash.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text.replace(SAMPLE_ROOT, str(project)))
    data["error"] = error
    data["tool_input"] = {"command": command, "description": "run it"}
    return data


def shapes(unit: str, size: int) -> list[tuple[str, str, str]]:
    """(shape, error, command): one long line, 80-column lines, and the command itself."""
    line = (unit * (size // len(unit) + 1))[:size]
    lines = "\n".join(line[i : i + 80] for i in range(0, size, 80))
    return [
        ("one line", "Exit code 1\n" + line, "pytest tests"),
        ("80-column lines", "Exit code 1\n" + lines, "make check"),
        ("the command", "Exit code 1\nfailed", line),
    ]


def capture_time(project: Path, error: str, command: str) -> float:
    """The CPU time of one capture in this process: what the patterns cost, not how busy the
    machine is (wall time made this test fail under load with no pattern to blame)."""
    start = time.process_time()
    capture.post_tool_use_failure(payload(project, error, command), "PostToolUseFailure")
    return time.process_time() - start


def assert_linear(project: Path, unit: str) -> None:
    for (shape, error, command), (_shape, small_error, small_command) in zip(
        shapes(unit, CAP), shapes(unit, CAP // 4), strict=True
    ):
        full = capture_time(project, error, command)
        if full < 1.0:
            continue  # nothing near a budget at the cap
        quarter = min(capture_time(project, small_error, small_command) for _ in range(2))
        full = min(full, capture_time(project, error, command))  # a second look under load
        assert full < 10 * quarter + 0.2 and full < 2.0, (
            f"capture on {unit!r} x {CAP:,} ({shape}) took {full:.2f} s, {quarter:.3f} s on a "
            "quarter of it: worse than linear"
        )


@pytest.mark.parametrize("unit", ISSUE_UNITS + FOUND_UNITS + FORMAT_UNITS)
def test_capture_is_linear_on_adversarial_lines(project: Path, unit: str) -> None:
    assert_linear(project, unit)


def test_the_issue_case_8000_spaces_takes_milliseconds(project: Path) -> None:
    took = capture_time(project, "Exit code 1\n" + " " * 8000, "pytest tests")
    assert took < 0.5  # was over 100 s


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(unit=st.lists(st.sampled_from(TOKENS), min_size=1, max_size=4).map("".join))
def test_capture_is_linear_on_generated_lines(unit: str) -> None:
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        project = Path(folder) / "project"
        project.mkdir()
        subprocess.run(["git", "init", "-q", str(project)], check=True)
        assert_linear(project, unit)


def assert_linear_in(measure: Callable[[int], float], what: str) -> None:
    """``measure(size)``: the CPU time of one run on an input of ``size`` characters. Fast at
    the cap, or no worse than linear from a quarter of it (CPU time, not wall time: a busy
    machine made wall time fail with no pattern to blame)."""
    full = measure(CAP)
    if full < 1.0:
        return
    quarter = min(measure(CAP // 4) for _ in range(2))
    full = min(full, measure(CAP))  # a second look under load
    assert full < 10 * quarter + 0.2 and full < 2.0, (
        f"{what} x {CAP:,} took {full:.2f} s, {quarter:.3f} s on a quarter of it"
    )


@pytest.mark.parametrize("unit", [" ", "\t", " |", "2>&1 ", "&> ", "| tail ", "cd a && "])
def test_a_success_closing_a_fix_episode_is_linear(project: Path, unit: str) -> None:
    """A success after a failure runs the correction patterns over both commands (a run of
    16,000 spaces took 24 s in the redirection pattern)."""
    from pokayokay.failures import corrections

    def line(size: int) -> str:
        return "pytest" + (unit * (size // len(unit)))[:size] + "x"

    def correcting(size: int) -> float:
        command = line(size)
        start = time.process_time()
        corrections.correction_kind(command, "python -m " + command)
        corrections.correction_kind("python -m " + command, command)
        corrections.difference(command, "uv run " + command)
        return time.process_time() - start

    text = (FIXTURE_SAMPLES_DIR / "PostToolUse.Bash.json").read_text(encoding="utf-8")

    def closing(size: int) -> float:
        success: dict[str, Any] = json.loads(text.replace(SAMPLE_ROOT, str(project)))
        failed = payload(project, "Exit code 1\nfailed", line(size))
        success["session_id"] = failed["session_id"]
        success["tool_input"] = {"command": "python -m " + line(size)}
        capture.post_tool_use_failure(failed, "PostToolUseFailure")
        start = time.process_time()
        capture.post_tool_use(success, "PostToolUse")
        return time.process_time() - start

    assert_linear_in(correcting, f"the correction patterns on {unit!r}")
    assert_linear_in(closing, f"the closing success on {unit!r}")
