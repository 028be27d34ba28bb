"""``pokayokay remember``: store a learning as a Claude Code memory, or reinforce one.

What :func:`remember` does with a text:

1. refuses it when it is under :data:`~pokayokay.learnings.model.MIN_CHARS` characters once trimmed
   (:data:`TOO_SHORT`), or once sanitised (:func:`pokayokay.safety.sanitize.clean` removes markup,
   links
   and instruction-like phrases: nothing of those reaches a memory file);
2. for a capture the model started (``mode="model"``), applies ``capture_mode`` from the settings:
   ``off`` refuses, ``ask-first`` (the default) stores nothing and answers that the learning is to
   be proposed to the user, ``silent`` stores it at confidence ``low`` with source
   ``session-capture`` while the session's silent budget (``silent_capture_budget``, default 5)
   lasts, and answers :data:`BUDGET_REACHED` after that;
3. under a lock shared by every pokayokay process, looks for the same learning (identity hash
   of the normalised text) or a near duplicate (:func:`pokayokay.learnings.model.near_duplicate`)
   among the ``learning-*.md`` topic files of the auto-memory folder: a match is reinforced (its
   observation count goes up), anything else becomes a new topic file, written atomically;
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

import os
import sys
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from pokayokay.errors import EXIT_USAGE, PokayokayError
from pokayokay.names import SESSION_START_TIP

# Only the standard library basics and pokayokay.errors are imported here: the SessionStart hook
# imports this module for session_start_tip(). Everything else is imported where it is used.
if TYPE_CHECKING:
    import argparse

    from pokayokay.infra.locate import MemoryLocation
    from pokayokay.learnings.model import Learning
    from pokayokay.memory.sections import Settings

__all__ = [
    "BUDGET_REACHED",
    "CAPTURE_MODES",
    "EXIT_CAPTURE_OFF",
    "EXIT_PROPOSE",
    "SESSION_START_TIP",
    "TOO_SHORT",
    "RememberResult",
    "StoredLearning",
    "add_arguments",
    "load_learnings",
    "remember",
    "run_command",
    "session_start_tip",
]

EXIT_OK = 0
EXIT_TOO_SHORT = EXIT_USAGE
EXIT_PROPOSE = 5
EXIT_CAPTURE_OFF = 6

TOO_SHORT = "Learning too short (need at least 20 characters). Please provide more detail."
TOO_SHORT_CLEANED = (
    "Learning too short once markup, links and instruction-like phrases are removed (need at "
    "least 20 characters). Please provide more detail."
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

# Learning files larger than this are not learnings pokayokay wrote: they are left alone.
MAX_FILE_BYTES = 256 * 1024
SOURCE_MAX = 60
LOCK_TIMEOUT = 10.0
WRITE_ATTEMPTS = 5
# The silent-capture counts kept per project: sessions idle this long are forgotten, and never
# more than this many are kept.
SESSION_RETENTION = timedelta(days=30)
SESSIONS_KEPT = 500
BUDGET_FILE = "silent-captures.json"


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


class StoredLearning(NamedTuple):
    """A learning topic file found in the memory folder (``data``: the bytes it held)."""

    path: Path
    learning: Learning
    data: bytes

    @property
    def file_name(self) -> str:
        return self.path.name


# --- reading the memory folder ----------------------------------------------------------------


def learning_files(memory_dir: Path) -> list[Path]:
    """The ``learning-*.md`` files of the folder, sorted by name (symlinks included)."""
    from pokayokay.learnings.model import FILE_PREFIX

    try:
        entries = list(os.scandir(memory_dir))
    except OSError:
        return []
    names = [e.name for e in entries if e.name.startswith(FILE_PREFIX) and e.name.endswith(".md")]
    return [memory_dir / name for name in sorted(names)]


def load_learnings(memory_dir: Path) -> tuple[list[StoredLearning], list[str]]:
    """Every learning topic file in ``memory_dir`` that parses, and one problem line per file
    that was skipped (a symlink, too large, unreadable, or not in the learning format)."""
    from pokayokay.learnings.model import LearningFormatError, parse

    found: list[StoredLearning] = []
    problems: list[str] = []
    for path in learning_files(memory_dir):
        if path.is_symlink() or not path.is_file():
            problems.append(f"{path.name}: not a regular file (skipped)")
            continue
        try:
            with path.open("rb") as handle:
                data = handle.read(MAX_FILE_BYTES + 1)
        except OSError as exc:
            problems.append(f"{path.name}: cannot read it ({exc.strerror or exc})")
            continue
        if len(data) > MAX_FILE_BYTES:
            problems.append(f"{path.name}: larger than {MAX_FILE_BYTES} bytes (skipped)")
            continue
        try:
            learning = parse(data.decode("utf-8"))
        except UnicodeDecodeError:
            problems.append(f"{path.name}: not UTF-8 text (skipped)")
            continue
        except LearningFormatError as exc:
            problems.append(f"{path.name}: {exc} (skipped)")
            continue
        found.append(StoredLearning(path, learning, data))
    return found, problems


# --- the per-session silent budget ------------------------------------------------------------


def _environ(environ: Mapping[str, str] | None) -> dict[str, str]:
    return dict(os.environ if environ is None else environ)


def _budget_paths(location: MemoryLocation, environ: Mapping[str, str] | None) -> tuple[Path, Path]:
    from pokayokay.infra.state import project_state_dir

    folder = project_state_dir(str(location.project_key), _environ(environ))
    return folder / BUDGET_FILE, folder / "silent-captures.lock"


def _read_counts(path: Path) -> dict[str, dict[str, object]]:
    import json

    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return {}  # missing or damaged: counting starts again (the budget errs towards asking)
    sessions = data.get("sessions") if isinstance(data, dict) else None
    if not isinstance(sessions, dict):
        return {}
    return {
        str(key): value
        for key, value in sessions.items()
        if isinstance(value, dict) and isinstance(value.get("count"), int)
    }


def _write_counts(path: Path, sessions: dict[str, dict[str, object]], now: datetime) -> None:
    import json

    from pokayokay.infra.safe_write import write_atomic

    cutoff = (now - SESSION_RETENTION).strftime("%Y-%m-%dT%H:%M:%SZ")
    kept = {k: v for k, v in sessions.items() if str(v.get("updated", "")) >= cutoff}
    newest = sorted(kept.items(), key=lambda item: str(item[1].get("updated", "")), reverse=True)
    data = {"version": 1, "sessions": dict(newest[:SESSIONS_KEPT])}
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, (json.dumps(data, indent=1, sort_keys=True) + "\n").encode("utf-8"))


def silent_captures(
    location: MemoryLocation, session_id: str, environ: Mapping[str, str] | None = None
) -> int:
    """How many silent captures ``session_id`` has made in this project."""
    path, _ = _budget_paths(location, environ)
    entry = _read_counts(path).get(session_id, {})
    count = entry.get("count", 0)
    return count if isinstance(count, int) else 0


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
    from pokayokay.safety.sanitize import excerpt

    cleaned = excerpt(source, SOURCE_MAX).strip()
    if not cleaned:
        raise PokayokayError("--source: expected a short label such as 'user' or 'retro'")
    return cleaned


class _Draft(NamedTuple):
    text: str
    category: str
    name: str
    description: str
    hash: str


def _draft(text: str, category: str | None) -> _Draft | RememberResult:
    from pokayokay.learnings.model import (
        DESCRIPTION_MAX,
        MAX_CHARS,
        MIN_CHARS,
        identity,
        infer_category,
        make_name,
    )
    from pokayokay.safety.sanitize import clean, excerpt

    trimmed = text.strip()
    if len(trimmed) < MIN_CHARS:
        return RememberResult("too_short", TOO_SHORT, EXIT_TOO_SHORT)
    if len(trimmed) > 4 * MAX_CHARS:
        return RememberResult("too_long", TOO_LONG, EXIT_TOO_SHORT)
    cleaned = clean(trimmed)
    if len(cleaned) < MIN_CHARS:
        return RememberResult("too_short", TOO_SHORT_CLEANED, EXIT_TOO_SHORT)
    if len(cleaned) > MAX_CHARS:
        return RememberResult("too_long", TOO_LONG, EXIT_TOO_SHORT)
    return _Draft(
        text=cleaned,
        category=category or infer_category(cleaned),
        name=make_name(cleaned),
        description=excerpt(cleaned, DESCRIPTION_MAX),
        hash=identity(cleaned),
    )


def _match(
    draft: _Draft, existing: Sequence[StoredLearning]
) -> tuple[StoredLearning, float | None] | None:
    from pokayokay.learnings.model import near_duplicate

    for stored in existing:
        if stored.learning.hash == draft.hash:
            return stored, None
    found = near_duplicate(draft.text, ((s.file_name, s.learning.text) for s in existing))
    if found is None:
        return None
    by_name = {s.file_name: s for s in existing}
    return by_name[found[0]], found[1]


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
) -> RememberResult:
    """Store ``text`` as a learning, or reinforce the learning it repeats (module docstring).

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

    draft = _draft(text, category)
    if isinstance(draft, RememberResult):
        return draft
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
        return _proposal(draft, location, "ask-first")

    from pokayokay.infra.safe_write import file_lock

    session = session_id or NO_SESSION
    budget = silent_budget(settings)
    counts_file, lock = _budget_paths(location, environ)
    with file_lock(lock, LOCK_TIMEOUT):
        counts = _read_counts(counts_file)
        used = counts.get(session, {}).get("count", 0)
        if not isinstance(used, int):
            used = 0
        if used >= budget:
            return _proposal(draft, location, "budget")
        result = _save(
            draft, "low", SESSION_CAPTURE_SOURCE, location, settings, moment, environ, silent=True
        )
        if result.saved:
            counts[session] = {"count": used + 1, "updated": _stamp(moment)}
            _write_counts(counts_file, counts, moment)
        return result


