"""SessionStart (catching up on a SessionEnd that did not finish, a factual note when MEMORY.md
is past Claude Code's load limit), SessionEnd and PreCompact (curation)."""

from __future__ import annotations

import os

from pokayokay.hooks.graduation_check import graduate_if_new_evidence  # no pathlib at import
from pokayokay.hooks.runtime import memory_location, memory_paths, project_dir

# pathlib (with re, enum, fnmatch, urllib.parse and ipaddress behind it) is imported where a
# Path is made: SessionStart's path works on strings (docs/decisions/0124, issue 26).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

# Above this size SessionEnd hands curation to a detached process: Claude Code gives all
# SessionEnd hooks 1.5 s together and kills what is still running.
DETACH_ABOVE_BYTES = 1 << 20
SESSION_END_LOCK_WAIT = 0.3


def _location(payload: dict[str, Any]) -> tuple[Path, Any]:
    from pathlib import Path

    return Path(project_dir(payload)), memory_location(payload)


# Claude Code's load limit for MEMORY.md (as in pokayokay.memory.sections, not imported on this
# path).
_MAX_LINES, _MAX_BYTES = 200, 25_000


# Above this size the note skips telling Claude's notes from pokayokay's sections.
_PARSE_AT_MOST = 4 << 20


def session_start(payload: dict[str, Any], event: str) -> str:
    """The `/remember` tip until the project has a learning, and a factual note when MEMORY.md
    is past Claude Code's load limit."""
    from pokayokay.names import MEMORY_FILE, SESSION_START_TIP

    project, location = project_dir(payload), memory_paths(payload)  # strings: no pathlib
    memory_file = os.path.join(location.memory_dir, MEMORY_FILE)
    _catch_up(payload)
    _start_dense(project, location)
    parts = [] if has_learnings(location.memory_dir) else [SESSION_START_TIP]
    measured = _measure(memory_file)
    if measured is not None:
        lines, size, head = measured
        if lines > _MAX_LINES or size > _MAX_BYTES:
            parts.insert(0, _kept_overflow_note(project, location, memory_file, lines, size, head))
    note = "\n".join(parts) + _recalled(payload)
    note = note.lstrip("\n")
    _note_head(payload, location)
    return session_start_output(note, memory_file, _phrase_hint(project))


def _phrase_hint(project: str) -> str:
    """The line telling the user that skills visible here have no phrases yet, once for each
    (:mod:`pokayokay.skills.phrase_hint`); never costs the session its note."""
    try:
        from pokayokay.infra.state import project_state_path
        from pokayokay.skills.phrase_hint import session_hint

        return session_hint(project_state_path(os.path.abspath(project)))
    except Exception as exc:
        from pokayokay.infra.logs import fail_open

        fail_open("SessionStart: the skills' phrase hint", exc)
        return ""


def _start_dense(project: str, location: Any) -> None:
    """The resident dense model, when ``pokayokay[dense]`` is installed (decision 0181): started
    detached, or asked to encode this project's skills and notes; never costs the note."""
    try:
        from pokayokay.infra.state import project_state_path
        from pokayokay.relevance.dense.client import start

        state = project_state_path(str(location.project_key))
        start(project, notes=(str(location.memory_dir), str(location.project_dir), state))
    except Exception as exc:
        from pokayokay.infra.logs import fail_open

        fail_open("SessionStart: starting the dense opinion", exc)


def _catch_up(payload: dict[str, Any]) -> None:
    """What the previous session's SessionEnd did not finish (the spool, graduation), before
    this session reads a file (:mod:`pokayokay.hooks.catch_up`); never costs the note."""
    try:
        from pokayokay.hooks.catch_up import catch_up

        catch_up(payload)
    except Exception as exc:
        from pokayokay.infra.logs import fail_open

        fail_open("SessionStart: catching up on the last SessionEnd", exc)


# Seconds SessionEnd's full freshness check may spend re-reading changed learnings (of the
# 1.5 s all SessionEnd hooks share); the next prompt continues what is left.
FRESHNESS_BUDGET = 0.3
# Seconds it may spend analysing new or changed SKILL.md files (about 10 ms each since decision
# 0205 reads their bodies; every one of them after an upgrade): the next full check, a prompt's
# or the next SessionEnd's, analyses the rest.
CATALOG_BUDGET = 0.3


