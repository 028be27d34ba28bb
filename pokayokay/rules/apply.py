"""Graduation at the edge: write the rule files, the topic file and MEMORY.md's Active Patterns.

:func:`apply` carries out a :class:`~pokayokay.rules.graduation.GraduationPlan`:

1. every rule file whose text changes is replaced atomically (temporary file, then rename, through
   :func:`pokayokay.infra.safe_write.replace_if_unchanged`), and only if it still holds the text
   the plan
   was made from — a file someone edited meanwhile is left alone and reported. Rule files are only
   ever written inside the project's ``.claude/rules/pokayokay/`` (a symlink leading elsewhere is
   refused);
2. under the lock curation uses (:func:`pokayokay.memory.apply.lock_path`),
   ``recurring-failures.md``
   in the memory folder, then MEMORY.md: read, edit only the Active Patterns units (and add the
   topic file's link to the Topic Index), check the edit (:func:`graduation.check_memory_edit`),
   back the old file up, and compare-and-swap; when Claude wrote MEMORY.md meanwhile, start again
   from Claude's version. A MEMORY.md without the section first gets its missing sections through
   :func:`pokayokay.memory.apply.ensure_memory_template` (curation's own path).

Files are written in that order, so MEMORY.md never points at a rule file that does not exist yet.
A kill at any moment leaves each file either old or new. ``dry_run=True`` writes nothing and
returns the same list of changes, ``(path, old, new)``.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import NamedTuple

from pokayokay.errors import PokayokayError
from pokayokay.failures.model import FailureGroup
from pokayokay.infra.git import list_project_files
from pokayokay.infra.locate import MemoryLocation
from pokayokay.infra.regular import read_regular
from pokayokay.infra.safe_write import (
    Conflict,
    decode_text,
    encode_text,
    file_lock,
    read_bytes,
    read_text,
    replace_if_unchanged,
    update,
)
from pokayokay.memory.apply import (
    checked_target,
    ensure_memory_template,
    lock_path,
    run_curation,
    template_text,
)
from pokayokay.memory.curation import curate
from pokayokay.memory.document import parse
from pokayokay.memory.sections import Settings
from pokayokay.rules.graduation import (
    ACTIVE_PATTERNS_ID,
    DEFAULT_THRESHOLD,
    RECURRING_FILE,
    RULES_ARCHIVE,
    RULES_DIR,
    GraduationPlan,
    RuleFile,
    plan_graduation,
)
from pokayokay.rules.memory_edit import check_memory_edit, edit_memory
from pokayokay.rules.rule_text import parse_retired
from pokayokay.rules.team_view import TeamView

__all__ = [
    "ApplyOutcome",
    "FileChange",
    "apply",
    "graduate",
    "read_existing_rules",
    "read_retired",
]

MAX_RULE_BYTES = 1 << 20
_RULE_NAME = re.compile(r"[a-z0-9][a-z0-9-]*\.md")
_TEMP_NAME = re.compile(r"^\..+\.pokayokay-(\d+)-\d+\.tmp$")


class FileChange(NamedTuple):
    """One file graduation changes (or would change): its text before (None: new) and after."""

    path: Path
    old: str | None
    new: str


@dataclass
class ApplyOutcome:
    changes: list[FileChange] = field(default_factory=list)
    dry_run: bool = False
    notes: list[str] = field(default_factory=list)
    conflicts: list[Path] = field(default_factory=list)  # files changed since the plan was made
    memory_attempts: int = 0
    backup: Path | None = None

    @property
    def written(self) -> bool:
        return bool(self.changes) and not self.dry_run


# --------------------------------------------------------------------------------------------
# Inputs


def _rules_folder(project_dir: Path) -> Path:
    """``<project>/.claude/rules/pokayokay``, refusing one that leads outside ``.claude/``."""
    folder = project_dir / RULES_DIR
    claude = Path(os.path.realpath(project_dir / ".claude"))
    project = Path(os.path.realpath(project_dir))
    real = Path(os.path.realpath(folder))
    if claude.parent != project or (real != claude and claude not in real.parents):
        raise PokayokayError(
            f"{folder} leads to {real}, outside {project_dir / '.claude'}; pokayokay writes rule "
            "files only inside the project's .claude/ folder"
        )
    return folder


def read_existing_rules(project_dir: Path) -> dict[str, str]:
    """The files under ``.claude/rules/pokayokay/``: project-relative path → text."""
    folder = _rules_folder(project_dir)
    out: dict[str, str] = {}
    if not folder.is_dir():
        return out
    for path in sorted(folder.iterdir()):
        if not path.name.endswith(".md") or not path.is_file():
            continue
        try:
            if path.stat().st_size > MAX_RULE_BYTES:
                continue
            data = read_regular(path)
        except OSError:
            continue  # unreadable: not a rule of ours
        out[f"{RULES_DIR}/{path.name}"] = data.decode("utf-8", "surrogateescape")
    return out


def read_retired(location: MemoryLocation) -> dict[str, datetime]:
    """Signature → the moment the retired rules in ``<memory>/rules-archive.md`` were retired
    (empty when there is no archive or it cannot be read)."""
    try:
        target = checked_target(location, RULES_ARCHIVE)
        data = read_bytes(target)
    except (OSError, PokayokayError):
        return {}
    if data is None:
        return {}
    return parse_retired(data.decode("utf-8", "surrogateescape"))


# --------------------------------------------------------------------------------------------
# Writing


def _sweep_temps(folder: Path) -> None:
    """Remove temporary files a killed pokayokay process left in ``folder``."""
    with contextlib.suppress(OSError):  # best effort: the next run sweeps
        for path in folder.iterdir():
            match = _TEMP_NAME.match(path.name)
            if match is None:
                continue
            pid = int(match[1])
            if pid == os.getpid():
                continue
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                path.unlink(missing_ok=True)
            except OSError:
                continue  # alive or not ours: kept


def _write_rule(rule: RuleFile, folder: Path, outcome: ApplyOutcome, *, dry_run: bool) -> None:
    name = f"{rule.id}.md"
    if not _RULE_NAME.fullmatch(name):
        outcome.notes.append(f"{rule.path}: not a rule name pokayokay writes; skipped")
        return
    target = folder / name
    if target.is_symlink():
        outcome.notes.append(f"{target} is a symlink; pokayokay does not write through it")
        outcome.conflicts.append(target)
        return
    current = read_bytes(target)
    expected = None if rule.old_text is None else encode_text(rule.old_text)
    new = encode_text(rule.text)
    if current == new:
        return
    if current != expected:
        outcome.notes.append(
            f"{target} changed after the plan was made; left as it is (run graduation again)"
        )
        outcome.conflicts.append(target)
        return
    if not dry_run:
        try:
            replace_if_unchanged(target, expected, new)
        except Conflict:
            outcome.notes.append(f"{target} changed while pokayokay wrote it; left as it is")
            outcome.conflicts.append(target)
            return
    outcome.changes.append(FileChange(target, rule.old_text, rule.text))


def _write_topic(location: MemoryLocation, text: str, outcome: ApplyOutcome) -> None:
    target = checked_target(location, RECURRING_FILE)
    new = encode_text(text)
    before: list[bytes | None] = []

    def change(current: bytes | None) -> bytes:
        before[:] = [current]
        return new

    update(target, change)
    current = before[0]
    if current != new:
        old = None if current is None else decode_text(current, target)
        outcome.changes.append(FileChange(target, old, text))


def _with_sections(text: str | None, settings: Settings, today: date) -> str:
    """What the structure pass makes of MEMORY.md (or of the new file
    :func:`ensure_memory_template` would write) before the edit, for a dry run."""
    if text is None:
        text = template_text(settings)
    return curate(text, settings, {}, today, evict=False, keep_empty=True).text


def _added_by_structure(text: str | None, settings: Settings) -> list[str]:
    """The managed sections the structure pass adds to ``text`` (taken out again when the edit
    leaves them empty)."""
    if text is None:
        return [spec.id for spec in settings.sections]
    doc = parse(text, settings.sections)
    return [spec.id for spec in settings.sections if doc.section(spec.id) is None]


def _needs_sections(text: str | None, settings: Settings) -> bool:
    if settings.section(ACTIVE_PATTERNS_ID) is None:
        return False
    if text is None:
        return True
    doc = parse(text, settings.sections)
    return doc.section(ACTIVE_PATTERNS_ID) is None and ACTIVE_PATTERNS_ID not in doc.unmarked


def _memory_dry_run(
    plan: GraduationPlan, location: MemoryLocation, settings: Settings, outcome: ApplyOutcome
) -> None:
    target = checked_target(location)
    old = read_text(target)
    base = _with_sections(old, settings, plan.today) if _needs_sections(old, settings) else old
    if base is None:
        outcome.notes.append(f"{target} does not exist; no Active Patterns entry written")
        return
    edit = edit_memory(base, plan, settings)
    check_memory_edit(base, edit.text, plan, settings)
    outcome.notes.extend(edit.notes)
    added = _added_by_structure(old, settings)
    new = curate(edit.text, settings, {}, plan.today, evict=False, droppable=added).text
    if new != old:
        outcome.changes.append(FileChange(target, old, new))


class _PlanEdit:
    """The plan's Active Patterns entries (and the Topic Index link of recurring-failures.md),
    applied inside :func:`pokayokay.memory.apply.run_curation`'s locked, checked write."""

    def __init__(self, plan: GraduationPlan) -> None:
        self.plan = plan
        self.notes: tuple[str, ...] = ()

    def apply(self, text: str, settings: Settings) -> str:
        edit = edit_memory(text, self.plan, settings)
        self.notes = edit.notes
        return edit.text

    def check(self, before: str, after: str, settings: Settings) -> None:
        check_memory_edit(before, after, self.plan, settings)


