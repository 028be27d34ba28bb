"""Telling the user, once, that skills visible here have no phrases yet (decision 0178):
SessionEnd keeps which skills lack them, SessionStart says so in a ``systemMessage`` (shown to
the user, never to the model) for each skill it has not mentioned before, and ``init`` ends with
the next step."""

from __future__ import annotations

import io
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pokayokay.hooks import runtime as hook
from pokayokay.infra.state import project_state_path
from pokayokay.install.lifecycle import init
from pokayokay.skills.asked import Table, skill_key
from pokayokay.skills.catalog import Skill
from pokayokay.skills.phrase_hint import (
    HINTED_FILE,
    UNASKED_FILE,
    hint_text,
    note_unasked,
    session_hint,
)

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "claude-code-samples"
PDF = Skill("pdf", "Extract text and tables from PDF files; fill forms; merge them.", "", "project")
DOCX = Skill("docx", "Create and edit Word documents with tracked changes.", "", "project")
XLSX = Skill("xlsx", "Spreadsheets: formulas, charts, pivot tables in .xlsx files.", "", "project")
MANUAL = Skill("deploy", "Deploys the app to production.", "", "project", model_invocable=False)


def asked(*skills: Skill) -> Table:
    return {skill_key(s.name, s.description): (s.name, ("a phrase",), 1) for s in skills}


def test_the_line_counts_names_the_new_ones_and_says_what_writes_them() -> None:
    line = hint_text(["pdf", "docx"], 2)
    assert line == (
        "pokayokay: 2 skills visible here have no phrases yet (pdf, docx), so suggestions find "
        "them by their descriptions alone. Run /skill-phrases once (/pokayokay:skill-phrases "
        "with the plugin): Claude writes how you might ask for each."
    )
    assert "(1 of them new: xlsx)" in hint_text(["xlsx"], 3)
    assert "1 skill visible here has no phrases" in hint_text(["pdf"], 1)
    many = hint_text([f"skill-{i}" for i in range(7)], 7)
    assert "(skill-0, skill-1, skill-2 and 4 more)" in many
    # names come from SKILL.md files: no control character or escape reaches the terminal
    odd = hint_text(["evil\x1b[2J\nname" + "x" * 80], 1)
    assert "\x1b" not in odd and "\n" not in odd
    assert "(evil[2J name" + "x" * 28 + ")" in odd  # cut to 40 characters


def test_each_skill_is_mentioned_once_and_again_when_its_description_changes(
    tmp_path: Path,
) -> None:
    state = str(tmp_path / "state")
    assert session_hint(state) == ""  # nothing kept yet: no SessionEnd has run
    note_unasked(state, [PDF, DOCX, MANUAL], {})
    first = session_hint(state)
    assert "2 skills visible here" in first and "(pdf, docx)" in first  # not the manual one
    assert session_hint(state) == ""  # mentioned: not again
    note_unasked(state, [PDF, DOCX, XLSX], {})
    assert "(1 of them new: xlsx)" in session_hint(state)
    assert session_hint(state) == ""
    note_unasked(state, [PDF, DOCX, XLSX], asked(PDF, DOCX, XLSX))  # /skill-phrases ran
    assert session_hint(state) == ""
    changed = Skill("pdf", PDF.description + " Also OCR.", "", "project")
    note_unasked(state, [changed, DOCX, XLSX], asked(PDF, DOCX, XLSX))
    assert "1 skill visible here has no phrases yet (pdf)" in session_hint(state)


def test_a_damaged_file_costs_nothing_but_a_repeated_line(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / UNASKED_FILE).write_text("{not json")
    assert session_hint(str(state)) == ""
    note_unasked(str(state), [PDF], {})
    (state / HINTED_FILE).write_bytes(b"\xff\x00" * 10)
    assert "(pdf)" in session_hint(str(state))  # the mention file is written again whole
    assert session_hint(str(state)) == ""
    (state / UNASKED_FILE).write_text(json.dumps({"format": 99, "skills": {"k": "x"}}))
    assert session_hint(str(state)) == ""  # a newer format: read as nothing, no crash


def test_the_unasked_file_is_written_only_when_it_changes(tmp_path: Path) -> None:
    state = tmp_path / "state"
    note_unasked(str(state), [PDF], {})
    before = (state / UNASKED_FILE).stat().st_mtime_ns
    os.utime(state / UNASKED_FILE, ns=(before - 10**9, before - 10**9))
    note_unasked(str(state), [PDF], {})
    assert (state / UNASKED_FILE).stat().st_mtime_ns == before - 10**9


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "docs-team"
    (root / ".claude" / "skills" / "pdf").mkdir(parents=True)
    (root / ".claude" / "skills" / "pdf" / "SKILL.md").write_text(
        f"---\nname: pdf\ndescription: {PDF.description}\n---\nHow to work with PDFs.\n"
    )
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    monkeypatch.setenv("POKAYOKAY_MEMORY_DIR", str(tmp_path / "memory"))
    return root


SAMPLES = {
    "SessionStart": "SessionStart.startup.json",
    "UserPromptSubmit": "UserPromptSubmit.json",
    "SessionEnd": "SessionEnd.other.json",
}


def run(event: str, project: Path, **fields: str) -> dict[str, Any]:
    payload: dict[str, Any] = json.loads((SAMPLE / SAMPLES[event]).read_text())
    payload.update(cwd=str(project), **fields)
    out, err = io.StringIO(), io.StringIO()
    code = hook.run(event, io.BytesIO(json.dumps(payload).encode()), out, err)
    assert (code, err.getvalue()) == (0, "")
    return json.loads(out.getvalue()) if out.getvalue().strip() else {}


def test_through_the_hooks_the_user_is_told_and_the_model_is_not(project: Path) -> None:
    report = init(project)
    assert report.notes[-1] == (
        "next: the 2 skills visible here have no phrases yet; run /skill-phrases once in Claude "
        "Code (Claude writes how you might ask for each, and skill suggestions find them far "
        "more often)"
    )  # pdf, and pokayokay's own capturing-learnings skill
    assert "systemMessage" not in run("SessionStart", project)  # no SessionEnd has run yet
    run("UserPromptSubmit", project, prompt="merge these two PDF invoices into one file")
    run("SessionEnd", project)  # the catalog the prompt kept is in hand: it notes the unasked
    assert Path(project_state_path(str(project)), UNASKED_FILE).is_file()
    told = run("SessionStart", project)
    assert "(capturing-learnings, pdf)" in told["systemMessage"]
    assert "phrases" not in told["hookSpecificOutput"].get("additionalContext", "")
    assert "systemMessage" not in run("SessionStart", project)  # once


def test_a_fifo_in_place_of_either_file_never_blocks_a_session_start(tmp_path: Path) -> None:
    state = tmp_path / "state"
    note_unasked(str(state), [PDF], {})
    os.mkfifo(state / HINTED_FILE)
    assert "(pdf)" in session_hint(str(state))  # read as nothing, then written as a file
    assert (state / HINTED_FILE).is_file()
    (state / UNASKED_FILE).unlink()
    os.mkfifo(state / UNASKED_FILE)
    assert session_hint(str(state)) == ""
