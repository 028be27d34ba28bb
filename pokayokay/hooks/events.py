"""The hook events pokayokay registers: one table for `init`, the plugin's hooks.json and dispatch.

Only events that do real work are registered, because every registered event costs an interpreter
start on each firing. Later capabilities add rows here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class HookSpec:
    event: str
    matcher: str | None
    # Seconds. A SessionEnd timeout in a *settings file* raises Claude Code's shared 1.5 s
    # SessionEnd budget (plugin hook timeouts do not); pokayokay still aims to finish well inside
    # 1.5 s so that the plugin install works too.
    timeout: int


HOOKED_EVENTS: tuple[HookSpec, ...] = (
    HookSpec("SessionStart", None, 10),
    # Related learnings (recall) and fitting skills (suggestion), or nothing at all.
    HookSpec("UserPromptSubmit", None, 10),
    HookSpec("PreCompact", None, 60),
    HookSpec("SessionEnd", None, 10),
    # Failure capture: failures, validation errors and denials (only PostToolBatch sees those),
    # and the successes and edits that close failure -> fix episodes.
    HookSpec("PostToolUseFailure", None, 10),
    HookSpec("PostToolBatch", None, 10),  # this event takes no matcher
    HookSpec("PostToolUse", "Bash|PowerShell|Edit|MultiEdit|Write|NotebookEdit", 10),
    # Only loads of path-scoped rules: that is when a graduated rule proves itself.
    HookSpec("InstructionsLoaded", "path_glob_match", 10),
)
