"""Where Claude Code keeps a project's auto memory (the folder holding MEMORY.md).

The rules follow Claude Code 2.1.330 (interfaces doc §2.4):

* the folder is ``<config>/projects/<slug>/memory/``, ``<config>`` being ``$CLAUDE_CONFIG_DIR`` or
  ``~/.claude``;
* the slug is computed from the *canonical git root* (the main worktree's root, shared by every
  subfolder and linked worktree), or from the project folder outside git — never from the launch
  folder, which only keys transcripts;
* ``CLAUDE_CODE_PROJECT_DIR_NAME`` (together with ``CLAUDE_CONFIG_DIR``) replaces the slug;
* ``autoMemoryDirectory`` in managed, local, shared-project or user settings replaces the folder.

Everything here is a function of its arguments and the file system; nothing spawns a process,
because hooks call it on every event.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

SLUG_MAX_LENGTH = 200
MEMORY_FILE_NAME = "MEMORY.md"

_NOT_SLUG_SAFE = re.compile(r"[^A-Za-z0-9]")
_PROJECT_DIR_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
_BASE36_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
# A `.git` file holds one short line; never read more than this from it or from `commondir`.
_GIT_POINTER_MAX_BYTES = 4096


# --------------------------------------------------------------------------------------------
# Slug


def _utf16_code_units(text: str) -> Iterator[int]:
    """The UTF-16 code units JavaScript sees for ``text`` (a non-BMP character is a pair)."""
    for char in text:
        point = ord(char)
        if point > 0xFFFF:
            point -= 0x10000
            yield 0xD800 | (point >> 10)
            yield 0xDC00 | (point & 0x3FF)
        else:
            # Includes lone surrogates (e.g. from surrogateescape-decoded file names): one unit.
            yield point


def js_string_hash(text: str) -> int:
    """``h = ((h << 5) - h + charCodeAt(i)) | 0`` over ``text``, as a signed 32-bit integer."""
    value = 0
    for unit in _utf16_code_units(text):
        # (h << 5) - h == h * 31; working modulo 2**32 throughout gives the same bits as `| 0`.
        value = (value * 31 + unit) & 0xFFFFFFFF
    return value - 0x1_0000_0000 if value & 0x8000_0000 else value


def _base36(number: int) -> str:
    if number < 0:
        raise ValueError("base36 of a negative number")
    digits: list[str] = []
    while True:
        number, remainder = divmod(number, 36)
        digits.append(_BASE36_DIGITS[remainder])
        if number == 0:
            return "".join(reversed(digits))


def _slug_replacement(match: re.Match[str]) -> str:
    # JS regexes match UTF-16 code units, so a character outside the BMP yields two dashes.
    return "--" if ord(match.group()) > 0xFFFF else "-"


def slugify(path: str | os.PathLike[str]) -> str:
    """Claude Code's project folder name for ``path`` (an absolute path).

    Every character outside ``[A-Za-z0-9]`` becomes ``-``; a result over 200 characters is cut
    to 200 and given ``-`` + base36(|JS string hash of the raw path|).
    """
    text = os.fspath(path)
    slug = _NOT_SLUG_SAFE.sub(_slug_replacement, text)
    if len(slug) <= SLUG_MAX_LENGTH:
        return slug
    return f"{slug[:SLUG_MAX_LENGTH]}-{_base36(abs(js_string_hash(text)))}"


# --------------------------------------------------------------------------------------------
# Git root, without spawning git


def _git_marker_kind(candidate: str) -> str | None:
    """``"dir"`` or ``"file"`` when ``candidate`` (a ``.git`` path) is one, else ``None``.

    ``os.stat`` follows symlinks, as git does for a symlinked ``.git``. A ``.git`` we cannot stat
    (permissions) does not mark a repository: the walk goes on upwards, as Claude Code's does.
    """
    try:
        mode = os.stat(candidate).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISDIR(mode):
        return "dir"
    if stat.S_ISREG(mode):
        return "file"
    return None


def find_git_toplevel(start: Path) -> Path | None:
    """The nearest folder at or above ``start`` holding a ``.git`` folder or file, else ``None``.

    For a linked worktree or a submodule this is its own working tree (what
    ``git rev-parse --show-toplevel`` prints), not the main worktree. ``GIT_DIR``,
    ``GIT_WORK_TREE`` and ``GIT_CEILING_DIRECTORIES`` are deliberately ignored: Claude Code walks
    the file system the same way, and a bare repository entered without a ``.git`` (only usable
    through ``GIT_DIR``) therefore counts as "not in git" there too.
    """
    current = os.path.realpath(start)
    while True:
        if _git_marker_kind(os.path.join(current, ".git")) is not None:
            return Path(current)
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def _read_small_text(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            data = handle.read(_GIT_POINTER_MAX_BYTES)
    except (OSError, ValueError):
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _gitdir_of(toplevel: str) -> str | None:
    """The git dir a ``.git`` file points to (``gitdir: <path>``), or ``None`` if unusable."""
    text = _read_small_text(os.path.join(toplevel, ".git"))
    if text is None:
        return None
    lines = text.splitlines()
    first = lines[0].strip() if lines else ""
    if not first.startswith("gitdir:"):
        return None
    target = first[len("gitdir:") :].strip()
    if not target:
        return None
    # A relative gitdir is relative to the folder holding the `.git` file.
    return os.path.normpath(os.path.join(toplevel, target))


def _canonical_root(toplevel: str) -> str:
    """The main worktree's root for the working tree at ``toplevel``.

    Every unreadable or unexpected layout falls back to ``toplevel`` itself: memory then stays
    with the working tree the user is in, which is the least surprising place to look.
    """
    if _git_marker_kind(os.path.join(toplevel, ".git")) != "file":
        return toplevel  # an ordinary repository (or a `.git` that vanished meanwhile)
    gitdir = _gitdir_of(toplevel)
    if gitdir is None:
        return toplevel  # unreadable or malformed `.git` file
    commondir_text = _read_small_text(os.path.join(gitdir, "commondir"))
    if commondir_text is None:
        # No `commondir`: a submodule (`<super>/.git/modules/<name>`) or a `--separate-git-dir`
        # checkout. Either way the working tree holding the `.git` file is the root.
        return toplevel
    lines = commondir_text.splitlines()
    common_rel = lines[0].strip() if lines else ""
    if not common_rel:
        return toplevel
    # `commondir` is relative to the gitdir (normally `../..`); resolved lexically like git.
    common = os.path.normpath(os.path.join(gitdir, common_rel))
    # Safety guards for a `.git` file that points into some other repository's git dir (a
    # checked-in `.git` file could otherwise make two unrelated projects share one memory):
    # a real linked worktree lives at `<common>/worktrees/<name>`, and its `gitdir` file points
    # back at this working tree's `.git`. When either check fails we keep `toplevel`.
    if os.path.dirname(gitdir) != os.path.join(common, "worktrees"):
        return toplevel
    backlink = _read_small_text(os.path.join(gitdir, "gitdir"))
    if backlink is None or not backlink.strip():
        return toplevel
    backlink_path = os.path.normpath(os.path.join(gitdir, backlink.strip()))
    if os.path.realpath(backlink_path) != os.path.join(os.path.realpath(toplevel), ".git"):
        return toplevel
    if os.path.basename(common) == ".git":
        return os.path.dirname(common)
    # A worktree of a bare repository (`<x>.git`): there is no main working tree, so the bare
    # repository folder itself is the one path every worktree of it shares. We believe Claude
    # Code keys memory the same way; this layout was not tested against the CLI.
    return common


def find_git_root(start: Path) -> Path | None:
    """The canonical git root for ``start``: the main worktree's root, or ``None`` outside git.

    A subfolder of a repository and a linked worktree (``git worktree add``) both give the main
    worktree's root, matching the parent of ``git rev-parse --git-common-dir``. A submodule gives
    its own working tree. No ``git`` process is spawned.
    """
    toplevel = find_git_toplevel(start)
    if toplevel is None:
        return None
    return Path(_canonical_root(str(toplevel)))


# --------------------------------------------------------------------------------------------
# Config folder and settings


def _environ(environ: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if environ is None else environ


def _home(env: Mapping[str, str]) -> Path:
    home = env.get("HOME")
    return Path(home) if home else Path.home()


def claude_config_dir(environ: Mapping[str, str] | None = None) -> Path:
    """``$CLAUDE_CONFIG_DIR`` when set (and not empty), else ``~/.claude``.

    The value is used as given (no ``~`` expansion), as Claude Code does.
    """
    env = _environ(environ)
    configured = env.get("CLAUDE_CONFIG_DIR")
    if configured:
        return Path(configured)
    return _home(env) / ".claude"


def managed_settings_path() -> Path:
    """Where the managed policy settings file lives on this platform (Linux verified)."""
    if sys.platform == "darwin":
        return Path("/Library/Application Support/ClaudeCode/managed-settings.json")
    if sys.platform == "win32":
        return Path(r"C:\Program Files\ClaudeCode\managed-settings.json")
    return Path("/etc/claude-code/managed-settings.json")


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


class _Option(_Record):
    """A candidate before we know which one wins; ``path`` is set only when it is usable."""

    __slots__ = ("label", "source", "path", "note", "eligible")
    label: str
    source: str
    path: Path | None
    note: str
    eligible: bool

    def __init__(
        self, label: str, source: str, path: Path | None, note: str, eligible: bool
    ) -> None:
        super().__init__(label, source, path, note, eligible)


def _expand_auto_memory_directory(value: str, home: Path) -> tuple[Path | None, str]:
    """The folder an ``autoMemoryDirectory`` value names, or ``None`` and why it is ignored."""
    if "\0" in value:
        return None, "contains a NUL character"
    if value == "~" or value.startswith(("~/", "~" + os.sep)):
        home_text = os.path.normpath(str(home))
        expanded = os.path.normpath(os.path.join(home_text, value[2:]))
        if expanded == home_text or home_text.startswith(expanded.rstrip(os.sep) + os.sep):
            # Claude Code refuses a value naming the whole home folder (or above).
            return None, "names the home folder itself or one above it"
        return Path(expanded), ""
    if not os.path.isabs(value):
        return None, "is not an absolute path or ~/…; Claude Code ignores relative values"
    normalized = os.path.normpath(value)
    if os.path.dirname(normalized) == normalized:
        return None, "names the file system root"
    return Path(normalized), ""


def _settings_option(kind: str, settings_file: Path, home: Path, problems: list[str]) -> _Option:
    label = f"autoMemoryDirectory in {settings_file} ({kind})"
    source = f"autoMemoryDirectory in {settings_file}"

    def unusable(note: str, problem: str | None = None) -> _Option:
        if problem is not None:
            problems.append(problem)
        return _Option(label, source, None, note, eligible=False)

    from pokayokay.infra.regular import read_regular

    try:
        raw = read_regular(settings_file)
    except (FileNotFoundError, NotADirectoryError):
        return unusable("file not found")
    except OSError as error:
        reason = error.strerror or type(error).__name__
        return unusable("unreadable", f"{settings_file}: cannot be read ({reason}); skipped")
    try:
        # utf-8-sig by hand: one leading BOM dropped (the codec is one more import per prompt)
        text = (raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw).decode("utf-8")
    except UnicodeDecodeError:
        return unusable("not UTF-8", f"{settings_file}: not valid UTF-8; skipped")
    try:
        data: object = json.loads(text)
    except json.JSONDecodeError as error:
        return unusable(
            "invalid JSON",
            f"{settings_file}: invalid JSON (line {error.lineno}, column {error.colno}: "
            f"{error.msg}); skipped",
        )
    if not isinstance(data, dict):
        return unusable(
            "not a JSON object",
            f"{settings_file}: holds a JSON {type(data).__name__}, not an object; skipped",
        )
    if "autoMemoryDirectory" not in data:
        return unusable("not set")
    value: object = data["autoMemoryDirectory"]
    if not isinstance(value, str):
        return unusable(
            f"ignored: not a string ({value!r})",
            f"{settings_file}: autoMemoryDirectory must be a string, not {value!r}; ignored",
        )
    if not value:
        return unusable("set to an empty string (same as not set)")
    path, reason = _expand_auto_memory_directory(value, home)
    if path is None:
        return unusable(
            f"{value!r} ignored: {reason}",
            f"{settings_file}: autoMemoryDirectory {value!r} {reason}; ignored",
        )
    return _Option(label, source, path, f"set to {value!r}", eligible=True)


def _project_dir_name_option(
    env: Mapping[str, str], config_dir: Path, problems: list[str]
) -> _Option:
    label = source = "CLAUDE_CODE_PROJECT_DIR_NAME"
    name = env.get("CLAUDE_CODE_PROJECT_DIR_NAME")
    if not name:
        return _Option(label, source, None, "not set", eligible=False)
    if not env.get("CLAUDE_CONFIG_DIR"):
        problems.append(
            f"CLAUDE_CODE_PROJECT_DIR_NAME={name!r} is ignored: Claude Code honours it only "
            "together with CLAUDE_CONFIG_DIR"
        )
        return _Option(
            label, source, None, f"{name!r} ignored: CLAUDE_CONFIG_DIR is not set", eligible=False
        )
    if _PROJECT_DIR_NAME.fullmatch(name) is None:
        problems.append(
            f"CLAUDE_CODE_PROJECT_DIR_NAME={name!r} is ignored: it must be 1-64 characters "
            "from A-Z a-z 0-9 _ -"
        )
        return _Option(label, source, None, f"{name!r} ignored: invalid name", eligible=False)
    return _Option(
        label, source, config_dir / "projects" / name / "memory", f"set to {name!r}", eligible=True
    )


def _default_memory_dir(config_dir: Path, key: Path) -> tuple[Path, str]:
    """``<config>/projects/<slug(key)>/memory`` and a note on how it was found.

    For a slug over 200 characters the hash suffix depends on the runtime: Claude Code's
    Bun-built binary is believed to use a different string hash than its Node package (not
    verified). When our folder does not exist but exactly one folder with the same 200-character
    prefix holds a ``memory`` folder, that one is the project's.
    """
    projects = config_dir / "projects"
    slug = slugify(str(key))
    computed = projects / slug / "memory"
    if len(slug) <= SLUG_MAX_LENGTH or computed.is_dir():
        return computed, f"projects/<slug of {key}>/memory"
    prefix = slug[: SLUG_MAX_LENGTH + 1]
    try:
        siblings = [
            entry
            for entry in os.scandir(projects)
            if entry.name.startswith(prefix) and entry.name != slug
        ]
    except OSError:
        siblings = []
    matches = [
        Path(entry.path) / "memory" for entry in siblings if (Path(entry.path) / "memory").is_dir()
    ]
    if len(matches) == 1:
        return matches[0], (
            f"projects/<slug of {key}>/memory; long path: found the existing "
            f"folder {matches[0].parent.name} with the same 200-character prefix"
        )
    return computed, f"projects/<slug of {key}>/memory"


def _absolute(path: Path, home: Path) -> Path:
    text = str(path)
    if text == "~" or text.startswith("~/"):
        text = str(home) + text[1:]
    return Path(os.path.abspath(text))


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
    env = _environ(environ)
    home = _home(env)
    launch = Path(os.path.realpath(project_dir))
    config_dir = claude_config_dir(env)
    problems: list[str] = []

    toplevel = find_git_toplevel(launch)
    git_root = None if toplevel is None else Path(_canonical_root(str(toplevel)))
    project_key = launch if git_root is None else git_root

    options: list[_Option] = []
    if memory_dir is not None:
        options.append(
            _Option(
                "--memory-dir",
                "--memory-dir",
                _absolute(memory_dir, home),
                "given on the command line",
                eligible=True,
            )
        )

    # Shared project settings are read from the launch folder only; local settings from the
    # repository's top level (the working tree's own, for a linked worktree), else the launch
    # folder.
    local_base = launch if toplevel is None else toplevel
    settings_files = (
        (
            "managed policy settings",
            managed_settings if managed_settings is not None else managed_settings_path(),
        ),
        ("local project settings", local_base / ".claude" / "settings.local.json"),
        ("shared project settings", launch / ".claude" / "settings.json"),
        ("user settings", config_dir / "settings.json"),
    )
    for kind, settings_file in settings_files:
        options.append(_settings_option(kind, settings_file, home, problems))

    options.append(_project_dir_name_option(env, config_dir, problems))

    default_label = "default (git root)" if git_root is not None else "default (project folder)"
    default_dir, default_note = _default_memory_dir(config_dir, project_key)
    options.append(_Option(default_label, default_label, default_dir, default_note, eligible=True))

    if launch != project_key:
        options.append(
            _Option(
                "default for the launch folder",
                "default for the launch folder",
                config_dir / "projects" / slugify(str(launch)) / "memory",
                f"NOT what Claude Code uses: memory is keyed by the git root {project_key}, not by "
                f"the launch folder {launch} (only transcripts are stored under the launch folder)",
                eligible=False,
            )
        )

    winner = next(index for index, option in enumerate(options) if option.eligible)
    chosen = options[winner]
    assert chosen.path is not None
    candidates = tuple(
        Candidate(option.label, option.path, index == winner, option.note)
        for index, option in enumerate(options)
    )
    return MemoryLocation(
        memory_dir=chosen.path,
        project_dir=launch,
        project_key=project_key,
        config_dir=config_dir,
        source=chosen.source,
        candidates=candidates,
        problems=tuple(problems),
    )


def memory_location_for(project: Path) -> MemoryLocation:
    """The memory location of ``project`` for hooks and the code they run: Claude Code's rule,
    or ``$POKAYOKAY_MEMORY_DIR`` when set (the one place that variable is read)."""
    from pokayokay.names import ENV_MEMORY_DIR

    override = os.environ.get(ENV_MEMORY_DIR)
    return resolve_memory_location(project, memory_dir=Path(override) if override else None)
