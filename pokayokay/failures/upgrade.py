"""One-off upgrades of an existing failure store, run outside every hook's hot path.

Schema 6 lists them in ``store_upgrades`` when it meets an old store (a new one needs neither):

* ``redact`` — stores written before redaction existed keep secrets captured back then. The
  current :func:`pokayokay.safety.redact.redact` runs over every stored text column (commands,
  signatures, excerpts, paths, fix edits, corrections, rule loads), in bounded batches of
  :data:`BATCH` rows, one short transaction each, its progress saved with the batch (an
  interrupted run resumes where it stopped). A row that changes is rewritten; a grouped row whose
  redacted key meets another is merged into it (counts summed, times widened). Deleted content
  is zeroed (``secure_delete``), and the file is then rebuilt (``VACUUM``) and the WAL emptied,
  so no copy of a secret survives in the database, its free pages or its WAL;
* ``incremental-vacuum`` — stores created before incremental auto-vacuum never give pages back
  until one ``VACUUM`` switches them.

Measured on the 80,000-row store at its cap: redaction reads every row (5 to 7 s in all) and
``VACUUM`` rewrites the whole file (0.3 s on a warm page cache, seconds on a cold one or a slow
disk); either is far past a hook's budget. So neither ever runs in a hook: SessionEnd starts
``pokayokay upgrade-store`` detached when one is due, and the commands that read the store
(``failures``, ``graduate``, ``rules``, ``status``, ``doctor``, ``report``) give it a bounded
time first (:mod:`pokayokay.cli.store_upgrade`). One process upgrades a store at a time (a lock
next to it); the others go on without waiting.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pokayokay.infra.flock import try_lock

if TYPE_CHECKING:
    from pathlib import Path

    from pokayokay.failures.store import FailureStore

REDACT = "redact"
INCREMENTAL_VACUUM = "incremental-vacuum"
# Rows read (and rewritten at most) per transaction: about 50 ms of the write lock each.
BATCH = 500
LOCK_SUFFIX = ".upgrade.lock"

# Tables with a row id: (table, text columns, JSON-list columns).
_ROW_TABLES: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("failures", ("command", "signature", "excerpt"), ("paths",)),
    ("episodes", ("command",), ()),
    ("edits", ("path", "excerpt"), ()),
    ("rule_loads", ("rule_path", "trigger_path"), ()),
    ("fixes", ("signature", "command"), ("paths",)),
)
# Tables keyed by text: (table, key columns, text columns, how a row merges into another).
_KEYED_TABLES: tuple[tuple[str, tuple[str, ...], tuple[str, ...], str], ...] = (
    (
        "signatures",
        ("signature",),
        ("signature", "sample_command", "excerpt"),
        "occurrences = occurrences + excluded.occurrences,"
        " sessions = max(sessions, excluded.sessions),"
        " first_seen = min(first_seen, excluded.first_seen),"
        " last_seen = max(last_seen, excluded.last_seen)",
    ),
    (
        "group_sessions",
        ("signature", "session_id"),
        ("signature",),
        "last_seen = max(last_seen, excluded.last_seen)",
    ),
    (
        "group_paths",
        ("signature", "kind", "path"),
        ("signature", "path"),
        "count = count + excluded.count",
    ),
    (
        "group_fix_commands",
        ("signature", "command"),
        ("signature", "command"),
        "count = count + excluded.count",
    ),
    ("episode_signatures", ("episode_id", "signature"), ("signature",), ""),
    (
        "group_corrections",
        ("signature", "failing", "corrected"),
        ("signature", "failing", "corrected"),
        "count = count + excluded.count, last_seen = max(last_seen, excluded.last_seen)",
    ),
    (
        "group_fix_edits",
        ("signature", "path", "excerpt"),
        ("signature", "path", "excerpt"),
        "count = count + excluded.count, last_seen = max(last_seen, excluded.last_seen)",
    ),
)
_STEPS = len(_ROW_TABLES) + len(_KEYED_TABLES)


@dataclass
class UpgradeReport:
    """What a run did: the upgrades finished, the rows rewritten, whether the file was rebuilt,
    and what is still due (a budget ran out, or another process holds the lock)."""

    finished: list[str] = field(default_factory=list)
    rewritten: int = 0
    vacuumed: bool = False
    left: list[str] = field(default_factory=list)
    busy: bool = False


def due(store: FailureStore) -> list[str]:
    """The upgrades still due (one read of a tiny table)."""
    query = "SELECT name FROM store_upgrades ORDER BY name"
    return store.read(lambda conn: [row[0] for row in conn.execute(query)])


def run(store: FailureStore, *, budget: float | None = None) -> UpgradeReport:
    """Run the upgrades due, within ``budget`` seconds of redaction batches (None: all);
    ``VACUUM`` runs once redaction is complete. Never call this from a hook."""
    report = UpgradeReport()
    names = due(store)
    if not names:
        return report
    lock = try_lock(f"{store.path}{LOCK_SUFFIX}")
    if lock is None:
        report.busy, report.left = True, names
        return report
    try:
        deadline = None if budget is None else time.monotonic() + budget
        if REDACT in names:
            if not _redact_all(store, report, deadline):
                report.left = due(store)
                return report
            report.finished.append(REDACT)
        _vacuum(store, report, switch=INCREMENTAL_VACUUM in names)
        report.left = due(store)
        return report
    finally:
        os.close(lock)


def _progress(conn: sqlite3.Connection) -> tuple[int, list[object] | None]:
    row = conn.execute("SELECT progress FROM store_upgrades WHERE name = ?", (REDACT,)).fetchone()
    if row is None or not row[0]:
        return 0, None
    step, after = json.loads(row[0])
    return int(step), after


def _redact_all(store: FailureStore, report: UpgradeReport, deadline: float | None) -> bool:
    """Every batch of every table; False when the budget ran out first (progress kept)."""
    store.connection().execute("PRAGMA secure_delete=ON")  # deleted content is zeroed
    while True:
        if deadline is not None and time.monotonic() >= deadline:
            return False

        def batch(conn: sqlite3.Connection) -> bool:
            step, after = _progress(conn)
            if step >= _STEPS:
                _recount_sessions(conn)
                conn.execute("DELETE FROM store_upgrades WHERE name = ?", (REDACT,))
                return True
            if step < len(_ROW_TABLES):
                changed, last = _row_batch(conn, *_ROW_TABLES[step], after)
            else:
                changed, last = _keyed_batch(conn, *_KEYED_TABLES[step - len(_ROW_TABLES)], after)
            report.rewritten += changed
            progress = [step + 1, None] if last is None else [step, last]
            conn.execute(
                "UPDATE store_upgrades SET progress = ?, updated = ? WHERE name = ?",
                (json.dumps(progress), time.time(), REDACT),
            )
            return False

        if store.upgrade_transaction(batch):
            return True


def _clean(value: object) -> object:
    from pokayokay.safety.redact import redact

    return redact(value) if isinstance(value, str) else value


def _clean_list(value: object) -> object:
    """A JSON list of texts (``paths``), each redacted; other text redacted whole."""
    if not isinstance(value, str):
        return value
    try:
        items = json.loads(value)
    except ValueError:
        return _clean(value)
    if not isinstance(items, list):
        return _clean(value)
    return json.dumps([_clean(item) for item in items], ensure_ascii=False)


def _row_batch(
    conn: sqlite3.Connection,
    table: str,
    texts: tuple[str, ...],
    lists: tuple[str, ...],
    after: list[object] | None,
) -> tuple[int, list[object] | None]:
    columns = (*texts, *lists)
    start = int(after[0]) if after else 0  # type: ignore[call-overload]
    rows = conn.execute(
        f"SELECT id, {', '.join(columns)} FROM {table} WHERE id > ? ORDER BY id LIMIT ?",
        (start, BATCH),
    ).fetchall()
    cleaners: list[Callable[[object], object]] = [_clean] * len(texts)
    cleaners += [_clean_list] * len(lists)
    changed = 0
    for row in rows:
        new = [clean(value) for clean, value in zip(cleaners, row[1:], strict=True)]
        if new == list(row[1:]):
            continue
        changed += 1
        sets = ", ".join(f"{column} = ?" for column in columns)
        done = conn.execute(
            f"UPDATE OR IGNORE {table} SET {sets} WHERE id = ?", (*new, row[0])
        ).rowcount
        if not done:  # the same tool call's row once redacted: one is enough
            conn.execute(f"DELETE FROM {table} WHERE id = ?", (row[0],))
    return changed, ([rows[-1][0]] if len(rows) == BATCH else None)


def _keyed_batch(
    conn: sqlite3.Connection,
    table: str,
    keys: tuple[str, ...],
    texts: tuple[str, ...],
    merge: str,
    after: list[object] | None,
) -> tuple[int, list[object] | None]:
    columns = [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]
    key_list = ", ".join(keys)
    where = ""
    params: tuple[object, ...] = ()
    if after:
        where = f"WHERE ({key_list}) > ({', '.join('?' * len(keys))})"
        params = tuple(after)
    rows = conn.execute(
        f"SELECT {', '.join(columns)} FROM {table} {where} ORDER BY {key_list} LIMIT ?",
        (*params, BATCH),
    ).fetchall()
    changed = 0
    for row in rows:
        values = dict(zip(columns, row, strict=True))
        new = {c: (_clean(v) if c in texts else v) for c, v in values.items()}
        if new == values:
            continue
        changed += 1
        conn.execute(
            f"DELETE FROM {table} WHERE {' AND '.join(f'{k} = ?' for k in keys)}",
            tuple(values[k] for k in keys),
        )
        action = f"DO UPDATE SET {merge}" if merge else "DO NOTHING"
        conn.execute(
            f"INSERT INTO {table} ({', '.join(columns)}) VALUES"
            f" ({', '.join('?' * len(columns))}) ON CONFLICT ({key_list}) {action}",
            tuple(new[c] for c in columns),
        )
    last = [rows[-1][columns.index(k)] for k in keys] if len(rows) == BATCH else None
    return changed, last


def drop_derived_caches(folder: Path) -> None:
    """After rows were redacted: the recall caches built from the store (fix texts) are
    removed, to be rebuilt from the redacted rows; nothing else of the store is cached."""
    from pokayokay.names import RECALL_FIXES_FILE, RECALL_INDEX_FILE

    for name in (RECALL_FIXES_FILE, RECALL_INDEX_FILE):
        try:
            os.remove(folder / name)
        except OSError:
            continue  # absent: nothing to drop


def _recount_sessions(conn: sqlite3.Connection) -> None:
    """Merged groups count the sessions of both (never fewer than before)."""
    conn.execute(
        "UPDATE signatures SET sessions = max(sessions, (SELECT count(*) FROM group_sessions g"
        " WHERE g.signature = signatures.signature))"
    )


def _vacuum(store: FailureStore, report: UpgradeReport, *, switch: bool) -> None:
    """Rebuild the file (switching it to incremental auto-vacuum) when a switch is due or
    redaction rewrote rows, then empty the WAL: the pages that held secrets are gone."""
    conn = store.connection()
    if switch or report.rewritten:
        if switch:
            conn.execute("PRAGMA auto_vacuum=INCREMENTAL")
        conn.execute("VACUUM")
        report.vacuumed = True
    conn.execute("DELETE FROM store_upgrades WHERE name = ?", (INCREMENTAL_VACUUM,))
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    if switch:
        report.finished.append(INCREMENTAL_VACUUM)
