"""BM25's share as evidence for the asked recall gates (decision 0194): the share the gate reads
for a candidate is BM25's own score for it, and only the gates for notes carrying phrases
weigh it."""

from __future__ import annotations

import json

from helpers import recall_eval
from helpers.paths import DATA_DIR
from hypothesis import given, settings
from hypothesis import strategies as st

from pokayokay.relevance import fitted
from pokayokay.relevance.bm25 import bm25, shares
from pokayokay.relevance.concepts import query_features
from pokayokay.relevance.gate import FEATURES
from pokayokay.relevance.note_gating import evidence
from pokayokay.relevance.note_index import Index, recall

# A dev project of notes with their phrases, as the asked gates see them (read, not a test split).
PROJECT = DATA_DIR / "relevance_test2" / "recall" / "rust-soil-sensor.json"


def _project() -> tuple[Index, list[str]]:
    data = json.loads(PROJECT.read_text("utf-8"))
    notes = [{"kind": "learning", **note} for note in data["notes"]]
    given_notes = recall_eval.with_asked(notes, recall_eval.asked_phrases())
    words = sorted({w for note in given_notes for w in note["text"].lower().split()})
    return recall_eval.build(given_notes), words


INDEX, WORDS = _project()


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(WORDS), min_size=1, max_size=12), st.data())
def test_the_share_of_a_candidate_is_bm25s_score_for_it(
    words: list[str], data: st.DataObject
) -> None:
    query = query_features(" ".join(words)).counts
    docs = data.draw(st.lists(st.integers(0, len(INDEX) - 1), max_size=4, unique=True))
    full = bm25(INDEX, query)
    assert shares(INDEX, query, docs) == [full.get(d, 0.0) for d in docs]


def test_the_evidence_of_each_note_holds_its_share() -> None:
    prompt = "how do i flash the board? first time building the firmware here"
    query = query_features(prompt)
    hits = recall(INDEX, prompt, gate=False).hits
    assert hits, "the prompt should find a candidate: pick another"
    runners = [score for _d, score in INDEX.ranked(prompt)]
    found = evidence(INDEX, query, prompt, hits, runners, calls=0.5)
    expected = shares(INDEX, query.counts, [hit.at for hit in hits])
    assert [f.values()[FEATURES.index("bm25")] for f in found] == expected
    assert all(0.0 < share <= 1.0 for share in expected)


def test_only_the_gates_for_notes_with_phrases_weigh_bm25() -> None:
    at = FEATURES.index("bm25")
    for kind in (fitted.RECALL_ASKED, fitted.RECALL_ASKED_DENSE):
        assert fitted.fitted(kind).weights[at] > 0, kind
    for kind in (fitted.RECALL, fitted.RECALL_DENSE, fitted.SKILLS, fitted.SKILLS_ASKED,
                 fitted.SKILLS_DENSE, fitted.SKILLS_ASKED_DENSE):  # fmt: skip
        assert fitted.fitted(kind).weights[at] == 0.0, kind
