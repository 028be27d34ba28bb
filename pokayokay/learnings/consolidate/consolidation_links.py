"""What consolidation writes into the memory folder stays reachable: every file it appended to
there (the consolidated-learnings archive, its split parts, ``memory:`` topic files, the dropped
file) gets a line in MEMORY.md's Topic Index, through the locked, invariant-checked curation
write. Recall reads the archive itself (``pokayokay.recall.readers.read_archive``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pokayokay.errors import PokayokayError
from pokayokay.infra.regular import read_regular_text

if TYPE_CHECKING:
    from pokayokay.infra.locate import MemoryLocation
    from pokayokay.learnings.consolidate.consolidation_config import ConsolidationConfig
    from pokayokay.learnings.consolidate.consolidation_report import (
        ConsolidationOutcome,
        FileChange,
    )
    from pokayokay.memory.sections import Settings

# consolidation_targets.memory_plan: (location, settings, section id, bullets, day, sim) → lines
# of MEMORY.md before and after, without writing.
MemoryPlan = Callable[..., tuple[int | None, int]]

WRITTEN_KINDS = ("append", "split-original", "split-part")


def link_line(name: str, config: ConsolidationConfig) -> str:
    """The Topic Index line for a memory-folder file consolidation wrote."""
    stem = config.archive.removesuffix(".md")
    if name == config.archive:
        return (
            f"- [Consolidated learnings]({name}) — full texts of learnings pokayokay "
            "consolidated out of the learnings staging file"
        )
    if name.startswith(f"{stem}-part-"):
        part = name.removeprefix(f"{stem}-part-").removesuffix(".md")
        return f"- [Consolidated learnings, part {part}]({name}) — continued from {config.archive}"
    if name == config.dropped:
        return (
            f"- [Dropped learnings]({name}) — superseded or redundant learnings, kept for the "
            "record (not advice)"
        )
    return f"- [{name.removesuffix('.md')}]({name}) — learnings consolidated here by pokayokay"


def memory_files_written(changes: Sequence[FileChange], memory_dir: Path) -> list[str]:
    """Names of the memory-folder files in ``changes``, in order, once each."""
    out: list[str] = []
    for change in changes:
        path = Path(change.path)
        if change.kind in WRITTEN_KINDS and path.parent == memory_dir and path.name not in out:
            out.append(path.name)
    return out


def missing_links(memory_text: str, names: Sequence[str], config: ConsolidationConfig) -> list[str]:
    """Link lines for the ``names`` MEMORY.md does not link to yet (anywhere in it)."""
    from pokayokay.memory.curation import archive_link_re

    return [link_line(n, config) for n in names if not archive_link_re(n).search(memory_text)]


def link_written_files(
    location: MemoryLocation,
    settings: Settings,
    config: ConsolidationConfig,
    changes: Sequence[FileChange],
    day: date,
) -> tuple[FileChange | None, str | None]:
    """Add the Topic Index lines: the change to MEMORY.md, and an error message when MEMORY.md
    could not take them."""
    from pokayokay.learnings.consolidate.consolidation_report import FileChange
    from pokayokay.memory.apply import SectionEdit, checked_target, run_curation
    from pokayokay.memory.document import count_lines
    from pokayokay.memory.sections import TOPIC_INDEX_ID

    names = memory_files_written(changes, location.memory_dir)
    if not names:
        return None, None
    if settings.section(TOPIC_INDEX_ID) is None:
        return None, "the Topic Index section is turned off: " + ", ".join(names) + " not linked"
    try:
        target = checked_target(location)
        if not target.exists():
            return None, f"no MEMORY.md: {', '.join(names)} not linked from a Topic Index"
        text = read_regular_text(target)
        lines = missing_links(text, names, config)
        if not lines:
            return None, None
        edit = SectionEdit(TOPIC_INDEX_ID, tuple(lines), owns=lambda _entry: False)
        done = run_curation(location, settings, write=True, today=day, edit=edit)
    except (OSError, PokayokayError) as exc:
        message = exc.message if isinstance(exc, PokayokayError) else str(exc)
        return None, f"could not link {', '.join(names)} from the Topic Index: {message}"
    if done.result is None:
        return None, None
    source = done.source_text if done.source_text is not None else done.result.original
    kind = f"memory:{TOPIC_INDEX_ID}"
    after = done.result.after.lines
    return FileChange(location.memory_file, kind, count_lines(source), after), None


def link_written(
    outcome: ConsolidationOutcome,
    location: MemoryLocation,
    settings: Settings,
    day: date,
    sim: dict[str, Any],
    plan_memory: MemoryPlan,
) -> None:
    """Topic Index lines for the memory-folder files consolidation wrote (planned with
    ``plan_memory`` on a dry run); the change and any problem go into ``outcome``."""
    from pokayokay.learnings.consolidate.consolidation_report import FileChange
    from pokayokay.memory.sections import TOPIC_INDEX_ID

    if outcome.dry_run:
        names = memory_files_written(outcome.changes, location.memory_dir)
        if not names or settings.section(TOPIC_INDEX_ID) is None:
            return
        try:
            if "text" not in sim:
                plan_memory(location, settings, TOPIC_INDEX_ID, (), day, sim)
            lines = missing_links(str(sim["text"]), names, outcome.config)
            if lines:
                before, after = plan_memory(location, settings, TOPIC_INDEX_ID, lines, day, sim)
                outcome.changes.append(
                    FileChange(location.memory_file, f"memory:{TOPIC_INDEX_ID}", before, after)
                )
        except (OSError, PokayokayError) as exc:
            message = exc.message if isinstance(exc, PokayokayError) else str(exc)
            outcome.errors.append(f"could not link the written files: {message}")
        return
    change, problem = link_written_files(location, settings, outcome.config, outcome.changes, day)
    if change is not None:
        outcome.changes.append(change)
    if problem:
        outcome.errors.append(problem)
