"""`pokayokay report` on a project with five weeks of history made through the real hooks
(tests/report/conftest.py): the text a team lead reads, the numbers, the page."""

from __future__ import annotations

import json
import os
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from helpers.team_history import NOW, TeamProject, build_team_project
from hypothesis import given
from hypothesis import strategies as st

from pokayokay.cli.main import main
from pokayokay.config.settings import load_settings
from pokayokay.errors import EXIT_USAGE, PokayokayError
from pokayokay.infra.locate import resolve_memory_location
from pokayokay.learnings.model import Learning
from pokayokay.report.collect import collect
from pokayokay.report.html import render_html
from pokayokay.report.model import Period, Report, build_report, parse_since, plural, times
from pokayokay.report.text import render_text


@pytest.fixture
def team_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> TeamProject:
    return build_team_project(tmp_path, monkeypatch)


def report_of(project: TeamProject, since: str = "7d") -> Report:
    location = resolve_memory_location(project.root)
    return collect(project.root, location, load_settings(project.root), since=since, now=NOW)


def test_the_week_in_text(team_project: TeamProject) -> None:
    text = render_text(report_of(team_project))
    assert text.startswith(f"pokayokay report: {team_project.root}\nthe last 7 days (2026-11-18")
    # The headline: the rule recurred once after loading; two failures this week.
    assert "  1 graduated rule: 1 recurred.\n" in text
    hint = re.search(r"\n  Worth a look: `pokayokay rules show ([\w-]+)` \(its failure came "
                     r"back after Claude Code loaded it\)\.\n", text)
    assert hint, text
    # The command it suggests works.
    assert main(["rules", "show", hint.group(1), "--project", str(team_project.root)]) == 0
    assert "  2 failures recorded in 2 sessions over the last 7 days; rules loaded twice.\n" in text
    # Issue 24: report said "ready" where graduate said "up to date". The migration failure names
    # no project file, so graduate makes no rule of it: report says so, and does not count it.
    assert "one session short of becoming a rule" not in text
    assert "  2 learnings added and 1 learning reinforced (3 stored).\n" in text
    # The rule with its evidence and its effect.
    block = text.split("Rules graduated by pokayokay (1)\n", 1)[1].split("\n\n", 1)[0]
    assert re.match(r"  \[recurred\] \.claude/rules/pokayokay/[\w-]+\.md, graduated 2026-11-07\n",
                    block), block
    assert "      where: /tests/test_checkout.py\n" in block
    assert "      evidence: seen in 4 sessions, last 2026-11-24\n" in block
    assert block.endswith(
        "      effect: loaded 4 times (2 in the period); the failure came back once after "
        "loading, 1 in the period"
    )
    # Near the threshold: the migration failure, two sessions of three, its excerpt sanitised.
    near = text.split("Near the graduation threshold (3 sessions make a rule)\n", 1)[1]
    assert re.match(r"  [0-9a-f]{12}  shell +2 of 3 sessions, last 2026-11-20  "
                    r"\(no rule: the evidence names no file in this project\)\n"
                    r"      sqlite3.OperationalError: no such table: "
                    r"orders_v2\n", near), near
    # The one-session lint failure is not "near" anything.
    assert "F841" not in text
    # Learnings: added this week vs reinforced (first given three weeks ago).
    assert "    + Database migrations are applied with `python manage.py migrate --plan`" in text
    assert "    ↻ Run the test suite with `pip install -e .` done first" in text
    assert "(given twice)" in text


def test_failures_per_week_cover_eight_weeks_and_mark_the_period(
    team_project: TeamProject,
) -> None:
    report = report_of(team_project, since="30d")
    weeks = [(w.start.isoformat(), w.failures, w.sessions, w.in_period) for w in report.weeks]
    assert weeks == [
        ("2026-10-05", 0, 0, False),
        ("2026-10-12", 0, 0, False),
        ("2026-10-19", 3, 1, False),  # 33 days ago: pytest, ruff F841 and E302 in one session
        ("2026-10-26", 1, 1, True),
        ("2026-11-02", 2, 1, True),
        ("2026-11-09", 0, 0, True),
        ("2026-11-16", 1, 1, True),
        ("2026-11-23", 1, 1, True),  # the recurrence after loading
    ]
    assert report.failures_in_period == 5  # of 8: the three of 33 days ago are outside
    text = render_text(report)
    assert "  week of 2026-10-19  " in text and "3 in 1 session  (before the period)" in text


