"""Recall on the labelled evaluation set of issue 12 (tests/data/recall_eval): paraphrased prompts
that avoid the notes' key words must recall the note (hit rate), ordinary coding prompts must
recall nothing (silence); and recall's manners (fixes, slash commands, once per session)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from helpers import recall_eval

from pokayokay.hooks.recall import worth_recalling
from pokayokay.recall import shown as shown_notes
from pokayokay.recall.block import ADVISORY, ADVISORY_BRANCH
from pokayokay.recall.readers import FIX_WEIGHT
from pokayokay.relevance import concepts
from pokayokay.relevance import note_index as recall
from pokayokay.relevance.asks import explains_code
from pokayokay.relevance.note_index import Document, Index

NOTES: list[dict[str, Any]] = recall_eval.eval_notes()
SETS = recall_eval.prompt_sets()
ISSUE_HIT_GOAL = 0.90
ISSUE_SILENCE_GOAL = 0.95
# The bars come from the held-out set (written before the method's changes of issue 12's
# held-out round and never used to pick a weight or the floor; its misses did show which software
# words the concept table lacked, so it flatters): 78/90 hits and 33/36 silences at the shipped
# floor, minus a small margin. ``blind`` and ``blind2`` were written after two freezes and were
# honest estimates until the round of issue 12 item 3 read every one of their misses to classify
# its cause (tests/data/recall_eval, notes in pokayokay/relevance/note_index.py): they are seen sets
# now, kept as regression bars. As first measured: blind 12/35 and 14/15, blind2 12/30 and 10/12;
# before item 3: 15/35 and 14/15, 12/30 and 10/12; after it: 30/35 and 15/15, 26/30 and 11/12.
# ``blind3`` (50 paraphrases, 25 ordinary prompts) was written for item 3's round by a writer
# who never saw the matching code, kept out of the round's sight and measured once before and
# once after it: 34/50 and 19/25 before, 41/50 and 20/25 after (semantic on: 36 → 42 hits, the
# same silences); it is a seen set from now on too.
# Issue 12's fourth round: ``blind4`` and ``blind5`` were written by writers who read only the
# notes. blind4 was measured before the round (38/50, 19/25) and its misses were read during it
# (46/50, 22/25 after); blind5 was kept unread until the round was done: 41/50 and 6/25 before,
# 42/50 and 7/25 after (semantic on: 43/6 → 44/7). Its ordinary prompts were asked to be hard:
# each is on a note's very subject (the file the note names, its service, its command) while
# the note's advice does not change the task, which words cannot tell apart: its silence bar
# only guards against going back. ``blind6`` (50 paraphrases; 20 ordinary prompts sharing words
# with the notes on other subjects, 10 on a note's subject) was kept unread until the round was
# committed: 40/50 and 2/30 (2/20 and 0/10) before it, 42/50 and 4/30 (4/20, 0/10) after.
# Reading them added the typo and "difference between" manners (blind6: 6/30). Of the ordinary
# prompts of blind5 and blind6 that still get a note, 39 of 42 share with it a word at most two
# notes hold: they name the note's own file, service or tool ("Button.module.css",
# "src/lib/dates.ts", MediaConvert, OpenSearch). blind6's misses were then read (phrases for
# batch inserts, confirm dialogs, faster lookups, beta testers; "4GB"; "from 5.1 to 6.0"):
# 46/50. ``blind7`` (the same kinds) was kept unread through all of that: 38/50 and 6/30 (6/20,
# 0/10) before the round, 41/50 and 12/30 (9/20, 3/10) after; reading it added "what does …
# change" to the questions about code (13/30). ``blind8`` (50 paraphrases; 15 ordinary prompts
# on no note's subject, 15 sharing words, 10 on a note's subject) was written at the start of the
# fifth round and kept unread until its first changes were committed: 44/50 and 19/40 (14/15,
# 3/15, 2/10) before, 45/50 and 19/40 after; reading it added hyphenated phrases ("code-style"):
# 46/50. ``blind9`` (the same kinds) was written after that and measured once, unread: 41/50 and
# 18/40 (13/15, 2/15, 3/10) with the code before the round and after it alike; precision
# 46/73 -> 46/65. Six of its nine misses are a user proposing a shortcut the note forbids ("can
# I just …", "good enough?", "… right?") in words no note holds. ``blind10`` (the same kinds),
# written after the round's last change and measured once, unread: 43/50 and 19/40 with the code
# before the round, 42/50 and 19/40 after it (precision 47/74 -> 46/69): the endpoint concept
# that found the viewset-permissions note elsewhere diluted "add an endpoint that receives
# payment notifications" below the floor for the webhook note. Every bar is the figure after
# the round, minus a margin.
# Since issue 12's fifth round the held-out set meets the issue's goals (82/90, 35/36: a README
# or changelog edit that explains nothing is held to a clear match); read in earlier rounds, it
# is no unseen estimate any more (blind9 is).
# Issue 23 (manners, "show less, better": one note by default, a second only when nearly as
# strong and about something else; no note on a path alone or one common word, see
# pokayokay.relevance.evidence) traded hits for precision and silence, measured before -> after:
# tuned 84/90 -> 77/90 hits, precision 84/119 -> 77/88; held-out 82/90 -> 76/90, precision
# 82/121 -> 76/86; blind 33 -> 28/35; blind2 26 -> 23/30; blind3 45 -> 38/50 (silence 23 ->
# 24/25); blind4 47 -> 41/50; blind5 43 -> 33/50 (silence 7 -> 8/25); blind6 49 -> 43/50
# (7 -> 9/30); blind7 41 -> 35/50 (14 -> 15/30); blind8 46 -> 39/50 (19 -> 22/40); blind9
# 43 -> 35/50 (18 -> 21/40); blind10 42 -> 37/50 (19 -> 21/40); precision rose on every set
# (0.63-0.78 -> 0.79-0.96). Lost hits: prompts expecting two notes, notes whose pieces a
# stronger one holds too, a note matched on one concept several notes share
# (docs/decisions/0050). Hit bars: those figures less a margin; no silence bar was lowered.
# Then the relevance gate (decision 0070, fitted on the train split after the manners above):
# tuned 74/90, 36/36, precision 74/85; held-out 75/90, 35/36, 75/85; blind 28/35, 15/15;
# blind2 23/30, 12/12; blind3 36/50, 24/25; blind4 38/50, 22/25; blind5 31/50, 13/25; blind6
# 41/50, 14/30; blind7 33/50, 20/30; blind8 35/50, 29/40; blind9 33/50, 32/40; blind10 35/50,
# 26/40; older 30/42, 20/22, 31/39. Bars: those figures less a margin (silence bars raised).
# The 282 concept entries that one evaluation prompt alone justified were dropped and the gate
# refitted (decision 0166): on five unseen splits scored through the hook they had bought
# nothing (315 -> 314 hits, 235 -> 235 silences), but the prompts that justified them lose their
# hits: tuned 71 -> 63/90, held-out 73 -> 51/90 (precision 0.85), blind 25 -> 18/35, blind2 21 ->
# 15/30, blind6 40 -> 36/50; silence: blind5 12 -> 10/25, blind6 13 -> 12/30, blind8 32 -> 27/40,
# blind9 29 -> 24/40. The bars they crossed are the new figures less a margin.
# Then the precision-first threshold (decision 0167): tuned 63 -> 49/90 (precision 0.89),
# held-out 51 -> 45/90 (precision 0.85 -> 0.90); blind 18 -> 14/35, blind2 15 -> 11/30, blind3
# 36 -> 25/50, blind4 38 -> 31/50, blind5 30 -> 26/50, blind6 36 -> 27/50, blind7 30 -> 20/50,
# blind8 37 -> 32/50, blind9 34 -> 30/50, blind10 36 -> 34/50; silences rose (blind8 27 ->
# 34/40, blind9 24 -> 33/40, blind10 25 -> 28/40).
# 28/90 since decision 0201 (29/90 after 0200, 32/90 after 0197, 43/90 before 0196)
HELDOUT_HIT = 0.31
HELDOUT_SILENCE = ISSUE_SILENCE_GOAL
# blind3's hit bar was 0.70 until the gate was refit with the read unseen split in its training
# data and the rare_share feature (decision 0116): 33/50 since (train hits overall unchanged,
# 537/698; dev heldout 75/90, the read split 69/89 in-process).
# The gate fitted with every project weighing the same (decision 0145: these sets are all one
# project, the one the vocabulary was written from, and weighed 893 of the 1,098 train prompts)
# moves this corpus's sets by one to three prompts each way, before -> after: tuned 74 -> 71/90
# hits; held-out 75 -> 73/90 (precision 75/85 -> 73/82); blind 28 -> 25/35; blind2 22 -> 21/30;
# blind3 33 -> 35/50, silence 24 -> 25/25; blind4 38 -> 39/50; blind5 silence 13 -> 12/25;
# blind6 41 -> 40/50; blind7 33 -> 31/50, silence 19 -> 18/30; blind8 35 -> 37/50, silence
# 30 -> 32/40; blind9 33 -> 35/50, silence 32 -> 29/40; blind10 34 -> 35/50, silence 27 ->
# 26/40; older 32 -> 34/42, 20 -> 21/22. On dev's three unseen projects (relevance_test2,
# through the hook) recall went 58 -> 63/81 hits, 44 -> 46/54 silences, precision 0.75 -> 0.79.
# The bars that the move crossed are the new figures less a margin; the raised ones hold gains.
# Decision 0195 (the gates weigh a prompt-level model of whether a prompt calls for a note; these
# sets are among its training rows, so the figures flatter it): hits tuned 49 -> 48/90, held-out
# 45 -> 43/90, blind 14 -> 16/35, blind2 11 -> 8/30 (its bar 0.34 -> 0.25), blind3 25 -> 28/50,
# blind6 27 -> 30/50, blind7 20 -> 24/50, blind9 30 -> 33/50; silences blind5 12 -> 19/25,
# blind6 18 -> 24/30, blind7 21 -> 26/30, blind10 28 -> 35/40.
# Decision 0196 (the gates fitted on the twelve blind splits too, every project weighing the
# same: this corpus is one project of forty now, and the plain gate keeps fewer of its notes;
# on the blind splits held out that gate went 696 -> 667/1279 hits, 595 -> 613/649 silences,
# precision 0.82 -> 0.86): hits tuned 48 -> 30/90, held-out 43 -> 33/90, blind 16 -> 11/35,
# blind2 8 -> 5/30, blind3 28 -> 22/50, blind4 31 -> 27/50, blind5 27 -> 24/50, blind6 30 ->
# 25/50, blind7 24 -> 16/50, blind8 34 -> 31/50, blind9 33 -> 31/50, blind10 34 -> 33/50;
# silences blind5 19 -> 20/25, blind6 24 -> 25/30, blind7 26 -> 28/30, blind8 36 -> 37/40,
# blind9 37 -> 39/40, blind10 35 -> 36/40. The bars it crossed are the new figures less a margin.
# Decision 0197 (the candidate floor 0.28 -> 0.20, the plain gate's share 0.80 -> 0.75; on the
# blind splits held out, 667 -> 703/1279 hits, 613 -> 614/649 silences, precision 0.86 -> 0.87):
# hits tuned 30 -> 27/90, held-out 33 -> 32/90, blind 11 -> 9/35, blind2 5 -> 3/30, blind3
# 22 -> 20/50, blind6 25 -> 22/50, blind7 16 -> 14/50, blind8 31 -> 28/50, blind9 31 -> 27/50;
# blind10 33 -> 31/50; silences unchanged but blind10 (36 -> 37/40).
# Decision 0198 (the prompt-level model and the gates learn from relevance_test15 to 17 too;
# shares re-chosen, the plain gate's unchanged): hits tuned 27 -> 32/90, held-out 32 -> 33/90,
# blind 9 -> 11/35, blind2 3 -> 4/30, blind4 27 -> 26, blind5 24 -> 23, blind6 22 -> 20, blind7
# 14 -> 12, blind9 27 -> 23, blind10 31 -> 29/50; silences blind9 39 -> 38, blind10 37 -> 36/40.
# Decision 0199 (relevance_test20 and 21 join the fit): hits tuned 32 -> 29/90, held-out 33 ->
# 32/90, blind2 4 -> 5/30, blind3 20 -> 18, blind4 26 -> 24, blind6 20 -> 17, blind7 12 -> 10,
# blind8 28 -> 26, blind9 23 -> 20, blind10 29 -> 27/50; silences unchanged.
# Decision 0200 (notes ranked by BM25's share plus a quarter of the concept cosine; the gates
# refitted on twenty blind splits, where the plain gate gains 62 hits and 8 silences held out):
# hits tuned 29 -> 20/90, held-out 32 -> 29/90, blind 11 -> 12/35, blind3 18 -> 20, blind4 24 ->
# 23, blind5 23 -> 17, blind6 17 -> 18, blind7 10 -> 11, blind8 26 -> 24, blind10 27 -> 24/50;
# silences blind5 21/25, blind6 26/30, blind7 27/30, blind8 37/40, blind9 38/40, blind10 36/40.
# Decision 0201 (the gates weigh named_share; the plain gate held out +3 hits, +12 silences on
# the twenty blind splits): hits tuned 20 -> 18/90, held-out 29 -> 28/90, blind 12 -> 11/35,
# blind3 20 -> 18, blind4 23 -> 21, blind5 17 -> 19, blind6 18 -> 21, blind7 11 -> 12, blind8
# 24 -> 23, blind9 20 -> 19, blind10 24 -> 25/50 (-9 +8 over all); silences blind5 21 -> 22/25,
# blind7 27 -> 29/30, blind8 37 -> 38/40; the older set 28 -> 29/42.
BLIND_BARS = {
    "blind": (0.22, 0.95), "blind2": (0.08, 0.95), "blind3": (0.34, 0.96),
    "blind4": (0.42, 0.84), "blind5": (0.32, 0.44), "blind6": (0.32, 0.56),
    "blind7": (0.18, 0.66), "blind8": (0.46, 0.80), "blind9": (0.38, 0.78),
    "blind10": (0.44, 0.66),
}  # fmt: skip
# tests/data/recall: hit, silence, precision with the gate (hits 31 -> 28/42 with decision 0196)
OLDER_BARS = (0.64, 0.90, 0.77)
# The prompts the table was first tuned on keep a higher bar (71/90, 36/36 today: 74/90 before
# decision 0145).
# 18/90 since decision 0201 (20/90 after 0200, 27/90 after 0197, 48/90 before 0196)
TUNED_HIT = 0.20
TUNED_SILENCE = 0.95
# Precision: the share of the expected notes among all notes recalled on related prompts (what
# reaches the model besides the note it needs). Issue 12's fifth round left out notes scoring
# under half the best one (index.RELATIVE_FLOOR): tuned 83/135 -> 83/116, held-out 82/148 ->
# 82/121, no hit lost on any set; issue 23's show_less: tuned 84/119 -> 77/88, held-out 82/121
# -> 76/86. Bars: those figures less a margin.
TUNED_PRECISION = 0.80  # 30/36 since decision 0196 (48/55 before it)
HELDOUT_PRECISION = 0.82  # 51/60 since decision 0166


def corpus() -> Index:
    """The notes analysed exactly as the sources analyse real files."""
    return recall_eval.build(NOTES)


def test_the_sets_are_big_enough_and_paraphrases_avoid_the_key_words() -> None:
    by_id = {n["id"]: n for n in NOTES}
    assert sum(1 for n in NOTES if n["kind"] == "learning") >= 40
    tuned, heldout = SETS["tuned"], SETS["heldout"]
    assert sum(1 for p in tuned if p["expect"]) >= 80
    assert sum(1 for p in tuned if not p["expect"]) >= 30
    assert sum(1 for p in heldout if p["expect"]) >= 60
    assert sum(1 for p in heldout if not p["expect"]) >= 30
    for prompts in SETS.values():
        for prompt in prompts:
            words = set(re.findall(r"[a-z0-9_.+:-]+|[a-z0-9_]+", prompt["q"].lower()))
            words |= {w.rstrip("s") for w in words}
            for expected in prompt["expect"]:
                assert expected in by_id
                for key in by_id[expected]["key"]:
                    assert key.lower() not in words, (prompt["q"], key)


def test_hit_rate_and_silence_on_every_set() -> None:
    """Held-out and blind prompts meet the bars above; the tuned ones a higher bar; every set is
    printed (``-s``) with the issue's goals for comparison."""
    index = corpus()
    found = {name: recall_eval.rates(index, prompts) for name, prompts in SETS.items()}
    print(f"\nrecall_eval at floor {recall.FLOOR} (goals {ISSUE_HIT_GOAL} / {ISSUE_SILENCE_GOAL}):")
    for name, rates in found.items():
        print(f"  {name}: {rates}")
    heldout, tuned = found["heldout"], found["tuned"]
    assert heldout.hit_rate >= HELDOUT_HIT, heldout.misses
    assert heldout.silence >= HELDOUT_SILENCE, heldout.noise
    for name, (hit_bar, silence_bar) in BLIND_BARS.items():
        blind = found[name]
        assert blind.hit_rate >= hit_bar, (name, blind.misses)
        assert blind.silence >= silence_bar, (name, blind.noise)
    assert tuned.hit_rate >= TUNED_HIT, tuned.misses
    assert tuned.silence >= TUNED_SILENCE, tuned.noise
    assert tuned.precision >= TUNED_PRECISION
    assert heldout.precision >= HELDOUT_PRECISION
    older_index = recall_eval.build(recall_eval.older_notes())
    older = recall_eval.rates(older_index, recall_eval.older_prompts())
    print(f"  older: {older}")
    figures = (older.hit_rate, older.silence, older.precision)
    assert all(value >= bar for value, bar in zip(figures, OLDER_BARS, strict=True)), older


