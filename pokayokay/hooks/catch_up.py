"""SessionStart catching up on a SessionEnd that did not finish (issue 24 item 8, issue 26).

Claude Code gives all SessionEnd hooks 1.5 s together, and a killed Claude (or ``claude -p``
torn down) runs no SessionEnd at all: the session's tool calls stay in the spool and the
graduation they make due never runs, so the next session touches the files with no rule
loaded. SessionStart (10 s timeout) knows it from two things on disk:

* the spool of its launch folder is not empty (:func:`pokayokay.infra.spool.pending`, two
  stats); SessionEnd and Stop empty it when they finish;
* the failure store was written after graduation last compared its evidence: the stamp
  SessionEnd writes (:data:`pokayokay.hooks.graduation_check.GRADUATED_STAMP`) is given the mtime of
  the store's write mark (``failures.db.changed``, touched after every write) seen before
  that comparison, so two stats tell "nothing written since" (the store file's own mtime
  moves on every read), and only otherwise is the evidence stamp itself compared: a session
  after a finished SessionEnd opens no store.

It then ingests within :data:`INGEST_BUDGET` and graduates in the hook, so the rules are on
disk before the session's first tool call reads a file. When the spool is more than the budget
can take (:data:`INGEST_IN_HOOK_MAX_BYTES`, or the budget ran out), or the store is large, a
detached ``pokayokay graduate`` ingests everything and graduates instead: the rules come a
moment later, and SessionStart stays within its budget. Every step fails open (logged, one
stderr line); the session's note never depends on it.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # pathlib is imported only when graduation runs (docs/decisions/0124)
if TYPE_CHECKING:
    from typing import Any

# What SessionStart spends at most ingesting the previous sessions' spool (of its 10 s
# timeout). A record takes about 8 ms (decision 0021): a killed 150-call session, about
# 0.21 MB, takes some 1.2 s.
INGEST_BUDGET = 2.0
# A spool larger than this (some 250 records) would not fit the budget: detached at once.
INGEST_IN_HOOK_MAX_BYTES = 384 << 10
# Above this failure-store size graduation in SessionStart is detached (planning reads every
# group); SessionEnd's own limit is larger because it has nothing else to do.
GRADUATE_IN_HOOK_MAX_BYTES = 4 << 20


def catch_up(payload: dict[str, Any]) -> str:
    """Ingest and graduate what the previous session's SessionEnd left; returns what was done
    ("", "ingested", "graduated", "detached": for the log and the tests)."""
    from pokayokay.hooks.runtime import memory_location, memory_paths, project_dir
    from pokayokay.infra import spool

    launch = project_dir(payload)
    location = memory_paths(payload)  # strings; the paths' MemoryLocation when graduating
    folder = spool.spool_dir(launch)
    done = ""
    if spool.pending(folder):  # two stats; the ingester is imported only when it has work
        from pokayokay.hooks import ingest

        if ingest.spool_bytes(folder) > INGEST_IN_HOOK_MAX_BYTES:
            return _detach(launch, location, "the spool is large")
        result = ingest.ingest_quietly(
            "SessionStart", lambda: ingest.ingest_project(launch, budget=INGEST_BUDGET)
        )
        if result is None:
            return ""  # logged, one stderr line: graduation waits for a working ingest
        if result.left and not result.busy:
            return _detach(launch, location, "the spool is more than the budget takes")
        done = "ingested" if result.done else ""
    if not graduation_may_be_due(location.project_key) and not team_changed(
        launch, location.project_key
    ):
        return done
    from pathlib import Path

    from pokayokay.config.settings import load_settings
    from pokayokay.hooks.graduation_check import graduate_if_new_evidence

    project = Path(launch)
    if _store_bytes(location.project_key) > GRADUATE_IN_HOOK_MAX_BYTES:
        return _detach(launch, location, "the failure store is large")
    ran = graduate_if_new_evidence(
        project, memory_location(payload), load_settings(project), when="SessionStart"
    )
    return "graduated" if ran else done


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


def _store_bytes(project_key: Any) -> int:
    from pokayokay.infra.state import project_state_path
    from pokayokay.names import FAILURES_DB

    db = os.path.join(project_state_path(str(project_key)), FAILURES_DB)
    total = 0
    for path in (str(db), f"{db}-wal"):
        try:
            total += os.stat(path).st_size
        except OSError:
            continue  # absent: counts as empty
    return total


def _detach(launch: str, location: Any, why: str) -> str:
    from pokayokay.infra.detach import detach_command

    detach_command(
        [
            "graduate",
            "--quiet",
            "--project",
            launch,
            "--memory-dir",
            str(location.memory_dir),
        ],
        f"SessionStart: the last SessionEnd did not finish and {why}; ingesting and "
        "graduating in the background",
    )
    return "detached"
