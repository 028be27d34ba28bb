"""SessionEnd curation, seen from the model: session 1 gets a truncated MEMORY.md, session 2 all
of Claude's notes."""

from __future__ import annotations

import pytest

from .conftest import E2E
from .memory_docs import (
    ALL_NOTES,
    LEADING_NOTES,
    MAX_LINES,
    SECTIONS,
    TRAILING_NOTES,
    TRUNCATION_WARNING,
    check_curated,
    line_count,
    over_budget_memory,
)
from .mock_api import text

pytestmark = pytest.mark.e2e

SESSION_START_CONTEXT = "SessionStart hook additional context"
OVERFLOW_NOTE = "pokayokay: MEMORY.md is"
REMEMBER_TIP = "Tip: Use `/remember <learning>` to capture insights."


def test_session_end_curation_makes_every_note_visible_next_session(e2e: E2E) -> None:
    e2e.init_pokayokay()
    doc = over_budget_memory()
    assert line_count(doc.text) > MAX_LINES
    memory = e2e.write_memory(doc.text)

    first = e2e.run_claude(e2e.project, "session one: start work", [[text("ONE-DONE")]])

    assert first.exit_code == 0, first.describe()
    assert first.result_event.get("result") == "ONE-DONE"
    seen_first = first.first_request.full_text
    # The client really truncates the uncurated file: the warning and the cut are visible ...
    assert f"Contents of {memory}" in seen_first
    assert TRUNCATION_WARNING in seen_first
    for note in TRAILING_NOTES:
        assert note not in seen_first
    # ... and pokayokay's SessionStart hook states the overflow as a factual note.
    assert SESSION_START_CONTEXT in seen_first, seen_first[-3000:]
    assert OVERFLOW_NOTE in seen_first and REMEMBER_TIP in seen_first

    curated = check_curated(memory, doc)

    second = e2e.run_claude(e2e.project, "session two: carry on", [[text("TWO-DONE")]])

    assert second.exit_code == 0, second.describe()
    assert second.result_event.get("result") == "TWO-DONE"
    seen_second = second.first_request.full_text
    assert f"Contents of {memory}" in seen_second
    assert TRUNCATION_WARNING not in seen_second
    missing = [note for note in ALL_NOTES if note not in seen_second]
    assert not missing, f"Claude's notes that did not reach the model: {missing}"
    assert all(note in seen_second for note in LEADING_NOTES)
    # Claude is told where the evicted entries went.
    for section in SECTIONS:
        if (memory.parent / section.archive).exists():
            assert f"]({section.archive})" in seen_second
    # Nothing is over the limit any more, so no SessionStart note about it: only the tip.
    assert OVERFLOW_NOTE not in seen_second
    assert REMEMBER_TIP in seen_second
    # Curating an already curated file changes nothing.
    assert memory.read_text(encoding="utf-8") == curated
