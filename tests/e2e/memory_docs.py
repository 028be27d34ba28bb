"""MEMORY.md documents for the end-to-end tests, and readers for what pokayokay made of them.

The layout pokayokay manages (spec §1): six ``## Heading`` sections, each followed by a marker
line ``<!-- pokayokay: ... -->`` and closed by ``<!-- /pokayokay -->``; an entry is a top-level
``- `` bullet plus its continuation lines. Everything else is Claude's own text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path

MAX_LINES = 200
MAX_BYTES = 25_000
END_MARKER = "<!-- /pokayokay -->"
TRUNCATION_WARNING = "WARNING: MEMORY.md is"


@dataclass(frozen=True)
class SectionContract:
    title: str
    budget: int
    archive: str
    prefix: str  # id prefix of the entries this file generates for the section
    marker: str  # the marker text of spec §1
    max_entries: int | None = None


SECTIONS: tuple[SectionContract, ...] = (
    SectionContract("Completed Work", 20, "completed-work-archive.md", "CW",
                    "managed by session hooks"),
    SectionContract("Key Decisions", 40, "decisions-archive.md", "KD",
                    "promoted from session handoffs"),
    SectionContract("Architecture Notes", 30, "architecture-archive.md", "AN",
                    "stable project structure"),
    SectionContract("Active Patterns", 15, "patterns-archive.md", "AP",
                    "graduated to .claude/rules/ when confirmed"),
    SectionContract("Recent Bug Fixes", 15, "bugfixes-archive.md", "BF",
                    "rotated, max 5 entries", max_entries=5),
    SectionContract("Topic Index", 10, "topic-index-archive.md", "TI", "links to detail files"),
)
SECTION_BY_PREFIX = {s.prefix: s for s in SECTIONS}

# Claude Code's own notes: one-line index entries pointing at topic files (interfaces doc §2.4).
LEADING_NOTES = [
    f"- [{title}]({slug}.md) — NOTE-LEAD-{n:02d} {hook}"
    for n, (title, slug, hook) in enumerate([
        ("Deploy checklist", "deploy-checklist", "steps before tagging a release"),
        ("Test database", "test-db", "tests need the sqlite fixture, never the dev db"),
        ("User prefers uv", "prefers-uv", "run tools with uv run, not pip"),
        ("Flaky network test", "flaky-network", "test_fetch retries once on CI"),
        ("Style guide", "style", "black line length is 100 here"),
        ("API versioning", "api-versioning", "v2 routes live in api/v2/"),
        ("Release cadence", "release-cadence", "minor release every second Tuesday"),
        ("Secrets handling", "secrets", "never print .env values in logs"),
    ], start=1)
]
TRAILING_NOTES = [
    f"- [{title}]({slug}.md) — NOTE-TAIL-{n:02d} {hook}"
    for n, (title, slug, hook) in enumerate([
        ("Profiling recipe", "profiling", "py-spy against the worker, not the web process"),
        ("Migration gotcha", "migrations", "alembic autogenerate misses enum changes"),
        ("Docs build", "docs-build", "mkdocs needs the plugins extra"),
        ("Cache layout", "cache-layout", "keys are namespaced by tenant id"),
        ("On-call notes", "on-call", "page the owner of the failing job first"),
    ], start=1)
]
ALL_NOTES = LEADING_NOTES + TRAILING_NOTES

# Entries per section in the over-budget document, and how many lines each entry spans.
OVER_BUDGET_COUNTS = {"CW": 72, "KD": 30, "AN": 45, "AP": 30, "BF": 12, "TI": 3}
MULTI_LINE = {"KD"}  # Key Decisions entries carry a continuation line

_FIRST_DAY = date(2025, 1, 6)


def entry_id(prefix: str, n: int) -> str:
    return f"{prefix}-{n:03d}"


def entry_lines(prefix: str, n: int) -> list[str]:
    when = (_FIRST_DAY + timedelta(days=3 * n)).isoformat()
    ident = entry_id(prefix, n)
    if prefix == "TI":
        return [f"- [Topic {n}](topic-{n}.md) — {ident} {when} detail notes"]
    if prefix in MULTI_LINE:
        return [f"- {when}: {ident} chose option {n} over the alternative",
                f"  Why: measured in session {n}; revisit when the load doubles."]
    return [f"- {when}: {ident} work item number {n} finished and verified"]


@dataclass
class MemoryDoc:
    text: str
    ids: dict[str, list[str]] = field(default_factory=dict)  # prefix -> ids, oldest first
    lines: dict[str, int] = field(default_factory=dict)  # prefix -> entry lines in the section
    leading: str = ""
    trailing: str = ""

    @property
    def all_ids(self) -> list[str]:
        return [i for ids in self.ids.values() for i in ids]

    def over_budget(self, section: SectionContract) -> bool:
        count = len(self.ids.get(section.prefix, []))
        too_many = section.max_entries is not None and count > section.max_entries
        return self.lines.get(section.prefix, 0) > section.budget or too_many


def over_budget_memory(counts: dict[str, int] | None = None) -> MemoryDoc:
    """Claude's notes first, six managed sections far over their budgets, more of Claude's notes
    after the last section: well over 200 lines, so Claude Code truncates it."""
    counts = counts or OVER_BUDGET_COUNTS
    leading = "\n".join(LEADING_NOTES) + "\n\n"
    trailing = "\n" + "\n".join(TRAILING_NOTES) + "\n"
    parts = [leading]
    ids: dict[str, list[str]] = {}
    sizes: dict[str, int] = {}
    for section in SECTIONS:
        n_entries = counts.get(section.prefix, 0)
        lines = [f"## {section.title}", f"<!-- pokayokay: {section.marker} -->"]
        for n in range(1, n_entries + 1):
            lines += entry_lines(section.prefix, n)
        sizes[section.prefix] = len(lines) - 2
        lines.append(END_MARKER)
        ids[section.prefix] = [entry_id(section.prefix, n) for n in range(1, n_entries + 1)]
        parts.append("\n".join(lines) + "\n\n")
    body = "".join(parts).rstrip("\n") + "\n"
    return MemoryDoc(text=body + trailing, ids=ids, lines=sizes, leading=leading,
                     trailing=trailing)


# -- reading a curated MEMORY.md -------------------------------------------------------------------

@dataclass
class ParsedSection:
    title: str
    body: list[str]  # lines between the marker line and the end marker (exclusive)

    @property
    def entries(self) -> list[list[str]]:
        found: list[list[str]] = []
        for line in self.body:
            if line.startswith("- "):
                found.append([line])
            elif found and line.strip() and line[:1].isspace():
                found[-1].append(line)
        return found

    @property
    def content_lines(self) -> list[str]:
        return [line for line in self.body if line.strip()]


def parse_sections(text: str) -> dict[str, ParsedSection]:
    """Managed sections by title: a ``## Title`` line, its marker, lines up to the end marker."""
    lines = text.splitlines()
    sections: dict[str, ParsedSection] = {}
    i = 0
    while i < len(lines):
        heading = re.match(r"^##\s+(.+?)\s*$", lines[i])
        if heading and i + 1 < len(lines) and lines[i + 1].lstrip().startswith("<!-- pokayokay:"):
            body: list[str] = []
            j = i + 2
            while (j < len(lines) and lines[j].strip() != END_MARKER
                   and not lines[j].startswith("#")):
                body.append(lines[j])
                j += 1
            sections[heading.group(1)] = ParsedSection(heading.group(1), body)
            i = j
        i += 1
    return sections


