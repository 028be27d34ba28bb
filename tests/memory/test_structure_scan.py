"""``memory.structure.section_body`` (the scan recall reads Key Decisions with, no document model
and no CommonMark) finds exactly the body ``memory.document.parse`` gives the section, on
generated MEMORY.md texts: managed and unknown sections, duplicates, fences (closed or not,
hiding headings and markers), end markers or none, CRLF, blank leads."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pokayokay.memory.document import parse
from pokayokay.memory.sections import DEFAULT_SECTIONS
from pokayokay.memory.structure import section_body
from pokayokay.recall.readers import DEFAULT_DECISIONS_ARCHIVE, DEFAULT_DECISIONS_TITLE

MARKER = "<!-- pokayokay: managed -->"
LINES = st.sampled_from(
    [
        "",
        "   ",
        "- 2026-01-12: Invoices are immutable once sent.",
        "  continued on an indented line",
        "* another bullet",
        "1. a numbered item",
        "plain prose",
        "```",
        "~~~",
        "```python",
        "# Memory",
        "## Key Decisions",
        "##  key   decisions  ##",
        "## Completed Work",
        "## Not A Section",
        "### Key Decisions",
        "#Key Decisions",
        MARKER,
        "  <!-- pokayokay: indented -->",
        "<!-- /pokayokay -->",
        "<!-- a comment -->",
        "> - quoted bullet",
        "##Key Decisions",
        "## Key Decisions ##",
        " ## Key Decisions",
        "\t",
        "\u00a0",
        "#",
        "##",
        "text <!-- pokayokay: inline -->",
        "# heading <!-- pokayokay: managed -->",
        "<!-- /pokayokay --> trailing",
        "    ```",
        "``` with `tick`",
        "\r",
    ]
)


def _text(lines: list[str], crlf: bool, last_newline: bool) -> str:
    eol = "\r\n" if crlf else "\n"
    text = eol.join(lines)
    return text + eol if last_newline and lines else text


def _check(lines: list[str], crlf: bool, last_newline: bool) -> None:
    text = _text(lines, crlf, last_newline)
    document = parse(text, DEFAULT_SECTIONS)
    for spec in DEFAULT_SECTIONS:
        section = document.section(spec.id)
        expected = None if section is None else section.body_lines
        assert section_body(text, spec.title) == expected


@given(lines=st.lists(LINES, max_size=40), crlf=st.booleans(), last_newline=st.booleans())
@settings(max_examples=300, deadline=None)
def test_the_scan_finds_the_body_parse_finds(
    lines: list[str], crlf: bool, last_newline: bool
) -> None:
    _check(lines, crlf, last_newline)


@pytest.mark.slow
@given(lines=st.lists(LINES, max_size=80), crlf=st.booleans(), last_newline=st.booleans())
@settings(max_examples=2500, deadline=None)
def test_the_scan_finds_the_body_parse_finds_many(
    lines: list[str], crlf: bool, last_newline: bool
) -> None:
    _check(lines, crlf, last_newline)


def test_recall_reads_the_default_key_decisions_title_and_archive() -> None:
    spec = next(s for s in DEFAULT_SECTIONS if s.id == "key_decisions")
    assert (spec.title, spec.archive) == (DEFAULT_DECISIONS_TITLE, DEFAULT_DECISIONS_ARCHIVE)
