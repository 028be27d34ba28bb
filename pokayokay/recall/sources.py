"""The documents recall searches, gathered from the project's files, and their cache.

Three sources:

* learnings: the ``learning-*.md`` topic files in the auto-memory folder (learnings.model);
* decisions: the entries of MEMORY.md's Key Decisions section and of its archive file;
* fix episodes: failure groups in the failure store that a later success closed (a fix command
  or the files edited before it), when the store exists.

Every text that a block may show is cleaned and clipped here, when its file is read
(:func:`pokayokay.recall.block.safe_text`: secrets redacted, control characters dropped, nothing
else changed), and escaped by the block when it renders (its own tags only). Matching uses the
text as written: terms are never shown. The Key Decisions archive is the one the settings name;
changes to it are noticed when it is the default ``decisions-archive.md`` or when MEMORY.md or a
settings file changes.

The cache lives in the project's state folder, so that a prompt does not re-read every file:

* ``recall-index.marshal``: the finished index and the fingerprint of what it was built from (the
  name, mtime and size of every file involved). A prompt only lists the memory folder, stats the
  files and, when the fingerprint matches, loads this one file (postings stay packed in bytes
  until a query needs them; the documents and the learning files' stamps sit in the file's tail,
  ``pokayokay.recall.cache_io``, and only the few a prompt looks at are read).
* ``recall-entries.json``: each source's parsed documents with their term counts, keyed by the
  file's mtime and size, so that a changed file is re-read alone.

**Freshness on the prompt** (``quick=True``, what UserPromptSubmit asks for): stat-ing every
learning file on every prompt costs ~10 ms at 2,000 learnings, so a prompt checks a *quick key*
instead: the memory folder's own mtime (it moves when a file is added, removed or renamed, which
includes every editor that saves by writing a new file and renaming it over the old one, and
every write pokayokay makes), the few single files (MEMORY.md, the Key Decisions archive, the
consolidation archive and its parts, the settings files), ``memory.changed`` in the state folder
(touched by pokayokay's own writers: remember, consolidate, curation) and the fix texts' digest.
When it matches, the cached index answers; then the learning files *about to be injected* are
stat-ed against the stamps they were indexed with, and if one changed the whole check runs and
the answer is computed again: nothing stale is ever injected. What the quick key cannot see is a
learning edited in place (same name, no rename) that is not among the hits; it is picked up at
the latest by the session's SessionEnd, which runs the full check (docs/decisions/0105; as do
``pokayokay recall`` and every other caller, ``quick=False`` being the default). A memory
folder or marker whose mtime the file system's clock may not have moved past is not trusted (a
coarse clock could hide a file added in the same tick): the full check runs until it has. Past
means :data:`SETTLE_NS` old by the wall clock, or older than a probe file stamped by the same
file system before the listing (:mod:`pokayokay.infra.fs_clock`), so SessionEnd's full check,
run a moment after its own writes to the folder, vouches for the key the next session's first
prompt uses (decision 0153).

Work is capped: at most :data:`MAX_LEARNING_FILES` learning files, :data:`MAX_FILE_BYTES` of any
of them, :data:`MAX_MEMORY_BYTES` of MEMORY.md or the archive, :data:`MAX_FIX_GROUPS` failure
groups, and a time budget for parsing changed files; what the budget leaves out is read by the
next prompt (the index is then saved as incomplete, so the next prompt resumes). Nothing is
created when there is nothing to recall from, and the failure store is opened only if it exists.
"""

from __future__ import annotations

import os

from pokayokay.names import (
    FAILURES_CHANGED,
    FAILURES_DB,
    MEMORY_CHANGED,
    RECALL_INDEX_FILE,
    RECALL_SHOWN_FILE,
)
from pokayokay.recall.cache_io import (
    read_index_file,
    resave_head,
    save_index,
    save_quick,
    unlink_quietly,
)
from pokayokay.recall.entries import (
    CACHE_VERSION,
    DEFAULT_PARSE_BUDGET,
    Cached,
    build,
)
from pokayokay.recall.entries import ENTRIES_FILE as ENTRIES_FILE  # (where callers found it)
from pokayokay.recall.readers import (
    DEFAULT_DECISIONS_ARCHIVE,
    LEARNING_PREFIX,
    LEARNINGS_ARCHIVE,
    MEMORY_FILE,
    SETTINGS_FILES,
    DecisionSource,
    stat_key,
)
from pokayokay.relevance.concepts import table_data, use_table_data
from pokayokay.relevance.note_index import Index

