"""What ``/remember`` needs to know about every stored learning, kept between runs so that storing
a learning costs the same with 50 or 2,000 of them.

``pokayokay remember`` used to read and parse every ``learning-*.md`` file, then compare the new
text with each one twice (near-duplicate, contradiction): 0.45 s at 2,000 learnings. This index,
one JSON file in pokayokay's state folder per memory folder, keeps for each topic file what those
checks read: the identity hash, the *key-word signature* (the sorted advice words of
:func:`pokayokay.learnings.wording.key_signature`), the content and polarity words of
:func:`pokayokay.learnings.consolidate.similarity.profile` and the Topic Index line. It is
written by ``remember`` itself (under the learnings lock) and rebuilt from the files when missing.

The index never decides alone:

* it is checked against the folder on every load: a file whose size, mtime or inode changed
  (Claude edited it, consolidation rewrote it) is read again, a new file is read, a removed one
  dropped; the index is also rebuilt when pokayokay's matching code changes (its files' stamps
  are part of the index);
* only the candidates it names are compared, and their texts are read from their files: what
  is reinforced is what the file holds (:func:`pokayokay.learnings.capture.remember._match`).

The candidates are exactly those the full scan could pick: a near-verbatim rewording has the
same advice words (:func:`~pokayokay.learnings.wording.distinct_because` answers "different
words" otherwise), so only learnings with the same key-word signature are compared; a
contradiction needs a word one text negates and the other asserts, so only learnings with such
a word are. ``tests/learnings/capture/test_remember_index.py`` holds the index to the full scan.
"""

from __future__ import annotations

import json
import os
import stat as stat_module
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from pokayokay.learnings.consolidate.similarity import Profile
    from pokayokay.learnings.model import Learning

INDEX_VERSION = 1
# Journal lines appended after the snapshot before the index is rewritten whole.
JOURNAL_MAX = 200
_INDEX_FOLDER = "learnings"


class IndexEntry(NamedTuple):
    """One topic file as the index knows it (stored as a JSON array of these fields: word sets
    are space-separated strings, decoded only for the few entries a check looks at)."""

    size: int  # size, mtime and inode when it was read: any change and it is read again
    mtime_ns: int
    ino: int
    hash: str  # the identity hash in its frontmatter
    keys: str  # the key-word signature (wording.key_signature)
    pos: str  # similarity.profile: asserted, negated and all content stems
    neg: str
    tokens: str
    created: str
    line: str  # the Topic Index line

    @property
    def stamp(self) -> tuple[int, int, int]:
        return (self.size, self.mtime_ns, self.ino)


def entry_for(learning: Learning, file_name: str, stamp: tuple[int, int, int]) -> IndexEntry:
    """The index entry of ``learning`` stored in ``file_name``."""
    from pokayokay.learnings.consolidate.similarity import profile
    from pokayokay.learnings.model import index_line
    from pokayokay.learnings.wording import key_signature

    prof = profile(learning.text)
    return IndexEntry(
        *stamp,
        hash=learning.hash,
        keys=key_signature(learning.text),
        pos=" ".join(sorted(prof.pos)),
        neg=" ".join(sorted(prof.neg)),
        tokens=" ".join(sorted(prof.tokens)),
        created=learning.created,
        line=index_line(learning, file_name),
    )


def stamp_of(st: os.stat_result) -> tuple[int, int, int]:
    return (st.st_size, st.st_mtime_ns, st.st_ino)