def _proposal(draft: _Draft, location: MemoryLocation, why: str) -> RememberResult:
    existing, _ = load_learnings(location.memory_dir)
    match = _match(draft, existing)
    if match is not None:
        known = match[0].learning
        detail = (
            f"It repeats the stored learning {known.name} ({known.category}); approving it "
            "reinforces that one."
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
        state_home(_environ(environ))
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
    from pokayokay.infra.safe_write import file_lock

    with file_lock(_learnings_lock(location, environ), LOCK_TIMEOUT):
        stamp = _stamp(moment)
        try:
            location.memory_dir.mkdir(parents=True, exist_ok=True)
            for _ in range(WRITE_ATTEMPTS):
                existing, _problems = load_learnings(location.memory_dir)
                match = _match(draft, existing)
                if match is not None:
                    result = _reinforce(match[0], match[1], confidence, stamp)
                else:
                    result = _create(draft, confidence, source, location, stamp, silent=silent)
                if result is not None:
                    break
            else:
                raise PokayokayError(
                    f"the learning files in {location.memory_dir} kept changing while pokayokay "
                    "tried to write; nothing was lost, run the command again"
                )
        except OSError as exc:
            raise PokayokayError(
                f"cannot write the learning into {location.memory_dir} "
                f"({exc.strerror or exc}); nothing was stored"
            ) from None
        assert result.path is not None and result.learning is not None
        now_stored = [s for s in existing if s.path != result.path]
        now_stored.append(StoredLearning(result.path, result.learning, b""))
        notes = _update_index(location, settings, now_stored, result.path, environ)
    return RememberResult(
        result.status,
        result.message,
        result.exit_code,
        result.learning,
        result.path,
        result.similarity,
        notes,
    )


def _reinforce(
    stored: StoredLearning, score: float | None, confidence: str, stamp: str
) -> RememberResult | None:
    from pokayokay.infra.safe_write import Conflict, replace_if_unchanged
    from pokayokay.learnings.model import render

    learning = stored.learning.reinforced(stamp, confidence)
    try:
        replace_if_unchanged(stored.path, stored.data, render(learning).encode("utf-8"))
    except Conflict:
        return None  # Claude (or someone) edited it meanwhile: read it again
    message = (
        f"Reinforced: {learning.name} ({learning.category}) — seen {learning.observations} times"
    )
    return RememberResult("reinforced", message, EXIT_OK, learning, stored.path, score)


def _create(
    draft: _Draft,
    confidence: str,
    source: str,
    location: MemoryLocation,
    stamp: str,
    *,
    silent: bool,
) -> RememberResult | None:
    from pokayokay.infra.safe_write import Conflict, replace_if_unchanged
    from pokayokay.learnings.model import FILE_PREFIX, Learning, file_name_for, render, unique_name

    taken = {
        p.name.removeprefix(FILE_PREFIX).removesuffix(".md")
        for p in learning_files(location.memory_dir)
    }
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
    )
    path = location.memory_dir / file_name_for(name)
    try:
        replace_if_unchanged(path, None, render(learning).encode("utf-8"))
    except Conflict:
        return None  # the name was taken meanwhile: look again
    verb = "Captured" if silent else "Stored"
    return RememberResult(
        "stored", f"{verb}: {name} ({learning.category})", EXIT_OK, learning, path
    )


