"""Curation of MEMORY.md (pure: text in, new text and archive contents out).

What it does, in order:

1. merges duplicated managed sections into the first copy;
2. adds missing managed sections in template order, next to the ones that exist;
3. moves whole entries out of sections over their line budget (or entry cap), oldest first,
   into the section's archive file;
4. links every archive from the Topic Index (those links are never moved out);
5. holds the whole file to Claude Code's load limit (200 lines / 25,000 bytes) by moving more
   managed entries out — only when that brings the file under the limit: when Claude's own
   notes alone are too long it archives nothing for it, adds no section past the cut (where
   Claude Code never reads it), and says so instead.

Entries are never dropped: whatever leaves MEMORY.md is appended to an archive.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from datetime import date

from pokayokay.memory.archives import append_batch, batch_id
from pokayokay.memory.document import (
    Document,
    Entry,
    Prose,
    Section,
    Text,
    close_open_fences,
    cr_only,
    is_blank,
    new_section,
    parse,
    split_lines,
    to_lf,
    units_of,
)
from pokayokay.memory.eviction import Growth, section_cut, tidied, whole_file_cut
from pokayokay.memory.measures import FileStat, file_stat, nbytes
from pokayokay.memory.sections import END_MARKER, TOPIC_INDEX_ID, SectionSpec, Settings
from pokayokay.names import LEARNINGS_ARCHIVE_FILE, RECURRING_FAILURES_FILE, RULES_ARCHIVE_FILE

# Topic files pokayokay keeps up to date itself; their Topic Index links are never moved out.
PINNED_TOPIC_FILES = (RECURRING_FAILURES_FILE, RULES_ARCHIVE_FILE, LEARNINGS_ARCHIVE_FILE)


@dataclass(frozen=True)
class Move:
    section_id: str
    section_title: str
    archive: str
    entries: tuple[str, ...]
    lines: int
    reason: str


@dataclass
class CurationResult:
    original: str
    text: str
    archives: dict[str, str]
    moves: list[Move]
    added_sections: list[str]
    merged_duplicates: list[str]
    added_links: list[str]
    closed_sections: list[str]
    notes: list[str]
    before: FileStat
    after: FileStat
    archive_before: dict[str, str] = field(default_factory=dict)
    dropped_sections: list[str] = field(default_factory=list)
    # The options ``curate`` was called with, so that ``invariants.check`` curates again with
    # exactly these (a caller cannot check with other options than it curated with).
    evict: bool = True
    keep_empty: bool = False
    droppable: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        return self.text != self.original or bool(self.archives)


def archive_link_re(archive: str) -> re.Pattern[str]:
    return re.compile(r"\]\(\s*(?:\./)?" + re.escape(archive) + r"\s*\)")


def link_line(spec: SectionSpec, newline: str) -> str:
    return (
        f"- [{spec.title} archive]({spec.archive}) — older {spec.title} entries, "
        f"moved out of MEMORY.md by pokayokay{newline}"
    )


@dataclass
class _Eviction:
    spec: SectionSpec
    entry: Entry
    order: int
    reason: str


class _Curator:
    def __init__(self, text: str, settings: Settings, archives: Mapping[str, str], today: date):
        self.text = text
        self.settings = settings
        self.archives_in = dict(archives)
        self.today = today
        self.doc = parse(text, settings.sections)
        fenced = close_open_fences(self.doc)
        if fenced:
            self.doc = parse(self.doc.render(), settings.sections)
        self.newline = self.doc.newline
        self.evicted: list[_Eviction] = []
        self.added_sections: list[str] = []
        self.dropped_sections: list[str] = []
        self.added_ids: set[int] = set()
        # Are new sections that stay empty taken out at the end (and which ids count as new)?
        self.drop_new = False
        self.droppable: Collection[str] = ()
        self.merged: list[str] = []
        self.closed: list[str] = []
        self.added_links: list[str] = []
        self.notes: list[str] = list(self.doc.problems)
        self.notes += [
            f"{title}: a code fence left open at the end of the section was closed"
            for title in fenced
        ]
        # Document position of each entry, so archives keep the original order.
        self.order: dict[int, int] = {}
        # Each section's body as read, for the batch id of what leaves it.
        self.bodies: dict[str, list[str]] = {}
        for sec in self.doc.sections():
            self.bodies.setdefault(sec.spec.id, []).extend(sec.body_lines)

    # -- structure ----------------------------------------------------------------------------
    def merge_duplicates(self) -> None:
        first: dict[str, Section] = {}
        kept: list[Text | Section] = []
        for seg in self.doc.segments:
            if isinstance(seg, Section):
                canonical = first.get(seg.spec.id)
                if canonical is None:
                    first[seg.spec.id] = seg
                else:
                    if canonical.units and seg.units:
                        canonical.units.append(Prose([self.newline]))
                    canonical.units.extend(seg.units)
                    # grouped as the written file reads (a fence after an entry joins it), so
                    # the cuts see the entries a second run sees
                    canonical.units = units_of(canonical.body_lines)
                    self.merged.append(seg.spec.title)
                    continue
            kept.append(seg)
        self.doc.segments = kept

    def close_sections(self) -> None:
        """Give every section an end marker, so notes Claude appends below stay Claude's."""
        for sec in self.doc.sections():
            if sec.end is not None:
                continue
            lines = sec.body_lines
            if lines and not lines[-1].endswith("\n"):
                sec.units[-1].lines[-1] += self.newline
            elif not lines and not sec.marker.endswith("\n"):
                sec.marker += self.newline
            sec.end = f"{END_MARKER}{self.newline}"
            self.closed.append(sec.spec.title)

    def add_missing(self) -> None:
        specs = list(self.settings.sections)
        past: list[str] = []  # sections that would start past the cut: not added
        for idx, spec in enumerate(specs):
            if self.doc.section(spec.id) is not None or spec.id in self.doc.unmarked:
                continue
            segs = self.doc.segments
            # The latest place that keeps template order: right before the next section that
            # exists, else at the end. So a new section never pushes Claude's notes further
            # down than an existing section already does.
            lower = 0
            for prev in reversed(specs[:idx]):
                found = self._index_of(prev.id)
                if found is not None:
                    lower = found + 1
                    break
            pos = len(segs)
            for nxt in specs[idx + 1 :]:
                found = self._index_of(nxt.id)
                if found is not None:
                    pos = found
                    break
            # ...and never above a line Claude wrote, even when that breaks template order.
            pos = max(pos, lower, self._after_last_note())
            if self._past_the_cut(pos, spec):
                past.append(spec.title)
                continue
            if pos < len(segs) and isinstance(segs[pos], Section):
                following = segs[pos]
                assert isinstance(following, Section)
                section = new_section(spec, self.newline, lead_blank=False)
                section.lead, following.lead = following.lead, [self.newline]
            else:
                previous = split_lines(self.doc.render_upto(pos)) if pos else []
                lead = bool(previous) and not is_blank(previous[-1])
                section = new_section(spec, self.newline, lead_blank=lead)
            segs.insert(pos, section)
            self.added_sections.append(spec.title)
            self.added_ids.add(id(section))
        if past:
            self.notes.append(
                f"sections not added (Claude's own notes above them already fill the "
                f"{self.settings.max_lines} lines / {self.settings.max_bytes:,} bytes Claude Code "
                f"loads, so they would never be read): {', '.join(past)}"
            )

    def drop_empty(self, droppable: Collection[str] = ()) -> None:
        """Take back out the new sections that hold nothing (``memory/empty_sections``)."""
        from pokayokay.memory.empty_sections import drop_new_empty

        dropped = drop_new_empty(self.doc, self.added_ids, droppable)
        # a section added by this run and dropped again was neither
        self.dropped_sections = [t for t in dropped if t not in self.added_sections]
        self.added_sections = [t for t in self.added_sections if t not in dropped]

    def _past_the_cut(self, pos: int, spec: SectionSpec) -> bool:
        """Would a new section inserted at segment ``pos`` end past Claude Code's load limit
        even with every managed entry above it archived (Claude's notes and headings alone)?"""
        kept: list[str] = []
        for seg in self.doc.segments[:pos]:
            if isinstance(seg, Text):
                kept += seg.lines
            else:
                kept += [*seg.lead, seg.heading, *seg.pre_marker, seg.marker, seg.end or ""]
        mine = new_section(spec, self.newline, lead_blank=True)
        kept += [*mine.lead, *mine.structure_lines()]
        return len(kept) > self.settings.max_lines or nbytes("".join(kept)) > (
            self.settings.max_bytes
        )

    def _after_last_note(self) -> int:
        """The index right after the last text segment with a non-blank line (0 if none)."""
        for i in range(len(self.doc.segments) - 1, -1, -1):
            seg = self.doc.segments[i]
            if isinstance(seg, Text) and any(not is_blank(line) for line in seg.lines):
                return i + 1
        return 0

    def _index_of(self, section_id: str) -> int | None:
        for i, seg in enumerate(self.doc.segments):
            if isinstance(seg, Section) and seg.spec.id == section_id:
                return i
        return None

    # -- eviction -----------------------------------------------------------------------------
    def number_entries(self) -> None:
        n = 0
        for sec in self.doc.sections():
            for unit in sec.units:
                if isinstance(unit, Entry):
                    self.order[id(unit)] = n
                    n += 1

    def pin_links(self) -> None:
        index = self.doc.section(TOPIC_INDEX_ID)
        if index is None:
            return
        names = [spec.archive for spec in self.settings.sections] + list(PINNED_TOPIC_FILES)
        patterns = [archive_link_re(name) for name in names]
        for entry in index.entries:
            if any(p.search(entry.text) for p in patterns):
                entry.pinned = True

    def evict(self, sec: Section, entries: list[Entry], reason: str) -> None:
        if not entries:
            return
        gone = {id(e) for e in entries}
        sec.units = [u for u in sec.units if id(u) not in gone]
        for entry in entries:
            self.evicted.append(_Eviction(sec.spec, entry, self.order.get(id(entry), 0), reason))

    def enforce_budget(self, sec: Section) -> None:
        entries, reason = section_cut(sec)
        if not entries:
            return
        self.evict(sec, entries, reason)
        sec.units = tidied(sec.units)

    def ensure_links(self) -> bool:
        index = self.doc.section(TOPIC_INDEX_ID)
        if index is None:
            return False
        existing = {name for name, text in self.archives_in.items() if text}
        pending = {ev.spec.archive for ev in self.evicted}
        added = False
        for spec in self.settings.sections:
            if spec.archive not in existing and spec.archive not in pending:
                continue
            pattern = archive_link_re(spec.archive)
            if any(pattern.search(e.text) for e in index.entries):
                continue
            entry = Entry([link_line(spec, self.newline)], pinned=True)
            if index.units and not index.body_lines[-1].endswith("\n"):
                last = index.units[-1]
                last.lines[-1] += self.newline
            index.units.append(entry)
            self.added_links.append(spec.archive)
            added = True
        return added

    def fit_whole_file(self) -> None:
        """Archive the fewest managed entries that bring the file under the load limit
        (:func:`~pokayokay.memory.eviction.whole_file_cut`), counted on the file as it will
        be written."""
        view, owners = self._as_written()
        growth = self._link_growth()
        cut = whole_file_cut(view, self.settings.max_lines, self.settings.max_bytes, growth)
        for sec in view.sections() if cut else []:
            mine = [entry for owner, entry in cut if owner is sec]
            if mine:
                real = owners[id(sec)]
                self.evict(real, mine, "whole file")
                real.units = tidied(real.units)

    def _link_growth(self) -> Growth:
        """What archiving entries of some sections adds to the file: the link
        :meth:`ensure_links` will give each archive the Topic Index does not link yet."""
        index = self.doc.section(TOPIC_INDEX_ID)
        if index is None:
            return lambda touched: (0, 0)
        specs = self.settings.sections
        texts = [entry.text for entry in index.entries]
        linked = {
            s.archive for s in specs if any(archive_link_re(s.archive).search(t) for t in texts)
        }

        def growth(touched: list[Section]) -> tuple[int, int]:
            archives = {sec.spec.archive for sec in touched} - linked
            links = {s.archive: s for s in reversed(specs) if s.archive in archives}
            if not links:
                return 0, 0
            # every section is closed by now, so its last line already ends with a newline
            return len(links), sum(nbytes(link_line(s, self.newline)) for s in links.values())

        return growth

    def _as_written(self) -> tuple[Document, dict[int, Section]]:
        """The document as it will be written — the sections this run added that are still
        empty taken out, when they will be — and each of its sections' originals by ``id``. So
        no entry is archived to make room for a heading that is not written."""
        if not self.drop_new:
            return self.doc, {id(sec): sec for sec in self.doc.sections()}
        from copy import copy

        from pokayokay.memory.empty_sections import drop_new_empty

        pairs = [(copy(seg), seg) for seg in self.doc.segments]
        view = copy(self.doc)
        view.segments = [mine for mine, _ in pairs]
        added = {id(mine) for mine, seg in pairs if id(seg) in self.added_ids}
        drop_new_empty(view, added, self.droppable)
        return view, {id(mine): seg for mine, seg in pairs if isinstance(seg, Section)}

    # -- output -------------------------------------------------------------------------------
    def build_archives(self) -> tuple[dict[str, str], list[Move]]:
        by_archive: dict[str, list[_Eviction]] = {}
        for ev in self.evicted:
            by_archive.setdefault(ev.spec.archive, []).append(ev)
        out: dict[str, str] = {}
        moves: list[Move] = []
        for archive, evictions in by_archive.items():
            evictions.sort(key=lambda ev: ev.order)
            spec = evictions[0].spec
            old = self.archives_in.get(archive, "")
            bodies = [
                line
                for section_id in dict.fromkeys(ev.spec.id for ev in evictions)
                for line in (section_id, *self.bodies.get(section_id, ()))
            ]
            batch = batch_id(self.today, archive, bodies)
            content, appended = append_batch(
                old, spec, [ev.entry.text for ev in evictions], batch, self.today, self.newline
            )
            if appended:
                out[archive] = content
            for reason in dict.fromkeys(ev.reason for ev in evictions):
                picked = [ev for ev in evictions if ev.reason == reason]
                moves.append(
                    Move(
                        section_id=spec.id,
                        section_title=spec.title,
                        archive=archive,
                        entries=tuple(ev.entry.text for ev in picked),
                        lines=sum(len(ev.entry.lines) for ev in picked),
                        reason=reason,
                    )
                )
        return out, moves

    def budget_notes(self, stat: FileStat) -> None:
        for sec_stat in stat.sections:
            if not sec_stat.over:
                continue
            sec = self.doc.section(sec_stat.id)
            pinned = sum(1 for e in sec.entries if e.pinned) if sec else 0
            prose = sum(len(u.lines) for u in sec.units if isinstance(u, Prose)) if sec else 0
            self.notes.append(
                f"{sec_stat.title} is {sec_stat.size}/{sec_stat.budget} lines after curation: "
                f"{pinned} archive link(s) and {prose} line(s) that are not entries stay put"
            )
        if stat.notes_over:
            self.notes.append(
                f"MEMORY.md is {stat.lines} lines / {stat.bytes:,} bytes, over Claude Code's load "
                f"limit of {stat.max_lines} lines / {stat.max_bytes:,} bytes, because of Claude's "
                f"own notes ({stat.fixed_lines} lines / {stat.fixed_bytes:,} bytes outside "
                "pokayokay's entries). Archiving pokayokay's entries cannot fix that, so none "
                "are archived for it and no section is added past the cut; moving detail from "
                "those notes into topic files linked from MEMORY.md fixes it."
            )
        elif stat.over:
            self.notes.append(
                f"MEMORY.md is {stat.lines} lines / {stat.bytes:,} bytes, over Claude Code's load "
                f"limit of {stat.max_lines} lines / {stat.max_bytes:,} bytes, because of notes "
                f"outside pokayokay's sections ({stat.unmanaged_lines} lines). pokayokay never "
                "edits those; moving detail into topic files linked from MEMORY.md fixes it."
            )


