"""``pokayokay watch``: re-curate MEMORY.md when Claude writes it, lint rules when they change.

Two layers:

* :class:`Dispatcher` is the logic, with no watchdog in it. It is fed file-system events as
  ``(kind, path)``, reads time from an injected clock, and decides what to do and when: a burst of
  MEMORY.md events becomes one curation once the file has been quiet for ``debounce`` seconds; a
  rule file is linted; a settings file is reloaded. It also decides *which folders to watch*:
  the memory folder, or its nearest existing ancestor until Claude Code creates it. Every side
  effect (curating, linting, reading a file's hash, looking at a folder) goes through
  :class:`Effects`, so tests drive it with scripted events, a fake clock and fake effects.
* :func:`run_watch` is the glue: a watchdog observer whose events are queued and handed to the
  dispatcher on the main thread, the watches kept in line with what the dispatcher wants, and a
  clean stop on Ctrl-C, SIGTERM or a ``stop`` event.

pokayokay's own writes do not start a loop: after each curation the dispatcher remembers the hash
of the content it wrote (or found within budget) and ignores MEMORY.md events while the file still
holds exactly that. A curation that changes nothing writes nothing, so even without that check the
loop would end after one extra pass.
"""

from __future__ import annotations

import contextlib
import fnmatch
import hashlib
import os
import queue
import signal
import stat
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any, Literal, Protocol, TextIO

from pokayokay.errors import ConcurrentChangeError, PokayokayError, SettingsError
from pokayokay.infra import logs
from pokayokay.infra.git import list_project_files
from pokayokay.infra.locate import MEMORY_FILE_NAME, MemoryLocation
from pokayokay.infra.safe_write import LockTimeout
from pokayokay.memory.sections import Settings
from pokayokay.rules import lint

EventKind = Literal["created", "modified", "deleted", "moved_from", "moved_to"]
Target = Literal["memory", "rule", "settings", "folder"]

SETTINGS_GLOB = "pokayokay*.md"
# How long a curation waits for another pokayokay process (a hook) holding the lock. That process
# writes MEMORY.md when it is done, which is an event: we try again then.
LOCK_TIMEOUT = 2.0
# The main loop wakes at least this often to notice a ``stop`` event set by another thread.
POLL_SECONDS = 0.2
# And re-checks the watched folders this often, in case an event was missed (a folder replaced
# by a rename, which inotify does not report on the folder itself).
RESCAN_SECONDS = 5.0
# The watch reconciliation gives up chasing a folder that keeps appearing and vanishing.
MAX_RECONCILE_ROUNDS = 10


# --------------------------------------------------------------------------------------------
# What the dispatcher needs from the outside world


@dataclass(frozen=True)
class CurateReport:
    """What one curation did: the line to print, and the hash of the MEMORY.md content that is
    now known to be curated (what pokayokay wrote, or what it found within budget)."""

    message: str
    settled: str | None


@dataclass(frozen=True)
class Watch:
    """A folder to watch. ``ident`` is the folder's identity (device, inode) when it was planned:
    a folder deleted and recreated under the same name is a different watch."""

    path: Path
    recursive: bool
    ident: object = None


def _log(message: str, traceback_text: str) -> Path:
    return logs.log(message, traceback_text=traceback_text)


@dataclass
class Effects:
    """Every side effect of the dispatcher, replaceable in tests."""

    curate: Callable[[Settings], CurateReport]
    lint: Callable[[Path], list[str]]
    load_settings: Callable[[], Settings]
    digest: Callable[[Path], str | None]
    dir_id: Callable[[Path], object | None]
    rule_files: Callable[[Path], list[Path]]
    log: Callable[[str, str], Path] = _log


@dataclass(frozen=True)
class WatchPaths:
    project_dir: Path
    memory_dir: Path

    @property
    def memory_file(self) -> Path:
        return self.memory_dir / MEMORY_FILE_NAME

    @property
    def claude_dir(self) -> Path:
        return self.project_dir / ".claude"

    @property
    def rules_dir(self) -> Path:
        return self.claude_dir / "rules"


# --------------------------------------------------------------------------------------------
# The logic