# --- the Topic Index --------------------------------------------------------------------------


def _linked_files(text: str) -> set[str]:
    import re

    return set(re.findall(r"\]\((learning-[a-z0-9-]+\.md)\)", text))


def index_entries(
    learnings: Sequence[StoredLearning], memory_text: str, archive_text: str, keep: str | None
) -> tuple[str, ...]:
    """The Topic Index lines for ``learnings``, oldest first (curation archives a section's
    entries from the top, so the oldest go first): every learning whose line is in MEMORY.md
    now or has never been archived, and ``keep`` (the file just stored or reinforced)."""
    from pokayokay.learnings.model import index_line, is_index_line

    present = {
        target
        for line in memory_text.splitlines()
        if is_index_line(line)
        for target in _linked_files(line)
    }
    archived = _linked_files(archive_text)
    chosen = [
        s
        for s in learnings
        if s.file_name in present or s.file_name not in archived or s.file_name == keep
    ]
    chosen.sort(key=lambda s: (s.learning.created, s.file_name))
    return tuple(index_line(s.learning, s.file_name) for s in chosen)


def _update_index(
    location: MemoryLocation,
    settings: Settings,
    learnings: Sequence[StoredLearning],
    touched: Path | None,
    environ: Mapping[str, str] | None,
) -> tuple[str, ...]:
    from pokayokay.learnings.model import is_index_line
    from pokayokay.memory.apply import (
        SectionEdit,
        checked_target,
        ensure_memory_template,
        run_curation,
    )
    from pokayokay.memory.sections import TOPIC_INDEX_ID

    spec = settings.section(TOPIC_INDEX_ID)
    if spec is None:
        return (
            "not indexed in MEMORY.md: the Topic Index section is turned off in the pokayokay "
            "settings (the topic file is in the memory folder all the same)",
        )
    try:
        target = checked_target(location)
        if not target.exists():
            ensure_memory_template(location, settings)
        memory_text = _read_text(target)
        archive_text = _read_text(location.memory_dir / spec.archive)
        entries = index_entries(
            learnings, memory_text, archive_text, touched.name if touched else None
        )
        edit = SectionEdit(TOPIC_INDEX_ID, entries, is_index_line)
        run_curation(location, settings, write=True, edit=edit, environ=environ)
    except PokayokayError as exc:
        from pokayokay.infra import logs

        logs.log(f"remember: {location.memory_file} not updated: {exc.message}")
        return (
            f"MEMORY.md was not updated ({exc.message}); the learning is stored, and the next "
            "`pokayokay remember` indexes it",
        )
    return ()


