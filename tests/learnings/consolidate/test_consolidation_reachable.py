"""Everything consolidation moves stays reachable (issue 12): the consolidated-learnings archive
(and the dropped file) are linked from MEMORY.md's Topic Index, and recall finds the archived
learnings."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from helpers.gitrepo import git

from pokayokay.infra.locate import MemoryLocation, resolve_memory_location
from pokayokay.learnings.consolidate.consolidate_apply import consolidate
from pokayokay.memory.apply import ensure_memory_template
from pokayokay.memory.document import parse
from pokayokay.memory.sections import DEFAULT_SECTIONS, TOPIC_INDEX_ID, Settings
from pokayokay.recall.sources import load
from pokayokay.relevance import note_index as recall

TODAY = date(2026, 1, 20)
# Four entries, all old enough: none is kept back as one of the most recent (retention is
# tested in test_consolidate_run.py), so the batch reaches the minimum.
ALL_OLD_ENOUGH = Settings(consolidation_keep_recent=0)
ENTRIES = [
    (
        "Flaky upload test",
        "test_upload fails when TMPDIR is on tmpfs; point TMPDIR at a disk path.",
    ),
    (
        "Invoice PDF fonts",
        "The invoice PDF renderer needs the DejaVu fonts package in the runtime image, or "
        "every accented customer name prints as boxes.",
    ),
    ("Formatter", "Use black for formatting Python code."),
    ("Formatter change", "Use ruff format instead of black for formatting Python code."),
]


@pytest.fixture
def location(tmp_path: Path) -> MemoryLocation:
    root = tmp_path / "project"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    staging = root / ".claude" / "learnings.md"
    staging.parent.mkdir()
    text = "# Learnings\n\nStaging area: new learnings go at the bottom.\n\n"
    text += "".join(f"## {title}\n{body}\n\n" for title, body in ENTRIES)
    staging.write_text(text, "utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "learnings", day="2026-01-01")
    for day in range(2, 21):
        git(root, "commit", "-q", "--allow-empty", "-m", "work", day=f"2026-01-{day:02d}")
    memory = tmp_path / "memory"
    memory.mkdir()
    found = resolve_memory_location(root, memory_dir=memory)
    ensure_memory_template(found, Settings())
    return found


def topic_index(location: MemoryLocation) -> list[str]:
    text = (location.memory_dir / "MEMORY.md").read_text("utf-8")
    section = parse(text, DEFAULT_SECTIONS).section(TOPIC_INDEX_ID)
    assert section is not None
    return [e.text.strip() for e in section.entries]


def test_the_archive_is_linked_from_the_topic_index_and_recalled(
    location: MemoryLocation, tmp_path: Path
) -> None:
    outcome = consolidate(location.project_dir, location, ALL_OLD_ENOUGH, today=TODAY)
    assert not outcome.errors, outcome.errors
    memory = location.memory_dir
    archive = (memory / "learnings-archive.md").read_text("utf-8")
    assert "## Invoice PDF fonts\n" in archive
    lines = topic_index(location)
    assert any("](learnings-archive.md)" in line for line in lines), lines
    assert any("](learnings-dropped.md)" in line for line in lines), lines
    assert any(c.kind == "memory:topic_index" for c in outcome.changes)

    index = load(memory, location.project_dir, tmp_path / "state").index
    assert index is not None
    archived = [d for d in index.docs if d.id.startswith("archive:")]
    assert any("DejaVu fonts" in d.text and d.label == "consolidated" for d in archived)
    assert not any("pokayokay on 2026" in d.text for d in archived)  # the move note is not shown
    hits = recall.recall(index, "customer names with accents show as squares in the invoice PDF")
    assert hits.hits and "DejaVu" in hits.hits[0].doc.text

    # a second consolidation adds no second link
    again = consolidate(location.project_dir, location, ALL_OLD_ENOUGH, today=TODAY)
    assert not again.errors
    assert topic_index(location) == lines


def test_a_dry_run_plans_the_links_and_writes_nothing(location: MemoryLocation) -> None:
    before = (location.memory_dir / "MEMORY.md").read_bytes()
    planned = consolidate(location.project_dir, location, ALL_OLD_ENOUGH, today=TODAY, dry_run=True)
    assert any(c.kind == "memory:topic_index" for c in planned.changes)
    assert (location.memory_dir / "MEMORY.md").read_bytes() == before
    done = consolidate(location.project_dir, location, ALL_OLD_ENOUGH, today=TODAY)
    assert [(c.kind, c.lines_after) for c in done.changes if c.kind.startswith("memory:")] == [
        (c.kind, c.lines_after) for c in planned.changes if c.kind.startswith("memory:")
    ]