def curate(
    text: str,
    settings: Settings,
    archives: Mapping[str, str],
    today: date,
    *,
    evict: bool = True,
    keep_empty: bool = False,
    droppable: Collection[str] = (),
) -> CurationResult:
    """Curate ``text`` (MEMORY.md); ``archives`` maps archive file names to their current text.

    With ``evict=False`` only the structure is repaired (sections added, merged, closed): what
    ``pokayokay init`` does to an existing MEMORY.md. New sections left empty are taken out
    (``memory/empty_sections``) unless ``keep_empty`` or ``settings.empty_sections``.

    A file with CR-only line endings is curated as if they were line feeds and written back with
    carriage returns (archives it creates too).
    """
    if cr_only(text):
        return _curate_cr_only(
            text, settings, archives, today, evict=evict, keep_empty=keep_empty, droppable=droppable
        )
    curator = _Curator(text, settings, archives, today)
    before = file_stat(curator.doc, text, settings)
    curator.merge_duplicates()
    curator.close_sections()
    curator.add_missing()
    curator.drop_new = not keep_empty and not settings.empty_sections
    curator.droppable = droppable
    curator.number_entries()
    curator.pin_links()
    for sec in curator.doc.sections() if evict else []:
        curator.enforce_budget(sec)
    for _ in range(len(settings.sections) + 2 if evict else 0):
        linked = curator.ensure_links()
        index = curator.doc.section(TOPIC_INDEX_ID)
        if index is not None:
            curator.enforce_budget(index)
        before_fit = len(curator.evicted)
        curator.fit_whole_file()
        if not linked and len(curator.evicted) == before_fit:
            break
    if curator.doc.section(TOPIC_INDEX_ID) is None and curator.evicted:
        curator.notes.append("the Topic Index section is not managed, so archives are not linked")
    if curator.drop_new:
        curator.drop_empty(droppable)
    new_text = curator.doc.render()
    new_archives, moves = curator.build_archives()
    after = file_stat(parse(new_text, settings.sections), new_text, settings)
    curator.budget_notes(after)
    return CurationResult(
        original=text,
        text=new_text,
        archives=new_archives,
        moves=moves,
        added_sections=curator.added_sections,
        dropped_sections=curator.dropped_sections,
        merged_duplicates=curator.merged,
        added_links=curator.added_links,
        closed_sections=curator.closed,
        notes=curator.notes,
        before=before,
        after=after,
        archive_before={k: v for k, v in archives.items() if k in new_archives},
        evict=evict,
        keep_empty=keep_empty,
        droppable=tuple(droppable),
    )


def _curate_cr_only(
    text: str,
    settings: Settings,
    archives: Mapping[str, str],
    today: date,
    *,
    evict: bool,
    keep_empty: bool,
    droppable: Collection[str],
) -> CurationResult:
    def back(new: str, old: str | None) -> str:
        # An archive that already uses line feeds keeps them; a new one follows MEMORY.md.
        if old is not None and not cr_only(old) and old:
            return new
        return new.replace("\n", "\r")

    inner = curate(
        text.replace("\r", "\n"),
        settings,
        {name: to_lf(old) for name, old in archives.items()},
        today,
        evict=evict,
        keep_empty=keep_empty,
        droppable=droppable,
    )
    inner.original = text
    inner.text = back(inner.text, None)
    inner.archives = {name: back(new, archives.get(name)) for name, new in inner.archives.items()}
    inner.archive_before = {k: v for k, v in archives.items() if k in inner.archives}
    return inner
