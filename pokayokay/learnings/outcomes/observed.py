"""What pokayokay observes, written into MEMORY.md's managed sections (issue 12).

* **Recent Bug Fixes**, at SessionEnd: one dated entry per failure group a fix episode closed in
  the session (the failing check that then passed, the files edited in between, the error's
  excerpt); curation keeps the section's 5-entry cap, older entries go to its archive.
* **Completed Work**, at SessionEnd: the commits made during the session (subject and short SHA),
  from the ``HEAD`` SessionStart noted (``session-heads.json`` in the project's state folder).
* **Key Decisions**: a learning stored with ``remember --category decision``, and a spike
  conclusion recorded with ``spike record``.

Every entry is one line. Commit subjects and learnings are shown exactly (a comment that could
pass for a MEMORY.md marker escaped); of a failure's tool output only its error line appears, in
a code span, and only when it does not speak to the reader
(:func:`pokayokay.safety.sanitize.tool_line`); commands and paths are exact code spans, or left
out when they may not be shown (:func:`pokayokay.safety.shown.shown_command`), appended
through :class:`SectionsEdit` inside curation's locked, invariant-checked write: only the named
sections change, a section appears with its first entry, and an entry already there is not added
twice."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from pokayokay.errors import InvariantViolation, PokayokayError
from pokayokay.learnings.outcomes.session_heads import session_git, session_head

if TYPE_CHECKING:
    from pokayokay.failures.store_reads import SessionFix
    from pokayokay.infra.locate import MemoryLocation
    from pokayokay.memory.sections import Settings

RECENT_BUG_FIXES = "recent_bug_fixes"
COMPLETED_WORK = "completed_work"
KEY_DECISIONS = "key_decisions"

ENTRY_CHARS = 220
MAX_COMMITS = 10
PATHS_SHOWN = 3


def _one_line(text: str, limit: int) -> str:
    from pokayokay.safety.exact import escape_markers
    from pokayokay.safety.sanitize import excerpt

    return escape_markers(excerpt(text, limit))


def _day(ts: float) -> str:
    return datetime.fromtimestamp(ts, timezone.utc).date().isoformat()


def _command(command: str) -> str:
    """A command as an exact code span (secrets redacted), or pokayokay's words for one that may
    not be shown."""
    from pokayokay.safety.exact import quoted
    from pokayokay.safety.shown import shown_command

    shown = shown_command(command, 80)
    return quoted(shown) if shown else "a command (not shown)"


def fix_entry(fix: SessionFix) -> str:
    """``- 2026-11-25 test failure fixed: `pytest tests/test_db.py` passes after edits to
    docker-compose.yml — OperationalError: connection to server failed``."""
    from pokayokay.rules.evidence import category_name, shown_path
    from pokayokay.rules.teaching import error_line
    from pokayokay.safety.exact import quoted
    from pokayokay.safety.sanitize import tool_line

    kind = category_name(fix.category) or "recurring"
    text = f"{kind} failure fixed: {_command(fix.command)} passes"
    paths = [p for p in (x for x in fix.paths[:PATHS_SHOWN] if len(x) <= 60) if shown_path(p)]
    if paths:
        shown = ", ".join(str(shown_path(p)) for p in paths)
        more = len(fix.paths) - len(paths)
        text += f" after edits to {shown}" + (f" (+{more} more)" if more > 0 else "")
    head = f"- {_day(fix.ts)} "
    room = ENTRY_CHARS - len(head) - len(text) - 5
    # the excerpt's one error line (as the rule shows it), never its lines run together
    line = tool_line(error_line(fix.excerpt), room) if room >= 20 else None
    return head + text + (f" — {quoted(line)}" if line else "")


def commit_entry(short_sha: str, subject: str, day: str) -> str:
    """``- 2026-11-25 Add presigned uploads for lecture videos (a1b2c3d)``."""
    return f"- {day} {_one_line(subject, ENTRY_CHARS - 30) or '(no subject)'} ({short_sha[:7]})"


def decision_entry(text: str, file_name: str, day: str) -> str:
    """A learning stored as a decision, linked to its topic file."""
    return f"- {day} {_one_line(text, ENTRY_CHARS - 60)} ([learning]({file_name}))"


def spike_entry(question: str, verdict: str, conclusion: str, day: str) -> str:
    head = f"- {day} Spike: {_one_line(question, 90)} — {verdict}: "
    return head + _one_line(conclusion, max(30, ENTRY_CHARS - len(head)))


# -- the edit ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SectionsEdit:
    """Append entries to several managed sections at once (each entry once); nothing else in
    MEMORY.md changes (:meth:`check`). A section turned off in the settings is skipped, and so
    is one curation did not add (it would start past Claude Code's load limit, or its heading
    has no marker): those are listed in ``skipped``, for the caller to log."""

    entries: Mapping[str, tuple[str, ...]]
    skipped: list[str] = field(default_factory=list, compare=False)

    def apply(self, text: str, settings: Settings) -> str:
        from pokayokay.memory.apply import SectionEdit
        from pokayokay.memory.document import parse

        present = {sec.spec.id for sec in parse(text, settings.sections).sections()}
        for section_id, wanted in self.entries.items():
            if not wanted or settings.section(section_id) is None:
                continue
            if section_id not in present:
                if section_id not in self.skipped:
                    self.skipped.append(section_id)
                continue
            text = SectionEdit(section_id, wanted, owns=_never).apply(text, settings)
        return text

    def skipped_note(self, notes: Sequence[str]) -> str | None:
        """What to log about the skipped sections, with curation's reason when it gave one."""
        if not self.skipped:
            return None
        why = next((n for n in notes if n.startswith("sections not added")), None)
        return f"observed entries not written for {', '.join(self.skipped)}" + (
            f": {why}" if why else ": the section is not managed in MEMORY.md"
        )

    def check(self, before: str, after: str, settings: Settings) -> None:
        from pokayokay.memory.document import parse, same_unmanaged, strip_eol

        old_doc, new_doc = parse(before, settings.sections), parse(after, settings.sections)
        if not same_unmanaged(old_doc, new_doc):
            raise InvariantViolation("writing observed entries would change text outside sections")
        old = {s.spec.id: [strip_eol(x) for x in s.body_lines] for s in old_doc.sections()}
        for sec in new_doc.sections():
            if sec.spec.id in self.entries or sec.spec.id not in old:
                continue
            if [strip_eol(x) for x in sec.body_lines] != old[sec.spec.id]:
                raise InvariantViolation(f"writing observed entries would change {sec.spec.title}")


