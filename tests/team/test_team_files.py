"""The team folder at the edge: this writer's own file grows by appends and is compacted when
superseded lines pile up; hostile or broken teammate files are skipped with a line, and a
session through the hooks still graduates from the good ones."""

from __future__ import annotations

import os
from pathlib import Path

from helpers.graduation import T0
from helpers.team_clones import make_clones, make_remote, pytest_failure

from pokayokay.team.files import COMPACT_SLACK, read_team, team_folder, write_own
from pokayokay.team.records import EVIDENCE, TeamRecord, encode_line

WRITER = "0123456789abcdef"


def rec(mistake: str, sessions: int) -> TeamRecord:
    return TeamRecord(EVIDENCE, mistake, "testing", sessions, sessions, int(T0), int(T0) + sessions)


def test_own_file_appends_then_compacts(project: Path) -> None:
    path = team_folder(project) / f"{WRITER}.jsonl"
    assert write_own(project, WRITER, (rec("a", 1), rec("b", 1)))
    assert not write_own(project, WRITER, (rec("a", 1), rec("b", 1)))  # nothing new
    before = path.read_bytes()
    assert write_own(project, WRITER, (rec("a", 2), rec("b", 1)))
    assert path.read_bytes().startswith(before)  # an append: earlier lines untouched
    for n in range(3, 200):
        write_own(project, WRITER, (rec("a", n), rec("b", 1)))
        lines = path.read_bytes().count(b"\n")
        assert lines <= 2 + COMPACT_SLACK + 1
    (records,) = read_team(project).records.values()
    assert {r.mistake: r.sessions for r in records} == {"a": 199, "b": 1}


def test_hostile_teammate_files_are_skipped_with_a_line(project: Path) -> None:
    folder = team_folder(project)
    folder.mkdir(parents=True)
    good = encode_line(rec("test:tests/test_cart.py::test_add", 1))
    (folder / "aaaaaaaaaaaaaaaa.jsonl").write_text(
        "not json\n" + good + "\n" + good.replace('"paths":[]', '"paths":["/etc/passwd"]')
        + "\n" + '{"v":1}\n' + "\xff\n"
    )
    (folder / "Evil Name.jsonl").write_text(good + "\n")
    os.symlink("/etc/passwd", folder / "bbbbbbbbbbbbbbbb.jsonl")
    os.mkfifo(folder / "cccccccccccccccc.jsonl")
    (folder / "dddddddddddddddd.jsonl").write_bytes(b"x" * (2 << 20))
    team = read_team(project)
    assert list(team.records) == ["aaaaaaaaaaaaaaaa"]
    assert [r.mistake for r in team.records["aaaaaaaaaaaaaaaa"]] == [
        "test:tests/test_cart.py::test_add"
    ]
    shown = "\n".join(team.problems)
    for expected in (
        "Evil Name.jsonl: not a writer's file name",
        "bbbbbbbbbbbbbbbb.jsonl: a symlink",
        "cccccccccccccccc.jsonl: unreadable",
        "dddddddddddddddd.jsonl: larger than",
        "aaaaaaaaaaaaaaaa.jsonl:1: refused: not a JSON line",
        "aaaaaaaaaaaaaaaa.jsonl:3: refused: a path leaves the project",
    ):
        assert expected in shown


def test_a_session_graduates_past_a_hostile_teammate_file(tmp_path: Path) -> None:
    remote = make_remote(tmp_path)
    a, b = make_clones(tmp_path, remote, 2)
    folder = team_folder(b.root)
    folder.mkdir(parents=True)
    (folder / "aaaaaaaaaaaaaaaa.jsonl").write_text("{broken\n" * 50)
    os.mkfifo(folder / "cccccccccccccccc.jsonl")
    a.session([pytest_failure("test_add")])
    a.sync()
    assert b.pull()
    b.session([pytest_failure("test_add")])  # exit 0 asserted by the helper
    (text,) = b.rules().values()
    assert b"2 teammates, 2 sessions" in text


def test_checked_lines_are_not_checked_again_but_changed_bytes_are(
    project: Path, monkeypatch: object
) -> None:
    import pokayokay.team.records as records

    key = str(project)
    write_own(project, WRITER, (rec("a", 1), rec("b", 2)), key)
    first = read_team(project, key)
    calls: list[str] = []
    real = records.redact
    monkeypatch.setattr(records, "redact", lambda text: calls.append(text) or real(text))  # type: ignore[attr-defined]
    assert read_team(project, key) == first
    assert calls == []  # every line's digest was kept: parsed, not redacted again
    path = team_folder(project) / f"{WRITER}.jsonl"
    path.write_text(path.read_text().replace('"a"', '"ghp_' + "x1" * 18 + '"'))
    again = read_team(project, key)
    assert calls  # the changed line was checked in full
    assert [r.mistake for r in again.records[WRITER]] == ["b"]
    assert again.refused == 1
