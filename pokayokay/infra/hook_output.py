"""The one builder of a hook's answer to Claude Code: the ``hookSpecificOutput`` JSON line (pure).

Every hook that speaks goes through here: the ``additionalContext`` of the prompt, session and
subagent hooks, PreToolUse's denial, SessionStart's ``watchPaths``, and the spool's failure-time
lesson (the spool runs without the hook runtime, so the builder lives in ``infra``). Claude Code
ignores a field it does not know without a word, so the object's shape is spelled here once.
"""

from __future__ import annotations


def hook_output(event: str, *, system_message: str = "", **fields: object) -> str:
    """The JSON line of ``{"hookSpecificOutput": {"hookEventName": event, **fields}}``, the fields
    in the order given (``additionalContext``, ``permissionDecision``, ``watchPaths`` ...), and
    ``system_message``, when given, as the top-level ``systemMessage`` Claude Code shows the user
    (never the model)."""
    from pokayokay.infra.lean_json import dumps  # json.dumps: no json, no re import

    answer: dict[str, object] = {"hookSpecificOutput": {"hookEventName": event, **fields}}
    if system_message:
        answer["systemMessage"] = system_message
    return dumps(answer) + "\n"


def context_output(event: str, context: str) -> str:
    """The JSON line that hands ``context`` to the model as the event's ``additionalContext``."""
    return hook_output(event, additionalContext=context)
