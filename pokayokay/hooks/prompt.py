"""UserPromptSubmit: recalled notes and fitting skills, in ONE ``additionalContext``.

Joins the recall block (``pokayokay.hooks.recall.prompt_context``) and the skill suggestion
(``pokayokay.skills.advice``). Prints nothing at all when both are empty: no noise on every prompt.

Hot path: standard library only at import time, the project's memory location resolved once for
both parts. Memory signals are read only when they can matter: failure groups and rule files
only when the prompt names something that can be a project path, the spike and chain files only
when they exist. The spool of tool calls (``pokayokay.infra.spool``) is ingested here only for
such a prompt, bounded, because only then does the prompt read failure signals; usually the
turn's Stop hook (``pokayokay.hooks.turn_end``, in the background) has ingested it already, and
any other prompt leaves it to Stop, SessionEnd and the CLI readers (recall's fix texts then come
from the store as it is, which is consistent: the store did not change).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from pokayokay.infra.locate import MemoryLocation
    from pokayokay.infra.location_rules import MemoryPaths


MIN_PROMPT_CHARS = 3
# What UserPromptSubmit spends at most on the spool before reading failure signals.
PROMPT_INGEST_BUDGET = 0.25


def suggestion_context(
    payload: dict[str, Any],
    location: MemoryLocation | MemoryPaths | None = None,
    named: list[str] | None = None,
) -> str:
    """The suggestion text for the payload's prompt, or "" (``named``: the paths the prompt
    names, when the caller has them already)."""
    from pokayokay.hooks.runtime import project_dir
    from pokayokay.skills.advice import advice_for

    prompt = payload.get("prompt")
    if not isinstance(prompt, str) or len(prompt.strip()) < MIN_PROMPT_CHARS:
        return ""
    project = project_dir(payload)
    return advice_for(project, prompt, location=location, named=named, quick=True).text()


def _ingest_first(project: str) -> None:
    """Ingest this project's spooled tool calls (bounded; two stats when there are none), so
    that the failure signals read next include them."""
    from pokayokay.hooks import ingest
    from pokayokay.infra.spool import spool_dir

    if not ingest.pending(spool_dir(project)):
        return
    ingest.ingest_quietly(
        "UserPromptSubmit", lambda: ingest.ingest_project(project, budget=PROMPT_INGEST_BUDGET)
    )


def user_prompt_submit(payload: dict[str, Any], event: str) -> str:
    """The hook: one ``additionalContext`` with the recall block and the suggestion, or
    nothing at all. A failure of one part does not lose the other (it is logged)."""
    prompt = payload.get("prompt")
    if not isinstance(prompt, str) or len(prompt.strip()) < MIN_PROMPT_CHARS:
        return ""
    from pokayokay.hooks.runtime import memory_paths, project_dir
    from pokayokay.skills.advice import needs_failure_signals
    from pokayokay.skills.suggest import prompt_paths

    project = project_dir(payload)
    named = prompt_paths(prompt)
    if needs_failure_signals(project, named):
        _ingest_first(project)
    location: MemoryPaths | None
    try:
        location = memory_paths(payload)
    except Exception as exc:  # each part then tries on its own, and logs
        from pokayokay.infra.logs import fail_open

        fail_open("UserPromptSubmit memory location", exc)
        location = None
    parts = []
    for name in ("recall", "suggest"):
        try:
            if name == "recall":
                from pokayokay.hooks.recall import prompt_context

                part = prompt_context(payload, location)
            else:
                part = suggestion_context(payload, location, named)
        except Exception as exc:  # one part failing must not cost the other
            from pokayokay.infra.logs import fail_open

            fail_open(f"UserPromptSubmit {name}", exc)
            part = ""
        if part:
            parts.append(part)
    if not parts:
        return ""
    from pokayokay.hooks.runtime import context_output

    return context_output("UserPromptSubmit", "\n\n".join(parts))
