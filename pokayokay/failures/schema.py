"""The failure store's SQLite schema, one tuple of statements per version (``user_version``).

A new version appends a tuple; :meth:`FailureStore._migrate` runs the missing ones in order, in
one transaction, so an old store is upgraded in place and a newer one is refused.
"""

from __future__ import annotations

SCHEMA_VERSION = 6

# A step that is not SQL: the store moves old signatures to group keys (failures.rekey).
REKEY = "-- pokayokay: rekey signatures"

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    # 1: the first schema
    (
        """CREATE TABLE failures (
            id INTEGER PRIMARY KEY,
            ts REAL NOT NULL,
            session_id TEXT NOT NULL,
            tool TEXT NOT NULL,
            command TEXT,
            signature TEXT NOT NULL,
            category TEXT NOT NULL,
            paths TEXT NOT NULL DEFAULT '[]',
            excerpt TEXT NOT NULL DEFAULT '',
            exit_code INTEGER,
            tool_use_id TEXT
        )""",
        "CREATE UNIQUE INDEX failures_tool_use ON failures(tool_use_id) "
        "WHERE tool_use_id IS NOT NULL",
        "CREATE INDEX failures_signature ON failures(signature, ts)",
        "CREATE INDEX failures_ts ON failures(ts)",
        """CREATE TABLE signatures (
            signature TEXT PRIMARY KEY,
            category TEXT NOT NULL,
            occurrences INTEGER NOT NULL,
            sessions INTEGER NOT NULL,
            first_seen REAL NOT NULL,
            last_seen REAL NOT NULL,
            sample_command TEXT,
            excerpt TEXT NOT NULL
        )""",
        """CREATE TABLE group_sessions (
            signature TEXT NOT NULL,
            session_id TEXT NOT NULL,
            last_seen REAL NOT NULL,
            PRIMARY KEY (signature, session_id)
        ) WITHOUT ROWID""",
        "CREATE INDEX group_sessions_last_seen ON group_sessions(last_seen)",
        """CREATE TABLE group_paths (
            signature TEXT NOT NULL,
            kind TEXT NOT NULL,
            path TEXT NOT NULL,
            count INTEGER NOT NULL,
            PRIMARY KEY (signature, kind, path)
        ) WITHOUT ROWID""",
        """CREATE TABLE group_fix_commands (
            signature TEXT NOT NULL,
            command TEXT NOT NULL,
            count INTEGER NOT NULL,
            PRIMARY KEY (signature, command)
        ) WITHOUT ROWID""",
        """CREATE TABLE episodes (
            id INTEGER PRIMARY KEY,
            session_id TEXT NOT NULL,
            command TEXT NOT NULL,
            started REAL NOT NULL
        )""",
        "CREATE INDEX episodes_open ON episodes(session_id, command)",
        """CREATE TABLE episode_signatures (
            episode_id INTEGER NOT NULL,
            signature TEXT NOT NULL,
            PRIMARY KEY (episode_id, signature)
        ) WITHOUT ROWID""",
        """CREATE TABLE edits (
            id INTEGER PRIMARY KEY,
            session_id TEXT NOT NULL,
            path TEXT NOT NULL,
            ts REAL NOT NULL
        )""",
        "CREATE INDEX edits_session ON edits(session_id, ts)",
        """CREATE TABLE rule_loads (
            id INTEGER PRIMARY KEY,
            ts REAL NOT NULL,
            session_id TEXT NOT NULL,
            rule_path TEXT NOT NULL,
            trigger_path TEXT
        )""",
        "CREATE INDEX rule_loads_rule ON rule_loads(rule_path, ts)",
        """CREATE TABLE sessions (
            session_id TEXT PRIMARY KEY,
            first_seen REAL NOT NULL
        ) WITHOUT ROWID""",
        "CREATE INDEX sessions_first_seen ON sessions(first_seen)",
    ),
    # 2: a tool call is unique within its session only: a later session reusing an id (a replay,
    # a resumed or mocked session) is a new failure. Rows unique by id are unique by the pair,
    # so the new index always builds over an existing store.
    (
        "DROP INDEX IF EXISTS failures_tool_use",
        "CREATE UNIQUE INDEX failures_session_tool_use ON failures(session_id, tool_use_id) "
        "WHERE tool_use_id IS NOT NULL",
    ),
    # 3: group keys (failures.mistakes) and the fix that worked. One tool call may name several
    # mistakes (one row each, so an id is unique per session and signature); edits keep a short
    # excerpt of the change; corrections (a failing command and the variant that passed) and
    # fixing edits are aggregated per group; old signatures move to their keys.
    (
        "DROP INDEX IF EXISTS failures_session_tool_use",
        "CREATE UNIQUE INDEX failures_tool_use ON failures(session_id, tool_use_id, signature) "
        "WHERE tool_use_id IS NOT NULL",
        "ALTER TABLE edits ADD COLUMN excerpt TEXT NOT NULL DEFAULT ''",
        """CREATE TABLE group_corrections (
            signature TEXT NOT NULL,
            failing TEXT NOT NULL,
            corrected TEXT NOT NULL,
            kind TEXT NOT NULL,
            count INTEGER NOT NULL,
            last_seen REAL NOT NULL,
            PRIMARY KEY (signature, failing, corrected)
        ) WITHOUT ROWID""",
        """CREATE TABLE group_fix_edits (
            signature TEXT NOT NULL,
            path TEXT NOT NULL,
            excerpt TEXT NOT NULL,
            count INTEGER NOT NULL,
            last_seen REAL NOT NULL,
            PRIMARY KEY (signature, path, excerpt)
        ) WITHOUT ROWID""",
        REKEY,
    ),
    # 4: fixes, one row per failure group a fix episode closed (Recent Bug Fixes at SessionEnd)
    (
        """CREATE TABLE fixes (
            id INTEGER PRIMARY KEY,
            session_id TEXT NOT NULL,
            ts REAL NOT NULL,
            signature TEXT NOT NULL,
            command TEXT NOT NULL,
            paths TEXT NOT NULL DEFAULT '[]'
        )""",
        "CREATE INDEX fixes_session ON fixes(session_id, ts)",
    ),
    # 5: how far each spool is ingested (pokayokay.failures.ingest_cursor), written in the same
    # transaction as the rows a spooled record produced: a replay after a crash skips it
    (
        """CREATE TABLE spool_cursors (
            spool TEXT PRIMARY KEY,
            segment TEXT NOT NULL,
            offset INTEGER NOT NULL,
            ts REAL NOT NULL
        ) WITHOUT ROWID""",
    ),
    # 6: one-off upgrades of an old store, run outside the hooks (pokayokay.failures.upgrade):
    # redaction of what was stored before it existed, and the switch to incremental
    # auto-vacuum. A new store (empty, already incremental) needs neither.
    (
        """CREATE TABLE store_upgrades (
            name TEXT PRIMARY KEY,
            progress TEXT NOT NULL DEFAULT '',
            updated REAL NOT NULL DEFAULT 0
        ) WITHOUT ROWID""",
        "INSERT INTO store_upgrades (name) SELECT 'redact' WHERE EXISTS (SELECT 1 FROM signatures)"
        " OR EXISTS (SELECT 1 FROM failures) OR EXISTS (SELECT 1 FROM edits)"
        " OR EXISTS (SELECT 1 FROM rule_loads) OR EXISTS (SELECT 1 FROM fixes)",
        "INSERT INTO store_upgrades (name) SELECT 'incremental-vacuum'"
        " WHERE (SELECT auto_vacuum FROM pragma_auto_vacuum) != 2",
    ),
)
assert len(MIGRATIONS) == SCHEMA_VERSION
