"""The recall cache's entries (``recall-entries.json``): each source's parsed documents with
their term counts, keyed by the file's mtime and size (or the fix texts' digest), so that a
changed file is re-read alone, and the index built from them (:func:`build`).

An index is rebuilt only when a source's *documents* changed, not when a file merely moved: the
entries carry a ``content`` token, a new random one whenever a document is added, removed or
different, and the index file records the token of the entries it was built from
(:class:`Cached`). Claude rewrites MEMORY.md on its own (a heading, a note outside Key
Decisions): the Key Decisions texts are read again and compared, and when they are as before the
index file's index stands, with no analysis, no index build and no write of the entries
(docs/decisions/0118).
"""

from __future__ import annotations

import os
import time

from pokayokay.names import RECALL_ENTRIES_FILE
from pokayokay.recall.cache_io import document_row, load_json, save_json
from pokayokay.recall.readers import (
    SETTINGS_FILES,
    DecisionSource,
    decision_documents,
    document_from_row,
    key_digest,
    read_archive,
    read_learning,
)
from pokayokay.relevance.note_index import Document, Index

TYPE_CHECKING = False  # no typing import at run time: the prompt hook imports this module
if TYPE_CHECKING:
    from typing import Any

    from pokayokay.recall.sources import Inputs

# 6: notes held exactly (issue 24), not sanitised; 7: Key Decisions kept with their source
CACHE_VERSION = 7
# Seconds of parsing per call before the rest is left to the next one.
DEFAULT_PARSE_BUDGET = 2.0
ENTRIES_FILE = RECALL_ENTRIES_FILE


def _entries_cache(inputs: Inputs) -> dict[str, Any]:
    data = load_json(os.path.join(inputs.state_dir, ENTRIES_FILE))
    if (
        isinstance(data, dict)
        and data.get("version") == CACHE_VERSION
        and data.get("memory_dir") == inputs.memory_dir
    ):
        return data
    return {"version": CACHE_VERSION, "memory_dir": inputs.memory_dir}


def build(
    inputs: Inputs,
    *,
    budget: float = DEFAULT_PARSE_BUDGET,
    fixes: tuple[str, list[Any] | None] | None = None,
    cached: Cached | None = None,
) -> tuple[Index, bool]:
    """The index over every source, re-reading only what changed since the entries cache.

    Returns the index and whether it is complete (the parse budget may leave files for later).
    When no source's documents changed (a file rewritten with the same entries: MEMORY.md
    edited outside Key Decisions, a learning touched), ``cached`` (the index file's index, built
    from the entries its ``content`` token names) is the answer, and nothing is rebuilt or
    saved; see :class:`Cached`.
    """
    from pokayokay.relevance.note_index import ANALYSIS_VERSION

    deadline = time.monotonic() + budget
    cache = _entries_cache(inputs)
    if cache.get("analysis") != ANALYSIS_VERSION:
        cache = {"version": CACHE_VERSION, "memory_dir": inputs.memory_dir}
    cache["analysis"] = ANALYSIS_VERSION
    complete = True
    restamped = False  # a file re-read with the same documents: its new stamp is worth saving
    token = cache.get("content")
    changed = not isinstance(token, str)

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
        row = document_row(*made) if made else None
        restamped = True
        if not (isinstance(entry, list) and len(entry) == 2 and entry[1] == row):
            changed = True
        learnings[name] = [stat, row]
    changed = changed or len(learnings) != len(old)  # (every name kept is a name of old)
    cache["learnings"] = learnings

    decisions_key = [inputs.files["memory"], inputs.files["archive"]]
    decisions_key += [inputs.files[rel] for rel in SETTINGS_FILES]
    stored = cache.get("decisions")
    known = isinstance(stored, list) and len(stored) == 3
    decided: list[Any] = stored if isinstance(stored, list) and known else [None, None, None]
    if not (known and decided[0] == decisions_key):
        source = DecisionSource(inputs.memory_dir, inputs.project_dir)
        if known and decided[2] == source.key:
            decided[0] = decisions_key  # the same entries: the same documents
        else:
            rows = [document_row(*d) for d in decision_documents(source.texts())]
            changed = changed or not (known and decided[1] == rows)
            restamped = True  # (saved even when the documents are the same: read once)
            cache["decisions"] = [decisions_key, rows, source.key]

    archive_key = [list(a) for a in inputs.archives]
    found = cache.get("archives")
    if not (isinstance(found, list) and len(found) == 2 and found[0] == archive_key):
        rows = [
            document_row(*d)
            for name, _stat in inputs.archives
            for d in read_archive(os.path.join(inputs.memory_dir, name), name)
        ]
        changed = changed or not (isinstance(found, list) and len(found) == 2 and found[1] == rows)
        cache["archives"] = [archive_key, rows]

    from pokayokay.recall import fixes as fix_source

    digest, fix_rows = fixes if fixes is not None else inputs.fixes_state()
    found = cache.get("fixes")
    if not (isinstance(found, list) and len(found) == 2 and found[0] == digest):
        rows = fix_rows if fix_rows is not None else fix_source.fix_rows(inputs.state_dir)
        changed = changed or not (isinstance(found, list) and len(found) == 2 and found[1] == rows)
        cache["fixes"] = [digest, rows]

    entries_file = os.path.join(inputs.state_dir, ENTRIES_FILE)
    if cached is not None:
        cached.decisions = key_digest(cache["decisions"][2])
    if not changed and cached is not None and cached.index is not None and cached.content == token:
        if restamped:  # saved, or every later check would read those files again
            save_json(entries_file, cache)
        # (the few single files' new keys are not worth a write of every row: MEMORY.md's
        # entries are compared again by the next check that rebuilds, if one does)
        return cached.index, complete
    if changed or not isinstance(token, str):
        token = cache["content"] = _new_token()
    docs: list[Document] = []
    counts: list[dict[str, int]] = []
    rows_all = [entry[1] for entry in learnings.values() if entry[1]]
    rows_all += cache["decisions"][1] + cache["archives"][1] + cache["fixes"][1]
    for row in rows_all:
        try:
            doc, doc_counts = document_from_row(row)
        except (TypeError, ValueError, AttributeError):
            continue  # a damaged row: rebuilt later
        docs.append(doc)
        counts.append(doc_counts)
    save_json(entries_file, cache)
    index = Index.build(docs, counts)
    if cached is not None:
        cached.content = token  # the token of what was just built (the caller saves it)
    return index, complete


def _new_token() -> str:
    """A token naming one build's entries (random: two processes never make the same)."""
    return os.urandom(8).hex()


class Cached:
    """The index file's index and the ``content`` token of the entries it was built from.

    The entries cache carries a token that changes (to a new random one) whenever a source's
    documents change; an index is saved with the token of the entries it was built from. So an
    index file whose token is the entries' token holds exactly the index those entries make,
    whatever process wrote either file, and a check that finds every source's documents as
    they were answers with it. After :func:`build`, ``content`` is the token to save with
    the index it returned."""

    __slots__ = ("content", "decisions", "index")

    def __init__(self, index: Index | None, content: str | None) -> None:
        self.index = index
        self.content = content
        # After build: the digest of the Key Decisions' source the entries hold
        # (``DecisionSource.digest``), kept beside the index.
        self.decisions: str | None = None
