"""The relevance gate through the registered UserPromptSubmit command (``scripts/
pokayokay-event``), as a user meets it: notes stored with ``pokayokay remember``, skills in the
project's ``.claude/skills/``, every prompt a new session. What reaches the model is what the
gated core decides (recall and skill suggestion alike), at most two notes and two skills, and
the gate is what silenced or trimmed the prompts where the ranker alone would have said more."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import recall_eval, splits
from helpers.relevance_split import Lab, match_note, recalled_lines, suggested_skills

from pokayokay.relevance import note_index as recall
from pokayokay.relevance.gate import MAX_SHOWN
from pokayokay.skills.catalog import catalog_from_folder
from pokayokay.skills.suggest import suggest

# train-split prompts about the first 14 learnings of tests/data/recall_eval, and ordinary ones
RECALL_PROMPTS = [
    "the background job that charges renewals ran two times for one user",
    "some users got charged twice for one renewal",
    "test for certificate expiry is flaky depending on what day it runs",
    "instructors complain uploads of their long recordings fail halfway",
    "certificates show the wrong date for students in new zealand",
    "why does the useEffect in CoursePlayer run twice in development?",
    "Sentry groups two unrelated KeyErrors from the grading worker into one issue",
    "write a haiku about autumn leaves",
]
SKILL_PROMPTS = [
    "make the buttons use the company colours and the right logo",
    "the nightly workflow on github keeps failing on the cache step",
    "summarise figures.xlsx",
    "tests/test_sync.py::test_retry passes on my machine but fails maybe 1 run in 5 on CI",
    "rename the variable total to subtotal in cart.py",
    "write a haiku about autumn leaves",
    "what's the average order value per region in this csv",  # the second, weaker one is cut
]


@pytest.fixture(scope="module")
def notes() -> list[dict[str, Any]]:
    return [n for n in recall_eval.eval_notes() if n["kind"] == "learning"][:14]


def test_recall_through_the_registered_hook_is_the_gated_decision(
    tmp_path: Path, notes: list[dict[str, Any]]
) -> None:
    lab = Lab(tmp_path)
    for note in notes:
        lab.remember(note["text"])
    index = recall_eval.build(notes)
    trimmed = 0
    for prompt in RECALL_PROMPTS:
        shown = [match_note(line, notes) for line in recalled_lines(lab.prompt(prompt))]
        gated = [h.doc.id for h in recall.recall(index, prompt).hits]
        ranked = [h.doc.id for h in recall.recall(index, prompt, gate=False).hits]
        assert shown == gated, prompt
        assert len(shown) <= MAX_SHOWN and set(shown) <= set(ranked)
        trimmed += len(shown) < len(ranked)
    # show_less already keeps one note by default; the gate silenced or trimmed the rest here
    assert trimmed >= 1


def test_skill_suggestion_through_the_registered_hook_is_the_gated_decision(
    tmp_path: Path,
) -> None:
    lab = Lab(tmp_path)
    lab.add_skills(splits.SKILLS_FOLDER / "skills")
    catalog = catalog_from_folder(splits.SKILLS_FOLDER / "skills")
    trimmed = 0
    for prompt in SKILL_PROMPTS:
        shown = suggested_skills(lab.prompt(prompt))
        gated = [s.name for s in suggest(prompt, catalog).suggestions]
        ranked = [s.name for s in suggest(prompt, catalog, gate=False).suggestions]
        assert shown == gated, prompt
        assert len(shown) <= MAX_SHOWN and set(shown) <= set(ranked)
        trimmed += len(shown) < len(ranked)
    assert trimmed >= 1
    assert suggested_skills(lab.prompt("write a haiku about autumn leaves")) == []


def test_the_gate_files_ship_as_package_data() -> None:
    """The wheel carries everything under pokayokay/ (hatch's default): the gates are there."""
    from pokayokay.relevance import fitted

    for kind in (fitted.RECALL, fitted.SKILLS):
        path = Path(fitted.gate_path(kind))
        assert path.parent.name == "relevance" and path.parent.parent.name == "pokayokay"
        assert json.loads(path.read_text("utf-8"))["features"]


def test_the_gated_prompt_imports_no_numpy_and_nothing_heavy(tmp_path: Path) -> None:
    """Issue 23's budget: no numpy on the prompt path; the gate adds neither dataclasses nor
    pathlib nor json (a dot product, an exp, one small file read through lean_json)."""
    import uuid

    from helpers.relevance_split import prompt_imports

    lab = Lab(tmp_path)
    lab.remember("Never run alembic upgrade head against staging; use make migrate ENV=staging.")
    lab.add_skills(splits.SKILLS_FOLDER / "skills")
    prompt = "how do I apply the new migration on staging?"
    assert recalled_lines(lab.prompt(prompt))  # caches built; the note speaks
    payload = {
        "session_id": str(uuid.uuid4()), "transcript_path": str(lab.home / "t.jsonl"),
        "cwd": str(lab.project), "prompt_id": str(uuid.uuid4()), "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit", "prompt": prompt,
    }  # fmt: skip
    imported = prompt_imports(payload, lab.env, lab.project)
    # the gate ran
    assert {"pokayokay.relevance.gate", "pokayokay.relevance.note_gating"} <= imported
    assert not imported & {"numpy", "dataclasses", "pathlib", "json", "typing"}
