"""Code fences never cross a managed-section boundary: markers and column-0 headings are
structure whatever fences surround them, and a fence in Claude's text never blocks curation.

Checked against :mod:`pokayokay.memory.oracle`, which locates Claude's text by marker positions
alone (no fence tracking), and by a Hypothesis run over fence- and marker-bearing files."""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from datetime import date

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pokayokay.errors import InvariantViolation
from pokayokay.infra.markdown import fence_opening
from pokayokay.memory import invariants, oracle
from pokayokay.memory.curation import curate
from pokayokay.memory.document import parse
from pokayokay.memory.sections import DEFAULT_SECTIONS, END_MARKER, Settings

TODAY = date(2026, 11, 22)
KEY = next(s for s in DEFAULT_SECTIONS if s.id == "key_decisions")


def _template(body: dict[str, list[str]]) -> list[str]:
    out = ["# Project memory", ""]
    for spec in DEFAULT_SECTIONS:
        out += [f"## {spec.title}", spec.marker_line, *body.get(spec.id, []), END_MARKER, ""]
    return out


def _lost(before: str, result_text: str, archives: dict[str, str]) -> int:
    """Non-blank lines of ``before`` found neither in MEMORY.md nor in an archive (markers and
    the headings of managed sections, pokayokay's own structure, aside: a duplicate section is
    merged into the first)."""
    have = Counter(x for x in oracle.lines_of(result_text) if x.strip())
    for text in archives.values():
        have.update(x for x in oracle.lines_of(text) if x.strip())
    titles = {f"## {spec.title}" for spec in DEFAULT_SECTIONS}
    want = Counter(
        x
        for x in oracle.lines_of(before)
        if x.strip() and not x.lstrip().startswith("<!--") and x not in titles
    )
    return sum((want - have).values())


@pytest.mark.parametrize("where", [0, 5])
def test_unclosed_fence_in_an_entry_cannot_swallow_the_rest_of_the_file(where: int) -> None:
    """The reproduction of the issue: an entry (the oldest one, or a later one) opens ``` and
    never closes it. Key Decisions is 3 lines over its budget of 40, and Claude's own sections
    follow. CommonMark ends that fence with its list item: the next bullets are entries, so only
    the lines over budget go (the oldest entry once held all 41 and archived them all)."""
    decisions = [f"- 2026-{1 + i // 28:02d}-{1 + i % 28:02d} decided thing {i}" for i in range(41)]
    decisions[where] += "\n  ```bash\n  uv run pytest -q"  # the fence is never closed
    body = {"key_decisions": "\n".join(decisions).split("\n")}
    claude = [
        "## Build notes",
        "- the release job needs `make dist` first",
        "- staging deploys from the `release/*` branches",
    ]
    text = "\n".join(_template(body) + claude) + "\n"
    before = parse(text, DEFAULT_SECTIONS).section("key_decisions")
    assert before is not None and len(before.entries) == 41
    result = curate(text, Settings(), {}, TODAY)
    invariants.check(result, Settings(), {}, TODAY)

    assert oracle.claude_lines(result.text)[-3:] == claude
    assert [x for x in claude if x in result.text.splitlines()] == claude
    archived = result.archives[KEY.archive]
    # 41 entries + 2 lines of fence over a budget of 40: the oldest entry goes when it holds
    # the fence (3 lines), else the 3 oldest one-line entries; the rest stay.
    gone = 1 if where == 0 else 3
    assert archived.count("decided thing") == gone
    assert result.text.count("decided thing") == 41 - gone
    assert ("uv run pytest" in archived) == (where == 0)
    assert "Build notes" not in archived
    assert "## Topic Index" in result.text
    # The fence ended with its item: nothing to close, no line added.
    assert not any("code fence left open" in note for note in result.notes)
    assert _lost(text, result.text, result.archives) == 0


def test_a_column_0_fence_left_open_is_code_to_the_end_of_the_section() -> None:
    """A fence at column 0 is no part of a list item: CommonMark runs it to the end of the
    section, so the bullets below it are code, not entries, and the section gets its closing
    line (so an entry added later is not code)."""
    body = {"key_decisions": ["- 2026-01-01 first", "```", "- 2026-01-02 in the fence"]}
    text = "\n".join(_template(body)) + "\n"
    sec = parse(text, DEFAULT_SECTIONS).section("key_decisions")
    assert sec is not None and len(sec.entries) == 1
    result = curate(text, Settings(), {}, TODAY)
    assert any("code fence left open" in note for note in result.notes)
    assert "- 2026-01-02 in the fence\n```\n" + END_MARKER in result.text


def test_three_backticks_in_claudes_notes_do_not_block_curation() -> None:
    """A lone ``` among Claude's notes used to fence every section below it: refused, exit 4."""
    body = {"completed_work": [f"- 2026-11-{d:02d} shipped step {d}" for d in range(1, 26)]}
    lines = ["# Project memory", "", "Paste from the terminal:", "```", "", *_template(body)[2:]]
    text = "\n".join(lines) + "\n"
    result = curate(text, Settings(), {}, TODAY)
    invariants.check(result, Settings(), {}, TODAY)  # does not raise
    assert result.archives["completed-work-archive.md"].count("shipped step") == 5
    assert oracle.claude_lines(result.text)[:3] == [
        "# Project memory",
        "Paste from the terminal:",
        "```",
    ]