TYPE_CHECKING = False  # no typing import at run time: the prompt hook imports this module
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path
    from typing import Any

    from pokayokay.infra.locate import MemoryLocation
    from pokayokay.infra.location_rules import MemoryPaths
    from pokayokay.recall.cache_io import IndexRows, IndexStamps
    from pokayokay.relevance.dense.client import Pending

    Where = str | Path  # a folder, as either (the prompt hook passes strings)

# How old (ns) the memory folder's and the marker's mtimes must be before the quick key may
# stand for them without the file system's own clock asked: infra.fs_clock.SETTLE_NS (not
# imported here: a prompt whose quick key matches never needs that module).
SETTLE_NS = 3_000_000_000
_STORE_KEYS = ("db", "db-changed")
# The files Key Decisions are read from (MEMORY.md, the archive, the settings naming it).
DECISION_FILES = ("memory", "archive", *SETTINGS_FILES)
MAX_LEARNING_FILES = 5000
INDEX_FILE = RECALL_INDEX_FILE
LEGACY_INDEX_FILE = "recall-index.json"


# --------------------------------------------------------------------------------------------
# The fingerprint: what the index was built from


def learning_files(
    memory_dir: str, archives: list[tuple[str, list[int]]] | None = None
) -> list[tuple[str, list[int]]]:
    """``(file name, [mtime_ns, size])`` of every learning topic file, sorted by name; with
    ``archives``, the consolidation archive and its split parts are added to that list."""
    found: list[tuple[str, list[int]]] = []
    try:
        with os.scandir(memory_dir) as it:
            for entry in it:
                name = entry.name
                if archives is not None and _is_archive(name):
                    try:
                        if entry.is_file():
                            st = entry.stat()
                            archives.append((name, [st.st_mtime_ns, st.st_size]))
                    except OSError:
                        pass  # vanished: not an archive
                    continue
                if not (name.startswith(LEARNING_PREFIX) and name.endswith(".md")):
                    continue
                try:
                    if not entry.is_file():  # follows a symlink, as Claude's own reads do
                        continue
                    st = entry.stat()
                except OSError:
                    continue  # vanished: not a source
                found.append((name, [st.st_mtime_ns, st.st_size]))
    except (OSError, ValueError):
        return []
    found.sort()
    return found[:MAX_LEARNING_FILES]


def _is_archive(name: str) -> bool:
    """The consolidation archive (``learnings-archive.md``) or one of its split parts."""
    stem = LEARNINGS_ARCHIVE.removesuffix(".md")
    return name == LEARNINGS_ARCHIVE or (name.startswith(f"{stem}-part-") and name.endswith(".md"))


