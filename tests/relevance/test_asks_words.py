"""The word lists that spare most prompts the compile of recall's "what does it ask" patterns
(``pokayokay.relevance.asks``): a text holding none of a pattern's words never matches it, so each
answer is the pattern's own (property-tested on texts built from the patterns' words and their
near misses, non-ASCII case variants included)."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from pokayokay.relevance import asks

# The patterns explains_code's scans replace (their oracle).
EXPLAINS = re.compile(
    r"\bdocstrings?\b|^\W*explain (?:what|the difference)\b|\bdifference between\b"
    r"|^\W*what (?:does|do) .{1,80}?\b(?:do|mean|contain|return|run|change|print|output)\b"
    r"|\bfix (?:the|a|this|that) typos?\b"
    r"|\b(?:broken|dead) links?\b|\b(?:fix|update) (?:the|that|this|a) links?\b"
    r"|\blinks? [^?!\n]{0,60}\b404s?\b"
)
RELATIVE = re.compile(r"\b(?:that|which|who)\s+[a-z]+(?:s|ed)\b[^,.;:!?\n]*")


def explains_by_regex(lowered: str) -> bool:
    return bool(EXPLAINS.search(lowered)) and bool(EXPLAINS.search(RELATIVE.sub(" , ", lowered)))

_PIECES = st.sampled_from(
    [
        *asks.EXPLAINS_WORDS, *asks.DOCS_WORDS, *asks.MESSAGE_WORDS,
        "Write", "WRITE", "wrıte", "ſummary", "Put Together", "DRAFT", "explain", "explain what",
        "explain the difference", "what does x do", "what do they mean", "difference between",
        "fix the typo", "fix a typos", "broken link", "dead links", "update the link",
        "links to 404", "404", "link", "fix a link", "this links", "docstrings", "explain ",
        "README", "readme", "changelog", "notes.md", "a.rst", "docs/", "doc/", "docs", "doc",
        "documenting", "how to", "where", "why", "the", "a", "note", "update",
        "status", "email", "team", "hey", "please", "can you", "help me", ":", " ", "\n", ".", "—",
        "?", "!", "-", "/", "_", "é", "x", "that", "which", "who", " that finds", "whose",
        "explained", "ed", "s", "Finds", "404s", "links ", "what does", "return", "mean", "do",
        "\u00a0", "\t", "x" * 30, "a tool that finds broken links", "fix the typo, which",
    ]
)  # fmt: skip
_TEXTS = st.lists(_PIECES, max_size=14).map("".join) | st.text(max_size=60)


@settings(max_examples=600, deadline=None)
@given(_TEXTS)
@example("explain what the retry loop does")
@example("fix the typo in README.md")
@example("write the friday note to my team: k8s migration 60% done")
@example("Wrıte the status update: done")
@example("a name for my dev tool that finds broken links")
@example("what does the retry\n do")
@example("the links in the footer all 404 now")  # dotless i: the pattern matches it ignoring case
def test_the_word_lists_never_change_an_answer(text: str) -> None:
    for lowered in (text, text.lower()):
        assert asks.explains_code(lowered) is explains_by_regex(lowered)
        assert asks.relative_clause_spans(lowered) == [m.span() for m in RELATIVE.finditer(lowered)]
        expected = (
            asks._DOCS.search(lowered) is not None and asks._EXPLAINING.search(lowered) is None
        )
        assert asks.edits_docs(lowered) is expected
    found = asks._MESSAGE.match(text)
    assert asks.message_content(text) == (None if found is None else found.end())


def test_a_prompt_without_those_words_compiles_none_of_the_patterns() -> None:
    fresh = [asks.Lazy(p.pattern, p._args[1]) for p in (asks._DOCS, asks._MESSAGE)]
    saved = (asks._DOCS, asks._MESSAGE)
    asks._DOCS, asks._MESSAGE = fresh
    try:
        prompt = "why does the checkout total round the discount the wrong way for some carts"
        assert not asks.explains_code(prompt) and not asks.edits_docs(prompt)
        assert asks.message_content(prompt) is None
        assert all(p._regex is None for p in fresh)  # none compiled
        assert asks.edits_docs("fix the typo in the readme")
        assert fresh[0]._regex is not None
    finally:
        asks._DOCS, asks._MESSAGE = saved


def test_explains_code_answers_as_its_patterns_on_the_real_texts() -> None:
    from tests.helpers.scan_oracle import real_texts

    texts = real_texts()
    assert len(texts) > 1000
    for text in texts:
        lowered = text.lower()
        assert asks.explains_code(lowered) is explains_by_regex(lowered), lowered
