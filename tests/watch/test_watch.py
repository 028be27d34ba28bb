"""`pokayokay watch`: the dispatcher driven by scripted file-system events and a fake clock (no
sleeps), the watchdog glue on fake observers, and one run on the real watchdog observer."""

from __future__ import annotations

import hashlib
import io
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirModifiedEvent,
    FileClosedEvent,
    FileClosedNoWriteEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileOpenedEvent,
)

from pokayokay.errors import (
    ConcurrentChangeError,
    InvariantViolation,
    PokayokayError,
    SettingsError,
)
from pokayokay.infra.locate import resolve_memory_location
from pokayokay.infra.safe_write import LockTimeout
from pokayokay.memory.sections import Settings
from pokayokay.watch import effects as watch_effects
from pokayokay.watch import observer as watch
from pokayokay.watch.dispatcher import (
    CurateReport,
    Dispatcher,
    Effects,
    EventKind,
    Watch,
    WatchPaths,
)

PROJECT = Path("/work/project")
MEMORY_DIR = Path("/home/u/.claude/projects/-work-project/memory")
MEMORY = MEMORY_DIR / "MEMORY.md"
CLAUDE = PROJECT / ".claude"
RULES = CLAUDE / "rules"
TEAM_SETTINGS = CLAUDE / "pokayokay.md"
DEBOUNCE = 0.5


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class World:
    """A fake file system and fake curation/lint/settings, recording every call."""

    files: dict[Path, bytes] = field(default_factory=dict)
    dirs: dict[Path, int] = field(default_factory=dict)
    curations: list[Settings] = field(default_factory=list)
    curate_errors: list[BaseException] = field(default_factory=list)
    findings: dict[Path, list[str]] = field(default_factory=dict)
    lints: list[Path] = field(default_factory=list)
    settings_results: list[Settings | BaseException] = field(default_factory=list)
    logged: list[str] = field(default_factory=list)
    out: list[str] = field(default_factory=list)
    generation: int = 0

    def mkdir(self, path: Path) -> None:
        for folder in (path, *path.parents):
            if folder not in self.dirs:
                self.generation += 1
                self.dirs[folder] = self.generation

    def rmtree(self, path: Path) -> None:
        for folder in [d for d in self.dirs if d == path or path in d.parents]:
            del self.dirs[folder]
        for name in [f for f in self.files if path in f.parents]:
            del self.files[name]

    def write(self, path: Path, data: bytes) -> None:
        self.mkdir(path.parent)
        self.files[path] = data

    # -- effects -------------------------------------------------------------------------------
    def curate(self, settings: Settings) -> CurateReport:
        """Like the real thing: an over-budget file ("OVER") is rewritten, else left alone."""
        self.curations.append(settings)
        if self.curate_errors:
            raise self.curate_errors.pop(0)
        data = self.files[MEMORY]
        if b"OVER" in data:
            new = data.replace(b"OVER", b"ok")
            self.files[MEMORY] = new
            return CurateReport("curated MEMORY.md: moved 3 entries", sha(new))
        return CurateReport("MEMORY.md within budget", sha(data))

    def lint(self, path: Path) -> list[str]:
        self.lints.append(path)
        return list(self.findings.get(path, []))

    def load_settings(self) -> Settings:
        result = self.settings_results.pop(0)
        if isinstance(result, BaseException):
            raise result
        return result

    def digest(self, path: Path) -> str | None:
        data = self.files.get(path)
        return None if data is None else sha(data)

    def dir_id(self, path: Path) -> object | None:
        return self.dirs.get(path)

    def rule_files(self, folder: Path) -> list[Path]:
        return sorted(f for f in self.files if folder in f.parents)

    def log(self, message: str, traceback_text: str) -> Path:
        self.logged.append(message + "\n" + traceback_text)
        return Path("/state/pokayokay.log")

    def effects(self) -> Effects:
        return Effects(
            curate=self.curate,
            lint=self.lint,
            load_settings=self.load_settings,
            digest=self.digest,
            dir_id=self.dir_id,
            rule_files=self.rule_files,
            log=self.log,
        )


@pytest.fixture
def world() -> World:
    w = World()
    w.mkdir(PROJECT)
    w.mkdir(MEMORY_DIR)
    w.mkdir(RULES)
    return w


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def make(world: World, clock: FakeClock, settings: Settings | None = None) -> Dispatcher:
    return Dispatcher(
        WatchPaths(PROJECT, MEMORY_DIR),
        settings or Settings(),
        world.effects(),
        clock=clock,
        debounce=DEBOUNCE,
        say=world.out.append,
    )


def run_due(dispatcher: Dispatcher, clock: FakeClock) -> None:
    """Let the fake time run to the next deadline and act on it."""
    deadline = dispatcher.next_deadline()
    assert deadline is not None, "nothing was scheduled"
    clock.now = max(clock.now, deadline)
    dispatcher.tick()


def claude_writes(
    dispatcher: Dispatcher, world: World, data: bytes, kind: EventKind = "modified"
) -> None:
    world.write(MEMORY, data)
    dispatcher.handle(kind, MEMORY)