class Inputs:
    """Where the documents come from, and the stats that say whether they changed."""

    __slots__ = ("memory_dir", "project_dir", "state_dir", "learnings", "archives", "files",
                 "folder", "settled")  # fmt: skip

    def __init__(
        self, memory_dir: Where, project_dir: Where, state_dir: Where, probe: bool = True
    ) -> None:
        self.memory_dir = str(memory_dir)
        self.project_dir = str(project_dir)
        self.state_dir = str(state_dir)
        # Before the scan: a change during it moves them past what the quick key records.
        marker = os.path.join(self.state_dir, MEMORY_CHANGED)
        self.folder = [stat_key(self.memory_dir), stat_key(marker)]
        # Whether the file system's clock is past both mtimes, asked before the listing (a
        # change after this moves them, one before it is in the listing: infra.fs_clock); the
        # probe file only beside a cache (nothing is created when there is nothing to recall).
        from pokayokay.infra.fs_clock import settled

        places = ((self.memory_dir, self.folder[0]), (marker, self.folder[1]))
        stamps = [(path, None if st is None else st[0]) for path, st in places]
        self.settled = settled(stamps, self.state_dir if probe else None)
        self.archives: list[tuple[str, list[int]]] = []
        self.learnings = learning_files(self.memory_dir, self.archives)
        self.archives.sort()
        memory = os.path.join(self.memory_dir, MEMORY_FILE)
        db = os.path.join(self.state_dir, FAILURES_DB)
        self.files: dict[str, list[int] | None] = {
            "memory": stat_key(memory),
            "archive": stat_key(os.path.join(self.memory_dir, DEFAULT_DECISIONS_ARCHIVE)),
            "db": stat_key(db),
            # Moves on every write and only then (the database file moves on reads too).
            "db-changed": stat_key(os.path.join(self.state_dir, FAILURES_CHANGED)),
        }
        for rel in SETTINGS_FILES:
            self.files[rel] = stat_key(os.path.join(self.project_dir, rel))

    @property
    def empty(self) -> bool:
        """Nothing to recall from: no learning, no MEMORY.md, no failure store."""
        return (
            not self.learnings
            and not self.archives
            and not any(self.files[k] for k in ("memory", "archive", "db"))
        )

    def fixes_state(self) -> tuple[str, list[Any] | None]:
        """The fix texts' digest (and rows, when read for it): :mod:`pokayokay.recall.fixes`."""
        from pokayokay.recall.fixes import fixes_state

        changed, db = self.files.get("db-changed"), self.files.get("db")
        return fixes_state(self.state_dir, [db is not None, changed or db])

    def quick_key(self, decisions: bool = True) -> str | None:
        """The quick key of what was scanned (None while the file system's clock may not be
        past the folder's or the marker's mtime: the next prompt then runs the full check
        again); without ``decisions``, of all but the files Key Decisions are read from."""
        if not self.settled or self.folder[0] is None:
            return None
        files = {key: self.files[key] for key in _QUICK_FILES}
        return _quick_key(self.memory_dir, self.folder, files, self.archives, decisions)

    def stamps(self) -> str:
        """``name\tmtime\tsize`` lines of the learning files (what a hit is checked against)."""
        return "".join(
            f"{name}\t{st[0]}\t{st[1]}\n"
            for name, st in self.learnings
            if "\n" not in name and "\t" not in name
        )

    def fingerprint(self, *, decisions: bool = True) -> str:
        """A short digest of every path, mtime and size involved (and of the analysis);
        without ``decisions``, of all but the files Key Decisions are read from."""
        from pokayokay.relevance.note_index import ANALYSIS_VERSION

        left_out = _STORE_KEYS if decisions else (*_STORE_KEYS, *DECISION_FILES)
        parts = [f"{CACHE_VERSION}:{ANALYSIS_VERSION}:{decisions}", self.memory_dir]
        parts += [f"{name}:{stat[0]}:{stat[1]}" for name, stat in self.learnings]
        parts += [f"{name}:{stat[0]}:{stat[1]}" for name, stat in self.archives]
        # The failure store is not part of it: recall reads only its fix texts (fixes.py).
        parts += [f"{key}:{stat}" for key, stat in self.files.items() if key not in left_out]
        data = "\n".join(parts).encode("utf-8", "surrogateescape")
        import zlib  # not at the top: a prompt whose quick key matches never needs it

        return f"{len(data):x}-{zlib.crc32(data):08x}-{zlib.adler32(data):08x}"


_QUICK_FILES = ("memory", "archive", *SETTINGS_FILES)


def _quick_key(
    memory_dir: str,
    folder: list[list[int] | None],
    files: dict[str, list[int] | None],
    archives: Sequence[tuple[str, list[int] | None]],
    decisions: bool = True,
) -> str:
    """The quick key; without ``decisions``, of all but the files Key Decisions are read from
    (every one of them is one of those)."""
    from pokayokay.relevance.note_index import ANALYSIS_VERSION

    parts = [f"{CACHE_VERSION}:{ANALYSIS_VERSION}", memory_dir, f"{folder}"]
    if decisions:
        parts += [f"{key}:{files.get(key)}" for key in _QUICK_FILES]
    parts += [f"{name}:{stat}" for name, stat in archives]
    # The text itself, not a digest of it: a dozen short lines, and no zlib import per prompt.
    return "q" + "\n".join(parts)


