"""Reading recall's sources (learnings, Key Decisions, the consolidation archive, fix episodes)
into documents and their term counts; every text a block may show is cleaned and clipped here,
on read (:func:`pokayokay.recall.block.safe_text`: exact but for secrets and control characters).
:mod:`pokayokay.recall.sources` gathers them and keeps the cache."""

from __future__ import annotations

import os

from pokayokay.infra.lazyre import Lazy
from pokayokay.infra.private import (  # <private> text never reaches the cache
    may_hold_private,
    strip_private,
)
from pokayokay.names import FAILURES_DB, LEARNINGS_ARCHIVE_FILE
from pokayokay.recall.cache_io import MAX_TEXT_CHARS, shown_text
from pokayokay.relevance.concepts import features as term_counts
from pokayokay.relevance.note_index import Document

TYPE_CHECKING = False  # no typing import at run time: the prompt hook imports this module
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    from pokayokay.failures.model import FailureGroup
    from pokayokay.learnings.model import Learning
    from pokayokay.memory.sections import SectionSpec


def _crc32(text: str) -> int:
    """A short stable id for a text (zlib imported when a file is read, not on every prompt)."""
    import zlib

    return zlib.crc32(text.encode("utf-8", "surrogateescape"))


LEARNING_PREFIX = "learning-"
# Where consolidation moves the full text of learnings out of the staging file (the default
# name; a project that renames it in its settings keeps it linked from the Topic Index).
LEARNINGS_ARCHIVE = LEARNINGS_ARCHIVE_FILE
MEMORY_FILE = "MEMORY.md"
# Key Decisions' title and archive by default (``memory.sections.DEFAULT_SECTIONS``, which a
# prompt does not import: tests/recall/test_index_content.py holds them equal).
DEFAULT_DECISIONS_TITLE = "Key Decisions"
DEFAULT_DECISIONS_ARCHIVE = "decisions-archive.md"
SETTINGS_FILES = (".claude/pokayokay.md", ".claude/pokayokay.local.md")

MAX_FILE_BYTES = 64 * 1024
MAX_MEMORY_BYTES = 4 << 20
MAX_DECISIONS = 2000
MAX_FIX_GROUPS = 500
# A learning's confidence scales its score; session captures are stored as low.
CONFIDENCE_WEIGHT = {"high": 1.0, "medium": 1.0, "low": 0.9}
# An automatic past fix scores this share: at equal relevance the user's own notes come first.
FIX_WEIGHT = 0.85


def stat_key(path: str) -> list[int] | None:
    """``[mtime_ns, size]`` of ``path``, or None when it cannot be stat-ed (a cache key part)."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return [st.st_mtime_ns, st.st_size]


def _read_text(path: str, limit: int) -> str | None:
    """A regular file of at most ``limit`` bytes, decoded; None when unreadable or larger.

    Opened without blocking, so a FIFO named like a memory file cannot hang the hook.
    """
    import stat

    from pokayokay.infra.regular import open_nonblocking

    try:
        fd = open_nonblocking(path, os.O_RDONLY)
    except (OSError, ValueError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)
    if size > limit:
        return None
    data = b"".join(chunks)
    text = data.decode("utf-8", "replace")
    # The bytes' check lowers ASCII only (a 300 KB MEMORY.md: 0.2 ms, against 0.8 ms for the
    # text's): no "private" in them, none in the text (tests/infra/test_private.py).
    return strip_private(text) if may_hold_private(data) else text


def document_from_row(row: list[Any]) -> tuple[Document, dict[str, int]]:
    """A document and its term counts from a cache file's row (the inverse of ``document_row``)."""
    counts = row[6]
    return Document.from_row(row), {str(k): int(v) for k, v in counts.items()}


def learning_id(file_name: str) -> str:
    """The recall document id of the learning in the topic file ``file_name``."""
    return f"learning:{file_name.removeprefix(LEARNING_PREFIX).removesuffix('.md')}"


