"""Ingesting the spool (:mod:`pokayokay.infra.spool`): every spooled payload goes to its event's
ordinary handler (the one ``pokayokay hook <Event>`` would run), exactly as if the hook had
processed it when it fired: same project (the record's launch folder) and same time (the
record's).

Exactly once, or still in the spool:

* one ingester per spool at a time (``flock`` on ``ingest.lock``; a hook that finds it taken
  leaves the work to the holder);
* the ingester claims ``active.spool`` by renaming it to ``claimed.spool`` (after resetting the
  cursor), then takes the writers' ``lockf`` lock once: a writer that opened the old name either
  finished before, or sees the rename after taking the lock and writes to the new file;
* a claimed segment gets a fresh id, kept in ``claimed.cursor`` with how far records are
  ingested; records are handed over in order and the cursor file (replaced atomically) moves
  past each one after its handler returned;
* the store records the same position (spool, segment, offset past the record) in the SAME
  transaction as the rows the record produced (:mod:`pokayokay.failures.ingest_cursor`). A
  crash after that commit and before the cursor file moved hands the record over again, and
  its transaction finds the position committed and writes nothing: a success, an edit or a
  rule load is counted once, whatever the moment of the crash.

A record whose handler fails on a transient error (the store busy, the disk full) stops the run
and stays. Nothing else can stop capture: a record that fails otherwise (a payload that does not
parse, a handler error) or runs past its time budget (:data:`RECORD_BUDGET`, checked between
the capture stages: :func:`pokayokay.failures.ingest_cursor.check_budget`), and bytes that are
no record (a torn write: :mod:`pokayokay.infra.spool_frames` resynchronises at the next record),
are kept in the quarantine (:mod:`pokayokay.infra.spool_quarantine`, listed by ``doctor``) and
the cursor moves past them. A record that kills its ingester (a hook's timeout, an OOM) cannot
stop the spool either: before handling a record the ingester marks it in progress in
``claimed.inflight`` (segment, offset, a count of attempts: one small write in place, no
rename), and the ingester that finds it was begun :data:`MAX_ATTEMPTS` times quarantines it
instead of handling it again.

Bounded: hooks give a time budget and the rest waits for the next ingester. The spool itself is
bounded from this side too (writers never refuse a record): a hook ingester that leaves the spool
above :data:`SPOOL_CAP_BYTES` starts a detached ingester with no hook timeout over it
(:func:`enforce_cap`), so sessions killed one after the other (no Stop, no SessionEnd) cannot
make it grow without end, and no record is dropped to keep it small.
"""

from __future__ import annotations

import os
import time

from pokayokay.hooks.runtime import SPOOLED_PROJECT_KEY, SPOOLED_TIME_KEY
from pokayokay.infra import spool, spool_frames

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

# Session markers older than this are dropped (fix episodes expire after 7 days too).
MARKER_MAX_AGE = 7 * 24 * 3600
# Seconds one record may take; a record normally takes milliseconds (issue 25: one line of
# spaces once took 2.4 s in a cubic pattern, and 8,000 of them over 100 s).
RECORD_BUDGET = 3.0
# A record found in progress this many times (its ingesters died) is quarantined: one death
# may be a timeout that hit an innocent record, two in a row on the same record are not.
MAX_ATTEMPTS = 2
_READ_CHUNK = 1 << 20
# Above this many unread bytes a hook ingester hands the rest to a detached one (issue 26: a
# killed 150-call session leaves about 0.21 MB, so this is some ten such sessions).
SPOOL_CAP_BYTES = 2 << 20


class IngestResult:
    __slots__ = ("busy", "done", "left", "quarantined", "replayed", "skipped")

    def __init__(self) -> None:
        self.done = 0  # records handed to their handler
        self.skipped = 0  # records that could not be handled (quarantined, logged)
        self.quarantined = 0  # items kept in the quarantine (those records, and torn bytes)
        self.replayed = 0  # records a crashed ingester had committed (nothing written again)
        self.left = False  # records left for the next ingester (budget, busy, lock taken)
        self.busy = False  # another ingester held the lock: it is the one at work

    def __repr__(self) -> str:
        return (
            f"IngestResult(done={self.done}, skipped={self.skipped}, "
            f"quarantined={self.quarantined}, replayed={self.replayed}, left={self.left}, "
            f"busy={self.busy})"
        )


# Whether the spool holds anything (two stats: the cheap check before ingesting).
pending = spool.pending


