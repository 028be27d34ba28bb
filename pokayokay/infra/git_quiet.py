"""git where it may neither stall nor fail: what a git command prints, or None when git is
missing, fails or takes longer than its timeout. The hooks' and the capture's git calls (a
session's HEAD and its commits, a file git knows that the work tree lost) and the project's file
list, which falls back to a walk.

Standard library only, ``os`` at import: ``subprocess`` comes with the first call, so a hook that
never asks git never pays for it (a fork and git's start are the cost when it does). The CLI's
git work that must say why git failed goes through :class:`pokayokay.infra.git.Git`."""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

# Settings every git call of pokayokay's overrides, because a repository's own config could make
# them run a program of its choosing: ``core.fsmonitor`` names a hook that ``ls-files``,
# ``status`` and ``diff`` run (a cloned repository's ``.git/config`` is the cloner's, but a
# project folder handed over whole, or an archive unpacked, brings its own). ``false`` turns the
# monitor off (git 2.36 and later; before, it names the ``false`` program, which does nothing).
NO_REPO_PROGRAMS = ("-c", "core.fsmonitor=false")


def git_output(
    cwd: str | os.PathLike[str],
    *args: str,
    timeout: float,
    env: Mapping[str, str] | None = None,
) -> bytes | None:
    """What ``git <args>`` run in ``cwd`` prints (bytes, as git wrote them) when it exits 0
    within ``timeout`` seconds; None when git is missing, ``cwd`` is not a folder, git fails
    or takes longer. Its standard input is empty (a hook's stdin is Claude Code's payload
    pipe); ``env``: the environment, default this process's."""
    import subprocess

    argv = ["git", *NO_REPO_PROGRAMS, *args]
    try:
        done = subprocess.run(
            argv, cwd=cwd, env=env, capture_output=True, timeout=timeout,
            stdin=subprocess.DEVNULL, check=False,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None
