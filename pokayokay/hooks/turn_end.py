"""Stop: Claude finished its turn; ingest the spool of tool calls in the background.

Registered with ``"async": true`` (:data:`pokayokay.hooks.events.HOOKED_EVENTS`): Claude Code
starts it and waits for nothing, so the classify, redact and store work of the turn's tool calls
(:mod:`pokayokay.hooks.ingest`) happens while the user reads the answer, and the next prompt
finds the spool empty and costs what any warm prompt costs. The prompt keeps its own bounded
ingest for what is left (a turn the user interrupted has no Stop; a Stop still running when the
prompt comes holds the ingest lock, and the prompt then reads the store as it is).

Says nothing to the model and never decides anything (no ``decision``, no output at all): a
failure is logged with one stderr line and the hook exits 0. Exactly once holds against any
other ingester (the prompt's, SessionEnd's, a CLI reader's): one lock per spool and a cursor the
store records with the rows.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# What one Stop spends at most on the spool (it runs in the background, inside its 30 s
# timeout); what is left waits for the next ingester.
STOP_INGEST_BUDGET = 5.0


def stop(payload: dict[str, Any], event: str) -> str:
    """Ingest the launch folder's spool, bounded; always returns "" (nothing for the model)."""
    from pokayokay.hooks import ingest
    from pokayokay.hooks.runtime import project_dir

    try:
        project = project_dir(payload)
    except Exception as exc:  # a refused launch folder: logged, and the turn ends as it would
        from pokayokay.infra.logs import fail_open

        fail_open(f"{event}: locating the project", exc)
        return ""
    ingest.ingest_quietly(
        event, lambda: ingest.ingest_project(project, budget=STOP_INGEST_BUDGET)
    )
    return ""
