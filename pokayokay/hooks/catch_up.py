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
and is under way long before the session's first tool call reads a file; nothing is dropped
meanwhile (the spool waits for it, and a prompt that needs a spooled failure still ingests it
first). Every step fails open (logged, one stderr line); the session's note never depends on it.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # no pathlib, json or subprocess on this path (docs/decisions/0124, 0130)
if TYPE_CHECKING:
    from typing import Any

# The module the detached catch-up runs (``python -m``).
WORKER_MODULE = "pokayokay.hooks.catch_up_worker"


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
    start_worker(launch)
    return "detached"


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