def spool_bytes(folder: str) -> int:
    """The bytes the spool holds: the active spool, and what of the claimed segment is not
    ingested yet (by its cursor)."""
    total = 0
    for name in (spool.ACTIVE, spool.CLAIMED):
        try:
            total += os.stat(os.path.join(folder, name)).st_size
        except OSError:
            continue  # absent: counts as empty
    if total and os.path.exists(os.path.join(folder, spool.CLAIMED)):
        try:
            with open(os.path.join(folder, spool.CURSOR), "rb") as fh:
                total -= int(fh.read(128).split()[-1])
        except (OSError, ValueError, IndexError):
            pass  # no cursor: the whole claim counts
    return max(total, 0)


def enforce_cap(project_dir: str, result: IngestResult | None, why: str) -> bool:
    """After a hook's bounded ingest (``result``; None when it failed): when the spool still
    holds more than :data:`SPOOL_CAP_BYTES`, start ``pokayokay graduate`` detached, which
    ingests every spool first (no hook timeout over it) and then graduates what is due. Nothing
    is started while another ingester holds the lock (it is already at work). True: started."""
    if result is not None and result.busy:
        return False
    folder = spool.spool_dir(project_dir)
    size = spool_bytes(folder)
    if size <= SPOOL_CAP_BYTES:
        return False
    from pokayokay.infra.detach import detach_command

    detach_command(
        ["graduate", "--quiet", "--project", project_dir],
        f"{why}: the spool of {project_dir} holds {size:,} bytes (cap {SPOOL_CAP_BYTES:,}); "
        "ingesting it in the background",
    )
    return True


def ingest_project(project_dir: str, *, budget: float | None = None) -> IngestResult:
    """Ingest the spool of one launch folder (what a hook of that session wrote). A hook
    (``budget`` given) does not wait for another ingester's lock, except for SessionStart's
    detached catch-up (its mark :data:`pokayokay.infra.spool.CATCH_UP` in the folder): that one
    is storing a killed session's calls right now, and the hook waits for them within its
    budget rather than read the store without them (decision 0130)."""
    folder = spool.spool_dir(project_dir)
    if not pending(folder):
        return IngestResult()
    wait = 5.0
    if budget is not None:
        wait = budget if os.path.exists(os.path.join(folder, spool.CATCH_UP)) else 0.0
    return ingest(folder, budget=budget, wait=wait)


def ingest_all(*, budget: float | None = None) -> IngestResult:
    """Ingest every project's spool: CLI readers run this first, so that what they read includes
    the tool calls of sessions still running or ended before their SessionEnd ingested."""
    total = IngestResult()
    root = spool.spool_root()
    try:
        names = sorted(os.listdir(root))
    except OSError:
        return total
    deadline = None if budget is None else time.monotonic() + budget
    for name in names:
        folder = os.path.join(root, name)
        if not pending(folder):
            continue
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        part = ingest(folder, budget=left, wait=5.0)
        total.done += part.done
        total.skipped += part.skipped
        total.replayed += part.replayed
        total.quarantined += part.quarantined
        total.left = total.left or part.left
        total.busy = total.busy or part.busy
    return total


def ingest_quietly(what: str, run: Callable[[], IngestResult]) -> IngestResult | None:
    """Run an ingest where its failure must not cost the caller its own work (logged, one
    stderr line)."""
    try:
        return run()
    except Exception as exc:
        from pokayokay.infra.logs import fail_open

        fail_open(f"{what}: ingesting the spool", exc)
        return None


def ingest(folder: str, *, budget: float | None = None, wait: float = 0.0) -> IngestResult:
    """Ingest one spool folder under its lock; ``budget`` seconds at most (None: all of it)."""
    result = IngestResult()
    deadline = None if budget is None else time.monotonic() + budget
    lock = _lock(folder, wait)
    if lock is None:
        result.left = pending(folder)
        result.busy = True
        return result
    try:
        _expire_markers(folder)
        while True:
            claimed = os.path.join(folder, spool.CLAIMED)
            if not os.path.exists(claimed) and not _claim(folder):
                _caught_up(folder)
                return result
            if not _drain(folder, result, deadline):
                result.left = True
                return result
            os.unlink(claimed)
    finally:
        os.close(lock)


def _caught_up(folder: str) -> None:
    """The spool is drained: a catch-up mark left in it is moot."""
    try:
        os.unlink(os.path.join(folder, spool.CATCH_UP))
    except FileNotFoundError:
        return  # none: the usual case


