"""pokayokay.learnings.capture.remember_index: the index that keeps ``remember`` flat as
learnings grow.

It must pick exactly what the full scan of every topic file picked (the same learning to
reinforce, the same contradictions), follow the folder when files are edited, added or
removed behind its back, survive being torn or stale, and cost one read of the folder's
stamps instead of a parse of every file.
"""

from __future__ import annotations

import os
import tempfile
from datetime import datetime, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pokayokay.infra.locate import MemoryLocation, resolve_memory_location
from pokayokay.learnings import model
from pokayokay.learnings.capture import remember_index
from pokayokay.learnings.capture.remember import _draft, remember
from pokayokay.learnings.capture.remember_index import index_path, load_learning_index
from pokayokay.learnings.capture.remember_store import Draft, _contradiction_notes, matching
from pokayokay.learnings.topics import topic_file
from pokayokay.learnings.topics.stored import load_learnings
from pokayokay.learnings.wording import contradiction, near_duplicate
from pokayokay.memory.sections import Settings

NOW = datetime(2026, 11, 22, 10, 0, 0, tzinfo=timezone.utc)

# Realistic learnings with their near neighbours: rewordings, opposite advice, swapped choices,
# other numbers and other names, so that every branch of the matching is exercised.
POOL = (
    "Run the unit tests before committing to the main branch.",
    "Before committing to main, run the unit tests.",
    "Never run the unit tests against the production database.",
    "Run the linter before committing.",
    "Use httpx for HTTP calls in the API client, never requests.",
    "Use requests for HTTP calls in the API client, never httpx.",
    "Prefer pnpm over npm in this repository; npm rewrites the lock file.",
    "Prefer npm over pnpm in this repository.",
    "Retry the flaky payment webhook test 3 times before reporting it.",
    "Retry the flaky payment webhook test 5 times before reporting it.",
    "Do not mock the database in integration tests; use the docker compose fixture.",
    "Mock the database in integration tests to keep them fast.",
    "Restart the celery billing worker after changing settings.py.",
    "After changing settings.py, restart the celery billing worker.",
    "Run make migrate-all ENV=staging instead of alembic upgrade head.",
    "Run alembic upgrade head directly on staging.",
    "Always pass --frozen-lockfile to pnpm install in CI.",
    "Never pass --frozen-lockfile to pnpm install locally.",
    "Export AWS_REGION=eu-west-1 before running terraform plan.",
    "Export AWS_REGION=us-east-1 before running terraform plan.",
    "Keep the migration separate from the backfill in the invoice export.",
    "The invoice export keeps the migration separate from the backfill.",
)


def write(memory: Path, texts: list[str]) -> None:
    """Topic files as ``remember`` writes them (no matching: duplicates are kept as given)."""
    memory.mkdir(parents=True, exist_ok=True)
    taken: set[str] = set()
    for text in texts:
        name = model.unique_name(model.make_name(text), taken)
        taken.add(name)
        learning = model.Learning(
            name=name,
            description=text[:150],
            text=text,
            hash=model.identity(text),
            created="2026-01-01T00:00:00Z",
            last_seen="2026-01-01T00:00:00Z",
        )
        (memory / model.file_name_for(name)).write_text(topic_file.render(learning), "utf-8")


def full_scan_match(draft: Draft, memory: Path) -> tuple[str, float | None] | None:
    """What ``remember`` did before the index: every file parsed and compared."""
    existing, _ = load_learnings(memory)
    for stored in existing:
        if stored.learning.hash == draft.hash:
            return stored.file_name, None
    return near_duplicate(draft.text, ((s.file_name, s.learning.text) for s in existing))


def full_scan_contradictions(text: str, memory: Path) -> list[str]:
    existing, _ = load_learnings(memory)
    return [s.file_name for s in existing if contradiction(text, s.learning.text)]


