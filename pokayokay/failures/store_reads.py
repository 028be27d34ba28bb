"""What the failure store answers: failure groups (one per signature, the evidence graduation
reads), raw failures, rule loads and session counts. Plain queries over an open connection;
:class:`~pokayokay.failures.store.FailureStore` exposes them as methods."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, NamedTuple

    from pokayokay.failures.model import Failure, FailureGroup
else:  # typing's class syntax without importing typing (decision 0159)
    from pokayokay.infra.named_tuple import NamedTuple


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


def _loads(text: object) -> Any:
    """``json.loads(text)``, without json's import for a text (:mod:`pokayokay.infra.lean_json`)."""
    if isinstance(text, str):
        from pokayokay.infra.lean_json import loads

        return loads(text)
    import json

    return json.loads(text)  # type: ignore[arg-type]  # bytes, or None's TypeError, as before


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
            found = _loads(paths)
        except ValueError:
            found = []
        files = tuple(p for p in found if isinstance(p, str)) if isinstance(found, list) else ()
        out.append(SessionFix(float(ts), str(command), str(category), str(excerpt), files))
    return out



_FIXED = (
    " WHERE signature IN (SELECT signature FROM group_fix_commands"
    " UNION SELECT signature FROM group_corrections"
    " UNION SELECT signature FROM group_paths WHERE kind = 'fix')"
)


def failure_groups(conn: sqlite3.Connection, *, fixed_only: bool = False) -> list[FailureGroup]:
    """One group per signature, most widespread first (sessions, occurrences, recency).

    ``paths`` and ``fix_paths`` are sorted; ``fix_commands`` are most frequent first.
    ``fixed_only``: only the groups a fix episode closed (what recall reads), and no failure
    paths for them.
    """
    from pokayokay.failures.model import Correction, FailureGroup, FixEdit

    corrections: dict[str, list[Correction]] = {}
    for signature, failing, corrected, kind, count in conn.execute(
        "SELECT signature, failing, corrected, kind, count FROM group_corrections"
        " ORDER BY count DESC, last_seen DESC, corrected"
    ):
        corrections.setdefault(signature, []).append(Correction(failing, corrected, kind, count))
    fix_edits: dict[str, list[FixEdit]] = {}
    for signature, path, excerpt, count in conn.execute(
        "SELECT signature, path, excerpt, count FROM group_fix_edits"
        " ORDER BY count DESC, last_seen DESC, path"
    ):
        fix_edits.setdefault(signature, []).append(FixEdit(path, excerpt, count))
    paths: dict[tuple[str, str], list[str]] = {}
    kinds = " WHERE kind = 'fix'" if fixed_only else ""
    for signature, kind, path in conn.execute(
        f"SELECT signature, kind, path FROM group_paths{kinds} ORDER BY path"
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
        f" sample_command, excerpt FROM signatures{_FIXED if fixed_only else ''}"
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
                corrections=tuple(corrections.get(signature, ())),
                fix_edits=tuple(fix_edits.get(signature, ())),
            )
        )
    return groups

def single_session_owners(conn: sqlite3.Connection) -> dict[str, str]:
    """The one session of each group that failed in one session (by signature); a group whose
    session bookkeeping was pruned is left out."""
    return dict(
        conn.execute(
            "SELECT g.signature, g.session_id FROM signatures s JOIN group_sessions g"
            " ON g.signature = s.signature WHERE s.sessions = 1"
        ).fetchall()
    )


