"""pokayokay's own state folder: logs, backups of replaced MEMORY.md versions, install records.

``POKAYOKAY_HOME`` wins; otherwise the platform's user state folder. Inside it every project
gets ``projects/<slug>/`` keyed by the same slug Claude Code uses for the project's memory.

Everything in it is private to the user (excerpts of tool output, MEMORY.md's old versions):
files are created 0600 (:data:`PRIVATE_FILE`), folders 0700 (:func:`private_folder`), and a
folder an older pokayokay created looser is tightened the first time pokayokay writes there.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # pathlib is imported on use: the prompt hook needs none of it
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

BACKUPS_KEPT = 10
# A folder's key in file names (:func:`folder_key`) keeps this many characters at most, then a hash.
FOLDER_KEY_MAX = 120
PRIVATE_FILE = 0o600
PRIVATE_FOLDER = 0o700
# The folders this process made private already (a hook writes several files into one folder).
_private: set[str] = set()


def state_folder(environ: Mapping[str, str] | None = None) -> str:
    """pokayokay's state folder as the environment names it: ``POKAYOKAY_HOME`` (``~``
    expanded), else the platform's user state folder. The one implementation of the rule:
    :func:`state_home` and :func:`state_home_path` build on it, and the per-tool-call spool and
    the lesson lookup (which must not import ``pathlib``) use it as it is."""
    env = os.environ if environ is None else environ
    explicit = env.get("POKAYOKAY_HOME")
    if explicit:
        return os.path.expanduser(explicit)
    home = env.get("HOME") or os.path.expanduser("~")
    if sys.platform == "darwin":
        return os.path.join(home, "Library", "Application Support", "pokayokay")
    if sys.platform == "win32":
        local = env.get("LOCALAPPDATA") or os.path.join(home, "AppData", "Local")
        return os.path.join(local, "pokayokay")
    xdg = env.get("XDG_STATE_HOME") or os.path.join(home, ".local", "state")
    return os.path.join(xdg, "pokayokay")


def folder_key(folder: str) -> str:
    """A file-name-safe key for a folder, as the spool (``spool/<key>/``) and the lesson lookup
    (``lessons/<key>.marshal``) name theirs: ``[A-Za-z0-9]`` kept, anything else ``-``, ``-``
    for an empty name; a key longer than :data:`FOLDER_KEY_MAX` is cut and given a hash of the
    whole path (FNV-1a over its UTF-8 bytes, so no ``hashlib`` import on a hook's path)."""
    key = "".join(c if c.isascii() and c.isalnum() else "-" for c in folder)
    if len(key) <= FOLDER_KEY_MAX:
        return key or "-"
    value = 0xCBF29CE484222325  # FNV-1a, 64 bits
    for byte in folder.encode("utf-8", "surrogatepass"):
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{key[:FOLDER_KEY_MAX]}-{value:016x}"


def in_state_home(path: str | os.PathLike[str], environ: dict[str, str] | None = None) -> bool:
    """Whether ``path`` lies inside pokayokay's state folder (as written, not resolved)."""
    home = state_home_path(environ)
    text = os.path.abspath(os.fspath(path))
    return text == home or text.startswith(home.rstrip(os.sep) + os.sep)


def private_folder(folder: str | os.PathLike[str], environ: dict[str, str] | None = None) -> None:
    """Make ``folder`` exist with mode 0700, and tighten to 0700 every folder from the state
    home down to it that is looser (created by an older pokayokay, or by ``mkdir`` under a lax
    umask); a folder outside the state home is only created, never changed. Folders owned by
    someone else are left as they are. Raises OSError when the folder cannot be created."""
    path = os.path.abspath(os.fspath(folder))
    if path in _private:
        return
    home = os.path.abspath(state_home_path(environ))
    chain = [path]
    if path.startswith(home.rstrip(os.sep) + os.sep):
        parts = path[len(home.rstrip(os.sep)) + 1 :].split(os.sep)
        chain = [os.path.join(home, *parts[:depth]) for depth in range(len(parts) + 1)]
    elif path != home:
        os.makedirs(path, exist_ok=True)
        _private.add(path)
        return
    for place in chain:
        try:
            os.mkdir(place, PRIVATE_FOLDER)
        except FileExistsError:
            pass  # made by a concurrent process
        except FileNotFoundError:
            os.makedirs(place, PRIVATE_FOLDER, exist_ok=True)
        tighten(place, PRIVATE_FOLDER)
    _private.add(path)


def tighten(path: str | os.PathLike[str], mode: int) -> None:
    """Drop the permission bits of ``path`` that ``mode`` does not have (0644 -> 0600, 0755 ->
    0700), when pokayokay's user owns it; never raises."""
    try:
        info = os.stat(path)
        if info.st_mode & 0o777 & ~mode and info.st_uid == os.getuid():
            os.chmod(path, info.st_mode & mode & 0o777)
    except (OSError, AttributeError):  # AttributeError: no getuid (Windows)
        pass


# A path longer than this names no file (Linux's PATH_MAX; macOS's is 1,024). Resolving a longer
# one costs time quadratic in its length (``os.path.realpath`` looks up every prefix): a 1.6 MB
# ``file_path`` of 80,000 parts kept a FileChanged hook busy for 22 s.
MAX_PATH_CHARS = 4096


def real_payload_path(path: str) -> str | None:
    """``os.path.realpath`` of a path a payload gave, or None when it cannot name a file: longer
    than :data:`MAX_PATH_CHARS`, or refused by the OS (a NUL in it)."""
    if len(path) > MAX_PATH_CHARS:
        return None
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return None


def project_root_problem(folder: str) -> str | None:
    """Why ``folder`` cannot be a project pokayokay writes into (``.claude/rules/``, ...), or
    None: it must exist, be a folder and not be the filesystem root."""
    real = real_payload_path(folder)
    if real is None:
        return f"project folder {folder[:200]!r}... is no path; pokayokay writes nothing there"
    if os.path.dirname(real) == real:
        return f"project folder {folder!r} is the filesystem root; pokayokay writes nothing there"
    if not os.path.isdir(real):
        what = "is not a folder" if os.path.exists(real) else "does not exist"
        return f"project folder {folder!r} {what}; pokayokay writes nothing there"
    return None


def state_home(environ: dict[str, str] | None = None) -> Path:
    from pathlib import Path

    return Path(state_home_path(environ))


def state_home_path(environ: dict[str, str] | None = None) -> str:
    """:func:`state_home` as a string (written as the path would be)."""
    from pokayokay.infra.location_rules import as_path

    return as_path(state_folder(environ))


def project_state_dir(project_key: str, environ: dict[str, str] | None = None) -> Path:
    """The state folder of one project; ``project_key`` is the path Claude Code keys memory by."""
    from pathlib import Path

    return Path(project_state_path(project_key, environ))


def project_state_path(project_key: str, environ: dict[str, str] | None = None) -> str:
    """:func:`project_state_dir` as a string, without pathlib (the prompt hook's)."""
    from pokayokay.infra.location_rules import join, slugify

    return join(state_home_path(environ), "projects", slugify(project_key))


def mark_memory_changed(project_key: str, environ: dict[str, str] | None = None) -> None:
    """Say that pokayokay wrote a file recall reads (a learning, MEMORY.md, an archive): touch
    ``memory.changed`` in the project's state folder, so that the prompt's quick freshness check
    (``pokayokay.recall.sources``) validates every file next time. Never raises: a marker that
    cannot be written leaves the memory folder's own mtime, which the write moved too."""
    from pokayokay.names import MEMORY_CHANGED

    _touch(project_state_dir(project_key, environ) / MEMORY_CHANGED)


def mark_skills_changed(environ: dict[str, str] | None = None) -> None:
    """Say that pokayokay wrote or removed a ``SKILL.md``: touch ``skills.changed`` in the state
    home, which voids every project's quick skill-catalog check (``pokayokay.skills.catalog``)."""
    from pokayokay.names import SKILLS_CHANGED

    _touch(state_home(environ) / SKILLS_CHANGED)


def _touch(marker: Path) -> None:
    try:
        private_folder(marker.parent)
        os.close(os.open(marker, os.O_WRONLY | os.O_CREAT, PRIVATE_FILE))
        os.utime(marker)
    except OSError:
        pass  # a hint only: the next run marks it


def log_file(environ: dict[str, str] | None = None) -> Path:
    """One log for every project: hooks run before we know which project is at stake."""
    from pathlib import Path

    return Path(log_file_path(environ))


def log_file_path(environ: dict[str, str] | None = None) -> str:
    """:func:`log_file` as a string, without pathlib."""
    return os.path.join(state_home_path(environ), "logs", "pokayokay.log")
