"""The documents recall searches, gathered from the project's files, and their cache.

Three sources:

* learnings: the ``learning-*.md`` topic files in the auto-memory folder
  (``pokayokay.learnings.model``);
* decisions: the entries of MEMORY.md's Key Decisions section and of its archive file;
* fix episodes: failure groups in the failure store that a later success closed (a fix command
  or the files edited before it), when the store exists.

Every text that a block may show is sanitised here, when its file is read
(:func:`pokayokay.recall.index.safe_text`: stored files may have been edited by hand), and checked
again by :mod:`pokayokay.recall.index` when it renders. Matching uses the text as written: terms are
never shown. The Key Decisions archive is the one the settings name; changes to it are noticed
when it is the default ``decisions-archive.md`` or when MEMORY.md or a settings file changes.

The cache lives in the project's state folder, so that a prompt does not re-read every file:

* ``recall-index.json``: the finished index and the fingerprint of what it was built from (the
  name, mtime and size of every file involved). A prompt only lists the memory folder, stats the
  files and, when the fingerprint matches, loads this one file (postings and documents stay
  packed in strings until a query needs them).
* ``recall-entries.json``: each source's parsed documents with their term counts, keyed by the
  file's mtime and size, so that a changed file is re-read alone.

Work is capped: at most :data:`MAX_LEARNING_FILES` learning files, :data:`MAX_FILE_BYTES` of any
of them, :data:`MAX_MEMORY_BYTES` of MEMORY.md or the archive, :data:`MAX_FIX_GROUPS` failure
groups, and a time budget for parsing changed files; what the budget leaves out is read by the
next prompt (the index is then saved as incomplete, so the next prompt resumes). Nothing is
created when there is nothing to recall from, and the failure store is opened only if it exists.
"""

from __future__ import annotations

import json
import os
import time
import zlib

from pokayokay.names import FAILURES_DB, RECALL_ENTRIES_FILE, RECALL_INDEX_FILE
from pokayokay.recall.concepts import features as term_counts
from pokayokay.recall.index import Document, Index

TYPE_CHECKING = False  # no typing import at run time: the prompt hook imports this module
if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path
    from typing import Any

    from pokayokay.infra.locate import MemoryLocation
    from pokayokay.learnings.model import Learning
    from pokayokay.memory.sections import SectionSpec

CACHE_VERSION = 2
INDEX_FILE = RECALL_INDEX_FILE
ENTRIES_FILE = RECALL_ENTRIES_FILE
LEARNING_PREFIX = "learning-"
MEMORY_FILE = "MEMORY.md"
DEFAULT_DECISIONS_ARCHIVE = "decisions-archive.md"
SETTINGS_FILES = (".claude/pokayokay.md", ".claude/pokayokay.local.md")

MAX_LEARNING_FILES = 5000
MAX_FILE_BYTES = 64 * 1024
MAX_MEMORY_BYTES = 4 << 20
MAX_DECISIONS = 2000
MAX_FIX_GROUPS = 500
MAX_TEXT_CHARS = 2000
# Seconds of parsing per call before the rest is left to the next one.
DEFAULT_PARSE_BUDGET = 2.0

# A learning's confidence scales its score; session captures are stored as low.
CONFIDENCE_WEIGHT = {"high": 1.0, "medium": 1.0, "low": 0.9}
# An automatic past fix scores this share: at equal relevance the user's own notes come first.
FIX_WEIGHT = 0.85


# --------------------------------------------------------------------------------------------
# The fingerprint: what the index was built from


def _stat(path: str) -> list[int] | None:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return [st.st_mtime_ns, st.st_size]


def learning_files(memory_dir: str) -> list[tuple[str, list[int]]]:
    """``(file name, [mtime_ns, size])`` of every learning topic file, sorted by name."""
    found: list[tuple[str, list[int]]] = []
    try:
        with os.scandir(memory_dir) as it:
            for entry in it:
                name = entry.name
                if not (name.startswith(LEARNING_PREFIX) and name.endswith(".md")):
                    continue
                try:
                    if not entry.is_file():  # follows a symlink, as Claude's own reads do
                        continue
                    st = entry.stat()
                except OSError:
                    continue
                found.append((name, [st.st_mtime_ns, st.st_size]))
    except (OSError, ValueError):
        return []
    found.sort()
    return found[:MAX_LEARNING_FILES]


