"""Adding a missing managed section never moves Claude's notes further down (README promise)."""

from __future__ import annotations

from datetime import date

from hypothesis import given
from hypothesis import strategies as st

from pokayokay.memory.curation import curate
from pokayokay.memory.sections import DEFAULT_SECTIONS, END_MARKER, Settings

TODAY = date(2026, 11, 25)
# Every missing section is added (empty ones too): the case where a new section could push notes.
KEEP_EMPTY = Settings(empty_sections=True)


def section(index: int) -> str:
    spec = DEFAULT_SECTIONS[index]
    return f"## {spec.title}\n{spec.marker_line}\n{END_MARKER}\n"


def note(n: int) -> str:
    return f"## Claude's heading {n}\n- NOTE-{n} written by Claude, kept where it is\n"


@st.composite
def memory_files(draw: st.DrawFn) -> str:
    present = draw(st.lists(st.sampled_from(range(len(DEFAULT_SECTIONS))), unique=True))
    parts = [section(i) for i in present]
    notes = draw(st.integers(min_value=1, max_value=4))
    for n in range(notes):
        parts.insert(draw(st.integers(min_value=0, max_value=len(parts))), note(n))
    return "# Memory\n\n" + "\n".join(parts)


def note_lines(text: str) -> dict[str, int]:
    return {
        line.split()[1]: number
        for number, line in enumerate(text.splitlines())
        if line.startswith("- NOTE-")
    }


@given(memory_files())
def test_notes_never_move_down(text: str) -> None:
    result = curate(text, KEEP_EMPTY, {}, TODAY)
    before, after = note_lines(text), note_lines(result.text)
    assert before.keys() == after.keys()
    for name, line in before.items():
        assert after[name] <= line, (name, text, result.text)
    assert all(f"## {spec.title}\n" in result.text for spec in DEFAULT_SECTIONS)


def test_the_reported_case_note_stays_on_its_line() -> None:
    text = (
        "# Memory\n\n## Key Decisions\n<!-- pokayokay: promoted from session handoffs -->\n"
        f"- 2026-11-01 use postgres\n{END_MARKER}\n\n## My notes\n- NOTE-X claude wrote this\n"
    )
    result = curate(text, KEEP_EMPTY, {}, TODAY)
    assert note_lines(result.text) == note_lines(text) == {"NOTE-X": 8}
    assert result.text.index("## Completed Work") > result.text.index("NOTE-X")
