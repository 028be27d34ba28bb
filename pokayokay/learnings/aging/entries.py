"""The entries of the learnings staging file (.claude/learnings.md): one entry per level-2 heading,
headings inside code fences ignored (pure)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pokayokay.infra.markdown import fence_states
from pokayokay.memory.document import split_lines

_H2 = re.compile(r"^ {0,3}##[ \t]+(\S.*?)[ \t]*$")


_CLOSING_HASHES = re.compile(r"[ \t]+#+$")


def h2_title(line: str) -> str | None:
    """The title of an ATX H2 heading line (``## Title``), else None."""
    match = _H2.match(line.rstrip("\r\n"))
    if match is None:
        return None
    title = _CLOSING_HASHES.sub("", match[1]).strip()
    return title or None


@dataclass(frozen=True)
class LearningEntry:
    """One H2 entry: its heading line and every line up to the next heading (terminators kept)."""

    title: str
    start: int  # index of the heading in the file's lines (0-based)
    lines: tuple[str, ...]

    @property
    def line(self) -> int:
        """1-based line number of the heading."""
        return self.start + 1

    @property
    def text(self) -> str:
        return "".join(self.lines)

    @property
    def body(self) -> tuple[str, ...]:
        return self.lines[1:]


def parse_entries(text: str) -> tuple[list[str], list[LearningEntry]]:
    """The preamble lines and the H2 entries of a learnings file; headings in code fences are
    text, not entries."""
    lines = split_lines(text)
    preamble: list[str] = []
    entries: list[LearningEntry] = []
    current: list[str] | None = None
    title, start = "", 0
    fenced = fence_states(lines)
    for index, line in enumerate(lines):
        heading = None if fenced[index] else h2_title(line)
        if heading is not None:
            if current is not None:
                entries.append(LearningEntry(title, start, tuple(current)))
            current, title, start = [line], heading, index
        elif current is None:
            preamble.append(line)
        else:
            current.append(line)
    if current is not None:
        entries.append(LearningEntry(title, start, tuple(current)))
    return preamble, entries
