"""MEMORY.md's structure lines are read by plain scans (``memory.structure.heading_parts``,
``marker_text``, ``is_end_marker``) so that a prompt right after Claude rewrote MEMORY.md
imports no ``re``; each gives exactly what the pattern it replaced gives (kept here as the
oracle), on generated lines made of what the patterns turn on (``#``, blanks, the markers,
``\\n`` and ``\\r``, unicode spaces) and on every line of the MEMORY.md fixtures in tests."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pokayokay.memory.structure import heading_parts, is_end_marker, marker_text

HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
MARKER = re.compile(r"^\s*<!--\s*pokayokay:(.*?)-->\s*$")
END_MARKER = re.compile(r"^\s*<!--\s*/pokayokay\s*-->\s*$")

PIECES = st.one_of(
    st.sampled_from(
        ["#", "##", "######", " ", "\t", "\n", "\r", "<!--", "-->", "->", "-", "pokayokay:",
         "/pokayokay", "pokayokay", "x", "Key Decisions", "\u00a0", "\u2028", "\x1c", "\u3000"]
    ),
    st.characters(),
)
LINES = st.lists(PIECES, max_size=14).map("".join)


def _check(line: str) -> None:
    heading = HEADING.match(line)
    assert heading_parts(line) == (None if heading is None else (heading[1], heading[2]))
    marker = MARKER.match(line)
    assert marker_text(line) == (None if marker is None else marker[1])
    assert is_end_marker(line) == (END_MARKER.match(line) is not None)


@settings(max_examples=1_000, deadline=None)
@given(LINES)
@example("## Key Decisions ##  \n")
@example("  <!-- pokayokay: a --> -->\n \n")
@example("<!--\n pokayokay:a\n-->")
@example("<!-- /pokayokay -->\u2028")
def test_the_scans_equal_the_patterns(line: str) -> None:
    _check(line)


@pytest.mark.slow
@settings(max_examples=1_500, deadline=None)
@given(LINES)
def test_the_scans_equal_the_patterns_many(line: str) -> None:
    _check(line)


def test_the_scans_equal_the_patterns_on_the_memory_files_in_tests() -> None:
    root = Path(__file__).resolve().parent.parent
    lines = {
        line
        for path in sorted(root.rglob("*.md"))
        for line in path.read_text("utf-8", errors="replace").splitlines(keepends=True)
    }
    assert len(lines) > 500
    for line in lines:
        _check(line)
        _check(line.rstrip("\r\n"))