@pytest.mark.parametrize(
    "prompt",
    [
        "compute the total of the list in sum_scores",
        "rename the variable img to image in helpers.py",
        "search for all TODO comments in the repo",
        "make the navbar collapse on mobile",
        "add a --dry-run flag to the argument parsing in deploy.sh",
    ],
)
def test_an_ambiguous_word_alone_recalls_nothing(prompt: str) -> None:
    """"total", "image", "search", "mobile" and "flag" evoke a team's notes only with a second
    word of the same concept; alone they are ordinary coding words."""
    assert recall.recall(corpus(), prompt).hits == []


def test_a_second_word_of_the_same_concept_backs_an_ambiguous_one() -> None:
    index = corpus()
    backed = recall.recall(index, "hide the new dashboard from everyone except beta testers")
    assert "L09" in [h.doc.id for h in backed.hits]  # "hide" and "beta": both ambiguous, together
    evoked = {c: weak for c, _, weak in concepts.evoked("rename total_count to item_count")}
    assert evoked == {"money": True}
    evoked = {c: weak for c, _, weak in concepts.evoked("the totals and the rounding")}
    assert evoked["money"] is False


def weakness(text: str) -> dict[str, bool]:
    """Concept -> whether every word evoking it in ``text`` is unsupported."""
    found: dict[str, bool] = {}
    for concept, _, weak in concepts.evoked(text):
        found[concept] = found.get(concept, True) and weak
    return found


