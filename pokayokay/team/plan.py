"""THE graduation plan as every reader sees it: the team's when ``team: true``, else the store's.

``pokayokay failures``, ``status``, ``report``, ``team status`` and ``graduate --dry-run`` all
ask :func:`project_plan`, so they never disagree about what has graduated. In team mode the plan
is built from the committed team folder exactly as the next graduation reads it — this writer's
file as last written (SessionEnd, SessionStart's catch-up, ``pokayokay graduate``) and every
teammate's as pulled — and nothing is written: a reader never appends to the writer's file
(docs/decisions/0114). Without team memory it is :func:`pokayokay.rules.apply.current_plan`
over the local store, unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pokayokay.failures.model import FailureGroup
from pokayokay.rules.graduation import GraduationPlan
from pokayokay.team.aggregate import TeamEvidence

__all__ = ["ProjectPlan", "project_plan"]


@dataclass(frozen=True)
class ProjectPlan:
    """The evidence graduation plans from, and the plan itself."""

    groups: tuple[FailureGroup, ...]  # the team's groups in team mode, else the store's
    plan: GraduationPlan
    team: bool = False
    teammates: Mapping[str, int] = field(default_factory=dict)  # mistake → writers (team mode)
    problems: tuple[str, ...] = ()  # teammate files or lines skipped while reading
    evidence: TeamEvidence | None = None  # the team's evidence (team mode)

    @property
    def graduated(self) -> frozenset[str]:
        """The short ids (:func:`pokayokay.failures.signature.short_id`) of every mistake a
        rule of the plan carries."""
        return frozenset(sig for rule in self.plan.rules for sig in rule.signatures)

    def has_graduated(self, group: FailureGroup) -> bool:
        from pokayokay.failures.signature import short_id

        return short_id(group.signature) in self.graduated

    def graduated_mistakes(self) -> frozenset[str]:
        """The mistake keys of :attr:`groups` a rule of the plan carries."""
        return frozenset(g.signature for g in self.groups if self.has_graduated(g))


def project_plan(project: Path, location: Any, settings: Any) -> ProjectPlan:
    """The project's graduation plan, read only (see the module's docstring)."""
    from pokayokay.rules.apply import current_plan, load_groups

    threshold = settings.graduation_threshold
    if not getattr(settings, "team", False):
        groups = tuple(load_groups(location))
        plan = current_plan(groups, project_dir=project, location=location, threshold=threshold)
        return ProjectPlan(groups, plan)
    from pokayokay.team.graduate import team_inputs, team_view

    evidence, problems = team_inputs(project, location, write=False)
    view, tombstones = team_view(evidence, settings)
    plan = current_plan(
        evidence.groups,
        project_dir=project,
        location=location,
        threshold=threshold,
        team=view,
        tombstones=tombstones,
    )
    return ProjectPlan(evidence.groups, plan, True, evidence.teammates, problems, evidence)