class Inputs:
    """Where the documents come from, and the stats that say whether they changed."""

    __slots__ = ("memory_dir", "project_dir", "state_dir", "learnings", "files")

    def __init__(self, memory_dir: Path, project_dir: Path, state_dir: Path) -> None:
        self.memory_dir = str(memory_dir)
        self.project_dir = str(project_dir)
        self.state_dir = str(state_dir)
        self.learnings = learning_files(self.memory_dir)
        memory = os.path.join(self.memory_dir, MEMORY_FILE)
        db = os.path.join(self.state_dir, FAILURES_DB)
        self.files: dict[str, list[int] | None] = {
            "memory": _stat(memory),
            "archive": _stat(os.path.join(self.memory_dir, DEFAULT_DECISIONS_ARCHIVE)),
            "db": _stat(db),
            "db-wal": _stat(db + "-wal"),
        }
        for rel in SETTINGS_FILES:
            self.files[rel] = _stat(os.path.join(self.project_dir, rel))

    @property
    def empty(self) -> bool:
        """Nothing to recall from: no learning, no MEMORY.md, no failure store."""
        return not self.learnings and not any(self.files[k] for k in ("memory", "archive", "db"))

    def fingerprint(self) -> str:
        """A short digest of every path, mtime and size involved (and of the analysis)."""
        from pokayokay.recall.index import ANALYSIS_VERSION

        parts = [f"{CACHE_VERSION}:{ANALYSIS_VERSION}", self.memory_dir]
        parts += [f"{name}:{stat[0]}:{stat[1]}" for name, stat in self.learnings]
        parts += [f"{key}:{stat}" for key, stat in self.files.items()]
        data = "\n".join(parts).encode("utf-8", "surrogateescape")
        return f"{len(data):x}-{zlib.crc32(data):08x}-{zlib.adler32(data):08x}"


# --------------------------------------------------------------------------------------------
# Reading the sources


def _read_text(path: str, limit: int) -> str | None:
    """A regular file of at most ``limit`` bytes, decoded; None when unreadable or larger.

    Opened without blocking, so a FIFO named like a memory file cannot hang the hook.
    """
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
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
    return b"".join(chunks).decode("utf-8", "replace")


def _shown(text: str) -> str:
    """The text a finding will show, sanitised now (on read) and clipped for the block."""
    from pokayokay.recall.block import safe_text

    return safe_text(text[: MAX_TEXT_CHARS * 4])


def _row(doc: Document, counts: dict[str, int]) -> list[Any]:
    return [doc.id, doc.kind, doc.label, doc.text, doc.weight, doc.clean, counts]


def _from_row(row: list[Any]) -> tuple[Document, dict[str, int]]:
    counts = row[6]
    return Document.from_row(row), {str(k): int(v) for k, v in counts.items()}


def learning_document(learning: Learning, file_name: str) -> tuple[Document, dict[str, int]]:
    """The document for one parsed learning, and the term counts of what is matched.

    The body is what is shown (sanitised) and matched (as written: matching shows nothing);
    the description and the name add only the terms the body lacks (they are usually a
    shortened copy of it, and would count its words twice).
    """
    counts = term_counts(learning.text[:MAX_TEXT_CHARS])
    for extra in (learning.description[:MAX_TEXT_CHARS], learning.name.replace("-", " ")):
        for term in term_counts(extra):
            counts.setdefault(term, 1)
    doc = Document(
        f"learning:{file_name.removeprefix(LEARNING_PREFIX).removesuffix('.md')}",
        "learning",
        _shown(learning.text),
        label=learning.category,
        weight=CONFIDENCE_WEIGHT.get(learning.confidence, 1.0),
        clean=True,
    )
    return doc, counts