def _current_quick_key(
    memory_dir: str, project_dir: str, state_dir: str, archive_names: list[str]
) -> tuple[str, str] | None:
    """The quick key from fresh stats (a dozen, whatever the number of learnings), with and
    without the files Key Decisions are read from."""
    folder = [stat_key(memory_dir), stat_key(os.path.join(state_dir, MEMORY_CHANGED))]
    if folder[0] is None:
        return None
    files: dict[str, list[int] | None] = {
        "memory": stat_key(os.path.join(memory_dir, MEMORY_FILE)),
        "archive": stat_key(os.path.join(memory_dir, DEFAULT_DECISIONS_ARCHIVE)),
    }
    for rel in SETTINGS_FILES:
        files[rel] = stat_key(os.path.join(project_dir, rel))
    archives = [(name, stat_key(os.path.join(memory_dir, name))) for name in archive_names]
    return (
        _quick_key(memory_dir, folder, files, archives),
        _quick_key(memory_dir, folder, files, archives, decisions=False),
    )


def _fixes_digest(state_dir: str) -> tuple[str, list[Any] | None]:
    from pokayokay.recall.fixes import fixes_state

    db = stat_key(os.path.join(state_dir, FAILURES_DB))
    changed = stat_key(os.path.join(state_dir, FAILURES_CHANGED))
    return fixes_state(state_dir, [db is not None, changed or db])


def _stamp_of(stamps: str, name: str) -> list[int] | None:
    """The stamp ``name`` was indexed with, from :meth:`Inputs.stamps` text (None: unknown)."""
    at = stamps.find(f"{name}\t")
    while at > 0 and stamps[at - 1] != "\n":
        at = stamps.find(f"{name}\t", at + 1)
    if at < 0:
        return None
    end = stamps.find("\n", at)
    fields = stamps[at:end].split("\t")
    try:
        return [int(fields[1]), int(fields[2])]
    except (IndexError, ValueError):
        return None


def unchanged_since_indexed(memory_dir: str, stamps: str, doc_ids: list[str]) -> bool:
    """Whether every learning among ``doc_ids`` still has the mtime and size it was indexed
    with (one stat each; other kinds are covered by the quick key)."""
    prefix = "learning:"
    for doc_id in doc_ids:
        if not doc_id.startswith(prefix):
            continue
        name = f"{LEARNING_PREFIX}{doc_id[len(prefix) :]}.md"
        known = _stamp_of(stamps, name)
        if known is None or known != stat_key(os.path.join(memory_dir, name)):
            return False
    return True


class Loaded:
    """An index and how it was validated: ``quick`` when only the quick key vouched for it; then
    :meth:`stamps` gives the learning files' stamps, for the hit check (read from the cache file
    only then)."""

    __slots__ = ("_stamps", "index")

    def __init__(self, index: Index | None, stamps: IndexStamps | str | None = None) -> None:
        self.index = index
        self._stamps = stamps

    @property
    def quick(self) -> bool:
        return self._stamps is not None

    def stamps(self) -> str:
        found = self._stamps
        return "" if found is None else found if isinstance(found, str) else found.text()


