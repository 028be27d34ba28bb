"""Whether the spooled tool calls can change the failure signals a prompt reads.

UserPromptSubmit reads failure signals (``pokayokay.skills.failure_boost``) when the prompt names
project paths. Tool calls still in the spool (a turn the user interrupted has no Stop) are not in
the store yet, and ingesting them costs a classify, redact and store pass. They are ingested
before the signals are read only when they can change whether a recurring failure shows for the
named paths; otherwise the turn's Stop, SessionEnd or a CLI reader takes them in, and the prompt
reads the store as it is.

A failure boost needs a group that failed in :data:`RECURRING_SESSIONS` sessions, in a category
the suggestion uses, placed where the prompt points (same file, same kind of file in the same
folder, or under a named folder). One more failure can change that only by:

* giving a second session to a group that failed in one other session (the store's groups with
  one session are cached with that session: ``FailureSignals.near``), or turning the category
  of a recurring group into one the suggestion uses (the category follows the newest failure);
* starting a group in two sessions at once (spooled failures of two parallel sessions);
* making a bare or partial file name in the prompt resolvable (``conftest.py`` →
  ``tests/conftest.py``: only paths a failure named resolve it), when the record holds that name.

Any of these, or a spool too large to scan, means "ingest first". What can lag by one prompt
otherwise is wording of a boost that shows anyway: its session count, and which of several
recurring groups of one category at the named place is shown. The decision reads only the
spooled bytes (record headers, the ``session_id``, the file name searched as bytes) and the
cached signals: no JSON, no regex, no store.
"""

from __future__ import annotations

import os

from pokayokay.infra import spool, spool_frames

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from pokayokay.skills.failure_boost import FailureSignals

# Spooled events whose handler can record a failure.
FAILURE_EVENTS = frozenset({"PostToolUseFailure", "PostToolBatch"})
# Pending spool bytes scanned at most; a larger spool is ingested first (bounded) unscanned.
SCAN_MAX = 4 << 20


def pending_failures(folder: str) -> list[tuple[str, bytes]] | None:
    """(session id, payload bytes) of each spooled record not ingested yet that can record a
    failure, oldest first; None when the pending bytes exceed :data:`SCAN_MAX` or hold
    something that is no record (the ingester deals with that: the caller ingests)."""
    found: list[tuple[str, bytes]] = []
    total = 0
    for name, start in ((spool.CLAIMED, _cursor(folder)), (spool.ACTIVE, 0)):
        try:
            with open(os.path.join(folder, name), "rb") as fh:
                if os.fstat(fh.fileno()).st_size - start > SCAN_MAX - total:
                    return None
                fh.seek(start)
                data = fh.read(SCAN_MAX - total + 1)
        except FileNotFoundError:
            continue  # ingested meanwhile: nothing to scan
        total += len(data)
        if total > SCAN_MAX or not _failures_in(data, found):
            return None
    return found


def _failures_in(data: bytes, found: list[tuple[str, bytes]]) -> bool:
    """Add the failure records of ``data`` (whole records, back to back) to ``found``; False
    when ``data`` is anything else (a torn or foreign tail included)."""
    at = 0
    while at < len(data):
        _kind, size, record = spool_frames.next_frame(data, at, True)
        if record is None:
            return False
        event, _ts_ns, _where, payload = record
        if event in FAILURE_EVENTS and (
            event != "PostToolBatch" or any(h in payload for h in spool.BATCH_FAILURE_HINTS)
        ):
            found.append((spool.session_of(payload), payload))
        at += size
    return True


def _cursor(folder: str) -> int:
    """How far the claimed segment is ingested (0 when unknown: scanning more is safe)."""
    try:
        with open(os.path.join(folder, spool.CURSOR), "rb") as fh:
            fields = fh.read(128).split()
        return int(fields[1] if len(fields) == 3 else fields[-1]) if fields else 0
    except (OSError, ValueError):
        return 0


def could_change(
    records: Sequence[tuple[str, bytes]],
    project: str,
    named: Sequence[str],
    signals: FailureSignals,
) -> bool:
    """Whether ingesting ``records`` (from :func:`pending_failures`) can change whether a
    recurring failure shows for the paths ``named`` in a prompt in ``project`` (stats only).
    See the module docstring."""
    if not records:
        return False
    from pokayokay.skills.advice import project_paths
    from pokayokay.skills.failure_boost import RECURRING_SESSIONS, GroupSignal, place

    sessions = {session for session, _data in records}
    if len(sessions) >= RECURRING_SESSIONS or "" in sessions:
        return True
    for raw in named:
        path = raw.strip().removeprefix("./").rstrip("/")
        if not path or os.path.exists(os.path.join(project, path)):
            continue
        base = path.rsplit("/", 1)[-1]
        if not base.isascii() or any(base.encode("ascii") in data for _session, data in records):
            return True  # a record may be what resolves the name to a project file
    resolved = project_paths(project, named, signals.known)
    near = tuple(path for path, owner in signals.near if owner not in sessions)
    if not resolved or not near:
        return False
    return place(GroupSignal("", RECURRING_SESSIONS, 0.0, near, None), resolved) is not None
