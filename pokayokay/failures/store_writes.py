"""The failure store's row writes (one failure, its group counters, its session and its fix
episode), run inside the store's transaction; the store owns connections, retries and trimming."""

from __future__ import annotations

import sqlite3

from pokayokay.failures.signature import command_key as signature_command_key
from pokayokay.infra.lean_json import dumps

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pokayokay.failures.model import Failure


def command_key(command: str) -> str:
    """The stored form of a command: secrets redacted, then :func:`command_key`."""
    from pokayokay.safety.redact import redact

    return signature_command_key(redact(command))


def _redacted(f: Failure) -> Failure:
    """``f`` with every text field redacted (capture already did; this is the store's own
    guarantee, whoever calls it)."""
    from pokayokay.safety.redact import redact

    return f._replace(
        command=redact(f.command) if f.command else f.command,
        signature=redact(f.signature),
        excerpt=redact(f.excerpt),
        paths=tuple(dict.fromkeys(redact(p) for p in f.paths)),
    )


def insert_failure(conn: sqlite3.Connection, f: Failure, tool_use_id: str | None) -> int | None:
    """Insert one failure and bump its group; its row id, or None when this session already
    recorded this tool call for this mistake."""
    f = _redacted(f)
    # f.command is redacted now, and redaction is idempotent: only its key is left to make
    # (command_key would redact it a second time).
    command = signature_command_key(f.command) if f.command else None
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
            dumps(list(f.paths), ensure_ascii=False),
            f.excerpt,
            f.exit_code,
            tool_use_id,
        ),
    )
    if cursor.rowcount != 1:
        return None  # the same tool call, already recorded
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
        bump_path(conn, f.signature, "fail", path)
    register_session(conn, f.session_id, f.ts)
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
    return row_id


def bump_path(conn: sqlite3.Connection, signature: str, kind: str, path: str) -> None:
    conn.execute(
        "INSERT INTO group_paths (signature, kind, path, count) VALUES (?, ?, ?, 1)"
        " ON CONFLICT (signature, kind, path) DO UPDATE SET count = count + 1",
        (signature, kind, path),
    )


def trim_fix_edits(conn: sqlite3.Connection, signature: str, keep: int) -> None:
    """Keep a group's ``keep`` most frequent (then newest) fixing edits."""
    conn.execute(
        "DELETE FROM group_fix_edits WHERE signature = ? AND (path, excerpt) NOT IN"
        " (SELECT path, excerpt FROM group_fix_edits WHERE signature = ?"
        " ORDER BY count DESC, last_seen DESC LIMIT ?)",
        (signature, signature, keep),
    )


def register_session(conn: sqlite3.Connection, session_id: str, ts: float) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO sessions (session_id, first_seen) VALUES (?, ?)",
        (session_id, ts),
    )


def last_failure(
    conn: sqlite3.Connection, session_id: str, command: str, signature: str, since: float
) -> float | None:
    """When ``command`` last failed with ``signature`` in the session since ``since``, or None."""
    latest: float | None = None
    rows = conn.execute(
        "SELECT ts, command FROM failures WHERE signature = ? AND ts >= ? AND session_id = ?",
        (signature, since, session_id),
    )
    for ts, stored in rows:
        if stored and command_key(stored) == command and (latest is None or ts > latest):
            latest = float(ts)
    return latest


def close_episode(
    conn: sqlite3.Connection,
    episode: tuple[int, str, float],
    session_id: str,
    ts: float,
    corrected: str,
    kind: str | None,
    limits: tuple[int, int],
) -> bool:
    """Close one fix episode (id, failing command, started) that ``corrected`` ended at ``ts``.

    ``kind``: ``None`` when the failing command itself passed, a correction kind
    (:func:`pokayokay.failures.corrections.correction_kind`), or ``"formatter"`` (the check's
    formatter wrote the files: closed, nothing learned but the formatter's command, kept as
    the group's fix command so that no rule says no fix was seen). A substitute command
    (:func:`pokayokay.failures.corrections.substitutes`) after an edit is no correction: the
    episode stays open and False is returned. Each mistake's fix is credited to the edits
    after the command's last failure with that mistake, reverts cancelled
    (:func:`pokayokay.failures.fix_edits.credited_edits`); only a fix by edits (the command
    itself passing after them) is a bug fix (``fixes``, read for Recent Bug Fixes); an
    environment correction credits no edit.
    """
    from pokayokay.failures.corrections import ENVIRONMENT, substitutes
    from pokayokay.failures.fix_edits import credited_edits

    episode_id, failing, started = episode
    max_paths, max_edits = limits
    rows = conn.execute(
        "SELECT ts, path, excerpt FROM edits WHERE session_id = ? AND ts >= ?"
        " AND ts <= ? ORDER BY ts, id",
        (session_id, started, ts),
    ).fetchall()
    if kind == ENVIRONMENT and rows and substitutes(failing, corrected):
        return False
    signatures = [
        row[0]
        for row in conn.execute(
            "SELECT signature FROM episode_signatures WHERE episode_id = ?", (episode_id,)
        )
    ]
    conn.execute("DELETE FROM episode_signatures WHERE episode_id = ?", (episode_id,))
    conn.execute("DELETE FROM episodes WHERE id = ?", (episode_id,))
    if kind == "formatter":
        # nothing to learn (decision 0085), but what ended it is known: the formatter's run
        for signature in signatures:
            conn.execute(
                "INSERT INTO group_fix_commands (signature, command, count)"
                " VALUES (?, ?, 1) ON CONFLICT (signature, command)"
                " DO UPDATE SET count = count + 1",
                (signature, corrected),
            )
        return True
    edits = [(float(r[0]), str(r[1]), str(r[2] or "")) for r in rows]
    for signature in signatures:
        changes: list[tuple[str, str]] = []
        if kind != ENVIRONMENT:  # running the command differently was the fix, not the edits
            since = last_failure(conn, session_id, failing, signature, started)
            changes = credited_edits(edits, since)
        paths = sorted({path for path, _ in changes})
        if kind is None and paths:
            conn.execute(
                "INSERT INTO fixes (session_id, ts, signature, command, paths)"
                " VALUES (?, ?, ?, ?, ?)",
                (session_id, ts, signature, corrected, dumps(paths[:max_paths])),
            )
        for path in paths:
            bump_path(conn, signature, "fix", path)
        for path, excerpt in changes:
            conn.execute(
                "INSERT INTO group_fix_edits (signature, path, excerpt, count,"
                " last_seen) VALUES (?, ?, ?, 1, ?) ON CONFLICT (signature, path,"
                " excerpt) DO UPDATE SET count = count + 1, last_seen = ?",
                (signature, path, excerpt, ts, ts),
            )
        conn.execute(
            "INSERT INTO group_fix_commands (signature, command, count)"
            " VALUES (?, ?, 1) ON CONFLICT (signature, command)"
            " DO UPDATE SET count = count + 1",
            (signature, corrected),
        )
        if kind is not None:
            conn.execute(
                "INSERT INTO group_corrections (signature, failing, corrected, kind,"
                " count, last_seen) VALUES (?, ?, ?, ?, 1, ?)"
                " ON CONFLICT (signature, failing, corrected)"
                " DO UPDATE SET count = count + 1, last_seen = ?",
                (signature, failing, corrected, kind, ts, ts),
            )
        trim_fix_edits(conn, signature, max_edits)
    return True
