"""Every reader of the graduation plan agrees in team mode (one plan:
:func:`pokayokay.team.plan.project_plan`): ``failures``, ``status``, ``report``, ``team status``
and ``graduate --dry-run``, on clones that ran real sessions through the hooks and pulled."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.team_clones import Clone, make_clones, make_remote, pytest_failure

from pokayokay.cli import main as cli
from pokayokay.infra.locate import resolve_memory_location

ADD = "test:tests/test_cart.py::test_add"
TAX = "test:tests/test_cart.py::test_tax"


def _cli(clone: Clone, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    with clone.active():
        code = cli.main([*args, "--project", str(clone.root)])
    out = capsys.readouterr().out
    assert code == 0, out
    return out


def _readers(clone: Clone, capsys: pytest.CaptureFixture[str]) -> dict[str, set[str]]:
    """What each reader says has graduated (mistake keys), and what is near."""
    failures = json.loads(_cli(clone, capsys, "failures", "--json"))
    team = json.loads(_cli(clone, capsys, "team", "status", "--json"))
    status = json.loads(_cli(clone, capsys, "status", "--json"))
    report = _cli(clone, capsys, "report")
    return {
        "failures": {r["group"] for r in failures["failures"] if r["graduated"]},
        "failures near": {r["group"] for r in failures["failures"] if r["near_threshold"]},
        "team": {m["mistake"] for m in team["mistakes"] if m["graduates"]},
        "status near": {g["excerpt"] for g in status["near_threshold"]},
        "report": {key for key in (ADD, TAX) if key.rsplit("::", 1)[-1] in report},
    }


def test_every_reader_plans_from_the_teams_evidence(
    team: list[Clone], capsys: pytest.CaptureFixture[str]
) -> None:
    _a, b, c = team
    # c never failed: its local store is empty, yet every reader sees the team's plan.
    said = _readers(c, capsys)
    assert said["failures"] == said["team"] == {ADD}  # 2 teammates: the team rule
    assert said["failures near"] == said["status near"] == {TAX}  # one session short
    out = _cli(c, capsys, "failures")
    assert "by the team" in out and "or 2 teammates" in out
    assert "RULE 2 teammates,   2 sessions" in out
    dry = _cli(c, capsys, "graduate", "--dry-run")
    planned = [line for line in dry.splitlines() if line.startswith("rule ")]
    assert len(planned) == 1 and "2 sessions" in planned[0] and "(dry run" in dry
    assert c.rules() == {}  # readers write nothing: no rule, no own team file
    assert c.team_files().keys() == b.team_files().keys()
    c.session([])  # SessionStart graduates from the pulled evidence
    (rule,) = c.rules().values()
    assert b"2 teammates, 2 sessions" in rule
    status = json.loads(_cli(c, capsys, "status", "--json"))
    (shown,) = [r for r in status["rules"] if r["pokayokay"]]
    assert shown["failure_sessions"] == 2  # the team's sessions, not the local store's 0
    with c.active():  # status prints its evidence once MEMORY.md exists
        memory = resolve_memory_location(c.root).memory_file
    memory.parent.mkdir(parents=True, exist_ok=True)
    memory.write_text("# Memory\n")
    text = _cli(c, capsys, "status")
    assert f"failure seen by 1 teammate in 2 sessions — {TAX}" in text, text


def test_a_teammates_retirement_is_seen_by_every_reader(
    team: list[Clone], capsys: pytest.CaptureFixture[str]
) -> None:
    a, _b, c = team
    assert a.pull()
    a.session([])
    (name,) = a.rules()
    _cli(a, capsys, "rules", "retire", name.removesuffix(".md"))
    a.session([])  # the retirement becomes a tombstone in a's own file
    a.sync()
    assert c.pull()
    said = _readers(c, capsys)
    # The team rule alone would still say "2 teammates": the plan honours the tombstone,
    # and team status says what the plan says.
    assert said["failures"] == said["team"] == set()
    c.session([])
    assert c.rules() == {}


def test_without_team_memory_the_plan_is_the_local_stores(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (a,) = make_clones(tmp_path, make_remote(tmp_path), 1)
    (a.root / ".claude" / "pokayokay.md").write_text("---\nteam: false\n---\n")
    for _ in range(3):
        a.session([pytest_failure("test_add")])
    failures = json.loads(_cli(a, capsys, "failures", "--json"))
    (row,) = failures["failures"]
    assert row["graduated"] and row["sessions"] == 3 and "teammates" not in row
    assert "team" not in failures
    assert a.team_files() == {}
