"""`pokayokay status` shows each graduated rule's evidence: the sessions its failure was seen in,
when last, how often the rule loaded and whether the failure came back after loading."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers.team_history import TeamProject, build_team_project

from pokayokay.cli.main import main


@pytest.fixture
def team_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> TeamProject:
    return build_team_project(tmp_path, monkeypatch)


def test_status_lists_each_rule_with_its_evidence(
    team_project: TeamProject, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(team_project.root)
    assert main(["status"]) == 0
    out = capsys.readouterr().out
    rule = re.search(
        r"\n    (\.claude/rules/pokayokay/[\w-]+\.md): /tests/test_checkout\.py\n"
        r"      evidence: failed in 4 sessions, last seen 2026-11-24\n"
        r"      loaded 4 times in 4 sessions; the failure came back once after loading\n",
        out,
    )
    assert rule, out
    # A one-session failure is never called recurring; two sessions of three is "near".
    assert ("  near the graduation threshold: shell failure seen in 2 sessions — "
            "sqlite3.OperationalError: no such table: orders_v2\n") in out
    assert "notes outside managed sections: 1 line\n" in out

    assert main(["status", "--json"]) == 0
    (entry,) = json.loads(capsys.readouterr().out)["rules"]
    assert entry["rule"] == rule.group(1)
    assert (entry["failure_sessions"], entry["loads"], entry["load_sessions"]) == (4, 4, 4)
    assert entry["recurrences_after_loading"] == 1 and entry["verdict"] == "recurred"


def test_failures_count_recurring_only_past_one_session(
    team_project: TeamProject, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(team_project.root)
    assert main(["failures"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == (
        "4 failure signatures recorded, 2 recurring (seen in more than one session); "
        "a rule needs 3 sessions"
    )
    rows = [line for line in lines[1:] if re.match(r"  (RULE|NEAR|    ) +\d+ session", line)]
    assert [row.split()[:3] for row in rows] == [
        ["RULE", "4", "sessions"], ["NEAR", "2", "sessions"],
        ["1", "session", "lint"], ["1", "session", "lint"],  # ruff F841 and E302: two mistakes
    ], rows