class Dispatcher:
    """Decides what to do about each file-system event, and when.

    Single-threaded: call :meth:`handle` for each event, :meth:`tick` when :meth:`next_deadline`
    has passed, and keep the observer's watches equal to :attr:`watches`.
    """

    def __init__(
        self,
        paths: WatchPaths,
        settings: Settings,
        effects: Effects,
        *,
        clock: Callable[[], float] = time.monotonic,
        debounce: float = 0.5,
        say: Callable[[str], None] = print,
    ) -> None:
        self.paths = paths
        self.settings = settings
        self.effects = effects
        self.clock = clock
        self.debounce = debounce
        self.say = say
        self._memory_due: float | None = None
        self._settings_due: float | None = None
        self._rules_due: dict[Path, float] = {}
        # Hash of the MEMORY.md content known to be curated; events while the file still holds
        # it (our own write, a touch, Claude rewriting the same text) are ignored.
        self._settled: str | None = None
        self.watches: frozenset[Watch] = frozenset()
        self.memory_attached = False
        self.rules_attached = False
        self.replan(initial=True)

    # -- events ------------------------------------------------------------------------------

    def classify(self, path: Path) -> Target | None:
        """What ``path`` is to pokayokay, or ``None`` when its events are ignored."""
        if path == self.paths.memory_file:
            return "memory"
        if path.parent == self.paths.claude_dir and fnmatch.fnmatchcase(path.name, SETTINGS_GLOB):
            return "settings"
        try:
            inside = path.relative_to(self.paths.rules_dir)
        except ValueError:
            return None
        parts = inside.parts
        # Hidden names are editor droppings (.#x.md lock links, .x.md.swp) and pokayokay's own
        # temp files; only markdown files are rules.
        if parts and path.suffix == ".md" and not any(p.startswith(".") for p in parts):
            return "rule"
        return None

    def handle(self, kind: EventKind, path: Path, *, is_dir: bool = False) -> Target | None:
        """Take one event; returns what it was about (``None``: ignored)."""
        if is_dir:
            # A folder appeared or vanished: the memory folder, `.claude/rules`, or an ancestor.
            self.replan()
            return "folder"
        target = self.classify(path)
        now = self.clock()
        if target == "memory":
            if kind in ("created", "modified", "moved_to"):
                self._memory_due = now + self.debounce
                return target
            return None
        if target == "rule":
            if kind in ("created", "modified", "moved_to"):
                self._rules_due[path] = now + self.debounce
                return target
            self._rules_due.pop(path, None)  # removed before we got to it
            return None
        if target == "settings":
            self._settings_due = now + self.debounce  # a removed local file changes settings too
            return target
        return None

    def request_curation(self) -> None:
        """Check MEMORY.md at the next :meth:`tick` (at start: it may already be over budget)."""
        self._memory_due = self.clock()

    def next_deadline(self) -> float | None:
        dues = [d for d in (self._memory_due, self._settings_due) if d is not None]
        dues.extend(self._rules_due.values())
        return min(dues) if dues else None

    # -- acting ------------------------------------------------------------------------------

    def tick(self) -> None:
        """Do whatever is due: settings first (curation uses them), then rules, then MEMORY.md."""
        now = self.clock()
        if self._settings_due is not None and self._settings_due <= now:
            self._settings_due = None
            self._reload_settings()
        for path in sorted(p for p, due in self._rules_due.items() if due <= now):
            del self._rules_due[path]
            self._lint(path)
        if self._memory_due is not None and self._memory_due <= now:
            self._memory_due = None
            self._curate()

    def _curate(self) -> None:
        current = self.effects.digest(self.paths.memory_file)
        if current is None:
            return  # gone again (or unreadable): nothing to curate
        if current == self._settled:
            return  # our own write, or content already checked
        try:
            report = self.effects.curate(self.settings)
        except (ConcurrentChangeError, LockTimeout) as exc:
            # Someone else is writing: never fight them. Their write is an event; retry then.
            self.say(f"MEMORY.md not curated: {exc.message} (will try again on its next change)")
            return
        except PokayokayError as exc:
            self._settled = current  # same content, same refusal: say it once
            self.say(f"MEMORY.md not curated: {exc.message}")
            return
        except Exception as exc:
            self._settled = current
            where = self.effects.log("watch: curation failed", traceback.format_exc())
            self.say(
                f"MEMORY.md not curated: unexpected error ({type(exc).__name__}: {exc}); "
                f"details in {where}"
            )
            return
        self._settled = report.settled
        self.say(report.message)

    def _lint(self, path: Path) -> None:
        if self.effects.digest(path) is None:
            return  # removed (or replaced by a folder) before the debounce ran out
        shown = self._show(path)
        try:
            findings = self.effects.lint(path)
        except PokayokayError as exc:
            self.say(f"{shown}: could not lint: {exc.message}")
            return
        except Exception as exc:
            where = self.effects.log(f"watch: lint of {path} failed", traceback.format_exc())
            self.say(
                f"{shown}: could not lint: unexpected error ({type(exc).__name__}: {exc}); "
                f"details in {where}"
            )
            return
        if not findings:
            self.say(f"{shown}: ok")
        for finding in findings:
            self.say(f"{shown}: {finding}")

    def _reload_settings(self) -> None:
        try:
            settings = self.effects.load_settings()
        except SettingsError as exc:
            self.say(f"settings not reloaded: {exc.message} (keeping the last good settings)")
            return
        except Exception as exc:
            where = self.effects.log("watch: settings reload failed", traceback.format_exc())
            self.say(
                f"settings not reloaded: unexpected error ({type(exc).__name__}: {exc}); "
                f"details in {where} (keeping the last good settings)"
            )
            return
        for warning in settings.warnings:
            self.say(f"settings: warning: {warning}")
        if settings == self.settings:
            self.say("settings reloaded (no change)")
            return
        self.settings = settings
        self.say("settings reloaded")
        # Budgets may have changed: what was within budget may not be any more.
        self._settled = None
        self._memory_due = self.clock()

    def _show(self, path: Path) -> str:
        try:
            return path.relative_to(self.paths.project_dir).as_posix()
        except ValueError:
            return str(path)

    # -- what to watch -----------------------------------------------------------------------

    def _nearest(self, folder: Path) -> tuple[Path, object] | None:
        for candidate in (folder, *folder.parents):
            ident = self.effects.dir_id(candidate)
            if ident is not None:
                return candidate, ident
        return None

    def replan(self, *, initial: bool = False) -> bool:
        """Recompute :attr:`watches` from what exists now; True when they changed.

        The memory folder is watched itself once it exists, before that its nearest existing
        ancestor (Claude Code creates it lazily). ``.claude/`` is watched for the settings files
        and for ``rules/`` appearing; ``.claude/rules/`` recursively when it exists.
        """
        paths = self.paths
        wanted: set[Watch] = set()
        memory = self._nearest(paths.memory_dir)
        if memory is not None:
            wanted.add(Watch(memory[0], False, memory[1]))
        claude = self._nearest(paths.claude_dir)
        if claude is not None:
            wanted.add(Watch(claude[0], False, claude[1]))
        rules_id = self.effects.dir_id(paths.rules_dir)
        if rules_id is not None:
            wanted.add(Watch(paths.rules_dir, True, rules_id))
        new = frozenset(wanted)
        changed = new != self.watches
        self.watches = new

        attached = memory is not None and memory[0] == paths.memory_dir
        if attached != self.memory_attached and not initial:
            if attached:
                self.say(f"memory folder {paths.memory_dir} appeared: watching it")
                # MEMORY.md may have been written before the watch was in place.
                self._memory_due = self.clock() + self.debounce
            else:
                where = memory[0] if memory is not None else "nothing"
                self.say(
                    f"memory folder {paths.memory_dir} is gone: waiting for it to come back "
                    f"(watching {where})"
                )
        self.memory_attached = attached

        rules_attached = rules_id is not None
        if rules_attached and not self.rules_attached and not initial:
            # Rule files written before the recursive watch was in place: lint them now.
            due = self.clock() + self.debounce
            for rule in self.effects.rule_files(paths.rules_dir):
                if self.classify(rule) == "rule":
                    self._rules_due.setdefault(rule, due)
        self.rules_attached = rules_attached
        return changed