def load(
    memory_dir: Where,
    project_dir: Where,
    state_dir: Where,
    *,
    budget: float = DEFAULT_PARSE_BUDGET,
    use_cache: bool = True,
    quick: bool = False,
) -> Loaded:
    """The recall index of a project (``.index``; None when there is nothing to recall from),
    every source checked (the full check): from the cache when nothing changed, else rebuilt
    (and the cache refreshed). With ``quick``, the cached index is taken on the quick key alone
    when it matches (the caller checks its hits with :func:`unchanged_since_indexed`)."""
    index_path = os.path.join(str(state_dir), INDEX_FILE)
    cached = read_index_file(index_path) if use_cache else None
    data = rows = None
    if cached is not None:
        data, rows, stamps = cached
        # the concept table as parsed for the cache (not current: another file, an older cache)
        current = use_table_data(data.get("concepts"))
        if quick:
            dirs = (str(memory_dir), str(project_dir), str(state_dir))
            found = _quick_hit(data, rows, stamps, *dirs, tables=current)
            if found is not None:
                return found
    inputs = Inputs(memory_dir, project_dir, state_dir, cached is not None)  # probe: a cache
    if inputs.empty:
        return Loaded(None)
    # Keyed by the fix texts recall reads, not by the store's mtime: a captured failure that
    # closes no fix episode leaves the index valid.
    digest, fix_rows = inputs.fixes_state()
    fingerprint = f"{inputs.fingerprint()}-{digest}"
    quick_key = inputs.quick_key()
    stamp = f"{quick_key}-{digest}" if quick_key else None
    quick_rest = inputs.quick_key(decisions=False)
    rest_stamp = f"{quick_rest}-{digest}" if quick_rest else None
    rest = f"{inputs.fingerprint(decisions=False)}-{digest}"
    if data is not None and data.get("fingerprint") == fingerprint:
        try:
            index = Index.from_data(data["index"], rows)
            if data.get("quick") != stamp:  # the full check vouched for it again: note that
                archives = [name for name, _st in inputs.archives]
                # a folder that moved with no source changed (SessionEnd wrote MEMORY.md or
                # chain-learnings.md there): only the quick key is new, and it goes to its own
                # small file (0135) instead of a rewrite of the whole index file
                if not (
                    stamp is not None
                    and current
                    and data.get("archives") == archives
                    and save_quick(index_path, data, stamp, rest_stamp)
                ):
                    meta = dict(data, fingerprint=fingerprint, quick=stamp, quick_rest=rest_stamp)
                    meta["archives"] = archives
                    meta["concepts"] = table_data()
                    save_index(index_path, _meta(meta), index, inputs.stamps())  # every row
        except (KeyError, TypeError, ValueError):
            pass  # a stale cache: rebuilt next time
        else:
            return Loaded(index)
    previous = _cached_index(data, rows) if use_cache else None
    if previous is not None and previous.index is not None and data is not None:
        # Only the files Key Decisions are read from moved (Claude rewrote MEMORY.md): the
        # index stands when its entries are as they were (docs/decisions/0118).
        decided = data.get("decisions")
        if (
            data.get("rest") == rest
            and isinstance(decided, str)
            and DecisionSource(inputs.memory_dir, inputs.project_dir).digest() == decided
        ):
            meta = dict(data, fingerprint=fingerprint, quick=stamp, quick_rest=rest_stamp)
            meta["concepts"] = table_data()
            save_index(index_path, _meta(meta), previous.index, inputs.stamps())
            return Loaded(previous.index)
    index, complete = build(inputs, budget=budget, fixes=(digest, fix_rows), cached=previous)
    if use_cache:
        # the JSON of earlier versions
        unlink_quietly(os.path.join(str(state_dir), LEGACY_INDEX_FILE))
        assert previous is not None
        meta = {
            "fingerprint": fingerprint if complete else f"incomplete-{fingerprint}",
            "quick": stamp if complete else None,
            "quick_rest": rest_stamp if complete else None,
            "archives": [name for name, _st in inputs.archives],
            "concepts": table_data(),
            "content": previous.content,
            "rest": rest if complete else None,
            "decisions": previous.decisions,
        }
        save_index(index_path, meta, index, inputs.stamps())
    return Loaded(index)


_META_KEYS = (
    "fingerprint", "quick", "quick_rest", "archives", "concepts", "content", "rest", "decisions",
)  # fmt: skip


def _meta(data: dict[str, Any]) -> dict[str, Any]:
    """The index file's own values of ``data`` (what :func:`load` saves beside the index)."""
    return {key: data.get(key) for key in _META_KEYS}


def _cached_index(data: dict[str, Any] | None, rows: IndexRows | None) -> Cached:
    """The index file's index and its content token (no index when it has none or is not one:
    :func:`build` then builds, and records the token of what it built here)."""
    content = data.get("content") if data is not None else None
    if data is not None and isinstance(content, str):
        try:
            return Cached(Index.from_data(data["index"], rows), content)
        except (KeyError, TypeError, ValueError):
            pass  # not an index: rebuilt
    return Cached(None, None)


