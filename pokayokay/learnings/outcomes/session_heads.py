"""The commit each session started on (SessionStart notes it; SessionEnd lists the commits made
since in Completed Work, :mod:`pokayokay.learnings.outcomes.observed`).

Apart from ``observed`` because SessionStart runs on every launch: this module imports only ``os``
and ``time`` (no dataclasses, typing, datetime, json or pathlib: the file is read with
:mod:`pokayokay.infra.lean_json`; json, pathlib and the atomic writer come only when a new
session is noted), so noting the HEAD costs one small file, not observed's imports. In the
usual work tree (a ``.git`` folder of the user's, ``HEAD`` on a branch with a loose ref, or
detached, no ``GIT_DIR``-like variable) the commit is read from those two files, as git itself
does; anything else (a linked worktree, packed or reftable refs, a launch folder below the root, a
symbolic ref chain) asks ``git rev-parse``, so the answer is git's in every case. A branch with no
commit yet (no loose ref, no ``packed-refs``) and a folder with no repository at or above it have
no commit, as git would say, without asking it.
"""

from __future__ import annotations

import os
import time

from pokayokay.names import SESSION_HEADS_FILE

TYPE_CHECKING = False
if TYPE_CHECKING:
    pass

# Sessions whose starting HEAD is kept (the oldest go first).
MAX_SESSIONS_KEPT = 100
# Seconds a git call of the session hooks may take.
GIT_TIMEOUT = 2.0


def git_head(project: str | os.PathLike[str]) -> str | None:
    """The commit checked out in ``project`` (None outside git or without a commit)."""
    known, read = read_head(os.fspath(project))
    if known:
        return read
    done = session_git(project, "rev-parse", "--verify", "-q", "HEAD")
    head = "" if done is None else done.strip()
    return head if len(head) >= 7 else None


def session_git(project: str | os.PathLike[str], *args: str) -> str | None:
    """What ``git <args>`` prints in ``project`` within :data:`GIT_TIMEOUT`; None when git is
    missing, fails or takes longer (the session hooks' git calls, none of which may stall).
    Decoded as UTF-8, an undecodable byte replaced."""
    # only when the files do not tell: a fork and git's start are the cost
    from pokayokay.infra.git_quiet import git_output

    out = git_output(project, *args, timeout=GIT_TIMEOUT)
    return None if out is None else out.decode("utf-8", "replace")


_HEX = frozenset("0123456789abcdef")
# Variables that change which repository git opens or how it reads its refs and config.
_STEERING = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
)
_READ_AT_MOST = 512


def _object_name(text: str) -> str | None:
    """``text`` as a full object name (SHA-1 or SHA-256 hex), or None."""
    name = text.strip()
    return name if len(name) in (40, 64) and _HEX.issuperset(name) else None


def _small_file(path: str) -> str | None:
    """The text of a small regular file; None for anything else (a FIFO is never opened
    blocking: :mod:`pokayokay.infra.regular`)."""
    from pokayokay.infra.regular import read_regular

    try:
        return read_regular(path, _READ_AT_MOST).decode("ascii")
    except (OSError, UnicodeDecodeError):
        return None


def head_from_files(project: str) -> str | None:
    """The commit ``project``'s ``HEAD`` names, read from ``.git/HEAD`` and the loose branch
    ref; None whenever git would have to be asked (see the module's docstring)."""
    known, head = read_head(project)
    return head if known else None


def read_head(project: str) -> tuple[bool, str | None]:
    """(True, the commit) or (True, None: no commit, as git would say: a branch with no commit
    yet, or no repository in ``project`` or above it) when the files tell; (False, None) when
    git must be asked."""
    import stat

    if any(name in os.environ for name in _STEERING):
        return False, None  # git decides which repository, or how it reads it
    git_dir = os.path.join(project, ".git")
    try:
        info = os.lstat(git_dir)
    except FileNotFoundError:
        return (True, None) if _no_repository_above(project) else (False, None)
    except OSError:
        return False, None
    owner = getattr(os, "geteuid", None)
    if not stat.S_ISDIR(info.st_mode) or (owner is not None and info.st_uid != owner()):
        return False, None  # a gitlink file, or a folder git's safe.directory check may refuse
    head = _small_file(os.path.join(git_dir, "HEAD"))
    if head is None:
        return False, None
    detached = _object_name(head)
    if detached is not None:
        return True, detached
    if not head.startswith("ref: refs/heads/") or not head.endswith("\n"):
        return False, None
    parts = head[len("ref: ") : -1].split("/")
    if any(part in ("", ".", "..") or part.startswith(".") for part in parts):
        return False, None  # e.g. reftable's "refs/heads/.invalid": git knows where it points
    loose = _small_file(os.path.join(git_dir, *parts))
    if loose is not None:
        name = _object_name(loose)
        return (True, name) if name is not None else (False, None)
    if os.path.lexists(os.path.join(git_dir, *parts)) or os.path.lexists(
        os.path.join(git_dir, "packed-refs")
    ):
        return False, None  # unreadable, or perhaps packed
    return True, None  # a branch with no commit yet


def _no_repository_above(project: str) -> bool:
    """No folder from ``project`` up holds ``.git``, nor looks like a bare repository (a
    ``HEAD`` file): git would find no repository either. False when unsure."""
    here = os.path.abspath(project)
    while True:
        if os.path.lexists(os.path.join(here, ".git")) or os.path.lexists(
            os.path.join(here, "HEAD")
        ):
            return False
        parent = os.path.dirname(here)
        if parent == here:
            return True
        here = parent


def _heads_path(state_dir: str | os.PathLike[str]) -> str:
    return os.path.join(state_dir, SESSION_HEADS_FILE)


def _load_heads(state_dir: str | os.PathLike[str]) -> dict[str, dict[str, object]]:
    # Read without pathlib or json (json imports re): SessionStart reads this file on every
    # launch, and writes it only for a session it has not noted yet.
    from pokayokay.infra.lean_json import loads

    try:
        with open(_heads_path(state_dir), encoding="utf-8") as fh:
            data = loads(fh.read())
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, dict)} if isinstance(data, dict) else {}


def note_session_head(
    state_dir: str | os.PathLike[str], session_id: str, head: str, now: float | None = None
) -> None:
    """Remember the HEAD a session started on (the first note for a session wins)."""
    heads = _load_heads(state_dir)
    if session_id in heads:
        return
    heads[session_id] = {"head": head, "t": time.time() if now is None else now}
    kept = sorted(heads.items(), key=lambda kv: float(str(kv[1].get("t", 0))))[-MAX_SESSIONS_KEPT:]
    import json
    from pathlib import Path

    from pokayokay.infra.safe_write import encode_text, write_atomic

    Path(state_dir).mkdir(parents=True, exist_ok=True)
    write_atomic(Path(_heads_path(state_dir)), encode_text(json.dumps(dict(kept))))


def session_head(state_dir: str | os.PathLike[str], session_id: str) -> str | None:
    found = _load_heads(state_dir).get(session_id, {}).get("head")
    return found if isinstance(found, str) else None