def _lock(folder: str, wait: float) -> int | None:
    """The ingest lock's descriptor, or None when another ingester holds it past ``wait`` (or
    the spool folder is gone)."""
    from pokayokay.infra.flock import try_lock

    try:
        return try_lock(os.path.join(folder, spool.LOCK), wait)
    except FileNotFoundError:
        return None


def _claim(folder: str) -> bool:
    """Rename the active spool to the claimed segment; False when there is nothing to claim."""
    active = os.path.join(folder, spool.ACTIVE)
    try:
        if os.stat(active).st_size == 0:
            return False
    except FileNotFoundError:
        return False
    # Before the rename: a crash in between leaves a fresh segment at 0 for the old name.
    _save_cursor(folder, _new_segment(), 0)
    claimed = os.path.join(folder, spool.CLAIMED)
    os.rename(active, claimed)
    # The writers' lock, once: a write begun on the old name is complete after this, and a
    # writer that locks later finds the name gone and writes to a fresh active spool.
    fd = os.open(claimed, os.O_RDWR)
    try:
        lockf = getattr(os, "lockf", None)
        if lockf is not None:
            lockf(fd, os.F_LOCK, 0)
            lockf(fd, os.F_ULOCK, 0)
    finally:
        os.close(fd)
    return True


def _new_segment() -> str:
    """A claimed segment's id: unique across claims, ingesters and machines."""
    return f"{time.time_ns():x}-{os.getpid():x}-{os.urandom(4).hex()}"


def _load_cursor(folder: str) -> tuple[str, int]:
    """(segment id, offset) of the claimed segment; a cursor without an id (written before
    segments had one) gets one now, before any record of it is handed over."""
    try:
        with open(os.path.join(folder, spool.CURSOR), "rb") as fh:
            fields = fh.read(128).split()
        segment = fields[0].decode("ascii") if len(fields) == 2 else ""
        offset = int(fields[-1]) if fields else 0
    except (OSError, ValueError, UnicodeDecodeError):
        segment, offset = "", 0
    if not segment:
        segment = _new_segment()
        _save_cursor(folder, segment, offset)
    return segment, offset


def _save_cursor(folder: str, segment: str, offset: int) -> None:
    path = os.path.join(folder, spool.CURSOR)
    tmp = f"{path}.{os.getpid()}.tmp"
    with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as fh:
        fh.write(b"%s %d\n" % (segment.encode("ascii"), offset))
    os.replace(tmp, path)


_INFLIGHT_SIZE = 160  # one line, padded: each mark overwrites the whole of the last one


def _attempts(fd: int, segment: str, offset: int) -> int:
    """How many ingesters began the record at ``offset`` of ``segment`` and did not finish it
    (0 when the in-progress mark names another record, or cannot be read)."""
    try:
        fields = os.pread(fd, _INFLIGHT_SIZE, 0).split()
        if len(fields) == 3 and fields[0].decode("ascii") == segment and int(fields[1]) == offset:
            return int(fields[2])
    except (OSError, ValueError, UnicodeDecodeError, AttributeError):
        pass  # AttributeError: no pread (Windows): no marks, every record is handled
    return 0


def _mark(fd: int, segment: str, offset: int, attempts: int) -> None:
    """Mark the record at ``offset`` in progress (one write in place: no rename per record)."""
    line = b"%s %d %d\n" % (segment.encode("ascii"), offset, attempts)
    pwrite = getattr(os, "pwrite", None)
    if pwrite is not None:
        pwrite(fd, line.ljust(_INFLIGHT_SIZE), 0)


