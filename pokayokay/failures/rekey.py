"""Re-keying an existing failure store to the group keys of :mod:`pokayokay.failures.mistakes`.

Stores written before group keys existed keyed each failure by its normalised text, so one
mistake in three files was three signatures. The schema migration that introduces the keys
calls :func:`rekey`: each signature's stored excerpt (the lines that named the failure) and
sample command are read again; a signature whose excerpt names a mistake moves to that key, and
signatures that land on the same key are merged — occurrences summed, first/last seen widened,
sessions recounted from the per-session rows (never below the largest count merged), paths,
fix commands and open fix episodes carried over. A signature whose excerpt names no mistake
(e.g. an old ruff summary line) keeps its key: the code it lacked cannot be recovered.
"""

from __future__ import annotations

import sqlite3

from pokayokay.failures.mistakes import find_mistakes


def new_key(signature: str, excerpt: str, command: str | None) -> str:
    found = find_mistakes(excerpt.replace(" | ", "\n"), command)
    return found[0].key if found else signature


def rekey(conn: sqlite3.Connection) -> int:
    """Move every signature to its group key, merging groups; returns how many moved."""
    rows = conn.execute("SELECT signature, excerpt, sample_command FROM signatures").fetchall()
    moves = {
        old: key for old, excerpt, command in rows if (key := new_key(old, excerpt, command)) != old
    }
    for old, new in moves.items():
        _move(conn, old, new)
    return len(moves)


def _move(conn: sqlite3.Connection, old: str, new: str) -> None:
    conn.execute("UPDATE failures SET signature = ? WHERE signature = ?", (new, old))
    existing = conn.execute(
        "SELECT occurrences, sessions, first_seen, last_seen FROM signatures WHERE signature = ?",
        (new,),
    ).fetchone()
    if existing is None:
        conn.execute("UPDATE signatures SET signature = ? WHERE signature = ?", (new, old))
    else:
        conn.execute(
            "UPDATE signatures SET"
            " occurrences = occurrences + (SELECT occurrences FROM signatures WHERE signature = ?),"
            " sessions = max(sessions, (SELECT sessions FROM signatures WHERE signature = ?)),"
            " first_seen = min(first_seen,"
            " (SELECT first_seen FROM signatures WHERE signature = ?)),"
            " last_seen = max(last_seen, (SELECT last_seen FROM signatures WHERE signature = ?))"
            " WHERE signature = ?",
            (old, old, old, old, new),
        )
        conn.execute("DELETE FROM signatures WHERE signature = ?", (old,))
    conn.execute(
        "INSERT INTO group_sessions (signature, session_id, last_seen)"
        " SELECT ?, session_id, last_seen FROM group_sessions WHERE signature = ? AND true"
        " ON CONFLICT (signature, session_id) DO UPDATE SET"
        " last_seen = max(last_seen, excluded.last_seen)",
        (new, old),
    )
    conn.execute("DELETE FROM group_sessions WHERE signature = ?", (old,))
    conn.execute(
        "UPDATE signatures SET sessions = max(sessions,"
        " (SELECT count(*) FROM group_sessions WHERE signature = ?)) WHERE signature = ?",
        (new, new),
    )
    for table, columns in (
        ("group_paths", "kind, path"),
        ("group_fix_commands", "command"),
    ):
        conn.execute(
            f"INSERT INTO {table} (signature, {columns}, count)"
            f" SELECT ?, {columns}, count FROM {table} WHERE signature = ? AND true"
            f" ON CONFLICT (signature, {columns}) DO UPDATE SET count = count + excluded.count",
            (new, old),
        )
        conn.execute(f"DELETE FROM {table} WHERE signature = ?", (old,))
    conn.execute(
        "INSERT OR IGNORE INTO episode_signatures (episode_id, signature)"
        " SELECT episode_id, ? FROM episode_signatures WHERE signature = ?",
        (new, old),
    )
    conn.execute("DELETE FROM episode_signatures WHERE signature = ?", (old,))
