"""The prompt's quick freshness rule for recall (pokayokay.recall.sources, module docstring).

A prompt does not stat every learning: it checks the memory folder's mtime, the single files,
the ``memory.changed`` marker and the fix digest, then stats only the learnings it is about to
inject. So: a learning added, removed or replaced (an editor's write-and-rename) by hand, or
written by pokayokay, is seen by the next prompt; a learning edited in place is re-read before it
is injected, and when it is not a hit it is seen after the session's SessionEnd (the full check,
docs/decisions/0105).
Nothing stale is ever injected.
"""

from __future__ import annotations

import dataclasses
import os
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pokayokay.infra.locate import MemoryLocation, resolve_memory_location
from pokayokay.infra.state import mark_memory_changed, project_state_dir
from pokayokay.learnings import model as learnings
from pokayokay.learnings.topics import topic_file
from pokayokay.recall import sources
from pokayokay.safety.sanitize import excerpt

NOTES = {
    "migrations": (
        "Run migrations with `make migrate` before the integration tests; the test database is "
        "not migrated automatically and the errors look like missing columns."
    ),
    "stripe": (
        "Stripe webhooks are verified with the signing secret from the dashboard, not the API "
        "key; a 400 from the webhook endpoint usually means the secret was rotated."
    ),
    "flaky": (
        "The checkout end-to-end test is flaky under parallel runs because it shares the Redis "
        "database with the cart tests; run it with `-p no:xdist` when it fails once."
    ),
}
MIGRATIONS_PROMPT = "the integration tests fail with missing columns, do I need to migrate first?"
CELERY = (
    "Celery workers must be restarted after changing a task signature; the old workers keep "
    "consuming messages with the previous arguments and fail with TypeError."
)
CELERY_PROMPT = "why do the celery workers fail with TypeError after I changed the task signature?"
OLD = time.time() - 600  # a memory folder last changed ten minutes ago


def write_learning(memory: Path, text: str, *, name: str | None = None) -> Path:
    made = name or learnings.make_name(text)
    learning = learnings.Learning(
        name=made, description=excerpt(text, learnings.DESCRIPTION_MAX), text=text,
        category="patterns", hash=learnings.identity(text),
    )  # fmt: skip
    path = memory / learnings.file_name_for(made)
    path.write_text(topic_file.render(learning), "utf-8")
    return path


def rewrite_in_place(path: Path, text: str) -> None:
    """Edit a learning the way an editor that writes into the file does (no rename), leaving
    the folder's mtime as it was."""
    folder = path.parent.stat()
    learning = topic_file.parse(path.read_text("utf-8"))
    changed = dataclasses.replace(learning, text=text, hash=learnings.identity(text),
                                  description=excerpt(text, learnings.DESCRIPTION_MAX))  # fmt: skip
    with open(path, "r+", encoding="utf-8") as fh:
        fh.write(topic_file.render(changed))
        fh.truncate()
    os.utime(path.parent, ns=(folder.st_atime_ns, folder.st_mtime_ns))


def settle(location: MemoryLocation) -> None:
    """Make the memory folder (and the marker) old, as they are in a real project."""
    os.utime(location.memory_dir, (OLD, OLD))
    marker = state_dir(location) / "memory.changed"
    if marker.exists():
        os.utime(marker, (OLD, OLD))


def state_dir(location: MemoryLocation) -> Path:
    return project_state_dir(str(location.project_key))


@pytest.fixture
def location(project: Path) -> MemoryLocation:
    found = resolve_memory_location(project)
    found.memory_dir.mkdir(parents=True)
    for name, text in NOTES.items():
        write_learning(found.memory_dir, text, name=name)
    settle(found)
    sources.index_for(found)  # the full check: the index and its quick key
    return found


def quick_block(location: MemoryLocation, prompt: str) -> str:
    return sources.block_for(location, prompt, quick=True)


