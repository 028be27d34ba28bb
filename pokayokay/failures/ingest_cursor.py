"""Exactly-once ingest of the spool (:mod:`pokayokay.hooks.ingest`), on the store's side.

While the ingester hands one spooled record to its handler it sets the record's position
(:func:`ingesting`): which spool, which claimed segment of it, and the offset just past the
record. Every write transaction of the failure store then records that position in
``spool_cursors`` in the same transaction as the rows the record produced
(:meth:`pokayokay.failures.store.FailureStore._transaction` calls :func:`advance`). After a crash
between the commit and the ingester's own cursor file moving, the record is handed over again,
and its transaction finds its position already committed: :class:`AlreadyIngested` is raised
before anything is written, and the ingester moves on. A success, an edit or a rule load is
counted once whatever the moment of the crash.

Each record also has a time budget (:attr:`SpoolPosition.deadline`): the capture pipeline calls
:func:`check_budget` between its stages (classify, mistakes, paths, signature) and before it
writes, so a record that runs over raises :class:`OverBudget` before anything of it is stored,
and the ingester quarantines it (:mod:`pokayokay.infra.spool_quarantine`). No thread, no signal:
each stage is bounded on its own (bounded input, linear-time patterns).

A record's handler writes in one transaction per store (each handler does); a second
transaction for the same record and store in the same process is let through (the position is
remembered in :attr:`SpoolPosition.recorded`).
"""

from __future__ import annotations

import time

TYPE_CHECKING = False  # no typing, dataclasses or contextlib: every ingest imports this module
if TYPE_CHECKING:
    import sqlite3
    from contextvars import ContextVar

# Cursors of spools not written for this long are dropped at maintenance.
CURSOR_MAX_AGE = 30 * 24 * 3600.0


class SpoolPosition:
    """Where one record lies: the spool's key, the claimed segment's id, the byte just past it."""

    __slots__ = ("deadline", "end", "recorded", "segment", "spool")

    def __init__(self, spool: str, segment: str, end: int, deadline: float | None = None) -> None:
        self.spool = spool
        self.segment = segment
        self.end = end
        self.deadline = deadline  # time.monotonic() past which the record is over its budget
        self.recorded: set[str] = set()  # stores that committed it in this process

    def __repr__(self) -> str:
        return f"SpoolPosition({self.spool!r}, {self.segment!r}, {self.end})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SpoolPosition) and (
            (self.spool, self.segment, self.end, self.recorded)
            == (other.spool, other.segment, other.end, other.recorded)
        )

    __hash__ = None  # type: ignore[assignment]  # mutable, as the dataclass was


class AlreadyIngested(Exception):
    """The record's transaction was committed before: nothing is written twice."""


class OverBudget(Exception):
    """The record being ingested ran past its time budget (nothing of it was written)."""


# The position, a context variable made by the first ingest of the process: a reader that only
# checks the budget outside any ingest (the prompt's spool gate) imports no contextvars. One
# dict entry, set with setdefault (atomic), so that two threads starting an ingest share it.
_made: dict[str, ContextVar[SpoolPosition | None]] = {}


def _position_var() -> ContextVar[SpoolPosition | None]:
    var = _made.get("position")
    if var is None:
        from contextvars import ContextVar

        var = _made.setdefault("position", ContextVar("pokayokay_spool_position", default=None))
    return var


def current() -> SpoolPosition | None:
    var = _made.get("position")
    return None if var is None else var.get()


class ingesting:  # named as the context manager it replaces
    """``with ingesting(position):`` store writes inside the block record ``position`` (see
    the module docstring)."""

    __slots__ = ("_position", "_token")

    def __init__(self, position: SpoolPosition) -> None:
        self._position = position

    def __enter__(self) -> SpoolPosition:
        self._token = _position_var().set(self._position)
        return self._position

    def __exit__(self, *exc: object) -> None:
        _position_var().reset(self._token)


def check_budget(stage: str) -> None:
    """Between two stages of a record's handling: raise :class:`OverBudget` when the record
    being ingested is past its deadline (outside an ingest: nothing)."""
    position = current()
    deadline = None if position is None else position.deadline
    if deadline is not None and time.monotonic() > deadline:
        raise OverBudget(f"over the per-record time budget before {stage}")


def advance(conn: sqlite3.Connection, store: str) -> None:
    """Inside a write transaction of ``store``: record the current position, or raise
    :class:`AlreadyIngested` when this store committed it before. No position: nothing."""
    position = current()
    if position is None:
        return
    if store not in position.recorded:
        row = conn.execute(
            "SELECT segment, offset FROM spool_cursors WHERE spool = ?", (position.spool,)
        ).fetchone()
        if row is not None and row[0] == position.segment and int(row[1]) >= position.end:
            raise AlreadyIngested(f"{position.spool} {position.segment} @{position.end}")
    conn.execute(
        "INSERT INTO spool_cursors (spool, segment, offset, ts) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (spool) DO UPDATE SET segment = excluded.segment,"
        " offset = excluded.offset, ts = excluded.ts",
        (position.spool, position.segment, position.end, time.time()),
    )


def committed(store: str) -> None:
    """After the commit of a transaction that recorded the current position in ``store``."""
    position = current()
    if position is not None:
        position.recorded.add(store)


def forget_old(conn: sqlite3.Connection, now: float) -> None:
    """Maintenance: drop the cursors of spools nothing came from for a long time."""
    conn.execute("DELETE FROM spool_cursors WHERE ts < ?", (now - CURSOR_MAX_AGE,))
