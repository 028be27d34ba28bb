"""``pokayokay report``: the terminal report, ``--html FILE`` for one self-contained page,
``--json`` for the numbers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pokayokay.infra.locate import MemoryLocation
from pokayokay.memory.sections import Settings


def _json(report: Any) -> str:
    from dataclasses import asdict

    data = {
        "project": report.project,
        "period": {
            "start": report.period.start.isoformat(),
            "end": report.period.end.isoformat(),
            "label": report.period.label,
        },
        "headline": report.headline(),
        "budgets": [asdict(b) | {"over": b.over} for b in report.budgets],
        "rules": [
            row.evidence.as_dict()
            | {
                "loads_in_period": row.loads_in_period,
                "recurrences_in_period": row.recurrences_in_period,
            }
            for row in report.rules
        ],
        "weeks": [
            {"start": w.start.isoformat(), "failures": w.failures, "sessions": w.sessions}
            for w in report.weeks
        ],
        "near_threshold": [
            {
                "id": n.id,
                "category": n.group.category,
                "sessions": n.group.sessions,
                "ready": n.waiting,
                "excerpt": n.group.excerpt,
            }
            for n in report.near
        ],
        "learnings": {
            "total": report.learnings_total,
            "added": [asdict(x) for x in report.added],
            "reinforced": [asdict(x) for x in report.reinforced],
        },
        "failures_in_period": report.failures_in_period,
        "loads_in_period": report.loads_in_period,
        "notes": report.notes,
    }
    return json.dumps(data, indent=2, default=str, ensure_ascii=False)


def run_report(
    project: Path,
    location: MemoryLocation,
    settings: Settings,
    *,
    since: str,
    html: str | None,
    as_json: bool,
) -> tuple[int, str]:
    from pokayokay.report.collect import collect
    from pokayokay.report.text import render_text

    report = collect(project, location, settings, since=since)
    if html is not None:
        from pokayokay.errors import PokayokayError
        from pokayokay.infra.safe_write import encode_text, write_atomic
        from pokayokay.report.html import render_html

        target = Path(html).expanduser().resolve()
        if not target.parent.is_dir():
            raise PokayokayError(f"--html {html}: the folder {target.parent} does not exist")
        write_atomic(target, encode_text(render_html(report)))
        return 0, f"wrote {target} (open it in a browser; it needs no network)"
    if not settings.team:
        return 0, _json(report) if as_json else render_text(report).rstrip("\n")
    from pokayokay.cli.team import figures
    from pokayokay.team.status import render_status

    team = figures(project, location, settings)
    if as_json:
        data = json.loads(_json(report))
        data["team"] = team.to_dict()
        return 0, json.dumps(data, indent=2, default=str, ensure_ascii=False)
    lines = render_status(team, enabled=True, limit=10)
    return 0, render_text(report).rstrip("\n") + "\n\nTeam memory\n" + lines
