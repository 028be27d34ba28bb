"""The recall block's checks without regular expressions (what a shown note may not hold, the
fence's own words, the label) answer as the patterns they stand for, on any text."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from pokayokay.recall import block
from pokayokay.recall.index import Document, Hit

# The patterns as the block wrote them before it checked without compiling them.
UNSAFE = re.compile(f"[{block._UNSAFE_CHARACTERS}]" + r"|\]\s*\(|`{2,}|~{3,}")
FENCE_WORDS = re.compile(
    r"pokayokay[\W_]*recall|end[\W_]+of[\W_]+recalled[\W_]+notes|reference[\W_]+data",
    re.IGNORECASE,
)
LABEL_OK = re.compile(r"[a-z][a-z0-9-]{0,30}")

# Characters near every edge of the checks: the unsafe ones and their neighbours, the pieces of
# a link and of fences, white space of several kinds, letters of the fence words in both cases,
# the Kelvin sign (a case-insensitive k).
EDGES = (
    "<>\u2039\u203a\u276b\u276c\u2771\u2772\u3007\u3008\u300d\u300e\x00\x1f\x20\x7e\x7f\x9f\xa0"
    "\u00ad\u200a\u200b\u200f\u2010\u2027\u2028\u202e\u202f\u205f\u2060\u206f\u2070\ufeff"
    "\ufff8\ufff9\ufffb\ufffc"
    "[]()`~ \t\n\u3000\u2003_-.!"
    "pokayrecalndfthsPOKAYRECALNDFTHS\u212a"
)
TEXT = st.text(alphabet=st.sampled_from(EDGES) | st.characters(), max_size=40)
WORDS = st.lists(
    st.sampled_from(
        ["pokayokay", "recall", "RECALL", "end", "of", "recalled", "notes", "reference", "data",
         "Reference", "po\u212aayokay", "-", "_", " ", "  ", ".", "]", "(", "x"]
    ),
    max_size=10,
).map("".join)  # fmt: skip


@settings(max_examples=400)
@given(TEXT)
def test_unsafe_is_the_pattern(text: str) -> None:
    assert block._unsafe(text) is bool(UNSAFE.search(text))


@settings(max_examples=300)
@given(WORDS | TEXT)
def test_fence_words_are_the_pattern(text: str) -> None:
    assert block._has_fence_words(text) is bool(FENCE_WORDS.search(text))


@settings(max_examples=300)
@given(st.text(alphabet=st.sampled_from("az09-_A.é") | st.characters(), max_size=34))
def test_label_check_is_the_pattern(label: str) -> None:
    assert block._label_ok(label) is bool(LABEL_OK.fullmatch(label))


def test_the_checks_see_what_they_must() -> None:
    """Not vacuous: each kind of unsafe text is caught, and a plain one is not."""
    for text in ("a <b", "see [x] (y)", "a ]\u3000( b", "``code", "~~~", "zero\u200bwidth",
                 "\u3008x\u3009"):  # fmt: skip
        assert block._unsafe(text), text
    assert not block._unsafe("a plain note [about] things (really) ~~ and ` ticks")
    assert block._has_fence_words("the END of recalled-notes")
    assert block._has_fence_words("PO\u212aAYOKAY recall")
    assert not block._has_fence_words("reference: the data")


def test_an_unsafe_trusted_note_is_sanitised_again() -> None:
    """A note the sources marked clean that holds a link still goes through the sanitiser."""
    doc = Document("a", "learning", "read [the docs](http://x.example) first", clean=True)
    shown = block.findings([Hit(doc, 0.9)])
    assert shown and "](" not in shown[0]
    plain = Document("b", "learning", "run make seed before the demo", clean=True, label="tools")
    expected = "- [0.90] learning, tools: run make seed before the demo"
    assert block.findings([Hit(plain, 0.9)]) == [expected]
