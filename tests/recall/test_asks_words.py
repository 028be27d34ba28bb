"""The word lists that spare most prompts the compile of recall's "what does it ask" patterns
(``pokayokay.recall.asks``): a text holding none of a pattern's words never matches it, so each
answer is the pattern's own (property-tested on texts built from the patterns' words and their
near misses, non-ASCII case variants included)."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from pokayokay.recall import asks

_PIECES = st.sampled_from(
    [
        *asks.EXPLAINS_WORDS, *asks.DOCS_WORDS, *asks.MESSAGE_WORDS,
        "Write", "WRITE", "wrıte", "ſummary", "Put Together", "DRAFT", "explain", "explain what",
        "explain the difference", "what does x do", "what do they mean", "difference between",
        "fix the typo", "fix a typos", "broken link", "dead links", "update the link",
        "links to 404", "docstrings", "README", "readme", "changelog", "notes.md", "a.rst",
        "docs/", "doc/", "documenting", "how to", "where", "why", "the", "a", "note", "update",
        "status", "email", "team", "hey", "please", "can you", "help me", ":", " ", "\n", ".",
        "?", "!", "-", "/", "_", "é", "x",
    ]
)  # fmt: skip
_TEXTS = st.lists(_PIECES, max_size=14).map("".join) | st.text(max_size=60)


@settings(max_examples=600, deadline=None)
@given(_TEXTS)
@example("explain what the retry loop does")
@example("fix the typo in README.md")
@example("write the friday note to my team: k8s migration 60% done")
@example("Wrıte the status update: done")  # dotless i: the pattern matches it ignoring case
def test_the_word_lists_never_change_an_answer(text: str) -> None:
    for lowered in (text, text.lower()):
        assert asks.explains_code(lowered) is (asks._EXPLAINS.search(lowered) is not None)
        expected = (
            asks._DOCS.search(lowered) is not None and asks._EXPLAINING.search(lowered) is None
        )
        assert asks.edits_docs(lowered) is expected
    found = asks._MESSAGE.match(text)
    assert asks.message_content(text) == (None if found is None else found.end())


def test_a_prompt_without_those_words_compiles_none_of_the_patterns() -> None:
    fresh = [asks.Lazy(p.pattern, p._args[1]) for p in (asks._EXPLAINS, asks._DOCS, asks._MESSAGE)]
    saved = (asks._EXPLAINS, asks._DOCS, asks._MESSAGE)
    asks._EXPLAINS, asks._DOCS, asks._MESSAGE = fresh
    try:
        prompt = "why does the checkout total round the discount the wrong way for some carts"
        assert not asks.explains_code(prompt) and not asks.edits_docs(prompt)
        assert asks.message_content(prompt) is None
        assert all(p._regex is None for p in fresh)  # none compiled
        assert asks.explains_code("explain what this does")
        assert fresh[0]._regex is not None
    finally:
        asks._EXPLAINS, asks._DOCS, asks._MESSAGE = saved
