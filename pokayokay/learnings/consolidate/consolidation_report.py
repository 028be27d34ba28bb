"""What a consolidation run did (ConsolidationOutcome: file changes, splits, decisions) and how it
is reported: the markdown report beside the learnings (jinja2 template) and the summary the CLI
prints."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from pokayokay.learnings.aging.ages import AgesReport
    from pokayokay.learnings.consolidate.consolidation import Plan, Trigger
    from pokayokay.learnings.consolidate.consolidation_config import ConsolidationConfig


@dataclass(frozen=True)
class FileChange:
    path: Path
    kind: str  # append | split-part | split-original | memory:<section id> | staging
    lines_before: int | None
    lines_after: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "kind": self.kind,
            "lines_before": self.lines_before,
            "lines_after": self.lines_after,
        }


@dataclass(frozen=True)
class SplitInfo:
    path: Path
    lines_before: int
    parts: tuple[tuple[str, int], ...]  # (file name, lines); the original comes first

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "lines_before": self.lines_before,
            "parts": [{"file": name, "lines": lines} for name, lines in self.parts],
        }


@dataclass
class ConsolidationOutcome:
    learnings: Path
    dry_run: bool
    today: date
    config: ConsolidationConfig
    report: AgesReport | None = None
    trigger: Trigger | None = None
    qualifying: int | None = None
    problem: str | None = None  # why nothing was consolidated
    plan: Plan | None = None
    # Stored learnings (learning-*.md) that contradict each other: both kept, for the user.
    contradictions: list[str] = field(default_factory=list)
    changes: list[FileChange] = field(default_factory=list)
    splits: list[SplitInfo] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    report_path: Path | None = None
    report_text: str = ""

    @property
    def consolidated(self) -> int:
        return len(self.plan.by_action("consolidate")) if self.plan else 0

    def to_dict(self) -> dict[str, Any]:
        ages_report = self.report
        return {
            "learnings_file": str(self.learnings),
            "dry_run": self.dry_run,
            "today": self.today.isoformat(),
            "file_lines": ages_report.file_lines if ages_report else None,
            "staleness": ages_report.staleness if ages_report else None,
            "triggered": bool(self.trigger and self.trigger.triggered),
            "reasons": list(self.trigger.reasons) if self.trigger else [],
            "qualifying": self.qualifying,
            "problem": self.problem,
            "decisions": [d.to_dict() for d in self.plan.decisions] if self.plan else [],
            "changes": [c.to_dict() for c in self.changes],
            "splits": [s.to_dict() for s in self.splits],
            "errors": list(self.errors),
            "contradictions": list(self.contradictions),
            "report": str(self.report_path) if self.report_path else None,
        }


def render_report(outcome: ConsolidationOutcome) -> str:
    from pokayokay.infra.templating import render

    plan = outcome.plan
    report = outcome.report
    decisions = plan.decisions if plan else []
    return render(
        "consolidation-report.md.j2",
        today=outcome.today.isoformat(),
        dry_run=outcome.dry_run,
        file=report.display if report else str(outcome.learnings),
        lines=report.file_lines if report else None,
        total=len(report.ages) if report else None,
        last=report.last_consolidation_label() if report else "unknown",
        trigger=outcome.trigger,
        qualifying=outcome.qualifying,
        freshness=outcome.config.freshness,
        min_batch=outcome.config.min_batch,
        problem=outcome.problem,
        consolidated=[d for d in decisions if d.action == "consolidate"],
        dropped=[d for d in decisions if d.action == "drop"],
        escalated=[d for d in decisions if d.action == "escalate"],
        kept=[d for d in decisions if d.action == "keep"],
        dropped_file=outcome.config.dropped,
        splits=outcome.splits,
        changes=outcome.changes,
        errors=outcome.errors,
        contradictions=outcome.contradictions,
    )


def render_summary(outcome: ConsolidationOutcome) -> str:
    """A few lines for the terminal (the details are in the report)."""
    lines = []
    verb = "would be" if outcome.dry_run else "were"
    if outcome.plan is None:
        lines.append(f"pokayokay consolidate: nothing done — {outcome.problem or 'not due'}")
    else:
        plan = outcome.plan
        lines.append(
            f"pokayokay consolidate: {len(plan.by_action('consolidate'))} consolidated, "
            f"{len(plan.by_action('drop'))} dropped, {len(plan.by_action('escalate'))} escalated, "
            f"{len(plan.by_action('keep'))} kept ({'dry run' if outcome.dry_run else 'applied'})"
        )
        for change in outcome.changes:
            before = "new" if change.lines_before is None else f"{change.lines_before}"
            lines.append(f"  {change.path}: {change.kind}, {before} → {change.lines_after} lines")
        for split in outcome.splits:
            names = ", ".join(f"{n} ({c})" for n, c in split.parts)
            lines.append(f"  split {split.path} ({split.lines_before} lines) {verb} into {names}")
    for line in outcome.contradictions:
        lines.append(f"  contradiction, both kept: {line}")
    for error in outcome.errors:
        lines.append(f"  error: {error}")
    if outcome.report_path is not None:
        lines.append(f"  report: {outcome.report_path}")
    return "\n".join(lines) + "\n"