# ------------------------------------------------------------------------------------------
# Debounce


def test_a_burst_of_memory_events_becomes_one_curation_after_the_quiet_period(
    world: World, clock: FakeClock
) -> None:
    d = make(world, clock)
    for step, kind in enumerate(["created", "modified", "modified", "moved_to", "modified"]):
        claude_writes(d, world, b"OVER %d\n" % step, kind)  # type: ignore[arg-type]
        clock.advance(0.3)  # each event comes before the previous one's quiet period is over
        d.tick()
    assert world.curations == []
    # The last event was at t+1.2; the curation waits until t+1.7.
    assert d.next_deadline() == pytest.approx(clock.now + 0.2)
    clock.advance(0.19)
    d.tick()
    assert world.curations == []
    clock.advance(0.01)
    d.tick()
    assert len(world.curations) == 1
    assert world.out == ["curated MEMORY.md: moved 3 entries"]
    assert d.next_deadline() is None


def test_nothing_is_scheduled_without_events(world: World, clock: FakeClock) -> None:
    d = make(world, clock)
    assert d.next_deadline() is None
    clock.advance(100)
    d.tick()
    assert world.curations == []
    assert world.lints == []
    assert world.out == []


# ------------------------------------------------------------------------------------------
# Own writes


def test_events_caused_by_our_own_write_do_not_trigger_another_curation(
    world: World, clock: FakeClock
) -> None:
    d = make(world, clock)
    claude_writes(d, world, b"# memory\nOVER\n")
    run_due(d, clock)
    assert len(world.curations) == 1
    # Our atomic write shows up as the temp file moved onto MEMORY.md, then the temp deleted.
    tmp = MEMORY_DIR / ".MEMORY.md.pokayokay-4242-123456.tmp"
    d.handle("created", tmp)
    d.handle("moved_from", tmp)
    d.handle("moved_to", MEMORY)
    d.handle("moved_from", MEMORY)
    d.handle("deleted", tmp)
    d.handle("created", MEMORY_DIR / "decisions-archive.md")
    run_due(d, clock)  # the moved_to MEMORY.md was debounced; it turns out to be our content
    assert len(world.curations) == 1
    assert world.out == ["curated MEMORY.md: moved 3 entries"]
    # Claude writing the very same bytes again (or a touch) is not worth a curation either.
    claude_writes(d, world, b"# memory\nok\n")
    run_due(d, clock)
    assert len(world.curations) == 1
    # A real change by Claude is curated again.
    claude_writes(d, world, b"# memory\nok\nOVER again\n")
    run_due(d, clock)
    assert len(world.curations) == 2
    assert world.out[-1] == "curated MEMORY.md: moved 3 entries"


def test_a_file_found_within_budget_is_not_checked_again_until_it_changes(
    world: World, clock: FakeClock
) -> None:
    d = make(world, clock)
    claude_writes(d, world, b"# short\n")
    run_due(d, clock)
    claude_writes(d, world, b"# short\n")
    run_due(d, clock)
    assert world.out == ["MEMORY.md within budget"]
    assert len(world.curations) == 1


def over_budget_memory(n_decisions: int = 60) -> str:
    notes = "".join(f"- [Claude note {i}](note-{i}.md) — kept as is\n" for i in range(5))
    decisions = "".join(
        f"- 2026-{1 + i % 12:02d}-{1 + i % 28:02d} decision {i}: because {i}\n"
        for i in range(n_decisions)
    )
    return "# Memory\n\n" + notes + "\n## Key Decisions\n<!-- pokayokay: promoted -->\n" + decisions


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.iterdir())}


def test_without_the_hash_check_the_loop_still_ends_a_no_op_curation_writes_nothing(
    tmp_path: Path, clock: FakeClock
) -> None:
    """Real curation on a real folder, with own-write suppression switched off (every digest
    looks new): the second pass finds nothing to do and touches no file, so it can cause no
    event and the loop ends."""
    project = tmp_path / "project"
    project.mkdir()
    memory = tmp_path / "memory"
    memory.mkdir()
    location = resolve_memory_location(project, memory_dir=memory)
    effects = watch.real_effects(location, project)
    counter = iter(range(10**6))
    effects.digest = lambda path: f"never the same {next(counter)}"
    out: list[str] = []
    d = Dispatcher(
        WatchPaths(location.project_dir, memory),
        Settings(),
        effects,
        clock=clock,
        debounce=DEBOUNCE,
        say=out.append,
    )
    (memory / "MEMORY.md").write_text(over_budget_memory())
    d.handle("modified", memory / "MEMORY.md")
    run_due(d, clock)
    assert out[0].startswith("curated MEMORY.md: moved 20 entries (20 lines) from Key Decisions")
    assert (memory / "decisions-archive.md").exists()
    before = snapshot(memory)
    # The events of that write come back...
    d.handle("moved_to", memory / "MEMORY.md")
    d.handle("modified", memory / "decisions-archive.md")
    run_due(d, clock)
    # ...and the second curation changes nothing and writes nothing: no event, no third pass.
    assert out[1:] == ["MEMORY.md within budget"]
    assert snapshot(memory) == before
    assert d.next_deadline() is None


