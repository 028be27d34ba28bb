"""SessionStart catching up on a SessionEnd that did not finish (issue 24 item 8, issue 26).

Claude Code gives all SessionEnd hooks 1.5 s together, and a killed Claude (or ``claude -p``
torn down) runs no SessionEnd at all: the session's tool calls stay in the spool and the
graduation they make due never runs, so the next session touches the files with no rule
loaded. SessionStart knows it from a few stats:

* the spool of its launch folder is not empty (:func:`pokayokay.infra.spool.pending`, two
  stats); SessionEnd and Stop empty it when they finish;
* the failure store was written after graduation last compared its evidence: the stamp
  SessionEnd writes (:data:`pokayokay.hooks.graduation_check.GRADUATED_STAMP`) is given the mtime of
  the store's write mark (``failures.db.changed``, touched after every write) seen before
  that comparison, so two stats tell "nothing written since" (the store file's own mtime
  moves on every read): a session after a finished SessionEnd opens no store;
* the team folder changed since graduation last read it (one stat without one).

When any of them says there is work, the hook starts the catch-up detached
(:mod:`pokayokay.hooks.catch_up_worker`: the whole spool ingested, graduation when due, the
prompt's caches refreshed) and returns: ingesting even one record in the hook costs some seven
interpreter starts of imports and store work against SessionStart's budget of 2.5
(docs/decisions/0130). The worker is started with ``posix_spawn`` (no ``subprocess`` import)
and SessionStart leaves a mark naming it (:func:`mark_running`); the session's first prompt
waits, bounded, until the worker has ingested and graduated (:func:`wait_for_worker`,
docs/decisions/0140), because Claude Code looks for path-scoped rules when a file is read and
``claude -p`` may read one a moment after the prompt. Nothing is dropped meanwhile (the spool
waits for the worker, and a prompt that needs a spooled failure still ingests it first). Every
step fails open (logged, one stderr line); the session's note never depends on it.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # no pathlib, json or subprocess on this path (docs/decisions/0124, 0130)
if TYPE_CHECKING:
    from typing import Any

# The module the detached catch-up runs (``python -m``).
WORKER_MODULE = "pokayokay.hooks.catch_up_worker"
# Seconds the session's first prompt waits at most for the worker to have graduated (the
# prompt's registered timeout is 10 s; a worker on an idle machine takes under one).
PROMPT_WAIT = 5.0


def catch_up(payload: dict[str, Any]) -> str:
    """Start the detached catch-up when the previous session left work (see the module);
    returns "" (nothing to do) or "detached" (for the log and the tests)."""
    from pokayokay.hooks.runtime import memory_paths, project_dir
    from pokayokay.infra import spool

    launch = project_dir(payload)
    folder = spool.spool_dir(launch)
    spooled = spool.pending(folder)
    key = memory_paths(payload).project_key
    if not (spooled or graduation_may_be_due(key) or team_changed(launch, key)):
        return ""
    if spooled:  # a hook's ingest that finds the worker at it waits for it (in its budget)
        os.close(os.open(os.path.join(folder, spool.CATCH_UP), os.O_WRONLY | os.O_CREAT, 0o600))
    pid = start_worker(launch)
    mark_running(folder, pid)
    return "detached"


def mark_running(folder: str, pid: int | None) -> None:
    """Leave :data:`pokayokay.infra.spool.CATCH_UP_RUNNING` in the spool folder with the
    worker's pid ("0": started without one), for the session's first prompt to wait on
    (:func:`wait_for_worker`). Written after the start: a worker done before it leaves a mark
    naming a process that is gone, which the prompt removes."""
    from pokayokay.infra import spool
    from pokayokay.infra.state import PRIVATE_FILE, private_folder

    private_folder(folder)
    mark = os.path.join(folder, spool.CATCH_UP_RUNNING)
    fd = os.open(mark, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE)
    try:
        os.write(fd, str(pid or 0).encode("ascii"))
    finally:
        os.close(fd)


def clear_running(launch: str, pid: int) -> None:
    """The worker ``pid`` is past graduation: remove the running mark when it names this worker
    (or none); a mark naming another worker is that one's to remove."""
    from pokayokay.infra import spool

    mark = os.path.join(spool.spool_dir(launch), spool.CATCH_UP_RUNNING)
    try:
        with open(mark, "rb") as handle:
            named = handle.read(32).strip()
        if named in (b"", b"0", str(pid).encode("ascii")):
            os.unlink(mark)
    except OSError:
        return  # gone already: nobody waits


