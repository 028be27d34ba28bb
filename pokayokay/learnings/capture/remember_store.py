"""A checked learning stored: a new topic file, or the stored one it repeats reinforced.

What :func:`pokayokay.learnings.capture.remember.remember` does at step 3 and 4 of its module
docstring, once the text is a :class:`Draft` and the capture mode lets it through: under the
learnings lock, :func:`matching` looks for the same learning or a near-verbatim rewording among
the ``learning-*.md`` topic files (through the index of
:mod:`pokayokay.learnings.capture.remember_index`), :func:`save` reinforces the match or writes a
new file (a compare-and-swap, looked at again on a conflict), notes a contradiction, keeps the
index, and sets the Topic Index and, for a decision, Key Decisions.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, NoReturn

from pokayokay.errors import EXIT_OK, PokayokayError
from pokayokay.learnings.capture.capture_budget import environ_copy
from pokayokay.learnings.topics.stored import StoredLearning, read_stored
from pokayokay.learnings.topics.topic_index import update_topic_index

if TYPE_CHECKING:
    from pokayokay.infra.locate import MemoryLocation
    from pokayokay.learnings.capture.remember_index import LearningIndex
    from pokayokay.learnings.model import Learning
    from pokayokay.memory.sections import Settings

__all__ = [
    "LOCK_TIMEOUT",
    "Draft",
    "RememberResult",
    "learnings_lock",
    "matching",
    "save",
    "utc_stamp",
]

LOCK_TIMEOUT = 10.0


class RememberResult(NamedTuple):
    """What :func:`pokayokay.learnings.capture.remember.remember` did. ``status`` is one of
    ``stored``, ``reinforced``, ``too_short``, ``too_long``, ``proposed``, ``budget_reached``,
    ``off``."""

    status: str
    message: str
    exit_code: int
    learning: Learning | None = None
    path: Path | None = None
    # The score of the near duplicate that was reinforced (None: same text, or no match).
    similarity: float | None = None
    # Things the user should know that did not stop the learning being stored.
    notes: tuple[str, ...] = ()

    @property
    def saved(self) -> bool:
        return self.status in ("stored", "reinforced")


def utc_stamp(now: datetime) -> str:
    return now.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class Draft(NamedTuple):
    text: str
    category: str
    name: str
    description: str
    hash: str
    fields: Mapping[str, str] = {}  # a NamedTuple default, never mutated


def matching(draft: Draft, index: LearningIndex) -> tuple[StoredLearning, float | None] | None:
    """The stored learning ``draft`` repeats, read from its file: with None for the same text
    (identity hash), with its score for a near-verbatim rewording (the most similar, ties to
    the first by name), else None. Only the learnings with the draft's key-word signature can
    be a rewording (:mod:`pokayokay.learnings.capture.remember_index`), so only they are read."""
    from pokayokay.learnings.wording import key_signature, near_duplicate

    same = index.by_hash(draft.hash)
    if same is not None:
        stored = read_stored(index.memory_dir / same)
        if stored is not None and stored.learning.hash == draft.hash:
            return stored, None
        return _changed(same)
    candidates: dict[str, StoredLearning] = {}
    for name in index.same_keys(key_signature(draft.text)):
        stored = read_stored(index.memory_dir / name)
        if stored is None:
            return _changed(name)
        candidates[name] = stored
    found = near_duplicate(draft.text, ((n, s.learning.text) for n, s in candidates.items()))
    return None if found is None else (candidates[found[0]], found[1])


def _changed(name: str) -> NoReturn:
    """An indexed file no longer holds what the index says: look again (the index is
    refreshed from the folder on every attempt)."""
    from pokayokay.infra.safe_write import Conflict

    raise Conflict(f"{name} changed since it was indexed")


def learnings_lock(location: MemoryLocation, environ: Mapping[str, str] | None) -> Path:
    from pokayokay.infra.locate import slugify
    from pokayokay.infra.state import state_home

    return (
        state_home(environ_copy(environ))
        / "locks"
        / f"{slugify(str(location.memory_dir))}.learnings.lock"
    )


def save(
    draft: Draft,
    confidence: str,
    source: str,
    location: MemoryLocation,
    settings: Settings,
    moment: datetime,
    environ: Mapping[str, str] | None,
    *,
    silent: bool,
) -> RememberResult:
    from pokayokay.infra.safe_write import file_lock, with_retries
    from pokayokay.learnings.capture.remember_index import entry_for, load_learning_index, stamp_of

    with file_lock(learnings_lock(location, environ), LOCK_TIMEOUT):
        stamp = utc_stamp(moment)

        def step(_attempt: int) -> tuple[RememberResult, LearningIndex]:
            index = load_learning_index(location.memory_dir, environ)
            match = matching(draft, index)
            if match is None:
                result = _create(draft, confidence, source, index, stamp, silent=silent)
                return result, index
            return _reinforce(match[0], match[1], confidence, stamp, draft.fields), index

        try:
            location.memory_dir.mkdir(parents=True, exist_ok=True)
            what = f"the learning files in {location.memory_dir}"
            result, index = with_retries(step, what=what)
        except OSError as exc:
            raise PokayokayError(
                f"cannot write the learning into {location.memory_dir} "
                f"({exc.strerror or exc}); nothing was stored"
            ) from None
        assert result.path is not None and result.learning is not None
        from pokayokay.infra.state import mark_memory_changed

        mark_memory_changed(str(location.project_key), None if environ is None else dict(environ))
        notes: tuple[str, ...] = ()
        if result.status == "stored":
            notes = _contradiction_notes(result.learning.text, index)
        try:
            written = stamp_of(result.path.stat())
        except OSError:
            written = (-1, -1, -1)  # re-read next time
        index.put(result.path.name, entry_for(result.learning, result.path.name, written))
        try:
            index.save()
        except OSError as exc:  # a cache: the next run rebuilds what is missing
            from pokayokay.infra import logs

            logs.log(f"remember: the learnings index was not saved ({exc})")
        rows = [(name, e.created, e.line) for name, e in index.entries.items()]
        notes += update_topic_index(location, settings, rows, result.path, environ)
        if result.status == "stored" and result.learning.category == "decision":
            notes += _key_decision(location, settings, result.learning.text, result.path)
    return RememberResult(
        result.status,
        result.message,
        result.exit_code,
        result.learning,
        result.path,
        result.similarity,
        notes,
    )


def _key_decision(
    location: MemoryLocation, settings: Settings, text: str, path: Path
) -> tuple[str, ...]:
    """A decision learning is also an entry of MEMORY.md's Key Decisions, linked to its file."""
    from pokayokay.learnings.outcomes.observed import (
        KEY_DECISIONS,
        decision_entry,
        today,
        write_entries,
    )

    if settings.section(KEY_DECISIONS) is None:
        return ()
    note = write_entries(
        location, settings, {KEY_DECISIONS: [decision_entry(text, path.name, today())]}
    )
    return (f"Key Decisions: {note}",) if note else ()