# ------------------------------------------------------------------------------------------
# Concurrent writers and errors


@pytest.mark.parametrize(
    "error",
    [
        ConcurrentChangeError("MEMORY.md kept changing while pokayokay tried to curate it"),
        LockTimeout("another pokayokay process holds the lock; try again in a moment"),
    ],
)
def test_a_concurrent_writer_is_not_fought_the_next_event_retries(
    world: World, clock: FakeClock, error: PokayokayError
) -> None:
    d = make(world, clock)
    world.curate_errors.append(error)
    claude_writes(d, world, b"OVER\n")
    run_due(d, clock)
    assert world.out == [
        f"MEMORY.md not curated: {error.message} (will try again on its next change)"
    ]
    # No retry loop of our own: nothing is scheduled until the file changes again.
    assert d.next_deadline() is None
    clock.advance(60)
    d.tick()
    assert len(world.curations) == 1
    # The other writer's write is an event: we try again, even if the bytes are the same.
    d.handle("modified", MEMORY)
    run_due(d, clock)
    assert len(world.curations) == 2
    assert world.out[-1] == "curated MEMORY.md: moved 3 entries"


def test_a_refusal_is_said_once_per_content(world: World, clock: FakeClock) -> None:
    d = make(world, clock)
    world.curate_errors.append(InvariantViolation("a line would be lost; nothing written"))
    claude_writes(d, world, b"OVER\n")
    run_due(d, clock)
    d.handle("modified", MEMORY)  # same content again: same refusal, not repeated
    run_due(d, clock)
    assert world.out == ["MEMORY.md not curated: a line would be lost; nothing written"]
    claude_writes(d, world, b"OVER, edited\n")
    run_due(d, clock)
    assert len(world.curations) == 2
    assert world.out[-1] == "curated MEMORY.md: moved 3 entries"


def test_an_unexpected_curation_error_is_logged_and_the_watch_goes_on(
    world: World, clock: FakeClock
) -> None:
    d = make(world, clock)
    world.curate_errors.append(RuntimeError("boom"))
    claude_writes(d, world, b"OVER\n")
    run_due(d, clock)
    assert world.out == [
        "MEMORY.md not curated: unexpected error (RuntimeError: boom); "
        "details in /state/pokayokay.log"
    ]
    assert "RuntimeError: boom" in world.logged[0]
    claude_writes(d, world, b"OVER 2\n")
    run_due(d, clock)
    assert world.out[-1] == "curated MEMORY.md: moved 3 entries"


def test_memory_removed_before_the_debounce_ends_is_not_curated(
    world: World, clock: FakeClock
) -> None:
    d = make(world, clock)
    claude_writes(d, world, b"OVER\n")
    del world.files[MEMORY]
    d.handle("deleted", MEMORY)
    run_due(d, clock)
    assert world.curations == [] and world.out == []


# ------------------------------------------------------------------------------------------
# Ignored files


@pytest.mark.parametrize(
    ("kind", "path"),
    [
        ("modified", MEMORY_DIR / "decisions-archive.md"),
        ("created", MEMORY_DIR / "completed-work-archive.md"),
        ("created", MEMORY_DIR / ".MEMORY.md.pokayokay-77-9999.tmp"),
        ("moved_from", MEMORY_DIR / ".MEMORY.md.pokayokay-77-9999.tmp"),
        ("deleted", MEMORY_DIR / ".decisions-archive.md.pokayokay-77-1.tmp"),
        ("modified", MEMORY_DIR / "debugging.md"),  # a topic file of Claude's
        ("modified", MEMORY_DIR / "memory.md"),
        ("deleted", MEMORY),
        ("moved_from", MEMORY),
        ("modified", MEMORY_DIR.parent / "0b9c.jsonl"),  # a transcript next to the folder
        ("modified", CLAUDE / "settings.json"),
        ("modified", CLAUDE / "settings.local.json"),
        ("modified", CLAUDE / "sub" / "pokayokay.md"),
        ("modified", CLAUDE / ".pokayokay.md.swp"),
        ("modified", RULES / "notes.txt"),
        ("modified", RULES / ".testing.md.swp"),
        ("created", RULES / ".#testing.md"),
        ("created", RULES / ".hidden" / "x.md"),
        ("created", RULES / "pokayokay" / ".testing.md.pokayokay-1-2.tmp"),
        ("deleted", RULES / "testing.md"),
        ("modified", PROJECT / "src" / "app.py"),
        ("modified", PROJECT / "MEMORY.md"),
        ("modified", PROJECT / "CLAUDE.md"),
    ],
)
def test_unrelated_and_pokayokay_own_files_are_ignored(
    world: World, clock: FakeClock, kind: EventKind, path: Path
) -> None:
    d = make(world, clock)
    assert d.handle(kind, path) is None
    assert d.next_deadline() is None


# ------------------------------------------------------------------------------------------
# Rules


