"""The failure boost's read-ahead terms (decision 0150) are what tokenising the lists gives.

``failure_boost.CATEGORY_TERMS`` and ``TOOL_TERMS`` stand for the terms of the category tools,
the category words less the tools' terms, and each tool, read ahead so that a prompt does not
tokenise them. When the analyser or a list changes, this test fails and prints the table to
paste back. (``test_failure_boost``'s properties hold ``concern`` and ``recurring``, which read
them, to their full computation.)
"""

from __future__ import annotations

from collections.abc import Iterable

from pokayokay.relevance.skill_terms import tokenize
from pokayokay.skills import failure_boost as fb


def _terms(words: Iterable[str]) -> frozenset[str]:
    return frozenset(term for word in words for term in tokenize(word))


def _table() -> tuple[dict[str, tuple[str, str]], str]:
    categories = {}
    for category in fb.CATEGORY_WORDS:
        tools = _terms(fb.CATEGORY_TOOLS.get(category, ()))
        words = _terms(fb.CATEGORY_WORDS.get(category, ())) - tools
        categories[category] = (" ".join(sorted(tools)), " ".join(sorted(words)))
    every = sorted({tool for tools in fb.CATEGORY_TOOLS.values() for tool in tools})
    tools = " ".join(f"{t}:{','.join(sorted(_terms([t])))}" for t in every)
    return categories, tools


def test_the_read_ahead_terms_are_the_tokenised_lists() -> None:
    categories, tools = _table()
    message = f"paste back:\nCATEGORY_TERMS = {categories!r}\nTOOL_TERMS = {tools!r}"
    assert categories == fb.CATEGORY_TERMS, message
    assert " ".join(fb.TOOL_TERMS.split()) == tools, message
