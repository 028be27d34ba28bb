"""pokayokay watch's decisions (pure of file-system watching): which raw events matter, debounce,
suppressing pokayokay's own writes, curating MEMORY.md, linting a changed rule and reloading
settings through injected effects, so it is tested with scripted events and a fake clock."""

from __future__ import annotations

import fnmatch
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pokayokay.errors import ConcurrentChangeError, PokayokayError, SettingsError
from pokayokay.infra import logs
from pokayokay.infra.locate import MEMORY_FILE_NAME
from pokayokay.infra.safe_write import LockTimeout
from pokayokay.memory.sections import Settings

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


RuleLinter = Callable[[Path, Path], list[str]]


RawEvent = tuple[EventKind, Path, bool]
