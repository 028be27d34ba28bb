"""Session hooks: SessionStart (three launchers, MEMORY.md within and over its limit),
SessionEnd (curating, and nothing to do) and an event pokayokay ignores."""

from __future__ import annotations

import json
import subprocess

from benchmarks.fixtures.lab import Lab, slug
from benchmarks.fixtures.memory import NOTIFICATION_PAYLOAD, memory_text, sample_payload
from benchmarks.harness import Check, Measurable, Spec
from benchmarks.suites.common import Launcher, curated, hook_case, no_output, unchanged


def session_start_note(proc: subprocess.CompletedProcess[bytes]) -> str | None:
    try:
        note = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    except (ValueError, KeyError, TypeError):
        return None
    return note if isinstance(note, str) else None


def tip_only(proc: subprocess.CompletedProcess[bytes]) -> str | None:
    """SessionStart within limits prints the /remember tip and never the overflow note."""
    from pokayokay.learnings.capture.remember import session_start_tip

    note = session_start_note(proc)
    if note is None:
        return f"expected the SessionStart /remember tip, got: {proc.stdout[:300]!r}"
    if session_start_tip() not in note:
        return f"the /remember tip is missing from the SessionStart note: {note[:300]!r}"
    if "MEMORY.md is " in note:
        return f"overflow note printed although MEMORY.md is within limits: {note[:300]!r}"
    return None


def context_note(lines: int) -> Check:
    def check(proc: subprocess.CompletedProcess[bytes]) -> str | None:
        try:
            note = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
        except (ValueError, KeyError, TypeError):
            return f"expected the SessionStart context note, got: {proc.stdout[:300]!r}"
        if f"MEMORY.md is {lines} lines" not in note:
            return f"unexpected context note: {note[:300]!r}"
        return None

    return check


def session_start(name: str, launcher: Launcher, note: str) -> Spec:
    def build(lab: Lab, n: int) -> Measurable:
        project = lab.project(slug(name))
        project.restore(memory_text(80).encode())
        return hook_case(
            lab,
            name,
            "SessionStart",
            project,
            n,
            launcher=launcher,
            stdin=sample_payload("SessionStart.startup.json"),
            check_each=tip_only,
            verify=unchanged(project),
            note=note,
        )

    return Spec(name, build)


def over_limit(lab: Lab, n: int) -> Measurable:
    project = lab.project("session-start-over")
    project.restore(memory_text(260).encode())
    return hook_case(
        lab,
        "hook SessionStart (MEMORY.md over limit)",
        "SessionStart",
        project,
        n,
        stdin=sample_payload("SessionStart.startup.json"),
        check_each=context_note(260),
        verify=unchanged(project),
        note="260 lines: parses the file and prints the context note",
    )


def session_end_curating(lab: Lab, n: int) -> Measurable:
    project = lab.project("session-end-curating")
    content = memory_text(300).encode()
    return hook_case(
        lab,
        "hook SessionEnd (curating a 300-line file)",
        "SessionEnd",
        project,
        n,
        stdin=sample_payload("SessionEnd.other.json"),
        before_each=lambda: project.restore(content),
        check_each=no_output,
        verify=curated(project, 300),
        note="file restored (untimed) before each run; archives, backup, lock included",
    )


def session_end_idle(lab: Lab, n: int) -> Measurable:
    project = lab.project("session-end-idle")
    project.restore(memory_text(300).encode())
    subprocess.run(
        [lab.console_script(), "curate", "--quiet", "--project", str(project.path)],
        env=project.env,
        cwd=project.path,
        check=True,
        capture_output=True,
    )
    return hook_case(
        lab,
        "hook SessionEnd (nothing to do)",
        "SessionEnd",
        project,
        n,
        stdin=sample_payload("SessionEnd.other.json"),
        check_each=no_output,
        verify=unchanged(project),
        note="already curated: parse, curate, check, write nothing",
    )


def unknown(lab: Lab, n: int) -> Measurable:
    project = lab.project("unknown-event")
    project.restore(memory_text(80).encode())
    return hook_case(
        lab,
        "hook Notification (unknown event)",
        "Notification",
        project,
        n,
        stdin=NOTIFICATION_PAYLOAD,
        check_each=no_output,
        verify=unchanged(project),
        note="an event pokayokay ignores: the no-op path",
    )


def specs() -> list[Spec]:
    """The SessionStart and SessionEnd rows, in the table's order."""
    return [
        session_start(
            "hook SessionStart (nothing to do)",
            "script",
            "console script; 80-line MEMORY.md within limits: the common case",
        ),
        session_start(
            "hook SessionStart (nothing to do) via python -m pokayokay",
            "module",
            "same work, started through runpy",
        ),
        session_start(
            "hook SessionStart (nothing to do) via plugin shim",
            "shim",
            "hooks/pokayokay-hook: /bin/sh finds pokayokay on PATH, then exec",
        ),
        Spec("hook SessionStart (MEMORY.md over limit)", over_limit),
        Spec("hook SessionEnd (curating a 300-line file)", session_end_curating),
        Spec("hook SessionEnd (nothing to do)", session_end_idle),
    ]


def notification_specs() -> list[Spec]:
    return [Spec("hook Notification (unknown event)", unknown)]