def test_ambiguous_words_inside_identifiers_are_names_and_back_nothing() -> None:
    assert weakness("rename the image_path variable to picture_path") == {"image": True}
    assert weakness("resize the picture in the image gallery")["image"] is False
    # a hyphenated compound is prose, not a name: its parts still back each other
    assert weakness("a picture-heavy image grid")["image"] is False


def test_the_words_after_this_or_these_name_the_object_at_hand() -> None:
    assert weakness("format this SQL query so it's readable") == {"query": True}
    assert weakness("format the SQL query in the report so it's readable")["query"] is False
    assert recall.recall(corpus(), "format this SQL query so it's readable").hits == []


def test_a_phrase_matches_with_or_without_a_plural_and_evokes_every_concept_listing_it() -> None:
    assert ("query", "db call") in concepts.concepts("one db call per student")
    assert ("query", "db calls") in concepts.concepts("too many db calls")
    listed = {c for c, w in concepts.concepts("create the rows in one go") if w == "in one go"}
    assert listed == {"compat", "bulk"}


@pytest.mark.parametrize(
    ("text", "version"),
    [("what about 4.0", True), ("what about 3.4.0", True), ("v2.1 please", True),
     ("sample at 1.0", False), ("a rate of 0.05", False), ("scale by 2.5", False)],
)  # fmt: skip
def test_a_version_literal_evokes_release_as_an_ambiguous_word(text: str, version: bool) -> None:
    assert (weakness(text).get("release") is True) is version


