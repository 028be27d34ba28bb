"""Reading a project into a :class:`pokayokay.report.model.Report` (the only I/O of the report):
MEMORY.md's measures, the rules and the failure store, the learning topic files."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from pokayokay.infra.locate import MemoryLocation
from pokayokay.memory.sections import Settings
from pokayokay.report.model import DEFAULT_SINCE, Report, build_report, parse_since


def collect(
    project: Path,
    location: MemoryLocation,
    settings: Settings,
    *,
    since: str = DEFAULT_SINCE,
    now: datetime | None = None,
) -> Report:
    """The report of ``project`` over ``since`` (``7d``, ``2w``, ``2026-11-01``)."""
    from pokayokay.learnings.topics.stored import load_learnings
    from pokayokay.memory.apply import run_curation
    from pokayokay.rules.rule_evidence import project_rule_evidence

    moment = now or datetime.now(timezone.utc)
    period = parse_since(since, moment)
    outcome = run_curation(location, settings, write=False, lock_timeout=2.0)
    memory = outcome.result.before if outcome.result is not None else None
    curated = outcome.result.after if outcome.result is not None and outcome.changed else None
    problem = None
    team_groups = None
    try:
        from pokayokay.team.plan import project_plan

        # the one plan `failures`, `status` and `team status` read (the team's in team mode)
        found = project_plan(project, location, settings)
        team_groups = found.groups if found.team else None
        rules, snapshot = project_rule_evidence(project, location.project_key, team_groups)
    except Exception as exc:  # a damaged store is doctor's business: report what can be read
        from pokayokay.infra import logs
        from pokayokay.rules.files import discover
        from pokayokay.rules.rule_evidence import EMPTY_STORE, rule_evidence

        logs.log_exception("report: reading the failure store", exc)
        problem = f"The failure store could not be read ({type(exc).__name__}: {exc})."
        rules, snapshot = rule_evidence(discover(project), [], {}), EMPTY_STORE
    stored, problems = load_learnings(location.memory_dir)
    report = build_report(
        project=str(project),
        now=moment,
        period=period,
        threshold=settings.graduation_threshold,
        memory_file=str(location.memory_file),
        memory=memory,
        rules=rules,
        groups=snapshot.groups if team_groups is None else team_groups,
        failures=snapshot.failures,
        loads=snapshot.loads,
        learnings=[item.learning for item in stored],
        store_available=snapshot.available,
        curated=curated,
    )
    if problem is not None:
        report.notes.insert(0, problem)
    if memory is None:
        report.notes.append(f"No MEMORY.md at {location.memory_file}: `pokayokay init` creates it.")
    report.notes.extend(f"Learning skipped: {problem}" for problem in problems)
    return report