def learning_document(learning: Learning, file_name: str) -> tuple[Document, dict[str, int]]:
    """The document for one parsed learning, and the term counts of what is matched.

    The body is what is shown (exactly, clipped) and matched (as written: matching shows nothing);
    the description and the name add only the terms the body lacks (they are usually a
    shortened copy of it, and would count its words twice); so do the structured trigger and
    insight (``Learning.matched_fields``).
    """
    counts = term_counts(learning.text[:MAX_TEXT_CHARS])
    for extra in (learning.description[:MAX_TEXT_CHARS], *learning.matched_fields):
        for term in term_counts(extra):
            counts.setdefault(term, 1)
    asked = ""
    if learning.asked:  # how a teammate might ask for it: counted as written (decision 0175)
        from pokayokay.relevance.asked import phrase_terms

        for term, tf in term_counts("\n".join(learning.asked)).items():
            counts[term] = counts.get(term, 0) + tf
        asked = phrase_terms(learning.asked, term_counts)  # each phrase's own (decision 0177)
    doc = Document(
        learning_id(file_name),
        "learning",
        shown_text(learning.text),
        label=learning.category,
        weight=CONFIDENCE_WEIGHT.get(learning.confidence, 1.0),
        clean=True,
        asked=asked,
    )
    return doc, counts


def read_learning(path: str, file_name: str) -> tuple[Document, dict[str, int]] | None:
    from pokayokay.learnings.model import LearningFormatError
    from pokayokay.learnings.topics.topic_file import parse

    text = _read_text(path, MAX_FILE_BYTES)
    if text is None:
        return None
    try:
        learning = parse(text)
    except (LearningFormatError, ValueError):
        return None
    doc, counts = learning_document(learning, file_name)
    return (doc, counts) if doc.text and counts else None  # nothing to match or to show


def read_archive(path: str, file_name: str) -> list[tuple[Document, dict[str, int]]]:
    """The consolidated learnings of an archive file: one document per H2 entry (title and
    body, without its ``Target:`` line and the note saying where it came from)."""
    from pokayokay.learnings.aging.entries import parse_entries
    from pokayokay.learnings.consolidate.similarity import entry_body

    text = _read_text(path, MAX_MEMORY_BYTES)
    if text is None:
        return []
    out = []
    _preamble, entries = parse_entries(text)
    for entry in entries[:MAX_DECISIONS]:
        body = " ".join(entry_body(entry).split())
        whole = f"{entry.title.strip().rstrip('.')}: {body}" if body else entry.title
        shown = shown_text(whole)
        counts = term_counts(whole[:MAX_TEXT_CHARS])
        if not shown or not counts:
            continue
        key = _crc32(" ".join(shown.casefold().split()))
        doc = Document(f"archive:{key:08x}", "learning", shown, label="consolidated", clean=True)
        out.append((doc, counts))
    return out


def _bullets(lines: Iterable[str]) -> list[str]:
    """Top-level bullet entries (with their continuation lines) of a markdown text."""
    entries: list[list[str]] = []
    current: list[str] | None = None
    from pokayokay.infra.markdown import outside_fences  # not on a warm prompt's path

    for line in outside_fences(lines):
        stripped = line.strip()
        if not stripped:
            continue
        if line[:2] in ("- ", "* ", "+ "):
            current = [line[2:].strip()]
            entries.append(current)
        elif current is not None and line[:1] in (" ", "\t"):
            current.append(stripped)
        else:
            current = None  # a heading or prose ends the entry before it
    return [" ".join(parts) for parts in entries]


def decision_document(text: str) -> tuple[Document, dict[str, int]] | None:
    shown = shown_text(text)
    counts = term_counts(text[:MAX_TEXT_CHARS])
    if not shown or not counts:
        return None
    key = _crc32(" ".join(shown.casefold().split()))
    return Document(f"decision:{key:08x}", "decision", shown, clean=True), counts


