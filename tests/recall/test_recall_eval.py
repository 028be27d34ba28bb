"""Recall on the labelled evaluation set of issue 12 (tests/data/recall_eval): paraphrased prompts
that avoid the notes' key words must recall the note (hit rate), ordinary coding prompts must
recall nothing (silence); and recall's manners (fixes, slash commands, once per session)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from pokayokay.hooks.recall import worth_recalling
from pokayokay.learnings import model as learnings
from pokayokay.recall import index as recall
from pokayokay.recall import shown as shown_notes
from pokayokay.recall.block import ADVISORY, ADVISORY_BRANCH
from pokayokay.recall.index import Document, Index
from pokayokay.recall.readers import FIX_WEIGHT, learning_document
from pokayokay.safety.sanitize import excerpt

DATA = Path(__file__).resolve().parents[1] / "data" / "recall_eval"
NOTES: list[dict[str, Any]] = json.loads((DATA / "learnings.json").read_text("utf-8"))["notes"]
PROMPTS: list[dict[str, Any]] = json.loads((DATA / "prompts.json").read_text("utf-8"))["prompts"]
HIT_GOAL = 0.90
SILENCE_GOAL = 0.95
# What the method reached on the fresh split when it was written (8/12, 7/8): a regression bar.
FRESH_HIT = 0.65
FRESH_SILENCE = 0.85


def corpus() -> Index:
    """The notes analysed exactly as the sources analyse real files."""
    docs: list[Document] = []
    counts: list[dict[str, int]] = []
    for note in NOTES:
        text = note["text"]
        if note["kind"] == "learning":
            learning = learnings.Learning(
                name=learnings.make_name(text),
                description=excerpt(text, learnings.DESCRIPTION_MAX),
                text=text,
                category=note["category"],
                hash=learnings.identity(text),
            )
            doc, doc_counts = learning_document(learning, f"learning-{note['id']}.md")
        else:
            doc = Document(note["id"], "fix", text, weight=FIX_WEIGHT)
            doc_counts = recall.features(text)
        doc.id = note["id"]
        docs.append(doc)
        counts.append(doc_counts)
    return Index.build(docs, counts)


def test_the_set_is_big_enough_and_paraphrases_avoid_the_key_words() -> None:
    by_id = {n["id"]: n for n in NOTES}
    assert sum(1 for n in NOTES if n["kind"] == "learning") >= 40
    related = [p for p in PROMPTS if p["expect"]]
    assert len(related) >= 80 and len(PROMPTS) - len(related) >= 30
    for prompt in related:
        words = set(re.findall(r"[a-z0-9_.+:-]+|[a-z0-9_]+", prompt["q"].lower()))
        words |= {w.rstrip("s") for w in words}
        for expected in prompt["expect"]:
            assert expected in by_id
            for key in by_id[expected]["key"]:
                assert key.lower() not in words, (prompt["q"], key)


def rates(index: Index, split: str) -> tuple[int, int, int, int]:
    """(hits, related prompts, silent, unrelated prompts) of one split."""
    hits = total = silent = unrelated = 0
    for prompt in PROMPTS:
        if prompt["split"] != split:
            continue
        ids = {h.doc.id for h in recall.recall(index, prompt["q"]).hits}
        if prompt["expect"]:
            total += 1
            hits += set(prompt["expect"]) <= ids
        else:
            unrelated += 1
            silent += not ids
    return hits, total, silent, unrelated


def test_hit_rate_and_silence_meet_the_goals() -> None:
    """The goals hold on the prompts the table and floor were tuned on; the fresh prompts,
    written after both were frozen, are the honest estimate and are held to a lower bar."""
    index = corpus()
    hits, total, silent, unrelated = rates(index, "dev")
    f_hits, f_total, f_silent, f_unrelated = rates(index, "fresh")
    print(
        f"\nrecall_eval dev: hit {hits}/{total} = {hits / total:.3f}, silence {silent}/{unrelated}"
        f" = {silent / unrelated:.3f}; fresh: hit {f_hits}/{f_total}, silence"
        f" {f_silent}/{f_unrelated} (floor {recall.FLOOR})"
    )
    assert hits / total >= HIT_GOAL
    assert silent / unrelated >= SILENCE_GOAL
    assert f_total >= 10 and f_unrelated >= 8
    assert f_hits / f_total >= FRESH_HIT and f_silent / f_unrelated >= FRESH_SILENCE


def test_the_issue_examples_reach_the_right_note() -> None:
    index = corpus()
    for prompt, expected in [
        ("How do I run the test suite?", "L01"),
        ("add styles for the new settings page", "L02"),
        ("let users upload a 2 GB video", "L03"),
    ]:
        assert expected in [h.doc.id for h in recall.recall(index, prompt).hits], prompt


# -- manners -----------------------------------------------------------------------------------

LEARNING = "Run the test suite through .venv/bin/python -m pytest; the system pytest lacks plugins."
FIX = "Run the test suite through .venv/bin/python -m pytest; the system pytest lacks plugins."


def fix(i: int, text: str) -> Document:
    return Document(f"fix:{i}", "fix", text, weight=FIX_WEIGHT)


def test_a_users_learning_ranks_above_an_automatic_fix_at_equal_relevance() -> None:
    index = Index.build([fix(1, FIX), Document("learning:a", "learning", LEARNING + " ")])
    hits = recall.recall(index, "how do I run the test suite with pytest?", floor=0.0).hits
    assert [h.doc.kind for h in hits][:1] == ["learning"]


def test_at_most_one_fix_unless_nothing_else_qualifies() -> None:
    fixes = [
        fix(1, "ModuleNotFoundError plugins in pytest; fixed by .venv/bin/python -m pytest"),
        fix(2, "pytest collected 0 items in tests/api; fixed by .venv/bin/python -m pytest -p no"),
        fix(3, "pytest ImportError conftest plugins; fixed after edits to conftest.py, pytest.ini"),
    ]
    note = Document("learning:a", "learning", LEARNING)
    prompt = "pytest fails with ImportError on the plugins in conftest"
    mixed = recall.recall(Index.build([*fixes, note]), prompt, floor=0.05).hits
    assert sum(h.doc.kind == "fix" for h in mixed) == 1 and any(
        h.doc.kind == "learning" for h in mixed
    )
    only = recall.recall(Index.build(fixes), prompt, floor=0.05).hits
    assert len(only) == 3 and all(h.doc.kind == "fix" for h in only)


@pytest.mark.parametrize(
    ("prompt", "worth"),
    [
        ("/remember never deploy on Fridays", False),
        ("/pokayokay:remember use httpx", False),
        ("ok", False),
        ("continue", False),
        ("yes do it", False),
        ("How do I run the test suite?", True),
        ("let users upload a 2 GB video", True),
    ],
)
def test_slash_commands_and_prompts_with_too_little_content_are_not_matched(
    prompt: str, worth: bool
) -> None:
    assert worth_recalling(prompt) is worth


def test_a_note_is_injected_once_per_session_unless_the_prompt_is_about_it_again(
    tmp_path: Path,
) -> None:
    index = corpus()
    state = str(tmp_path)
    first = recall.recall(index, "let users upload a 2 GB video").hits
    assert "L03" in [h.doc.id for h in first]
    shown_notes.record(state, "s1", [h.doc.id for h in first])
    seen = shown_notes.shown(state, "s1")
    assert "L03" in seen and shown_notes.shown(state, "s2") == frozenset()
    # a prompt near it again, but not about it: left out
    again = recall.recall(index, "instructors attach big recordings to a lesson", shown=seen).hits
    assert "L03" not in [h.doc.id for h in again]
    # a prompt about it again (scoring the repeat floor): back
    about = "large uploads presigned POST to S3, never stream files through Django"
    assert "L03" in [h.doc.id for h in recall.recall(index, about, shown=seen).hits]


def test_the_session_start_wording_says_what_was_matched() -> None:
    assert "similarity to the prompt" in ADVISORY
    assert "prompt" not in ADVISORY_BRANCH.split(";")[0].replace("no prompt yet", "")
    assert "branch" in ADVISORY_BRANCH


def test_a_concept_most_notes_evoke_is_left_out_in_a_large_corpus() -> None:
    """In 150 notes that all mention CSS, "colours" (the same concept) tells none of them apart:
    the concept is left out and nothing is recalled; in a small corpus it still counts."""
    areas = ["checkout", "billing", "search", "profile", "settings", "admin", "reports"]
    notes = [
        Document(
            f"learning:{i}",
            "learning",
            f"The {areas[i % 7]} page {i} keeps its CSS in a module beside the component; "
            f"ticket ENG-{1000 + i} tracks the {areas[(i * 3) % 7]} widgets.",
        )
        for i in range(150)
    ]
    prompt = "tweak the colours and spacing of the widgets"
    assert recall.recall(Index.build(notes), prompt).hits == []
    assert recall.recall(Index.build(notes[:3]), prompt).hits
