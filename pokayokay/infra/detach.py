"""Starting pokayokay work in the background, out of a hook's time budget.

A detached command runs in its own session (Claude Code cutting a hook short cannot kill it),
with no input and its output appended to pokayokay's log, after a line saying why it was
started. Used by SessionEnd (curation, the store's one-off upgrades, graduation over a large
store), by an ingest that finds a spool over its cap, and by SessionStart catching up on a
session that was killed (:func:`spawn_module`: no ``subprocess`` import on that path, decision
0130).
"""

from __future__ import annotations

import os
import sys


def detach_command(args: list[str], why: str) -> None:
    """Run ``python -m pokayokay <args>`` detached; ``why`` goes to the log first."""
    import subprocess

    from pokayokay.infra import logs

    log = logs.log(why)
    with open(log, "ab") as sink:
        subprocess.Popen(
            module_argv("pokayokay", args),  # never the project's own pokayokay module
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=sink,
            start_new_session=True,
            close_fds=True,
        )


# Python 3.11's -P: no unsafe path (the working folder) first on the module search path.
SAFE_PATH_FLAG = sys.version_info >= (3, 11)
# Before 3.11: `-c`, whose first search-path entry is the working folder, drops it and runs the
# module as `-m` does.
_RUN_MODULE = (
    "import runpy, sys; del sys.path[0]; module = sys.argv.pop(1); "
    "runpy.run_module(module, run_name='__main__', alter_sys=True)"
)


def module_argv(module: str, args: list[str]) -> list[str]:
    """``python -m <module> <args>`` with this interpreter, the working folder kept off the
    module search path: a hook runs in the project, and a ``pokayokay.py`` (or ``pokayokay/``)
    there must never run in pokayokay's place. ``-P`` from Python 3.11, a ``-c`` before."""
    if SAFE_PATH_FLAG:
        return [sys.executable, "-P", "-m", module, *args]
    return [sys.executable, "-c", _RUN_MODULE, module, *args]


def spawn_module(module: str, args: list[str]) -> int | None:
    """Run ``python -m <module> <args>`` detached (its own session, stdin from the null
    device, stdout and stderr appended to pokayokay's log) and return its pid; None when the
    platform has no ``posix_spawn`` with a new session, and it was started through
    ``subprocess`` instead. A hook's path: ``os`` only, where ``subprocess`` costs about one
    interpreter start of imports. The started process logs why it runs itself."""
    from pokayokay.infra.state import PRIVATE_FILE, log_file_path, private_folder

    argv = module_argv(module, args)
    spawn = getattr(os, "posix_spawn", None)
    log = log_file_path()
    private_folder(os.path.dirname(log))
    if spawn is None:
        _spawn_with_subprocess(argv)
        return None
    sink = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, PRIVATE_FILE)
    try:
        actions = [
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_DUP2, sink, 1),
            (os.POSIX_SPAWN_DUP2, sink, 2),
        ]
        try:
            pid: int = spawn(sys.executable, argv, os.environ, file_actions=actions, setsid=True)
        except NotImplementedError:  # no POSIX_SPAWN_SETSID here
            _spawn_with_subprocess(argv)
            return None
        return pid
    finally:
        os.close(sink)


def _spawn_with_subprocess(argv: list[str]) -> None:
    import subprocess

    from pokayokay.infra.state import log_file

    with open(log_file(), "ab") as sink:
        subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=sink,
            start_new_session=True,
            close_fds=True,
        )