def test_a_changed_rule_is_linted_alone_and_its_findings_printed(
    world: World, clock: FakeClock
) -> None:
    d = make(world, clock)
    bad = RULES / "pokayokay" / "testing.md"
    good = RULES / "style.md"
    world.write(bad, b"---\nglobs: src/**\n---\n")
    world.write(good, b"---\npaths:\n  - src/**\n---\n")
    world.findings[bad] = [
        "uses 'globs:', which Claude Code ignores: the rule loads in every session",
        "'\"src/*.py\"' keeps its quotes inside a comma string: it matches no file",
    ]
    for _ in range(3):  # an editor saving in several steps
        assert d.handle("modified", bad) == "rule"
        clock.advance(0.1)
    assert d.handle("created", good) == "rule"
    run_due(d, clock)
    assert world.lints == [bad]
    run_due(d, clock)
    assert world.lints == [bad, good]
    assert world.out == [
        ".claude/rules/pokayokay/testing.md: uses 'globs:', which Claude Code ignores: the rule "
        "loads in every session",
        ".claude/rules/pokayokay/testing.md: '\"src/*.py\"' keeps its quotes inside a comma "
        "string: it matches no file",
        ".claude/rules/style.md: ok",
    ]
    assert world.curations == []


def test_a_rule_renamed_into_place_is_linted_and_one_removed_meanwhile_is_not(
    world: World, clock: FakeClock
) -> None:
    d = make(world, clock)
    final = RULES / "api.md"
    world.write(final, b"---\npaths: [src/api/**]\n---\n")
    d.handle("moved_from", RULES / ".api.md.tmp")
    d.handle("moved_to", final)
    gone = RULES / "old.md"
    d.handle("modified", gone)  # modified, then deleted before the quiet period ended
    d.handle("deleted", gone)
    run_due(d, clock)
    assert world.lints == [final]
    assert d.next_deadline() is None


def test_lint_failures_are_reported_not_raised(world: World, clock: FakeClock) -> None:
    d = make(world, clock)
    rule = RULES / "x.md"
    world.write(rule, b"---\n")

    def broken(path: Path) -> list[str]:
        raise PokayokayError(f"{path.name}: unclosed frontmatter")

    d.effects.lint = broken
    d.handle("modified", rule)
    run_due(d, clock)
    assert world.out == [".claude/rules/x.md: could not lint: x.md: unclosed frontmatter"]


# ------------------------------------------------------------------------------------------
# Settings


def test_a_settings_change_reloads_them_and_curation_uses_the_new_ones(
    world: World, clock: FakeClock
) -> None:
    d = make(world, clock)
    claude_writes(d, world, b"# fine\n")
    run_due(d, clock)
    assert world.curations == [Settings()]
    tighter = Settings(max_lines=120)
    world.settings_results.append(tighter)
    assert d.handle("modified", TEAM_SETTINGS) == "settings"
    assert d.handle("created", CLAUDE / "pokayokay.local.md") == "settings"
    run_due(d, clock)
    assert d.settings == tighter
    # New budgets: the same MEMORY.md is checked again, at once.
    assert world.curations == [Settings(), tighter]
    assert world.out == ["MEMORY.md within budget", "settings reloaded", "MEMORY.md within budget"]


def test_bad_settings_are_reported_and_the_last_good_ones_kept(
    world: World, clock: FakeClock
) -> None:
    good = Settings(max_lines=150)
    d = make(world, clock, settings=good)
    message = ".claude/pokayokay.md: max_lines: expected an integer from 1 to 200, got 900"
    world.settings_results.append(SettingsError(message))
    d.handle("modified", TEAM_SETTINGS)
    run_due(d, clock)
    assert world.out == [f"settings not reloaded: {message} (keeping the last good settings)"]
    assert d.settings is good
    claude_writes(d, world, b"OVER\n")
    run_due(d, clock)
    assert world.curations == [good]
    # Fixed: reloaded.
    world.settings_results.append(Settings(max_lines=180, warnings=("x: unknown key 'y'",)))
    d.handle("modified", TEAM_SETTINGS)
    run_due(d, clock)
    assert d.settings.max_lines == 180
    assert world.out[-3:-1] == ["settings: warning: x: unknown key 'y'", "settings reloaded"]


def test_removing_the_local_settings_file_reloads_too(world: World, clock: FakeClock) -> None:
    d = make(world, clock, settings=Settings(max_lines=100))
    world.settings_results.append(Settings(max_lines=100))
    assert d.handle("deleted", CLAUDE / "pokayokay.local.md") == "settings"
    run_due(d, clock)
    assert world.out == ["settings reloaded (no change)"]
    assert world.curations == []


# ------------------------------------------------------------------------------------------
# The memory folder appearing, vanishing, coming back


def watched(d: Dispatcher) -> set[tuple[str, bool]]:
    return {(str(w.path), w.recursive) for w in d.watches}


