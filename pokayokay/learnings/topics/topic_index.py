"""The Topic Index section of MEMORY.md: one line per learning topic file, linked, within 150
characters, written through the locked, checked curation write."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pokayokay.errors import PokayokayError
from pokayokay.infra.regular import read_regular_text
from pokayokay.learnings.topics.stored import StoredLearning

if TYPE_CHECKING:
    from pokayokay.infra.locate import MemoryLocation
    from pokayokay.memory.sections import Settings


def _linked_files(text: str) -> set[str]:
    import re

    return set(re.findall(r"\]\((learning-[a-z0-9-]+\.md)\)", text))


# One learning as the Topic Index sees it: (file name, created stamp, its index line).
IndexRow = tuple[str, str, str]


def index_rows(learnings: Sequence[StoredLearning]) -> list[IndexRow]:
    """The :data:`IndexRow` of each stored learning."""
    from pokayokay.learnings.model import index_line

    return [
        (s.file_name, s.learning.created, index_line(s.learning, s.file_name)) for s in learnings
    ]


def index_entries(
    learnings: Sequence[IndexRow], memory_text: str, archive_text: str, keep: str | None
) -> tuple[str, ...]:
    """The Topic Index lines for ``learnings``, oldest first (curation archives a section's
    entries from the top, so the oldest go first): every learning whose line is in MEMORY.md
    now or has never been archived, and ``keep`` (the file just stored or reinforced)."""
    from pokayokay.learnings.model import is_index_line

    present = {
        target
        for line in memory_text.splitlines()
        if is_index_line(line)
        for target in _linked_files(line)
    }
    archived = _linked_files(archive_text)
    chosen = [
        row for row in learnings if row[0] in present or row[0] not in archived or row[0] == keep
    ]
    chosen.sort(key=lambda row: (row[1], row[0]))
    return tuple(row[2] for row in chosen)


def update_topic_index(
    location: MemoryLocation,
    settings: Settings,
    learnings: Sequence[IndexRow],
    touched: Path | None,
    environ: Mapping[str, str] | None,
) -> tuple[str, ...]:
    """Write the Topic Index lines of ``learnings`` into MEMORY.md through curation; the paths
    written, as strings."""
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
        return read_regular_text(path)
    except OSError:
        return ""