def test_a_heading_inside_a_fence_in_a_section_is_structure() -> None:
    """``## `` at column 0 ends a section even inside a fence: the lines after it are Claude's
    and stay where they are; the section gets its end marker before the heading."""
    text = "\n".join(
        [
            "## Key Decisions",
            KEY.marker_line,
            "- 2026-11-01 use the markdown template:",
            "  ```markdown",
            "## Example",
            "  ```",
            "- 2026-11-02 not an entry any more",
            END_MARKER,
            "",
        ]
    )
    result = curate(text, Settings(), {}, TODAY)
    invariants.check(result, Settings(), {}, TODAY)
    lines = result.text.splitlines()
    assert lines.index(END_MARKER) < lines.index("## Example")
    assert "- 2026-11-02 not an entry any more" in oracle.claude_lines(result.text)
    again = curate(result.text, Settings(), {}, TODAY)
    assert again.text == result.text


def test_cr_only_line_endings_are_curated_and_kept() -> None:
    body = {"completed_work": [f"- 2026-11-{d:02d} shipped step {d}" for d in range(1, 26)]}
    text = "\r".join([*_template(body), "Claude's own line"]) + "\r"
    result = curate(text, Settings(), {}, TODAY)
    invariants.check(result, Settings(), {}, TODAY)
    assert "\n" not in result.text and "\n" not in result.archives["completed-work-archive.md"]
    assert result.text.endswith("Claude's own line\r")
    assert result.archives["completed-work-archive.md"].count("shipped step") == 5
    assert result.text.count("shipped step") == 20
    assert curate(result.text, Settings(), result.archives, TODAY).changed is False


def test_oracle_catches_what_a_parser_bug_would_hide() -> None:
    """The oracle shares no code with the parser: Claude's text moved into an archive is caught
    even when the parser's own view says all is well."""
    before = "## Key Decisions\n" + KEY.marker_line + "\n- a\n" + END_MARKER + "\n## Mine\n- keep\n"
    after = "## Key Decisions\n" + KEY.marker_line + "\n- a\n" + END_MARKER + "\n"
    found = oracle.problems(before, after, {}, {"decisions-archive.md": "## Mine\n- keep\n"})
    assert found == ["curation would change or move Claude's text outside the managed sections"]
    found = oracle.problems(before, after, {}, {})
    assert any("would lose 1 line(s)" in x for x in found)
    assert oracle.problems(before, before, {}, {}) == []


# --- the property run ---------------------------------------------------------------------------
#
# A file is built from one drawn byte string, read as a sequence of choices (a small grammar of
# chunks): one draw per example keeps 10,000 examples within seconds, and Hypothesis shrinks a
# failure by shortening and zeroing bytes, which gives shorter, plainer files.

WORDS = [
    "use uv for every install",
    "the API returns 429 under load",
    "`pytest -q` runs in 40 s",
    "never mock the database",
    "see ``inline `code` here``",
    "a ~~struck~~ idea",
    "Ünïcödé — notes ✓",
    "日本語のメモ",
    "undecodable \udcff\udcfe bytes",
    "trailing spaces   ",
    "> quoted reply",
    "| table | row |",
    "1. numbered step",
    "    four-space indented code",
    "\tTab-indented line",
    "x",
]
# Everything a fence line can look like: openers of both kinds and lengths, with info strings,
# indented by spaces (a fence) or by a tab or four spaces (not one), closers with trailing
# blanks, and inline code that is no fence.
FENCES = [
    "```",
    "~~~",
    "````",
    "```python",
    "~~~ yaml",
    "  ```",
    "   ~~~~",
    "\t```",
    "    ```",
    "```a`b",
    "``",
    "```   ",
    "~~~~~~",
]
STRUCTURE = [
    "## Key Decisions\n<!-- pokayokay: promoted from session handoffs -->",
    "## Completed Work\n<!-- pokayokay: managed by session hooks -->",
    END_MARKER,
    "<!-- pokayokay: orphan marker -->",
    "## Notes from a code block",
    "# A title in a code block",
    "### deep heading",
]


class _Choices:
    def __init__(self, data: bytes) -> None:
        self.data, self.at = data, 0

    def __bool__(self) -> bool:
        return self.at < len(self.data)

    def pick(self, n: int) -> int:
        byte = self.data[self.at] if self.at < len(self.data) else 0
        self.at += 1
        return byte % n

    def item(self, items: list[str]) -> str:
        return items[self.pick(len(items))]


def _fenced_block(c: _Choices, indent: str = "") -> list[str]:
    opener = c.item(FENCES)
    lines = [indent + opener]
    for _ in range(c.pick(4)):
        kind = c.pick(3)
        inner = c.item(WORDS if kind == 0 else STRUCTURE if kind == 1 else FENCES)
        lines.append((indent if c.pick(2) else "") + inner)
    if c.pick(4):  # mostly closed, sometimes left open
        lines.append(indent + opener.strip().split(" ")[0].replace("python", ""))
    return lines


