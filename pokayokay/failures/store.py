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
* bounded: raw failure rows beyond ``max_events`` (default 200,000) are pruned oldest first;
  the per-signature aggregates (``signatures``, ``group_sessions``, ``group_paths``,
  ``group_fix_commands``) are updated in the same transaction as each raw row, so counts stay
  exact after pruning. Open fix episodes and their edits expire after 7 days.

Fix episodes: a failure of command C in session S opens (or joins) the episode (S, C); edits in
S are recorded only while S has an open episode; a later success of C in S closes every episode
(S, C): the files edited since the episode's first failure become the ``fix_paths`` and C a
``fix_command`` of every signature the episode saw. A success with nothing to close is a single
indexed read: PostToolUse runs on every tool call.

Commands are compared by :func:`pokayokay.failures.signature.command_key`. A ``tool_use_id`` given
with a
failure is unique: the same tool call reported by two hooks is counted once.

``sessions_since(ts)`` counts sessions first seen by the store at or after ``ts`` (any recorded
event registers its session, successes included).

Requires SQLite ≥ 3.24 (UPSERT).
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from pokayokay.failures import store_reads
from pokayokay.failures.schema import MIGRATIONS, SCHEMA_VERSION
from pokayokay.failures.signature import command_key
from pokayokay.failures.store_reads import RuleLoad
from pokayokay.names import FAILURES_DB

if TYPE_CHECKING:
    from pokayokay.failures.model import Failure, FailureGroup

DB_NAME = FAILURES_DB
DEFAULT_MAX_EVENTS = 200_000
BUSY_TIMEOUT_MS = 5_000
EPISODE_MAX_AGE = 7 * 24 * 3600.0
# Housekeeping beyond the cheap per-insert prune runs once every this many failure rows.
MAINTENANCE_EVERY = 500
# BEGIN IMMEDIATE is retried this many times after the busy timeout ran out.
WRITE_ATTEMPTS = 3
# A fix row keeps at most this many of the files edited before the fix.
MAX_FIX_PATHS = 20

_T = TypeVar("_T")


class StoreError(Exception):
    """The store cannot be used (e.g. written by a newer pokayokay)."""






def _is_busy(exc: sqlite3.OperationalError) -> bool:
    """A lock another connection holds (``SQLITE_BUSY``/``LOCKED``, or WAL's rare
    ``SQLITE_PROTOCOL`` race while a WAL index is being rebuilt): worth retrying."""
    text = str(exc).lower()
    return "locked" in text or "busy" in text or "locking protocol" in text


SQLITE_HEADER = b"SQLite format 3\x00"


