"""The report as one self-contained HTML page: no script, no network, the charts drawn as
inline SVG (budget bars, failures per week, rule effectiveness). Geometry is computed here
(pure); ``templates/report.html.j2`` lays it out, with HTML escaping on."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pokayokay.report.model import Budget, Report, RuleRow, plural
from pokayokay.report.text import effect_text, evidence_text

TEMPLATE = "report.html.j2"

# Chart sizes (SVG user units; the page scales them to its width).
BUDGET_WIDTH, BUDGET_LABEL, BUDGET_ROW = 720, 160, 30
WEEKS_WIDTH, WEEKS_HEIGHT, WEEKS_TOP, WEEKS_BOTTOM = 720, 220, 24, 34
RULES_WIDTH, RULES_LABEL, RULES_ROW = 720, 230, 44

OK, WARN, OVER = "#2f855a", "#b7791f", "#c53030"
LOAD, RECUR = "#2b6cb0", "#c53030"
IN_PERIOD, BEFORE = "#dd6b20", "#f6c79a"


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    width: float
    height: float
    fill: str
    title: str


@dataclass(frozen=True)
class Label:
    x: float
    y: float
    text: str
    anchor: str = "start"
    css: str = ""


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    title: str
    rects: tuple[Rect, ...]
    labels: tuple[Label, ...]
    lines: tuple[tuple[float, float, float, float], ...] = ()


def _colour(budget: Budget) -> str:
    if budget.over:
        return OVER
    return WARN if budget.ratio >= 0.8 else OK


def budget_chart(budgets: list[Budget]) -> Chart:
    """One horizontal bar per budget, filled to used/limit; a tick marks the limit."""
    track = BUDGET_WIDTH - BUDGET_LABEL - 220
    rects: list[Rect] = []
    labels: list[Label] = []
    lines: list[tuple[float, float, float, float]] = []
    for i, budget in enumerate(budgets):
        y = 8 + i * BUDGET_ROW
        filled = track * min(budget.ratio, 1.0)
        tip = f"{budget.label}: {budget.used:,} of {budget.limit:,} {budget.unit}"
        rects.append(Rect(BUDGET_LABEL, y, track, 16, "#edf2f7", tip))
        rects.append(Rect(BUDGET_LABEL, y, max(filled, 1.0), 16, _colour(budget), tip))
        labels.append(Label(BUDGET_LABEL - 10, y + 12.5, budget.label, "end"))
        pct = f"{budget.ratio:.0%}" if budget.limit else "-"
        labels.append(Label(BUDGET_LABEL + track + 10, y + 12.5,
                            f"{budget.used:,} / {budget.limit:,} {budget.unit} ({pct})", "start",
                            "over" if budget.over else ""))
        lines.append((BUDGET_LABEL + track, y - 3, BUDGET_LABEL + track, y + 19))
    height = 8 + max(len(budgets), 1) * BUDGET_ROW
    return Chart(BUDGET_WIDTH, height, "MEMORY.md against its budgets", tuple(rects),
                 tuple(labels), tuple(lines))


def _week_colour(failures: int, in_period: bool) -> str:
    if not failures:
        return "#e2e8f0"
    return IN_PERIOD if in_period else BEFORE


def weeks_chart(report: Report) -> Chart:
    """One vertical bar per week: failures recorded (the count on top)."""
    weeks = report.weeks
    plot = WEEKS_HEIGHT - WEEKS_TOP - WEEKS_BOTTOM
    peak = max((w.failures for w in weeks), default=0) or 1
    slot = (WEEKS_WIDTH - 40) / max(len(weeks), 1)
    rects: list[Rect] = []
    labels: list[Label] = []
    base = WEEKS_TOP + plot
    for i, week in enumerate(weeks):
        x = 20 + i * slot + slot * 0.18
        height = plot * week.failures / peak
        tip = (f"week of {week.start.isoformat()}: {plural(week.failures, 'failure')} in "
               f"{plural(week.sessions, 'session')}")
        rects.append(Rect(x, base - max(height, 1.0), slot * 0.64, max(height, 1.0),
                          _week_colour(week.failures, week.in_period), tip))
        labels.append(Label(x + slot * 0.32, base - height - 6, str(week.failures), "middle",
                            "count"))
        labels.append(Label(x + slot * 0.32, base + 18, week.start.strftime("%d %b"), "middle",
                            "axis"))
    lines = ((16.0, base + 0.5, WEEKS_WIDTH - 16.0, base + 0.5),)
    return Chart(WEEKS_WIDTH, WEEKS_HEIGHT, "Failures recorded per week", tuple(rects),
                 tuple(labels), lines)


def rules_chart(rows: list[RuleRow]) -> Chart:
    """Per scoped rule: loads (blue) and recurrences after loading (red), on one scale."""
    track = RULES_WIDTH - RULES_LABEL - 70
    peak = max((max(r.evidence.loads, r.evidence.recurrences) for r in rows), default=0) or 1
    rects: list[Rect] = []
    labels: list[Label] = []
    for i, row in enumerate(rows):
        ev = row.evidence
        y = 8 + i * RULES_ROW
        name = ev.rel_path.rsplit("/", 1)[-1].removesuffix(".md")
        labels.append(Label(RULES_LABEL - 10, y + 17, name, "end"))
        for j, (value, colour, what) in enumerate(
            ((ev.loads, LOAD, "loads"), (ev.recurrences, RECUR, "recurrences after loading"))
        ):
            width = track * value / peak
            rects.append(Rect(RULES_LABEL, y + j * 14, max(width, 1.0), 12, colour,
                              f"{name}: {value} {what}"))
            labels.append(Label(RULES_LABEL + max(width, 1.0) + 6, y + j * 14 + 10, str(value),
                                "start", "small"))
    height = 8 + max(len(rows), 1) * RULES_ROW
    return Chart(RULES_WIDTH, height, "Rule effectiveness: loads and recurrences after loading",
                 tuple(rects), tuple(labels))


def _day(ts: float | None) -> str:
    if ts is None:
        return "-"
    return datetime.fromtimestamp(ts, timezone.utc).date().isoformat()


def context(report: Report) -> dict[str, Any]:
    """Everything the template needs, as plain values."""
    counts = report.verdict_counts()
    scoped = [row for row in report.graduated_rules if row.evidence.paths is not None]
    return {
        "r": report,
        "name": Path(report.project).name or report.project,
        "headline": report.headline(),
        "kpis": [
            (str(counts.get("holding", 0)), "rules holding", "good"),
            (str(counts.get("recurred", 0)), "rules recurred", "bad" if counts.get("recurred")
             else ""),
            (str(report.failures_in_period), f"failures, {report.period.label}", ""),
            (str(report.loads_in_period), "rule loads in the period", ""),
            (str(len(report.added)), "learnings added", ""),
            (str(len(report.reinforced)), "learnings reinforced", ""),
        ],
        "budget_chart": budget_chart(report.budgets) if report.budgets else None,
        "weeks_chart": weeks_chart(report),
        "rules_chart": rules_chart(scoped) if scoped else None,
        "rules": [
            {
                "path": row.evidence.rel_path,
                "verdict": row.evidence.verdict(),
                "where": row.where,
                "graduated": row.evidence.graduated or "-",
                "evidence": evidence_text(row),
                "effect": effect_text(row),
            }
            for row in report.graduated_rules
        ],
        "other_rules": len(report.rules) - len(report.graduated_rules),
        "near": [
            {
                "id": near.id,
                "category": near.group.category,
                "sessions": near.group.sessions,
                "last": _day(near.group.last_seen),
                "excerpt": near.group.excerpt,
                "paths": ", ".join(near.group.paths[:3]),
                "state": near.state.replace("`", ""),
            }
            for near in report.near
        ],
        "generated": report.generated.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "start": report.period.start.date().isoformat(),
        "end": report.period.end.date().isoformat(),
    }


def render_html(report: Report) -> str:
    import jinja2

    from pokayokay.infra.templating import templates_dir

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        undefined=jinja2.StrictUndefined,
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return env.get_template(TEMPLATE).render(**context(report))