def _entry(c: _Choices) -> list[str]:
    day = date(2025, 1, 1).toordinal() + c.pick(256) * 3
    head = (
        f"- {date.fromordinal(day).isoformat()} {c.item(WORDS)}"
        if c.pick(2)
        else "- " + c.item(WORDS)
    )
    lines = [head]
    for _ in range(c.pick(3)):
        kind = c.pick(4)
        if kind == 0:
            lines.append("  " + c.item(WORDS))
        elif kind == 1:
            lines += _fenced_block(c, "  ")
        elif kind == 2:
            lines += _fenced_block(c)
        else:
            lines.append(c.item(FENCES))
    return lines


def _section(c: _Choices) -> list[str]:
    spec = DEFAULT_SECTIONS[c.pick(len(DEFAULT_SECTIONS))]
    lines = [f"## {spec.title}", *[""] * c.pick(2), spec.marker_line]
    for _ in range(c.pick(10)):
        kind = c.pick(6)
        if kind <= 2:
            lines += _entry(c)
        elif kind == 3:
            lines.append("")
        elif kind == 4:
            lines += _fenced_block(c)
        else:
            lines.append(c.item(STRUCTURE))
    if c.pick(5):
        lines.append(END_MARKER)
    return lines


def _claude_chunk(c: _Choices) -> list[str]:
    kind = c.pick(8)
    if kind == 0:
        return [c.item(WORDS)]
    if kind in (1, 2, 3):
        return [("## ", "# ", "- ")[kind - 1] + c.item(WORDS)]
    if kind == 4:
        return [""]
    if kind == 5:
        return [c.item(FENCES)]
    if kind == 6:
        return _fenced_block(c)
    return [c.item(STRUCTURE)]


def build_memory_file(data: bytes) -> tuple[str, Settings]:
    """MEMORY.md text and settings (small budgets, so curation moves entries) from ``data``."""
    c = _Choices(data)
    newline = ("\n", "\n", "\r\n", "\r")[c.pick(4)]
    specs = tuple(dataclasses.replace(spec, budget=1 + c.pick(8)) for spec in DEFAULT_SECTIONS)
    config = Settings(sections=specs, max_lines=30 + c.pick(171))
    terminated = c.pick(2)
    lines: list[str] = []
    while c:
        lines += _section(c) if c.pick(3) == 0 else _claude_chunk(c)
    text = "\n".join(lines) + ("\n" if terminated and lines else "")
    return text.replace("\n", newline), config


memory_file = st.binary(min_size=48, max_size=320).map(build_memory_file)


def _run(examples: int) -> tuple[int, int, int]:
    """Curate ``examples`` generated files; returns (examples, refused, lines lost)."""
    seen, refused, lost = [0], [0], [0]

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    @given(memory_file)
    def one(case: tuple[str, Settings]) -> None:
        text, config = case
        seen[0] += 1
        result = curate(text, config, {}, TODAY)
        try:
            invariants.check(result, config, {}, TODAY)
        except InvariantViolation:
            refused[0] += 1  # nothing is written then: nothing lost either
            return
        # Independently of the check that just passed: every line is somewhere, Claude's
        # text (by marker positions alone) is still Claude's text, in order.
        gone = _lost(text, result.text, result.archives)
        lost[0] += gone
        assert gone == 0
        titles = [spec.title for spec in config.sections]
        assert oracle.problems(text, result.text, {}, result.archives, titles) == []
        assert parse(text, config.sections).render() == text

    one()
    return seen[0], refused[0], lost[0]


def test_fences_and_markers_property_quick() -> None:
    examples, refused, lost = _run(300)
    assert lost == 0
    assert refused <= max(3, examples // 100)


@pytest.mark.slow
def test_fences_and_markers_property_thousands(capsys: pytest.CaptureFixture[str]) -> None:
    """2,500 examples a run, new ones each CI run (its slow tier draws the seed: decisions 0155,
    0186)."""
    examples, refused, lost = _run(2_500)
    with capsys.disabled():
        print(f"\nfence/marker property: {examples} examples, {refused} refused, {lost} lines lost")
    assert examples >= 2_500
    assert lost == 0
    assert refused <= examples // 100


_REFERENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")


@settings(max_examples=500, deadline=None)
@given(
    st.text(alphabet=st.sampled_from([" ", "`", "~", "a", "\t", "\r", "\n", "#"]), max_size=12)
)
def test_fence_opening_quick_check_changes_no_answer(line: str) -> None:
    """fence_opening skips the pattern for lines that cannot open a fence: the answer is the
    pattern's alone, for any line."""
    body = line
    if line.endswith("\r\n"):
        body = line[:-2]
    elif line.endswith(("\n", "\r")):
        body = line[:-1]
    match = _REFERENCE_OPEN.match(body)
    expected = None
    if match is not None and not (match[1][0] == "`" and "`" in match[2]):
        expected = match[1]
    assert fence_opening(line) == expected
