"""Where a consolidated learning goes (pure): an explicit Target line, else keywords route
decisions and architecture notes to MEMORY.md sections and the rest to the archive file; the
text moved there and removed from the staging file."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date

from pokayokay.infra.markdown import outside_fences
from pokayokay.learnings.aging.entries import LearningEntry, parse_entries
from pokayokay.learnings.consolidate.consolidation_config import (
    BULLET_MAX,
    DEFAULT_CONFIG,
    ConsolidationConfig,
)
from pokayokay.learnings.consolidate.similarity import (
    TARGET_LINE,
    entry_body,
    wordset,
)
from pokayokay.memory.document import split_lines
from pokayokay.names import MEMORY_FILE

DECISIONS_ID = "key_decisions"


ARCHITECTURE_ID = "architecture_notes"


_DECISION_WORDS = wordset(
    """
    decide decided decides deciding decision decisions chose choose chosen choosing agreed agree
    agreement policy policies convention conventions standardize standardise standardized
    standardised adopt adopted settled mandate mandatory
    """
)


_DECISION_PHRASES = ("we will", "we'll", "from now on", "going forward", "settled on", "signed off")


_ARCHITECTURE_WORDS = wordset(
    """
    architecture architectural module modules component components layer layers layering
    service services structure structured schema schemas entrypoint entrypoints pipeline
    pipelines boundary boundaries subsystem subsystems monorepo microservice microservices
    """
)


_ARCHITECTURE_PHRASES = (
    "entry point",
    "data flow",
    "call graph",
    "directory structure",
    "folder structure",
    "project layout",
    "repository layout",
)


@dataclass(frozen=True)
class Route:
    """Where an entry goes.

    ``kind``: ``section`` (a MEMORY.md managed section: bullet there, full text in the archive
    topic file), ``memory`` (a topic file in the memory folder, ``path`` is its name) or
    ``project`` (a file in the project, ``path`` relative to the project folder).
    """

    kind: str
    path: str
    section_id: str | None = None
    explicit: bool = False
    label: str = ""

    @property
    def key(self) -> tuple[str, str]:
        return (
            ("section", self.section_id or "") if self.kind == "section" else (self.kind, self.path)
        )


@dataclass(frozen=True)
class SectionInfo:
    """What routing needs to know about a managed section."""

    id: str
    title: str
    archive: str


def target_value(entry: LearningEntry) -> str | None:
    """The value of the entry's ``Target:`` line, if it has one."""
    for line in entry.body:
        match = TARGET_LINE.match(line.rstrip("\r\n"))
        if match and match[1]:
            return match[1].strip().strip("`").strip()
    return None


def keyword_route(entry: LearningEntry) -> str | None:
    """``key_decisions``, ``architecture_notes`` or None (the archive topic file)."""
    title = entry.title.casefold()
    body = entry_body(entry).casefold()

    def score(words: frozenset[str], phrases: tuple[str, ...]) -> int:
        total = 0
        for text, weight in ((title, 2), (body, 1)):
            tokens = re.findall(r"[a-z]+", text)
            total += weight * sum(1 for t in tokens if t in words)
            total += weight * sum(text.count(p) for p in phrases)
        return total

    decision = score(_DECISION_WORDS, _DECISION_PHRASES)
    architecture = score(_ARCHITECTURE_WORDS, _ARCHITECTURE_PHRASES)
    if decision == 0 and architecture == 0:
        return None
    return DECISIONS_ID if decision >= architecture else ARCHITECTURE_ID


def _normal_title(title: str) -> str:
    return " ".join(title.split()).casefold()


def _section_route(sec: SectionInfo, explicit: bool, config: ConsolidationConfig) -> Route:
    return Route(
        "section",
        config.archive,
        sec.id,
        explicit,
        f"MEMORY.md § {sec.title} (full text in {config.archive})",
    )


def _archive_route(config: ConsolidationConfig) -> Route:
    return Route("memory", config.archive, None, False, f"{config.archive} (memory folder)")


def default_routes(
    sections: Sequence[SectionInfo], config: ConsolidationConfig = DEFAULT_CONFIG
) -> list[Route]:
    """Every place the keyword router sends entries to (Key Decisions, Architecture Notes when
    managed, the archive topic file): a new entry is checked for contradictions against them
    all, not only against its own target."""
    picked = [s for s in sections if s.id in (DECISIONS_ID, ARCHITECTURE_ID)]
    return [*(_section_route(s, False, config) for s in picked), _archive_route(config)]


