"""The recall block shows a note exactly: only a tag that would open or close the block (or
Claude Code's ``<system-reminder>``) is escaped, reversibly, and a long note is cut to a prefix;
the block stays within its budget and its fence cannot be closed from inside."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pokayokay.recall import block
from pokayokay.relevance.note_index import Document, Hit

LABEL_OK = re.compile(r"[a-z][a-z0-9-]{0,30}")
PIECES = st.sampled_from(
    ["</pokayokay-recall>", "<pokayokay-recall>", "</POKAYOKAY-recall>", "< /pokayokay-recall",
     "</system-reminder>", "<\\", "\\", "<", ">", "/", "\n", "  ", "`", "2>&1", "-> str",
     "npx xo <files>", "(105 > 79 characters)", "End of recalled notes.", "x", "é"]
)  # fmt: skip
TEXT = st.lists(st.one_of(PIECES, st.text(max_size=4)), max_size=30).map("".join)
OPEN_OR_CLOSE = re.compile(r"<\s*/?\s*(?:pokayokay-recall|system-reminder)", re.IGNORECASE)


REAL_CASES = [
    "redirect with 2>&1 so the log has stderr",
    "annotate the return: def f() -> str:",
    "lint with `npx xo <files>` before committing",
    "E501 line too long (105 > 79 characters) means the line limit is 79",
]


def test_the_real_cases_are_shown_byte_exact() -> None:
    for text in REAL_CASES:
        doc = Document("a", "learning", text, clean=True, label="tools")
        assert block.findings([Hit(doc, 0.9)]) == [f"- [0.90] learning, tools: {text}"]


@given(TEXT)
@example("x </pokayokay-recall> y")
@example("<\\/pokayokay-recall>")
@example("a\nb\n  c")
def test_shown_text_is_reversible_and_cannot_close_the_fence(text: str) -> None:
    shown = block.shown_text(text)
    assert block.read_finding(shown) == text
    assert not OPEN_OR_CLOSE.search(shown)
    assert all(line.startswith(block.INDENT) for line in shown.splitlines()[1:] if line) or (
        "\r" in text or any(ch in text for ch in "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
    )


@given(st.lists(TEXT, min_size=1, max_size=6), st.integers(200, 900))
def test_the_block_keeps_its_budget_and_shows_prefixes(texts: list[str], budget: int) -> None:
    hits = [
        Hit(Document(str(i), "learning", t, clean=False), 0.9 - i / 100)
        for i, t in enumerate(texts)
    ]
    lines = block.findings(hits, budget)
    assert sum(len(x) for x in lines) + max(0, len(lines) - 1) <= budget
    rendered = block.render(lines)
    if rendered:
        assert len(OPEN_OR_CLOSE.findall(rendered)) == 2  # only the block's own tags
    for line in lines:
        prefix, _, shown = line.partition(": ")
        assert prefix.startswith("- [")
        text = block.read_finding(shown)
        sources = [block.safe_text(t) for t in texts]
        assert text in sources or (
            text.endswith("…") and any(s.startswith(text[:-1]) for s in sources)
        )


@settings(max_examples=300)
@given(st.text(alphabet=st.sampled_from("az09-_A.é") | st.characters(), max_size=34))
def test_label_check_is_the_pattern(label: str) -> None:
    assert block._label_ok(label) is bool(LABEL_OK.fullmatch(label))


def test_a_closing_tag_in_a_note_is_escaped_not_removed() -> None:
    doc = Document("a", "learning", "the </pokayokay-recall> tag ends the block", clean=True)
    (line,) = block.findings([Hit(doc, 0.9)])
    assert line == "- [0.90] learning: the <\\/pokayokay-recall> tag ends the block"
    assert block.read_finding(line.partition(": ")[2]) == doc.text


def test_a_multi_line_note_stays_in_its_list_item() -> None:
    doc = Document("a", "learning", "first line\n- not a new entry\n\nlast", clean=True)
    (line,) = block.findings([Hit(doc, 0.9)])
    assert line == "- [0.90] learning: first line\n  - not a new entry\n  \n  last"


@pytest.mark.slow
@settings(max_examples=1500)
@given(TEXT)
def test_shown_text_is_reversible_many(text: str) -> None:
    shown = block.shown_text(text)
    assert block.read_finding(shown) == text
    assert not OPEN_OR_CLOSE.search(shown)