def _contradiction_notes(text: str, index: LearningIndex) -> tuple[str, ...]:
    """A note for each stored learning the new one contradicts: both are kept, flagged. Only
    the learnings that negate a word the text asserts, or assert one it negates, can clash
    (:meth:`pokayokay.learnings.capture.remember_index.LearningIndex.clash_candidates`)."""
    from pokayokay.learnings.consolidate.similarity import profile
    from pokayokay.learnings.wording import profile_contradiction

    new = profile(text)
    notes = []
    for name, stored in index.clash_candidates(new.pos, new.neg):
        words = profile_contradiction(new, stored)
        if words:
            notes.append(
                f"contradicts {name} ({', '.join(sorted(words))}); both are kept "
                "and flagged by `pokayokay status` until one is removed"
            )
    return tuple(notes)


def _reinforce(
    stored: StoredLearning,
    score: float | None,
    confidence: str,
    stamp: str,
    fields: Mapping[str, str] | None = None,
) -> RememberResult:
    """Raises Conflict when Claude (or someone) edited the file meanwhile: read it again."""
    from dataclasses import replace

    from pokayokay.infra.safe_write import encode_text, replace_if_unchanged
    from pokayokay.learnings.topics.topic_file import render

    base = stored.learning.reinforced(stamp, confidence)
    given = fields or {}
    learning = replace(
        base,
        trigger=given.get("trigger", base.trigger),
        insight=given.get("insight", base.insight),
        action=given.get("action", base.action),
        severity=given.get("severity", base.severity),
    )
    replace_if_unchanged(stored.path, stored.data, encode_text(render(learning)))
    message = (
        f"Reinforced: {learning.name} ({learning.category}) — seen {learning.observations} times"
    )
    return RememberResult("reinforced", message, EXIT_OK, learning, stored.path, score)


def _create(
    draft: Draft,
    confidence: str,
    source: str,
    index: LearningIndex,
    stamp: str,
    *,
    silent: bool,
) -> RememberResult:
    """Raises Conflict when the name was taken meanwhile: look again."""
    from pokayokay.infra.safe_write import encode_text, replace_if_unchanged
    from pokayokay.learnings.model import FILE_PREFIX, Learning, file_name_for, unique_name
    from pokayokay.learnings.topics.topic_file import render

    taken = {name.removeprefix(FILE_PREFIX).removesuffix(".md") for name in index.seen}
    name = unique_name(draft.name, taken)
    learning = Learning(
        name=name,
        description=draft.description,
        text=draft.text,
        category=draft.category,
        confidence=confidence,
        source=source,
        observations=1,
        hash=draft.hash,
        created=stamp,
        last_seen=stamp,
        trigger=draft.fields.get("trigger", ""),
        insight=draft.fields.get("insight", ""),
        action=draft.fields.get("action", ""),
        severity=draft.fields.get("severity", ""),
    )
    path = index.memory_dir / file_name_for(name)
    replace_if_unchanged(path, None, encode_text(render(learning)))
    verb = "Captured" if silent else "Stored"
    return RememberResult(
        "stored", f"{verb}: {name} ({learning.category})", EXIT_OK, learning, path
    )
