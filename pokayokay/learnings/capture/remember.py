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
from typing import TYPE_CHECKING

from pokayokay.errors import EXIT_CAPTURE_OFF, EXIT_PROPOSE, EXIT_USAGE, PokayokayError
from pokayokay.learnings.capture.capture_budget import (
    budget_paths,
    read_counts,
    write_counts,
)
from pokayokay.learnings.capture.remember_store import (
    LOCK_TIMEOUT,
    Draft,
    RememberResult,
    matching,
    save,
    utc_stamp,
)
from pokayokay.learnings.topics.stored import StoredLearning
from pokayokay.names import SESSION_START_TIP

# Few imports at module level (the store, the silent budget's file, a stored learning's type);
# everything else is imported where it is used. The SessionStart hook reads its /remember tip
# from pokayokay.names.SESSION_START_TIP and does not import this module.
if TYPE_CHECKING:
    from pokayokay.infra.locate import MemoryLocation
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


def session_start_tip() -> str:
    """The SessionStart context line that points at ``/remember``."""
    return SESSION_START_TIP


# --- reading the memory folder ----------------------------------------------------------------


# --- the per-session silent budget ------------------------------------------------------------


# --- remember ---------------------------------------------------------------------------------


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


def _draft(text: str, category: str | None) -> Draft | RememberResult:
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
    return Draft(
        text=cleaned,
        category=category or infer_category(cleaned),
        name=make_name(cleaned),
        description=excerpt(cleaned, DESCRIPTION_MAX),
        hash=identity(cleaned),
    )


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
        return save(draft, confidence, source, location, settings, moment, environ, silent=False)

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
        result = save(
            draft, "low", SESSION_CAPTURE_SOURCE, location, settings, moment, environ, silent=True
        )
        if result.saved:
            counts[session] = {"count": used + 1, "updated": utc_stamp(moment)}
            write_counts(counts_file, counts, moment)
        return result


def _proposal(
    draft: Draft, location: MemoryLocation, why: str, environ: Mapping[str, str] | None
) -> RememberResult:
    from pokayokay.infra.safe_write import Conflict, with_retries
    from pokayokay.learnings.capture.remember_index import load_learning_index

    def look(_attempt: int) -> StoredLearning | None:
        found = matching(draft, load_learning_index(location.memory_dir, environ))
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


# --- the Topic Index --------------------------------------------------------------------------


# --- the command line -------------------------------------------------------------------------


# --- the /remember slash command --------------------------------------------------------------
