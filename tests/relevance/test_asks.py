"""What a prompt asks (pokayokay/relevance/asks.py): a relative clause describes a thing, it is not
the request (decision 0134). "need a name + an available .com or .io for my new dev tool that
finds broken links" (relevance_test2, dev) was held to "fixes a link" by the words of its
relative clause, so no skill could speak for it."""

from __future__ import annotations

import pytest
from helpers.paths import DATA_DIR
from hypothesis import given, settings
from hypothesis import strategies as st

from pokayokay.relevance.asks import explains_code
from pokayokay.skills.catalog import catalog_from_folder
from pokayokay.skills.suggest import suggest

SKILLS = DATA_DIR / "relevance_test2" / "skills"  # a dev set's real skills (tests/data/SPLITS.md)
DOMAIN = "need a name + an available .com or .io for my new dev tool that finds broken links"

# What the prompt asks when these open it: each is held to the code, the text or the model.
ASKED = (
    "fix the broken links",
    "update the link",
    "explain the difference between",
    "write a docstring for",
    "fix the typo in",
)
_NOUN = st.sampled_from(("tool", "script", "service", "bot", "page", "extension"))
_VERB = st.sampled_from(("finds", "reports", "checks", "shows", "listed", "collected"))
_THING = st.sampled_from(("broken links", "dead links", "the difference between two configs"))


@pytest.mark.parametrize("asked", ASKED)
def test_a_request_is_still_what_it_asks(asked: str) -> None:
    assert explains_code(f"{asked} the readme".lower())
    assert explains_code(f"please {asked} our docs, the one that moved".lower())


@settings(max_examples=100, deadline=None)
@given(_NOUN, _VERB, _THING)
def test_words_of_a_relative_clause_are_not_the_request(noun: str, verb: str, thing: str) -> None:
    for relative in ("that", "which"):
        prompt = f"pick a name for my new {noun} {relative} {verb} {thing}"
        assert not explains_code(prompt), prompt
        # ... and what the prompt itself asks still counts around the clause
        assert explains_code(f"fix the broken links of the {noun} {relative} {verb} {thing}")


def test_the_dev_prompt_reaches_its_skill() -> None:
    assert not explains_code(DOMAIN.lower())
    shown = [s.name for s in suggest(DOMAIN, catalog_from_folder(SKILLS)).suggestions]
    assert shown == ["domain-name-brainstormer"]