# --------------------------------------------------------------------------------------------
# Real effects


def file_digest(path: Path) -> str | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return hashlib.sha256(data).hexdigest()


def dir_identity(path: Path) -> object | None:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISDIR(st.st_mode) else None


def list_rule_files(rules_dir: Path) -> list[Path]:
    try:
        return sorted(p for p in rules_dir.rglob("*.md") if p.is_file())
    except OSError:
        return []


def curate_memory(location: MemoryLocation, settings: Settings) -> CurateReport:
    """Curate for real, and say in one line what happened."""
    from pokayokay.memory.apply import encode, run_curation
    from pokayokay.status import curation_lines

    outcome = run_curation(location, settings, write=True, lock_timeout=LOCK_TIMEOUT)
    result = outcome.result
    if result is None:
        return CurateReport(f"no MEMORY.md at {location.memory_file}", None)
    notes = "".join(f"; note: {note}" for note in result.notes)
    if outcome.written:
        changes = "; ".join(curation_lines(outcome)) or "archives brought up to date"
        message = f"curated MEMORY.md: {changes}{notes}"
        return CurateReport(message, hashlib.sha256(encode(result.text)).hexdigest())
    settled = hashlib.sha256(encode(result.original)).hexdigest()
    return CurateReport(f"MEMORY.md within budget{notes}", settled)