def read_learning(path: str, file_name: str) -> tuple[Document, dict[str, int]] | None:
    from pokayokay.learnings.model import LearningFormatError
    from pokayokay.learnings.topic_file import parse

    text = _read_text(path, MAX_FILE_BYTES)
    if text is None:
        return None
    try:
        learning = parse(text)
    except (LearningFormatError, ValueError):
        return None
    doc, counts = learning_document(learning, file_name)
    return (doc, counts) if doc.text and counts else None  # nothing to match or to show


def _bullets(lines: Iterable[str]) -> list[str]:
    """Top-level bullet entries (with their continuation lines) of a markdown text."""
    entries: list[list[str]] = []
    current: list[str] | None = None
    fence = False
    for line in lines:
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            fence = not fence
            continue
        if fence or not stripped:
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
    shown = _shown(text)
    counts = term_counts(text[:MAX_TEXT_CHARS])
    if not shown or not counts:
        return None
    key = zlib.crc32(" ".join(shown.casefold().split()).encode("utf-8", "surrogateescape"))
    return Document(f"decision:{key:08x}", "decision", shown, clean=True), counts


def _section_specs(project_dir: str) -> tuple[SectionSpec, ...]:
    """The managed sections, from the project's settings files when there are any."""
    from pokayokay.memory.sections import DEFAULT_SECTIONS

    if any(_stat(os.path.join(project_dir, rel)) for rel in SETTINGS_FILES):
        from pathlib import Path

        try:
            from pokayokay.config.settings import load_settings

            return load_settings(Path(project_dir)).sections
        except Exception as exc:  # a broken settings file must not cost the prompt its recall
            from pokayokay.infra.logs import fail_open

            fail_open("recall: reading the settings (default sections used)", exc)
    return DEFAULT_SECTIONS


def read_decisions(memory_dir: str, project_dir: str) -> list[tuple[Document, dict[str, int]]]:
    """Key Decisions entries from MEMORY.md, then from the section's archive file."""
    import re

    from pokayokay.memory.document import parse

    specs = _section_specs(project_dir)
    spec = next((s for s in specs if s.id == "key_decisions"), None)
    archive = spec.archive if spec is not None else DEFAULT_DECISIONS_ARCHIVE
    bullet = re.compile(r"^\s*[-*+]\s+")
    texts: list[str] = []
    memory = _read_text(os.path.join(memory_dir, MEMORY_FILE), MAX_MEMORY_BYTES)
    if memory and spec is not None:
        section = parse(memory, specs).section("key_decisions")
        if section is not None:
            texts += [bullet.sub("", " ".join(e.text.split())) for e in section.entries]
    archived = _read_text(os.path.join(memory_dir, archive), MAX_MEMORY_BYTES)
    if archived:
        texts += _bullets(archived.splitlines())
    out = []
    seen: set[str] = set()
    for text in texts[:MAX_DECISIONS]:
        made = decision_document(text)
        if made is not None and made[0].id not in seen:
            seen.add(made[0].id)
            out.append(made)
    return out


def fix_text(
    category: str, sessions: int, excerpt: str, commands: Iterable[str], paths: Iterable[str]
) -> str:
    """A fix episode in one factual sentence."""
    commands, paths = list(commands)[:2], list(paths)[:4]
    text = f"{excerpt.strip().rstrip('.')} ({category} failure, {sessions} session"
    text += "s)." if sessions != 1 else ")."
    if commands:
        text += " Resolved by " + ", ".join(f"`{c}`" for c in commands)
        text += f" after edits to {', '.join(paths)}." if paths else "."
    elif paths:
        text += f" Resolved after edits to {', '.join(paths)}."
    return text


