"""MEMORY.md as a sequence of segments: Claude's text and pokayokay's managed sections (pure).

A managed section is a ``## Title`` line whose next non-blank line is a marker
``<!-- pokayokay: ... -->``. Its body runs until the end marker ``<!-- /pokayokay -->``, the next
``#``/``##`` heading, or the end of the file. Markers and column-0 ``#``/``##`` headings are
structure whatever code fences surround them: an unclosed fence ends at the next one, so a fence
can hide neither a section's end nor the next section. Inside a section's body, entries are the
top-level bullet list items CommonMark finds (``memory/commonmark``). Blank lines directly
before the heading belong to the section (its lead), so text that is not in a section never
starts or ends at a place pokayokay writes.

Every line is kept with its own line terminator, so ``render(parse(text)) == text`` for any input:
Claude's text survives byte for byte.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import NamedTuple

from pokayokay.memory.commonmark import fence_closing, read_blocks
from pokayokay.memory.sections import END_MARKER, SectionSpec
from pokayokay.memory.structure import (  # (the names other modules find here)
    END_MARKER_RE as END_MARKER_RE,
)
from pokayokay.memory.structure import (
    HEADING_RE as HEADING_RE,
)
from pokayokay.memory.structure import (
    MARKER_RE as MARKER_RE,
)
from pokayokay.memory.structure import (
    body_span,
    fenced_lines,
    is_boundary_heading,
)
from pokayokay.memory.structure import (
    is_blank as is_blank,
)
from pokayokay.memory.structure import (
    is_structure as is_structure,
)
from pokayokay.memory.structure import (
    normalise_title as normalise_title,
)
from pokayokay.memory.structure import (
    split_lines as split_lines,
)
from pokayokay.memory.structure import (
    strip_eol as strip_eol,
)

BULLET_RE = re.compile(r"^[-*+][ \t]")
DATE_RE = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")


def cr_only(text: str) -> bool:
    """Classic Mac line endings: carriage returns and not one line feed."""
    return "\r" in text and "\n" not in text


def to_lf(text: str) -> str:
    """A CR-only text with line feeds instead (curation works on that and converts back); any
    other text unchanged."""
    return text.replace("\r", "\n") if cr_only(text) else text


def detect_newline(text: str) -> str:
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf * 2 >= text.count("\n") else "\n"


@dataclass
class Entry:
    """A top-level bullet plus its continuation lines."""

    lines: list[str]
    pinned: bool = False

    @property
    def date(self) -> date | None:
        for line in self.lines[:1] or []:
            for match in DATE_RE.finditer(line):
                try:
                    return date(int(match[1]), int(match[2]), int(match[3]))
                except ValueError:
                    continue  # not a real date: try the next
        return None

    @property
    def text(self) -> str:
        return "".join(self.lines)


@dataclass
class Prose:
    """Lines inside a section that are not an entry (blank lines, paragraphs, sub-headings)."""

    lines: list[str]


Unit = Entry | Prose


@dataclass
class Section:
    spec: SectionSpec
    lead: list[str]
    heading: str
    pre_marker: list[str]
    marker: str
    units: list[Unit]
    end: str | None

    @property
    def body_lines(self) -> list[str]:
        return [line for unit in self.units for line in unit.lines]

    @property
    def entries(self) -> list[Entry]:
        return [unit for unit in self.units if isinstance(unit, Entry)]

    @property
    def size(self) -> int:
        """Body lines counted against the budget: all of them but trailing blank lines."""
        lines = self.body_lines
        n = len(lines)
        while n and is_blank(lines[n - 1]):
            n -= 1
        return n

    def structure_lines(self) -> list[str]:
        lines = [self.heading, self.marker]
        if self.end is not None:
            lines.append(self.end)
        return lines

    def render(self) -> str:
        parts = [*self.lead, self.heading, *self.pre_marker, self.marker, *self.body_lines]
        if self.end is not None:
            parts.append(self.end)
        newline = "\r\n" if self.heading.endswith("\r\n") else "\n"
        # A line that lost its place at the end of the file (merged, or followed by a new end
        # marker) gets a terminator rather than being glued to the next line.
        for i in range(len(parts) - 1):
            if not parts[i].endswith("\n"):
                parts[i] += newline
        return "".join(parts)


@dataclass
class Text:
    """Claude's or the user's text: never changed by pokayokay."""

    lines: list[str]


Segment = Text | Section


@dataclass
class Document:
    segments: list[Segment]
    newline: str
    problems: list[str] = field(default_factory=list)
    # Section ids whose heading exists without a marker: pokayokay must not add a second copy.
    unmarked: set[str] = field(default_factory=set)

    def sections(self) -> list[Section]:
        return [seg for seg in self.segments if isinstance(seg, Section)]

    def section(self, section_id: str) -> Section | None:
        for seg in self.segments:
            if isinstance(seg, Section) and seg.spec.id == section_id:
                return seg
        return None

    def render(self) -> str:
        return self.render_upto(len(self.segments))

    def render_upto(self, stop: int) -> str:
        out: list[str] = []
        for seg in self.segments[:stop]:
            chunk = seg.render() if isinstance(seg, Section) else "".join(seg.lines)
            if not chunk:
                continue
            if out and not out[-1].endswith("\n"):
                out.append(self.newline)
            out.append(chunk)
        return "".join(out)


def parse(text: str, specs: Sequence[SectionSpec], *, entries: bool = True) -> Document:
    """MEMORY.md as segments: Claude's text, and the managed sections. ``entries=False``
    leaves each section's body as one :class:`Prose` unit instead of reading its entries
    (CommonMark): the segments, the problems and the rendered text are the same, at a fraction
    of the cost, for a reader that needs only where the sections are (SessionStart's note)."""
    lines = split_lines(text)
    fenced = fenced_lines(lines)
    by_title = {normalise_title(spec.title): spec for spec in specs}
    doc = Document(segments=[], newline=detect_newline(text))
    seen: set[str] = set()
    text_buf: list[str] = []
    quiet: set[int] = set()  # marker lines of sections pokayokay does not know: reported once
    i = 0
    n = len(lines)

    def flush_text(upto_lead: int) -> list[str]:
        """Split trailing blank lines off the text buffer: they become the next section's lead."""
        cut = len(text_buf)
        while cut > upto_lead and is_blank(text_buf[cut - 1]):
            cut -= 1
        lead = text_buf[cut:]
        del text_buf[cut:]
        if text_buf:
            doc.segments.append(Text(list(text_buf)))
            text_buf.clear()
        return lead

    while i < n:
        line = lines[i]
        if not fenced[i]:
            heading = HEADING_RE.match(strip_eol(line))
            if heading and len(heading[1]) == 2:
                j = i + 1
                while j < n and is_blank(lines[j]):
                    j += 1
                marker_ok = j < n and not fenced[j] and MARKER_RE.match(strip_eol(lines[j]))
                spec = by_title.get(normalise_title(heading[2]))
                if marker_ok and spec is not None:
                    if spec.id in seen:
                        doc.problems.append(
                            f"duplicate managed section '{spec.title}' at line {i + 1}: "
                            "its entries were merged into the first one"
                        )
                    seen.add(spec.id)
                    section, i = _parse_section(lines, fenced, i, j, spec, entries)
                    section.lead = flush_text(0)
                    doc.segments.append(section)
                    continue
                if marker_ok:
                    quiet.add(j)
                    k = j + 1
                    while k < n and not (not fenced[k] and is_boundary_heading(lines[k])):
                        if not fenced[k] and END_MARKER_RE.match(strip_eol(lines[k])):
                            quiet.add(k)
                            break
                        k += 1
                    doc.problems.append(
                        f"line {i + 1}: section '{heading[2]}' has a pokayokay marker but is not a "
                        "configured section; left as it is"
                    )
                elif spec is not None and spec.id not in seen:
                    doc.unmarked.add(spec.id)
                    doc.problems.append(
                        f"line {i + 1}: heading '{heading[2]}' has no pokayokay marker under it, "
                        "so pokayokay does not manage it (add the marker line to hand it over)"
                    )
            elif i in quiet:
                pass
            elif MARKER_RE.match(strip_eol(line)):
                doc.problems.append(
                    f"line {i + 1}: pokayokay marker without its '## ' heading; left as it is"
                )
            elif END_MARKER_RE.match(strip_eol(line)):
                doc.problems.append(
                    f"line {i + 1}: stray end marker outside any managed section; left as it is"
                )
        text_buf.append(line)
        i += 1
    flush_text(len(text_buf))
    return doc


def _parse_section(
    lines: list[str], fenced: list[bool], head: int, marker: int, spec: SectionSpec, entries: bool
) -> tuple[Section, int]:
    body, end, i = body_span(lines, fenced, marker)
    section = Section(
        spec=spec,
        lead=[],
        heading=lines[head],
        pre_marker=lines[head + 1 : marker],
        marker=lines[marker],
        units=list(_units(body)) if entries else ([Prose(body)] if body else []),
        end=end,
    )
    return section, i


def units_of(body: list[str]) -> list[Unit]:
    """A body's lines grouped into entries and prose as :func:`parse` groups them: what a body
    put together from pieces (two copies of a section merged) is once written and read again."""
    return list(_units(body))


def _units(body: list[str]) -> Iterable[Unit]:
    """Group body lines into entries and prose, as CommonMark reads the body: an entry starts
    at each top-level bullet list item (``memory/commonmark``) and takes the lines after it
    up to the next one, except what follows a blank line unindented (prose). A code fence or
    HTML block right after an entry stays with it, whatever it holds."""
    blocks = read_blocks(body)
    current: Entry | Prose | None = None
    pending_blank: list[str] = []
    for idx, line in enumerate(body):
        in_code = idx in blocks.code
        if is_blank(line):
            pending_blank.append(line)
            continue
        indented = line[:1] in (" ", "\t")
        if idx in blocks.starts:
            if current is not None:
                yield current
            if pending_blank:
                yield Prose(pending_blank)
                pending_blank = []
            current = Entry([line])
        elif isinstance(current, Entry) and (
            indented or in_code or (not pending_blank and not line.startswith("#"))
        ):
            # Indented lines continue the entry, even after a blank line; an unindented line
            # right after the entry is a lazy continuation of its paragraph.
            current.lines.extend(pending_blank)
            pending_blank = []
            current.lines.append(line)
        else:
            if isinstance(current, Prose):
                current.lines.extend(pending_blank)
            else:
                if current is not None:
                    yield current
                current = Prose(list(pending_blank))
            pending_blank = []
            current.lines.append(line)
    if current is not None:
        yield current
    if pending_blank:
        yield Prose(pending_blank)


def close_open_fences(doc: Document) -> list[str]:
    """Give every section body that ends inside a code fence its closing line (the body's own
    fence run, at its indentation), so an entry appended or merged after it, or the text that
    follows, can never be read as code. A fence CommonMark ends with its list item needs none.
    Returns the titles of the sections given one."""
    added: list[str] = []
    for sec in doc.sections():
        closing = fence_closing(sec.body_lines) if sec.units else None
        if closing is None:
            continue
        last = sec.units[-1].lines
        if not last[-1].endswith("\n"):
            last[-1] += doc.newline
        last.append(closing + doc.newline)
        added.append(sec.spec.title)
    return added


def new_section(spec: SectionSpec, newline: str, lead_blank: bool) -> Section:
    return Section(
        spec=spec,
        lead=[newline] if lead_blank else [],
        heading=f"## {spec.title}{newline}",
        pre_marker=[],
        marker=f"{spec.marker_line}{newline}",
        units=[],
        end=f"{END_MARKER}{newline}",
    )


def units_lines(units: Sequence[Unit]) -> int:
    """Lines the units take, trailing blank lines not counted (what a section's budget measures)."""
    lines = [line for unit in units for line in unit.lines]
    n = len(lines)
    while n and is_blank(lines[n - 1]):
        n -= 1
    return n


def count_lines(text: str) -> int:
    """Lines as Claude Code counts them: a final line without a terminator still counts."""
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def unmanaged_lines(doc: Document) -> list[str]:
    """Claude's text, line by line, for comparison before and after curation.

    Blank lines at the end of a run are left out: they are layout. Where a run ends right before
    a managed heading the parser counts them as that section's lead, and a section appended
    after the last run takes them over the same way (they stay in the file).
    """
    out: list[str] = []
    for seg in doc.segments:
        if isinstance(seg, Text):
            lines = list(seg.lines)
            while lines and is_blank(lines[-1]):
                lines.pop()
            out.extend(lines)
    return out


def same_unmanaged(before: Document, after: Document) -> bool:
    """Is Claude's text the same, byte for byte? The file's last line may gain a terminator."""
    old, new = unmanaged_lines(before), unmanaged_lines(after)
    if len(old) != len(new):
        return False
    if old and not old[-1].endswith("\n"):
        return old[:-1] == new[:-1] and strip_eol(new[-1]) == old[-1]
    return old == new


class FreeText(NamedTuple):
    """A line inside a managed section that is no entry: text Claude (or someone) wrote there."""

    section: str  # the section's title
    line: int  # 1-based line number in MEMORY.md
    text: str  # the line, stripped


def free_text_in_sections(doc: Document) -> list[FreeText]:
    """Non-blank lines inside managed sections that belong to no entry (pure). pokayokay never
    moves or archives them, but they count against the section's budget."""
    found: list[FreeText] = []
    line = 1
    for seg in doc.segments:
        if isinstance(seg, Text):
            line += len(seg.lines)
            continue
        line += len(seg.lead) + 1 + len(seg.pre_marker) + 1
        for unit in seg.units:
            if isinstance(unit, Prose):
                for offset, text in enumerate(unit.lines):
                    if not is_blank(text):
                        found.append(FreeText(seg.spec.title, line + offset, text.strip()))
            line += len(unit.lines)
        if seg.end is not None:
            line += 1
    return found