def _read_text(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8", "surrogateescape")
    except OSError:
        return ""


# --- the command line -------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``pokayokay remember`` (cli.py adds ``--project`` and ``--memory-dir``)."""
    from pokayokay.learnings.model import CATEGORIES, CONFIDENCES

    parser.add_argument(
        "text",
        nargs="*",
        metavar="TEXT",
        help="the learning (several words are joined with spaces); '-' or --stdin reads it "
        "from standard input",
    )
    parser.add_argument(
        "--stdin", action="store_true", help="read the learning from standard input"
    )
    parser.add_argument(
        "--category", choices=CATEGORIES, default=None, help="default: inferred from the text"
    )
    parser.add_argument("--confidence", choices=CONFIDENCES, default="medium")
    parser.add_argument("--source", default="user", help="where the learning comes from")
    parser.add_argument(
        "--mode",
        choices=MODES,
        default="user",
        help="'model' when Claude captures on its own: capture_mode and the silent budget apply",
    )
    parser.add_argument(
        "--session",
        metavar="ID",
        default=None,
        help="the session a model capture counts against (default: $CLAUDE_CODE_SESSION_ID)",
    )


def _input_text(ns: argparse.Namespace) -> str:
    from pokayokay.learnings.model import MAX_CHARS

    words: list[str] = list(ns.text or [])
    if ns.stdin or words == ["-"]:
        data = sys.stdin.buffer.read(16 * MAX_CHARS + 1)
        return data.decode("utf-8", "replace")
    return " ".join(words)


def run_command(
    ns: argparse.Namespace, project: Path, location: MemoryLocation, settings: Settings
) -> int:
    """``pokayokay remember``: print the outcome, return the exit code (module docstring)."""
    session = ns.session or os.environ.get("CLAUDE_CODE_SESSION_ID") or None
    result = remember(
        _input_text(ns),
        category=ns.category,
        confidence=ns.confidence,
        source=ns.source,
        session_id=session,
        mode=ns.mode,
        project_dir=project,
        location=location,
        settings=settings,
    )
    # Refusals of the text go to stderr (a failing `!` line in the slash command shows stderr to
    # the user); every other answer, notes included, to stdout, which the slash command and the
    # Bash tool hand to the model.
    lines = [result.message, *(f"Note: {note}" for note in result.notes)]
    stream = sys.stderr if result.status in ("too_short", "too_long") else sys.stdout
    stream.write("\n".join(lines) + "\n")
    return result.exit_code


# --- the /remember slash command --------------------------------------------------------------

COMMAND_FILE = "remember.md"
# The line that makes a command file pokayokay's /remember (in every version of it).
COMMAND_MARKER = "pokayokay remember --stdin <<'POKAYOKAY_REMEMBER_END'"


def slash_command_source() -> Path:
    """The shipped ``commands/remember.md``: ``pokayokay/commands/`` in a wheel, the repository's
    ``commands/`` in a source tree."""
    from pokayokay.infra.resources import resource_dir

    candidate = resource_dir("commands") / COMMAND_FILE
    if candidate.is_file():
        return candidate
    raise PokayokayError(
        f"this pokayokay installation lacks commands/{COMMAND_FILE}; reinstall pokayokay"
    )


def slash_command_text() -> str:
    return slash_command_source().read_text("utf-8")


def _command_target(commands_dir: Path, root: Path | None) -> Path:
    target = commands_dir / COMMAND_FILE
    if root is not None:
        real = Path(os.path.realpath(target))
        if not real.is_relative_to(Path(os.path.realpath(root))):
            raise PokayokayError(
                f"{target} leads to {real}, outside {root}; pokayokay does not write there"
            )
    return target


def install_slash_command(commands_dir: Path, *, root: Path | None = None) -> str:
    """Put ``/remember`` into ``commands_dir`` (``<project>/.claude/commands`` or
    ``~/.claude/commands``). Idempotent; an older pokayokay version of the file is replaced, a
    file of someone else's at that place is left alone. ``root``: the folder the file must stay
    inside once symlinks are resolved (the project). Returns one line for the init report."""
    from pokayokay.infra.safe_write import Conflict, read_bytes, replace_if_unchanged

    target = _command_target(commands_dir, root)
    wanted = slash_command_text().encode("utf-8")
    for _ in range(WRITE_ATTEMPTS):
        current = read_bytes(target)
        if current == wanted:
            return f"/remember already installed in {target}"
        if current is not None and COMMAND_MARKER.encode("utf-8") not in current:
            return (
                f"{target} exists and is not pokayokay's /remember: left as it is "
                "(the plugin's /pokayokay:remember does the same)"
            )
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            replace_if_unchanged(target, current, wanted)
        except Conflict:
            continue
        return f"{'updated' if current is not None else 'created'} {target} (/remember)"
    raise PokayokayError(f"{target} kept changing while pokayokay tried to write it")


def uninstall_slash_command(commands_dir: Path, *, root: Path | None = None) -> str | None:
    """Remove ``/remember`` from ``commands_dir`` if it is exactly what init installed (a copy
    someone edited is left alone). Returns one line for the uninstall report, None when there
    was nothing of pokayokay's there."""
    from pokayokay.infra.safe_write import read_bytes

    target = _command_target(commands_dir, root)
    current = read_bytes(target)
    if current is None or COMMAND_MARKER.encode("utf-8") not in current:
        return None
    if current != slash_command_text().encode("utf-8"):
        return (
            f"{target} differs from the /remember this pokayokay ships (edited, or from another "
            "version): left as it is"
        )
    target.unlink()
    return f"removed {target} (/remember)"