def test_memory_folder_created_after_the_start_switches_the_watch(clock: FakeClock) -> None:
    world = World()
    world.mkdir(PROJECT)
    config = Path("/home/u/.claude")
    world.mkdir(config)  # no projects/ yet: Claude Code has never run here
    d = make(world, clock)
    assert not d.memory_attached
    assert watched(d) == {(str(config), False), (str(PROJECT), False)}
    # Claude Code creates projects/<slug>/memory one folder at a time.
    for folder in (config / "projects", MEMORY_DIR.parent, MEMORY_DIR):
        world.mkdir(folder)
        assert d.handle("created", folder, is_dir=True) == "folder"
        assert (str(folder), False) in watched(d)
    assert watched(d) == {(str(MEMORY_DIR), False), (str(PROJECT), False)}
    assert d.memory_attached
    assert world.out == [f"memory folder {MEMORY_DIR} appeared: watching it"]
    # MEMORY.md may have been written before the watch was in place: it is checked anyway.
    world.write(MEMORY, b"OVER\n")
    run_due(d, clock)
    assert world.out[-1] == "curated MEMORY.md: moved 3 entries"


def test_memory_folder_deleted_and_recreated_is_followed(world: World, clock: FakeClock) -> None:
    d = make(world, clock)
    claude_writes(d, world, b"OVER\n")
    run_due(d, clock)
    first = next(w for w in d.watches if w.path == MEMORY_DIR)
    world.rmtree(MEMORY_DIR)
    d.handle("deleted", MEMORY_DIR, is_dir=True)  # inotify's "watched folder deleted"
    assert not d.memory_attached
    assert (str(MEMORY_DIR.parent), False) in watched(d)
    assert world.out[-1] == (
        f"memory folder {MEMORY_DIR} is gone: waiting for it to come back "
        f"(watching {MEMORY_DIR.parent})"
    )
    world.mkdir(MEMORY_DIR)
    world.write(MEMORY, b"OVER again\n")
    d.handle("created", MEMORY_DIR, is_dir=True)
    again = next(w for w in d.watches if w.path == MEMORY_DIR)
    assert again != first  # a new folder: a new watch, even at the same path
    run_due(d, clock)
    assert len(world.curations) == 2


def test_a_folder_replaced_behind_our_back_is_noticed_by_a_replan(
    world: World, clock: FakeClock
) -> None:
    d = make(world, clock)
    before = d.watches
    world.rmtree(MEMORY_DIR)  # e.g. renamed away and recreated: no event on the old watch
    world.mkdir(MEMORY_DIR)
    assert d.replan() is True
    assert d.watches != before and d.memory_attached
    assert d.replan() is False


def test_rules_folder_created_later_is_watched_and_its_files_linted(clock: FakeClock) -> None:
    world = World()
    world.mkdir(PROJECT)
    world.mkdir(MEMORY_DIR)
    d = make(world, clock)
    assert (str(PROJECT), False) in watched(d)  # no .claude/ yet
    world.mkdir(CLAUDE)
    d.handle("created", CLAUDE, is_dir=True)
    assert (str(CLAUDE), False) in watched(d)
    # `git checkout` creates rules/ and its files before our recursive watch is in place.
    world.write(RULES / "a.md", b"---\n---\n")
    world.write(RULES / "pokayokay" / "b.md", b"---\n---\n")
    world.write(RULES / "README.txt", b"")
    d.handle("created", RULES, is_dir=True)
    assert (str(RULES), True) in watched(d)
    run_due(d, clock)
    assert sorted(world.lints) == [RULES / "a.md", RULES / "pokayokay" / "b.md"]


# ------------------------------------------------------------------------------------------
# The watchdog glue, without an observer thread


@pytest.mark.parametrize(
    ("event", "expected"),
    [
        (FileModifiedEvent("/m/MEMORY.md"), [("modified", Path("/m/MEMORY.md"), False)]),
        (FileCreatedEvent("/m/MEMORY.md"), [("created", Path("/m/MEMORY.md"), False)]),
        (FileDeletedEvent("/m/MEMORY.md"), [("deleted", Path("/m/MEMORY.md"), False)]),
        (
            FileMovedEvent("/m/.MEMORY.md.pokayokay-1-2.tmp", "/m/MEMORY.md"),
            [
                ("moved_from", Path("/m/.MEMORY.md.pokayokay-1-2.tmp"), False),
                ("moved_to", Path("/m/MEMORY.md"), False),
            ],
        ),
        (FileMovedEvent("/m/a.md", ""), [("moved_from", Path("/m/a.md"), False)]),
        (FileMovedEvent("", "/m/a.md"), [("moved_to", Path("/m/a.md"), False)]),
        (DirCreatedEvent("/c/projects"), [("created", Path("/c/projects"), True)]),
        (DirDeletedEvent("/c/memory"), [("deleted", Path("/c/memory"), True)]),
        (FileModifiedEvent(b"/m/MEMORY.md"), [("modified", Path("/m/MEMORY.md"), False)]),
        # Reading MEMORY.md (our hash check, our curation) must never look like a change.
        (FileOpenedEvent("/m/MEMORY.md"), []),
        (FileClosedNoWriteEvent("/m/MEMORY.md"), []),
        (FileClosedEvent("/m/MEMORY.md"), []),
        (DirModifiedEvent("/m"), []),
    ],
)
def test_watchdog_events_are_translated(event: Any, expected: list[Any]) -> None:
    assert watch.translate(event) == expected


