"""``pokayokay team status``, ``report`` and ``doctor`` over a team folder pulled from
teammates (the clones ran real sessions through the hooks)."""

from __future__ import annotations

import json

import pytest
from helpers.team_clones import Clone

from pokayokay.cli import main as cli
from pokayokay.team.files import team_folder


def _cli(clone: Clone, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    with clone.active():
        code = cli.main([*args, "--project", str(clone.root)])
    return code, capsys.readouterr().out


def test_team_status_lists_writers_mistakes_and_what_graduates_next(
    team: list[Clone], capsys: pytest.CaptureFixture[str]
) -> None:
    _a, b, c = team
    code, out = _cli(c, capsys, "team", "status", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["enabled"] is True
    assert len(data["writers"]) == 2 and data["writer"] not in data["writers"]  # c: no file
    rows = {m["mistake"].rsplit("::", 1)[-1]: m for m in data["mistakes"]}
    assert (rows["test_add"]["teammates"], rows["test_add"]["sessions"]) == (2, 2)
    assert rows["test_add"]["graduates"] is True  # k = 2 teammates
    assert (rows["test_tax"]["teammates"], rows["test_tax"]["sessions"]) == (1, 2)
    assert rows["test_tax"]["next"] is True  # one session (or one teammate) short
    code, out = _cli(b, capsys, "team", "status")  # b pulled a's file before pushing
    assert "2 writers" in out and "(you)" in out
    assert "RULE 2 teammates, 2 sessions" in out
    assert "graduates next: test:tests/test_cart.py::test_tax" in out


def test_report_shows_team_figures_and_doctor_lists_skipped_files(
    team: list[Clone], capsys: pytest.CaptureFixture[str]
) -> None:
    c = team[2]
    code, out = _cli(c, capsys, "report")
    assert code == 0
    assert "Team memory" in out and "2 writers" in out
    (team_folder(c.root) / "ffffffffffffffff.jsonl").write_text('{"v":1,"kind":"evidence"}\n')
    (team_folder(c.root) / "notes.jsonl").write_text("hello\n")
    code, out = _cli(c, capsys, "doctor")
    assert "[warn] team: .claude/pokayokay/team/ffffffffffffffff.jsonl:1: refused" in out
    assert "[warn] team: .claude/pokayokay/team/notes.jsonl: not a writer's file name" in out
    assert "3 writers" in out and "1 line refused" in out