def test_a_reference_pinned_by_a_version_tag_evokes_pin() -> None:
    assert ("pin", "setup-thing@v2") in concepts.concepts("uses: someorg/setup-thing@v2")
    assert "pin" not in weakness("mail bob@example.com")


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
    prompt = "how do I run the test suite with pytest?"
    hits = recall.recall(index, prompt, floor=0.0, gate=False).hits  # the ranking, not the gate
    assert [h.doc.kind for h in hits][:1] == ["learning"]


def test_at_most_one_fix_unless_nothing_else_qualifies() -> None:
    fixes = [
        fix(1, "ModuleNotFoundError plugins in pytest; fixed by .venv/bin/python -m pytest"),
        fix(2, "pytest collected 0 items in tests/api; fixed by .venv/bin/python -m pytest -p no"),
        fix(3, "pytest ImportError conftest plugins; fixed after edits to conftest.py, pytest.ini"),
    ]
    note = Document("learning:a", "learning", LEARNING)
    prompt = "pytest fails with ImportError on the plugins in conftest"
    mixed = recall.recall(Index.build([*fixes, note]), prompt, floor=0.05, gate=False).hits
    assert sum(h.doc.kind == "fix" for h in mixed) <= 1 and mixed
    assert mixed[0].doc.kind == "learning" or len(mixed) == 1
    only = recall.recall(Index.build(fixes), prompt, floor=0.05, gate=False).hits
    # fixes alone: shown as any note is (one, a second only when nearly as strong and about
    # something else), each backed by two plain pieces of the prompt
    assert 1 <= len(only) <= recall.TOP_K and all(h.doc.kind == "fix" for h in only)


