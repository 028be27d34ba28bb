"""Where a managed section's entries start, as CommonMark reads the section's body (pure).

An entry is a top-level bullet list item. Which lines start one is CommonMark's to say, not a
hand-written scanner's: a code fence opened inside a list item ends with that item (the next
bullet at column 0 is a new entry, not code), a fence at column 0 runs to the end of the body,
an indented bullet may still be a sibling item, ``* * *`` is a thematic break. The body is read
by markdown-it-py, a maintained CommonMark parser (decision 0040).

markdown-it-py costs about 30 ms to import, so it is imported only for a body that needs it:
a body whose every non-blank line is a column-0 bullet with text (``- ...``, ``* ...``,
``+ ...``) and no thematic break is one entry per bullet line whatever those lines hold (a
following column-0 bullet always ends the item before it, fences and HTML included), and is
answered without the parser. ``tests/memory/test_commonmark.py`` checks that shortcut against
the parser.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

_PLAIN_BULLET_RE = re.compile(r"[-*+][ \t]+\S")
_THEMATIC_BREAK_RE = re.compile(r" {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*")
_PROBE = "- probe"


@dataclass(frozen=True)
class BodyBlocks:
    """A section body read as CommonMark: line indices (0-based) of what matters to entries."""

    starts: frozenset[int]  # the first line of each top-level bullet list item
    code: frozenset[int]  # lines of a fenced code block or an HTML block, at any depth


def _body(line: str) -> str:
    """The line without its terminator, a stray carriage return read as a space (markdown-it
    ends a line at one, pokayokay's line model does not: the indices must agree)."""
    if line.endswith("\r\n"):
        line = line[:-2]
    elif line.endswith("\n"):
        line = line[:-1]
    return line.replace("\r", " ")


def _is_plain(bodies: Sequence[str]) -> bool:
    return all(
        not body.strip()
        or (_PLAIN_BULLET_RE.match(body) is not None and not _THEMATIC_BREAK_RE.fullmatch(body))
        for body in bodies
    )


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt  # ~30 ms: only for a body that is not plain bullets

    # Block structure only: the inline rules (emphasis, links...) say nothing about entries.
    return MarkdownIt("commonmark").disable(["inline", "text_join"])


def read_blocks(lines: Sequence[str], *, shortcut: bool = True) -> BodyBlocks:
    """The entries' first lines and the code lines of a section body (lines with terminators).
    ``shortcut=False`` always asks the parser (the tests compare the two)."""
    bodies = tuple(_body(line) for line in lines)
    if shortcut and _is_plain(bodies):
        return BodyBlocks(
            starts=frozenset(i for i, body in enumerate(bodies) if body.strip()),
            code=frozenset(),
        )
    return _parsed(bodies)


@lru_cache(maxsize=64)
def _parsed(bodies: tuple[str, ...]) -> BodyBlocks:
    """The parser's reading of a body; kept, since one curation reads each body several times
    (before, after, the invariants' check)."""
    starts: set[int] = set()
    code: set[int] = set()
    parents: list[str] = []  # the open container tokens' types
    for token in _parser().parse("".join(body + "\n" for body in bodies)):
        if token.nesting == 1:
            if (
                token.type == "list_item_open"
                and parents == ["bullet_list_open"]
                and token.map is not None
            ):
                starts.add(token.map[0])
            parents.append(token.type)
        elif token.nesting == -1:
            parents.pop()
        elif token.type in ("fence", "html_block") and token.map is not None:
            code.update(range(token.map[0], min(token.map[1], len(bodies))))
    return BodyBlocks(frozenset(starts), frozenset(code))


def entry_can_follow(lines: Sequence[str]) -> bool:
    """Would a bullet appended after these lines be an entry of its own (not code, not an HTML
    block's text)?"""
    bodies = [_body(line) for line in lines]
    return len(bodies) in read_blocks([*bodies, _PROBE]).starts


def fence_closing(lines: Sequence[str]) -> str | None:
    """The line (without terminator) that ends the code fence still open after the body, when
    a bullet appended after it would be code: the opener's container prefix (``>`` kept, list
    markers as spaces) and its run. None when an appended bullet is already an entry."""
    if entry_can_follow(lines):
        return None
    bodies = [_body(line) for line in lines]
    last = None
    for token in _parser().parse("".join(body + "\n" for body in bodies)):
        if token.type == "fence" and token.map is not None and token.map[1] >= len(bodies):
            last = token
    if last is None or last.map is None:
        return None
    opener = bodies[last.map[0]]
    at = opener.find(last.markup)
    prefix = re.sub(r"[^>\s]", " ", opener[:at]) if at >= 0 else ""
    closing = prefix + last.markup
    return closing if entry_can_follow([*bodies, closing]) else None
