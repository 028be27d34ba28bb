"""Exactly-once ingest through the real handlers and the real store: an ingester killed at every
step between claiming the spool and dropping the claimed segment, and ingesters that keep dying
while others run, leave every spooled tool call counted once.

The records used are the ones a replay would count twice without the store's cursor: failures
with no ``tool_use_id`` (nothing else dedupes them) and rule loads (every load is a row).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import sqlite3
import time
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from helpers.paths import FIXTURE_SAMPLES_DIR

from pokayokay.failures import ingest_cursor
from pokayokay.failures.store import FailureStore
from pokayokay.hooks import ingest
from pokayokay.infra import spool

SAMPLE_ROOT = "/home/dev/project"
RECORDS = 6


@pytest.fixture
def project(project: Path) -> Path:
    rules = project / ".claude" / "rules"
    rules.mkdir(parents=True, exist_ok=True)
    (rules / "python.md").write_text("---\npaths:\n  - src/**/*.py\n---\n# Python\n")
    (project / "src").mkdir(exist_ok=True)
    (project / "src" / "app.py").write_text("print('hi')\n")
    return project


def sample(name: str, project: Path) -> dict[str, Any]:
    text = (FIXTURE_SAMPLES_DIR / name).read_text(encoding="utf-8")
    payload: dict[str, Any] = json.loads(text.replace(SAMPLE_ROOT, str(project)))
    return payload


def spool_records(project: Path, count: int, tag: str = "") -> None:
    """``count`` tool calls as the hooks spool them: failures without an id, and rule loads."""
    env = dict(os.environ, CLAUDE_PROJECT_DIR=str(project))
    for n in range(count):
        if n % 3 == 2:
            load = sample("InstructionsLoaded.path_glob_match.json", project)
            load["session_id"] = f"session-{tag}{n}"
            spool.spool("InstructionsLoaded", json.dumps(load).encode(), env)
            continue
        payload = sample("PostToolUseFailure.Bash.json", project)
        payload.pop("tool_use_id", None)
        payload["tool_input"] = {"command": f"make target-{tag}{n}"}
        payload["error"] = f"Exit code 2\nmake: *** No rule to make target 'target-{tag}{n}'."
        spool.spool("PostToolUseFailure", json.dumps(payload).encode(), env)


def counted(project: Path) -> tuple[list[str], int]:
    """The failing commands stored (one per failure row) and the rule loads."""
    with FailureStore.for_project(project) as store:
        commands = sorted(str(f.command) for f in store.failures())
        return commands, len(store.rule_loads())


def expected(count: int, tags: tuple[str, ...] = ("",)) -> tuple[list[str], int]:
    commands = sorted(f"make target-{tag}{n}" for tag in tags for n in range(count) if n % 3 != 2)
    return commands, sum(1 for _ in tags for n in range(count) if n % 3 == 2)


# --- a crash at every step --------------------------------------------------------------------

# Where the ingester dies: (what is patched, which call dies, before or after the real call).
CRASH_POINTS = {
    # claiming: the fresh cursor is not written / written but the spool not renamed yet
    "claim: before the cursor": ("save_cursor", 1, "before"),
    "claim: before the rename": ("save_cursor", 1, "after"),
    # a record's store transaction: begun but not committed
    "record 1: before its commit": ("advance", 1, "before"),
    "record 4: before its commit": ("advance", 4, "before"),
    # THE window: the record's rows are committed, the cursor file has not moved
    "record 1: committed, cursor file not moved": ("committed", 1, "after"),
    "record 3: committed, cursor file not moved": ("committed", 3, "after"),
    "record 6: committed, cursor file not moved": ("committed", 6, "after"),
    # the cursor file moved past a record
    "record 2: cursor file moved": ("save_cursor", 3, "after"),
    # every record done, the claimed segment not removed yet
    "all done: segment not removed": ("unlink", 1, "before"),
}


def _dying(real: Any, call: int, when: str) -> Any:
    calls = [0]

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        if calls[0] == call and when == "before":
            os._exit(9)
        out = real(*args, **kwargs)
        if calls[0] == call and when == "after":
            os._exit(9)
        return out

    return wrapper


def _ingest_dying_at(where: str, what: str, call: int, when: str) -> None:
    if what == "save_cursor":
        ingest._save_cursor = _dying(ingest._save_cursor, call, when)  # type: ignore[assignment]
    elif what == "advance":
        ingest_cursor.advance = _dying(ingest_cursor.advance, call, when)  # type: ignore[assignment]
    elif what == "committed":
        ingest_cursor.committed = _dying(ingest_cursor.committed, call, when)  # type: ignore[assignment]
    elif what == "unlink":
        real_unlink = os.unlink

        def unlink(path: Any, *args: Any, **kwargs: Any) -> None:
            if str(path).endswith(spool.CLAIMED):
                os._exit(9)
            real_unlink(path, *args, **kwargs)

        os.unlink = unlink  # type: ignore[assignment]
    ingest.ingest(where, wait=10.0)
    os._exit(0)  # the crash point was never reached


@pytest.mark.parametrize("point", list(CRASH_POINTS))
def test_an_ingester_killed_at_any_step_counts_every_record_once(project: Path, point: str) -> None:
    spool_records(project, RECORDS)
    where = spool.spool_dir(str(project))
    what, call, when = CRASH_POINTS[point]
    child = multiprocessing.get_context("fork").Process(
        target=_ingest_dying_at, args=(where, what, call, when)
    )
    child.start()
    child.join(120)
    assert child.exitcode == 9, "the ingester did not die where the test meant it to"
    # more tool calls arrive meanwhile; then the next ingester runs to the end
    spool_records(project, 3, tag="late-")
    result = ingest.ingest(where)
    assert not result.left and not ingest.pending(where)
    commands, loads = expected(RECORDS)
    late_commands, late_loads = expected(3, ("late-",))
    assert counted(project) == (sorted(commands + late_commands), loads + late_loads)
    assert ingest.ingest(where).done == 0


def test_a_replayed_record_is_reported_and_writes_nothing(project: Path) -> None:
    spool_records(project, RECORDS)
    where = spool.spool_dir(str(project))
    child = multiprocessing.get_context("fork").Process(
        target=_ingest_dying_at, args=(where, "committed", 2, "after")
    )
    child.start()
    child.join(120)
    assert child.exitcode == 9
    result = ingest.ingest(where)
    # the second record was committed by the dead ingester: handed over again, written never
    assert (result.done, result.replayed, result.skipped) == (RECORDS - 2, 1, 0)


def test_the_cursor_is_written_with_the_rows(project: Path) -> None:
    spool_records(project, RECORDS)
    where = spool.spool_dir(str(project))
    ingest.ingest(where)
    with FailureStore.for_project(project) as store:
        path = store.path
    with closing(sqlite3.connect(path)) as conn, conn:
        [(key, segment, offset)] = conn.execute(
            "SELECT spool, segment, offset FROM spool_cursors"
        ).fetchall()
    assert key == os.path.basename(where)
    assert segment and offset > 0


def test_an_old_cursor_file_without_a_segment_still_ingests_once(project: Path) -> None:
    spool_records(project, RECORDS)
    where = spool.spool_dir(str(project))
    os.rename(os.path.join(where, spool.ACTIVE), os.path.join(where, spool.CLAIMED))
    with open(os.path.join(where, spool.CURSOR), "wb") as fh:
        fh.write(b"0\n")  # what the previous version wrote
    ingest.ingest(where)
    assert counted(project) == expected(RECORDS)


# --- ingesters that keep dying while others run ----------------------------------------------


def _write(project: str, writer: int, count: int) -> None:
    spool_records(Path(project), count, tag=f"w{writer}-")


def _ingest_and_die_sometimes(where: str, seed: int, stop: Any) -> None:
    """Ingest in a loop; now and then die right after a commit (os._exit), as a killed
    process would, and start again (a new process each time)."""
    rng = random.Random(seed)
    context = multiprocessing.get_context("fork")
    while not stop.is_set():
        call = rng.randint(1, 4)
        child = context.Process(target=_ingest_dying_at, args=(where, "committed", call, "after"))
        child.start()
        child.join(120)
        time.sleep(0.01)


def test_concurrent_ingesters_that_keep_dying_count_every_record_once(project: Path) -> None:
    where = spool.spool_dir(str(project))
    os.makedirs(where, exist_ok=True)
    context = multiprocessing.get_context("fork")
    stop = context.Event()
    ingesters = [
        context.Process(target=_ingest_and_die_sometimes, args=(where, seed, stop))
        for seed in range(2)
    ]
    writers = [context.Process(target=_write, args=(str(project), w, 24)) for w in range(3)]
    for process in ingesters + writers:
        process.start()
    for process in writers:
        process.join(240)
        assert process.exitcode == 0
    stop.set()
    for process in ingesters:
        process.join(240)
        assert process.exitcode == 0
    ingest.ingest(where)
    tags = tuple(f"w{w}-" for w in range(3))
    assert counted(project) == expected(24, tags)
    assert not ingest.pending(where)
