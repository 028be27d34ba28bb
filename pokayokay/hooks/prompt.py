"""UserPromptSubmit: recalled notes and fitting skills, in ONE ``additionalContext``.

Joins the recall block (``pokayokay.hooks.recall.prompt_context``) and the skill suggestion
(``pokayokay.skills.suggest``). Prints nothing at all when both are empty: no noise on every prompt.

Hot path: standard library only at import time. Memory signals are read only when they can
matter: failure groups and rule files only when the prompt names a path, the spike and chain
files only when they exist.
"""

from __future__ import annotations

from pokayokay.skills.advice import advice_for

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


MIN_PROMPT_CHARS = 3


def suggestion_context(payload: dict[str, Any]) -> str:
    """The suggestion text for the payload's prompt, or ""."""
    from pathlib import Path

    from pokayokay.hooks.runtime import project_dir

    prompt = payload.get("prompt")
    if not isinstance(prompt, str) or len(prompt.strip()) < MIN_PROMPT_CHARS:
        return ""
    return advice_for(Path(project_dir(payload)), prompt).text()


# What UserPromptSubmit spends at most on the spool before reading failure signals.
PROMPT_INGEST_BUDGET = 0.25


def _ingest_first(payload: dict[str, Any]) -> None:
    """Ingest this session's spooled tool calls (bounded; two stats when there are none), so
    that the failure signals read below include them."""
    from pokayokay.hooks import ingest
    from pokayokay.hooks.runtime import project_dir
    from pokayokay.infra.spool import spool_dir

    if not ingest.pending(spool_dir(project_dir(payload))):
        return
    ingest.ingest_quietly(
        "UserPromptSubmit",
        lambda: ingest.ingest_project(project_dir(payload), budget=PROMPT_INGEST_BUDGET),
    )


def user_prompt_submit(payload: dict[str, Any], event: str) -> str:
    """The hook: one ``additionalContext`` with the recall block and the suggestion, or
    nothing at all. A failure of one part does not lose the other (it is logged)."""
    _ingest_first(payload)
    parts = []
    for name in ("recall", "suggest"):
        try:
            if name == "recall":
                from pokayokay.hooks.recall import prompt_context

                part = prompt_context(payload)
            else:
                part = suggestion_context(payload)
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
