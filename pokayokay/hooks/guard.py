"""Lessons at the moment they matter: before a known-bad command runs (PreToolUse, matcher Bash)
and right after a command failed the way it failed before (PostToolUseFailure).

Both read only the precomputed lookup (:mod:`pokayokay.infra.lesson_lookup`), which graduation
writes when the lessons change; its texts quote commands exactly (redacted) in code spans, and no
dangerous command is among them. A project without lessons costs one ``stat`` (the runtime checks
before the payload is even read); a command without a lesson gets no output.

The ``guard`` setting (``off | hint | block``, default ``hint``) decides what PreToolUse does
with a command that failed in at least the graduation threshold of sessions and has a known
correction: ``hint`` adds the correction next to the call and lets the command run; ``block``
denies the call with the correction as the reason, so Claude runs the right command instead.
The command is never rewritten.
"""

from __future__ import annotations

from pokayokay.hooks.runtime import context_output, project_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

GUARD_MODES = ("off", "hint", "block")
DEFAULT_GUARD = "hint"
COMMAND_TOOLS = ("Bash", "PowerShell")


def _command(payload: dict[str, Any]) -> str | None:
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        return None
    command = tool_input.get("command")
    return command if isinstance(command, str) and command.strip() else None


def lesson_for(payload: dict[str, Any]) -> dict[str, Any] | None:
    """The lookup's entry for the payload's command, or None (no lookup, no command, no lesson)."""
    if payload.get("tool_name") not in COMMAND_TOOLS:
        return None
    command = _command(payload)
    if command is None:
        return None
    from pokayokay.infra.lesson_lookup import command_entry, load_for

    lookup = load_for(project_dir(payload))
    if lookup is None:
        return None
    entry = command_entry(lookup, command)
    if entry is None and lookup.get("redacted") is True:
        from pokayokay.safety.commands import redact_secrets  # as capture stored the command

        entry = command_entry(lookup, redact_secrets(command))
    return entry


def guard_mode(project: str) -> str:
    """The project's ``guard`` setting; the default when the settings cannot be read (logged).

    When no settings file mentions ``guard`` (none at all, usually) the answer is the default
    without loading the settings (their module costs more than the rest of this hook)."""
    if not _mentions_guard(project):
        return DEFAULT_GUARD
    from pathlib import Path

    from pokayokay.config.settings import load_settings

    try:
        return load_settings(Path(project)).guard
    except Exception as exc:  # a broken settings file must not cost Claude the hint
        from pokayokay.infra.logs import fail_open

        fail_open("PreToolUse guard: reading the settings (guard: hint used)", exc)
        return DEFAULT_GUARD


def _mentions_guard(project: str) -> bool:
    """Whether a settings file of the project could set ``guard`` (an unreadable one could)."""
    import os

    from pokayokay.infra.regular import read_regular
    from pokayokay.names import LOCAL_SETTINGS_FILE, TEAM_SETTINGS_FILE

    for name in (TEAM_SETTINGS_FILE, LOCAL_SETTINGS_FILE):
        path = os.path.join(project, name)
        if not os.path.lexists(path):
            continue
        try:
            if b"guard" in read_regular(path, 1 << 20):
                return True
        except OSError:
            return True  # load_settings then says what is wrong (logged)
    return False


def deny_output(reason: str) -> str:
    from pokayokay.infra.hook_output import hook_output

    return hook_output("PreToolUse", permissionDecision="deny", permissionDecisionReason=reason)


def pre_tool_use(payload: dict[str, Any], event: str) -> str:
    """PreToolUse (Bash): the correction of a known-bad command, as a hint or a denial."""
    entry = lesson_for(payload)
    if entry is None or entry.get("guard") is not True:
        return ""
    hint, reason = entry.get("hint"), entry.get("block")
    if not isinstance(hint, str) or not isinstance(reason, str) or not hint or not reason:
        return ""
    mode = guard_mode(project_dir(payload))
    if mode == "block":
        return deny_output(reason)
    if mode == "hint":
        return context_output("PreToolUse", hint)
    return ""


def failure_context(payload: dict[str, Any]) -> str:
    """PostToolUseFailure: what worked after this command failed before, or "" (never raises:
    a lesson must not cost the failure its capture)."""
    if payload.get("is_interrupt") is True:
        return ""
    try:
        entry = lesson_for(payload)
    except Exception as exc:
        from pokayokay.infra.logs import fail_open

        fail_open("PostToolUseFailure lesson", exc)
        return ""
    if entry is None:
        return ""
    from pokayokay.infra.lesson_lookup import failure_text

    text = failure_text(entry, payload.get("error"))  # chosen by the mistake, not the command
    return context_output("PostToolUseFailure", text) if text else ""
