"""``pokayokay remember``: store a learning as a Claude Code memory, or reinforce one.

What :func:`remember` does with a text:

0. replaces secrets (API keys, tokens, passwords, URL credentials, private keys; see
   :mod:`pokayokay.safety.redact`) with ``[redacted:<kind>]`` and says so in a note;
1. refuses it when it is under :data:`~pokayokay.learnings.model.MIN_CHARS` characters once trimmed
   (:data:`TOO_SHORT`), or once cleaned (:func:`pokayokay.safety.sanitize.clean` drops terminal
   escapes and control characters); every other character is stored exactly as written — code,
   ``<...>``, ``2>&1``, ``->`` — and comes back exactly through recall, where only a tag that
   would close the recall block is escaped (:func:`pokayokay.recall.block.shown_text`);
2. for a capture the model started (``mode="model"``), applies ``capture_mode`` from the settings:
   ``off`` refuses, ``ask-first`` (the default) stores nothing and answers that the learning is to
   be proposed to the user, ``silent`` stores it at confidence ``low`` with source
   ``session-capture`` while the session's silent budget (``silent_capture_budget``, default 5)
   lasts, and answers :data:`BUDGET_REACHED` after that;
3. under a lock shared by every pokayokay process, looks for the same learning (identity hash
   of the normalised text) or a near-verbatim rewording
   (:func:`pokayokay.learnings.wording.near_duplicate`: similar, and
   :func:`~pokayokay.learnings.wording.distinct_because` finds no different word, name, number,
   polarity or swapped choice) among the ``learning-*.md`` topic files of the auto-memory folder:
   a match is reinforced (its observation count goes up), anything else becomes a new topic
   file, written atomically. A new learning that contradicts a stored one is stored all the same
   and the result carries a note (``pokayokay status`` and ``consolidate`` list such pairs);
4. sets the learning lines of MEMORY.md's Topic Index through
   :class:`pokayokay.memory.apply.SectionEdit`, inside curation's locked, invariant-checked,
   compare-and-swap write. Curation moves the oldest lines to ``topic-index-archive.md`` when the
   section is over its budget; a learning whose line is only in the archive is not put back,
   unless it is stored or reinforced again.

Exit codes of ``pokayokay remember`` (besides the CLI's own: 2 for bad usage, 3 internal):

* 0 — stored or reinforced;
* 2 — the text is too short or too long (nothing stored);
* 5 — not stored: the learning is to be proposed to the user (``capture_mode: ask-first``, or the
  session's silent budget is spent);
* 6 — not stored: model-initiated capture is off (``capture_mode: off``).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, NoReturn

from pokayokay.errors import EXIT_CAPTURE_OFF, EXIT_OK, EXIT_PROPOSE, EXIT_USAGE, PokayokayError
from pokayokay.learnings.capture.capture_budget import (
    budget_paths,
    environ_copy,
    read_counts,
    write_counts,
)
from pokayokay.learnings.topics.stored import StoredLearning, read_stored
from pokayokay.learnings.topics.topic_index import update_topic_index
from pokayokay.names import SESSION_START_TIP

# Only the standard library basics and pokayokay.errors are imported here: the SessionStart hook
# imports this module for session_start_tip(). Everything else is imported where it is used.
if TYPE_CHECKING:
    from pokayokay.infra.locate import MemoryLocation
    from pokayokay.learnings.capture.remember_index import LearningIndex
    from pokayokay.learnings.model import Learning
    from pokayokay.memory.sections import Settings

__all__ = [
    "BUDGET_REACHED",
    "CAPTURE_MODES",
    "SESSION_START_TIP",
    "TOO_SHORT",
    "RememberResult",
    "remember",
    "session_start_tip",
]


TOO_SHORT = "Learning too short (need at least 20 characters). Please provide more detail."
TOO_SHORT_CLEANED = (
    "Learning too short once control characters are removed (need at least 20 characters). "
    "Please provide more detail."
)
# pokayokay.learnings.model.MAX_CHARS (a test keeps the two equal).
TOO_LONG = (
    "Learning too long (at most 2000 characters). Please shorten it to the one thing worth "
    "remembering."
)
BUDGET_REACHED = "Silent capture budget reached. Proposing remaining learnings for approval."

CAPTURE_MODES: tuple[str, ...] = ("ask-first", "silent", "off")
DEFAULT_CAPTURE_MODE = "ask-first"
DEFAULT_SILENT_BUDGET = 5
MODES: tuple[str, ...] = ("user", "model")
SESSION_CAPTURE_SOURCE = "session-capture"
NO_SESSION = "(no session id)"

SOURCE_MAX = 60
LOCK_TIMEOUT = 10.0


def session_start_tip() -> str:
    """The SessionStart context line that points at ``/remember``."""
    return SESSION_START_TIP


class RememberResult(NamedTuple):
    """What :func:`remember` did. ``status`` is one of ``stored``, ``reinforced``,
    ``too_short``, ``too_long``, ``proposed``, ``budget_reached``, ``off``."""

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


# --- reading the memory folder ----------------------------------------------------------------


# --- the per-session silent budget ------------------------------------------------------------


# --- remember ---------------------------------------------------------------------------------


def _stamp(now: datetime) -> str:
    return now.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _setting(settings: Settings, key: str, default: object) -> object:
    return getattr(settings, key, default)


def capture_mode(settings: Settings) -> str:
    mode = _setting(settings, "capture_mode", DEFAULT_CAPTURE_MODE)
    return mode if mode in CAPTURE_MODES else DEFAULT_CAPTURE_MODE


def silent_budget(settings: Settings) -> int:
    budget = _setting(settings, "silent_capture_budget", DEFAULT_SILENT_BUDGET)
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 0:
        return DEFAULT_SILENT_BUDGET
    return budget


def _clean_source(source: str) -> str:
    """The source label as given, when it is one: a word of letters, digits, ``.``, ``_``,
    ``-`` (nothing is rewritten into a label)."""
    cleaned = source.strip()
    plain = cleaned[:1].isalnum() and all(ch.isalnum() or ch in "._-" for ch in cleaned)
    if not cleaned or not cleaned.isascii() or not plain or len(cleaned) > SOURCE_MAX:
        raise PokayokayError("--source: expected a short label such as 'user' or 'retro'")
    return cleaned


class _Draft(NamedTuple):
    text: str
    category: str
    name: str
    description: str
    hash: str
    fields: Mapping[str, str] = {}  # a NamedTuple default, never mutated


def structured_fields(given: Mapping[str, str | None]) -> dict[str, str]:
    """The structured fields as stored: one exact line each (private text removed); an
    unknown key or severity raises :class:`PokayokayError`."""
    from pokayokay.infra.private import strip_private
    from pokayokay.learnings.model import SEVERITIES, STRUCTURED_FIELDS, STRUCTURED_MAX
    from pokayokay.safety.sanitize import excerpt

    out: dict[str, str] = {}
    for key, value in given.items():
        if key not in STRUCTURED_FIELDS:
            raise PokayokayError(f"unknown learning field {key!r}")
        if value is None or not value.strip():
            continue
        if key == "severity":
            level = value.strip().upper()
            if level not in SEVERITIES:
                raise PokayokayError(f"--severity: expected one of {', '.join(SEVERITIES)}")
            out[key] = level
            continue
        cleaned = excerpt(strip_private(value), STRUCTURED_MAX)
        if cleaned:
            out[key] = cleaned
    return out


def _draft(text: str, category: str | None) -> _Draft | RememberResult:
    from pokayokay.infra.private import strip_private
    from pokayokay.learnings.model import (
        DESCRIPTION_MAX,
        MAX_CHARS,
        MIN_CHARS,
        identity,
        infer_category,
        make_name,
    )
    from pokayokay.safety.sanitize import clean, excerpt

    trimmed = strip_private(text).strip()  # what is marked <private> is never written
    if len(trimmed) < MIN_CHARS:
        return RememberResult("too_short", TOO_SHORT, EXIT_USAGE)
    if len(trimmed) > 4 * MAX_CHARS:
        return RememberResult("too_long", TOO_LONG, EXIT_USAGE)
    cleaned = clean(trimmed)
    if len(cleaned) < MIN_CHARS:
        return RememberResult("too_short", TOO_SHORT_CLEANED, EXIT_USAGE)
    if len(cleaned) > MAX_CHARS:
        return RememberResult("too_long", TOO_LONG, EXIT_USAGE)
    return _Draft(
        text=cleaned,
        category=category or infer_category(cleaned),
        name=make_name(cleaned),
        description=excerpt(cleaned, DESCRIPTION_MAX),
        hash=identity(cleaned),
    )


def _match(draft: _Draft, index: LearningIndex) -> tuple[StoredLearning, float | None] | None:
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


def remember(
    text: str,
    *,
    category: str | None = None,
    confidence: str = "medium",
    source: str = "user",
    session_id: str | None = None,
    mode: str = "user",
    project_dir: Path,
    location: MemoryLocation,
    settings: Settings,
    now: datetime | None = None,
    environ: Mapping[str, str] | None = None,
    fields: Mapping[str, str | None] | None = None,
) -> RememberResult:
    """Store ``text`` as a learning, or reinforce the learning it repeats (module docstring).

    ``fields`` are the structured fields (``trigger``, ``insight``, ``action``, ``severity``);
    each is kept on one line, and a reinforcement fills in the ones given.

    ``mode="model"`` marks a capture the model started: ``capture_mode`` and the per-session
    silent budget apply, counted for ``session_id``. Raises :class:`PokayokayError` for a bad
    ``category``, ``confidence``, ``source`` or ``mode``; file-system trouble with MEMORY.md
    after the learning is stored becomes a note on the result, not an error.
    """
    from pokayokay.learnings.model import CATEGORIES, CONFIDENCES

    if category is not None and category not in CATEGORIES:
        raise PokayokayError(f"--category: expected one of {', '.join(CATEGORIES)}")
    if confidence not in CONFIDENCES:
        raise PokayokayError(f"--confidence: expected one of {', '.join(CONFIDENCES)}")
    if mode not in MODES:
        raise PokayokayError(f"--mode: expected one of {', '.join(MODES)}")
    source = _clean_source(source)
    moment = now or datetime.now(timezone.utc)
    structured = structured_fields(fields or {})

    result = _remember(
        text,
        category,
        confidence,
        source,
        session_id,
        mode,
        location,
        settings,
        moment,
        environ,
        structured,
    )
    from pokayokay.safety.redact import redacted_kinds

    kinds = redacted_kinds(text)
    if kinds:
        said = f"Secrets were redacted before anything was kept: {', '.join(kinds)}."
        result = result._replace(notes=(said, *result.notes))
    return result


def _remember(
    text: str,
    category: str | None,
    confidence: str,
    source: str,
    session_id: str | None,
    mode: str,
    location: MemoryLocation,
    settings: Settings,
    moment: datetime,
    environ: Mapping[str, str] | None,
    structured: Mapping[str, str],
) -> RememberResult:
    draft = _draft(text, category)
    if isinstance(draft, RememberResult):
        return draft
    draft = draft._replace(fields=structured)
    if mode == "user":
        return _save(draft, confidence, source, location, settings, moment, environ, silent=False)

    setting = capture_mode(settings)
    if setting == "off":
        return RememberResult(
            "off",
            "Not stored: model-initiated capture is off (capture_mode: off in the pokayokay "
            "settings).",
            EXIT_CAPTURE_OFF,
        )
    if setting == "ask-first":
        return _proposal(draft, location, "ask-first", environ)

    from pokayokay.infra.safe_write import file_lock

    session = session_id or NO_SESSION
    budget = silent_budget(settings)
    counts_file, lock = budget_paths(location, environ)
    with file_lock(lock, LOCK_TIMEOUT):
        counts = read_counts(counts_file)
        used = counts.get(session, {}).get("count", 0)
        if not isinstance(used, int):
            used = 0
        if used >= budget:
            return _proposal(draft, location, "budget", environ)
        result = _save(
            draft, "low", SESSION_CAPTURE_SOURCE, location, settings, moment, environ, silent=True
        )
        if result.saved:
            counts[session] = {"count": used + 1, "updated": _stamp(moment)}
            write_counts(counts_file, counts, moment)
        return result


def _proposal(
    draft: _Draft, location: MemoryLocation, why: str, environ: Mapping[str, str] | None
) -> RememberResult:
    from pokayokay.infra.safe_write import Conflict, with_retries
    from pokayokay.learnings.capture.remember_index import load_index

    def look(_attempt: int) -> StoredLearning | None:
        found = _match(draft, load_index(location.memory_dir, environ))
        return None if found is None else found[0]

    try:
        known = with_retries(look, what=f"the learning files in {location.memory_dir}")
    except (Conflict, PokayokayError):
        known = None  # only the wording of the proposal depends on it
    if known is not None:
        detail = (
            f"It repeats the stored learning {known.learning.name} ({known.learning.category});"
            " approving it reinforces that one."
        )
    else:
        detail = f"Proposed: {draft.name} ({draft.category}) — {draft.description}"
    if why == "budget":
        message = f"{BUDGET_REACHED}\n{detail}"
        return RememberResult("budget_reached", message, EXIT_PROPOSE)
    message = (
        "Not stored: model-initiated capture is ask-first (capture_mode), so this learning "
        f"waits for the user's approval.\n{detail}\n"
        "Once the user approves, `pokayokay remember --confidence low --source session-capture` "
        "(without --mode model) stores it."
    )
    return RememberResult("proposed", message, EXIT_PROPOSE)


def _learnings_lock(location: MemoryLocation, environ: Mapping[str, str] | None) -> Path:
    from pokayokay.infra.locate import slugify
    from pokayokay.infra.state import state_home

    return (
        state_home(environ_copy(environ))
        / "locks"
        / f"{slugify(str(location.memory_dir))}.learnings.lock"
    )


def _save(
    draft: _Draft,
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
    from pokayokay.learnings.capture.remember_index import entry_for, load_index, stamp_of

    with file_lock(_learnings_lock(location, environ), LOCK_TIMEOUT):
        stamp = _stamp(moment)

        def step(_attempt: int) -> tuple[RememberResult, LearningIndex]:
            index = load_index(location.memory_dir, environ)
            match = _match(draft, index)
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
    draft: _Draft,
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


# --- the Topic Index --------------------------------------------------------------------------


# --- the command line -------------------------------------------------------------------------


# --- the /remember slash command --------------------------------------------------------------
