"""Graduation with team memory (the edge): this writer's records written, every writer's read.

:func:`graduate_project` is what SessionEnd, SessionStart's catch-up and ``pokayokay graduate``
run. Without ``team: true`` it is :func:`pokayokay.rules.apply.graduate_project` unchanged.
With it:

1. this writer's evidence (its failure store's groups, redacted once more by
   :func:`pokayokay.team.records.from_group`) and its retirements (tombstones) are appended to
   its own file, which is compacted when it has grown;
2. every writer's file is read (refused lines and skipped files logged), and the team's
   evidence replaces the local store's as graduation's input: every clone plans from the same
   committed records, so the rule files, the environment lesson and ``recurring-failures.md``
   come out byte-identical wherever the same files were pulled (docs/decisions/0113);
3. a mistake graduates at ``graduation.threshold`` sessions across the team, or when
   ``graduation.teammates`` writers hit it; a tombstone retires it for every clone until a
   record shows a failure after it (docs/decisions/0112);
4. the generated rules are kept out of git (``.claude/rules/pokayokay/.gitignore``): every
   clone derives them from the evidence, so no two clones ever commit different counts into
   one rule file (docs/decisions/0113).
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pokayokay.infra.safe_write import read_bytes, write_atomic
from pokayokay.rules.apply import (
    ApplyOutcome,
    graduate,
    load_groups,
    read_retired,
    refresh_lessons,
)
from pokayokay.rules.graduation import RULES_DIR, GraduationPlan
from pokayokay.rules.team_view import TeamView
from pokayokay.team.aggregate import TeamEvidence, graduating, team_evidence
from pokayokay.team.files import read_team, write_own, writer_id
from pokayokay.team.records import TeamRecord, from_group, tombstone

__all__ = ["GITIGNORE", "graduate_project", "own_records", "team_inputs", "team_view"]

GITIGNORE = (
    "# Written by pokayokay (team: true): these rules are derived on every clone from the\n"
    "# evidence in .claude/pokayokay/team/, so they are not committed (docs/team.md).\n"
    "*.md\n"
    ".gitignore\n"  # itself too: an untracked copy must never block a teammate's pull
)


def own_records(location: Any, project: Path | None = None) -> tuple[TeamRecord, ...]:
    """This writer's records: one per mistake in its store (with its fixing commit's short SHA
    when ``project``'s git history shows it: :mod:`pokayokay.team.commits`), one per retired
    rule."""
    from pokayokay.team.commits import fixing_commit, recent_commits

    groups = load_groups(location)
    fixed = [g for g in groups if g.fix_paths]
    commits = (
        recent_commits(
            project, min(g.last_seen for g in fixed), (p for g in fixed for p in g.fix_paths)
        )
        if project and fixed
        else ()
    )
    records = [
        r
        for r in (from_group(g, fixing_commit(g.last_seen, g.fix_paths, commits)) for g in groups)
        if r is not None
    ]
    for key, when in sorted(read_retired(location).items()):
        records.append(tombstone(key, when.timestamp()))
    return tuple(records)


def team_inputs(
    project: Path, location: Any, *, write: bool = True
) -> tuple[TeamEvidence, tuple[str, ...]]:
    """Write this writer's records (unless ``write`` is False), then read every writer's; the
    team's evidence and the problems met reading it."""
    writer = writer_id(str(location.project_key))
    if write:
        write_own(project, writer, own_records(location, project), str(location.project_key))
    files = read_team(project, str(location.project_key))
    if files.problems:
        from pokayokay.infra import logs

        for line in files.problems:
            logs.log(f"team: {line}")
    return team_evidence(files.records), files.problems


def team_view(evidence: TeamEvidence, settings: Any) -> tuple[TeamView, dict[str, datetime]]:
    """What the planner takes from the team's evidence: the team rule's graduating mistakes
    with their teammate counts, and the teammates' retirements as moments."""
    view = TeamView(
        graduating=graduating(
            evidence, settings.graduation_threshold, settings.graduation_teammates
        ),
        teammates=evidence.teammates,
    )
    tombstones = {
        key: datetime.fromtimestamp(at, timezone.utc) for key, at in evidence.retired.items()
    }
    return view, tombstones


def _ensure_gitignore(project: Path) -> None:
    path = project / RULES_DIR / ".gitignore"
    if read_bytes(path) is None:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, GITIGNORE.encode("ascii"))


def graduate_project(
    project: Path, location: Any, settings: Any, *, dry_run: bool = False
) -> tuple[GraduationPlan, ApplyOutcome]:
    """Graduation over the project's evidence: the team's when ``team: true``, else the store's."""
    from pokayokay.rules import apply

    if not getattr(settings, "team", False):
        return apply.graduate_project(project, location, settings, dry_run=dry_run)
    evidence, _problems = team_inputs(project, location, write=not dry_run)
    view, tombstones = team_view(evidence, settings)
    if not dry_run:
        _ensure_gitignore(project)
    result = graduate(
        list(evidence.groups),
        project_dir=project,
        location=location,
        settings=settings,
        threshold=settings.graduation_threshold,
        dry_run=dry_run,
        team=view,
        tombstones=tombstones,
    )
    if not dry_run:
        _retire_tombstoned(project, location, settings, result[0], set(tombstones))
        refresh_lessons(project, location, settings, load_groups(location))
    return result


def _retire_tombstoned(
    project: Path, location: Any, settings: Any, plan: GraduationPlan, tombstoned: set[str]
) -> None:
    """A rule left without evidence because teammates retired every mistake it lists is retired
    here too, the way ``rules retire`` does it: its text kept in ``rules-archive.md``."""
    from pokayokay.infra import logs
    from pokayokay.rules.retirement import retire
    from pokayokay.rules.rule_text import parse_bookkeeping

    for rule_id in plan.untouched:
        path = project / RULES_DIR / f"{rule_id}.md"
        data = read_bytes(path)
        meta = parse_bookkeeping(data.decode("utf-8", "surrogateescape")) if data else None
        if meta is None or not meta.signatures or not set(meta.signatures) <= tombstoned:
            continue
        try:
            done = retire(project, location, rule_id, reason="retired by a teammate")
        except Exception as exc:  # the rule stays; the next graduation tries again
            logs.fail_open(f"team: retiring {rule_id}", exc)
            continue
        logs.log(f"team: retired {done.rule} (a teammate retired its mistakes)")