@dataclass
class LearningIndex:
    """The entries of one memory folder, by file name (see the module docstring)."""

    memory_dir: Path
    path: Path
    entries: dict[str, IndexEntry] = field(default_factory=dict)
    # Every learning-*.md name in the folder, learning or not (names a new file must avoid).
    seen: set[str] = field(default_factory=set)
    # Files that are no learning (unparseable, too large), by the stamp they had: not re-read
    # until they change.
    skipped: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    changed: bool = False  # the scan found the folder changed: rewrite the whole index
    pending: list[str] = field(default_factory=list)  # entries put since: append them
    journal: int = 0  # journal lines after the snapshot in the file

    def names(self) -> list[str]:
        return sorted(self.entries)

    def by_hash(self, hash_: str) -> str | None:
        """The first file (by name) whose stored identity hash is ``hash_``."""
        found = [name for name, e in self.entries.items() if e.hash == hash_]
        return min(found) if found else None

    def same_keys(self, keys: str) -> list[str]:
        """Every learning with this key-word signature, by name."""
        return sorted(name for name, e in self.entries.items() if e.keys == keys)

    def clash_candidates(
        self, pos: frozenset[str], neg: frozenset[str]
    ) -> Iterator[tuple[str, Profile]]:
        """``(file name, profile)``, by name, of the learnings that negate a word of ``pos`` or
        assert a word of ``neg``: the only ones a text with that polarity can contradict. The
        profile holds what :func:`pokayokay.learnings.wording.profile_contradiction` reads."""
        from pokayokay.learnings.consolidate.similarity import Profile

        for name in self.names():
            entry = self.entries[name]
            if (entry.neg and not pos.isdisjoint(entry.neg.split())) or (
                neg and not neg.isdisjoint(entry.pos.split())
            ):
                yield (
                    name,
                    Profile(
                        tokens=frozenset(entry.tokens.split()),
                        title=frozenset(),
                        neg=frozenset(entry.neg.split()),
                        pos=frozenset(entry.pos.split()),
                        replaces=False,
                        normal="",
                    ),
                )

    def put(self, name: str, entry: IndexEntry) -> None:
        """Record what was just written to ``name`` (kept by :meth:`save`)."""
        self.entries[name] = entry
        self.skipped.pop(name, None)
        self.seen.add(name)
        self.pending.append(name)

    def save(self) -> None:
        """Keep what changed: the entries ``remember`` put are appended to the index as journal
        lines (what a run adds costs the same whatever the number of learnings); after a
        rescan found changes, or once the journal is long, the whole index is rewritten
        (atomically). A cache, so no fsync: a torn file is rebuilt on the next load."""
        from pokayokay.infra.safe_write import encode_text

        if self.changed or (self.pending and self.journal + len(self.pending) > JOURNAL_MAX):
            self._rewrite()
        elif self.pending:
            lines = "".join(
                json.dumps([name, list(self.entries[name])], ensure_ascii=False) + "\n"
                for name in self.pending
            )
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
            try:
                os.write(fd, encode_text(lines))
            finally:
                os.close(fd)
            self.journal += len(self.pending)
        self.pending = []

    def _rewrite(self) -> None:
        from pokayokay.infra.safe_write import encode_text

        document = {
            "version": INDEX_VERSION,
            "code": _code_stamp(),
            "memory_dir": str(self.memory_dir),
            "files": {name: list(self.entries[name]) for name in self.names()},
            "skipped": {name: list(stamp) for name, stamp in sorted(self.skipped.items())},
        }
        data = encode_text(json.dumps(document, ensure_ascii=False, separators=(",", ":")))
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, data + b"\n")
        finally:
            os.close(fd)
        os.replace(tmp, self.path)
        self.changed = False
        self.journal = 0


def index_path(memory_dir: Path, environ: Mapping[str, str] | None = None) -> Path:
    from pokayokay.infra.locate import slugify
    from pokayokay.infra.state import state_home

    env = None if environ is None else dict(environ)
    return state_home(env) / _INDEX_FOLDER / f"{slugify(str(memory_dir))}.index.json"


def _code_stamp() -> list[list[int]]:
    """The stamps of the modules whose output the index caches: a new pokayokay rebuilds it."""
    from pokayokay.learnings import model, wording
    from pokayokay.learnings.consolidate import similarity
    from pokayokay.learnings.topics import topic_file

    out = []
    for module in (model, similarity, topic_file, wording):
        try:
            st = os.stat(str(module.__file__))
        except (OSError, TypeError):
            return []
        out.append([st.st_size, st.st_mtime_ns])
    return out


class _Known(NamedTuple):
    entries: dict[str, IndexEntry]
    skipped: dict[str, tuple[int, int, int]]
    journal: int
    valid: bool = True  # False: missing, torn or stale (rewritten whole on the next save)


