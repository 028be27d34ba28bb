"""The one table of hook events: what ``init`` registers, what the plugin's ``hooks.json`` holds
and which handler ``pokayokay hook <Event>`` runs. Nothing else lists events.

Only events that do real work are registered, because every registered event costs an interpreter
start on each firing. No dataclasses: the hook runtime reads this table on every event
(:class:`HookSpec` is a slotted :class:`~pokayokay.infra.Value`, decision 0154).
"""

from __future__ import annotations

from pokayokay.infra import Value

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import KW_ONLY


class HookSpec(Value, eq=True):
    """One registered event: its matcher, its timeout and its handler.

    ``timeout`` is in seconds. A SessionEnd timeout in a *settings file* raises Claude Code's shared
    1.5 s SessionEnd budget (plugin hook timeouts do not); pokayokay still aims to finish well
    inside 1.5 s so that the plugin install works too. ``handler`` is ``"module:function"`` under
    :mod:`pokayokay.hooks`; the function takes ``(payload, event)`` and returns the text to print.
    ``background``: registered with ``"async": true``, so Claude Code runs it in the background
    and waits for nothing (its output reaches no one; in ``-p`` mode the CLI kills a background
    hook still running at exit).
    """

    event: str
    matcher: str | None
    timeout: int
    handler: str
    _: KW_ONLY
    background: bool = False

    def __repr__(self) -> str:
        tail = ", background=True" if self.background else ""
        return (
            f"HookSpec({self.event!r}, {self.matcher!r}, {self.timeout}, {self.handler!r}{tail})"
        )


HOOKED_EVENTS: tuple[HookSpec, ...] = (
    HookSpec("SessionStart", None, 10, "session:session_start"),
    # Related learnings (recall) and fitting skills (suggestion), or nothing at all.
    HookSpec("UserPromptSubmit", None, 10, "prompt:user_prompt_submit"),
    HookSpec("PreCompact", None, 60, "session:pre_compact"),
    HookSpec("SessionEnd", None, 10, "session:session_end"),
    # The turn ended: ingest the spool in the background, so that the user's next prompt finds
    # it empty (the prompt still ingests what is left: a turn the user interrupted has no Stop).
    HookSpec("Stop", None, 30, "turn_end:stop", background=True),
    # Failure capture: failures, validation errors and denials (only PostToolBatch sees those),
    # and the successes and edits that close failure -> fix episodes.
    HookSpec("PostToolUseFailure", None, 10, "capture:post_tool_use_failure"),
    HookSpec("PostToolBatch", None, 10, "capture:post_tool_batch"),  # takes no matcher
    HookSpec(
        "PostToolUse",
        "Bash|PowerShell|Edit|MultiEdit|Write|NotebookEdit",
        10,
        "capture:post_tool_use",
    ),
    # Only loads of path-scoped rules: that is when a graduated rule proves itself.
    HookSpec("InstructionsLoaded", "path_glob_match", 10, "instructions:instructions_loaded"),
    # The correction of a known-bad command before it runs (the `guard` setting).
    HookSpec("PreToolUse", "Bash", 10, "guard:pre_tool_use"),
    # Subagents load no auto memory: hand them the always-loaded lessons.
    HookSpec("SubagentStart", None, 10, "subagent:subagent_start"),
    # Claude wrote MEMORY.md mid-session (SessionStart returns it in `watchPaths`): curate.
    HookSpec("FileChanged", "MEMORY.md", 10, "memory_watch:file_changed"),
)

# Events whose handler has nothing to do unless the project has a lesson lookup
# (pokayokay.infra.lesson_lookup): the runtime checks that before it even reads the payload, so
# in a project without lessons they cost what an event pokayokay ignores costs.
LOOKUP_ONLY_EVENTS: frozenset[str] = frozenset({"PreToolUse"})

# Event name -> handler, for dispatch.
HANDLERS: dict[str, str] = {spec.event: spec.handler for spec in HOOKED_EVENTS}