def _is_foreign_file(path: Path) -> bool:
    """True when ``path`` holds bytes that are not an SQLite database (never a file that is
    empty or starts like one: those may be another process's database being created)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(SQLITE_HEADER))
    except OSError:
        return False
    return bool(head) and head != SQLITE_HEADER[: len(head)]


class FailureStore:
    """One project's failure database. Opens lazily; use as a context manager or ``close()``."""

    def __init__(self, path: str | os.PathLike[str], *, max_events: int = DEFAULT_MAX_EVENTS):
        if max_events < 1:
            raise ValueError("max_events must be at least 1")
        self.path = Path(path)
        self.max_events = max_events
        # Set when an unreadable file was moved aside and a fresh one started (for the log).
        self.recovered_from: Path | None = None
        self._conn: sqlite3.Connection | None = None

    @classmethod
    def for_project(
        cls,
        project_key: str | os.PathLike[str],
        environ: Mapping[str, str] | None = None,
        *,
        max_events: int = DEFAULT_MAX_EVENTS,
    ) -> FailureStore:
        """The store of the project keyed by ``project_key`` (its canonical git root)."""
        from pokayokay.infra.state import project_state_dir

        env = None if environ is None else dict(environ)
        folder = project_state_dir(os.fspath(project_key), env)
        return cls(folder / DB_NAME, max_events=max_events)

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
                if "not a database" not in str(exc) or not _is_foreign_file(self.path):
                    raise
                self._move_aside()
                self._conn = self._open()
        return self._conn

    def _move_aside(self) -> None:
        aside = self.path.with_name(f"{self.path.name}.unreadable-{int(time.time())}")
        os.replace(self.path, aside)
        for suffix in ("-wal", "-shm"):
            try:
                os.remove(f"{self.path}{suffix}")
            except FileNotFoundError:
                continue
        self.recovered_from = aside

    def _open(self) -> sqlite3.Connection:
        if not self.path.exists():
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # Private from the start: excerpts of tool output can hold anything.
            os.close(os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600))
        conn = sqlite3.connect(
            self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
        )
        try:
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            conn.execute("PRAGMA synchronous=NORMAL")
            versions: list[int] = []
            self._retry_busy(lambda: conn.execute("PRAGMA journal_mode=WAL").fetchone())
            self._retry_busy(
                lambda: versions.append(conn.execute("PRAGMA user_version").fetchone()[0])
            )
            if versions[-1] != SCHEMA_VERSION:
                self._migrate(conn)
        except BaseException:
            conn.close()
            raise
        return conn

    @staticmethod
    def _retry_busy(action: Callable[[], object]) -> None:
        """Run ``action``, retrying a few times on a lock the busy handler did not wait out."""
        for attempt in range(WRITE_ATTEMPTS * 10):
            try:
                action()
                return
            except sqlite3.OperationalError as exc:
                if not _is_busy(exc) or attempt == WRITE_ATTEMPTS * 10 - 1:
                    raise
                time.sleep(0.02 + 0.01 * attempt)

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
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

        self._transaction(work, conn)

    def _transaction(
        self, work: Callable[[sqlite3.Connection], _T], conn: sqlite3.Connection | None = None
    ) -> _T:
        """Run ``work`` in one ``BEGIN IMMEDIATE`` transaction, committed or rolled back."""
        conn = conn if conn is not None else self._connection()
        for attempt in range(WRITE_ATTEMPTS):
            try:
                conn.execute("BEGIN IMMEDIATE")
                break
            except sqlite3.OperationalError as exc:
                if not _is_busy(exc) or attempt == WRITE_ATTEMPTS - 1:
                    raise
                time.sleep(0.05 * (attempt + 1))
        try:
            result = work(conn)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        return result

    # -- writes ---------------------------------------------------------------------------------

    def record_failure(self, f: Failure, *, tool_use_id: str | None = None) -> bool:
        """Record one failure; ``False`` when its ``tool_use_id`` was already recorded."""
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
        command = command_key(f.command) if f.command else None
        cursor = conn.execute(
            "INSERT OR IGNORE INTO failures (ts, session_id, tool, command, signature, category,"
            " paths, excerpt, exit_code, tool_use_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                f.ts,
                f.session_id,
                f.tool,
                command,
                f.signature,
                f.category,
                json.dumps(list(f.paths), ensure_ascii=False),
                f.excerpt,
                f.exit_code,
                tool_use_id,
            ),
        )
        if cursor.rowcount != 1:
            return False  # the same tool call, already recorded
        row_id = cursor.lastrowid or 0
        new_session = (
            conn.execute(
                "SELECT 1 FROM group_sessions WHERE signature = ? AND session_id = ?",
                (f.signature, f.session_id),
            ).fetchone()
            is None
        )
        conn.execute(
            "INSERT INTO group_sessions (signature, session_id, last_seen) VALUES (?, ?, ?)"
            " ON CONFLICT (signature, session_id)"
            " DO UPDATE SET last_seen = max(last_seen, excluded.last_seen)",
            (f.signature, f.session_id, f.ts),
        )
        conn.execute(
            "INSERT INTO signatures (signature, category, occurrences, sessions, first_seen,"
            " last_seen, sample_command, excerpt) VALUES (?, ?, 1, ?, ?, ?, ?, ?)"
            " ON CONFLICT (signature) DO UPDATE SET"
            " category = excluded.category,"
            " occurrences = occurrences + 1,"
            " sessions = sessions + excluded.sessions,"
            " first_seen = min(first_seen, excluded.first_seen),"
            " last_seen = max(last_seen, excluded.last_seen),"
            " sample_command = coalesce(excluded.sample_command, sample_command),"
            " excerpt = excluded.excerpt",
            (f.signature, f.category, int(new_session), f.ts, f.ts, command, f.excerpt),
        )
        for path in dict.fromkeys(f.paths):
            self._bump_path(conn, f.signature, "fail", path)
        self._register_session(conn, f.session_id, f.ts)
        if command:
            episode = conn.execute(
                "SELECT id FROM episodes WHERE session_id = ? AND command = ? ORDER BY id LIMIT 1",
                (f.session_id, command),
            ).fetchone()
            if episode is None:
                episode_id = conn.execute(
                    "INSERT INTO episodes (session_id, command, started) VALUES (?, ?, ?)",
                    (f.session_id, command, f.ts),
                ).lastrowid
            else:
                episode_id = episode[0]
            conn.execute(
                "INSERT OR IGNORE INTO episode_signatures (episode_id, signature) VALUES (?, ?)",
                (episode_id, f.signature),
            )
        if row_id > self.max_events:
            # Row ids only grow and only the oldest rows are deleted: this keeps the newest
            # max_events rows, and costs one primary-key range lookup when nothing is due.
            conn.execute("DELETE FROM failures WHERE id <= ?", (row_id - self.max_events,))
        if row_id % MAINTENANCE_EVERY == 0:
            self._maintain(conn, f.ts)
        return True

    @staticmethod
    def _bump_path(conn: sqlite3.Connection, signature: str, kind: str, path: str) -> None:
        conn.execute(
            "INSERT INTO group_paths (signature, kind, path, count) VALUES (?, ?, ?, 1)"
            " ON CONFLICT (signature, kind, path) DO UPDATE SET count = count + 1",
            (signature, kind, path),
        )

    @staticmethod
    def _register_session(conn: sqlite3.Connection, session_id: str, ts: float) -> None:
        conn.execute(
            "INSERT OR IGNORE INTO sessions (session_id, first_seen) VALUES (?, ?)",
            (session_id, ts),
        )

    def _session_known(self, session_id: str) -> bool:
        row = (
            self._connection()
            .execute("SELECT 1 FROM sessions WHERE session_id = ?", (session_id,))
            .fetchone()
        )
        return row is not None

    def _ensure_session(self, session_id: str, ts: float) -> None:
        if not self._session_known(session_id):
            self._transaction(lambda conn: self._register_session(conn, session_id, ts))

    def record_success(
        self, session_id: str, tool: str, command: str | None, ts: float | None = None
    ) -> int:
        """A tool call succeeded; for a command, close its open fix episodes in the session.

        Returns the number of episodes closed. Nothing to close costs one indexed read.
        """
        ts = time.time() if ts is None else ts
        key = command_key(command) if command else ""
        conn = self._connection()
        if not key or (
            conn.execute(
                "SELECT 1 FROM episodes WHERE session_id = ? AND command = ? LIMIT 1",
                (session_id, key),
            ).fetchone()
            is None
        ):
            self._ensure_session(session_id, ts)
            return 0

        def work(conn: sqlite3.Connection) -> int:
            episodes = conn.execute(
                "SELECT id, started FROM episodes WHERE session_id = ? AND command = ?",
                (session_id, key),
            ).fetchall()
            for episode_id, started in episodes:
                paths = [
                    row[0]
                    for row in conn.execute(
                        "SELECT DISTINCT path FROM edits WHERE session_id = ? AND ts >= ?"
                        " AND ts <= ? ORDER BY path",
                        (session_id, started, ts),
                    )
                ]
                signatures = [
                    row[0]
                    for row in conn.execute(
                        "SELECT signature FROM episode_signatures WHERE episode_id = ?",
                        (episode_id,),
                    )
                ]
                for signature in signatures:
                    conn.execute(
                        "INSERT INTO fixes (session_id, ts, signature, command, paths)"
                        " VALUES (?, ?, ?, ?, ?)",
                        (session_id, ts, signature, key, json.dumps(paths[:MAX_FIX_PATHS])),
                    )
                    for path in paths:
                        self._bump_path(conn, signature, "fix", path)
                    conn.execute(
                        "INSERT INTO group_fix_commands (signature, command, count)"
                        " VALUES (?, ?, 1) ON CONFLICT (signature, command)"
                        " DO UPDATE SET count = count + 1",
                        (signature, key),
                    )
                conn.execute("DELETE FROM episode_signatures WHERE episode_id = ?", (episode_id,))
                conn.execute("DELETE FROM episodes WHERE id = ?", (episode_id,))
            oldest_open = conn.execute(
                "SELECT min(started) FROM episodes WHERE session_id = ?", (session_id,)
            ).fetchone()[0]
            if oldest_open is None:
                conn.execute("DELETE FROM edits WHERE session_id = ?", (session_id,))
            else:
                conn.execute(
                    "DELETE FROM edits WHERE session_id = ? AND ts < ?", (session_id, oldest_open)
                )
            self._register_session(conn, session_id, ts)
            return len(episodes)

        return self._transaction(work)

    def record_edit(self, session_id: str, path: str, ts: float | None = None) -> bool:
        """A project file was edited; kept only while the session has an open fix episode.

        Returns whether the edit was stored.
        """
        ts = time.time() if ts is None else ts
        conn = self._connection()
        if (
            conn.execute(
                "SELECT 1 FROM episodes WHERE session_id = ? LIMIT 1", (session_id,)
            ).fetchone()
            is None
        ):
            self._ensure_session(session_id, ts)
            return False

        def work(conn: sqlite3.Connection) -> bool:
            conn.execute(
                "INSERT INTO edits (session_id, path, ts) VALUES (?, ?, ?)", (session_id, path, ts)
            )
            self._register_session(conn, session_id, ts)
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

        def work(conn: sqlite3.Connection) -> None:
            row_id = conn.execute(
                "INSERT INTO rule_loads (ts, session_id, rule_path, trigger_path)"
                " VALUES (?, ?, ?, ?)",
                (ts, session_id, rule_path, trigger_path),
            ).lastrowid
            if row_id is not None and row_id > self.max_events:
                conn.execute("DELETE FROM rule_loads WHERE id <= ?", (row_id - self.max_events,))
            self._register_session(conn, session_id, ts)

        self._transaction(work)

    def maintain(self, now: float | None = None) -> None:
        """Housekeeping (also run every ``MAINTENANCE_EVERY`` failures)."""
        self._transaction(lambda conn: self._maintain(conn, time.time() if now is None else now))

    def _maintain(self, conn: sqlite3.Connection, now: float) -> None:
        cutoff = now - EPISODE_MAX_AGE
        conn.execute(
            "DELETE FROM episode_signatures WHERE episode_id IN"
            " (SELECT id FROM episodes WHERE started < ?)",
            (cutoff,),
        )
        conn.execute("DELETE FROM episodes WHERE started < ?", (cutoff,))
        conn.execute("DELETE FROM edits WHERE ts < ?", (cutoff,))
        conn.execute("DELETE FROM fixes WHERE ts < ?", (cutoff,))  # read at the session's end
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

    # -- reads (the queries live in store_reads) --------------------------------------------

    def session_fixes(self, session_id: str) -> list[store_reads.SessionFix]:
        """The failure groups fix episodes closed in ``session_id``, oldest first."""
        return store_reads.session_fixes(self._connection(), session_id)

    def failure_groups(self) -> list[FailureGroup]:
        """One group per signature, most widespread first (sessions, occurrences, recency)."""
        return store_reads.failure_groups(self._connection())

    def failures(
        self,
        *,
        since: float | None = None,
        signatures: Sequence[str] | None = None,
        limit: int | None = None,
    ) -> list[Failure]:
        """Raw failures still kept (the newest ``max_events``), oldest first."""
        return store_reads.failures(
            self._connection(), since=since, signatures=signatures, limit=limit
        )

    def rule_loads(self) -> list[RuleLoad]:
        """Every recorded rule load, oldest first."""
        return store_reads.rule_loads(self._connection())

    def sessions_since(self, ts: float) -> int:
        """How many sessions the store first saw at or after ``ts``."""
        return store_reads.sessions_since(self._connection(), ts)
