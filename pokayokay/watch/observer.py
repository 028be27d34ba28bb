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
import os
import queue
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any, Protocol, TextIO

from pokayokay.errors import PokayokayError
from pokayokay.watch.dispatcher import (
    MAX_RECONCILE_ROUNDS,
    POLL_SECONDS,
    RESCAN_SECONDS,
    Dispatcher,
    Effects,
    RawEvent,
    RuleLinter,
    Watch,
    WatchPaths,
)
from pokayokay.watch.effects import lint_rule_file, real_effects

# --------------------------------------------------------------------------------------------
# What the dispatcher needs from the outside world


# --------------------------------------------------------------------------------------------
# The logic


# --------------------------------------------------------------------------------------------
# Real effects


"""``(project_dir, rule_file) -> messages``: what Claude Code would mis-load in that one file."""


# --------------------------------------------------------------------------------------------
# watchdog glue


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
    """SIGTERM or SIGHUP, raised in the main thread like KeyboardInterrupt."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


# Signals that end the watch cleanly (said and logged), and the ones it ignores while it runs:
# a closed terminal (SIGHUP) used to end it without a word; SIGIO, which a lease broken by
# another process's open would raise by default (``infra.safe_write`` asks for SIGURG instead,
# ignored), kills by default: never from the watch.
STOP_SIGNALS: tuple[int, ...] = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)
)
IGNORED_SIGNALS: tuple[int, ...] = tuple(
    getattr(signal, name) for name in ("SIGIO",) if hasattr(signal, name)
)


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
    previous_handlers = _install_signal_handlers()
    why = "stopped"
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
    except KeyboardInterrupt:
        pass  # Ctrl-C: a normal stop
    except _Terminated as exc:
        why = f"stopped by {signal.Signals(exc.signum).name}"
    except BaseException as exc:
        # Never silently: the reason on the terminal and the traceback in the log, then the
        # CLI's error boundary gives the exit code.
        from pokayokay.infra.logs import log_exception

        path = log_exception(f"watch of {project} stopped", exc)
        with contextlib.suppress(OSError, ValueError):  # no terminal: the log has it
            say(f"stopped: {type(exc).__name__}: {exc} (details: {path})")
        raise
    finally:
        try:
            observer.stop()
            if started:
                observer.join(timeout=10)
        finally:
            _restore_signal_handlers(previous_handlers)
    from pokayokay.infra.logs import log

    log(f"watch of {project} {why}")
    say(why)
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


def _install_signal_handlers() -> dict[int, object]:
    """SIGTERM and SIGHUP stop the watch like Ctrl-C, SIGIO is ignored (only possible from the
    main thread). Returns the previous handlers, to put back."""
    if threading.current_thread() is not threading.main_thread():
        return {}

    def on_stop(signum: int, frame: FrameType | None) -> None:
        raise _Terminated(signum)

    previous: dict[int, object] = {}
    for signum in STOP_SIGNALS:
        previous[signum] = signal.signal(signum, on_stop)
    for signum in IGNORED_SIGNALS:
        previous[signum] = signal.signal(signum, signal.SIG_IGN)
    return previous


def _restore_signal_handlers(previous: dict[int, object]) -> None:
    for signum, handler in previous.items():
        wanted: Any = signal.SIG_DFL if handler is None else handler
        signal.signal(signum, wanted)
