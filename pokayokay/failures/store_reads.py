"""What the failure store answers: failure groups (one per signature, the evidence graduation
reads), raw failures, rule loads and session counts. Plain queries over an open connection;
:class:`~pokayokay.failures.store.FailureStore` exposes them as methods."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from pokayokay.failures.model import Failure, FailureGroup


class RuleLoad(NamedTuple):
    """Claude Code loaded a rule file because a matching file was touched."""

    ts: float
    session_id: str
    rule_path: str
    trigger_path: str | None


class SessionFix(NamedTuple):
    """A failure group a fix episode closed: when, the failing command that then succeeded,
    the group's category and excerpt, and the files edited in between."""

    ts: float
    command: str
    category: str
    excerpt: str
    paths: tuple[str, ...]


def session_fixes(conn: sqlite3.Connection, session_id: str) -> list[SessionFix]:
    out = []
    rows = conn.execute(
        "SELECT f.ts, f.command, s.category, s.excerpt, f.paths FROM fixes f"
        " JOIN signatures s ON s.signature = f.signature"
        " WHERE f.session_id = ? ORDER BY f.ts, f.id",
        (session_id,),
    )
    for ts, command, category, excerpt, paths in rows:
        try:
            found = json.loads(paths)
        except ValueError:
            found = []
        files = tuple(p for p in found if isinstance(p, str)) if isinstance(found, list) else ()
        out.append(SessionFix(float(ts), str(command), str(category), str(excerpt), files))
    return out


def failure_groups(conn: sqlite3.Connection) -> list[FailureGroup]:
    """One group per signature, most widespread first (sessions, occurrences, recency).

    ``paths`` and ``fix_paths`` are sorted; ``fix_commands`` are most frequent first.
    """
    from pokayokay.failures.model import FailureGroup

    paths: dict[tuple[str, str], list[str]] = {}
    for signature, kind, path in conn.execute(
        "SELECT signature, kind, path FROM group_paths ORDER BY path"
    ):
        paths.setdefault((signature, kind), []).append(path)
    commands: dict[str, list[str]] = {}
    for signature, command in conn.execute(
        "SELECT signature, command FROM group_fix_commands ORDER BY count DESC, command"
    ):
        commands.setdefault(signature, []).append(command)
    groups = []
    for row in conn.execute(
        "SELECT signature, category, sessions, occurrences, first_seen, last_seen,"
        " sample_command, excerpt FROM signatures"
        " ORDER BY sessions DESC, occurrences DESC, last_seen DESC, signature"
    ):
        signature = row[0]
        groups.append(
            FailureGroup(
                signature=signature,
                category=row[1],
                sessions=row[2],
                occurrences=row[3],
                first_seen=row[4],
                last_seen=row[5],
                paths=tuple(paths.get((signature, "fail"), ())),
                fix_paths=tuple(paths.get((signature, "fix"), ())),
                fix_commands=tuple(commands.get(signature, ())),
                sample_command=row[6],
                excerpt=row[7],
            )
        )
    return groups

def failures(
    conn: sqlite3.Connection,
    *,
    since: float | None = None,
    signatures: Sequence[str] | None = None,
    limit: int | None = None,
) -> list[Failure]:
    """Raw failures still kept (the newest ``max_events``), oldest first.

    ``limit``: only the newest ``limit`` of them.
    """
    from pokayokay.failures.model import Failure

    clauses: list[str] = []
    params: list[object] = []
    if since is not None:
        clauses.append("ts >= ?")
        params.append(since)
    if signatures is not None:
        if not signatures:
            return []
        clauses.append(f"signature IN ({', '.join('?' * len(signatures))})")
        params.extend(signatures)
    sql = (
        "SELECT ts, session_id, tool, command, signature, category, paths, excerpt, exit_code"
        " FROM failures"
    )
    if clauses:
        sql += " WHERE " + " AND ".join(clauses)
    if limit is None:
        sql += " ORDER BY id"
    else:
        sql += " ORDER BY id DESC LIMIT ?"
        params.append(limit)
    rows = conn.execute(sql, params).fetchall()
    if limit is not None:
        rows.reverse()
    out = []
    for row in rows:
        try:
            paths = tuple(str(p) for p in json.loads(row[6]))
        except ValueError:
            paths = ()
        out.append(
            Failure(
                ts=row[0],
                session_id=row[1],
                tool=row[2],
                command=row[3],
                signature=row[4],
                category=row[5],
                paths=paths,
                excerpt=row[7],
                exit_code=row[8],
            )
        )
    return out

def rule_loads(conn: sqlite3.Connection) -> list[RuleLoad]:
    """Every recorded rule load, oldest first."""
    rows = conn.execute(
        "SELECT ts, session_id, rule_path, trigger_path FROM rule_loads ORDER BY ts, id"
    )
    return [RuleLoad(*row) for row in rows]

def sessions_since(conn: sqlite3.Connection, ts: float) -> int:
    """How many sessions the store first saw at or after ``ts``."""
    row = conn.execute("SELECT count(*) FROM sessions WHERE first_seen >= ?", (ts,)).fetchone()
    return int(row[0])
