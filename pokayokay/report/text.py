"""The report for the terminal: a headline, then one block per part, bars drawn with block
characters (pure: a Report in, text out)."""

from __future__ import annotations

from datetime import datetime, timezone

from pokayokay.report.model import Report, RuleRow, plural, times

BAR_WIDTH = 24


def _day(ts: float | None) -> str:
    if ts is None:
        return "-"
    return datetime.fromtimestamp(ts, timezone.utc).date().isoformat()


def bar(ratio: float, width: int = BAR_WIDTH) -> str:
    """``ratio`` of ``width`` cells filled; past 1.0 the bar is full and marked with ``!``."""
    filled = round(min(max(ratio, 0.0), 1.0) * width)
    return "█" * filled + "·" * (width - filled) + ("!" if ratio > 1 else " ")


def evidence_text(row: RuleRow) -> str:
    """The failures a rule was graduated from, in words."""
    ev = row.evidence
    if not ev.signatures:
        return "no failure named"
    if ev.last_seen is None:
        return "failures no longer in the store"
    return f"seen in {plural(ev.failure_sessions, 'session')}, last {_day(ev.last_seen)}"


def effect_text(row: RuleRow) -> str:
    """What a rule did, in words: its loads and the recurrences after it."""
    ev = row.evidence
    if ev.paths is None:
        return "loaded at every session start (no load count)"
    loads = f"loaded {times(ev.loads)}"
    if row.loads_in_period:
        loads += f" ({row.loads_in_period} in the period)"
    if not ev.signatures or ev.effect is None or ev.loads == 0:
        return loads
    if ev.recurrences:
        extra = f", {row.recurrences_in_period} in the period" if row.recurrences_in_period else ""
        return f"{loads}; the failure came back {times(ev.recurrences)} after loading{extra}"
    return f"{loads}; the failure has not come back since"


def render_text(report: Report) -> str:
    period = report.period
    out = [
        f"pokayokay report: {report.project}",
        f"{period.label} ({period.start.date().isoformat()} to {period.end.date().isoformat()})",
        "",
    ]
    out.extend(f"  {line}" for line in report.headline())
    out.append("")

    out.append(f"MEMORY.md budgets  {report.memory_file}")
    if not report.budgets:
        out.append("  no MEMORY.md yet")
    width = max((len(b.label) for b in report.budgets), default=0)
    for budget in report.budgets:
        note = f"  ({budget.note})" if budget.note else ""
        flag = "  OVER" if budget.over else ""
        out.append(
            f"  {budget.label:<{width}}  {bar(budget.ratio)} {budget.used:,} / "
            f"{budget.limit:,} {budget.unit}{flag}{note}"
        )
    out.append("")

    graduated = report.graduated_rules
    out.append(f"Rules graduated by pokayokay ({len(graduated)})")
    if not graduated:
        out.append(f"  none yet (a failure recurring in {plural(report.threshold, 'session')} "
                   "becomes one)")
    for row in graduated:
        ev = row.evidence
        when = f", graduated {ev.graduated}" if ev.graduated else ""
        out.append(f"  [{ev.verdict()}] {ev.rel_path}{when}")
        out.append(f"      where: {row.where}")
        out.append(f"      evidence: {evidence_text(row)}")
        out.append(f"      effect: {effect_text(row)}")
    others = [row for row in report.rules if not row.evidence.is_pokayokay]
    if others:
        out.append(f"  other rules in .claude/rules/: {len(others)}")
    out.append("")

    out.append("Failures per week")
    peak = max((w.failures for w in report.weeks), default=0)
    for week in report.weeks:
        ratio = week.failures / peak if peak else 0.0
        sessions = f" in {plural(week.sessions, 'session')}" if week.failures else ""
        mark = "" if week.in_period else "  (before the period)"
        out.append(
            f"  week of {week.start.isoformat()}  {bar(ratio)} {week.failures}{sessions}{mark}"
        )
    out.append("")

    out.append(f"Near the graduation threshold ({plural(report.threshold, 'session')} make a rule)")
    if not report.near:
        out.append("  nothing close")
    for near in report.near:
        state = near.state
        group = near.group
        out.append(
            f"  {near.id}  {group.category:<12} {group.sessions} of {report.threshold} sessions, "
            f"last {_day(group.last_seen)}  ({state})"
        )
        if group.excerpt:
            out.append(f"      {group.excerpt}")
    out.append("")

    out.append(f"Learnings ({report.learnings_total} stored)")
    out.append(f"  added over {report.period.label}: {len(report.added)}")
    out.extend(f"    + {row.description}" for row in report.added)
    out.append(f"  reinforced over {report.period.label}: {len(report.reinforced)}")
    out.extend(
        f"    ↻ {row.description} (given {times(row.observations)})"
        for row in report.reinforced
    )
    if report.notes:
        out.append("")
        out.extend(f"note: {note}" for note in report.notes)
    return "\n".join(out) + "\n"