class FakeObserver:
    def __init__(self, refuse: set[str] | None = None) -> None:
        self.scheduled: dict[int, tuple[Any, str, bool]] = {}
        self.log: list[str] = []
        self.refuse = refuse or set()
        self.started = self.stopped = self.joined = False
        self._next = 0

    def schedule(
        self, event_handler: Any, path: str, *, recursive: bool = False, event_filter: Any = None
    ) -> Any:
        if path in self.refuse:
            raise FileNotFoundError(2, "No such file or directory", path)
        self._next += 1
        self.scheduled[self._next] = (event_handler, path, recursive)
        self.log.append(f"schedule {path}")
        return self._next

    def unschedule(self, watch: Any) -> None:
        _, path, _ = self.scheduled.pop(watch)
        self.log.append(f"unschedule {path}")

    def start(self) -> None:
        self.started = True

    def stop(self) -> None:
        self.stopped = True

    def join(self, timeout: float | None = None) -> None:
        self.joined = True


def test_reconcile_drops_stale_watches_before_adding_new_ones() -> None:
    observer = FakeObserver()
    scheduled: dict[Watch, Any] = {}
    old = Watch(Path("/m"), False, (1, 10))
    keep = Watch(Path("/p/.claude"), False, (1, 11))
    assert watch.reconcile(observer, "h", scheduled, frozenset({old, keep})) == {}
    observer.log.clear()
    new = Watch(Path("/m"), False, (1, 12))  # recreated folder, same path
    assert watch.reconcile(observer, "h", scheduled, frozenset({new, keep})) == {}
    assert observer.log == ["unschedule /m", "schedule /m"]
    assert set(scheduled) == {new, keep}


def test_reconcile_reports_a_folder_that_vanished_meanwhile() -> None:
    observer = FakeObserver(refuse={"/m"})
    scheduled: dict[Watch, Any] = {}
    gone = Watch(Path("/m"), False, (1, 10))
    failed = watch.reconcile(observer, "h", scheduled, frozenset({gone}))
    assert list(failed) == [gone] and scheduled == {}


class RacingObserver(FakeObserver):
    """Claude Code creates the memory folder while we are busy setting up the ancestor watch."""

    def __init__(self, world: World, when: str, creates: Path) -> None:
        super().__init__()
        self.world, self.when, self.creates = world, when, creates

    def schedule(
        self, event_handler: Any, path: str, *, recursive: bool = False, event_filter: Any = None
    ) -> Any:
        handle = super().schedule(event_handler, path, recursive=recursive)
        if path == self.when:
            self.world.mkdir(self.creates)  # no watch sees this: the ancestor's is not live yet
        return handle


def test_a_folder_created_while_the_watches_are_set_up_is_not_missed(clock: FakeClock) -> None:
    world = World()
    world.mkdir(PROJECT / ".claude")
    world.mkdir(MEMORY_DIR.parent)
    d = make(world, clock)
    observer = RacingObserver(world, when=str(MEMORY_DIR.parent), creates=MEMORY_DIR)
    watches = watch._Watches(observer, "handler", d, None)
    watches.sync()
    assert sorted(path for _, path, _ in observer.scheduled.values()) == [
        str(MEMORY_DIR),
        str(CLAUDE),
    ]
    assert watches.in_line() and d.memory_attached
    world.write(MEMORY, b"OVER\n")  # written before our watch was live: checked anyway
    run_due(d, clock)
    assert world.out[-1] == "curated MEMORY.md: moved 3 entries"


def test_a_folder_that_cannot_be_watched_is_reported_once(world: World, clock: FakeClock) -> None:
    class FullObserver(FakeObserver):
        def schedule(
            self,
            event_handler: Any,
            path: str,
            *,
            recursive: bool = False,
            event_filter: Any = None,
        ) -> Any:
            if recursive:
                raise OSError(28, "inotify watch limit reached")
            return super().schedule(event_handler, path, recursive=recursive)

    d = make(world, clock)
    watches = watch._Watches(FullObserver(), "handler", d, None)
    watches.sync()
    watches.sync()
    assert world.out == [
        f"cannot watch {RULES}: inotify watch limit reached (will try again in 5 s)"
    ]
    assert watches.in_line()  # the failed watch is not retried on every pass...
    watches.retry_failed()  # ...only at the periodic rescan
    assert not watches.in_line()


def test_the_forwarder_queues_translated_events_for_the_main_thread() -> None:
    import queue

    events: queue.Queue[watch.RawEvent] = queue.Queue()
    watch.Forwarder(events).dispatch(FileMovedEvent("/m/a.tmp", "/m/MEMORY.md"))
    watch.Forwarder(events).dispatch(FileOpenedEvent("/m/MEMORY.md"))
    assert watch._drain(events, 0) == [
        ("moved_from", Path("/m/a.tmp"), False),
        ("moved_to", Path("/m/MEMORY.md"), False),
    ]
    assert watch._drain(events, 0) == []


# ------------------------------------------------------------------------------------------
# run_watch: stopping cleanly


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    (folder / ".claude" / "rules").mkdir(parents=True)
    return folder


