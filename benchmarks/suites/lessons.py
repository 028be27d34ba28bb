"""Lesson hooks (issue 16): PreToolUse before a Bash command (the guard) and SubagentStart (the
always-loaded lessons for a subagent), each with and without lessons."""

from __future__ import annotations

import json
import subprocess

from benchmarks.fixtures.lab import Lab, Project, slug
from benchmarks.fixtures.memory import encode_payload, memory_text, moved_payload
from benchmarks.harness import Check, Measurable, Spec
from benchmarks.suites.common import hook_case, no_output

BAD = "python -m pytest -q tests/test_cart.py"
GOOD = ".venv/bin/python -m pytest -q tests/test_cart.py"
ACTIVE_PATTERNS_MARKER = "<!-- pokayokay: graduated to .claude/rules/ when confirmed -->\n"
ACTIVE_PATTERN = (
    "- Failing test tests/test_cart.py::test_total: see .claude/rules/pokayokay/testing.md "
    "(4 sessions, since 2026-10-01)\n"
)


def write_lessons(project: Project) -> None:
    """The lesson lookup graduation would write: the environment correction, and a fix in a
    file for another command."""
    from pokayokay.infra.lesson_lookup import write_lookup
    from pokayokay.rules.lessons import CommandLesson, lookup_content

    lessons = [
        CommandLesson(BAD, 4, GOOD, "environment"),
        CommandLesson("npm run build", 3, fix_paths=("webpack.config.js",)),
    ]
    write_lookup([str(project.path)], lookup_content(lessons, 3), project.env)


def without_active_patterns(text: str) -> str:
    """The generated MEMORY.md with its Active Patterns section emptied: no lesson to hand on."""
    head, marker, rest = text.partition(ACTIVE_PATTERNS_MARKER)
    _, end, tail = rest.partition("<!-- /pokayokay -->")
    return head + marker + end + tail


def context(event: str, needle: str) -> Check:
    def check(proc: subprocess.CompletedProcess[bytes]) -> str | None:
        try:
            text = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
        except (ValueError, KeyError, TypeError):
            return f"expected {event} additionalContext, got: {proc.stdout[:300]!r}"
        return None if needle in text else f"{needle!r} missing from: {text[:300]!r}"

    return check


def pre_tool_use(name: str, *, lessons: bool, command: str) -> Spec:
    def build(lab: Lab, n: int) -> Measurable:
        project = lab.project(slug(name))
        if lessons:
            write_lessons(project)
        payload = moved_payload("PreToolUse.Bash.json", project.path)
        payload["tool_input"] = {**payload["tool_input"], "command": command}
        known = lessons and command == BAD
        return hook_case(
            lab,
            name,
            "PreToolUse",
            project,
            n,
            stdin=encode_payload(payload),
            check_each=context("PreToolUse", GOOD) if known else no_output,
            note="issue 16's goal without lessons: <= 1.3x the floor (a no-op hook)"
            if not lessons
            else "the lookup read and one dictionary look-up",
        )

    return Spec(name, build)


def subagent_start(name: str, *, lessons: bool) -> Spec:
    def build(lab: Lab, n: int) -> Measurable:
        project = lab.project(slug(name))
        text = memory_text(80) if lessons else without_active_patterns(memory_text(80))
        if lessons:
            write_lessons(project)
            text = text.replace(ACTIVE_PATTERNS_MARKER, ACTIVE_PATTERNS_MARKER + ACTIVE_PATTERN, 1)
        project.restore(text.encode())
        return hook_case(
            lab,
            name,
            "SubagentStart",
            project,
            n,
            stdin=encode_payload(moved_payload("SubagentStart.json", project.path)),
            check_each=context("SubagentStart", GOOD) if lessons else no_output,
            note="MEMORY.md parsed for Active Patterns, the lookup for environment lessons",
        )

    return Spec(name, build)


def registered(name: str, event: str, *, lessons: bool) -> Spec:
    """The command ``init`` registered (PostToolUseFailure: the spool entry; PreToolUse: the
    guarded ``pokayokay hook``), run as Claude Code runs it, on the known-bad command."""

    def build(lab: Lab, n: int) -> Measurable:
        from benchmarks.suites.realistic import failure_payload, initialised, registered_case

        project = initialised(lab, slug(name))
        if lessons:
            write_lessons(project)
        if event == "PostToolUseFailure":
            error = "Exit code 1\n/usr/bin/python: No module named pytest"
            return registered_case(
                lab, name, event, project, n,
                stdin_each=lambda i: failure_payload(project, i, error, BAD),
                check_each=context(event, GOOD) if lessons else no_output,
                note="issue 16's goal with a lesson: <= 2x the floor",
            )
        payload = moved_payload("PreToolUse.Bash.json", project.path)
        payload["tool_input"] = {**payload["tool_input"], "command": BAD}
        return registered_case(
            lab, name, event, project, n, stdin=encode_payload(payload),
            check_each=context(event, GOOD) if lessons else no_output,
            note="issue 16's goal without lessons: <= 1.3x the floor",
        )

    return Spec(name, build)


def specs() -> list[Spec]:
    return [
        pre_tool_use("hook PreToolUse (Bash, no lessons yet)", lessons=False, command=BAD),
        pre_tool_use("hook PreToolUse (Bash, lessons, unrelated command)", lessons=True,
                     command="git status --short"),
        pre_tool_use("hook PreToolUse (Bash, known-bad command: hint)", lessons=True, command=BAD),
        subagent_start("hook SubagentStart (no lessons)", lessons=False),
        subagent_start("hook SubagentStart (environment lesson + Active Patterns)", lessons=True),
        registered("registered PreToolUse (Bash, no lessons yet)", "PreToolUse", lessons=False),
        registered("registered PreToolUse (known-bad command: hint)", "PreToolUse", lessons=True),
        registered("registered PostToolUseFailure (known failure: lesson)", "PostToolUseFailure",
                   lessons=True),
    ]
