"""Invariants of the skill analysis and scoring, for any text (Hypothesis)."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from pokayokay.relevance.skill_match import Profile, Query, Stats, evidence, profile, score
from pokayokay.relevance.skill_terms import tokenize
from pokayokay.skills.catalog import Catalog, catalog_from_folder
from pokayokay.skills.suggest import MAX_CHARS, MAX_SUGGESTIONS, suggest

EVAL_SKILLS = Path(__file__).resolve().parents[1] / "data" / "skills_eval" / "skills"
CATALOG: Catalog = catalog_from_folder(EVAL_SKILLS)

WORDS = [
    "the", "a", "spreadsheet", ".xlsx", "Playwright", "pytest", "review", "PR", "Do", "NOT",
    "use", "for", "'make", "slides'", "src/app/models.py", "time.sleep", "README.md", "k8s",
    "CrashLoopBackOff", "redesign", "N+1", "é", "🙂", "\n", "\t",
]  # fmt: skip
words = st.sampled_from(WORDS)
texts = st.one_of(st.text(max_size=300), st.lists(words, max_size=40).map(" ".join))


@settings(max_examples=150, deadline=None)
@given(texts)
def test_terms_are_never_empty(text: str) -> None:
    assert all(term and " " not in term for term in tokenize(text))


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=40), texts)
def test_a_profile_survives_the_cache(name: str, description: str) -> None:
    prof = profile(name or "x", description)
    again = Profile.from_data(json.loads(json.dumps(prof.to_data())))
    assert again is not None
    assert again.to_data() == prof.to_data()
    assert not prof.negative & set(prof.fields)  # a negative term never counts for the skill
    assert prof.anchors <= set(prof.fields)


@settings(max_examples=150, deadline=None)
@given(texts)
def test_scores_are_finite_and_not_negative(prompt: str) -> None:
    stats = CATALOG.statistics()
    query = Query(prompt, stats)
    for skill in CATALOG:
        assert skill.profile is not None
        value = score(query, skill.profile)
        total, shared = evidence(query, skill.profile)
        assert 0.0 <= value < float("inf")
        assert shared <= query.terms | query.exts
        assert (total == 0.0) or shared or query.bigrams or skill.profile.phrases


@settings(max_examples=150, deadline=None)
@given(texts)
def test_the_suggestion_is_short_one_line_and_at_most_three(prompt: str) -> None:
    advice = suggest(prompt, CATALOG)
    assert len(advice.suggestions) <= MAX_SUGGESTIONS
    text = advice.text()
    assert len(text) <= MAX_CHARS and "\n" not in text
    if prompt.lstrip().startswith("/"):
        assert text == ""


def test_statistics_of_the_cached_catalog_equal_a_fresh_count() -> None:
    fresh = Stats.of(CATALOG)
    assert CATALOG.statistics().to_data() == fresh.to_data()