def interrupting_clock(exc: Callable[[], None], after: int) -> Callable[[], float]:
    calls = 0

    def clock() -> float:
        nonlocal calls
        calls += 1
        if calls == after:
            exc()
        return 1000.0 + calls

    return clock


def raise_keyboard_interrupt() -> None:
    raise KeyboardInterrupt


def send_sigterm() -> None:
    os.kill(os.getpid(), signal.SIGTERM)


@pytest.mark.parametrize("interrupt", [raise_keyboard_interrupt, send_sigterm])
def test_ctrl_c_and_sigterm_stop_the_observer_and_exit_0(
    project: Path, tmp_path: Path, interrupt: Callable[[], None]
) -> None:
    observer = FakeObserver()
    out = io.StringIO()
    before = signal.getsignal(signal.SIGTERM)
    code = watch.run_watch(
        project,
        memory_dir=tmp_path / "memory",
        out=out,
        observer_factory=lambda: observer,
        clock=interrupting_clock(interrupt, after=3),  # in the loop's first pass,
    )
    assert code == 0
    assert observer.started and observer.stopped and observer.joined
    lines = out.getvalue().splitlines()
    assert lines[0] == (
        f"watching {tmp_path / 'memory' / 'MEMORY.md'} and "
        f"{project.resolve() / '.claude' / 'rules'} (Ctrl-C to stop)"
    )
    assert lines[1].startswith(f"memory folder {tmp_path / 'memory'} does not exist yet")
    said = "stopped" if interrupt is raise_keyboard_interrupt else "stopped by SIGTERM"
    assert lines[-1] == said
    assert "Traceback" not in out.getvalue()
    assert signal.getsignal(signal.SIGTERM) == before  # our handler is gone again


def test_sigio_is_survived_and_sighup_stops_the_watch_with_a_word(
    project: Path, tmp_path: Path
) -> None:
    """Issue 25 item 5: SIGIO (what a broken lease raises by default) killed ``watch`` and a
    closed terminal (SIGHUP) ended it without a word. Both arrive in the loop's first pass."""

    def sigio_then_sighup() -> None:
        os.kill(os.getpid(), signal.SIGIO)
        os.kill(os.getpid(), signal.SIGHUP)

    before = {s: signal.getsignal(s) for s in (signal.SIGIO, signal.SIGHUP)}
    out = io.StringIO()
    code = watch.run_watch(
        project, memory_dir=tmp_path / "memory", out=out, observer_factory=FakeObserver,
        clock=interrupting_clock(sigio_then_sighup, after=3),
    )
    assert code == 0
    assert out.getvalue().splitlines()[-1] == "stopped by SIGHUP"
    assert {s: signal.getsignal(s) for s in before} == before
    log = Path(os.environ["POKAYOKAY_HOME"]) / "logs" / "pokayokay.log"
    assert "stopped by SIGHUP" in log.read_text()


def test_an_error_that_ends_the_watch_is_said_and_logged(project: Path, tmp_path: Path) -> None:
    def explode() -> None:
        raise RuntimeError("the disk went away")

    out = io.StringIO()
    with pytest.raises(RuntimeError):
        watch.run_watch(
            project, memory_dir=tmp_path / "memory", out=out, observer_factory=FakeObserver,
            clock=interrupting_clock(explode, after=3),
        )
    last = out.getvalue().splitlines()[-1]
    assert last.startswith("stopped: RuntimeError: the disk went away (details: ")
    log = Path(os.environ["POKAYOKAY_HOME"]) / "logs" / "pokayokay.log"
    assert "RuntimeError: the disk went away" in log.read_text()


def test_watched_folders_at_start(project: Path, tmp_path: Path) -> None:
    observer = FakeObserver()
    (tmp_path / "memory").mkdir()
    watch.run_watch(
        project,
        memory_dir=tmp_path / "memory",
        out=io.StringIO(),
        observer_factory=lambda: observer,
        clock=interrupting_clock(raise_keyboard_interrupt, after=3),
    )
    claude = project.resolve() / ".claude"
    assert sorted((path, rec) for _, path, rec in observer.scheduled.values()) == sorted(
        [(str(tmp_path / "memory"), False), (str(claude), False), (str(claude / "rules"), True)]
    )


def test_bad_settings_at_start_are_an_error(project: Path, tmp_path: Path) -> None:
    (project / ".claude" / "pokayokay.md").write_text("---\nmax_lines: 900\n---\n")
    observer = FakeObserver()
    with pytest.raises(SettingsError, match=r"max_lines"):
        watch.run_watch(project, memory_dir=tmp_path, observer_factory=lambda: observer)
    assert not observer.started


def test_a_negative_debounce_is_refused(project: Path) -> None:
    with pytest.raises(PokayokayError, match="--debounce"):
        watch.run_watch(project, debounce=-1, observer_factory=FakeObserver)


# ------------------------------------------------------------------------------------------
# Real effects