RuleLinter = Callable[[Path, Path], list[str]]
"""``(project_dir, rule_file) -> messages``: what Claude Code would mis-load in that one file."""


def lint_rule_file(project_dir: Path, rule_file: Path) -> list[str]:
    """:mod:`pokayokay.rules.files`' lint of one rule file, as ``"<severity>: <message>"`` lines."""
    from pokayokay.rules import files as rules

    rule_path = rule_file.relative_to(rules.rules_dir(project_dir)).as_posix()
    rule = rules.read_rule(project_dir, rule_file, rule_path)
    findings = lint.lint_rule(rule, list_project_files(project_dir))
    return [f"{finding.severity}: {finding.message}" for finding in findings]


def real_effects(
    location: MemoryLocation, project_dir: Path, lint_rules: RuleLinter = lint_rule_file
) -> Effects:
    from pokayokay.config.settings import load_settings

    return Effects(
        curate=lambda settings: curate_memory(location, settings),
        lint=lambda path: lint_rules(project_dir, path),
        load_settings=lambda: load_settings(project_dir),
        digest=file_digest,
        dir_id=dir_identity,
        rule_files=list_rule_files,
    )


# --------------------------------------------------------------------------------------------
# watchdog glue


RawEvent = tuple[EventKind, Path, bool]


def translate(event: Any) -> list[RawEvent]:
    """A watchdog event as ``(kind, path, is_dir)`` tuples; a move is a ``moved_from`` and a
    ``moved_to``. Opens, closes, attribute changes and folder "modified" events are dropped:
    reading MEMORY.md must never look like a change to it."""
    kind = getattr(event, "event_type", "")
    is_dir = bool(getattr(event, "is_directory", False))
    src = _as_path(getattr(event, "src_path", ""))
    if kind == "moved":
        dest = _as_path(getattr(event, "dest_path", ""))
        out: list[RawEvent] = []
        if src is not None:
            out.append(("moved_from", src, is_dir))
        if dest is not None:
            out.append(("moved_to", dest, is_dir))
        return out
    if src is None or (kind == "modified" and is_dir):
        return []
    if kind == "created":
        return [("created", src, is_dir)]
    if kind == "modified":
        return [("modified", src, is_dir)]
    if kind == "deleted":
        return [("deleted", src, is_dir)]
    return []


def _as_path(value: object) -> Path | None:
    if isinstance(value, bytes):
        value = os.fsdecode(value)
    if isinstance(value, str) and value:
        return Path(value)
    return None


class Forwarder:
    """The watchdog event handler: turns events into tuples on a queue, read by the main
    thread (the observer thread never runs pokayokay logic)."""

    def __init__(self, events: queue.Queue[RawEvent]) -> None:
        self.events = events

    def dispatch(self, event: Any) -> None:
        for item in translate(event):
            self.events.put(item)