def test_a_fix_never_shows_on_one_word() -> None:
    """An automatic past fix needs two plain pieces of the prompt: a single shared word, even
    one only that fix holds, is no evidence that its failure is the prompt's."""
    fixes = [fix(1, "pytest ImportError conftest plugins; fixed after edits to conftest.py")]
    index = Index.build([*fixes, Document("learning:b", "learning", "Use pnpm for the web app.")])
    assert not recall.recall(index, "the plugins page of the admin", floor=0.0, gate=False).hits
    assert [h.doc.id for h in recall.recall(index, "pytest ImportError in the conftest plugins",
                                            floor=0.0, gate=False).hits] == ["fix:1"]


# Decision 0195's prompt-level model learned from every writer's sets that a README edit rarely
# calls for a note: where it does (how to run the tests, where the styles go), the gate now stays
# silent. A known cost, kept visible here.
README_COST = "a known cost of decision 0195: a README edit reads as calling for no note"


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        ("update the README's Docker section to say Docker Desktop needs 8 GB of memory", []),
        ("resize the image in the README to 200px wide", []),
        ("infra/README.md lists the old Terraform module names, update it", []),
        pytest.param(
            "add a section to the README about where the styles for a component go",
            ["L02"],
            marks=pytest.mark.xfail(strict=True, reason=README_COST),
        ),
        pytest.param(
            "update the README so it says how to run the test suite",
            ["L01"],
            marks=pytest.mark.xfail(strict=True, reason=README_COST),
        ),
    ],
)
def test_a_documentation_edit_that_explains_nothing_needs_a_clear_match(
    prompt: str, expected: list[str]
) -> None:
    """A README, changelog or docs edit (a fact, an image, a heading) gets a note only on a
    clear match; one that explains how or where something is done is an ordinary prompt."""
    assert [h.doc.id for h in recall.recall(corpus(), prompt).hits] == expected