def _read_index(path: Path, memory_dir: Path) -> _Known:
    """The entries the index file holds: its snapshot (first line) with its journal lines
    applied; nothing when it is missing, torn or from another version or pokayokay."""
    try:
        with path.open("rb") as handle:
            lines = handle.read().split(b"\n")
        document = json.loads(lines[0])
        if (
            not isinstance(document, dict)
            or document.get("version") != INDEX_VERSION
            or document.get("memory_dir") != str(memory_dir)
            or document.get("code") != _code_stamp()
        ):
            return _Known({}, {}, 0, valid=False)
        files, skipped = document["files"], document["skipped"]
        if not isinstance(files, dict) or not isinstance(skipped, dict):
            return _Known({}, {}, 0, valid=False)
        entries = {name: _entry(row) for name, row in files.items()}
        journal = 0
        for line in lines[1:]:
            if not line.strip():
                continue
            name, row = json.loads(line)
            entries[str(name)] = _entry(row)
            journal += 1
        return _Known(
            entries,
            {name: (int(a), int(b), int(c)) for name, (a, b, c) in skipped.items()},
            journal,
        )
    except (OSError, ValueError, KeyError, TypeError):
        return _Known({}, {}, 0, valid=False)  # rebuilt from the files


# IndexEntry's field types, in order.
_FIELD_TYPES = (int, int, int, str, str, str, str, str, str, str)


def _entry(row: object) -> IndexEntry:
    if (
        not isinstance(row, list)
        or len(row) != len(_FIELD_TYPES)
        or not all(map(isinstance, row, _FIELD_TYPES))
    ):
        raise ValueError("not an index row")
    return IndexEntry(*row)


def load_learning_index(
    memory_dir: Path, environ: Mapping[str, str] | None = None
) -> LearningIndex:
    """The index of ``memory_dir``, brought up to date with the folder (see the module
    docstring): every learning file that parses is in it, as
    :func:`pokayokay.learnings.topics.stored.load_learnings` would read it. Call
    :meth:`LearningIndex.save` to keep the update."""
    from pokayokay.learnings.model import FILE_PREFIX

    path = index_path(memory_dir, environ)
    known, skipped, journal, valid = _read_index(path, memory_dir)
    index = LearningIndex(memory_dir, path, journal=journal, changed=not valid)
    try:
        scanned = list(os.scandir(memory_dir))
    except OSError:
        scanned = []
    for item in scanned:
        name = item.name
        if not (name.startswith(FILE_PREFIX) and name.endswith(".md")):
            continue
        index.seen.add(name)
        try:
            st = item.stat(follow_symlinks=False)
        except OSError:
            continue  # vanished: not indexed
        if not stat_module.S_ISREG(st.st_mode):
            continue  # a symlink or anything odd: load_learnings skips it too
        stamp = stamp_of(st)
        old = known.get(name)
        if old is not None and old.stamp == stamp:
            index.entries[name] = old
            continue
        if skipped.get(name) == stamp:
            index.skipped[name] = stamp
            continue
        entry = _read_entry(memory_dir / name, stamp)
        if entry is not None:
            index.entries[name] = entry
        else:
            index.skipped[name] = stamp
        index.changed = True
    if set(known) - set(index.entries) or set(skipped) - set(index.skipped):
        index.changed = True
    return index


def _read_entry(path: Path, stamp: tuple[int, int, int]) -> IndexEntry | None:
    """The entry of one file (stamped before reading: a change meanwhile is seen next time)."""
    from pokayokay.infra.regular import read_regular
    from pokayokay.learnings.model import LearningFormatError
    from pokayokay.learnings.topics.stored import MAX_FILE_BYTES
    from pokayokay.learnings.topics.topic_file import parse

    if stamp[0] > MAX_FILE_BYTES:
        return None
    try:
        data = read_regular(path, MAX_FILE_BYTES)
        learning = parse(data.decode("utf-8"))
    except (OSError, UnicodeDecodeError, LearningFormatError):
        return None
    if len(data) > MAX_FILE_BYTES:
        return None
    return entry_for(learning, path.name, stamp)
