"""The benchmark rows whose check reads what relevance decides (the recall block, a skill
suggestion) still get it, judged in this process on the rows' own generated material.

CI's smoke run times half the rows, drawn from its seed (decision 0186), so a relevance change
that silences a row's prompt can pass one CI run and fail the next; it did once (the
suggestion row's prompt fitted none of the 200 generated skills once decision 0198's gate
judged it). These tests put every such row's outcome in the everyday tier, in seconds: the same
learnings, skills, phrases and prompts the rows use, the same scorers and gates as the hook."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from pathlib import Path

import pytest

from benchmarks.fixtures.learnings import (
    RECALL_LEARNINGS,
    RECALL_RELATED,
    RECALL_UNRELATED,
    SUGGEST_SKILLS,
    generate_learnings,
    skill_asked_for,
    stored_learnings,
    write_skills,
)
from benchmarks.suites import recall as recall_rows
from pokayokay.learnings.model import file_name_for
from pokayokay.recall.readers import learning_document
from pokayokay.relevance import note_index
from pokayokay.skills.catalog import Skill, analysed, skill_from_text
from pokayokay.skills.suggest import suggest

# The benchmarks are a dev tool CI runs on its main Python only (decision 0155).
pytestmark = pytest.mark.one_python


@cache
def learnings_index() -> note_index.Index:
    """The recall rows' 2,000 learnings as they store them (:func:`stored_learnings`: each
    with its confidence and how a teammate might ask for it), indexed as the hook's sources
    index them."""
    read = [
        learning_document(learning, file_name_for(learning.name))
        for learning in stored_learnings(generate_learnings(RECALL_LEARNINGS))
    ]
    return note_index.Index.build([doc for doc, _ in read], [counts for _, counts in read])


def read_skill(path: Path, asked: Sequence[str] = ()) -> Skill:
    """A SKILL.md read as the catalog reads it, with ``asked`` phrases and its body (0205)."""
    text = path.read_text("utf-8")
    skill = skill_from_text(text, path.parent.name, str(path), "project")
    return analysed(skill, asked, text)


def generated_skills(folder: Path) -> list[Skill]:
    """The suggestion rows' generated skills, written as the rows write them, each with the
    phrases the rows add (:func:`skill_asked_for`)."""
    write_skills(folder, SUGGEST_SKILLS)
    return [
        read_skill(folder / ".claude" / "skills" / f"skill-{i:03d}" / "SKILL.md",
                   skill_asked_for(i))
        for i in range(SUGGEST_SKILLS)
    ]  # fmt: skip


def test_the_related_recall_prompt_recalls_a_learning() -> None:
    hits = note_index.recall(learnings_index(), RECALL_RELATED).hits
    assert hits, "the recall rows' related prompt recalls nothing: their check would fail"


def test_the_unrelated_recall_prompt_recalls_nothing() -> None:
    hits = note_index.recall(learnings_index(), RECALL_UNRELATED).hits
    assert not hits, [h.doc.text for h in hits]


def test_the_suggestion_row_prompt_gets_a_skill(tmp_path: Path) -> None:
    advice = suggest(recall_rows.SUGGEST_PROMPT, generated_skills(tmp_path))
    assert advice.suggestions, "the suggestion row's prompt gets no skill: its check would fail"


def test_the_realistic_suggestion_row_prompt_gets_the_spreadsheet_skill(tmp_path: Path) -> None:
    """The row "200 + 38 realistic skills" checks /xlsx beside the recurring failures (those
    come from its store, not from relevance)."""
    skills = generated_skills(tmp_path)
    skills += [read_skill(path) for path in sorted(recall_rows.EVAL_SKILLS.glob("*/SKILL.md"))]
    names = [s.name for s in suggest(recall_rows.SUGGEST_FAILING_PROMPT, skills).suggestions]
    assert "xlsx" in names, names


def test_no_generated_skill_addresses_the_build_failure_the_new_category_row_captures(
    tmp_path: Path,
) -> None:
    """The row "the failure recurs for the first time, in a category nothing shows there yet"
    checks that its prompt leaves a failing ``make build`` to the turn's Stop: the spool gate
    ingests first when some skill may address the failure (``hooks.spool_gate.stated_after``).
    None of the rows' skills does, though their bodies (real ones, decision 0205) speak of
    builds: what a skill addresses is what its description says. The row caught the bodies
    counting once; this holds it in the everyday tier."""
    from pokayokay.skills.failure_boost import concern

    skills = generated_skills(tmp_path)
    assert any(s.profile is not None and "build" in s.profile.body for s in skills)
    for tool in (None, "make"):
        addressing = [s.name for s in skills if concern(s, "build", tool) > 0]
        assert not addressing, (tool, addressing)