def _drain(folder: str, result: IngestResult, deadline: float | None) -> bool:
    """Hand over the claimed segment's records from the cursor on. True: all of them done."""
    from pokayokay.failures.ingest_cursor import SpoolPosition, ingesting

    path = os.path.join(folder, spool.CLAIMED)
    segment, start = _load_cursor(folder)
    key = os.path.basename(os.path.normpath(folder))
    from pokayokay.hooks.capture import stores_kept_open

    marks = os.open(os.path.join(folder, spool.INFLIGHT), os.O_RDWR | os.O_CREAT, 0o600)
    with (
        open(path, "rb") as fh,
        open(marks, "r+b", buffering=0) as inflight_file,
        stores_kept_open(),
    ):
        inflight = inflight_file.fileno()  # closed with inflight_file
        attempts = _attempts(inflight, segment, start)
        fh.seek(start)
        for offset, raw, record in spool_frames.iter_frames(fh.read, _READ_CHUNK):
            if deadline is not None and time.monotonic() >= deadline:
                return False
            base = start + offset
            if record is None:
                if raw.strip():  # white space alone is logged, not kept
                    from pokayokay.infra import spool_quarantine  # only for what it keeps

                    spool_quarantine.keep(folder, segment, base, raw, spool_quarantine.TORN)
                    result.quarantined += 1
                _passed_over(path, base, len(raw), "bytes that are no record")
            elif attempts >= MAX_ATTEMPTS:
                from pokayokay.infra import spool_quarantine

                spool_quarantine.keep(folder, segment, base, raw, spool_quarantine.STOPPED)
                _passed_over(path, base, len(raw), f"a record that stopped {attempts} ingesters")
                result.skipped += 1
                result.quarantined += 1
            else:
                _mark(inflight, segment, base, attempts + 1)
                deadline_of_record = time.monotonic() + RECORD_BUDGET
                position = SpoolPosition(key, segment, base + len(raw), deadline_of_record)
                with ingesting(position):
                    outcome = _handle(record, result)
                if outcome is None:  # a transient error: left, and no death to count
                    _mark(inflight, segment, base, attempts)
                    return False
                if outcome:
                    from pokayokay.infra import spool_quarantine

                    spool_quarantine.keep(folder, segment, base, raw, outcome)
                    result.quarantined += 1
            attempts = 0
            _save_cursor(folder, segment, base + len(raw))
    return True


def _passed_over(path: str, offset: int, size: int, what: str) -> None:
    from pokayokay.infra import logs

    logs.log(f"spool {path}: passed over {size} bytes at offset {offset} ({what})")


def _handle(record: tuple[str, int, str, bytes], result: IngestResult) -> str | None:
    """Hand one record to its handler. "": handled; a quarantine reason: the record could not
    be handled and is to be kept; None: a transient error, the record stays."""
    import sqlite3

    from pokayokay.failures.ingest_cursor import AlreadyIngested, OverBudget
    from pokayokay.hooks.events import HANDLERS

    event, ts_ns, where, data = record
    target = HANDLERS.get(event)
    try:
        from pokayokay.infra.lean_json import decode, loads, may_hold_surrogates, well_formed

        # json.loads without json's import, as the hook's own read: a bad byte reads as U+FFFD
        payload = loads(decode(data))
        if not isinstance(payload, dict) or target is None:
            raise ValueError(f"a {event} record that is no payload pokayokay handles")

        if may_hold_surrogates(data):  # as the hook's own read (hooks.runtime.read_payload)
            payload = well_formed(payload)
        payload[SPOOLED_PROJECT_KEY] = where
        payload[SPOOLED_TIME_KEY] = ts_ns / 1e9
        module_name, func_name = target.split(":")
        import importlib

        handler: Callable[[dict[str, Any], str], str] = getattr(
            importlib.import_module(f"pokayokay.hooks.{module_name}"), func_name
        )
        handler(payload, event)
    except AlreadyIngested:
        result.replayed += 1  # committed before a crash: written once, not again
        return ""
    except OverBudget as exc:
        from pokayokay.infra import logs

        logs.log_exception(f"ingesting a {event} record (passed over, quarantined)", exc)
        result.skipped += 1
        from pokayokay.infra import spool_quarantine

        return spool_quarantine.OVER_BUDGET
    except (sqlite3.OperationalError, OSError) as exc:
        from pokayokay.infra import logs

        logs.log_exception(f"ingesting a {event} record (left in the spool)", exc)
        result.left = True
        return None
    except Exception as exc:  # one bad record must not block the spool
        from pokayokay.infra import logs

        logs.log_exception(f"ingesting a {event} record (passed over, quarantined)", exc)
        result.skipped += 1
        from pokayokay.infra import spool_quarantine

        return spool_quarantine.FAILED
    result.done += 1
    return ""


def _expire_markers(folder: str) -> None:
    marks = os.path.join(folder, spool.OPEN_DIR)
    try:
        names = os.listdir(marks)
    except OSError:
        return  # no marks folder: nothing expires
    cutoff = time.time() - MARKER_MAX_AGE
    for name in names:
        path = os.path.join(marks, name)
        try:
            if os.stat(path).st_mtime < cutoff:
                os.unlink(path)
        except OSError:
            continue  # gone or kept: the next sweep sees it