def _never(_entry: str) -> bool:
    return False  # observed entries are only ever added; curation rotates them out


def write_entries(
    location: MemoryLocation,
    settings: Settings,
    entries: Mapping[str, Sequence[str]],
    *,
    lock_timeout: float = 10.0,
    environ: Mapping[str, str] | None = None,
) -> str | None:
    """Append ``entries`` (section id → lines) to MEMORY.md, creating it when missing; a note
    when MEMORY.md could not take them, else None."""
    from pokayokay.memory.apply import checked_target, ensure_memory_template, run_curation

    wanted = {k: tuple(v) for k, v in entries.items() if v and settings.section(k) is not None}
    if not wanted:
        return None
    edit = SectionsEdit(wanted)
    try:
        if not checked_target(location).exists():
            ensure_memory_template(location, settings)
        outcome = run_curation(
            location,
            settings,
            write=True,
            edit=edit,
            lock_timeout=lock_timeout,
            environ=environ,
        )
    except (OSError, PokayokayError) as exc:
        message = exc.message if isinstance(exc, PokayokayError) else str(exc)
        return f"MEMORY.md not updated ({message})"
    return edit.skipped_note(outcome.result.notes if outcome.result is not None else ())


# -- the session's HEAD and its commits ----------------------------------------------------------


def session_commits(project: Path, since: str) -> list[tuple[str, str, str]]:
    """``(short sha, subject, day)`` of the commits from ``since`` (exclusive) to HEAD, oldest
    first, at most :data:`MAX_COMMITS` (the newest)."""
    log_format = "--format=%h%x00%s%x00%cI"
    since_head = f"{since}..HEAD"
    log = session_git(project, "log", "--no-merges", f"-{MAX_COMMITS}", log_format, since_head)
    out = []
    for line in (log or "").splitlines():
        parts = line.split("\0")
        if len(parts) == 3 and parts[0]:
            out.append((parts[0], parts[1], parts[2][:10]))
    return out[::-1]


# -- SessionEnd ----------------------------------------------------------------------------------


def session_end_entries(
    session_id: str, project: Path, location: MemoryLocation, state_dir: Path
) -> dict[str, list[str]]:
    """Recent Bug Fixes and Completed Work entries for a session that ends."""
    from pokayokay.names import FAILURES_DB

    out: dict[str, list[str]] = {}
    db = state_dir / FAILURES_DB
    if db.is_file():
        from pokayokay.failures.store import FailureStore

        with FailureStore(db) as store:
            fixes = store.session_fixes(session_id)
        out[RECENT_BUG_FIXES] = list(dict.fromkeys(fix_entry(f) for f in fixes))
    head = session_head(state_dir, session_id)
    if head is not None:
        commits = session_commits(project, head)
        out[COMPLETED_WORK] = [commit_entry(sha, subject, day) for sha, subject, day in commits]
    return {k: v for k, v in out.items() if v}


def ended_session_edit(
    session_id: str, project: Path, location: MemoryLocation, settings: Settings
) -> SectionsEdit | None:
    """The Recent Bug Fixes and Completed Work entries of ``session_id``, ended, as one edit for
    curation (None when there are none, or none of their sections is configured)."""
    entries = session_end_entries(session_id, project, location, _state_dir(location))
    wanted = {k: tuple(v) for k, v in entries.items() if settings.section(k) is not None}
    return SectionsEdit(wanted) if wanted else None


def today() -> str:
    return date.today().isoformat()


def _state_dir(location: MemoryLocation, environ: Mapping[str, str] | None = None) -> Path:
    from pokayokay.infra.state import project_state_dir

    env = dict(os.environ if environ is None else environ)
    return project_state_dir(str(location.project_key), env)