def read_fixes(state_dir: str) -> list[tuple[Document, dict[str, int]]]:
    """Failure groups that a later success closed, as documents (nothing without a store)."""
    db = os.path.join(state_dir, FAILURES_DB)
    if not os.path.isfile(db):
        return []  # never create the store just to read it
    from pokayokay.failures.store import FailureStore

    out = []
    with FailureStore(db) as store:
        groups = store.failure_groups()
    for group in groups:
        if not (group.fix_commands or group.fix_paths):
            continue
        commands = [" ".join(c.split())[:120] for c in group.fix_commands]
        paths = [p[:120] for p in group.fix_paths]
        shown = _shown(fix_text(group.category, group.sessions, group.excerpt, commands, paths))
        search = " ".join([group.excerpt, group.category, *commands, *paths])
        key = zlib.crc32(group.signature.encode("utf-8", "surrogateescape"))
        doc = Document(f"fix:{key:08x}", "fix", shown, clean=True, weight=FIX_WEIGHT)
        out.append((doc, term_counts(search[:MAX_TEXT_CHARS])))
        if len(out) >= MAX_FIX_GROUPS:
            break
    return out


# --------------------------------------------------------------------------------------------
# The cache


def _load_json(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return None


def _unlink(path: str) -> None:
    try:  # noqa: SIM105 - contextlib is one more import on the prompt path
        os.unlink(path)
    except OSError:
        pass


def _save_json(path: str, data: object) -> None:
    """Atomically replace ``path``; a cache that cannot be written is only a slower prompt.

    ASCII JSON (file names may carry surrogate escapes), private to the user like the rest of
    the state folder (it quotes memory files).
    """
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        text = json.dumps(data, separators=(",", ":"))  # the C encoder: fast
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with open(fd, "w", encoding="ascii") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except OSError:
        _unlink(tmp)


def _entries_cache(inputs: Inputs) -> dict[str, Any]:
    data = _load_json(os.path.join(inputs.state_dir, ENTRIES_FILE))
    if (
        isinstance(data, dict)
        and data.get("version") == CACHE_VERSION
        and data.get("memory_dir") == inputs.memory_dir
    ):
        return data
    return {"version": CACHE_VERSION, "memory_dir": inputs.memory_dir}


def build(inputs: Inputs, *, budget: float = DEFAULT_PARSE_BUDGET) -> tuple[Index, bool]:
    """The index over every source, re-reading only what changed since the entries cache.

    Returns the index and whether it is complete (the parse budget may leave files for later).
    """
    from pokayokay.recall.index import ANALYSIS_VERSION

    deadline = time.monotonic() + budget
    cache = _entries_cache(inputs)
    if cache.get("analysis") != ANALYSIS_VERSION:
        cache = {"version": CACHE_VERSION, "memory_dir": inputs.memory_dir}
    cache["analysis"] = ANALYSIS_VERSION
    complete = True

    old_learnings = cache.get("learnings")
    old: dict[str, Any] = old_learnings if isinstance(old_learnings, dict) else {}
    learnings: dict[str, Any] = {}
    for name, stat in inputs.learnings:
        entry = old.get(name)
        if isinstance(entry, list) and len(entry) == 2 and entry[0] == stat:
            learnings[name] = entry
            continue
        if time.monotonic() > deadline:
            complete = False
            continue
        made = read_learning(os.path.join(inputs.memory_dir, name), name)
        learnings[name] = [stat, _row(*made) if made else None]
    cache["learnings"] = learnings

    decisions_key = [inputs.files["memory"], inputs.files["archive"]]
    decisions_key += [inputs.files[rel] for rel in SETTINGS_FILES]
    cached = cache.get("decisions")
    if not (isinstance(cached, list) and len(cached) == 2 and cached[0] == decisions_key):
        rows = [_row(*d) for d in read_decisions(inputs.memory_dir, inputs.project_dir)]
        cache["decisions"] = [decisions_key, rows]

    fixes_key = [inputs.files["db"], inputs.files["db-wal"]]
    cached = cache.get("fixes")
    if not (isinstance(cached, list) and len(cached) == 2 and cached[0] == fixes_key):
        try:
            rows = [_row(*f) for f in read_fixes(inputs.state_dir)]
        except Exception as exc:  # an unreadable or newer store: recall goes on without fixes
            from pokayokay.infra.logs import fail_open

            fail_open("recall: reading fix episodes from the failure store", exc)
            rows = []
        cache["fixes"] = [fixes_key, rows]

    docs: list[Document] = []
    counts: list[dict[str, int]] = []
    rows_all = [entry[1] for entry in learnings.values() if entry[1]]
    rows_all += cache["decisions"][1] + cache["fixes"][1]
    for row in rows_all:
        try:
            doc, doc_counts = _from_row(row)
        except (TypeError, ValueError, AttributeError):
            continue
        docs.append(doc)
        counts.append(doc_counts)
    _save_json(os.path.join(inputs.state_dir, ENTRIES_FILE), cache)
    return Index.build(docs, counts), complete


def load_index(
    memory_dir: Path,
    project_dir: Path,
    state_dir: Path,
    *,
    budget: float = DEFAULT_PARSE_BUDGET,
    use_cache: bool = True,
) -> Index | None:
    """The recall index of a project: from the cache when nothing changed, else rebuilt (and
    the cache refreshed). None when there is nothing to recall from."""
    inputs = Inputs(memory_dir, project_dir, state_dir)
    if inputs.empty:
        return None
    fingerprint = inputs.fingerprint()
    index_path = os.path.join(inputs.state_dir, INDEX_FILE)
    if use_cache:
        data = _load_json(index_path)
        if isinstance(data, dict) and data.get("fingerprint") == fingerprint:
            try:
                return Index.from_data(data["index"])
            except (KeyError, TypeError, ValueError):
                pass
    index, complete = build(inputs, budget=budget)
    if use_cache:
        stamp = fingerprint if complete else f"incomplete-{fingerprint}"
        _save_json(index_path, {"fingerprint": stamp, "index": index.to_data()})
    return index


def index_for(location: MemoryLocation, *, budget: float = DEFAULT_PARSE_BUDGET) -> Index | None:
    """:func:`load_index` for a resolved memory location (state folder keyed like its memory)."""
    from pokayokay.infra.state import project_state_dir

    state_dir = project_state_dir(str(location.project_key))
    return load_index(location.memory_dir, location.project_dir, state_dir, budget=budget)


def block_for(
    location: MemoryLocation,
    prompt: str,
    *,
    budget: float = DEFAULT_PARSE_BUDGET,
    session: str | None = None,
    advisory: str | None = None,
) -> str:
    """The recall block for ``prompt`` ("" when nothing clears the floor).

    With ``session``, notes already injected in that session are left out unless the prompt is
    about them again, and what is injected is recorded (``pokayokay.recall.shown``). A cached
    index that turns out to be damaged (it is read lazily, term by term) is dropped and the
    answer computed from the files themselves.
    """
    from pokayokay.infra.state import project_state_dir
    from pokayokay.recall import shown as shown_notes
    from pokayokay.recall.block import ADVISORY, block
    from pokayokay.recall.index import recall

    state_dir = project_state_dir(str(location.project_key))
    index = load_index(location.memory_dir, location.project_dir, state_dir, budget=budget)
    if index is None or not len(index):
        return ""
    before = shown_notes.shown(str(state_dir), session) if session else frozenset()
    try:
        hits = recall(index, prompt, shown=before).hits
    except (ValueError, TypeError, KeyError, IndexError):
        _unlink(os.path.join(state_dir, INDEX_FILE))
        index = load_index(location.memory_dir, location.project_dir, state_dir, budget=budget)
        hits = recall(index, prompt, shown=before).hits if index is not None else []
    text = block(hits, advisory=advisory or ADVISORY)
    if text and session:
        shown_notes.record(str(state_dir), session, [h.doc.id for h in hits])
    return text


def corpus_counts(index: Index) -> dict[str, int]:
    counts = {"learning": 0, "decision": 0, "fix": 0}
    for doc in index.docs:
        counts[doc.kind] = counts.get(doc.kind, 0) + 1
    return counts