def wait_for_worker(mark: str, limit: float = PROMPT_WAIT) -> float:
    """Wait, at most ``limit`` seconds, while the catch-up worker named in ``mark`` (see
    :data:`pokayokay.infra.spool.CATCH_UP_RUNNING`) ingests and graduates; returns the seconds
    waited. A mark naming a process that is gone is removed (the worker died, or finished before
    SessionStart wrote it); one without a pid is trusted for ``limit`` seconds after it was
    written. Giving up is logged: the prompt then goes on without the rule."""
    import time

    started = time.monotonic()
    while True:
        try:
            with open(mark, "rb") as handle:
                named = handle.read(32).strip()
            written = os.stat(mark).st_mtime
        except OSError:
            return time.monotonic() - started  # removed: the worker is past graduation
        pid = int(named) if named.isdigit() else 0
        if (pid and not _alive(pid)) or (not pid and time.time() - written > limit):
            _remove(mark)
            return time.monotonic() - started
        waited = time.monotonic() - started
        if waited >= limit:
            from pokayokay.infra.logs import log

            log(f"UserPromptSubmit: the SessionStart catch-up still at work after {waited:.1f} s; "
                "going on without waiting for it")
            return waited
        time.sleep(0.02)


def _remove(mark: str) -> None:
    try:
        os.unlink(mark)
    except OSError:
        return  # removed meanwhile


def _alive(pid: int) -> bool:
    """Whether process ``pid`` exists (signal 0 on POSIX; elsewhere there is no pid here)."""
    if os.name != "posix":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, someone else's
    return True


def work_left(launch: str, project_key: Any) -> bool:
    """Whether the spool holds calls, or graduation may be due (stats only)."""
    from pokayokay.infra import spool

    return (
        spool.pending(spool.spool_dir(launch))
        or graduation_may_be_due(project_key)
        or team_changed(launch, project_key)
    )


def start_worker(launch: str) -> int | None:
    """``python -m pokayokay.hooks.catch_up_worker <launch>``, detached; its pid (None when it
    was started another way: :func:`pokayokay.infra.detach.spawn_module`)."""
    from pokayokay.infra.detach import spawn_module

    return spawn_module(WORKER_MODULE, [launch])


def graduation_may_be_due(project_key: Any) -> bool:
    """False when there is no failure store, or no write came since graduation last compared
    the evidence (the store's write mark has the mtime the stamp was given then: stats only);
    True means "compare the evidence"."""
    from pokayokay.hooks.graduation_check import GRADUATED_STAMP, written_mark
    from pokayokay.infra.state import project_state_path
    from pokayokay.names import FAILURES_DB

    folder = project_state_path(str(project_key))
    if not os.path.isfile(os.path.join(folder, FAILURES_DB)):
        return False
    mark = written_mark(folder)
    try:
        stamped = os.stat(os.path.join(folder, GRADUATED_STAMP)).st_mtime_ns
    except OSError:
        return True
    return mark is None or mark != stamped


def team_changed(launch: str, project_key: Any) -> bool:
    """The team folder (``.claude/pokayokay/team``) differs from what graduation last read: a
    pull brought teammates' evidence. One stat without a folder; a scan of its entries with."""
    from pokayokay.hooks.graduation_check import TEAM_STAMP
    from pokayokay.infra.state import project_state_dir

    if not os.path.isdir(os.path.join(launch, ".claude", "pokayokay", "team")):
        return False
    from pathlib import Path

    from pokayokay.team.stamp import folder_stamp

    try:
        seen = (project_state_dir(str(project_key)) / TEAM_STAMP).read_text("utf-8")
    except OSError:
        seen = None
    return seen != folder_stamp(Path(launch))