class Scans:
    """Counts the full checks (every learning file listed and stat-ed)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        real = sources.learning_files

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.count += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(sources, "learning_files", counted)


def test_a_warm_prompt_stats_no_learning_file(
    location: MemoryLocation, monkeypatch: pytest.MonkeyPatch
) -> None:
    scans = Scans(monkeypatch)
    block = quick_block(location, MIGRATIONS_PROMPT)
    assert "make migrate" in block
    assert scans.count == 0
    assert quick_block(location, "stripe webhook returns 400 after rotating the secret")
    assert scans.count == 0


def test_a_learning_added_by_hand_is_recalled_by_the_next_prompt(
    location: MemoryLocation,
) -> None:
    assert "Celery" not in quick_block(location, CELERY_PROMPT)
    write_learning(location.memory_dir, CELERY)
    assert "Celery workers must be restarted" in quick_block(location, CELERY_PROMPT)


def test_a_learning_removed_by_hand_is_not_injected(location: MemoryLocation) -> None:
    assert "make migrate" in quick_block(location, MIGRATIONS_PROMPT)
    (location.memory_dir / learnings.file_name_for("migrations")).unlink()
    assert "make migrate" not in quick_block(location, MIGRATIONS_PROMPT)


def test_a_learning_an_editor_replaces_by_renaming_is_seen_by_the_next_prompt(
    location: MemoryLocation,
) -> None:
    path = location.memory_dir / learnings.file_name_for("flaky")
    assert "Celery" not in quick_block(location, CELERY_PROMPT)
    tmp = location.memory_dir / ".flaky.md.swp"
    learning = dataclasses.replace(topic_file.parse(path.read_text("utf-8")), text=CELERY)
    tmp.write_text(topic_file.render(learning), "utf-8")
    os.replace(tmp, path)  # what most editors do on save
    assert "Celery workers must be restarted" in quick_block(location, CELERY_PROMPT)


def test_an_injected_learning_edited_in_place_is_read_again_first(
    location: MemoryLocation,
) -> None:
    assert "make migrate" in quick_block(location, MIGRATIONS_PROMPT)
    path = location.memory_dir / learnings.file_name_for("migrations")
    rewrite_in_place(path, NOTES["migrations"].replace("make migrate", "just db-migrate"))
    block = quick_block(location, MIGRATIONS_PROMPT)
    assert "just db-migrate" in block
    assert "make migrate" not in block


def test_a_learning_edited_in_place_that_is_no_hit_waits_for_the_session_end(
    location: MemoryLocation, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The documented limit of the quick check, and where it ends: SessionEnd (SessionStart
    takes the quick check too, decision 0105)."""
    from helpers.hooks import run_hook

    from pokayokay.hooks.recall import session_start_context

    path = location.memory_dir / learnings.file_name_for("flaky")
    rewrite_in_place(path, CELERY)
    assert "Celery" not in quick_block(location, CELERY_PROMPT)  # not seen yet (the rule)
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    start = {"session_id": "s-2", "cwd": str(project), "hook_event_name": "SessionStart"}
    assert session_start_context(start) == ""  # branch main: no block, and the quick check
    assert "Celery" not in quick_block(location, CELERY_PROMPT)
    end = {"session_id": "s-2", "cwd": str(project), "hook_event_name": "SessionEnd",
           "reason": "other", "transcript_path": str(project / "t.jsonl")}  # fmt: skip
    code, _out, err = run_hook("SessionEnd", end)
    assert (code, err) == (0, "")
    assert "Celery workers must be restarted" in quick_block(location, CELERY_PROMPT)


