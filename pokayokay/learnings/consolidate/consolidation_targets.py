"""Consolidation's targets: where each route writes, what it says now, and one appended to.

A route (:mod:`pokayokay.learnings.consolidate.routing`) names a MEMORY.md section, a
memory-folder file (the archive, the dropped file, a topic file) or a project file (rules,
docs). Here such a target is resolved to its path (inside the project, never through a
symlink), its text read for the checks (:func:`target_texts`), a file appended to and split
when it reaches the limit with compare-and-swap retries (:func:`write_file`), and a MEMORY.md
section's change planned without writing (:func:`memory_plan`, the dry run).
:mod:`pokayokay.learnings.consolidate.consolidate_apply` runs the steps in their order.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from pokayokay.errors import PokayokayError
from pokayokay.learnings.consolidate.consolidation_report import FileChange, SplitInfo

# Nothing heavy at import time, as in consolidate_apply: each function imports what it uses.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from datetime import date
    from typing import Any

    from pokayokay.infra.locate import MemoryLocation
    from pokayokay.learnings.consolidate.consolidation_config import ConsolidationConfig
    from pokayokay.learnings.consolidate.routing import Route
    from pokayokay.learnings.consolidate.splitting import SplitResult
    from pokayokay.memory.sections import Settings

ARCHIVE_HEADER = (
    "# Consolidated learnings\n\n"
    "Learnings pokayokay moved out of the learnings staging file once they had proven "
    "themselves (at least {freshness} active days old). Oldest first; each ends with a note "
    "saying when and from where it came.\n"
)
DROPPED_HEADER = (
    "# Dropped learnings\n\n"
    "Entries pokayokay took out of the learnings staging file because a newer entry superseded "
    "them or their target already said the same. Kept here so nothing is lost: do not rely on "
    "them, delete what you do not need.\n"
)

def inside(path: Path, folder: Path) -> bool:
    real = Path(os.path.realpath(path))
    base = Path(os.path.realpath(folder))
    return real == base or base in real.parents


def read_text(path: Path) -> tuple[str, bytes | None]:
    from pokayokay.infra.safe_write import decode_text, read_bytes

    if path.is_dir():
        raise PokayokayError(f"{path} is a folder, not a file")
    try:
        data = read_bytes(path)
    except OSError as exc:
        raise PokayokayError(f"cannot read {path} ({exc.strerror or exc})") from None
    if data is None:
        return "", None
    return decode_text(data, path), data


@dataclass(frozen=True)
class FileTarget:
    key: tuple[str, str]
    path: Path
    header: str
    rules: bool  # a rule file: parts repeat its frontmatter


def file_target(
    key: tuple[str, str], project_dir: Path, location: MemoryLocation, config: ConsolidationConfig
) -> FileTarget:
    from pokayokay.memory.apply import checked_target

    kind, name = key
    if kind == "memory":
        path = checked_target(location, name)
        header = ""
        if name == config.archive:
            header = ARCHIVE_HEADER.format(freshness=config.freshness)
        elif name == config.dropped:
            header = DROPPED_HEADER
        return FileTarget(key, path, header, False)
    path = project_dir / name
    if not inside(path.parent if not path.exists() else path, project_dir):
        raise PokayokayError(f"{name} leads outside the project {project_dir}")
    if path.is_symlink():
        raise PokayokayError(f"{name} is a symlink; pokayokay does not write through it")
    rules = "/rules/" in f"/{name}" and name.startswith(".claude/")
    return FileTarget(key, path, "", rules)


def planned_file(
    target: FileTarget, blocks: Sequence[str], config: ConsolidationConfig, text: str
) -> tuple[str, SplitResult | None]:
    from pokayokay.learnings.consolidate.routing import append_blocks
    from pokayokay.learnings.consolidate.splitting import part_numbers, split_file

    new = append_blocks(text, blocks, target.header)
    siblings = [p.name for p in target.path.parent.iterdir()] if target.path.parent.is_dir() else []
    split = split_file(
        new,
        target.path.name,
        existing_parts=part_numbers(target.path.name, siblings),
        config=config,
        copy_frontmatter=target.rules,
    )
    return new, split


def write_file(
    target: FileTarget, blocks: Sequence[str], config: ConsolidationConfig
) -> tuple[list[FileChange], SplitInfo | None]:
    """Append ``blocks`` to the target (splitting it when it reaches the limit), with retries
    when someone else writes it meanwhile."""
    from pokayokay.infra.safe_write import Conflict, encode_text, replace_if_unchanged, with_retries
    from pokayokay.memory.document import count_lines

    def step(_attempt: int) -> tuple[list[FileChange], SplitInfo | None]:
        text, data = read_text(target.path)
        new, split = planned_file(target, blocks, config, text)
        if new == text and split is None:
            return [], None
        target.path.parent.mkdir(parents=True, exist_ok=True)
        created: list[Path] = []
        changes: list[FileChange] = []
        before = count_lines(text) if data is not None else None
        try:
            if split is not None:
                for name, part in split.parts:
                    part_path = target.path.parent / name
                    replace_if_unchanged(part_path, None, encode_text(part))
                    created.append(part_path)
                    changes.append(FileChange(part_path, "split-part", None, count_lines(part)))
                original = encode_text(split.original)
                replace_if_unchanged(target.path, data, original, keep_appends=True)
                changes.insert(
                    0,
                    FileChange(target.path, "split-original", before, count_lines(split.original)),
                )
                info = SplitInfo(
                    target.path,
                    count_lines(new),
                    (
                        (target.path.name, count_lines(split.original)),
                        *((name, count_lines(part)) for name, part in split.parts),
                    ),
                )
                return changes, info
            replace_if_unchanged(target.path, data, encode_text(new), keep_appends=True)
            return [FileChange(target.path, "append", before, count_lines(new))], None
        except Conflict:
            for path in created:  # ours, just created: the retry makes them again
                path.unlink(missing_ok=True)
            raise

    return with_retries(step, what=str(target.path))


def memory_plan(
    location: MemoryLocation,
    settings: Settings,
    section_id: str,
    bullets: Sequence[str],
    day: date,
    sim: dict[str, Any],
) -> tuple[int | None, int]:
    """Lines of MEMORY.md before and after adding ``bullets`` to a section and curating, without
    writing anything (the dry-run path; it runs the same invariant checks). ``sim`` carries the
    simulated MEMORY.md and archives from one section to the next."""
    from pokayokay.infra.safe_write import decode_text
    from pokayokay.memory import invariants
    from pokayokay.memory.apply import SectionEdit, checked_target, read_archives
    from pokayokay.memory.curation import curate
    from pokayokay.memory.document import count_lines

    if "text" not in sim:
        target = checked_target(location)
        text, data = read_text(target)
        if data is None:
            raise PokayokayError(f"{target} does not exist (run `pokayokay init`)")
        archives = read_archives(location, settings)
        sim["text"] = text
        sim["archives"] = {name: decode_text(raw, path) for name, (path, raw) in archives.items()}
    text, archive_text = str(sim["text"]), dict(sim["archives"])
    fixed = curate(text, settings, archive_text, day, evict=False, keep_empty=True)
    invariants.check(fixed, settings, archive_text, day)
    edit = SectionEdit(section_id, tuple(bullets), owns=owns_nothing)
    base = edit.apply(fixed.text, settings)
    invariants.check_edit(fixed.text, base, settings, section_id)
    added = [s.id for s in settings.sections if s.title in fixed.added_sections]
    result = curate(base, settings, archive_text, day, droppable=added)
    invariants.check(result, settings, archive_text, day)
    sim["text"], sim["archives"] = result.text, {**archive_text, **result.archives}
    return count_lines(text), count_lines(result.text)


def owns_nothing(_text: str) -> bool:
    return False  # consolidation only adds bullets; it never removes one


def target_texts(
    routes: Mapping[int, Route | str],
    project_dir: Path,
    location: MemoryLocation,
    settings: Settings,
    config: ConsolidationConfig,
    context: Sequence[Route] = (),
) -> tuple[dict[tuple[str, str], str], dict[int, Route | str]]:
    """The text each route's entries are checked against, and the text of each ``context``
    target (read when it can be: contradictions are looked for there too); routes whose target
    cannot be read become problems."""
    from pokayokay.learnings.consolidate.routing import Route
    from pokayokay.memory.apply import checked_target
    from pokayokay.memory.document import parse

    texts: dict[tuple[str, str], str] = {}
    fixed: dict[int, Route | str] = dict(routes)
    memory_text: str | None = None
    memory_error: str | None = None
    wanted: list[tuple[int | None, Route | str]] = [*routes.items()]
    wanted += [(None, found) for found in context]
    for index, found in wanted:
        if isinstance(found, str):
            continue
        # a context target that cannot be read is no entry's problem
        sink: dict[int, Route | str] = fixed if index is not None else {}
        at = -1 if index is None else index
        key = found.key
        if key in texts:
            continue
        try:
            if found.kind == "section":
                if memory_text is None and memory_error is None:
                    target = checked_target(location)
                    text, data = read_text(target)
                    if data is None:
                        memory_error = f"{target} does not exist yet (run `pokayokay init`)"
                    else:
                        memory_text = text
                if memory_error is not None:
                    sink[at] = memory_error
                    continue
                assert memory_text is not None
                doc = parse(memory_text, settings.sections)
                section = doc.section(found.section_id or "")
                spec = settings.section(found.section_id or "")
                if section is None and (spec is None or found.section_id in doc.unmarked):
                    sink[at] = (
                        f"MEMORY.md has no managed section '{found.section_id}' to write into"
                    )
                    continue
                # a managed section not written yet (it has had no entry) is empty
                parts = ["".join(section.body_lines) if section is not None else ""]
                names = [config.archive] + ([spec.archive] if spec is not None else [])
                for name in names:
                    parts.append(read_text(checked_target(location, name))[0])
                texts[key] = "\n".join(parts)
            else:
                texts[key] = read_text(file_target(key, project_dir, location, config).path)[0]
        except PokayokayError as exc:
            sink[at] = f"cannot use {found.label}: {exc.message}"
    # every index whose key failed later still needs its problem
    for index, found in fixed.items():
        if isinstance(found, Route) and found.key not in texts:
            fixed[index] = f"cannot use {found.label}"
    return texts, fixed
