"""Exact quoting: code spans and fenced blocks show their text unchanged (checked against a
CommonMark renderer written for these two constructs only, from the spec's rules), and the
structure escapes change exactly the sequences they name and are reversed by their inverse."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pokayokay.safety.exact import (
    CONTEXT_WRAPPER,
    code_span,
    escape,
    escape_markers,
    escape_tags,
    fenced_block,
    unescape,
)

TAGS = ("pokayokay-recall", CONTEXT_WRAPPER)

# Text rich in the characters that matter: backticks, spaces, angle brackets, slashes,
# backslashes, comment openers and the tag names themselves.
PIECES = st.sampled_from(
    ["`", "``", " ", "<", ">", "/", "\\", "<!--", "-->", "pokayokay", "-recall", "Pokayokay-Recall",
     "system-reminder", "</", "2>&1", "-> str", "\t", "x", "é", "\n"]
)  # fmt: skip
RICH = st.lists(st.one_of(PIECES, st.text(max_size=3)), max_size=24).map("".join)


def read_code_span(span: str) -> str:
    """What CommonMark renders for one code span: the content between equal backtick runs,
    one space stripped from each side when both sides have one and it is not all spaces."""
    run = len(span) - len(span.lstrip("`"))
    assert span.endswith("`" * run) and not span[:-run].endswith("`" * (run + 1))
    inner = span[run:-run]
    assert "`" * run not in inner.replace("`" * (run + 1), "")  # no run of that length inside
    if inner.startswith(" ") and inner.endswith(" ") and inner.strip(" "):
        inner = inner[1:-1]
    return inner


def runs(text: str) -> set[int]:
    out, n = set(), 0
    for ch in text + "x":
        if ch == "`":
            n += 1
        elif n:
            out.add(n)
            n = 0
    return out


@given(st.text().filter(lambda t: "\n" not in t and "\r" not in t))
@example("`")
@example(" `x` ")
@example("  ")
@example(" a ")
@example("a``b")
def test_code_span_shows_the_text_exactly(text: str) -> None:
    span = code_span(text)
    fence = len(span) - len(span.lstrip("`"))
    assert fence not in runs(span[fence:-fence])  # nothing inside closes it
    assert read_code_span(span) == text


def test_code_span_refuses_a_line_break() -> None:
    with pytest.raises(ValueError):
        code_span("a\nb")


@given(st.text())
@example("```\nx\n```")
def test_fenced_block_keeps_every_line(text: str) -> None:
    block = fenced_block(text, "text")
    first, *rest = block.split("\n")
    fence = first.removesuffix("text")
    assert set(fence) == {"`"} and len(fence) >= 3
    assert rest[-1] == fence
    body = "\n".join(rest[:-1])
    assert body == text.removesuffix("\n") or (body + "\n") == text
    for line in rest[:-1]:  # no line inside closes the fence
        assert not line.strip().startswith(fence)


@given(RICH)
@example("</pokayokay-recall>")
@example("<\\/pokayokay-recall>")
@example("< / POKAYOKAY-RECALL>")
@example("</system-reminder>")
@example("<!-- /pokayokay -->")
@example("<!--\\ pokayokay: x -->")
def test_escaping_is_reversible(text: str) -> None:
    check_reversible(text)


def check_reversible(text: str) -> None:
    escaped = escape(text, TAGS)
    assert unescape(escaped, TAGS) == text
    for name in TAGS:
        assert f"</{name}" not in escaped.lower()


@given(RICH)
def test_escaped_text_has_no_structure_sequence(text: str) -> None:
    escaped = escape(text, TAGS).lower()
    for name in TAGS:
        assert f"<{name}" not in escaped and f"</{name}" not in escaped
        assert f"< /{name}" not in escaped
    assert "<!-- pokayokay" not in escaped and "<!-- /pokayokay" not in escaped
    assert "<!--pokayokay" not in escaped


@given(RICH)
def test_escaping_adds_only_backslashes_at_the_sequences(text: str) -> None:
    escaped = escape(text, TAGS)
    # Removing the added backslashes gives the text back: every other character is kept.
    assert len(escaped) >= len(text)
    i = j = 0
    while i < len(text):
        if escaped[j] == text[i]:
            i, j = i + 1, j + 1
        else:
            assert escaped[j] == "\\"
            j += 1
    assert set(escaped[j:]) <= {"\\"}


@pytest.mark.parametrize(
    "text",
    ["2>&1", "-> str", "npx xo <files>", "E501 line too long (105 > 79 characters)",
     "<div>ok</div>", "a <!-- note --> b", "pokayokay-recall without a bracket"],
)  # fmt: skip
def test_ordinary_text_is_untouched(text: str) -> None:
    assert escape(text, TAGS) == text


def test_the_documented_escapes() -> None:
    assert escape_tags("x </pokayokay-recall> y", TAGS) == "x <\\/pokayokay-recall> y"
    assert escape_tags("<system-reminder>", TAGS) == "<\\system-reminder>"
    assert escape_tags("<\\/pokayokay-recall>", TAGS) == "<\\\\/pokayokay-recall>"
    assert escape_markers("<!-- /pokayokay -->") == "<!--\\ /pokayokay -->"
    assert escape_markers("<!-- pokayokay: id -->") == "<!--\\ pokayokay: id -->"


@settings(max_examples=3000)
@given(RICH)
@pytest.mark.slow
def test_escaping_is_reversible_many(text: str) -> None:
    check_reversible(text)
