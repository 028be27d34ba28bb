"""`pokayokay failures` and `pokayokay graduate`: the evidence, and rules made from it."""

from __future__ import annotations

import difflib
import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pokayokay.failures.model import FailureGroup
from pokayokay.infra.locate import MemoryLocation
from pokayokay.memory.sections import Settings
from pokayokay.safety.redact import redact, redact_tree


def _day(ts: float) -> str:
    return datetime.fromtimestamp(ts, timezone.utc).date().isoformat()


def _group_dict(
    group: FailureGroup,
    threshold: int,
    graduated: frozenset[str],
    teammates: int | None = None,
    k: int = 0,
) -> dict[str, Any]:
    from pokayokay.failures.signature import short_id
    from pokayokay.rules.evidence import keyed

    sid = short_id(group.signature)
    done = sid in graduated
    near = group.sessions == threshold - 1 or (teammates is not None and teammates == k - 1)
    row: dict[str, Any] = {
        "id": sid,
        "category": group.category,
        "sessions": group.sessions,
        "occurrences": group.occurrences,
        "first_seen": _day(group.first_seen),
        "last_seen": _day(group.last_seen),
        "command": group.sample_command,
        "excerpt": group.excerpt,
        "paths": list(group.paths),
        "fix_paths": list(group.fix_paths),
        "fix_commands": list(group.fix_commands),
        "group": group.signature if keyed(group) else None,
        "corrections": [c._asdict() for c in group.corrections],
        "fix_edits": [e._asdict() for e in group.fix_edits],
        "graduated": done,
        "near_threshold": near and not done,
    }
    if teammates is not None:
        row["teammates"] = teammates
    return row


def cmd_failures(
    project: Path, location: MemoryLocation, settings: Settings, *, as_json: bool
) -> tuple[int, str]:
    from pokayokay.team.plan import project_plan

    threshold = settings.graduation_threshold
    k = settings.graduation_teammates
    found = project_plan(project, location, settings)
    rows = [
        _group_dict(
            g,
            threshold,
            found.graduated,
            found.teammates.get(g.signature, 0) if found.team else None,
            k,
        )
        for g in found.groups
    ]
    rows.sort(key=lambda r: (-r["sessions"], r["category"], r["id"]))
    if as_json:
        data: dict[str, Any] = {"threshold": threshold, "failures": rows}
        if found.team:
            data.update(team=True, teammates=k)
        return 0, json.dumps(redact_tree(data), indent=2)
    if not rows:
        if found.team:
            return 0, "no team evidence yet (each teammate's SessionEnd shares theirs)"
        return 0, "no failures recorded yet (the PostToolUseFailure hook records them)"
    recurring = sum(1 for row in rows if row["sessions"] > 1)
    needs = _count(threshold, "session")
    if found.team:
        needs = f"{needs} across the team, or {_count(k, 'teammate')}"
    out = [
        f"{_count(len(rows), 'failure signature')} recorded{' by the team' if found.team else ''}"
        f", {recurring} recurring (seen in more than one session); a rule needs {needs}"
    ]
    for row in rows:
        flag = "  RULE" if row["graduated"] else "  NEAR" if row["near_threshold"] else "      "
        where = ", ".join(row["paths"][:3]) or "-"
        sessions = "session " if row["sessions"] == 1 else "sessions"
        who = f"{_count(row['teammates'], 'teammate')}, " if found.team else ""
        out.append(
            f"{flag} {who}{row['sessions']:>3} {sessions}  {row['category']:<12} {row['id']}  "
            f"{where}"
        )
        if row["group"]:
            out.append(f"         {row['group']}")
        if row["excerpt"]:
            out.append(f"         {row['excerpt']}")
    out.append("")
    out.append(
        "RULE: graduated into .claude/rules/pokayokay/; NEAR: one session"
        + (" or one teammate" if found.team else "")
        + " short of it"
    )
    return 0, redact("\n".join(out))


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def cmd_graduate(
    project: Path, location: MemoryLocation, settings: Settings, *, dry_run: bool, quiet: bool
) -> tuple[int, str]:
    from pokayokay.team.graduate import graduate_project

    plan, outcome = graduate_project(project, location, settings, dry_run=dry_run)
    if quiet:
        return 0, ""
    out: list[str] = []
    for change in outcome.changes:
        rel = _rel(change.path, project)
        if dry_run:
            out.extend(
                difflib.unified_diff(
                    (change.old or "").splitlines(),
                    change.new.splitlines(),
                    rel if change.old is not None else "/dev/null",
                    rel,
                    lineterm="",
                )
            )
        else:
            out.append(f"{'updated' if change.old is not None else 'created'} {rel}")
    for rule in plan.rules:
        if rule.changed:
            scope = ", ".join(rule.globs) or "every session (project-wide evidence)"
            out.append(f"rule {rule.id}: {_count(rule.sessions, 'session')}; loads for {scope}")
    out.extend(f"note: {note}" for note in outcome.notes)
    out.extend(
        f"conflict: {_rel(path, project)} changed meanwhile; left alone"
        for path in outcome.conflicts
    )
    if not outcome.changes:
        out.append(
            "nothing to graduate: no failure has recurred in "
            f"{_count(settings.graduation_threshold, 'session')} yet"
            if not plan.rules
            else "rules are up to date"
        )
    elif dry_run:
        out.append("(dry run: nothing written)")
    return 0, "\n".join(out)


def _rel(path: Path, project: Path) -> str:
    try:
        return str(Path(path).relative_to(project))
    except ValueError:
        return str(path)