def _memory_write(
    plan: GraduationPlan,
    location: MemoryLocation,
    settings: Settings,
    outcome: ApplyOutcome,
    lock_timeout: float,
    environ: Mapping[str, str] | None,
) -> None:
    target = checked_target(location)
    edit = _PlanEdit(plan)
    done = run_curation(
        location, settings, write=True, evict=False, edit=edit, lock_timeout=lock_timeout,
        today=plan.today, environ=environ,
    )
    outcome.memory_attempts = done.attempts
    outcome.notes.extend(edit.notes)
    if done.result is None:
        outcome.notes.append(f"{target} does not exist; no Active Patterns entry written")
    elif done.written:
        outcome.backup = done.backup
        outcome.changes.append(FileChange(target, done.source_text, done.result.text))


def apply(
    plan: GraduationPlan,
    *,
    project_dir: Path,
    location: MemoryLocation,
    settings: Settings,
    dry_run: bool = False,
    lock_timeout: float = 10.0,
    environ: Mapping[str, str] | None = None,
) -> ApplyOutcome:
    """Write what ``plan`` says (see the module docstring); ``dry_run`` only reports it."""
    outcome = ApplyOutcome(dry_run=dry_run)
    outcome.notes.extend(plan.notes)
    folder = _rules_folder(Path(project_dir))
    if not dry_run and any(rule.changed for rule in plan.rules):
        folder.mkdir(parents=True, exist_ok=True)
        _sweep_temps(folder)
    for rule in plan.rules:
        _write_rule(rule, folder, outcome, dry_run=dry_run)
    topic = checked_target(location, RECURRING_FILE)
    write_topic = plan.recorded > 0 or topic.exists()
    if dry_run:
        old = read_text(topic)
        if write_topic and old != plan.recurring_failures:
            outcome.changes.append(FileChange(topic, old, plan.recurring_failures))
        _memory_dry_run(plan, location, settings, outcome)
        return outcome
    # The rule files are written: a MEMORY.md pokayokay cannot use (binary, unreadable, a
    # symlink out of the folder) costs only its Active Patterns entries, said in a note.
    memory_ok = _memory_step(outcome, lambda: _ensure_sections(location, settings, outcome))
    location.memory_dir.mkdir(parents=True, exist_ok=True)
    if write_topic:
        with file_lock(lock_path(location, environ), lock_timeout):
            _write_topic(location, plan.recurring_failures, outcome)
    if memory_ok:
        _memory_step(
            outcome,
            lambda: _memory_write(plan, location, settings, outcome, lock_timeout, environ),
        )
    return outcome


