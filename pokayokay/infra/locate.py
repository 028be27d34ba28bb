"""Where Claude Code keeps a project's auto memory (the folder holding MEMORY.md).

The rules follow Claude Code 2.1.330 (interfaces doc §2.4):

* the folder is ``<config>/projects/<slug>/memory/``, ``<config>`` being ``$CLAUDE_CONFIG_DIR`` or
  ``~/.claude``;
* the slug is computed from the *canonical git root* (the main worktree's root, shared by every
  subfolder and linked worktree), or from the project folder outside git — never from the launch
  folder, which only keys transcripts;
* ``CLAUDE_CODE_PROJECT_DIR_NAME`` (together with ``CLAUDE_CONFIG_DIR``) replaces the slug;
* ``autoMemoryDirectory`` in managed, local, shared-project or user settings replaces the folder.

The rules themselves live in :mod:`pokayokay.infra.location_rules`, over plain strings (the
prompt hook resolves there, without pathlib); this module gives their answer as paths, with the
candidate list ``pokayokay doctor`` prints. Nothing spawns a process: hooks call it on every
event.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from pokayokay.infra import location_rules as rules
from pokayokay.infra.location_rules import (
    MEMORY_FILE_NAME,
    SLUG_MAX_LENGTH,
    base36,
    js_string_hash,
    slugify,
)

__all__ = [
    "MEMORY_FILE_NAME",
    "SLUG_MAX_LENGTH",
    "Candidate",
    "MemoryLocation",
    "base36",
    "claude_config_dir",
    "find_git_root",
    "find_git_toplevel",
    "js_string_hash",
    "managed_settings_path",
    "memory_location_for",
    "resolve_memory_location",
    "slugify",
]


# --------------------------------------------------------------------------------------------
# Git root, without spawning git


def find_git_toplevel(start: Path) -> Path | None:
    """The nearest folder at or above ``start`` holding a ``.git`` folder or file, else ``None``.

    For a linked worktree or a submodule this is its own working tree (what
    ``git rev-parse --show-toplevel`` prints), not the main worktree. ``GIT_DIR``,
    ``GIT_WORK_TREE`` and ``GIT_CEILING_DIRECTORIES`` are deliberately ignored: Claude Code walks
    the file system the same way, and a bare repository entered without a ``.git`` (only usable
    through ``GIT_DIR``) therefore counts as "not in git" there too.
    """
    found = rules.git_toplevel(start)
    return None if found is None else Path(found)


def find_git_root(start: Path) -> Path | None:
    """The canonical git root for ``start``: the main worktree's root, or ``None`` outside git.

    A subfolder of a repository and a linked worktree (``git worktree add``) both give the main
    worktree's root, matching the parent of ``git rev-parse --git-common-dir``. A submodule gives
    its own working tree. No ``git`` process is spawned.
    """
    toplevel = rules.git_toplevel(start)
    if toplevel is None:
        return None
    return Path(rules.canonical_root(toplevel))


# --------------------------------------------------------------------------------------------
# Config folder and settings


def claude_config_dir(environ: Mapping[str, str] | None = None) -> Path:
    """``$CLAUDE_CONFIG_DIR`` when set (and not empty), else ``~/.claude``.

    The value is used as given (no ``~`` expansion), as Claude Code does.
    """
    return Path(rules.config_dir(environ))


def managed_settings_path() -> Path:
    """Where the managed policy settings file lives on this platform (Linux verified)."""
    return Path(rules.managed_settings_file())


class _Record:
    """A small immutable record. Plain classes instead of dataclasses: this module is imported
    by every hook, and building dataclasses at import time costs milliseconds."""

    __slots__: tuple[str, ...] = ()

    def __init__(self, *values: object) -> None:
        for name, value in zip(self.__slots__, values, strict=True):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in self.__slots__)

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, n) for n in self.__slots__))

    def __repr__(self) -> str:
        fields = ", ".join(f"{n}={getattr(self, n)!r}" for n in self.__slots__)
        return f"{type(self).__name__}({fields})"


class Candidate(_Record):
    """One place the memory folder could come from, as ``pokayokay doctor`` lists it."""

    __slots__ = ("label", "path", "used", "note")
    label: str
    path: Path | None
    used: bool
    note: str

    def __init__(self, label: str, path: Path | None, used: bool, note: str) -> None:
        super().__init__(label, path, used, note)


class MemoryLocation(_Record):
    """The resolved auto-memory folder of one project, with everything that was considered."""

    __slots__ = (
        "memory_dir",
        "project_dir",
        "project_key",
        "config_dir",
        "source",
        "candidates",
        "problems",
    )
    memory_dir: Path
    project_dir: Path
    project_key: Path
    config_dir: Path
    source: str
    candidates: tuple[Candidate, ...]
    problems: tuple[str, ...]

    def __init__(
        self,
        memory_dir: Path,
        project_dir: Path,
        project_key: Path,
        config_dir: Path,
        source: str,
        candidates: tuple[Candidate, ...],
        problems: tuple[str, ...],
    ) -> None:
        super().__init__(
            memory_dir, project_dir, project_key, config_dir, source, candidates, problems
        )

    @property
    def memory_file(self) -> Path:
        return self.memory_dir / MEMORY_FILE_NAME


def resolve_memory_location(
    project_dir: Path,
    *,
    memory_dir: Path | None = None,
    environ: Mapping[str, str] | None = None,
    managed_settings: Path | None = None,
) -> MemoryLocation:
    """Find the auto-memory folder Claude Code uses when launched in ``project_dir``.

    Precedence, highest first: ``memory_dir`` (the CLI's ``--memory-dir``), then
    ``autoMemoryDirectory`` from managed policy, local project, shared project and user settings
    (an unusable value falls through to the next file), then ``CLAUDE_CODE_PROJECT_DIR_NAME``,
    then the default keyed by the git root. ``managed_settings`` replaces the platform's managed
    settings path (for tests). Never raises on bad settings: they are reported in ``problems``.
    """
    found = rules.resolve(
        project_dir,
        memory_dir=None if memory_dir is None else os.fspath(memory_dir),
        environ=environ,
        managed_settings=None if managed_settings is None else os.fspath(managed_settings),
    )
    candidates = tuple(
        Candidate(
            option.label,
            None if option.path is None else Path(option.path),
            index == found.winner,
            option.note,
        )
        for index, option in enumerate(found.options)
    )
    return MemoryLocation(
        memory_dir=Path(found.memory_dir),
        project_dir=Path(found.launch),
        project_key=Path(found.project_key),
        config_dir=Path(found.config_dir),
        source=found.options[found.winner].source,
        candidates=candidates,
        problems=tuple(found.problems),
    )


def memory_location_for(project: Path) -> MemoryLocation:
    """The memory location of ``project`` for hooks and the code they run: Claude Code's rule,
    or ``$POKAYOKAY_MEMORY_DIR`` when set
    (:func:`~pokayokay.infra.location_rules.memory_dir_override`)."""
    override = rules.memory_dir_override()
    return resolve_memory_location(project, memory_dir=Path(override) if override else None)
