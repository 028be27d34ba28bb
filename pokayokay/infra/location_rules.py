"""The rules of where Claude Code keeps a project's auto memory, over plain strings.

Everything :mod:`pokayokay.infra.locate` decides is decided here: the slug, the git root found
without git, the config folder, the ``autoMemoryDirectory`` settings,
``CLAUDE_CODE_PROJECT_DIR_NAME`` and the default folder. ``locate`` wraps the answer in
``pathlib`` records (with the candidate list ``pokayokay doctor`` prints); the prompt hook takes
:attr:`Resolution.paths` instead, which never imports ``pathlib`` (with ``urllib.parse`` and
``ipaddress`` behind it, about a third of a bare interpreter start).

Every path returned is written as ``str(pathlib.Path(...))`` would write it (:func:`as_path`),
so both callers see the same folders. Nothing here spawns a process: hooks call it on every event.
"""

from __future__ import annotations

import os
import stat
import sys

from pokayokay.infra import Value
from pokayokay.infra.lazyre import Lazy

TYPE_CHECKING = False  # no typing import at run time: the prompt hook imports this module
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping

SLUG_MAX_LENGTH = 200
MEMORY_FILE_NAME = "MEMORY.md"

# What a slug keeps; the rest becomes "-" (a plain scan: every hook computes a slug, and the
# pattern's compile imported re with enum behind it on SessionStart's path, issue 26).
_SLUG_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_PROJECT_DIR_NAME = Lazy(r"[A-Za-z0-9_-]{1,64}")  # only when the variable is set
_BASE36_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
# A `.git` file holds one short line; never read more than this from it or from `commondir`.
_GIT_POINTER_MAX_BYTES = 4096


def as_path(text: str) -> str:
    """``str(pathlib.PurePosixPath(text))`` without pathlib: empty and ``.`` parts and trailing
    slashes dropped, ``..`` kept, two leading slashes kept (POSIX leaves them to the system),
    three or more made one; ``.`` for an empty result."""
    if text.startswith("/"):
        root = "//" if text.startswith("//") and not text.startswith("///") else "/"
    else:
        root = ""
    parts = [part for part in text.split("/") if part and part != "."]
    return (root + "/".join(parts)) or "."


def join(base: str, *parts: str) -> str:
    """``str(Path(base, *parts))`` for normalised ``base`` and plain names in ``parts``."""
    return as_path("/".join((base, *parts)))


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


def base36(number: int) -> str:
    """``number`` in base 36 (digits then lower-case letters), as the suffix of a long slug."""
    if number < 0:
        raise ValueError("base36 of a negative number")
    digits: list[str] = []
    while True:
        number, remainder = divmod(number, 36)
        digits.append(_BASE36_DIGITS[remainder])
        if number == 0:
            return "".join(reversed(digits))


def slugify(path: str | os.PathLike[str]) -> str:
    """Claude Code's project folder name for ``path`` (an absolute path).

    Every character outside ``[A-Za-z0-9]`` becomes ``-``; a result over 200 characters is cut
    to 200 and given ``-`` + base36(|JS string hash of the raw path|).
    """
    text = os.fspath(path)
    # JS regexes match UTF-16 code units, so a character outside the BMP yields two dashes.
    slug = "".join(c if c in _SLUG_SAFE else ("--" if ord(c) > 0xFFFF else "-") for c in text)
    if len(slug) <= SLUG_MAX_LENGTH:
        return slug
    return f"{slug[:SLUG_MAX_LENGTH]}-{base36(abs(js_string_hash(text)))}"


# --------------------------------------------------------------------------------------------
# Git root, without spawning git


def git_marker_kind(candidate: str) -> str | None:
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


def git_toplevel(start: str | os.PathLike[str]) -> str | None:
    """The nearest folder at or above ``start`` (resolved) holding a ``.git`` folder or file,
    else ``None`` (see :func:`pokayokay.infra.locate.find_git_toplevel`)."""
    current = os.path.realpath(start)
    while True:
        if git_marker_kind(os.path.join(current, ".git")) is not None:
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def _read_small_text(path: str) -> str | None:
    try:
        from pokayokay.infra.regular import open_regular

        with open_regular(path) as handle:
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