def draft_of(text: str) -> Draft:
    draft = _draft(text, None)
    assert isinstance(draft, Draft)
    return draft


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    stored=st.lists(st.sampled_from(POOL), max_size=14),
    probe=st.sampled_from(POOL),
)
@example(stored=[POOL[3], POOL[1]], probe=POOL[0])  # a rewording among others
@example(stored=[POOL[12], POOL[21]], probe=POOL[13])
@example(stored=[POOL[4], POOL[6]], probe=POOL[5])  # swapped choices: a contradiction
@example(stored=[POOL[0], POOL[16]], probe=POOL[2])  # opposite advice on the same topic
def test_the_index_picks_what_the_full_scan_picked(stored: list[str], probe: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        memory = Path(tmp) / "memory"
        write(memory, stored)
        env = {"POKAYOKAY_HOME": str(Path(tmp) / "state")}
        draft = draft_of(probe)
        for _round in range(2):  # built from the files, then read back from the index file
            index = load_learning_index(memory, env)
            found = matching(draft, index)
            expected = full_scan_match(draft, memory)
            got = None if found is None else (found[0].file_name, found[1])
            assert got == expected
            notes = _contradiction_notes(draft.text, index)
            named = [note.split()[1] for note in notes]
            assert named == full_scan_contradictions(draft.text, memory)
            index.save()


@pytest.fixture
def location(tmp_path: Path) -> MemoryLocation:
    project = tmp_path / "project"
    project.mkdir()
    return resolve_memory_location(project, memory_dir=tmp_path / "memory")


def store(location: MemoryLocation, text: str) -> str:
    result = remember(
        text,
        project_dir=location.project_dir,
        location=location,
        settings=Settings(),
        now=NOW,
    )
    assert result.path is not None
    return f"{result.status} {result.path.name}"


def test_a_second_remember_parses_no_stored_learning(
    location: MemoryLocation, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(location.memory_dir, list(POOL[1::2]))
    assert store(location, "Pin the grafana plugin versions in the dashboards image.").startswith(
        "stored"
    )
    read: list[str] = []
    real = remember_index._read_entry

    def counting(path: Path, stamp: tuple[int, int, int]) -> object:
        read.append(path.name)
        return real(path, stamp)

    monkeypatch.setattr(remember_index, "_read_entry", counting)
    assert store(location, "Warm the edge cache with the seed script after a purge.").startswith(
        "stored"
    )
    assert read == []
    # a repeat is read from its own file, and only that one
    assert store(location, "Run the linter before committing.") == (
        "reinforced learning-run-linter-before-committing.md"
    )
    assert read == []


def test_a_file_edited_behind_the_index_is_read_again(location: MemoryLocation) -> None:
    write(location.memory_dir, list(POOL[:4]))
    store(location, "Warm the edge cache with the seed script after a purge.")  # index built
    path = location.memory_dir / "learning-run-linter-before-committing.md"
    text = path.read_text("utf-8")
    edited = text.replace(
        "Run the linter before committing.", "Run the type checker before every release."
    )
    with path.open("r+", encoding="utf-8") as handle:  # in place: same inode, new size
        handle.write(edited)
        handle.truncate()
    # the edited words are what a rewording is matched against now
    assert store(location, "Before every release, run the type checker.") == (
        f"reinforced {path.name}"
    )
    linted = "Before committing, run the linter."
    assert store(location, linted) == "stored learning-before-committing-run-linter.md"


def test_a_removed_file_is_never_reinforced(location: MemoryLocation) -> None:
    write(location.memory_dir, list(POOL[:4]))
    store(location, "Warm the edge cache with the seed script after a purge.")
    gone = location.memory_dir / "learning-run-linter-before-committing.md"
    gone.unlink()
    assert store(location, "Run the linter before committing.") == f"stored {gone.name}"
    assert gone.exists()


def test_a_torn_or_foreign_index_is_rebuilt(location: MemoryLocation) -> None:
    write(location.memory_dir, list(POOL[2:8]))
    store(location, "Warm the edge cache with the seed script after a purge.")
    path = index_path(location.memory_dir)
    for damage in (b"{not json", b'{"version": 99}\n', b"", path.read_bytes()[:-40]):
        path.write_bytes(damage)
        assert store(location, "Before committing, run the linter.") == (
            "reinforced learning-run-linter-before-committing.md"
        )
    index = load_learning_index(location.memory_dir)
    assert sorted(index.entries) == sorted(
        s.file_name for s in load_learnings(location.memory_dir)[0]
    )


def test_the_journal_is_folded_into_the_snapshot(
    location: MemoryLocation, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(remember_index, "JOURNAL_MAX", 3)
    store(location, "Warm the edge cache with the seed script after a purge.")
    path = index_path(location.memory_dir)
    lines = []
    for i in range(6):
        store(location, f"Rotate the staging database password {i} times a year.")
        lines.append(len(path.read_bytes().splitlines()))
    assert max(lines) <= 4 and min(lines) == 1  # a snapshot, then at most 3 journal lines
    index = load_learning_index(location.memory_dir)
    assert not index.changed
    assert len(index.entries) == 7


def test_the_index_is_private_and_in_the_state_folder(location: MemoryLocation) -> None:
    store(location, "Warm the edge cache with the seed script after a purge.")
    path = index_path(location.memory_dir)
    assert path.is_relative_to(Path(os.environ["POKAYOKAY_HOME"]))
    assert path.stat().st_mode & 0o077 == 0
