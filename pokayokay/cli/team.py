"""``pokayokay team status``: the writers, the team's mistakes by teammates and sessions, and
what graduates next (read only: nothing is written, not even this writer's own file)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any

    from pokayokay.infra.locate import MemoryLocation

    Context = Callable[[argparse.Namespace], tuple[Path, MemoryLocation, Any]]


def add_parser(sub: Any, common: argparse.ArgumentParser, context: Context) -> None:
    """Register ``team`` and its actions on the CLI's subparsers."""

    def run(ns: argparse.Namespace) -> int:
        return cmd_team(ns, context)

    team = sub.add_parser("team", help="team memory over git: writers, shared evidence")
    actions = team.add_subparsers(dest="team_command", metavar="ACTION", required=True)
    p = actions.add_parser(
        "status", parents=[common], help="writers, mistakes by teammates, what graduates next"
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run)


def figures(project: Path, location: MemoryLocation, settings: Any) -> Any:
    """The team's figures as this clone reads its team folder now (nothing written). With
    ``team: true`` what has graduated is the project's one plan
    (:func:`pokayokay.team.plan.project_plan`), the one ``failures``, ``status`` and ``report``
    read; with it off, the team rule's verdict on the folder as it stands."""
    from pokayokay.team.aggregate import team_evidence
    from pokayokay.team.files import read_team, writer_id
    from pokayokay.team.plan import project_plan
    from pokayokay.team.status import team_figures

    files = read_team(project, str(location.project_key))
    evidence, graduated = team_evidence(files.records), None
    if settings.team:
        found = project_plan(project, location, settings)
        if found.evidence is not None:
            evidence, graduated = found.evidence, found.graduated_mistakes()
    return team_figures(
        evidence,
        writer=writer_id(str(location.project_key)),
        writers=tuple(files.records),
        threshold=settings.graduation_threshold,
        teammates=settings.graduation_teammates,
        problems=files.problems,
        graduated=graduated,
    )


def cmd_team(ns: argparse.Namespace, context: Context) -> int:
    from pokayokay.team.status import render_status

    project, location, settings = context(ns)
    result = figures(project, location, settings)
    if ns.json:
        print(json.dumps({"enabled": settings.team, **result.to_dict()}, indent=2))
    else:
        print(render_status(result, enabled=settings.team))
    return 0