def canonical_root(toplevel: str) -> str:
    """The main worktree's root for the working tree at ``toplevel``.

    Every unreadable or unexpected layout falls back to ``toplevel`` itself: memory then stays
    with the working tree the user is in, which is the least surprising place to look.
    """
    if git_marker_kind(os.path.join(toplevel, ".git")) != "file":
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


# --------------------------------------------------------------------------------------------
# Config folder and settings



def project_root(launch: str) -> str:
    """The project a hook's payload belongs to, as a string: the main worktree's root of the
    repository holding ``launch`` (:func:`canonical_root` of :func:`git_toplevel`), else
    ``launch`` resolved (:func:`pokayokay.infra.locate.find_git_root`'s rule, without pathlib:
    the prompt's spool gate runs it)."""
    toplevel = git_toplevel(launch)
    return canonical_root(toplevel) if toplevel is not None else os.path.realpath(launch)

def _environ(environ: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if environ is None else environ


def home_dir(env: Mapping[str, str]) -> str:
    """``$HOME`` from ``env``, else the user's home folder (as ``Path.home()`` finds it)."""
    home = env.get("HOME")
    return as_path(home if home else os.path.expanduser("~"))


def config_dir(environ: Mapping[str, str] | None = None) -> str:
    """``$CLAUDE_CONFIG_DIR`` when set (and not empty, used as given: no ``~`` expansion, as
    Claude Code does), else ``~/.claude``."""
    env = _environ(environ)
    configured = env.get("CLAUDE_CONFIG_DIR")
    if configured:
        return as_path(configured)
    return join(home_dir(env), ".claude")


def managed_settings_file() -> str:
    """Where the managed policy settings file lives on this platform (Linux verified)."""
    if sys.platform == "darwin":
        return "/Library/Application Support/ClaudeCode/managed-settings.json"
    if sys.platform == "win32":
        return r"C:\Program Files\ClaudeCode\managed-settings.json"
    return "/etc/claude-code/managed-settings.json"


class Option(Value):
    """One place the memory folder could come from, before we know which one wins; ``path`` is
    set only when it is usable (``eligible``)."""

    label: str
    source: str
    path: str | None
    note: str
    eligible: bool


def expand_auto_memory_directory(value: str, home: str) -> tuple[str | None, str]:
    """The folder an ``autoMemoryDirectory`` value names, or ``None`` and why it is ignored."""
    if "\0" in value:
        return None, "contains a NUL character"
    if value == "~" or value.startswith(("~/", "~" + os.sep)):
        home_text = os.path.normpath(home)
        expanded = os.path.normpath(os.path.join(home_text, value[2:]))
        if expanded == home_text or home_text.startswith(expanded.rstrip(os.sep) + os.sep):
            # Claude Code refuses a value naming the whole home folder (or above).
            return None, "names the home folder itself or one above it"
        return as_path(expanded), ""
    if not os.path.isabs(value):
        return None, "is not an absolute path or ~/…; Claude Code ignores relative values"
    normalized = os.path.normpath(value)
    if os.path.dirname(normalized) == normalized:
        return None, "names the file system root"
    return as_path(normalized), ""


def settings_option(
    kind: str, settings_file: str, home: str, problems: list[str], *, winner_only: bool = False
) -> Option:
    """The ``autoMemoryDirectory`` of one settings file, as an :class:`Option` (what is wrong
    with it goes to ``problems``). ``winner_only``: the caller needs only whether the option is
    eligible and its path (a hook), so a file whose text cannot hold the key is not parsed."""
    label = f"autoMemoryDirectory in {settings_file} ({kind})"
    source = f"autoMemoryDirectory in {settings_file}"

    def unusable(note: str, problem: str | None = None) -> Option:
        if problem is not None:
            problems.append(problem)
        return Option(label, source, None, note, eligible=False)

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
    if winner_only and "autoMemoryDirectory" not in text and "\\u" not in text:
        # Only a \uXXXX escape could spell the key otherwise: whatever the file holds (valid
        # JSON or not), it sets no folder. A project's settings.json registering the hooks is
        # 9 KB: 0.4 ms a prompt to parse for nothing.
        return unusable("not set")
    from pokayokay.infra.lean_json import loads  # json (and its import of re) only for a bad file

    try:
        data: object = loads(text)
    except ValueError:
        import json  # for the line and column of the mistake

        try:
            json.loads(text)
        except json.JSONDecodeError as error:
            return unusable(
                "invalid JSON",
                f"{settings_file}: invalid JSON (line {error.lineno}, column {error.colno}: "
                f"{error.msg}); skipped",
            )
        return unusable("invalid JSON", f"{settings_file}: invalid JSON; skipped")
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
    path, reason = expand_auto_memory_directory(value, home)
    if path is None:
        return unusable(
            f"{value!r} ignored: {reason}",
            f"{settings_file}: autoMemoryDirectory {value!r} {reason}; ignored",
        )
    return Option(label, source, path, f"set to {value!r}", eligible=True)


def project_dir_name_option(env: Mapping[str, str], config: str, problems: list[str]) -> Option:
    label = source = "CLAUDE_CODE_PROJECT_DIR_NAME"
    name = env.get("CLAUDE_CODE_PROJECT_DIR_NAME")
    if not name:
        return Option(label, source, None, "not set", eligible=False)
    if not env.get("CLAUDE_CONFIG_DIR"):
        problems.append(
            f"CLAUDE_CODE_PROJECT_DIR_NAME={name!r} is ignored: Claude Code honours it only "
            "together with CLAUDE_CONFIG_DIR"
        )
        return Option(
            label, source, None, f"{name!r} ignored: CLAUDE_CONFIG_DIR is not set", eligible=False
        )
    if _PROJECT_DIR_NAME.regex.fullmatch(name) is None:
        problems.append(
            f"CLAUDE_CODE_PROJECT_DIR_NAME={name!r} is ignored: it must be 1-64 characters "
            "from A-Z a-z 0-9 _ -"
        )
        return Option(label, source, None, f"{name!r} ignored: invalid name", eligible=False)
    return Option(
        label, source, join(config, "projects", name, "memory"), f"set to {name!r}", eligible=True
    )


def default_memory_dir(config: str, key: str) -> tuple[str, str]:
    """``<config>/projects/<slug(key)>/memory`` and a note on how it was found.

    For a slug over 200 characters the hash suffix depends on the runtime: Claude Code's
    Bun-built binary is believed to use a different string hash than its Node package (not
    verified). When our folder does not exist but exactly one folder with the same 200-character
    prefix holds a ``memory`` folder, that one is the project's.
    """
    projects = join(config, "projects")
    slug = slugify(key)
    computed = join(projects, slug, "memory")
    if len(slug) <= SLUG_MAX_LENGTH or os.path.isdir(computed):
        return computed, f"projects/<slug of {key}>/memory"
    prefix = slug[: SLUG_MAX_LENGTH + 1]
    try:
        siblings = [
            entry.name
            for entry in os.scandir(projects)
            if entry.name.startswith(prefix) and entry.name != slug
        ]
    except OSError:
        siblings = []
    matches = [join(projects, name, "memory") for name in siblings]
    matches = [found for found in matches if os.path.isdir(found)]
    if len(matches) == 1:
        return matches[0], (
            f"projects/<slug of {key}>/memory; long path: found the existing "
            f"folder {os.path.basename(os.path.dirname(matches[0]))} with the same "
            "200-character prefix"
        )
    return computed, f"projects/<slug of {key}>/memory"


def absolute(path: str, home: str) -> str:
    """``path`` made absolute, a leading ``~`` being ``home``."""
    path = as_path(path)
    if path == "~" or path.startswith("~/"):
        path = home + path[1:]
    return as_path(os.path.abspath(path))


class Resolution(Value):
    """Every option considered for one launch folder, in precedence order, and the winner (the
    index of the first eligible one: :func:`winner`)."""

    launch: str
    project_key: str
    config_dir: str
    options: list[Option]
    problems: list[str]
    winner: int

    @property
    def memory_dir(self) -> str:
        found = self.options[self.winner].path
        assert found is not None
        return found

    @property
    def paths(self) -> MemoryPaths:
        """:func:`pokayokay.infra.locate.resolve_memory_location`'s folders, as strings."""
        return MemoryPaths(self.memory_dir, self.launch, self.project_key, self.config_dir)


def resolve(
    project_dir: str | os.PathLike[str],
    *,
    memory_dir: str | None = None,
    environ: Mapping[str, str] | None = None,
    managed_settings: str | None = None,
    winner_only: bool = False,
) -> Resolution:
    """The options for the auto-memory folder of ``project_dir``, highest precedence first:
    ``memory_dir`` (``--memory-dir``), ``autoMemoryDirectory`` from managed policy, local
    project, shared project and user settings (an unusable value falls through to the next
    file), ``CLAUDE_CODE_PROJECT_DIR_NAME``, then the default keyed by the git root (and, when
    it differs, the launch folder's default, never used: doctor shows why). ``winner_only``:
    only the winner is read (its path), not why the others lost (a settings file that cannot
    set the folder is not parsed, so its notes and problems are not told)."""
    env = _environ(environ)
    home = home_dir(env)
    launch = as_path(os.path.realpath(project_dir))
    config = config_dir(env)
    problems: list[str] = []

    toplevel = git_toplevel(launch)
    git_root = None if toplevel is None else as_path(canonical_root(toplevel))
    project_key = launch if git_root is None else git_root

    options: list[Option] = []
    if memory_dir is not None:
        where = absolute(memory_dir, home)
        options.append(
            Option("--memory-dir", "--memory-dir", where, "given on the command line", True)
        )

    # Shared project settings are read from the launch folder only; local settings from the
    # repository's top level (the working tree's own, for a linked worktree), else the launch
    # folder.
    local_base = launch if toplevel is None else as_path(toplevel)
    settings_files = (
        (
            "managed policy settings",
            managed_settings_file() if managed_settings is None else as_path(managed_settings),
        ),
        ("local project settings", join(local_base, ".claude", "settings.local.json")),
        ("shared project settings", join(launch, ".claude", "settings.json")),
        ("user settings", join(config, "settings.json")),
    )
    for kind, settings_file in settings_files:
        options.append(
            settings_option(kind, settings_file, home, problems, winner_only=winner_only)
        )

    options.append(project_dir_name_option(env, config, problems))

    default_label = "default (git root)" if git_root is not None else "default (project folder)"
    default_dir, default_note = default_memory_dir(config, project_key)
    options.append(Option(default_label, default_label, default_dir, default_note, True))

    if launch != project_key:
        options.append(
            Option(
                "default for the launch folder",
                "default for the launch folder",
                join(config, "projects", slugify(launch), "memory"),
                f"NOT what Claude Code uses: memory is keyed by the git root {project_key}, not by "
                f"the launch folder {launch} (only transcripts are stored under the launch folder)",
                eligible=False,
            )
        )
    return Resolution(launch, project_key, config, options, problems, winner(options))


def winner(options: list[Option]) -> int:
    """The index of the first eligible option (the default one always is)."""
    return next(i for i, option in enumerate(options) if option.eligible)


class MemoryPaths(Value):
    """The folders a hook needs, as strings: what :class:`pokayokay.infra.locate.MemoryLocation`
    holds as paths (``memory_dir``, ``project_dir`` the resolved launch folder, ``project_key``
    the folder memory is keyed by, ``config_dir``)."""

    memory_dir: str
    project_dir: str
    project_key: str
    config_dir: str


def memory_dir_override() -> str | None:
    """``$POKAYOKAY_MEMORY_DIR`` when set (the one place that variable is read)."""
    from pokayokay.names import ENV_MEMORY_DIR

    return os.environ.get(ENV_MEMORY_DIR) or None


def hook_memory_paths(project_dir: str | os.PathLike[str]) -> MemoryPaths:
    """:func:`pokayokay.infra.locate.memory_location_for` as strings: Claude Code's rule, or
    ``$POKAYOKAY_MEMORY_DIR`` when set."""
    return resolve(project_dir, memory_dir=memory_dir_override(), winner_only=True).paths