def _full_freshness_checks(project: Path, location: Any, settings: Any) -> None:
    """The recall index's and the skill catalog's full freshness checks (every learning and
    every ``SKILL.md`` stat-ed), so that a learning or a skill edited in place since is seen by
    the next session's prompts and SessionStart, whose checks are quick (docs/decisions/0105:
    SessionStart did them, at about one interpreter start per 2,000 learnings, issue 26)."""
    import time

    from pokayokay.hooks.recall import full_freshness_check
    from pokayokay.infra.state import project_state_dir
    from pokayokay.names import SKILLS_CACHE_FILE

    full_freshness_check(location, FRESHNESS_BUDGET)
    state_dir = project_state_dir(os.path.abspath(project))
    if (state_dir / SKILLS_CACHE_FILE).exists():
        from pokayokay.skills.asked import read_table
        from pokayokay.skills.catalog import load_catalog
        from pokayokay.skills.phrase_hint import note_unasked

        # no catalog cached yet: the first prompt checks them
        catalog = load_catalog(project, deadline=time.monotonic() + CATALOG_BUDGET)
        if not catalog.partial:
            note_unasked(str(state_dir), catalog, read_table())  # for the next SessionStart (0178)


def session_start_output(
    note: str, memory_file: str | os.PathLike[str], user_message: str = ""
) -> str:
    """The note as ``additionalContext`` (when there is one), and MEMORY.md in ``watchPaths`` so
    that FileChanged fires (and :mod:`pokayokay.hooks.memory_watch` curates) when Claude writes
    it mid-session; ``user_message``, when given, is shown to the user alone."""
    from pokayokay.infra.hook_output import hook_output

    context = {"additionalContext": note} if note else {}
    return hook_output(
        "SessionStart", **context, watchPaths=[str(memory_file)], system_message=user_message
    )


def has_learnings(memory_dir: str | os.PathLike[str]) -> bool:
    """Whether the memory folder holds a learning topic file (``learning-*.md``): once it does,
    the team knows `/remember` and the tip is no longer shown."""
    try:
        with os.scandir(memory_dir) as entries:
            return any(e.name.startswith("learning-") and e.name.endswith(".md") for e in entries)
    except OSError:
        return False


def _note_head(payload: dict[str, Any], location: Any) -> None:
    """The commit the session starts on: SessionEnd lists the commits made since in Completed
    Work. Never costs the session its note."""
    session = payload.get("session_id")
    if not isinstance(session, str) or not session:
        return
    try:
        from pokayokay.infra.state import project_state_path
        from pokayokay.learnings.outcomes.session_heads import git_head, note_session_head

        head = git_head(project_dir(payload))
        if head is not None:
            note_session_head(project_state_path(str(location.project_key)), session, head)
    except Exception as exc:
        from pokayokay.infra.logs import fail_open

        fail_open("SessionStart: noting the session's HEAD", exc)


def _recalled(payload: dict[str, Any]) -> str:
    """Learnings related to the branch being worked on; recall must not cost the tip."""
    from pokayokay.hooks.recall import session_start_context

    try:
        recalled = session_start_context(payload)
    except Exception as exc:
        from pokayokay.infra.logs import fail_open

        fail_open("SessionStart recall", exc)
        return ""
    return "\n" + recalled if recalled else ""


