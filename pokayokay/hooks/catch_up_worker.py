"""The detached half of SessionStart's catch-up (:mod:`pokayokay.hooks.catch_up`, decision 0130):
what a killed session's missing Stop and SessionEnd would have done, run by
``python -m pokayokay.hooks.catch_up_worker <launch folder>`` in its own session.

1. the launch folder's whole spool ingested (no time budget: no hook timeout is over this
   process; the ingest lock and the store's cursor keep every call counted once against any
   other ingester, :mod:`pokayokay.hooks.ingest`);
2. graduation when the store holds evidence it has not compared yet (or the team folder
   changed): :func:`pokayokay.hooks.graduation_check.graduate_if_new_evidence`, which stamps it;
3. when anything was stored or graduated, the two caches the prompt reads from the store (the
   recall index and the failure signals) brought up to date, as Stop does
   (:func:`pokayokay.hooks.turn_end.refresh_caches`), and after graduation the rule scopes once
   the rewritten rule files are settled (:func:`pokayokay.rules.scopes.refresh`), so the
   session's first prompt finds them warm instead of rebuilding them.

One worker per project at a time (``catch-up.lock`` in its state folder): a second SessionStart
while one works leaves the work to it. Each step fails open, logged; the process exits 0.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The lock one catch-up worker per project holds (in the project's state folder).
LOCK_FILE = "catch-up.lock"
# Seconds the worker waits for another ingester (a prompt's, a Stop's) to let the spool go.
INGEST_LOCK_WAIT = 5.0
# Seconds at most the worker waits, after graduation, for the files it wrote to settle before it
# refreshes the prompt's caches (they distrust a folder or rule changed in the last 3 s).
SETTLE_WAIT = 3.5


def main(argv: list[str]) -> int:
    """``<launch folder>``: catch up on it unless another worker already does."""
    from pokayokay.infra import logs

    if len(argv) != 1:
        sys.stderr.write("usage: python -m pokayokay.hooks.catch_up_worker <launch folder>\n")
        return 2
    launch = argv[0]
    try:
        done = catch_up_now(launch)
    except Exception as exc:  # the steps fail open each; this is what is left (locating)
        logs.fail_open("SessionStart catch-up (background)", exc)
        return 1
    if done:
        logs.log(f"SessionStart catch-up (background) for {launch}: {done}")
    return 0


def catch_up_now(launch: str) -> str:
    """The catch-up, in this process; returns what was done (for the log and the tests): ""
    (nothing, or another worker is at it), else "ingested N", "graduated", joined by ", "."""
    from pathlib import Path

    from pokayokay.infra.locate import memory_location_for
    from pokayokay.infra.state import private_folder, project_state_path

    location = memory_location_for(Path(launch))
    state = project_state_path(str(location.project_key))
    private_folder(state)
    from pokayokay.infra.flock import try_lock

    lock = try_lock(os.path.join(state, LOCK_FILE))
    if lock is None:
        return ""  # another worker holds it: it is the one at work
    before = _newest(location.memory_dir, launch)
    try:
        done = _steps(launch, location)
    finally:
        os.close(lock)
        from pokayokay.hooks.catch_up import clear_running

        clear_running(launch, os.getpid())  # the first prompt waits for this, not the rest
    if done.endswith("graduated") and _newest(location.memory_dir, launch) != before:
        # Graduation rewrote rules or the memory folder's topic file: the prompt's caches trust
        # neither until they are settled, so they are refreshed after that (outside the lock:
        # the wait holds no other worker up).
        _wait_until_settled(location.memory_dir, launch)
        _refresh_rule_scopes(launch, state)
    if done:
        from pokayokay.hooks.turn_end import refresh_caches

        refresh_caches(location, "SessionStart catch-up")
    return done


def _steps(launch: str, location: Any) -> str:
    from pokayokay.hooks import ingest
    from pokayokay.hooks.catch_up import graduation_may_be_due, team_changed

    done: list[str] = []
    result = ingest.ingest_quietly("SessionStart catch-up", lambda: _ingest(launch))
    if result is None:
        return ""  # logged: graduation waits for a working ingest
    if result.done:
        done.append(f"ingested {result.done}")
    due = graduation_may_be_due(location.project_key) or team_changed(launch, location.project_key)
    if due and _graduate(launch, location):
        done.append("graduated")
    return ", ".join(done)


def _newest(memory_dir: Any, launch: str) -> int:
    """The newest mtime (ns) of the memory folder and the rule files: what graduation writes."""
    from pokayokay.rules.walk import walk_rule_paths

    newest = 0
    places = [os.fspath(memory_dir)]
    places += [p for p, _ in walk_rule_paths(os.path.join(launch, ".claude", "rules"))]
    for place in places:
        try:
            newest = max(newest, os.stat(place).st_mtime_ns)
        except OSError:
            continue  # gone: nothing to wait for
    return newest


def _wait_until_settled(memory_dir: Any, launch: str) -> None:
    """Sleep until the memory folder and the rule files are older than what the recall index
    (:data:`pokayokay.recall.sources.SETTLE_NS`) and the rule scopes
    (:data:`pokayokay.rules.scopes.RACY_SECONDS`) trust, at most :data:`SETTLE_WAIT`."""
    import time

    from pokayokay.recall.sources import SETTLE_NS

    wait = (_newest(memory_dir, launch) + SETTLE_NS - time.time_ns()) / 1e9 + 0.05
    if wait > 0:
        time.sleep(min(wait, SETTLE_WAIT))


def _ingest(launch: str) -> Any:
    from pokayokay.hooks import ingest
    from pokayokay.infra import spool

    folder = spool.spool_dir(launch)
    if not spool.pending(folder):
        return ingest.IngestResult()
    return ingest.ingest(folder, wait=INGEST_LOCK_WAIT)


def _graduate(launch: str, location: Any) -> bool:
    from pathlib import Path

    from pokayokay.config.settings import load_settings
    from pokayokay.hooks.graduation_check import graduate_if_new_evidence

    project = Path(launch)
    try:
        return graduate_if_new_evidence(
            project, location, load_settings(project), when="SessionStart catch-up"
        )
    except Exception as exc:
        from pokayokay.infra.logs import fail_open

        fail_open("SessionStart catch-up: graduation", exc)
        return False


def _refresh_rule_scopes(launch: str, state: str) -> None:
    """The rule scopes a prompt naming files reads (:func:`pokayokay.rules.scopes.refresh`),
    once the rules graduation may have rewritten are settled: else the session's first such
    prompt parses them again (the rule parser's imports alone are about two floors). Outside
    the worker lock: waiting for the files to settle holds no other worker up."""
    import time

    from pokayokay.names import RULE_SCOPES_FILE
    from pokayokay.rules.scopes import refresh

    if not os.path.isdir(os.path.join(launch, ".claude", "rules", "pokayokay")):
        return
    try:
        for _ in range(3):
            wait = refresh(launch, os.path.join(state, RULE_SCOPES_FILE))
            if not wait:
                return
            time.sleep(min(wait + 0.05, SETTLE_WAIT))
    except Exception as exc:
        from pokayokay.infra.logs import fail_open

        fail_open("SessionStart catch-up: refreshing the rule scopes", exc)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