def route(
    entry: LearningEntry,
    sections: Sequence[SectionInfo],
    config: ConsolidationConfig = DEFAULT_CONFIG,
) -> Route | str:
    """The entry's route, or a one-line problem (the entry then stays in the staging file)."""
    by_key: dict[str, SectionInfo] = {}
    for info in sections:
        by_key[_normal_title(info.title)] = info
        by_key[info.id.casefold()] = info

    def to_section(sec: SectionInfo, explicit: bool) -> Route:
        return _section_route(sec, explicit, config)

    value = target_value(entry)
    if value is None:
        picked = keyword_route(entry)
        chosen = next((s for s in sections if s.id == picked), None)
        if chosen is not None:
            return to_section(chosen, False)
        return _archive_route(config)
    head, _, fragment = value.partition("#")
    if head.strip().casefold() in (MEMORY_FILE.casefold(), "memory"):
        if fragment.strip():
            found = by_key.get(_normal_title(fragment))
            if found is None:
                names = ", ".join(s.title for s in sections) or "none"
                return f"Target {value!r}: MEMORY.md has no managed section of that name ({names})"
            return to_section(found, True)
        picked = keyword_route(entry)
        chosen = next((s for s in sections if s.id == picked), None)
        if chosen is None:
            return f"Target {value!r}: name the section, e.g. 'Target: MEMORY.md#Key Decisions'"
        return to_section(chosen, True)
    if value.casefold().startswith("memory:"):
        name = value[len("memory:") :].strip()
        if (
            not name
            or "/" in name
            or "\\" in name
            or name.startswith(".")
            or not name.endswith(".md")
        ):
            return f"Target {value!r}: expected memory:<file name>.md (a topic file, no folders)"
        if name.casefold() == MEMORY_FILE.casefold():
            return f"Target {value!r}: use MEMORY.md#<section> to target MEMORY.md"
        return Route("memory", name, None, True, f"{name} (memory folder)")
    path = normalise_target_path(head.strip())
    if path is None:
        return (
            f"Target {value!r}: expected a markdown file inside the project "
            "(a relative path ending in .md)"
        )
    if posixpath.normcase(path) == posixpath.normcase(posixpath.normpath(config.learnings_file)):
        return f"Target {value!r} is the learnings file itself"
    return Route("project", path, None, True, path)


def normalise_target_path(value: str) -> str | None:
    """A project-relative POSIX path ending in ``.md`` that stays in the project, else None."""
    text = value.replace("\\", "/").strip()
    if not text or text.startswith("/") or re.match(r"^[A-Za-z]:", text) or "\0" in text:
        return None
    path = posixpath.normpath(text)
    if path == ".." or path.startswith("../") or path == "." or not path.endswith(".md"):
        return None
    if path.split("/")[0] == ".git":
        return None
    return path


def anchor(title: str) -> str:
    """GitHub-style heading anchor."""
    text = re.sub(r"[^\w\- ]", "", title.casefold())
    return text.strip().replace(" ", "-")


def summary_line(entry: LearningEntry) -> str:
    """The entry's first line of text (markdown markers and links flattened)."""
    for line in outside_fences(split_lines(entry_body(entry))):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        text = re.sub(r"^([-*+]|\d+[.)])\s+", "", text)
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
        return " ".join(text.split())
    return ""


def section_bullet(entry: LearningEntry, archive: str, today: date) -> str:
    """One line for a MEMORY.md section: date, title, summary and a link to the full text."""
    title = " ".join(entry.title.split())
    fragment = anchor(entry.title)
    link = (
        f" ([full text]({archive}#{fragment}))"
        if len(fragment) <= 60
        else f" ([full text]({archive}))"
    )
    head = f"- {today.isoformat()} {title}"
    room = BULLET_MAX - len(head) - len(link)
    if room < 0:
        head = head[: max(20, BULLET_MAX - len(link) - 1)].rstrip() + "…"
        return head + link
    summary = summary_line(entry)
    if summary and room > 8:
        text = f" — {summary}"
        if len(text) > room:
            text = text[: room - 1].rstrip() + "…"
        head += text
    return head + link


def _ensure_eol(lines: Iterable[str]) -> list[str]:
    out = list(lines)
    if out and not out[-1].endswith("\n"):
        out[-1] += "\n"
    return out


def moved_block(entry: LearningEntry, note: str) -> str:
    """The entry's lines, unchanged, then a note line saying where it came from."""
    lines = _ensure_eol(entry.lines)
    while lines and not lines[-1].strip():
        lines.pop()
    return "".join(lines) + f"<!-- {note} -->\n"


def append_blocks(text: str, blocks: Sequence[str], header: str) -> str:
    """``text`` (or ``header`` for a new file) with ``blocks`` appended, a blank line between
    blocks; a block whose lines are already there verbatim is not appended twice."""
    out = text if text else header
    for block in blocks:
        core = block.rstrip("\n")
        if core and core in out:
            continue
        if out and not out.endswith("\n"):
            out += "\n"
        if out and not out.endswith("\n\n"):
            out += "\n"
        out += block if block.endswith("\n") else block + "\n"
    return out


def remove_entries(text: str, blocks: Sequence[str]) -> tuple[str, list[str]]:
    """``text`` without the entries whose text is in ``blocks`` (each removed once); also the
    blocks that were not found (someone changed them meanwhile)."""
    wanted: dict[str, int] = {}
    for block in blocks:
        wanted[_block_key(block)] = wanted.get(_block_key(block), 0) + 1
    preamble, entries = parse_entries(text)
    kept = list(preamble)
    for entry in entries:
        key = _block_key(entry.text)
        if wanted.get(key, 0) > 0:
            wanted[key] -= 1
            continue
        kept.extend(entry.lines)
    missing = [block for block in blocks if wanted.get(_block_key(block), 0) > 0]
    for block in missing:
        wanted[_block_key(block)] -= 1
    return "".join(kept), missing


def _block_key(text: str) -> str:
    return "\n".join(line.rstrip("\r\n") for line in split_lines(text)).rstrip()
