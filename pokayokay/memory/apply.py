"""Curation at the edge: read MEMORY.md and its archives, curate, check, back up, write.

Everything here is I/O around the pure ``curation.curate``. Writes happen under a lock shared by
all pokayokay processes, only if the safety invariants hold, archives first (so an entry is in
its archive before it leaves MEMORY.md), and MEMORY.md last with a compare-and-swap: if Claude
wrote the file meanwhile, curation starts again from Claude's version.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Protocol

from pokayokay.errors import InvariantViolation, PokayokayError
from pokayokay.infra import logs
from pokayokay.infra.locate import MemoryLocation, slugify
from pokayokay.infra.safe_write import (
    Conflict,
    decode_text,
    encode_text,
    file_lock,
    read_bytes,
    replace_if_unchanged,
    settled,
    with_retries,
)
from pokayokay.infra.state import (
    BACKUPS_KEPT,
    PRIVATE_FILE,
    private_folder,
    project_state_dir,
    state_home,
    tighten,
)
from pokayokay.memory import invariants
from pokayokay.memory.curation import CurationResult, curate
from pokayokay.memory.sections import END_MARKER, Settings


@dataclass
class CurationOutcome:
    location: MemoryLocation
    result: CurationResult | None
    written: bool
    attempts: int
    backup: Path | None = None
    # MEMORY.md as it was read, when an edit (``prepare``) ran before curation.
    source_text: str | None = None

    @property
    def changed(self) -> bool:
        if self.result is None:
            return False
        # against the file as read: sections added for an edit and taken out again are no change
        before = self.source_text if self.source_text is not None else self.result.original
        return before != self.result.text or bool(self.result.archives)


def lock_path(location: MemoryLocation, environ: Mapping[str, str] | None = None) -> Path:
    env = dict(os.environ if environ is None else environ)
    return state_home(env) / "locks" / f"{slugify(str(location.memory_dir))}.lock"


def checked_target(location: MemoryLocation, name: str = "MEMORY.md") -> Path:
    """The file to read and write; refuses symlinks that lead outside the memory folder."""
    path = location.memory_dir / name
    if path.is_symlink():
        real = Path(os.path.realpath(path))
        folder = Path(os.path.realpath(location.memory_dir))
        if folder != real.parent and folder not in real.parents:
            raise PokayokayError(
                f"{path} is a symlink to {real}, outside the memory folder {folder}; "
                "pokayokay does not write through it (replace the link with the file to curate it)"
            )
        path = real
    if path.exists() and not path.is_file():
        raise PokayokayError(f"{path} is not a regular file")
    return path


def read_archives(location: MemoryLocation, settings: Settings) -> dict[str, tuple[Path, bytes]]:
    out: dict[str, tuple[Path, bytes]] = {}
    for spec in settings.sections:
        path = location.memory_dir / spec.archive
        if path.exists() or path.is_symlink():
            target = checked_target(location, spec.archive)
            data = read_bytes(target)
            if data is not None:
                out[spec.archive] = (target, data)
    return out


def backup(location: MemoryLocation, data: bytes, environ: Mapping[str, str] | None) -> Path:
    env = dict(os.environ if environ is None else environ)
    folder = project_state_dir(str(location.project_key), env) / "backups"
    private_folder(folder, env)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    path = folder / f"MEMORY.md.{stamp}.bak"
    # 0600 from the first byte: a backup holds the user's memory, private like MEMORY.md.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    tighten(path, PRIVATE_FILE)  # it existed (same microsecond) with looser bits
    old = sorted(p for p in folder.iterdir() if p.name.startswith("MEMORY.md."))
    for stale in old[:-BACKUPS_KEPT]:
        stale.unlink(missing_ok=True)
    return path


def run_curation(
    location: MemoryLocation,
    settings: Settings,
    *,
    write: bool,
    today: date | None = None,
    lock_timeout: float = 10.0,
    evict: bool = True,
    environ: Mapping[str, str] | None = None,
    edit: MemoryEdit | None = None,
) -> CurationOutcome:
    """Curate the MEMORY.md of ``location``; with ``write=False`` only report what would change.

    ``edit`` lets a pokayokay feature set its own entries (graduated rules in Active Patterns,
    learnings in the Topic Index) inside the same locked, invariant-checked, compare-and-swap
    write; the edit's own ``check`` proves it touched nothing else.
    """
    day = today or date.today()
    target = checked_target(location)

    def step(attempt: int) -> CurationOutcome:
        data = read_bytes(target)
        if data is None:
            return CurationOutcome(location, None, written=False, attempts=attempt)
        text = decode_text(data, target)
        archives = read_archives(location, settings)
        archive_text = {name: decode_text(raw, path) for name, (path, raw) in archives.items()}
        base = text
        added: list[str] = []  # sections the structure pass added for the edit
        if edit is not None:
            fixed = curate(text, settings, archive_text, day, evict=False, keep_empty=True)
            invariants.check(fixed, settings, archive_text, day)
            added = [s.id for s in settings.sections if s.title in fixed.added_sections]
            base = edit.apply(fixed.text, settings)
            edit.check(fixed.text, base, settings)
        result = curate(base, settings, archive_text, day, evict=evict, droppable=added)
        try:
            invariants.check(result, settings, archive_text, day)
        except InvariantViolation as exc:
            logs.log(f"curation of {target} refused, nothing written: {exc.message}")
            raise
        source = text if edit is not None else None
        if not write or (result.text == text and not result.archives):
            return CurationOutcome(
                location, result, written=False, attempts=attempt, source_text=source
            )
        # A writer that truncated MEMORY.md and has not finished holds it open: what was read
        # may be partial. Nothing is written this round (Busy: retried a little later).
        settled(target)
        saved = backup(location, data, environ) if result.text != text else None
        # A Conflict (someone wrote meanwhile) retries on their version; archives
        # de-duplicate what an earlier attempt of this batch already moved.
        for name, content in result.archives.items():
            path, old = archives.get(name, (location.memory_dir / name, None))
            replace_if_unchanged(path, old, encode_text(content), keep_appends=True)
        if result.text != text:
            replaced = replace_if_unchanged(
                target, data, encode_text(result.text), keep_appends=True
            )
            if saved is not None and replaced is not None and replaced != data:
                # Lines appended in the instant of the swap were kept: the backup holds the
                # bytes actually swapped out.
                saved.write_bytes(replaced)
        return CurationOutcome(
            location, result, written=True, attempts=attempt, backup=saved, source_text=source
        )

    with file_lock(lock_path(location, environ), lock_timeout):
        outcome = with_retries(step, what=str(target))
    if outcome.written:
        from pokayokay.infra.state import mark_memory_changed

        mark_memory_changed(str(location.project_key), None if environ is None else dict(environ))
    return outcome


class MemoryEdit(Protocol):
    """A pure change of MEMORY.md a feature makes, and the check that it changed nothing else."""

    def apply(self, text: str, settings: Settings) -> str: ...

    def check(self, before: str, after: str, settings: Settings) -> None: ...


@dataclass(frozen=True)
class SectionEdit:
    """Make the entries a feature owns in one section exactly ``entries``.

    Entries for which ``owns`` is true and that are not wanted any more leave the section (they
    are pokayokay's own, regenerated text); wanted entries already there stay where they are;
    new ones are appended. Everything else in the file is left alone.
    """

    section_id: str
    entries: tuple[str, ...]
    owns: Callable[[str], bool]

    def apply(self, text: str, settings: Settings) -> str:
        from pokayokay.memory.document import Entry, parse

        doc = parse(text, settings.sections)
        section = doc.section(self.section_id)
        if section is None:
            from pokayokay.memory.measures import file_stat

            why = "is it disabled in the settings?"
            if file_stat(doc, text, settings).notes_over:
                why = "Claude's own notes fill all Claude Code loads: it would never be read"
            raise PokayokayError(
                f"MEMORY.md has no managed '{self.section_id}' section to write into ({why})"
            )
        newline = doc.newline
        wanted = {entry.strip() for entry in self.entries}
        units = [
            unit
            for unit in section.units
            if not (
                isinstance(unit, Entry) and self.owns(unit.text) and unit.text.strip() not in wanted
            )
        ]
        present = {unit.text.strip() for unit in units if isinstance(unit, Entry)}
        body = [line for unit in units for line in unit.lines]
        if body and not body[-1].endswith("\n"):
            units[-1].lines[-1] += newline
        for entry in self.entries:
            if entry.strip() not in present:
                units.append(Entry([line + newline for line in entry.strip().split("\n")]))
                present.add(entry.strip())
        section.units = units
        return doc.render()

    def check(self, before: str, after: str, settings: Settings) -> None:
        invariants.check_edit(before, after, settings, self.section_id)


def template_text(settings: Settings) -> str:
    """The text of a new MEMORY.md: the template with the managed sections, or, without
    ``empty_sections`` (a section is then written with its first entry), the title alone."""
    from pokayokay.infra.templating import render

    sections = settings.sections if settings.empty_sections else ()
    return render("MEMORY.md.j2", sections=sections, end_marker=END_MARKER)


def ensure_memory_template(location: MemoryLocation, settings: Settings) -> str:
    """Create MEMORY.md from the template, or add the missing sections to an existing one."""
    target = checked_target(location)
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            replace_if_unchanged(target, None, encode_text(template_text(settings)))
        except Conflict:
            pass  # Claude created it this very moment: fall through and add sections to it
        else:
            if not settings.empty_sections or not settings.sections:
                return (
                    f"created {target}; pokayokay's managed sections appear in it with their "
                    "first entries"
                )
            return f"created {target} with {len(settings.sections)} managed sections"
    if not settings.empty_sections:
        return (
            f"{target} exists; pokayokay's managed sections appear in it with their first "
            "entries (existing text untouched)"
        )
    outcome = run_curation(location, settings, write=True, evict=False)
    result = outcome.result
    if result is None or not result.changed:
        return f"{target} already has every managed section"
    parts = []
    if result.added_sections:
        parts.append("added " + ", ".join(result.added_sections))
    if result.merged_duplicates:
        parts.append("merged duplicate " + ", ".join(result.merged_duplicates))
    if result.closed_sections:
        parts.append("closed " + ", ".join(result.closed_sections) + " with an end marker")
    return f"{target}: " + "; ".join(parts) + " (existing text untouched)"
