"""Entries are CommonMark's top-level bullet list items (pokayokay.memory.commonmark): the
cases the issue names, and the parser-free shortcut for plain bullet bodies checked against the
parser itself."""

from __future__ import annotations

import subprocess
import sys

from hypothesis import given
from hypothesis import strategies as st

from pokayokay.memory.commonmark import entry_can_follow, fence_closing, read_blocks


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def test_a_fence_left_open_in_a_list_item_ends_with_the_item() -> None:
    body = _lines("- a\n  ```bash\n  uv run\n- b\n- c\n")
    blocks = read_blocks(body)
    assert blocks.starts == {0, 3, 4}
    assert blocks.code == {1, 2}
    assert entry_can_follow(body)
    assert fence_closing(body) is None


def test_a_fence_at_column_0_runs_to_the_end_and_gets_its_closing_line() -> None:
    body = _lines("- a\n```\n- b\n")
    blocks = read_blocks(body)
    assert blocks.starts == {0}
    assert blocks.code == {1, 2}
    assert not entry_can_follow(body)
    assert fence_closing(body) == "```"
    indented = _lines("a note\n   ~~~~ py\n- b\n")
    assert fence_closing(indented) == "   ~~~~"


def test_fences_inside_containers_need_no_closing_line() -> None:
    """A fence in a list item (even opened on the bullet line, or in a quote inside the item)
    ends with the item: an entry appended after it is an entry."""
    for text in ("- ```sh\n  make\n", "- a\n  > ~~~~ py\n  > x\n", "- a\n  ```\n\n"):
        body = _lines(text)
        assert entry_can_follow(body), text
        assert fence_closing(body) is None, text


def test_what_commonmark_says_is_no_entry() -> None:
    body = _lines("* * *\n1. ordered\n> - quoted\n<!--\n- in a comment\n-->\n - indented\n")
    blocks = read_blocks(body)
    # the thematic break, the ordered item, the quoted item and the commented bullet are not
    # entries; a bullet indented by one space is a top-level item all the same
    assert blocks.starts == {6}
    assert {3, 4, 5} <= blocks.code


def test_carriage_returns_and_undecodable_bytes_keep_the_line_count() -> None:
    body = ["- a\rb\r\n", "  ```\r\n", "- \udcff\udcfe\r\n", "x\x00y\n"]
    blocks = read_blocks(body, shortcut=False)
    assert blocks.starts == {0, 2}
    assert blocks.code == {1}


_PLAIN_TEXT = st.lists(
    st.sampled_from([*"ab `~<>-*+_#!\t[]()", "```", "~~~", "<!--", "-->", " - "]), max_size=8
).map("".join)
_PLAIN_LINE = st.one_of(
    st.builds(
        lambda m, gap, t: f"{m}{gap}x{t}\n",
        st.sampled_from("-*+"),
        st.sampled_from([" ", "\t", "   "]),
        _PLAIN_TEXT,
    ),
    st.sampled_from(["\n", "  \n", "- - -\n", "* * *\n", "-\n"]),
)


@given(st.lists(_PLAIN_LINE, max_size=12))
def test_the_shortcut_agrees_with_the_parser(body: list[str]) -> None:
    """Whenever the shortcut answers (every line a column-0 bullet with text, no thematic break),
    the parser gives the same first lines; where it does not answer, both are the parser."""
    assert read_blocks(body).starts == read_blocks(body, shortcut=False).starts


def test_plain_bullets_never_import_the_parser() -> None:
    code = (
        "import sys\n"
        "from pokayokay.memory.commonmark import read_blocks\n"
        "read_blocks(['- a ```\\n', '* b <!--\\n', '+ c\\n', '\\n'])\n"
        "assert 'markdown_it' not in sys.modules\n"
        "read_blocks(['- a\\n', '  ```\\n'])\n"
        "assert 'markdown_it' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
