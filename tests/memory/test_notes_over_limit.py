"""When Claude's own notes alone push MEMORY.md past Claude Code's load limit (issue 25, item
10): pokayokay archives none of its entries that Claude Code still loads, adds no section past
the cut, and `status`, `doctor` and `report` say so — `report` never advises a `curate` that
would do nothing. Driven through the real commands and the SessionEnd hook with Claude Code's
own payload."""

from __future__ import annotations

import json
import os
import re
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from helpers.hooks import run_hook
from helpers.paths import FIXTURE_SAMPLES_DIR

from pokayokay.cli import main as cli
from pokayokay.memory.curation import curate
from pokayokay.memory.sections import DEFAULT_SECTIONS, END_MARKER, Settings

TODAY = date(2026, 11, 22)
MANAGED = ["- 2026-11-01 managed item Claude Code loads", "- 2026-11-02 second loaded item"]


def _memory_text(notes: int) -> str:
    completed = DEFAULT_SECTIONS[0]
    head = ["# Memory", "", f"## {completed.title}", completed.marker_line, *MANAGED, END_MARKER]
    claude = [f"- [Note {i}](note-{i}.md) — Claude's own note number {i}" for i in range(notes)]
    return "\n".join([*head, "", *claude]) + "\n"


def _memory_dir(project: Path) -> Path:
    slug = re.sub(r"[^A-Za-z0-9]", "-", str(project))
    return Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / slug / "memory"


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code = cli.main(list(args))
    out = capsys.readouterr().out
    assert code in (0, 1), out  # doctor exits 1 on a problem
    return out


def _listing(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def test_curation_archives_nothing_it_cannot_gain_from() -> None:
    text = _memory_text(230)
    result = curate(text, Settings(), {}, TODAY)
    assert result.before.notes_over and result.after.notes_over
    assert result.moves == [] and result.archives == {}
    # the loaded entries stay where they are; no section is added below line 200
    assert result.text.startswith(text.split("\n\n- [Note 0]")[0])
    assert result.text.count("## ") == 1
    assert any("because of Claude's own notes" in note for note in result.notes)


def test_notes_just_under_the_limit_still_get_room_made() -> None:
    """The other side of the line: when archiving does bring the file under, it happens."""
    text = _memory_text(193)  # 7 lines of head + 1 blank + 193 notes = 201 lines
    result = curate(text, Settings(), {}, TODAY)
    assert not result.after.over
    # one entry is enough (no room is made for sections that are not written)
    assert [m.entries for m in result.moves] == [(MANAGED[0] + "\n",)]
    assert result.after.lines == 200


def test_commands_and_session_end_say_so_and_change_nothing(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    folder = _memory_dir(project)
    folder.mkdir(parents=True)
    (folder / "MEMORY.md").write_text(_memory_text(230), encoding="utf-8")
    before = _listing(folder)

    out = _run(capsys, "curate", "--project", str(project))
    assert "nothing to do: archiving cannot fix it" in out
    assert "because of Claude's own notes" in out
    assert _listing(folder) == before

    payload: dict[str, Any] = json.loads(
        (FIXTURE_SAMPLES_DIR / "SessionEnd.other.json").read_text("utf-8")
    )
    payload["cwd"] = str(project)
    payload.pop("transcript_path", None)
    assert run_hook("SessionEnd", payload) == (0, "", "")
    assert _listing(folder) == before

    status = _run(capsys, "status", "--project", str(project))
    assert "Claude's own notes alone are over the limit" in status
    assert "nothing to curate" in status
    doctor = _run(capsys, "doctor", "--project", str(project))
    assert "Claude's own notes alone are over the limit" in doctor
    report = _run(capsys, "report", "--project", str(project))
    assert "because of Claude's own notes" in report
    assert "`pokayokay curate` fixes it" not in report
    assert "`pokayokay curate` fixes it" not in doctor


def test_observed_entries_are_not_written_into_a_section_past_the_cut(project: Path) -> None:
    """SessionEnd's observed entries (Key Decisions here) have no section yet: the section would
    start past line 200, so it is not added and the hook's note says why."""
    from pokayokay.infra.locate import memory_location_for
    from pokayokay.learnings.outcomes.observed import write_entries

    folder = _memory_dir(project)
    folder.mkdir(parents=True)
    (folder / "MEMORY.md").write_text(_memory_text(230), encoding="utf-8")
    before = _listing(folder)
    wanted = {"key_decisions": ["- 2026-11-20 use uv"]}
    note = write_entries(memory_location_for(project), Settings(), wanted)
    assert note is not None and note.startswith("observed entries not written for key_decisions")
    assert "would never be read" in note
    assert _listing(folder) == before


def test_the_archive_link_a_cut_adds_is_counted() -> None:
    """Archiving the first entries of a section gives the Topic Index a link to its archive: one
    more line, which the cut counts. Over by one line, one entry would leave and its link come
    in, and the file would still be over: two leave."""
    completed, index = DEFAULT_SECTIONS[0], DEFAULT_SECTIONS[-1]
    entries = [f"- 2026-11-0{day} finished item {day}" for day in range(1, 5)]
    head = ["# Memory", "", f"## {completed.title}", completed.marker_line, *entries, END_MARKER]
    topics = ["", f"## {index.title}", index.marker_line, "- [Design](design.md) — notes"]
    claude = [f"- Claude's own note number {i}" for i in range(186)]
    text = "\n".join([*head, *topics, END_MARKER, "", *claude]) + "\n"
    assert text.count("\n") == 201

    result = curate(text, Settings(), {}, TODAY)

    assert [m.entries for m in result.moves] == [(entries[0] + "\n", entries[1] + "\n")]
    assert "(completed-work-archive.md)" in result.text
    assert result.after.lines == 200 and not result.after.over


def test_no_entry_is_archived_when_its_archive_link_leaves_the_file_as_long() -> None:
    """Two lines over, with two entries that could leave: each would bring in a link to its
    archive, so no number of them brings the file under. Nothing leaves (before the cut counted
    the links, both were archived and the file stayed 202 lines)."""
    completed, index = DEFAULT_SECTIONS[0], DEFAULT_SECTIONS[-1]
    head = ["# Memory", "", f"## {completed.title}", completed.marker_line]
    topics = ["", f"## {index.title}", index.marker_line, "- [Design](design.md) — notes"]
    claude = [f"- Claude's own note number {i}" for i in range(190)]
    lines = [*head, "- 2026-11-01 finished item 1", END_MARKER, *topics, END_MARKER, "", *claude]
    text = "\n".join(lines) + "\n"
    assert text.count("\n") == 202

    result = curate(text, Settings(), {}, TODAY)

    assert result.moves == [] and result.archives == {}
    assert result.text == text
    assert any("over Claude Code's load limit" in note for note in result.notes)