def _section_specs(project_dir: str) -> tuple[SectionSpec, ...]:
    """The managed sections, from the project's settings files when there are any."""
    from pokayokay.memory.sections import DEFAULT_SECTIONS

    if any(stat_key(os.path.join(project_dir, rel)) for rel in SETTINGS_FILES):
        from pathlib import Path

        try:
            from pokayokay.config.settings import load_settings

            return load_settings(Path(project_dir)).sections
        except Exception as exc:  # a broken settings file must not cost the prompt its recall
            from pokayokay.infra.logs import fail_open

            fail_open("recall: reading the settings (default sections used)", exc)
    return DEFAULT_SECTIONS


# A spike conclusion ``spike record`` wrote into Key Decisions
# (learnings.outcomes.observed.spike_entry).
_SPIKE_DECISION = Lazy(r"^\d{4}-\d{2}-\d{2} Spike: ")


def read_decisions(memory_dir: str, project_dir: str) -> list[tuple[Document, dict[str, int]]]:
    """Key Decisions entries from MEMORY.md, then from the section's archive file."""
    return decision_documents(decision_texts(memory_dir, project_dir))


def decision_texts(memory_dir: str, project_dir: str) -> list[str]:
    """The Key Decisions entries' texts (MEMORY.md's, then its archive file's), before they are
    cleaned and analysed: :func:`decision_documents` of equal texts are equal documents."""
    return DecisionSource(memory_dir, project_dir).texts()


def key_digest(key: list[Any]) -> str:
    """:meth:`DecisionSource.digest` of a key as the entries cache holds it."""
    import zlib

    body, archived = key
    text = "\x00".join(body) if body is not None else "\x01"
    data = f"{text}\x02{chr(0).join(archived)}".encode("utf-8", "surrogatepass")
    return f"{len(data):x}-{zlib.crc32(data):08x}-{zlib.adler32(data):08x}"


class DecisionSource:
    """What the Key Decisions texts are made of, read without CommonMark.

    ``key``: the Key Decisions section's body lines in MEMORY.md as the structure scan finds
    them (``memory.structure.section_body``: headings, markers and fences only, no document
    model; None without the section) and the archive file's entry texts. :meth:`texts` reads
    the section's entries (CommonMark, imported when a body needs it). A section's entries are
    a function of its body lines, so equal keys give equal texts, and a MEMORY.md rewritten
    outside Key Decisions is told apart from a changed decision at the cost of the scan.
    """

    __slots__ = ("_memory", "_project_dir", "key")

    def __init__(self, memory_dir: str, project_dir: str) -> None:
        from pokayokay.memory.structure import section_body

        self._project_dir = project_dir
        title: str | None = DEFAULT_DECISIONS_TITLE
        archive = DEFAULT_DECISIONS_ARCHIVE
        if any(stat_key(os.path.join(project_dir, rel)) for rel in SETTINGS_FILES):
            spec = next((s for s in _section_specs(project_dir) if s.id == "key_decisions"), None)
            title, archive = (spec.title, spec.archive) if spec else (None, archive)
        memory = _read_text(os.path.join(memory_dir, MEMORY_FILE), MAX_MEMORY_BYTES)
        self._memory = memory if title is not None else None
        body = section_body(self._memory, title) if self._memory and title else None
        archived = _read_text(os.path.join(memory_dir, archive), MAX_MEMORY_BYTES)
        self.key: list[Any] = [body, _bullets(archived.splitlines()) if archived else []]

    def digest(self) -> str:
        """A short digest of :attr:`key` (what the index file keeps: Key Decisions may run to
        thousands of lines, and every prompt reads that file's head)."""
        return key_digest(self.key)

    def texts(self) -> list[str]:
        body, archived = self.key
        texts: list[str] = []
        archived_texts: list[str] = archived
        if body is not None and self._memory:
            from pokayokay.memory.document import parse

            specs = _section_specs(self._project_dir)
            section = parse(self._memory, specs).section("key_decisions")
            if section is not None:
                bullet = Lazy(r"^\s*[-*+]\s+")
                texts += [bullet.sub("", " ".join(e.text.split())) for e in section.entries]
        return texts + archived_texts