def line_count(text: str) -> int:
    return len(text.splitlines())


def ids_in(text: str, prefix: str) -> set[str]:
    return set(re.findall(rf"\b{prefix}-\d{{3}}\b", text))


def check_curated(memory: Path, doc: MemoryDoc) -> str:
    """Assert the contract on a curated MEMORY.md and its archives; returns the new MEMORY.md."""
    curated = memory.read_text(encoding="utf-8")
    assert curated != doc.text, "SessionEnd left MEMORY.md untouched"
    assert line_count(curated) <= MAX_LINES, f"{line_count(curated)} lines:\n{curated}"
    assert len(curated.encode("utf-8")) <= MAX_BYTES

    # Claude's own text outside the managed sections is byte-for-byte where it was.
    assert curated.startswith(doc.leading), curated[:2000]
    assert curated.endswith(doc.trailing), curated[-2000:]

    sections = parse_sections(curated)
    for section in SECTIONS:
        assert section.title in sections, f"section {section.title!r} missing:\n{curated}"
        parsed = sections[section.title]
        assert len(parsed.content_lines) <= section.budget, (
            f"{section.title}: {len(parsed.content_lines)} lines > budget {section.budget}:\n"
            + "\n".join(parsed.body)
        )
        if section.max_entries is not None:
            assert len(parsed.entries) <= section.max_entries, parsed.body

    archives_linked = sections["Topic Index"].body
    for prefix, ids in doc.ids.items():
        section = SECTION_BY_PREFIX[prefix]
        archive = memory.parent / section.archive
        kept = ids_in(curated, prefix)
        archive_text = archive.read_text(encoding="utf-8") if archive.exists() else ""
        archived = ids_in(archive_text, prefix)
        lost = set(ids) - kept - archived
        assert not lost, f"{section.title}: entries lost: {sorted(lost)}"
        assert not kept & archived, f"{section.title}: both kept and archived: {kept & archived}"
        if doc.over_budget(section):  # its oldest entries must have moved to the archive
            assert archive.is_file(), f"{archive.name} was not written"
            assert ids[0] in archived, f"oldest {ids[0]} not in {archive.name}"
            assert ids[-1] in kept, f"newest {ids[-1]} was evicted from {section.title}"
            assert any(f"]({section.archive})" in line for line in archives_linked), (
                f"{section.archive} is not linked from the Topic Index:\n"
                + "\n".join(archives_linked)
            )
    return curated