@pytest.mark.parametrize(
    ("prompt", "content"),
    [
        ("write the friday note to my team: k8s migration 60% done", "k8s migration 60% done"),
        ("can you draft an update for leadership: the docker image shrank", "the docker image"),
        ("write the endpoint for payouts: list them by month", None),
        ("write a test for this: refunds over 100 fail", None),
    ],
)
def test_a_message_request_says_where_its_content_begins(
    prompt: str, content: str | None
) -> None:
    """The words after the colon of a request to write a message are what it says (recall holds
    such a prompt to a clear match, skill suggestion weighs them as names); a request to write
    code or a test is the task itself."""
    from pokayokay.relevance.asks import message_content

    at = message_content(prompt)
    assert (None if at is None else prompt[at:].strip()[: len(content or "")]) == content


def test_a_status_update_gets_no_note_for_the_news_it_carries(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    prompt = (
        "write this week's update for the team channel: billing migration shipped, search "
        "reindex slipped a week"
    )
    assert recall.recall(corpus(), prompt).hits == []
    monkeypatch.setattr(recall, "message_content", lambda text: None)
    # without the rule for a message's content, the news itself reaches notes: the search
    # reindex note (L28, first in decision 0200's ranking) and the search index's (L30)
    assert {h.doc.id for h in recall.recall(corpus(), prompt, gate=False).hits} == {"L28", "L30"}


def test_a_note_far_below_the_best_one_is_left_out_but_a_fix_never_sets_the_bar(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A note scoring under half the best note reads the prompt worse and is not injected; an
    automatic fix scoring far above the user's own note does not push that note out."""
    index = corpus()
    prompt = "a learner in Tokyo sees the lesson scheduled an hour off"  # L07: time zones
    assert [h.doc.id for h in recall.recall(index, prompt, gate=False).hits] == ["L07"]
    monkeypatch.setattr(recall, "RELATIVE_FLOOR", 0.0)
    # L06 clears the floor, but shares with the prompt no piece L07 lacks: not shown either way
    above = [index.doc(d).id for d, score in index.ranked(prompt) if score >= recall.FLOOR]
    assert "L06" in above
    assert [h.doc.id for h in recall.recall(index, prompt, gate=False).hits] == ["L07"]
    monkeypatch.undo()
    prompt = (
        "getting a not-null constraint violation on billing_invoice when running the tests "
        "after my change to billing/models.py"
    )
    scores = {index.doc(d).id: score for d, score in index.ranked(prompt)}
    assert scores["L04"] >= recall.FLOOR  # the migrations learning
    assert scores["L04"] < recall.RELATIVE_FLOOR * scores["F04"]  # far below the past fix
    # kept by RELATIVE_FLOOR (a fix never sets the bar), then left out by show_less: it holds
    # no piece of the prompt the fix lacks
    assert [h.doc.id for h in recall.recall(index, prompt, gate=False).hits] == ["F04"]


# A known cost of decision 0196 (the plain gate gave it too little evidence to speak) until
# decision 0199, and again of decision 0200 (the plain gate refitted on the fused ranking).
@pytest.mark.xfail(
    strict=True,
    reason="a known cost of decision 0200: the plain gate, refitted on the fused ranking, gives "
    "this paraphrase too little evidence to speak",
)
def test_a_paraphrase_of_the_time_zone_note_gets_it_through_the_gate() -> None:
    prompt = "a learner in Tokyo sees the lesson scheduled an hour off"
    assert [h.doc.id for h in recall.recall(corpus(), prompt).hits] == ["L07"]


def test_a_past_fix_is_recalled_when_the_prompt_speaks_of_its_failure() -> None:
    index = corpus()

    def ids(prompt: str) -> list[str]:
        return [h.doc.id for h in recall.recall(index, prompt).hits]

    # the same failure, in its words or in others
    assert "F03" in ids("TS2339: Property 'instructorBio' does not exist on type 'CourseOut'")
    assert "F03" in ids("ts says property doesnt exist on type after i changed the api")
    # ("tests wont even start, it says it cant import our plugin module" reached F01 through a
    # concept entry that prompt alone justified, dropped by decision 0166.)
    # near the fix's files or its kind of check, but another failure: no fix
    for prompt in [
        "typescript says 'Object is possibly undefined' on course.sections[0].title in Outline.tsx",
        "the quiz timer in QuizPlayer.tsx drifts a few seconds over 10 minutes",
        "refactor billing/utils.py: split the 300-line apply_coupon into smaller helpers",
    ]:
        assert not any(i.startswith("F") for i in ids(prompt)), prompt


def test_a_fix_documents_symptom_is_the_failure_before_its_category() -> None:
    from pokayokay.recall.readers import fix_text
    from pokayokay.relevance.symptoms import symptom

    text = fix_text("lint", 2, "E501 Line too long (101 > 100)", ["ruff format x.py"], ["x.py"])
    assert symptom(text) == "E501 Line too long (101 > 100)"
    assert symptom("no category here") == "no category here"


def test_words_in_paths_and_identifiers_name_the_place_of_work() -> None:
    assert weakness("write a docstring for refund_order in billing/refunds.py") == {
        "payment": True
    }
    assert weakness("call /api/payouts/ from the dashboard")["payment"] is True
    # a word of prose backs them: the task is about payments
    assert weakness("handle partial refunds in billing/refunds.py")["payment"] is False
    index = corpus()
    for prompt in [
        "refactor billing/utils.py: split the 300-line apply_coupon into smaller helpers",
        "refactor billing/services.py: split create_invoice into smaller helper functions",
    ]:
        assert recall.recall(index, prompt).hits == [], prompt


@pytest.mark.parametrize(
    ("prompt", "explains"),
    [("write a docstring for LessonViewSet.reorder", True),
     ("explain what the video_ready signal handler in videos/signals.py does", True),
     ("explain the difference between select_for_update and F()", True),
     ("what does the stripe status requires_action mean for 3DS cards?", True),
     ("what does git stash pop do?", True),
     ("what does `terraform fmt` change in our .tf files?", True),
     ("explain in general terms the difference between select_related and prefetch_related", True),
     ("fix the typo 'subnett' in the README of our terraform vpc module", True),
     ("the password reset mail has a typo in the footer", False),
     ("explain how we deploy to production", False),
     ("what does the PR need besides the tsx file?", False),
     ("why does the banner test fail today?", False)],
)  # fmt: skip
def test_a_prompt_explaining_the_code_at_hand_needs_a_clear_match(
    prompt: str, explains: bool
) -> None:
    assert explains_code(prompt.lower()) is explains
    if explains:
        hits = recall.recall(corpus(), prompt).hits
        assert all(h.score >= recall.REPEAT_FLOOR for h in hits), prompt


def test_the_same_subject_asked_about_gets_a_note_only_on_a_clear_match() -> None:
    index = corpus()

    def ids(prompt: str, gate: bool = True) -> list[str]:
        return [h.doc.id for h in recall.recall(index, prompt, gate=gate).hits]

    # the task gets the webhook note at an ordinary score; the question about the code does not
    task = "handle the stripe PaymentIntent status requires_action for 3DS cards"
    assert ids(task, gate=False) == ["L08"]
    # the relevance gate holds it back: most of its evidence is inside identifiers (a miss it costs)
    assert ids(task) == []
    assert ids("what does the stripe PaymentIntent status requires_action mean for 3DS?") == []


@pytest.mark.xfail(
    strict=True,
    reason="a known false association (decision 0166): 'password' reaches the note on comparing "
    "passwords; the email-subject entry that outweighed it rested on one evaluation prompt",
)
def test_a_typo_in_an_email_gets_the_email_templates_note() -> None:
    hits = recall.recall(corpus(), "fix the typo in the password reset email subject").hits
    assert [h.doc.id for h in hits] == ["L17"]


def test_a_number_in_a_table_phrase_is_any_number_and_page_alone_is_no_pagination() -> None:
    assert not any(c == "pagination" for c, _ in concepts.concepts("the learner's profile page"))
    assert ("pagination", "page 3") in concepts.concepts("jump to page 3 of the feed")
    assert any(c == "schedule" for c, _ in concepts.concepts("sync it every 5 minutes"))


def test_contractions_leave_no_fragment() -> None:
    from pokayokay.relevance.analyser import tokenize

    assert tokenize("we don't fire, it doesn't start, isn't there") == ["fir", "start"]


@pytest.mark.parametrize(
    ("text", "concept"),
    [
        ("what's the code-style tooling here", "~formatter"),
        ("a dark-mode switch", "~style"),
        ("run the cleanup at 3am", "~schedule"),
        ("roll it out to 10% of instructors", "~flag"),
        ("create a new endpoint for payouts", "~endpoint"),
    ],
)
def test_everyday_spellings_evoke_their_concept(text: str, concept: str) -> None:
    """A hyphenated phrase is the phrase ("code-style" is "code style"); a time of day is
    something scheduled; "to 10% of" a gradual rollout; "a new endpoint" an API view."""
    assert concept in concepts.query_features(text).counts


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
    # the scorer's rule, before any gate (decision 0200: the gate fitted on the fused ranking
    # holds the small corpus's note back too, which says nothing of the rule)
    assert recall.recall(Index.build(notes), prompt, gate=False).hits == []
    # in three notes the concept still counts: with a second plain piece ("module") it speaks
    small = recall.recall(Index.build(notes[:3]), prompt + " in the css module", gate=False)
    assert small.hits
    assert not recall.recall(Index.build(notes), prompt + " in the css module", gate=False).hits
