"""MEMORY.md measured against its budgets and Claude Code's load limit (pure).

``FileStat.fixed_lines``/``fixed_bytes`` are what no curation can move: Claude's own notes and
the managed sections' headings and markers. When they alone pass the load limit
(``FileStat.notes_over``), archiving pokayokay's entries cannot bring the file under it, and
curation archives none for it (``memory/curation``); ``status``, ``report`` and ``doctor`` say
so instead of advising ``curate``.
"""

from __future__ import annotations

from dataclasses import dataclass

from pokayokay.memory.document import Document, Section, count_lines
from pokayokay.memory.sections import Settings


@dataclass(frozen=True)
class SectionStat:
    id: str
    title: str
    present: bool
    size: int
    budget: int
    entries: int
    max_entries: int | None

    @property
    def over(self) -> bool:
        over_entries = self.max_entries is not None and self.entries > self.max_entries
        return self.size > self.budget or over_entries


@dataclass(frozen=True)
class FileStat:
    lines: int
    bytes: int
    max_lines: int
    max_bytes: int
    unmanaged_lines: int
    sections: tuple[SectionStat, ...]
    fixed_lines: int = 0  # outside the managed sections' bodies: Claude's notes, headings, markers
    fixed_bytes: int = 0

    @property
    def over(self) -> bool:
        return self.lines > self.max_lines or self.bytes > self.max_bytes

    @property
    def notes_over(self) -> bool:
        """Is the file over the load limit even with every managed entry gone?"""
        return self.fixed_lines > self.max_lines or self.fixed_bytes > self.max_bytes


def nbytes(text: str) -> int:
    """Bytes as Claude Code counts them (undecodable bytes kept as they were read)."""
    return len(text.encode("utf-8", "surrogateescape"))


def file_stat(doc: Document, text: str, settings: Settings) -> FileStat:
    stats = []
    present: dict[str, Section] = {}
    for found in doc.sections():
        present.setdefault(found.spec.id, found)
    for spec in settings.sections:
        sec = present.get(spec.id)
        stats.append(
            SectionStat(
                id=spec.id,
                title=spec.title,
                present=sec is not None,
                size=sec.size if sec else 0,
                budget=spec.budget,
                entries=len(sec.entries) if sec else 0,
                max_entries=spec.max_entries,
            )
        )
    unmanaged = sum(len(seg.lines) for seg in doc.segments if not isinstance(seg, Section))
    bodies = [line for sec in doc.sections() for line in sec.body_lines]
    lines = count_lines(text)
    size = nbytes(text)
    return FileStat(
        lines=lines,
        bytes=size,
        max_lines=settings.max_lines,
        max_bytes=settings.max_bytes,
        unmanaged_lines=unmanaged,
        sections=tuple(stats),
        fixed_lines=lines - len(bodies),
        fixed_bytes=size - nbytes("".join(bodies)),
    )
