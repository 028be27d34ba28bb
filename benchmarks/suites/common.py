"""What the suites share: ``hook_case``, the one way a hook row is built, and the checks run on
every run (output) or after the last one (files)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from benchmarks.fixtures.lab import PLUGIN_SHIM, Lab, Project
from benchmarks.harness import Case, Check

Launcher = Literal["script", "module", "shim"]


def hook_argv(lab: Lab, event: str, launcher: Launcher = "script") -> list[str]:
    """How Claude Code's hook command starts pokayokay: the console script (what `init`
    installs), ``python -m pokayokay`` or the plugin's ``hooks/pokayokay-hook`` shim."""
    if launcher == "script":
        return [lab.console_script(), "hook", event]
    if launcher == "module":
        return [sys.executable, "-m", "pokayokay", "hook", event]
    return [str(PLUGIN_SHIM), event]


def hook_case(
    lab: Lab,
    name: str,
    event: str,
    project: Project,
    n: int,
    *,
    stdin: bytes = b"",
    stdin_each: Callable[[int], bytes] | None = None,
    launcher: Launcher = "script",
    before_each: Callable[[], None] | None = None,
    after_each: Callable[[], None] | None = None,
    check_each: Check | None = None,
    verify: Callable[[int], str | None] | None = None,
    note: str = "",
) -> Case:
    """A hook row: ``event``'s hook run from ``project`` (its folder as the working directory
    and as CLAUDE_PROJECT_DIR, as Claude Code runs it) with a payload on stdin."""
    return Case(
        name,
        hook_argv(lab, event, launcher),
        n,
        project.path,
        project.env,
        stdin=stdin,
        stdin_each=stdin_each,
        before_each=before_each,
        after_each=after_each,
        check_each=check_each,
        verify=verify,
        note=note,
        hook_event=event,
    )


def no_output(proc: subprocess.CompletedProcess[bytes]) -> str | None:
    if proc.stdout.strip():
        return f"expected no output, got: {proc.stdout[:300]!r}"
    return None


def count_lines(path: Path) -> int:
    with open(path, "rb") as fh:
        return sum(1 for _ in fh)


def curated(project: Project, before_lines: int) -> Callable[[int], str | None]:
    def verify(runs: int) -> str | None:
        after = count_lines(project.memory_file)
        if after >= before_lines:
            return f"MEMORY.md was not curated: {after} lines, was {before_lines}"
        if not project.archives():
            return "MEMORY.md was curated but no archive file exists"
        return None

    return verify


def unchanged(project: Project) -> Callable[[int], str | None]:
    before = project.snapshot()

    def verify(runs: int) -> str | None:
        if project.snapshot() != before:
            return "the memory folder changed although there was nothing to do"
        return None

    return verify
