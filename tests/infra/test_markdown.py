"""The one code-fence scanner, and every reader of markdown agreeing with it (they used to
disagree on tab-indented fences, on closing lines with text after them, on ``~~~`` vs ```)."""

from __future__ import annotations

from datetime import date, datetime, time, timezone

import pytest

from pokayokay.infra.markdown import closes, fence_opening, fence_states, open_fence_at_end
from pokayokay.learnings.aging.entries import parse_entries
from pokayokay.learnings.consolidate.routing import summary_line
from pokayokay.learnings.consolidate.similarity import passages
from pokayokay.memory.document import parse
from pokayokay.memory.sections import DEFAULT_SECTIONS
from pokayokay.recall.readers import _bullets
from pokayokay.rules.rule_text import parse_retired, retired_line


@pytest.mark.parametrize(
    ("line", "run"),
    [
        ("```", "```"),
        ("~~~~ yaml", "~~~~"),
        ("   ```python", "```"),
        ("    ```", None),  # four spaces: an indented code block
        ("\t```", None),  # a tab is four columns
        ("```a`b", None),  # inline code, not a fence
        ("``", None),
        ("~~~ a`b", "~~~"),  # a tilde fence's info string may hold a backtick
    ],
)
def test_what_opens_a_fence(line: str, run: str | None) -> None:
    assert fence_opening(line + "\n") == run


def test_what_closes_a_fence() -> None:
    assert closes("```\n", "```")
    assert closes("  `````  \r\n", "```")
    assert not closes("``\n", "```")  # shorter
    assert not closes("~~~\n", "```")  # the other character
    assert not closes("``` python\n", "```")  # text after the run
    assert not closes("\t```\n", "```")


def test_structure_lines_end_an_open_fence() -> None:
    lines = ["```\n", "code\n", "## Next\n", "text\n", "```\n", "more\n"]
    assert fence_states(lines) == [True, True, True, True, True, False]
    assert fence_states(lines, lambda x: x.startswith("## ")) == [
        True,
        True,
        False,
        False,
        True,
        True,
    ]
    assert open_fence_at_end(["- entry\n", "  ~~~~ sh\n", "  ls\n"]) == "  ~~~~"
    assert open_fence_at_end(["```\n", "```\n"]) is None


TAB_FENCED = (
    "Notes on the build.\n"
    "\n"
    "\t```\n"
    "## Use uv, not pip\n"
    "- uv sync is what CI runs\n" + retired_line("build-uv", ["abc123"], date(2026, 11, 2)) + "\n"
    "\t```\n"
)
SPACE_FENCED = TAB_FENCED.replace("\t```", "  ```")


def test_every_reader_agrees_a_tab_indented_run_is_no_fence() -> None:
    """Tab-indented: no fence, so the heading, the bullet and the retired line all count."""
    assert [e.title for e in parse_entries(TAB_FENCED)[1]] == ["Use uv, not pip"]
    assert parse_retired(TAB_FENCED) == {
        "abc123": datetime.combine(date(2026, 11, 2), time.max, timezone.utc)
    }
    assert _bullets(TAB_FENCED.splitlines(keepends=True)) == ["uv sync is what CI runs"]
    assert any(p.text.startswith("- uv sync") for p in passages(TAB_FENCED, "x"))
    assert all("## Use uv" not in p.text.split("\n")[1:] for p in passages(TAB_FENCED, "x"))


def test_every_reader_agrees_a_space_indented_run_is_a_fence() -> None:
    assert parse_entries(SPACE_FENCED)[1] == []
    assert parse_retired(SPACE_FENCED) == {}
    assert _bullets(SPACE_FENCED.splitlines(keepends=True)) == []
    # similarity: "## Use uv" inside the fence is code in a passage, not a heading
    assert any("## Use uv" in p.text for p in passages(SPACE_FENCED, "x"))
    memory = (
        "## Key Decisions\n<!-- pokayokay: promoted from session handoffs -->\n"
        "- 2026-11-01 build with uv\n" + SPACE_FENCED.replace("## Use", "### Use")
    )
    section = parse(memory, DEFAULT_SECTIONS).section("key_decisions")
    # In MEMORY.md the fence opens inside the bullet's list item; CommonMark ends it with the
    # item at the first line indented less than the item's content ("### Use uv"), so the
    # bullet after it is an entry of its own (memory.commonmark; issue 25's unclosed fence).
    assert section is not None and len(section.entries) == 2


def test_summary_line_skips_code() -> None:
    text = "## Run the suite with uv\n```sh\nuv run pytest -q\n```\nCI uses uv; pip drifts.\n"
    entry = parse_entries(text)[1][0]
    assert summary_line(entry) == "CI uses uv; pip drifts."
