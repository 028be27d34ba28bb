"""Splitting an overgrown learnings file into numbered parts of 100-300 lines at entry boundaries,
with an index of the parts left in the original (pure)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pokayokay.learnings.aging.entries import parse_entries
from pokayokay.learnings.consolidate.consolidation_config import (
    DEFAULT_CONFIG,
    ConsolidationConfig,
)
from pokayokay.memory.document import count_lines

INDEX_START = "<!-- pokayokay parts -->"


INDEX_END = "<!-- /pokayokay parts -->"


_PART_NAME = re.compile(r"^(?P<stem>.+)-part-(?P<n>\d+)\.md$")


@dataclass(frozen=True)
class SplitResult:
    original: str
    parts: tuple[tuple[str, str], ...]  # (file name, text), in order

    def line_counts(self) -> dict[str, int]:
        return {name: count_lines(text) for name, text in self.parts}


def part_name(name: str, number: int) -> str:
    stem = name[:-3] if name.endswith(".md") else name
    return f"{stem}-part-{number}.md"


def part_numbers(name: str, siblings: Iterable[str]) -> list[int]:
    """Numbers of the existing parts of ``name`` among the file names ``siblings``."""
    stem = name[:-3] if name.endswith(".md") else name
    out = []
    for sibling in siblings:
        match = _PART_NAME.match(sibling)
        if match and match["stem"] == stem:
            out.append(int(match["n"]))
    return sorted(out)


def _frontmatter(preamble: Sequence[str]) -> list[str]:
    if not preamble or preamble[0].strip() != "---":
        return []
    for k in range(1, len(preamble)):
        if preamble[k].strip() == "---":
            return list(preamble[: k + 1])
    return []


def _group_cost(size: int, low: int, high: int) -> float:
    middle = (low + high) / 2
    if low <= size <= high:
        return (size - middle) ** 2
    miss = low - size if size < low else size - high
    return 1e9 + miss * 1e6


def _partition(
    sizes: Sequence[int], first_extra: int, extra: int, low: int, high: int
) -> list[int]:
    """Start indices of contiguous groups of ``sizes`` (at least two groups) minimising how far
    each group's size (plus its overhead) is from the middle of [low, high]. Deterministic."""
    n = len(sizes)
    prefix = [0]
    for size in sizes:
        prefix.append(prefix[-1] + size)
    inf = float("inf")
    # single[j]: sizes[0:j] as the first group alone; multi[j]: sizes[0:j] as two or more groups.
    single = [inf] + [_group_cost(first_extra + prefix[j], low, high) for j in range(1, n + 1)]
    multi = [inf] * (n + 1)
    back: list[tuple[int, bool]] = [(0, False)] * (n + 1)
    for j in range(2, n + 1):
        for i in range(j - 1, 0, -1):
            span = extra + prefix[j] - prefix[i]
            cost = _group_cost(span, low, high)
            for before, is_multi in ((single[i], False), (multi[i], True)):
                if before + cost < multi[j]:
                    multi[j], back[j] = before + cost, (i, is_multi)
            if span > high * 4:
                break
    starts = []
    j = n
    while True:
        i, is_multi = back[j]
        starts.append(i)
        if not is_multi:
            starts.append(0)
            break
        j = i
    return sorted(starts)


def split_file(
    text: str,
    name: str,
    *,
    existing_parts: Iterable[int] = (),
    config: ConsolidationConfig = DEFAULT_CONFIG,
    copy_frontmatter: bool = False,
) -> SplitResult | None:
    """Split ``text`` (the file ``name``) at H2 boundaries when it has ``split_at`` lines or
    more; None when it is shorter or has fewer than two H2 sections.

    The original keeps its preamble, gains (or extends) an index of the parts and keeps the
    first group of sections; the other groups go to ``<stem>-part-N.md`` (N after the highest
    existing part), each opening with a cross-reference line. With ``copy_frontmatter`` (rule
    files, whose ``paths:`` must keep applying) each part repeats the original's frontmatter.
    Every line of ``text`` is in the result; the same input always gives the same output.
    """
    if count_lines(text) < config.split_at:
        return None
    if not text.endswith("\n"):
        text += "\n"
    preamble, sections = parse_entries(text)
    if len(sections) < 2:
        return None
    front = _frontmatter(preamble) if copy_frontmatter else []
    sizes = [len(s.lines) for s in sections]
    total = sum(sizes) + len(preamble)
    guess = max(1, round(total / ((config.part_min + config.part_max) / 2)) - 1)
    has_index = any(line.strip() == INDEX_START for line in preamble)
    first_extra = len(preamble) + guess + (0 if has_index else 5)
    extra = len(front) + 2
    starts = _partition(sizes, first_extra, extra, config.part_min, config.part_max)
    if len(starts) < 2:
        return None
    groups = [sections[a:b] for a, b in zip(starts, [*starts[1:], len(sections)], strict=True)]
    first = max([1, *existing_parts]) + 1
    newline = "\r\n" if text.count("\r\n") * 2 >= text.count("\n") > 0 else "\n"
    parts: list[tuple[str, str]] = []
    index_lines: list[str] = []
    for offset, group in enumerate(groups[1:]):
        part = part_name(name, first + offset)
        xref = (
            f"> Part {first + offset} of [{name}]({name}), split by pokayokay at H2 boundaries; "
            f"the list of parts is at the top of {name}.{newline}"
        )
        lines = [*front, xref, newline]
        for section in group:
            lines.extend(section.lines)
        parts.append((part, "".join(lines)))
        titles = f"{group[0].title} … {group[-1].title}" if len(group) > 1 else group[0].title
        index_lines.append(f"- [{part}]({part}): {titles} ({len(group)} entries){newline}")
    head = list(preamble)
    if has_index:
        end = next(
            (k for k, line in enumerate(head) if line.strip() == INDEX_END),
            len(head),
        )
        head[end:end] = index_lines
    else:
        while head and not head[-1].strip():
            head.pop()
        if head:
            if not head[-1].endswith("\n"):
                head[-1] += newline
            head.append(newline)
        head += [
            f"{INDEX_START}{newline}",
            f"This file is split into parts (every line kept; newest parts last):{newline}",
            *index_lines,
            f"{INDEX_END}{newline}",
            newline,
        ]
    for section in groups[0]:
        head.extend(section.lines)
    return SplitResult("".join(head), tuple(parts))
