"""Property tests: for any MEMORY.md, curation loses no line, leaves Claude's text alone, is
idempotent and meets the budgets (or says why it cannot)."""

from __future__ import annotations

import dataclasses
from collections import Counter
from datetime import date

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pokayokay.memory import invariants
from pokayokay.memory.curation import curate
from pokayokay.memory.document import (
    Document,
    Section,
    Text,
    is_blank,
    parse,
    same_unmanaged,
    split_lines,
    strip_eol,
    units_lines,
)
from pokayokay.memory.sections import DEFAULT_SECTIONS, END_MARKER, Settings

TODAY = date(2026, 11, 22)

words = st.text(
    alphabet=st.characters(codec="utf-8", exclude_characters="\r\n\x00", min_codepoint=32),
    min_size=1,
    max_size=30,
).filter(lambda s: s.strip() != "")
dates = st.dates(min_value=date(2024, 1, 1), max_value=date(2026, 12, 31))


@st.composite
def entry(draw: st.DrawFn) -> str:
    head = draw(words)
    if draw(st.booleans()):
        head = f"{draw(dates).isoformat()} {head}"
    lines = [f"{draw(st.sampled_from(['-', '*', '+']))} {head}"]
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["indent", "nested", "blank-indent", "lazy"]))
        text = draw(words).lstrip("#")
        if kind == "indent":
            lines.append(f"  {text}")
        elif kind == "nested":
            lines.append(f"  - {text}")
        elif kind == "blank-indent":
            lines += ["", f"    {text}"]
        else:
            lines.append(text if text.strip() else "x")
    return "\n".join(lines)


@st.composite
def section(draw: st.DrawFn) -> str:
    spec = draw(st.sampled_from(DEFAULT_SECTIONS))
    parts = [f"## {spec.title}"]
    parts += [""] * draw(st.integers(0, 1))
    parts.append(spec.marker_line)
    body = draw(
        st.lists(
            st.one_of(
                entry(),
                entry(),
                entry(),
                st.just(""),
                words.map(lambda w: f"prose {w}"),
                st.just("```\n## fenced\n- fenced\n```"),
            ),
            max_size=25,
        )
    )
    parts += body
    if draw(st.booleans()):
        parts.append(END_MARKER)
    return "\n".join(parts)


claude_chunk = st.one_of(
    words.map(lambda w: f"- [{w}](topic.md) — a note"),
    words.map(lambda w: f"## {w}"),
    words.map(lambda w: f"# {w}"),
    words,
    st.just(""),
    st.just("<!-- pokayokay: orphan marker -->"),
    st.just(END_MARKER),
    st.just("```\n## Key Decisions\n<!-- pokayokay: inside a fence -->\n```"),
)


@st.composite
def memory_text(draw: st.DrawFn) -> str:
    chunks = draw(st.lists(st.one_of(claude_chunk, section()), max_size=14))
    text = "\n".join(chunks)
    if draw(st.booleans()):
        text += "\n"
    if draw(st.integers(0, 4)) == 0:
        text = text.replace("\n", "\r\n")
    return text


@st.composite
def small_budgets(draw: st.DrawFn) -> Settings:
    specs = tuple(
        dataclasses.replace(
            spec,
            budget=draw(st.integers(1, 12)),
            max_entries=draw(st.one_of(st.none(), st.integers(1, 5))),
        )
        for spec in DEFAULT_SECTIONS
    )
    return Settings(
        sections=specs,
        max_lines=draw(st.integers(20, 200)),
        max_bytes=draw(st.integers(800, 25_000)),
    )


PROPS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPS
@given(memory_text())
def test_parse_render_round_trip(text: str) -> None:
    assert parse(text, DEFAULT_SECTIONS).render() == text


@PROPS
@given(memory_text(), small_budgets())
def test_invariants_hold(text: str, config: Settings) -> None:
    result = curate(text, config, {}, TODAY)
    invariants.check(result, config, {}, TODAY)  # raises on any violation


@PROPS
@given(memory_text(), small_budgets())
def test_no_line_lost(text: str, config: Settings) -> None:
    result = curate(text, config, {}, TODAY)
    old_doc = parse(text, config.sections)
    structure = Counter(
        strip_eol(line) for sec in old_doc.sections() for line in sec.structure_lines()
    )
    kept = Counter(strip_eol(x) for x in split_lines(result.text) if not is_blank(x))
    for archive in result.archives.values():
        kept.update(strip_eol(x) for x in split_lines(archive) if not is_blank(x))
    before = Counter(strip_eol(x) for x in split_lines(text) if not is_blank(x))
    assert not (before - kept - structure)


@PROPS
@given(memory_text(), small_budgets())
def test_unmanaged_text_identical(text: str, config: Settings) -> None:
    result = curate(text, config, {}, TODAY)
    before = parse(text, config.sections)
    after = parse(result.text, config.sections)
    assert same_unmanaged(before, after)
    # Independently of that helper: every non-blank line outside the sections, in order.
    old_lines = [strip_eol(x) for x in _text_lines(before) if not is_blank(x)]
    new_lines = [strip_eol(x) for x in _text_lines(after) if not is_blank(x)]
    assert old_lines == new_lines


def _text_lines(doc: Document) -> list[str]:
    return [x for seg in doc.segments if isinstance(seg, Text) for x in seg.lines]