def failures(
    conn: sqlite3.Connection,
    *,
    since: float | None = None,
    signatures: Sequence[str] | None = None,
    limit: int | None = None,
    session_id: str | None = None,
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
    if session_id is not None:
        # Bounded by when the store first saw the session (the ts index is scanned from
        # there); a session the store never saw has no failures.
        seen = conn.execute(
            "SELECT first_seen FROM sessions WHERE session_id = ?", (session_id,)
        ).fetchone()
        if seen is None:
            return []
        clauses.append("session_id = ? AND ts >= ?")
        params.extend((session_id, seen[0]))
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
            paths = tuple(str(p) for p in _loads(row[6]))
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

class RuleEffect(NamedTuple):
    """One rule's loads and the recurrences of its failures, counted by the store."""

    loads: int
    sessions: int  # distinct sessions with a load
    first_load: float | None
    last_load: float | None
    recurrences: int  # failures of its signatures after the first load
    recurrence_sessions: int
    recurred_while_loaded: int  # ... in a session where the rule had already loaded
    last_recurrence: float | None


def signatures(conn: sqlite3.Connection) -> list[str]:
    """Every signature with a group (no other column read)."""
    return [row[0] for row in conn.execute("SELECT signature FROM signatures")]


def clean_streak(conn: sqlite3.Connection, rule_path: str, signatures: Sequence[str]) -> int:
    """:func:`pokayokay.rules.staleness.clean_streak` in SQL: the rule's loaded sessions whose
    first load came after the last failure of one of ``signatures`` (full signatures)."""
    if not signatures:
        return 0
    marks = ", ".join("?" * len(signatures))
    (last,) = conn.execute(
        f"SELECT max(ts) FROM failures WHERE signature IN ({marks})", tuple(signatures)
    ).fetchone()
    (streak,) = conn.execute(
        "SELECT count(*) FROM (SELECT min(ts) AS t FROM rule_loads WHERE rule_path = ?"
        " GROUP BY session_id) WHERE t > ?",
        (rule_path, last if last is not None else float("-inf")),
    ).fetchone()
    return int(streak)


def rule_effect(
    conn: sqlite3.Connection,
    rule_path: str,
    signatures: Sequence[str],
    *,
    exact: bool = True,
    min_sessions: int = 0,
) -> RuleEffect:
    """What :func:`pokayokay.rules.effectiveness.assess` computes, as indexed aggregate
    queries: no failure row is loaded into Python.

    ``exact=False`` (SessionEnd's retirement check) answers only what retiring needs: the loads
    in full, and whether the failure recurred at all (one indexed probe; ``recurrences`` and
    ``recurrence_sessions`` are then 1 for "at least one", the rest 0/None), and nothing about
    recurrences when the rule loaded in fewer than ``min_sessions`` sessions."""
    loads, sessions, first, last = conn.execute(
        "SELECT count(*), count(DISTINCT session_id), min(ts), max(ts) FROM rule_loads"
        " WHERE rule_path = ?",
        (rule_path,),
    ).fetchone()
    if first is None or not signatures or (not exact and sessions < min_sessions):
        return RuleEffect(loads, sessions, first, last, 0, 0, 0, None)
    marks = ", ".join("?" * len(signatures))
    if not exact:
        hit = conn.execute(
            f"SELECT 1 FROM failures WHERE signature IN ({marks}) AND ts > ? LIMIT 1",
            (*signatures, first),
        ).fetchone()
        return RuleEffect(loads, sessions, first, last, int(bool(hit)), int(bool(hit)), 0, None)
    recurrences, recurrence_sessions, last_recurrence = conn.execute(
        "SELECT count(*), count(DISTINCT session_id), max(ts) FROM failures"
        f" WHERE signature IN ({marks}) AND ts > ?",
        (*signatures, first),
    ).fetchone()
    while_loaded = 0
    if recurrences:
        (while_loaded,) = conn.execute(
            "WITH firsts AS (SELECT session_id, min(ts) AS t FROM rule_loads"
            " WHERE rule_path = ? GROUP BY session_id)"
            " SELECT count(*) FROM failures AS f JOIN firsts ON f.session_id = firsts.session_id"
            f" WHERE f.signature IN ({marks}) AND f.ts > ? AND f.ts >= firsts.t",
            (rule_path, *signatures, first),
        ).fetchone()
    return RuleEffect(
        loads,
        sessions,
        first,
        last,
        recurrences,
        recurrence_sessions,
        while_loaded,
        last_recurrence,
    )


def evidence_stamp(conn: sqlite3.Connection) -> str:
    """``max failure id : occurrences : fix commands : paths`` (all indexed or small)."""
    row = conn.execute(
        "SELECT (SELECT max(id) FROM failures), (SELECT total(occurrences) FROM signatures),"
        " (SELECT total(count) FROM group_fix_commands), (SELECT total(count) FROM group_paths)"
    ).fetchone()
    return ":".join(str(value) for value in row)


def sessions_since(conn: sqlite3.Connection, ts: float) -> int:
    """How many sessions the store first saw at or after ``ts``."""
    row = conn.execute("SELECT count(*) FROM sessions WHERE first_seen >= ?", (ts,)).fetchone()
    return int(row[0])


def command_sessions(conn: sqlite3.Connection) -> dict[tuple[str, str], int]:
    """(group key, command) -> the distinct sessions in which that command failed that way,
    over the raw failures still kept (the lesson lookup's counts)."""
    rows = conn.execute(
        "SELECT signature, command, COUNT(DISTINCT session_id) FROM failures"
        " WHERE command IS NOT NULL GROUP BY signature, command"
    )
    return {(signature, command): int(n) for signature, command, n in rows}
