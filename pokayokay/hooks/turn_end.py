"""Stop: Claude finished its turn; ingest the spool of tool calls in the background.

Registered with ``"async": true`` (:data:`pokayokay.hooks.events.HOOKED_EVENTS`): Claude Code
starts it and waits for nothing, so the classify, redact and store work of the turn's tool calls
(:mod:`pokayokay.hooks.ingest`) happens while the user reads the answer. When that stored
anything, or a prompt of the turn ingested records itself and left the caches to this hook
(the mark :data:`pokayokay.infra.spool.CACHES_STALE`), the two caches the prompt reads from
the failure store are brought up to date as well (the recall index with its past-fix texts,
and the failure signals of skill suggestion: both are rebuilt by whoever first finds the store
changed), so the next prompt finds the spool empty and the caches fresh, and costs what any
warm prompt costs. The prompt keeps its own bounded
ingest for what is left when it can change the failure signals it reads (a turn the user
interrupted has no Stop: ``pokayokay.hooks.spool_gate``; a Stop still running when the prompt
comes holds the ingest lock, and the prompt then reads the store as it is).

A spool above its cap (sessions killed with no Stop left it large) is handed to a detached
ingester after the bounded run, so no Stop spends its budget on it turn after turn.

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
# timeout); what is left waits for the next ingester. Small: a turn's calls take milliseconds
# each, and a spool that killed sessions left large goes to a detached ingester instead
# (``ingest.enforce_cap``), never to every Stop's whole budget (issue 26).
STOP_INGEST_BUDGET = 1.5


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
    result = ingest.ingest_quietly(
        event, lambda: ingest.ingest_project(project, budget=STOP_INGEST_BUDGET)
    )
    _cap_quietly(project, result, event)
    if _left_stale(project) or (result is not None and result.done):
        _refresh_caches(payload, event)
    return ""


def _left_stale(project: str) -> bool:
    """Whether a prompt of the turn ingested records and left the caches to this Stop (its mark,
    :data:`pokayokay.infra.spool.CACHES_STALE`, removed here before the refresh: a prompt that
    marks again meanwhile is seen by the next Stop)."""
    import os

    from pokayokay.infra.spool import CACHES_STALE, spool_dir

    try:
        os.unlink(os.path.join(spool_dir(project), CACHES_STALE))
    except FileNotFoundError:
        return False  # the usual case: one failed unlink
    except OSError as exc:  # refreshed anyway: a refresh is never wrong
        from pokayokay.infra.logs import fail_open

        fail_open("Stop: removing the caches' mark", exc)
    return True


def _cap_quietly(project: str, result: Any, event: str) -> None:
    """The spool's cap (:func:`pokayokay.hooks.ingest.enforce_cap`); failing open."""
    from pokayokay.hooks import ingest

    try:
        ingest.enforce_cap(project, result, event)
    except Exception as exc:
        from pokayokay.infra.logs import fail_open

        fail_open(f"{event}: handing a large spool to a background ingester", exc)


def _refresh_caches(payload: dict[str, Any], event: str) -> None:
    """:func:`refresh_caches` for the payload's project."""
    from pokayokay.infra.logs import fail_open

    try:
        from pokayokay.hooks.runtime import memory_location

        location = memory_location(payload)
    except Exception as exc:
        fail_open(f"{event}: locating the project's memory", exc)
        return
    refresh_caches(location, event)


def refresh_caches(location: Any, event: str) -> None:
    """What the next prompt would otherwise rebuild because the store changed: the recall
    index (its full check) and the cached failure signals. Each fails open on its own (also
    run by SessionStart's detached catch-up: :mod:`pokayokay.hooks.catch_up_worker`)."""
    from pokayokay.infra.logs import fail_open

    try:
        from pokayokay.infra.state import project_state_dir

        state_dir = project_state_dir(str(location.project_key))
    except Exception as exc:
        fail_open(f"{event}: locating the project's state", exc)
        return
    # The signals first: reading the store can move its file's mtime (a checkpoint when the
    # last connection closes), which the recall index's quick key holds; the signals are keyed
    # by the write mark alone.
    try:
        from pokayokay.skills.advice import cached_signals

        cached_signals(str(state_dir), bounds=True)  # with the gate's bounds (decision 0150)
    except Exception as exc:
        fail_open(f"{event}: refreshing the failure signals", exc)
    try:
        from pokayokay.recall.sources import load

        load(location.memory_dir, location.project_dir, state_dir)
    except Exception as exc:
        fail_open(f"{event}: refreshing the recall index", exc)
