"""Which entries leave MEMORY.md, and in what order (pure: sections in, entries out).

Curation (:mod:`pokayokay.memory.curation`) owns the document and what it writes; this module
owns the choice it makes when something is too long:

- :func:`oldest_first`: the order entries leave a section in (pinned ones never);
- :func:`section_cut`: the fewest of them that bring one section under its line budget and
  entry cap;
- :func:`whole_file_cut`: the fewest managed entries that bring the whole file under Claude
  Code's load limit, and none when even all of them would not;
- :func:`tidied`: a section's body once entries left it.

Each cut is the smallest prefix of an order that fits (:func:`smallest`, a binary search over a
monotone test; the whole file's, over each stretch in which the Topic Index does not grow), so no
entry leaves that did not have to.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from pokayokay.memory.document import (
    Document,
    Entry,
    Prose,
    Section,
    Unit,
    count_lines,
    is_blank,
    units_lines,
)
from pokayokay.memory.measures import nbytes


def oldest_first(sec: Section) -> list[Entry]:
    """Unpinned entries, oldest first: by the entry's date, else by position in the section.

    An undated entry counts as being as old as the nearest dated entry above it, so an
    undated note appended below recent dated ones is not the first to go.
    """
    keyed: list[tuple[date, int, Entry]] = []
    inherited = date.min
    for pos, entry in enumerate(sec.entries):
        when = entry.date
        if when is not None:
            inherited = when
        if not entry.pinned:
            keyed.append((when or inherited, pos, entry))
    keyed.sort(key=lambda item: (item[0], item[1]))
    return [entry for _, _, entry in keyed]


def section_cut(sec: Section) -> tuple[list[Entry], str]:
    """The fewest entries (oldest first) whose leaving brings ``sec`` within its line budget
    and entry cap, and why they leave (``entry cap`` when the cap alone asked for the last
    one, else ``budget``); no entries when it already fits."""
    spec = sec.spec
    order = oldest_first(sec)
    total = len(sec.entries)

    def fits(k: int) -> bool:
        if spec.max_entries is not None and total - k > spec.max_entries:
            return False
        if k == 0:
            return sec.size <= spec.budget
        gone = {id(e) for e in order[:k]}
        return units_lines(tidied([u for u in sec.units if id(u) not in gone])) <= spec.budget

    k = smallest(len(order), fits)
    if k == 0:
        return [], ""
    by_cap = spec.max_entries is not None and total - (k - 1) > spec.max_entries
    return order[:k], "entry cap" if by_cap else "budget"


Growth = Callable[[list[Section]], tuple[int, int]]
"""What archiving entries of these sections adds to the file, in lines and bytes (the Topic
Index's links to archives not linked yet)."""


def whole_file_cut(
    view: Document, max_lines: int, max_bytes: int, growth: Growth | None = None
) -> list[tuple[Section, Entry]]:
    """The fewest managed entries of ``view`` whose leaving brings the file within
    ``max_lines`` and ``max_bytes`` (always the oldest entry of the currently biggest
    section), each with the section of ``view`` it leaves; none when the file already fits or
    when no number of them would: Claude's own notes are then what is too long, and are never
    touched.

    ``growth`` counts what the file gains when entries leave: an archive link in the Topic
    Index for each section that had none. It grows only at a section's first entry to leave,
    so between those points the test is monotone and each stretch is searched on its own.
    """
    text = view.render()
    lines, size = count_lines(text), nbytes(text)
    if lines <= max_lines and size <= max_bytes:
        return []
    sections = view.sections()
    fixed_lines = lines - sum(len(s.body_lines) for s in sections)
    fixed_bytes = size - sum(nbytes("".join(s.body_lines)) for s in sections)
    queues = {id(s): oldest_first(s) for s in sections}
    sizes = {id(s): s.size for s in sections}
    rank = {id(s): i for i, s in enumerate(sections)}
    plan: list[tuple[Section, Entry]] = []
    while True:
        candidates = [s for s in sections if queues[id(s)]]
        if not candidates:
            break
        sec = max(candidates, key=lambda s: (sizes[id(s)], -rank[id(s)]))
        entry = queues[id(sec)].pop(0)
        plan.append((sec, entry))
        sizes[id(sec)] -= len(entry.lines)

    def fits(k: int) -> bool:
        gone = {id(entry) for _, entry in plan[:k]}
        n_lines, n_bytes = fixed_lines, fixed_bytes
        if growth is not None and k:
            more_lines, more_bytes = growth(list({id(s): s for s, _ in plan[:k]}.values()))
            n_lines, n_bytes = n_lines + more_lines, n_bytes + more_bytes
        for sec in sections:
            units = [u for u in sec.units if id(u) not in gone]
            if len(units) != len(sec.units):
                units = tidied(units)
            body = [line for u in units for line in u.lines]
            n_lines += len(body)
            n_bytes += nbytes("".join(body))
        return n_lines <= max_lines and n_bytes <= max_bytes

    if not plan:
        return []
    starts: list[int] = []  # the k at which each section's first entry has left
    seen: set[int] = set()
    for k, (sec, _) in enumerate(plan):
        if id(sec) not in seen:
            seen.add(id(sec))
            starts.append(k + 1)
    for start, stop in zip(starts, [*starts[1:], len(plan) + 1], strict=True):
        if fits(stop - 1):
            return plan[: smallest(stop - 1, fits, start)]
    return []  # archiving would cost entries Claude Code loads and gain nothing


def smallest(n: int, fits: Callable[[int], bool], start: int = 0) -> int:
    """The smallest k in start..n with fits(k), fits being monotone there; n when none fits."""
    if fits(start):
        return start
    lo, hi = start + 1, n
    while lo < hi:
        mid = (lo + hi) // 2
        if fits(mid):
            hi = mid
        else:
            lo = mid + 1
    return hi


def tidied(units: list[Unit]) -> list[Unit]:
    """A body after entries left it: no leading, doubled or trailing blank lines."""
    out: list[Unit] = []
    for unit in units:
        if isinstance(unit, Prose) and all(is_blank(line) for line in unit.lines):
            if not out or (isinstance(out[-1], Prose) and is_blank(out[-1].lines[-1])):
                continue
            out.append(Prose(unit.lines[:1]))
        else:
            out.append(unit)
    while out and isinstance(out[-1], Prose) and all(is_blank(x) for x in out[-1].lines):
        out.pop()
    return out