def _ensure_sections(location: MemoryLocation, settings: Settings, outcome: ApplyOutcome) -> None:
    memory = checked_target(location)
    if _needs_sections(read_text(memory), settings):
        outcome.notes.append(ensure_memory_template(location, settings))


def _memory_step(outcome: ApplyOutcome, step: Callable[[], None]) -> bool:
    """Run a MEMORY.md step; a PokayokayError (but a safety invariant) becomes a logged note."""
    from pokayokay.errors import InvariantViolation, PokayokayError
    from pokayokay.infra import logs

    try:
        step()
    except InvariantViolation:
        raise
    except PokayokayError as exc:
        logs.log_exception("graduation: MEMORY.md not updated", exc)
        outcome.notes.append(
            f"MEMORY.md was not updated ({exc.message}); the rule files are written"
        )
        return False
    return True


def current_plan(
    groups: Sequence[FailureGroup],
    *,
    project_dir: Path,
    location: MemoryLocation,
    threshold: int = DEFAULT_THRESHOLD,
    today: date | None = None,
    project_files: Sequence[str] | None = None,
    team: TeamView | None = None,
    tombstones: Mapping[str, datetime] | None = None,
) -> GraduationPlan:
    """THE graduation plan of a project. Every caller (``graduate``, SessionEnd, ``failures``,
    ``status``) builds it here, so all of them see the same rules and the same retired set: a
    retired rule's signatures are never reported as graduated. ``team`` and ``tombstones``
    (teammates' retirements) come from team memory (:mod:`pokayokay.team.graduate`)."""
    files = list_project_files(project_dir) if project_files is None else project_files
    retired = read_retired(location)
    for key, when in (tombstones or {}).items():
        retired[key] = max(when, retired.get(key, when))
    return plan_graduation(
        groups,
        threshold=threshold,
        project_files=files,
        existing_rules=read_existing_rules(project_dir),
        today=today or date.today(),
        retired=retired,
        team=team,
    )


