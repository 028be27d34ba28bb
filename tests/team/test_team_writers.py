"""Who writes which team file: evidence recorded before ``team: true`` (shared at the next
SessionEnd), and two clones of one project for one user (two writers: one file per clone).
Both through the registered hooks on clones of a bare remote (docs/team.md)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from helpers.team_clones import Clone, git, make_clones, make_remote, pytest_failure

from pokayokay.team.records import decode_line


def _records(clone: Clone) -> dict[str, list[dict[str, object]]]:
    """Writer file name → its lines as JSON."""
    return {
        name: [json.loads(line) for line in data.decode().splitlines()]
        for name, data in clone.team_files().items()
    }


def test_evidence_from_before_team_memory_is_shared_at_the_next_session_end(
    tmp_path: Path,
) -> None:
    a, b = make_clones(tmp_path, make_remote(tmp_path), 2)
    settings = a.root / ".claude" / "pokayokay.md"
    committed = settings.read_text()
    settings.write_text("---\nteam: false\n---\n")
    a.session([pytest_failure("test_add")])
    a.session([pytest_failure("test_add"), pytest_failure("test_tax")])
    assert a.team_files() == {}  # off: nothing shared
    settings.write_text(committed)  # `team: true` switched on
    a.session([])  # a session with no failure: its SessionEnd shares the store's evidence
    (name, lines), = _records(a).items()
    shared = {line["mistake"]: line for line in lines}
    assert shared["test:tests/test_cart.py::test_add"]["sessions"] == 2
    assert shared["test:tests/test_cart.py::test_tax"]["sessions"] == 1
    for data in a.team_files()[name].decode().splitlines():
        assert not hasattr(decode_line(data), "reason")  # every line passes the reader's check
    assert a.rules() == {}  # 2 sessions of one writer: under the threshold of 3
    a.sync()
    assert b.pull()
    b.session([pytest_failure("test_add")])  # a teammate hits it once, having pulled a's file
    (rule,) = b.rules().values()
    assert b"2 teammates, 3 sessions" in rule  # a's sessions from before count


def test_two_clones_of_one_user_write_two_files(tmp_path: Path) -> None:
    remote = make_remote(tmp_path)
    home = tmp_path / "home"  # one user: one home, one pokayokay state folder
    home.mkdir()
    clones = []
    for name in ("a", "b"):
        root = tmp_path / f"clone-{name}"
        git(tmp_path, "clone", "-q", str(remote), str(root))
        clones.append(Clone(name, Path(os.path.realpath(root)), home))
    a, b = clones
    a.session([pytest_failure("test_add")])
    a.sync()
    b.session([pytest_failure("test_add")])
    b.sync()
    assert a.pull()
    a.session([])
    assert a.conflicts == b.conflicts == []
    files = a.team_files()
    assert len(files) == 2  # a writer id per clone: no file ever has two writers
    assert files == b.team_files()
    state = home / "pokayokay-state"
    ids = sorted(p.read_text().strip() for p in state.rglob("team-writer-id"))
    assert [f"{i}.jsonl" for i in ids] == sorted(files)
    # Each clone counts as a writer: one person's two clones are two "teammates".
    (rule,) = a.rules().values()
    assert b"2 teammates, 2 sessions" in rule