def _measure(path: str | os.PathLike[str]) -> tuple[int, int, bytes] | None:
    """Lines and bytes of MEMORY.md (and its head, for parsing); None if it is not a file."""
    import stat

    from pokayokay.infra.regular import open_nonblocking

    try:
        # Opened without blocking: a FIFO named MEMORY.md must not hang SessionStart.
        fd = open_nonblocking(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None  # a FIFO or a device is nothing Claude Code loads either
        lines, size, head, last = 0, 0, b"", b"\n"
        while chunk := os.read(fd, 1 << 20):
            lines += chunk.count(b"\n")
            size += len(chunk)
            last = chunk[-1:]
            if size <= _PARSE_AT_MOST:
                head += chunk
    except OSError:
        return None
    finally:
        os.close(fd)
    return lines + (0 if not size or last == b"\n" else 1), size, head


def _kept_overflow_note(
    project: str, location: Any, memory_file: str, lines: int, size: int, head: bytes
) -> str:
    """:func:`overflow_note`, kept in the state folder until MEMORY.md or a settings file
    changes (``pokayokay.infra.stamped``): telling Claude's notes from pokayokay's sections
    parses the whole file, which cost SessionStart several interpreter starts (issue 26).

    MEMORY.md is keyed by its content (the bytes :func:`_measure` read anyway: two checksums,
    its lines and size), not by its mtime: a file written in the last two seconds is no "racy"
    case then, and a SessionStart right after a curation (``/clear`` runs SessionEnd and then
    SessionStart at once) reads the note kept instead of parsing the file each time."""
    import zlib

    from pokayokay.infra.stamped import kept
    from pokayokay.infra.state import project_state_path
    from pokayokay.names import LOCAL_SETTINGS_FILE, OVERFLOW_NOTE_FILE, TEAM_SETTINGS_FILE

    def make() -> str:
        from pathlib import Path

        text = head.decode("utf-8", "surrogateescape") if size <= _PARSE_AT_MOST else None
        return overflow_note(Path(project), text, lines, size)

    inputs = (
        os.path.join(project, TEAM_SETTINGS_FILE),
        os.path.join(project, LOCAL_SETTINGS_FILE),
    )
    content = f"{zlib.crc32(head):08x}-{zlib.adler32(head):08x}"
    what = f"overflow {memory_file} {lines} {size} {content}"
    cache = os.path.join(project_state_path(str(location.project_key)), OVERFLOW_NOTE_FILE)
    return kept(cache, what, inputs, make)


def overflow_note(project: Path, text: str | None, lines: int, size: int) -> str:
    from pokayokay.memory.sections import CLAUDE_MAX_BYTES, CLAUDE_MAX_LINES

    note = (
        f"pokayokay: MEMORY.md is {lines} lines / {size:,} bytes. Claude Code loads only its first "
        f"{CLAUDE_MAX_LINES} lines or {CLAUDE_MAX_BYTES:,} bytes, so the rest of it was not "
        "loaded in this session. "
    )
    if text is not None:
        note += (
            f"{_unmanaged_lines(project, text)} of its lines are notes outside pokayokay's "
            "managed sections, which pokayokay never edits. "
        )
    return note + (
        "Moving detail from those notes into topic files in the same memory folder, each "
        "linked from MEMORY.md by a one-line entry, brings the whole index back within the limit."
    )


def _unmanaged_lines(project: Path, text: str) -> int:
    from pokayokay.config.settings import load_settings
    from pokayokay.memory.document import Text, parse
    from pokayokay.memory.sections import DEFAULT_SECTIONS

    try:
        specs = load_settings(project).sections
    except Exception as exc:  # a broken settings file must not cost Claude this note
        from pokayokay.infra.logs import fail_open

        fail_open("SessionStart: reading the settings (default sections used)", exc)
        specs = DEFAULT_SECTIONS
    doc = parse(text, specs, entries=False)  # where the sections are is all the count needs
    return sum(len(seg.lines) for seg in doc.segments if isinstance(seg, Text))


def _curate(location: Any, settings: Any, lock_wait: float, edit: Any = None) -> None:
    from pokayokay.infra import logs
    from pokayokay.infra.safe_write import LockTimeout
    from pokayokay.memory.apply import run_curation

    if not location.memory_file.exists():
        return
    try:
        outcome = run_curation(location, settings, write=True, lock_timeout=lock_wait, edit=edit)
    except LockTimeout:
        logs.log(f"{location.memory_file}: another pokayokay process is curating; skipped")
        return
    skipped = getattr(edit, "skipped_note", None)
    note = skipped(outcome.result.notes if outcome.result else ()) if skipped else None
    if note is not None:
        logs.log(f"SessionEnd: {note}")
    if outcome.written and outcome.result is not None:
        moved = sum(len(m.entries) for m in outcome.result.moves)
        logs.log(
            f"curated {location.memory_file}: moved {moved} entries, added "
            f"{len(outcome.result.added_sections)} sections, {outcome.result.after.lines} lines now"
        )


def session_end(payload: dict[str, Any], event: str) -> str:
    """Curate MEMORY.md, graduate recurring failures into rules, retire rules whose failure
    stopped, and start a consolidation in the background when one is due. Claude Code gives all
    SessionEnd hooks 1.5 s together.

    Each step fails open on its own (``logs.fail_open``: logged with its traceback) and the
    others still run: a NUL byte in MEMORY.md costs curation, not graduation. The hook then
    exits 1 with one stderr line naming the failed steps. The settings are read when the first
    step needs them: a broken settings file is reported once, and no step acts on guessed
    values."""
    from pokayokay.config.settings import load_settings

    project, location = _location(payload)
    _ingest_spool(payload)  # quiet, bounded: fails open on its own
    from pokayokay.learnings.outcomes.chain import session_end_chain

    session_end_chain(payload, project, location)  # fail-safe: logs, never raises
    loaded: list[Any] = []

    def settings() -> Any:
        if not loaded:
            try:
                loaded.append(load_settings(project))
            except Exception as exc:
                loaded.append(exc)
                raise
        if isinstance(loaded[0], Exception):
            raise _SettingsUnreadable(loaded[0])
        return loaded[0]

    failed: list[str] = []
    for what, func in (
        ("SessionEnd curation", lambda p, loc, s: _curate_at_end(p, loc, s, payload)),
        ("SessionEnd graduation", graduate_if_new_evidence),
        ("SessionEnd rule retirement", _retire_due),
        ("SessionEnd consolidation", _consolidate_if_due),
        ("SessionEnd store upgrade", _upgrade_store_if_due),
        ("SessionEnd freshness checks", _full_freshness_checks),
    ):
        failed += _step(what, func, project, location, settings)
    if failed:
        raise StepsFailed("; ".join(failed))
    return ""


class StepsFailed(Exception):
    """Some SessionEnd steps failed open (each logged); the others ran."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class _SettingsUnreadable(Exception):
    """The settings failed for an earlier step, which said so on stderr."""


def _step(what: str, func: Any, project: Path, location: Any, settings: Any) -> list[str]:
    """One SessionEnd step (given the settings when it runs), failing open on its own; returns
    the line saying it failed (the hook's one stderr line is made of them)."""
    import io

    from pokayokay.infra import logs

    try:
        func(project, location, settings())
    except _SettingsUnreadable as exc:
        logs.log(f"{what} skipped: the settings are unreadable ({exc.args[0]})")
    except Exception as exc:
        said = io.StringIO()
        logs.fail_open(what, exc, stderr=said)
        line = said.getvalue().strip().removeprefix("pokayokay: ")
        return [line.rsplit(" (details: ", 1)[0]]
    return []


def _curate_at_end(project: Path, location: Any, settings: Any, payload: dict[str, Any]) -> None:
    """Curation, with what the session observed (fixes closed, commits made) written into the
    managed sections first."""
    from pokayokay.memory.apply import checked_target

    try:
        size: int | None = checked_target(location).stat().st_size  # refuses outside symlinks
    except OSError:
        size = None
    observed = _observed(payload, project, location, settings)
    if observed is not None and size is None:
        from pokayokay.learnings.outcomes.observed import write_entries

        note = write_entries(
            location, settings, observed.entries, lock_timeout=SESSION_END_LOCK_WAIT
        )
        if note is not None:
            from pokayokay.infra import logs

            logs.log(f"SessionEnd: {note}")
    elif size is not None and size > DETACH_ABOVE_BYTES:
        # the background curation writes the session's entries too: they are read again there,
        # from the failure store and git, so none is lost to the detach
        ended = payload.get("session_id") if observed is not None else None
        detach_curation(project, location.memory_dir, "SessionEnd", ended_session=ended)
    elif size is not None:
        _curate(location, settings, SESSION_END_LOCK_WAIT, observed)


# What SessionEnd spends at most on the spool (Claude Code gives all SessionEnd hooks 1.5 s);
# whatever is left waits for the next ingester (the next prompt, any CLI reader).
SESSION_END_INGEST_BUDGET = 0.5


def _ingest_spool(payload: dict[str, Any]) -> None:
    """Ingest the session's spooled tool calls before graduation reads the store."""
    from pokayokay.hooks import ingest

    launch = project_dir(payload)
    result = ingest.ingest_quietly(
        "SessionEnd", lambda: ingest.ingest_project(launch, budget=SESSION_END_INGEST_BUDGET)
    )
    try:
        ingest.enforce_cap(launch, result, "SessionEnd")
    except Exception as exc:
        from pokayokay.infra.logs import fail_open

        fail_open("SessionEnd: handing a large spool to a background ingester", exc)


def _observed(payload: dict[str, Any], project: Path, location: Any, settings: Any) -> Any:
    """The Recent Bug Fixes and Completed Work entries of the ending session, as one edit for
    curation (None when there are none); a failure here never costs the curation."""
    session = payload.get("session_id")
    if not isinstance(session, str) or not session:
        return None
    try:
        from pokayokay.learnings.outcomes.observed import ended_session_edit

        return ended_session_edit(session, project, location, settings)
    except Exception as exc:
        from pokayokay.infra.logs import fail_open

        fail_open("SessionEnd: reading the session's fixes and commits", exc)
        return None


def pre_compact(payload: dict[str, Any], event: str) -> str:
    from pokayokay.config.settings import load_settings

    project, location = _location(payload)
    if memory_size(location) > DETACH_ABOVE_BYTES:  # a compaction waits for this hook
        detach_curation(project, location.memory_dir, "PreCompact")
        return ""
    _curate(location, load_settings(project), 10.0)
    return ""


def memory_size(location: Any) -> int:
    """MEMORY.md's size in bytes; 0 when it is missing or refused (a symlink out of the memory
    folder, not a file), so that curation in the hook says why, not a detached one nobody sees."""
    from pokayokay.errors import PokayokayError
    from pokayokay.memory.apply import checked_target

    try:
        return int(checked_target(location).stat().st_size)
    except (OSError, ValueError, PokayokayError):
        return 0


def _retire_due(project: Path, location: Any, settings: Any) -> None:
    """Retire graduated rules whose failure stopped recurring while they loaded."""
    if not (project / ".claude" / "rules" / "pokayokay").is_dir():
        return  # nothing graduated: skip the rule and store scan on every session end
    from pokayokay.infra import logs
    from pokayokay.rules.retirement import retire_due_rules

    for line in retire_due_rules(project, location, settings):
        logs.log(f"SessionEnd: {line}")


def _consolidate_if_due(project: Path, location: Any, settings: Any) -> None:
    if not settings.consolidation_session_end:
        return
    from pokayokay.learnings.consolidate.consolidation_trigger import session_end_check

    reason = session_end_check(project, location, settings)
    if reason:
        _detach_command(
            [
                "consolidate",
                "--quiet",
                "--project",
                str(project),
                "--memory-dir",
                str(location.memory_dir),
            ],
            f"SessionEnd: consolidation due ({reason}); consolidating in the background",
        )


def _upgrade_store_if_due(project: Path, location: Any, settings: Any) -> None:
    """An old store's one-off upgrades (redaction, the switch to incremental vacuum) rewrite
    the whole file: never in the hook, a detached ``pokayokay upgrade-store`` does them."""
    from pokayokay.failures import upgrade
    from pokayokay.failures.store import FailureStore
    from pokayokay.infra.state import project_state_dir
    from pokayokay.names import FAILURES_DB

    db = project_state_dir(str(location.project_key)) / FAILURES_DB
    if not db.is_file():
        return
    with FailureStore(db) as store:
        names = upgrade.due(store)
    if names:
        _detach_command(
            [
                "upgrade-store",
                "--quiet",
                "--project",
                str(project),
                "--memory-dir",
                str(location.memory_dir),
            ],
            f"SessionEnd: the failure store has one-off upgrades due ({', '.join(names)});"
            " upgrading it in the background",
        )


def detach_curation(
    project: Path, memory_dir: Path, event: str, ended_session: object = None
) -> None:
    """Run `pokayokay curate` in its own session: a MEMORY.md over :data:`DETACH_ABOVE_BYTES`
    takes a curation seconds (40 MB: 11 s, past a hook's 10 s), and Claude Code's cut of
    ``event``'s hook cannot kill it there. ``ended_session``: the session whose fixes and
    commits that curation writes first (SessionEnd's entries)."""
    args = ["curate", "--quiet", "--project", str(project), "--memory-dir", str(memory_dir)]
    if isinstance(ended_session, str) and ended_session:
        args.append(f"--ended-session={ended_session}")  # one argument, whatever it starts with
    _detach_command(args, f"{event}: {memory_dir}/MEMORY.md is large; curating in the background")


def _detach_command(args: list[str], why: str) -> None:
    from pokayokay.infra.detach import detach_command

    detach_command(args, why)