def graduate(
    groups: Sequence[FailureGroup],
    *,
    project_dir: Path,
    location: MemoryLocation,
    settings: Settings,
    threshold: int = DEFAULT_THRESHOLD,
    today: date | None = None,
    dry_run: bool = False,
    project_files: Sequence[str] | None = None,
    environ: Mapping[str, str] | None = None,
    team: TeamView | None = None,
    tombstones: Mapping[str, datetime] | None = None,
) -> tuple[GraduationPlan, ApplyOutcome]:
    """Plan and apply graduation for ``groups`` (what ``pokayokay graduate`` runs)."""
    plan = current_plan(
        groups,
        project_dir=project_dir,
        location=location,
        threshold=threshold,
        today=today,
        project_files=project_files,
        team=team,
        tombstones=tombstones,
    )
    outcome = apply(
        plan,
        project_dir=project_dir,
        location=location,
        settings=settings,
        dry_run=dry_run,
        environ=environ,
    )
    return plan, outcome


def graduate_project(
    project_dir: Path, location: MemoryLocation, settings: Settings, *, dry_run: bool = False
) -> tuple[GraduationPlan, ApplyOutcome]:
    """Graduation over everything the project's failure store holds (SessionEnd, the CLI); the
    lesson lookup the per-command hooks read is refreshed from the same groups."""
    groups = load_groups(location)
    result = graduate(
        groups,
        project_dir=project_dir,
        location=location,
        settings=settings,
        threshold=settings.graduation_threshold,
        dry_run=dry_run,
    )
    if not dry_run:
        refresh_lessons(project_dir, location, settings, groups)
    return result


def refresh_lessons(
    project_dir: Path, location: MemoryLocation, settings: Settings, groups: list[FailureGroup]
) -> list[str]:
    """Write (or remove, when there is nothing to say) the project's lesson lookup."""
    from pokayokay.failures.store import FailureStore
    from pokayokay.infra.lesson_lookup import write_lookup
    from pokayokay.rules.lessons import command_lessons, lookup_content, lookup_folders

    store = FailureStore.for_project(location.project_key)
    content = None
    if store.path.exists():
        with store:
            failed_in = store.command_sessions()
        lessons = command_lessons(groups, failed_in)
        content = lookup_content(lessons, settings.graduation_threshold)
    folders = lookup_folders(str(location.project_key), [str(project_dir)])
    return write_lookup(folders, content)


def load_groups(location: MemoryLocation) -> list[FailureGroup]:
    """Every failure group of the project's store (none when the store does not exist yet:
    reading never creates it), redacted: a store written before capture redacted secrets must
    not carry one into a rule, ``recurring-failures.md`` or the CLI."""
    from pokayokay.failures.store import FailureStore
    from pokayokay.safety.redact import redact_record

    store = FailureStore.for_project(location.project_key)
    if not store.path.exists():
        return []
    with store:
        return [redact_record(group) for group in store.failure_groups()]