def test_curate_memory_says_what_happened(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    memory = tmp_path / "memory"
    memory.mkdir()
    location = resolve_memory_location(project, memory_dir=memory)
    assert watch_effects.curate_memory(location, Settings()) == CurateReport(
        f"no MEMORY.md at {memory / 'MEMORY.md'}", None
    )
    (memory / "MEMORY.md").write_text(over_budget_memory())
    report = watch_effects.curate_memory(location, Settings())
    assert report.message.startswith(
        "curated MEMORY.md: moved 20 entries (20 lines) from Key Decisions to "
        "decisions-archive.md (over its line budget)"
    )
    assert report.settled == sha((memory / "MEMORY.md").read_bytes())
    again = watch_effects.curate_memory(location, Settings())
    assert again == CurateReport("MEMORY.md within budget", report.settled)


def test_curate_memory_names_claudes_own_overflow(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    location = resolve_memory_location(project, memory_dir=tmp_path)
    (tmp_path / "MEMORY.md").write_text("".join(f"- note {i}\n" for i in range(260)))
    report = watch_effects.curate_memory(location, Settings())
    assert "; note: " in report.message


def write_rule(project: Path, rule_path: str, text: str) -> Path:
    path = project / ".claude" / "rules" / rule_path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_lint_rule_file_reports_only_that_rules_findings(project: Path) -> None:
    project = project.resolve()
    (project / "src").mkdir()
    (project / "src" / "cart.py").write_text("")
    bad = write_rule(project, "bad.md", "---\nglobs: src/**\n---\nUse the cart API.\n")
    good = write_rule(project, "style/testing.md", "---\npaths:\n  - src/**/*.py\n---\nx\n")
    findings = watch.lint_rule_file(project, bad)
    assert len(findings) == 1
    assert findings[0].startswith("error: 'globs:' is not read by Claude Code")
    assert "loads this rule at the start of every session" in findings[0]
    assert watch.lint_rule_file(project, good) == []


def test_a_rule_edit_goes_through_the_real_linter(project: Path, clock: FakeClock) -> None:
    project = project.resolve()
    location = resolve_memory_location(project, memory_dir=project / "memory")
    out: list[str] = []
    d = Dispatcher(
        WatchPaths(project, location.memory_dir),
        Settings(),
        watch.real_effects(location, project),
        clock=clock,
        debounce=DEBOUNCE,
        say=out.append,
    )
    rule = write_rule(project, "api.md", '---\npaths: "src/*.py", "lib/**"\n---\nbody\n')
    d.handle("modified", rule)
    run_due(d, clock)
    assert len(out) == 1
    assert out[0].startswith(".claude/rules/api.md: error: the frontmatter is not valid YAML")
    rule.write_text("---\npaths:\n  - src/*.py\n---\nbody\n")
    d.handle("modified", rule)
    run_due(d, clock)
    assert out[1].startswith(".claude/rules/api.md: ")  # fixed quoting; no file matches yet
    (project / "src").mkdir()
    (project / "src" / "a.py").write_text("")
    d.handle("modified", rule)
    run_due(d, clock)
    assert out[2] == ".claude/rules/api.md: ok"


# ------------------------------------------------------------------------------------------
# The real observer


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


class SharedOutput(io.StringIO):
    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()

    def write(self, text: str) -> int:
        with self._lock:
            return super().write(text)

    def text(self) -> str:
        with self._lock:
            return self.getvalue()


Running = tuple[threading.Event, SharedOutput, Path, list[int]]


@pytest.fixture
def watch_thread(project: Path, tmp_path: Path) -> Iterator[Running]:
    memory = tmp_path / "config" / "projects" / "-project" / "memory"
    stop = threading.Event()
    out = SharedOutput()
    codes: list[int] = []
    thread = threading.Thread(
        target=lambda: codes.append(
            watch.run_watch(project, memory_dir=memory, debounce=0.05, out=out, stop=stop)
        ),
        daemon=True,
    )
    thread.start()
    try:
        yield stop, out, memory, codes
    finally:
        stop.set()
        thread.join(timeout=30)
        assert not thread.is_alive(), "run_watch did not stop"


def test_real_observer_curates_memory_written_into_a_folder_created_after_the_start(
    watch_thread: Running,
) -> None:
    stop, out, memory, codes = watch_thread
    wait_for(lambda: "(Ctrl-C to stop)" in out.text(), "the watch to start")
    assert "does not exist yet" in out.text()
    # Claude Code creates the memory folder lazily, then writes MEMORY.md (over budget).
    memory.mkdir(parents=True)
    text = over_budget_memory()
    (memory / ".MEMORY.md.claude.tmp").write_text(text)
    os.replace(memory / ".MEMORY.md.claude.tmp", memory / "MEMORY.md")
    archive = memory / "decisions-archive.md"
    wait_for(archive.exists, "the archive to appear")
    wait_for(lambda: "curated MEMORY.md: moved 20 entries" in out.text(), "the curation line")
    assert "- [Claude note 4](note-4.md) — kept as is" in (memory / "MEMORY.md").read_text()
    assert archive.read_text().count("decision ") == 20
    stop.set()
    wait_for(lambda: codes == [0], "run_watch to return 0")
    lines = out.text().splitlines()
    assert lines[-1] == "stopped"
    assert sum("curated MEMORY.md" in line for line in lines) == 1  # our own write: no loop
    assert "Traceback" not in out.text()