def decision_documents(texts: list[str]) -> list[tuple[Document, dict[str, int]]]:
    """The documents of :func:`decision_texts` (a function of the texts alone)."""
    out = []
    seen: set[str] = set()
    for text in texts[:MAX_DECISIONS]:
        if _SPIKE_DECISION.match(text):
            continue  # skill suggestion surfaces an answered spike when the prompt asks it
        made = decision_document(text)
        if made is not None and made[0].id not in seen:
            seen.add(made[0].id)
            out.append(made)
    return out


def fix_text(
    category: str, sessions: int, excerpt: str, commands: Iterable[str], paths: Iterable[str]
) -> str:
    """A fix episode in one factual sentence: the failure's error line in a code span (or its
    category alone when that line may not be shown: :func:`pokayokay.safety.sanitize.tool_line`),
    the commands and paths as exact code spans (a path that may not be shown is left out)."""
    from pokayokay.rules.evidence import category_name, shown_path
    from pokayokay.safety.exact import code_span
    from pokayokay.safety.sanitize import tool_line

    commands = list(commands)[:2]
    shown_paths = [p for p in (shown_path(x) for x in list(paths)[:4]) if p]
    line = tool_line(excerpt, 160)
    kind = category_name(category) or "recurring"
    shown = code_span(line) if line else "An error not shown"
    text = f"{shown} ({kind} failure, {sessions} session"
    text += "s)." if sessions != 1 else ")."
    if commands:
        text += " Resolved by " + ", ".join(code_span(c) for c in commands)
        text += f" after edits to {', '.join(shown_paths)}." if shown_paths else "."
    elif shown_paths:
        text += f" Resolved after edits to {', '.join(shown_paths)}."
    return text


def read_fixes(state_dir: str) -> list[tuple[Document, dict[str, int]]]:
    """Failure groups that a later success closed, as documents (nothing without a store)."""
    return fix_documents(fixed_groups(state_dir))


def fixed_groups(state_dir: str) -> list[FailureGroup]:
    """The failure groups a fix episode closed, as the store holds them (nothing without a
    store, which is never created just to be read)."""
    db = os.path.join(state_dir, FAILURES_DB)
    if not os.path.isfile(db):
        return []
    from pokayokay.failures.store import FailureStore

    with FailureStore(db) as store:
        groups = store.failure_groups(fixed_only=True)
    return [g for g in groups if g.corrections or g.fix_paths][:MAX_FIX_GROUPS]


def fix_inputs(groups: Iterable[FailureGroup]) -> list[list[Any]]:
    """What a fix document is made of, raw (its digest says whether the documents changed,
    without sanitising or analysing anything)."""
    return [
        [g.signature, g.category, g.sessions, g.excerpt, [c.corrected for c in g.corrections],
         list(g.fix_paths)]
        for g in groups
    ]  # fmt: skip


def fix_documents(groups: Iterable[FailureGroup]) -> list[tuple[Document, dict[str, int]]]:
    from pokayokay.safety.shown import shown_commands

    out = []
    for group in groups:
        commands = shown_commands(c.corrected for c in group.corrections)  # never a re-run
        paths = [p[:120] for p in group.fix_paths]
        shown = shown_text(fix_text(group.category, group.sessions, group.excerpt, commands, paths))
        search = " ".join([group.excerpt, group.category, *commands, *paths])
        key = _crc32(group.signature)
        doc = Document(f"fix:{key:08x}", "fix", shown, clean=True, weight=FIX_WEIGHT)
        out.append((doc, term_counts(search[:MAX_TEXT_CHARS])))
    return out