def _quick_hit(
    data: dict[str, Any],
    rows: IndexRows,
    stamps: IndexStamps,
    memory_dir: str,
    project_dir: str,
    state_dir: str,
    *,
    tables: bool = True,
) -> Loaded | None:
    """The cached index when its quick key still matches (None otherwise). ``tables``: whether
    the file's concept table is current (when not, the file's head is written again with it)."""
    stamp, archives = data.get("quick"), data.get("archives")
    if not (
        isinstance(stamp, str)
        and isinstance(archives, list)
        and all(isinstance(a, str) for a in archives)
    ):
        return None
    keys = _current_quick_key(memory_dir, project_dir, state_dir, archives)
    if keys is None:
        return None
    digest, _rows = _fixes_digest(state_dir)
    try:
        if stamp == f"{keys[0]}-{digest}":
            index = Index.from_data(data["index"], rows)
            if not tables:
                meta = dict(data, concepts=table_data())
                resave_head(os.path.join(state_dir, INDEX_FILE), data, rows, _meta(meta))
            return Loaded(index, stamps)
        # Only the files Key Decisions are read from moved (Claude rewrote MEMORY.md in place):
        # the index stands when those entries are as they were (docs/decisions/0118).
        decided = data.get("decisions")
        if not (
            data.get("quick_rest") == f"{keys[1]}-{digest}"
            and isinstance(decided, str)
            and DecisionSource(memory_dir, project_dir).digest() == decided
        ):
            return None
        index = Index.from_data(data["index"], rows)
    except (KeyError, TypeError, ValueError):
        return None
    quick = f"{keys[0]}-{digest}"
    path = os.path.join(state_dir, INDEX_FILE)
    # the usual case: only the quick key moved, and it goes to its own small file (0135)
    rest = data.get("quick_rest")
    if not tables or not save_quick(path, data, quick, rest if isinstance(rest, str) else None):
        meta = dict(data, quick=quick)
        if not tables:
            meta["concepts"] = table_data()
        resave_head(path, data, rows, _meta(meta))
    return Loaded(index, stamps)


def index_for(location: MemoryLocation, *, budget: float = DEFAULT_PARSE_BUDGET) -> Index | None:
    """:func:`load`'s index for a resolved memory location (state folder keyed like its memory)."""
    from pokayokay.infra.state import project_state_dir

    state_dir = project_state_dir(str(location.project_key))
    return load(location.memory_dir, location.project_dir, state_dir, budget=budget).index


def block_for(
    location: MemoryLocation | MemoryPaths,
    prompt: str,
    *,
    budget: float = DEFAULT_PARSE_BUDGET,
    session: str | None = None,
    advisory: str | None = None,
    quick: bool = False,
    dense: Pending | None = None,
) -> str:
    """The recall block for ``prompt`` ("" when nothing clears the floor).

    With ``session``, notes already injected in that session are left out unless the prompt is
    about them again, and what is injected is recorded (``pokayokay.recall.shown``). With
    ``quick``, the index may be vouched for by the quick key alone; a learning about to be
    injected that changed since it was indexed then brings the full check and a new answer. A
    cached index that turns out to be damaged (it is read lazily, term by term) is dropped and
    the answer computed from the files themselves. ``dense``: the dense opinion asked for
    (decision 0181), read once the words have ranked the notes.
    """
    from pokayokay.infra.state import project_state_path
    from pokayokay.relevance.dense_notes import dense_notes
    from pokayokay.relevance.note_index import recall

    state_dir = project_state_path(str(location.project_key))
    dirs = (location.memory_dir, location.project_dir, state_dir)
    loaded = load(*dirs, budget=budget, quick=quick)
    index = loaded.index
    if index is None or not len(index):
        return ""
    opinion = dense_notes(dense)
    before: frozenset[str] = frozenset()
    if session and os.path.exists(os.path.join(state_dir, RECALL_SHOWN_FILE)):
        from pokayokay.recall import shown as shown_notes

        before = shown_notes.shown(str(state_dir), session)
    try:
        hits = recall(index, prompt, shown=before, dense=opinion).hits
    except (ValueError, TypeError, KeyError, IndexError):
        unlink_quietly(os.path.join(state_dir, INDEX_FILE))
        index = load(*dirs, budget=budget).index
        hits = (
            recall(index, prompt, shown=before, dense=opinion).hits if index is not None else []
        )
    else:
        if (
            hits
            and loaded.quick
            and not unchanged_since_indexed(
                str(location.memory_dir), loaded.stamps(), [h.doc.id for h in hits]
            )
        ):
            index = load(*dirs, budget=budget).index  # a hit changed: check everything
            hits = (
            recall(index, prompt, shown=before, dense=opinion).hits if index is not None else []
        )
    if not hits:
        return ""  # most prompts: the block's and the shown notes' modules not even imported
    from pokayokay.recall import shown as shown_notes
    from pokayokay.recall.block import ADVISORY, block

    text = block(hits, advisory=advisory or ADVISORY)
    if text and session:
        shown_notes.record(str(state_dir), session, [h.doc.id for h in hits])
    return text


def corpus_counts(index: Index) -> dict[str, int]:
    counts = {"learning": 0, "decision": 0, "fix": 0}
    for doc in index.docs:
        counts[doc.kind] = counts.get(doc.kind, 0) + 1
    return counts