def test_what_pokayokay_remembers_is_recalled_by_the_next_prompt(
    location: MemoryLocation, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pokayokay.config.settings import load_settings
    from pokayokay.learnings.capture.remember import remember

    result = remember(CELERY, project_dir=project, location=location,
                      settings=load_settings(project))  # fmt: skip
    assert result.path is not None
    marker = state_dir(location) / "memory.changed"
    assert marker.is_file()
    settle(location)  # even with the folder's mtime put back, the marker says it
    os.utime(marker, None)
    scans = Scans(monkeypatch)
    assert "Celery workers must be restarted" in quick_block(location, CELERY_PROMPT)
    assert scans.count == 1


def test_the_marker_brings_the_full_check(
    location: MemoryLocation, monkeypatch: pytest.MonkeyPatch
) -> None:
    scans = Scans(monkeypatch)
    quick_block(location, MIGRATIONS_PROMPT)
    assert scans.count == 0
    mark_memory_changed(str(location.project_key))
    quick_block(location, MIGRATIONS_PROMPT)
    assert scans.count == 1
    settle(location)  # once settled, the full check records a new quick key ...
    quick_block(location, MIGRATIONS_PROMPT)
    assert scans.count == 2
    quick_block(location, MIGRATIONS_PROMPT)
    assert scans.count == 2  # ... and the prompts are quick again


def clock_at(monkeypatch: pytest.MonkeyPatch, stamp: Any) -> None:
    """The file system's clock, as the probe reads it, stopped at ``stamp(probe's mtime)``: a
    coarse clock still in the tick of the folder's last change, or one just past it."""
    from pokayokay.infra import fs_clock

    real = fs_clock.probe_clock

    def stopped(folder: str) -> tuple[int, int] | None:
        found = real(folder)
        return None if found is None else (found[0], stamp(found[1]))

    monkeypatch.setattr(fs_clock, "probe_clock", stopped)


def test_a_folder_changed_in_the_clocks_current_tick_is_not_trusted(
    location: MemoryLocation, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A coarse file-system clock could hide a file added in the same tick as the scan: while
    the probe is stamped no later than the folder, every prompt runs the full check."""
    write_learning(location.memory_dir, CELERY)  # the folder's mtime is now
    mtime = location.memory_dir.stat().st_mtime_ns
    clock_at(monkeypatch, lambda _now: mtime)  # the clock has not ticked since
    scans = Scans(monkeypatch)
    for _ in range(3):
        assert "Celery" in quick_block(location, CELERY_PROMPT)
    assert scans.count == 3
    # a learning added in that same tick keeps the folder's mtime, and is still found
    write_learning(location.memory_dir, NOTES["flaky"].replace("Redis", "Memcached"), name="m")
    os.utime(location.memory_dir, ns=(mtime, mtime))
    assert "Memcached" in quick_block(location, "is the checkout test flaky with memcached?")


def test_a_full_check_a_moment_after_a_write_vouches_for_the_next_prompt(
    location: MemoryLocation, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SessionEnd's case: it writes the memory folder, then runs the full check; the file
    system's clock has moved past the folder's mtime by then (the probe says so), so the next
    session's first prompt is quick."""
    write_learning(location.memory_dir, CELERY)  # the folder's mtime is now
    assert time.time_ns() - location.memory_dir.stat().st_mtime_ns < sources.SETTLE_NS
    folder = location.memory_dir.stat().st_mtime_ns
    clock_at(monkeypatch, lambda _now: folder + 1)  # one nanosecond past is past
    sources.index_for(location)  # the full check
    scans = Scans(monkeypatch)
    assert "Celery" in quick_block(location, CELERY_PROMPT)
    assert scans.count == 0


# --------------------------------------------------------------------------------------------
# The invariant: whatever happens to the files, a quick prompt injects only current text

WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
ACTIONS = st.lists(
    st.tuples(
        st.sampled_from(["edit", "add", "delete", "rename", "marker"]),
        st.integers(0, 3),
        st.sampled_from(WORDS),
    ),
    min_size=1,
    max_size=6,
)


def note(word: str, n: int) -> str:
    return (f"When the {word} deployment pipeline stalls on step {n}, restart the {word} runner "
            f"and clear its cache; the {word} queue then drains within minutes.")  # fmt: skip


def four_notes_indexed(root: Path) -> MemoryLocation:
    """The memory location of ``root`` with four settled learnings, their index built."""
    loc = resolve_memory_location(root)
    loc.memory_dir.mkdir(parents=True, exist_ok=True)
    for n in range(4):
        write_learning(loc.memory_dir, note(WORDS[n], n), name=f"note-{n}")
    settle(loc)
    sources.index_for(loc)
    return loc


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(actions=ACTIONS)
def test_a_quick_prompt_injects_only_what_the_files_hold_now(
    tmp_path_factory: pytest.TempPathFactory, actions: list[tuple[str, int, str]]
) -> None:
    loc = four_notes_indexed(tmp_path_factory.mktemp("p"))
    for step, (action, n, word) in enumerate(actions):
        path = loc.memory_dir / learnings.file_name_for(f"note-{n}")
        text = note(word, step + 10)
        if action == "edit" and path.exists():
            rewrite_in_place(path, text)
        elif action == "add":
            write_learning(loc.memory_dir, text, name=f"note-{n}")
        elif action == "delete":
            path.unlink(missing_ok=True)
        elif action == "rename" and path.exists():
            path.rename(loc.memory_dir / learnings.file_name_for(f"note-{n}-moved"))
        elif action == "marker":
            mark_memory_changed(str(loc.project_key))
        block = sources.block_for(loc, f"the {word} deployment pipeline stalls, restart the "
                                  f"{word} runner?", quick=True)  # fmt: skip
        current = {
            topic_file.parse(p.read_text("utf-8")).text
            for p in loc.memory_dir.glob("learning-*.md")
        }
        for line in block.splitlines():
            if "deployment pipeline stalls" in line:
                shown = line.split("] ", 1)[1].split(": ", 1)[1]  # after "learning, patterns: "
                assert shown in current, (action, shown)


# --------------------------------------------------------------------------------------------
# The clock rule: what the quick key stands for is never missed, whatever the clock's tick


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(
    tick=st.sampled_from([None, 0, 1, 4_000_000, 2_000_000_000]),
    later=st.sampled_from([0, 1, 3_000_000]),
    marker=st.booleans(),
)
def test_a_learning_written_just_after_the_key_was_saved_is_always_seen(
    tmp_path_factory: pytest.TempPathFactory, tick: int | None, later: int, marker: bool
) -> None:
    """SessionEnd's order: a write to the memory folder, the full check (which saves the quick
    key when the clock is past the folder's mtime), then at once another learning. The next
    quick prompt recalls it. ``tick``: how far past the folder's mtime the probe finds the file
    system's clock (None: the real clock, unsimulated; 0: still in the same tick); the second
    learning is then stamped ``later`` past the probe, as any change after it is, and with the
    folder's very mtime when the clock had not ticked (the case a coarse clock hides)."""
    loc = four_notes_indexed(tmp_path_factory.mktemp("c"))
    with pytest.MonkeyPatch.context() as patch:
        write_learning(loc.memory_dir, note("golf", 7), name="session-end")  # the folder: now
        if marker:
            mark_memory_changed(str(loc.project_key))
        folder = loc.memory_dir.stat().st_mtime_ns
        if tick is not None:
            clock_at(patch, lambda _now: folder + tick)
        sources.index_for(loc)  # SessionEnd's full check
        write_learning(loc.memory_dir, CELERY, name="just-after")
        if tick is not None:  # stamped by the simulated clock: never before the probe
            stamp = folder + tick + later
            os.utime(loc.memory_dir, ns=(stamp, stamp))
        assert "Celery workers must be restarted" in quick_block(loc, CELERY_PROMPT)


def test_no_probe_file_without_a_cache_to_vouch_for(tmp_path: Path) -> None:
    """Nothing is created when there is nothing to recall from: the probe is stamped only
    beside an index file, and a first full check leaves it to the next one."""
    from pokayokay.infra.fs_clock import PROBE_FILE

    loc = resolve_memory_location(tmp_path)
    loc.memory_dir.mkdir(parents=True)  # changed just now, and empty
    state = state_dir(loc)
    state.mkdir(parents=True, exist_ok=True)
    assert sources.index_for(loc) is None
    assert not (state / PROBE_FILE).exists()
    write_learning(loc.memory_dir, CELERY)
    sources.index_for(loc)  # the first build: no cache yet, so no probe
    assert not (state / PROBE_FILE).exists()
    write_learning(loc.memory_dir, NOTES["stripe"], name="stripe")
    sources.index_for(loc)  # a cache to vouch for: the probe is stamped
    assert (state / PROBE_FILE).is_file()