class ObserverLike(Protocol):
    def schedule(
        self, event_handler: Any, path: str, *, recursive: bool = ..., event_filter: Any = ...
    ) -> Any: ...

    def unschedule(self, watch: Any) -> None: ...

    def start(self) -> None: ...

    def stop(self) -> None: ...

    def join(self, timeout: float | None = ...) -> None: ...


def default_observer() -> ObserverLike:
    from watchdog.observers import Observer

    observer: ObserverLike = Observer()
    return observer


def _event_filter() -> list[Any]:
    from watchdog.events import (
        DirCreatedEvent,
        DirDeletedEvent,
        DirMovedEvent,
        FileCreatedEvent,
        FileDeletedEvent,
        FileModifiedEvent,
        FileMovedEvent,
    )

    return [
        FileCreatedEvent,
        FileModifiedEvent,
        FileDeletedEvent,
        FileMovedEvent,
        DirCreatedEvent,
        DirDeletedEvent,
        DirMovedEvent,
    ]


def reconcile(
    observer: ObserverLike,
    handler: Any,
    scheduled: dict[Watch, Any],
    wanted: frozenset[Watch],
    event_filter: Any = None,
) -> dict[Watch, OSError]:
    """Make the observer's watches ``wanted`` (``scheduled`` is updated in place).

    Stale watches go first (a recreated folder has the same path as its stale watch). Returns
    the watches that could not be set up: a folder that vanished meanwhile (re-plan and call
    again), or a system limit (the inotify watch limit).
    """
    for watch in [w for w in scheduled if w not in wanted]:
        handle = scheduled.pop(watch)
        with contextlib.suppress(KeyError, OSError):  # already gone with its folder
            observer.unschedule(handle)
    failed: dict[Watch, OSError] = {}
    for watch in sorted(wanted - scheduled.keys(), key=lambda w: (str(w.path), w.recursive)):
        try:
            scheduled[watch] = observer.schedule(
                handler, str(watch.path), recursive=watch.recursive, event_filter=event_filter
            )
        except OSError as exc:
            failed[watch] = exc
    return failed


class _Watches:
    """Keeps the observer's watches in line with the dispatcher's plan."""

    def __init__(
        self, observer: ObserverLike, handler: Any, dispatcher: Dispatcher, event_filter: Any
    ) -> None:
        self.observer = observer
        self.handler = handler
        self.dispatcher = dispatcher
        self.event_filter = event_filter
        self.scheduled: dict[Watch, Any] = {}
        self.failed: dict[Watch, OSError] = {}
        self._reported: set[Watch] = set()

    def in_line(self) -> bool:
        return set(self.scheduled) | set(self.failed) == self.dispatcher.watches

    def sync(self) -> None:
        for _ in range(MAX_RECONCILE_ROUNDS):
            self.failed = reconcile(
                self.observer,
                self.handler,
                self.scheduled,
                self.dispatcher.watches,
                self.event_filter,
            )
            # A folder may have appeared (or vanished) while the watches were being set up,
            # with no watch in place to see it: look again until nothing moves.
            if not self.dispatcher.replan():
                break
        for watch, exc in self.failed.items():
            if watch not in self._reported and self.dispatcher.effects.dir_id(watch.path):
                self._reported.add(watch)
                self.dispatcher.say(
                    f"cannot watch {watch.path}: {exc.strerror or exc} "
                    f"(will try again in {RESCAN_SECONDS:g} s)"
                )

    def retry_failed(self) -> None:
        self.failed = {}


class _Terminated(BaseException):
    """SIGTERM, raised in the main thread like KeyboardInterrupt."""