@PROPS
@given(memory_text(), small_budgets())
def test_curating_twice_is_curating_once(text: str, config: Settings) -> None:
    once = curate(text, config, {}, TODAY)
    twice = curate(once.text, config, once.archives, TODAY)
    assert twice.text == once.text
    assert not twice.archives
    assert not twice.moves


@PROPS
@given(memory_text(), small_budgets())
def test_budgets_met_or_explained(text: str, config: Settings) -> None:
    result = curate(text, config, {}, TODAY)
    for stat in result.after.sections:
        if stat.over:
            assert any(note.startswith(f"{stat.title} is ") for note in result.notes), stat
    if result.after.over:
        # Only what archiving cannot move may hold the file over the limit: curation says so,
        # and archives nothing for the whole file (it would cost loaded entries for no gain).
        assert any("over Claude Code's load limit" in note for note in result.notes)
        assert not [m for m in result.moves if m.reason == "whole file"]


@PROPS
@given(memory_text())
def test_parse_without_entries_finds_the_same_segments(text: str) -> None:
    """SessionStart's note reads where the managed sections are without reading their entries:
    the same segments (Claude's text line for line, the same sections), the same problems and
    the same rendered text as the full parse."""
    full = parse(text, DEFAULT_SECTIONS)
    quick = parse(text, DEFAULT_SECTIONS, entries=False)
    assert quick.render() == text
    assert quick.problems == full.problems and quick.unmarked == full.unmarked
    assert len(quick.segments) == len(full.segments)
    for a, b in zip(quick.segments, full.segments, strict=True):
        assert type(a) is type(b)
        if isinstance(a, Text):
            assert a.lines == b.lines  # type: ignore[union-attr]
        else:
            assert isinstance(b, Section)
            assert (a.spec, a.lead, a.heading, a.end) == (b.spec, b.lead, b.heading, b.end)
            assert [x for u in a.units for x in u.lines] == [x for u in b.units for x in u.lines]


@PROPS
@given(memory_text())
def test_units_lines_counts_up_to_the_last_written_line(text: str) -> None:
    """A section's size (what its budget measures, for curation and graduation alike) is its
    units' lines up to the last line that is not blank: trailing blank lines never count, and a
    line anywhere before the last written one always does."""
    for section in parse(text, DEFAULT_SECTIONS).sections():
        lines = [line for unit in section.units for line in unit.lines]
        size = units_lines(section.units)
        assert 0 <= size <= len(lines)
        assert all(is_blank(line) for line in lines[size:])
        assert size == 0 or not is_blank(lines[size - 1])


@PROPS
@given(memory_text(), small_budgets(), st.booleans(), st.booleans())
def test_a_result_is_checked_with_the_options_it_was_curated_with(
    text: str, config: Settings, evict: bool, keep_empty: bool
) -> None:
    """``init``'s structure pass (``evict=False, keep_empty=True``) and every other call: the
    result carries its options and the invariant check curates again with exactly those, so a
    structure-only result is never held to a full curation's idempotence (and the reverse)."""
    result = curate(text, config, {}, TODAY, evict=evict, keep_empty=keep_empty)
    assert (result.evict, result.keep_empty, result.droppable) == (evict, keep_empty, ())
    invariants.check(result, config, {}, TODAY)


def test_a_merged_copy_of_a_section_is_grouped_as_a_second_run_reads_it() -> None:
    """A section written twice, the copy ending in a code fence (found by a drawn seed in CI):
    merged, the fence lines follow the first copy's entry after a blank line, which the written
    file's parse makes part of that entry. The first run's cut saw them as prose it could not
    move and archived nothing, the second run archived the entry: curating twice was not
    curating once."""
    text = (
        "\r\n\r\n\r\n## Key Decisions\r\n<!-- pokayokay: promoted from session handoffs -->\r\n"
        "- 0\r\n```\r\n## fenced\r\n- fenced\r\n```\r\n- 0\r\n```\r\n## Key Decisions\r\n"
        "<!-- pokayokay: inside a fence -->\r\n```"
    )
    budgets = {"completed_work": 1, "key_decisions": 6}
    specs = tuple(
        dataclasses.replace(spec, budget=budgets.get(spec.id, 1)) for spec in DEFAULT_SECTIONS
    )
    config = Settings(sections=specs, max_lines=20, max_bytes=800)
    result = curate(text, config, {}, TODAY, keep_empty=True)
    assert not result.after.over
    assert [m.reason for m in result.moves] == ["whole file"]
    invariants.check(result, config, {}, TODAY)


def test_a_cr_only_file_is_curated_with_the_options_given() -> None:
    """A MEMORY.md with CR-only line endings is curated like its line-feed twin, ``keep_empty``
    included (it used to be dropped, so the structure pass took new sections out again)."""
    text = "# Project\n\nnotes Claude wrote\n"
    for keep_empty in (False, True):
        lf = curate(text, Settings(), {}, TODAY, evict=False, keep_empty=keep_empty)
        cr = curate(
            text.replace("\n", "\r"), Settings(), {}, TODAY, evict=False, keep_empty=keep_empty
        )
        assert cr.text == lf.text.replace("\n", "\r")
        assert (cr.evict, cr.keep_empty) == (False, keep_empty)
        assert len(lf.added_sections) == len(cr.added_sections)
        invariants.check(cr, Settings(), {}, TODAY)
    assert curate(text, Settings(), {}, TODAY, evict=False, keep_empty=True).added_sections
