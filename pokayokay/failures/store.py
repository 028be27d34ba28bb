"""The local failure evidence of one project: an SQLite file in pokayokay's state folder.

``$POKAYOKAY_HOME/projects/<slug>/failures.db``. Hooks write it from many processes at once
(parallel sessions, subagents, worktrees), so:

* WAL journal, ``synchronous=NORMAL``, a 5 s busy timeout, and every write is ONE short
  ``BEGIN IMMEDIATE`` transaction (an immediate transaction waits for the write lock up front,
  so two writers never deadlock on a lock upgrade); reads run outside transactions and never
  block writers;
* the schema version lives in ``PRAGMA user_version``; migrations are ordered and run inside an
  immediate transaction that re-reads the version first, so two processes creating the file at
  once both succeed and the migration runs once;
* bounded: raw failure rows beyond ``max_events`` (default 80,000) are pruned oldest first,
  and rows (and rule loads) older than ``max_age_days`` (default 180) at every maintenance; a
  new store uses incremental auto-vacuum and maintenance hands freed pages back to the file
  system, so the file stays under about 45 MB at its cap and shrinks when rows age out;
  the per-signature aggregates (``signatures``, ``group_sessions``, ``group_paths``,
  ``group_fix_commands``) are updated in the same transaction as each raw row, so counts stay
  exact after pruning. Open fix episodes and their edits expire after 7 days.

Fix episodes: a failure of command C in session S opens (or joins) the episode (S, C); edits in
S are recorded only while S has an open episode; a later success of C in S closes every episode
(S, C): the files edited since the episode's first failure become the ``fix_paths`` and C a
``fix_command`` of every signature the episode saw. A success with nothing to close is a single
indexed read: PostToolUse runs on every tool call.

A success of another command that corrects the failing one
(:func:`pokayokay.failures.corrections.correction_kind`) also closes the episode and records the
pair in ``group_corrections``; each edit kept while an episode is open carries a few sanitised
lines of the change, aggregated per signature in ``group_fix_edits`` when the episode closes.

Commands are compared by :func:`pokayokay.failures.signature.command_key` of their redacted
text. A failure's ``signature`` is its group key (:mod:`pokayokay.failures.mistakes`); one tool
call may record several (one per mistake). ``(session_id, tool_use_id, signature)`` is unique:
the same tool call reported by two hooks is counted once, while another session reusing the id
(a replay, a resumed or mocked session) records its own failure.

``sessions_since(ts)`` counts sessions first seen by the store at or after ``ts`` (any recorded
event registers its session, successes included).

Requires SQLite ≥ 3.24 (UPSERT).
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Mapping, Sequence

from pokayokay.failures import store_reads, store_writes
from pokayokay.failures.schema import MIGRATIONS, REKEY, SCHEMA_VERSION
from pokayokay.failures.store_files import (
    create_private,
    file_identity,
    incremental_vacuum,
    is_busy,
    is_corrupt,
    mark_changed,
    move_aside,
    retry_busy,
    retry_fresh,
)
from pokayokay.failures.store_reads import RuleLoad
from pokayokay.names import FAILURES_DB

TYPE_CHECKING = False
if TYPE_CHECKING:  # names for type checkers alone: no typing import at run time (decision 0159)
    from pathlib import Path
    from typing import Any, TypeVar

    from pokayokay.failures.model import Failure, FailureGroup

    _T = TypeVar("_T")

DB_NAME = FAILURES_DB
DEFAULT_MAX_EVENTS = 80_000
DEFAULT_MAX_AGE_DAYS = 180
# Freed pages handed back per maintenance at most (4 KiB pages: 16 MiB).
VACUUM_PAGES = 4096
BUSY_TIMEOUT_MS = 5_000
EPISODE_MAX_AGE = 7 * 24 * 3600.0
# Housekeeping beyond the cheap per-insert prune runs once every this many failure rows.
MAINTENANCE_EVERY = 500
# BEGIN IMMEDIATE is retried this many times after the busy timeout ran out.
WRITE_ATTEMPTS = 3
# The store file is opened this many times while another process is moving it aside.
OPEN_ATTEMPTS = 3
# Fixing edits kept per group (the most frequent, then the newest).
MAX_FIX_EDITS = 12
# A fix row keeps at most this many of the files edited before the fix.
MAX_FIX_PATHS = 20



class StoreError(Exception):
    """The store cannot be used (e.g. written by a newer pokayokay)."""


class FailureStore:
    """One project's failure database. Opens lazily; use as a context manager or ``close()``."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        max_events: int = DEFAULT_MAX_EVENTS,
        max_age_days: float = DEFAULT_MAX_AGE_DAYS,
    ):
        if max_events < 1:
            raise ValueError("max_events must be at least 1")
        # The file as a string: ingesting inside a prompt opens the store with no pathlib
        # (urllib.parse and ipaddress come with it: 0.45 floors, decision 0159); ``path`` is the
        # Path the API has always given.
        self._where = os.fspath(path)
        self.max_events = max_events
        self.max_age = max_age_days * 86400.0
        # Set when an unreadable file was moved aside and a fresh one started (for the log).
        self.recovered_from: Path | None = None
        self._recovering = False  # a corrupt file was met once: the next error is raised
        self._identity: tuple[int, int] | None = None  # the file the connection opened
        self._conn: sqlite3.Connection | None = None
        self._vacuum_due = False

    @property
    def path(self) -> Path:
        from pathlib import Path

        return Path(self._where)

    @classmethod
    def for_project(
        cls,
        project_key: str | os.PathLike[str],
        environ: Mapping[str, str] | None = None,
        *,
        max_events: int = DEFAULT_MAX_EVENTS,
    ) -> FailureStore:
        """The store of the project keyed by ``project_key`` (its canonical git root)."""
        from pokayokay.infra.state import project_state_path

        env = None if environ is None else dict(environ)
        folder = project_state_path(os.fspath(project_key), env)
        return cls(os.path.join(folder, DB_NAME), max_events=max_events)

    # -- connection ---------------------------------------------------------------------------

    def __enter__(self) -> FailureStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            try:
                self._conn = self._open()
            except sqlite3.DatabaseError as exc:
                if not self._recover(exc):
                    raise
                # The fresh store, as read() does: while another process still holds or moves
                # the corrupt file, the first opens can fail ("disk I/O error", seen in CI).
                self._conn = retry_fresh(self._open, self.close)
        return self._conn

    def _recover(self, exc: sqlite3.DatabaseError) -> bool:
        """A corrupt file (store_files.is_corrupt) is moved aside once per store object and a
        fresh one opened next: True when the caller should try again."""
        if self._recovering or not is_corrupt(exc, self.path, self._identity):
            return False
        self._recovering = True
        self.close()
        # None: another process moved it aside first (and said so); its fresh store is used.
        self.recovered_from = move_aside(self.path, self._identity, str(exc))
        return True

    def read(self, query: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
        """``query(connection, *args, **kwargs)``; a corrupt file is set aside and the query
        runs again on the fresh store."""
        try:
            return query(self._connection(), *args, **kwargs)
        except sqlite3.DatabaseError as exc:
            if not self._recover(exc):
                raise
            # Another process may still be moving the same file aside: a few fresh tries.
            return retry_fresh(lambda: query(self._connection(), *args, **kwargs), self.close)

    def _open(self) -> sqlite3.Connection:
        # Opened read-write, never created by SQLite: a file SQLite created at the path while
        # another process moved a corrupt store aside would be paired with the corrupt WAL not
        # yet moved beside it, found corrupt in turn and moved aside a second time. Only
        # create_private creates the file, under the move-aside lock (on Windows, where SQLite's
        # file: URIs take another form, the plain path is opened as before).
        as_uri = os.name != "nt"
        where = self._where
        quoted = where.replace("%", "%25").replace("?", "%3f").replace("#", "%23")
        target = f"file:{quoted}?mode=rw" if as_uri else where
        for attempt in range(OPEN_ATTEMPTS):
            if not os.path.exists(where):
                create_private(self.path)  # 0600 from the start, never while one is moved aside
            before = file_identity(where)
            try:
                conn = sqlite3.connect(
                    target, uri=as_uri, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                    check_same_thread=False,
                )  # fmt: skip
            except sqlite3.OperationalError:
                if attempt == OPEN_ATTEMPTS - 1 or os.path.exists(where):
                    raise  # not a file moved aside between the check and the open
                continue
            # The identity of the file this connection holds: the same file at the path before
            # and after the open. When they differ, another process moved a corrupt store aside
            # meanwhile, and the connection may hold either file: a later error could not tell
            # which one failed (seen in CI as "disk I/O error" on the fresh store's WAL), so it
            # is opened again.
            self._identity = file_identity(where)
            if self._identity == before or attempt == OPEN_ATTEMPTS - 1:
                break  # on the last try, is_corrupt's identity check decides on an error
            conn.close()
            time.sleep(0.02 * (attempt + 1))
        else:  # pragma: no cover - the loop always breaks or raises on its last attempt
            raise AssertionError("unreachable")
        try:
            # Takes effect only on an empty file (before the first table): new stores give
            # freed pages back to the file system (maintenance runs incremental_vacuum).
            conn.execute("PRAGMA auto_vacuum=INCREMENTAL")
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            conn.execute("PRAGMA synchronous=NORMAL")
            versions: list[int] = []
            retry_busy(lambda: conn.execute("PRAGMA journal_mode=WAL").fetchone(), WRITE_ATTEMPTS)
            retry_busy(
                lambda: versions.append(conn.execute("PRAGMA user_version").fetchone()[0]),
                WRITE_ATTEMPTS,
            )
            if versions[-1] != SCHEMA_VERSION:
                self._migrate(conn)
        except BaseException:
            conn.close()
            raise
        return conn

    def _migrate(self, conn: sqlite3.Connection) -> None:
        def work(conn: sqlite3.Connection) -> None:
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"{self.path} has schema version {version}, newer than this pokayokay "
                    f"understands ({SCHEMA_VERSION}); upgrade pokayokay"
                )
            for statements in MIGRATIONS[version:]:
                for statement in statements:
                    if statement == REKEY:
                        from pokayokay.failures.rekey import rekey

                        rekey(conn)
                    else:
                        conn.execute(statement)
            conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

        self._transaction(work, conn, records=False)

    def _transaction(
        self,
        work: Callable[[sqlite3.Connection], _T],
        conn: sqlite3.Connection | None = None,
        *,
        records: bool = True,
    ) -> _T:
        """Run ``work`` in one ``BEGIN IMMEDIATE`` transaction, committed or rolled back.

        ``records``: the transaction writes what a tool call produced, so while the spool is
        ingested it also records the spooled record's position, or raises
        :class:`~pokayokay.failures.ingest_cursor.AlreadyIngested` when that was committed
        before (:mod:`pokayokay.failures.ingest_cursor`). Without ``conn``, a corrupt file is
        set aside and ``work`` runs on a fresh store (:meth:`read`)."""
        from pokayokay.failures import ingest_cursor

        if conn is None:
            return self.read(lambda fresh: self._transaction(work, fresh, records=records))
        for attempt in range(WRITE_ATTEMPTS):
            try:
                conn.execute("BEGIN IMMEDIATE")
                break
            except sqlite3.OperationalError as exc:
                if not is_busy(exc) or attempt == WRITE_ATTEMPTS - 1:
                    raise
                time.sleep(0.05 * (attempt + 1))
        try:
            if records:
                ingest_cursor.advance(conn, self._where)
            result = work(conn)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        if records:
            ingest_cursor.committed(self._where)
        self._mark_changed()
        if self._vacuum_due:
            self._vacuum(conn)
        return result

    def _mark_changed(self) -> None:
        mark_changed(self._where)

    def _vacuum(self, conn: sqlite3.Connection) -> None:
        self._vacuum_due = False
        incremental_vacuum(conn, self._where, VACUUM_PAGES)

    # -- writes ---------------------------------------------------------------------------------

    def record_failure(self, f: Failure, *, tool_use_id: str | None = None) -> bool:
        """Record one failure; ``False`` when its session already recorded its ``tool_use_id``."""
        return self.record_failures([(f, tool_use_id)]) == 1

    def record_failures(self, failures: Iterable[Failure | tuple[Failure, str | None]]) -> int:
        """Record several failures in one transaction; returns how many were new."""
        from pokayokay.failures.model import Failure  # a named tuple itself: test it first

        items: list[tuple[Failure, str | None]] = [
            (item, None) if isinstance(item, Failure) else item for item in failures
        ]
        if not items:
            return 0

        def work(conn: sqlite3.Connection) -> int:
            return sum(self._insert_failure(conn, f, tool_use_id) for f, tool_use_id in items)

        return self._transaction(work)

    def _insert_failure(
        self, conn: sqlite3.Connection, f: Failure, tool_use_id: str | None
    ) -> bool:
        row_id = store_writes.insert_failure(conn, f, tool_use_id)
        if row_id is None:
            return False  # the same tool call, already recorded
        if row_id > self.max_events:
            # Row ids only grow and only the oldest rows are deleted: this keeps the newest
            # max_events rows, and costs one primary-key range lookup when nothing is due.
            conn.execute("DELETE FROM failures WHERE id <= ?", (row_id - self.max_events,))
        if row_id % MAINTENANCE_EVERY == 0:
            self._maintain(conn, f.ts)
        return True

    def _session_known(self, session_id: str) -> bool:
        row = self.read(
            lambda c: c.execute(
                "SELECT 1 FROM sessions WHERE session_id = ?", (session_id,)
            ).fetchone()
        )
        return row is not None

    def _ensure_session(self, session_id: str, ts: float) -> None:
        if not self._session_known(session_id):
            self._transaction(lambda conn: store_writes.register_session(conn, session_id, ts))

    def open_episodes(self, session_id: str) -> list[tuple[int, str, float]]:
        """The session's open fix episodes as (id, command, started): one indexed read."""
        rows = self.read(
            lambda c: c.execute(
                "SELECT id, command, started FROM episodes WHERE session_id = ? ORDER BY id",
                (session_id,),
            ).fetchall()
        )
        return [(int(row[0]), str(row[1]), float(row[2])) for row in rows]

    def record_success(
        self,
        session_id: str,
        tool: str,
        command: str | None,
        ts: float | None = None,
        exists: Callable[[str], bool] | None = None,
    ) -> int:
        """A tool call succeeded; for a command, close the session's fix episodes it ends.

        An episode ends when the same command passes, or a correction of it
        (:func:`pokayokay.failures.corrections.correction_kind`, given ``exists``: whether a
        path relative to the folder the command ran in names a file now): then the pair is
        recorded as a correction of every signature the episode saw. Returns the number of
        episodes closed. A session with no open episode costs one indexed read.
        """
        ts = time.time() if ts is None else ts
        key = store_writes.command_key(command) if command else ""
        open_ = self.open_episodes(session_id) if key else []
        if not open_:
            self._ensure_session(session_id, ts)
            return 0
        from pokayokay.failures.corrections import correction_kind, formatter_run

        closing: list[tuple[tuple[int, str, float], str | None]] = []  # (episode, kind)
        for episode in open_:
            failing = episode[1]
            if failing == key:
                closing.append((episode, None))
            elif formatter_run(failing, key):
                closing.append((episode, "formatter"))
            elif (kind := correction_kind(failing, key, exists)) is not None:
                closing.append((episode, kind))
        if not closing:
            self._ensure_session(session_id, ts)
            return 0
        limits = (MAX_FIX_PATHS, MAX_FIX_EDITS)

        def work(conn: sqlite3.Connection) -> int:
            closed = sum(
                store_writes.close_episode(conn, episode, session_id, ts, key, kind, limits)
                for episode, kind in closing
            )
            oldest_open = conn.execute(
                "SELECT min(started) FROM episodes WHERE session_id = ?", (session_id,)
            ).fetchone()[0]
            if oldest_open is None:
                conn.execute("DELETE FROM edits WHERE session_id = ?", (session_id,))
            else:
                conn.execute(
                    "DELETE FROM edits WHERE session_id = ? AND ts < ?", (session_id, oldest_open)
                )
            store_writes.register_session(conn, session_id, ts)
            return closed

        return self._transaction(work)

    def has_open_episode(self, session_id: str) -> bool:
        """Whether the session has a failing command not yet passed (one indexed read)."""
        query = "SELECT 1 FROM episodes WHERE session_id = ? LIMIT 1"
        row = self.read(lambda c: c.execute(query, (session_id,)).fetchone())
        return row is not None

    def record_edit(
        self, session_id: str, path: str, ts: float | None = None, excerpt: str = ""
    ) -> bool:
        """A project file was edited; kept only while the session has an open fix episode.

        ``excerpt``: a few sanitised lines of the change (:mod:`pokayokay.failures.fix_edits`).
        Returns whether the edit was stored.
        """
        ts = time.time() if ts is None else ts
        if not self.has_open_episode(session_id):
            self._ensure_session(session_id, ts)
            return False
        from pokayokay.safety.redact import redact

        path = redact(path)  # as a failure's own paths are: a token in a file name never kept

        def work(conn: sqlite3.Connection) -> bool:
            conn.execute(
                "INSERT INTO edits (session_id, path, ts, excerpt) VALUES (?, ?, ?, ?)",
                (session_id, path, ts, excerpt),
            )
            store_writes.register_session(conn, session_id, ts)
            return True

        return self._transaction(work)

    def record_rule_load(
        self,
        session_id: str,
        rule_path: str,
        trigger_path: str | None,
        ts: float | None = None,
    ) -> None:
        """Claude Code loaded ``rule_path`` because ``trigger_path`` was touched."""
        ts = time.time() if ts is None else ts
        from pokayokay.safety.redact import redact

        rule_path = redact(rule_path)  # as a failure's own paths are
        trigger_path = redact(trigger_path) if trigger_path else trigger_path

        def work(conn: sqlite3.Connection) -> None:
            row_id = conn.execute(
                "INSERT INTO rule_loads (ts, session_id, rule_path, trigger_path)"
                " VALUES (?, ?, ?, ?)",
                (ts, session_id, rule_path, trigger_path),
            ).lastrowid
            if row_id is not None and row_id > self.max_events:
                conn.execute("DELETE FROM rule_loads WHERE id <= ?", (row_id - self.max_events,))
            store_writes.register_session(conn, session_id, ts)

        self._transaction(work)

    def maintain(self, now: float | None = None) -> None:
        """Housekeeping (also run every ``MAINTENANCE_EVERY`` failures)."""
        self._transaction(
            lambda conn: self._maintain(conn, time.time() if now is None else now), records=False
        )

    def _maintain(self, conn: sqlite3.Connection, now: float) -> None:
        # Retention by age (the count is kept on every insert); aggregates keep their counts.
        conn.execute("DELETE FROM failures WHERE ts < ?", (now - self.max_age,))
        conn.execute("DELETE FROM rule_loads WHERE ts < ?", (now - self.max_age,))
        last_load = conn.execute("SELECT max(id) FROM rule_loads").fetchone()[0]
        if last_load is not None and last_load > self.max_events:
            conn.execute("DELETE FROM rule_loads WHERE id <= ?", (last_load - self.max_events,))
        cutoff = now - EPISODE_MAX_AGE
        conn.execute(
            "DELETE FROM episode_signatures WHERE episode_id IN"
            " (SELECT id FROM episodes WHERE started < ?)",
            (cutoff,),
        )
        conn.execute("DELETE FROM episodes WHERE started < ?", (cutoff,))
        conn.execute("DELETE FROM edits WHERE ts < ?", (cutoff,))
        conn.execute("DELETE FROM fixes WHERE ts < ?", (cutoff,))  # read at the session's end
        from pokayokay.failures.ingest_cursor import forget_old

        forget_old(conn, now)
        # Session bookkeeping older than the oldest raw failure kept is no longer needed
        # exactly: a session that old reappearing would count once more, which is harmless.
        oldest = conn.execute("SELECT min(ts) FROM failures").fetchone()[0]
        if oldest is not None:
            conn.execute("DELETE FROM group_sessions WHERE last_seen < ?", (oldest,))
        conn.execute(
            "DELETE FROM sessions WHERE session_id IN (SELECT session_id FROM sessions"
            " ORDER BY first_seen DESC LIMIT -1 OFFSET ?)",
            (self.max_events,),
        )
        self._vacuum_due = True  # after the commit: see _transaction

    # -- one-off upgrades (pokayokay.failures.upgrade: never from a hook) ------------------

    def connection(self) -> sqlite3.Connection:
        return self._connection()

    def upgrade_transaction(self, work: Callable[[sqlite3.Connection], _T]) -> _T:
        return self._transaction(work, records=False)

    # -- reads (the queries live in store_reads) --------------------------------------------

    def session_fixes(self, session_id: str) -> list[store_reads.SessionFix]:
        """The failure groups fix episodes closed in ``session_id``, oldest first."""
        return self.read(store_reads.session_fixes, session_id)

    def single_session_owners(self) -> dict[str, str]:
        return self.read(store_reads.single_session_owners)

    def failure_groups(self, *, fixed_only: bool = False) -> list[FailureGroup]:
        """One group per signature, most widespread first (sessions, occurrences, recency);
        ``fixed_only``: only those a fix episode closed."""
        return self.read(store_reads.failure_groups, fixed_only=fixed_only)

    def failures(
        self,
        *,
        since: float | None = None,
        signatures: Sequence[str] | None = None,
        limit: int | None = None,
        session_id: str | None = None,
    ) -> list[Failure]:
        """Raw failures still kept (the newest ``max_events``), oldest first."""
        return self.read(
            store_reads.failures,
            since=since,
            signatures=signatures,
            limit=limit,
            session_id=session_id,
        )

    def rule_loads(self) -> list[RuleLoad]:
        """Every recorded rule load, oldest first."""
        return self.read(store_reads.rule_loads)

    def signatures(self) -> list[str]:
        """Every signature with a group."""
        return self.read(store_reads.signatures)

    def rule_effect(
        self,
        rule_path: str,
        signatures: Sequence[str],
        *,
        exact: bool = True,
        min_sessions: int = 0,
    ) -> store_reads.RuleEffect:
        """One rule's loads and recurrences, counted in SQL (see store_reads.rule_effect)."""
        return self.read(
            store_reads.rule_effect, rule_path, signatures, exact=exact, min_sessions=min_sessions
        )

    def clean_streak(self, rule_path: str, signatures: Sequence[str]) -> int:
        """Loaded sessions in a row with no recurrence (see store_reads.clean_streak)."""
        return self.read(store_reads.clean_streak, rule_path, signatures)

    def evidence_stamp(self) -> str:
        """A value that changes whenever graduation's evidence does (new failures, closed fix
        episodes), and only then: unlike the file's mtime, reads and checkpoints leave it."""
        return self.read(store_reads.evidence_stamp)

    def sessions_since(self, ts: float) -> int:
        """How many sessions the store first saw at or after ``ts``."""
        return self.read(store_reads.sessions_since, ts)

    def command_sessions(self) -> dict[tuple[str, str], int]:
        """(group key, command) -> distinct sessions in which the command failed that way."""
        return self.read(store_reads.command_sessions)