def run_watch(
    project_dir: Path,
    *,
    memory_dir: Path | None = None,
    debounce: float = 0.5,
    out: TextIO | None = None,
    observer_factory: Callable[[], ObserverLike] = default_observer,
    clock: Callable[[], float] = time.monotonic,
    stop: threading.Event | None = None,
    lint_rules: RuleLinter = lint_rule_file,
    effects: Effects | None = None,
) -> int:
    """Watch until Ctrl-C, SIGTERM or ``stop`` is set; returns the exit code (0).

    ``memory_dir`` replaces the resolved auto-memory folder (``--memory-dir``); ``debounce`` is
    the quiet period in seconds before acting on a burst of events. ``out`` receives one line
    per action. ``observer_factory``, ``clock``, ``lint_rules`` and ``effects`` are for tests
    (a fake observer, a fake clock, a rule linter, every side effect at once); ``stop`` ends the
    watch from another thread within :data:`POLL_SECONDS`.

    Raises :class:`SettingsError` when the settings are bad at start (later, a bad edit keeps
    the last good settings) and :class:`PokayokayError` for a bad ``debounce``.
    """
    from pokayokay.config.settings import load_settings
    from pokayokay.infra.locate import resolve_memory_location

    if not 0 <= debounce < 3600:
        raise PokayokayError(f"--debounce {debounce}: expected a number of seconds from 0 to 3600")
    stream = sys.stdout if out is None else out
    stop_event = threading.Event() if stop is None else stop

    def say(line: str) -> None:
        stream.write(line + "\n")
        stream.flush()

    project = Path(os.path.realpath(project_dir))
    location = resolve_memory_location(project, memory_dir=memory_dir)
    settings = load_settings(project)
    for warning in settings.warnings:
        say(f"settings: warning: {warning}")
    paths = WatchPaths(project, location.memory_dir)
    dispatcher = Dispatcher(
        paths,
        settings,
        effects or real_effects(location, project, lint_rules),
        clock=clock,
        debounce=debounce,
        say=say,
    )
    events: queue.Queue[RawEvent] = queue.Queue()
    observer = observer_factory()
    watches = _Watches(observer, Forwarder(events), dispatcher, _event_filter())
    started = False
    previous_term = _install_sigterm()
    try:
        observer.start()
        started = True
        watches.sync()
        say(f"watching {paths.memory_file} and {paths.rules_dir} (Ctrl-C to stop)")
        if not dispatcher.memory_attached:
            say(
                f"memory folder {paths.memory_dir} does not exist yet: waiting for Claude Code "
                "to create it"
            )
        dispatcher.request_curation()
        next_rescan = clock() + RESCAN_SECONDS
        while not stop_event.is_set():
            dispatcher.tick()
            wake = min(d for d in (dispatcher.next_deadline(), next_rescan) if d is not None)
            timeout = max(0.0, min(wake - clock(), POLL_SECONDS))
            for kind, path, is_dir in _drain(events, timeout):
                dispatcher.handle(kind, path, is_dir=is_dir)
            if clock() >= next_rescan:
                dispatcher.replan()
                watches.retry_failed()
                next_rescan = clock() + RESCAN_SECONDS
            if not watches.in_line():
                watches.sync()
    except (KeyboardInterrupt, _Terminated):
        pass
    finally:
        try:
            observer.stop()
            if started:
                observer.join(timeout=10)
        finally:
            _restore_sigterm(previous_term)
    say("stopped")
    return 0


def _drain(events: queue.Queue[RawEvent], timeout: float) -> list[RawEvent]:
    """Wait up to ``timeout`` for one event, then take every event already queued."""
    try:
        batch = [events.get(timeout=timeout)]
    except queue.Empty:
        return []
    while True:
        try:
            batch.append(events.get_nowait())
        except queue.Empty:
            return batch


_NOT_INSTALLED = object()


def _install_sigterm() -> object:
    """SIGTERM stops the watch like Ctrl-C (only possible from the main thread). Returns the
    previous handler, or ``_NOT_INSTALLED``."""
    if threading.current_thread() is not threading.main_thread():
        return _NOT_INSTALLED

    def on_term(signum: int, frame: FrameType | None) -> None:
        raise _Terminated

    return signal.signal(signal.SIGTERM, on_term)


def _restore_sigterm(previous: object) -> None:
    if previous is not _NOT_INSTALLED:
        handler: Any = signal.SIG_DFL if previous is None else previous
        signal.signal(signal.SIGTERM, handler)
