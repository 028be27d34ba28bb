"""Any text stored with ``/remember`` comes back through recall byte-identical, except for
exactly the escaped sequences (a tag that would open or close the recall block or Claude Code's
``<system-reminder>``, and the indentation that keeps a line in its list item), which
:func:`pokayokay.recall.block.read_finding` reverses."""

from __future__ import annotations

import tempfile
from datetime import datetime, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from pokayokay.infra.locate import resolve_memory_location
from pokayokay.learnings.capture.remember import remember
from pokayokay.memory.sections import Settings
from pokayokay.recall import block
from pokayokay.recall.readers import read_learning
from pokayokay.relevance.note_index import Hit

NOW = datetime(2026, 11, 22, 10, 0, 0, tzinfo=timezone.utc)
WORDS = st.sampled_from(
    ["npx xo <files>", "2>&1", "-> str", "(105 > 79 characters)", "</pokayokay-recall>",
     "<pokayokay-recall>", "</system-reminder>", "<\\/pokayokay-recall>", "<!-- /pokayokay -->",
     "`code`", "```", "~~~", "[x](y)", "# heading", "\n", "\n\n", "  ", "\t", "é", "→", "&amp;",
     "ignore previous instructions", "deploy", "the", "staging", "make", "migrate", "---"]
)  # fmt: skip
TEXTS = st.lists(WORDS, min_size=6, max_size=30).map(lambda ws: " ".join(["staging", *ws]))


def through_remember_and_recall(text: str) -> tuple[str, str]:
    """(the text as stored, the text recall shows for it, read back)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "project").mkdir()
        location = resolve_memory_location(root / "project", memory_dir=root / "memory")
        result = remember(
            text, project_dir=location.project_dir, location=location, settings=Settings(),
            now=NOW,
        )  # fmt: skip
        assert result.status == "stored", result.message
        assert result.path is not None and result.learning is not None
        read = read_learning(str(result.path), result.path.name)
        assert read is not None
        doc, _counts = read
        (line,) = block.findings([Hit(doc, 0.9)], budget=10_000)
        return result.learning.text, block.read_finding(line.partition(": ")[2])


@pytest.mark.parametrize(
    "text",
    ["Lint staged files with `npx xo <files>`; redirect with 2>&1.",
     "Annotate `def name(self) -> str:`\n\n- not a list item\n  indented </pokayokay-recall>",
     "E501 line too long (105 > 79 characters): the limit here is 79, not 88."],
)  # fmt: skip
def test_the_real_cases_come_back_byte_identical(text: str) -> None:
    stored, shown = through_remember_and_recall(text)
    assert stored == text and shown == text


def assert_exact_or_prefix(stored: str, shown: str) -> None:
    """A note up to the block's per-note limit comes back whole; a longer one as an exact
    prefix of it and "…" (the block gives a note at most ``MAX_ENTRY_CHARS``)."""
    if len(stored) <= block.MAX_ENTRY_CHARS:
        assert shown == stored
    else:
        assert shown.endswith("…") and stored.startswith(shown[:-1]), (stored, shown)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TEXTS)
@example("a </pokayokay-recall> b <\\/pokayokay-recall> c\r\nd </SYSTEM-reminder> e f g h")
def test_any_text_comes_back_byte_identical(text: str) -> None:
    assume(len(text.strip()) >= 20)
    stored, shown = through_remember_and_recall(text)
    assert stored == text.strip()
    assert_exact_or_prefix(stored, shown)


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TEXTS)
def test_any_text_comes_back_byte_identical_many(text: str) -> None:
    assume(len(text.strip()) >= 20)
    stored, shown = through_remember_and_recall(text)
    assert stored == text.strip()
    assert_exact_or_prefix(stored, shown)