def test_json_has_the_numbers(team_project: TeamProject, capsys: pytest.CaptureFixture[str],
                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(team_project.root)
    assert main(["report", "--json", "--since", "2026-11-01"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["period"]["label"] == "since 2026-11-01"
    (rule,) = data["rules"]
    assert rule["verdict"] == "recurred" and rule["loads"] == 4
    assert rule["recurrences_after_loading"] == 1 and rule["failure_sessions"] == 4
    assert [n["sessions"] for n in data["near_threshold"]] == [2]
    budgets = {b["label"]: b for b in data["budgets"]}
    assert budgets["Whole file (lines)"]["limit"] == 200
    assert budgets["Whole file (bytes)"]["limit"] == 25_000


def test_bad_period_is_a_usage_error(team_project: TeamProject,
                                     capsys: pytest.CaptureFixture[str],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(team_project.root)
    assert main(["report", "--since", "last tuesday"]) == EXIT_USAGE
    assert "give a period such as 7d, 12h or 2w" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("value", "start", "label"),
    [
        ("7d", NOW - timedelta(days=7), "the last 7 days"),
        ("1d", NOW - timedelta(days=1), "the last day"),
        ("12h", NOW - timedelta(hours=12), "the last 12 hours"),
        (" 2W ", NOW - timedelta(weeks=2), "the last 2 weeks"),
        ("2026-11-01", datetime(2026, 11, 1, tzinfo=timezone.utc), "since 2026-11-01"),
    ],
)
def test_parse_since(value: str, start: datetime, label: str) -> None:
    assert parse_since(value, NOW) == Period(start, NOW, label)


@pytest.mark.parametrize("value", ["0d", "7", "d7", "yesterday", "2026-13-01", "2027-01-01"])
def test_parse_since_refuses(value: str) -> None:
    with pytest.raises(PokayokayError):
        parse_since(value, NOW)


@given(st.integers(min_value=0, max_value=10_000))
def test_plural_agrees_with_the_count(count: int) -> None:
    said = plural(count, "session")
    assert said == (f"{count} session" if count == 1 else f"{count} sessions")
    assert times(count) in ({1: "once", 2: "twice"}.get(count, f"{count} times"),)


def test_empty_project_explains_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    project = tmp_path / "fresh"
    project.mkdir()
    monkeypatch.chdir(project)
    monkeypatch.setenv("POKAYOKAY_MEMORY_DIR", str(tmp_path / "memory"))
    assert main(["report"]) == 0
    out = capsys.readouterr().out
    assert "No rule graduated yet: a failure becomes a rule once it recurs in 3 sessions." in out
    assert "0 failures recorded in 0 sessions over the last 7 days" in out
    assert "note: No failure store yet" in out
    assert "note: No MEMORY.md at" in out


def _hostile_report() -> Report:
    hostile = Learning(
        name="learning-escape",
        description="Escape <img src=x onerror=alert(1)> & \"quotes\" in templates",
        text="x",
        created=(NOW - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        last_seen=(NOW - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ"),
    )
    return build_report(
        project="/srv/<team>/shop", now=NOW, period=parse_since("7d", NOW), threshold=3,
        memory_file="/home/dev/.claude/projects/x/memory/MEMORY.md", memory=None, rules=[],
        groups=[], failures=[], loads=[], learnings=[hostile], store_available=False,
    )


def test_page_escapes_what_it_shows_and_needs_nothing_outside() -> None:
    page = render_html(_hostile_report())
    assert "<img" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "/srv/&lt;team&gt;/shop" in page
    assert "<script" not in page.lower()
    # Nothing fetched: no src/href attributes, the only URL is the SVG namespace.
    assert not re.search(r"<[^>]*\s(src|href)=", page)
    assert re.findall(r"https?://[^\s\"']+", page) == ["http://www.w3.org/2000/svg"]


def test_cli_writes_the_page(team_project: TeamProject, capsys: pytest.CaptureFixture[str],
                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(team_project.root)
    assert main(["report", "--since", "30d", "--html", str(team_project.html)]) == 0
    assert capsys.readouterr().out.startswith(f"wrote {team_project.html}")
    page = team_project.html.read_text("utf-8")
    for css in ("chart-rules", "chart-weeks", "chart-budgets"):
        assert f'<svg class="chart {css}"' in page
    assert "recurred" in page and "orders_v2" in page
    missing = tmp = team_project.html.parent / "no-such-folder" / "r.html"
    assert main(["report", "--html", str(missing)]) == EXIT_USAGE
    assert not tmp.exists()
    os.chdir(team_project.root)


def test_a_damaged_store_is_reported_not_fatal(team_project: TeamProject,
                                               capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from pokayokay.infra.state import project_state_dir

    db = project_state_dir(str(team_project.root)) / "failures.db"
    assert db.is_file()
    db.write_bytes(b"this is not a database" * 100)
    monkeypatch.chdir(team_project.root)
    assert main(["report"]) == 0
    out = capsys.readouterr().out
    # Either the store is set aside and read fresh, or its problem is named; never a traceback.
    assert "Traceback" not in out and "pokayokay report:" in out
    assert "Rules graduated by pokayokay (1)" in out  # the rule file is still there


def test_curate_is_advised_only_when_it_brings_the_file_under_the_limit() -> None:
    """The issue's case: `report` advised `curate` for a file over the load limit because of
    Claude's own notes, and `curate` then had nothing to do."""
    from datetime import date

    from pokayokay.memory.curation import curate
    from pokayokay.memory.sections import DEFAULT_SECTIONS, END_MARKER, Settings
    from pokayokay.report.model import memory_advice

    spec = DEFAULT_SECTIONS[0]
    head = ["# Memory", "", f"## {spec.title}", spec.marker_line]
    entries = [f"- 2026-11-{d:02d} shipped step {d}" for d in range(1, 21)]

    def advice(notes: int) -> str:
        claude = [f"- Claude's note {i}" for i in range(notes)]
        text = "\n".join([*head, *entries, END_MARKER, "", *claude]) + "\n"
        result = curate(text, Settings(), {}, date(2026, 11, 22))
        curated = result.after if result.text != text or result.archives else None
        return memory_advice(result.before, curated)

    assert advice(100) == ""  # within the limit: nothing said
    assert advice(190).endswith("`pokayokay curate` fixes it.")  # archiving 16 entries fits
    over = advice(230)  # Claude's notes alone are 230 lines
    assert "because of Claude's own notes" in over and "cannot fix that" in over
    assert "fixes it" not in over
