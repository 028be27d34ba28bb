"""The spool never grows without bound, and Stop never spends its timeout on it (issue 26).

Sessions killed one after the other run no Stop and no SessionEnd, so their tool calls pile up
in the spool. The cap is enforced by the ingest side, never by a writer refusing a record: a
hook ingester that leaves the spool above ``SPOOL_CAP_BYTES`` starts a detached
``pokayokay graduate``, which ingests everything (no hook timeout over it). Stop ingests within
its small budget and leaves the rest."""

from __future__ import annotations

import itertools
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from helpers.hooks import run_hook
from helpers.hooks import sample_payload as sample
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pokayokay.failures.store import FailureStore
from pokayokay.hooks import ingest, turn_end
from pokayokay.infra import spool


@pytest.fixture
def project(project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    return project


def spool_failures(project: Path, count: int, start: int = 0, pad: int = 0) -> None:
    for n in range(start, start + count):
        payload = sample(
            "PostToolUseFailure.Bash.json",
            project,
            session_id=f"killed-{n // 150}",
            tool_use_id=f"toolu_01Cap{n:06d}",
            tool_input={"command": f"make step{n}"},
            error=f"Exit code 2\nmake: *** [step{n}] Error 2\n" + "x" * pad,
        )
        assert spool.spool("PostToolUseFailure", json.dumps(payload).encode())


def stored_count(project: Path) -> int:
    with FailureStore.for_project(project) as store:
        return len(store.failures())


@pytest.fixture
def detached(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    started: list[list[str]] = []
    import pokayokay.infra.detach as detach

    monkeypatch.setattr(detach, "detach_command", lambda args, why: started.append(args))
    return started


# --- what the cap measures --------------------------------------------------------------------

_launches = itertools.count()


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    sizes=st.lists(st.integers(min_value=0, max_value=3000), min_size=1, max_size=12),
    taken=st.integers(min_value=0, max_value=12),
    after=st.lists(st.integers(min_value=0, max_value=3000), max_size=4),
)
def test_spool_bytes_is_exactly_what_no_ingester_has_taken(
    isolated_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    sizes: list[int],
    taken: int,
    after: list[int],
) -> None:
    """Whatever records were spooled, however far an ingester got in the claimed segment, and
    whatever was spooled after the claim: ``spool_bytes`` counts the unread bytes, no more, no
    less (a cap on anything else could start background work for nothing, or never)."""
    where = f"/launch/{next(_launches)}"
    env = dict(os.environ, CLAUDE_PROJECT_DIR=where)
    folder = spool.spool_dir(where, env)
    record_sizes = []
    for size in sizes:
        before = ingest.spool_bytes(folder)
        spool.spool("PostToolUseFailure", json.dumps({"error": "e" * size}).encode(), env)
        record_sizes.append(ingest.spool_bytes(folder) - before)
    assert ingest.spool_bytes(folder) == sum(record_sizes)
    calls = itertools.count()

    def handler(record: Any, result: ingest.IngestResult) -> str | None:
        return None if next(calls) >= taken else ""  # None: a transient error, it stays

    monkeypatch.setattr(ingest, "_handle", handler)
    ingest.ingest(folder)
    left = sum(record_sizes[taken:])
    assert ingest.spool_bytes(folder) == left
    assert ingest.pending(folder) == (left > 0)
    for size in after:
        data = json.dumps({"error": "a" * size}).encode()
        spool.spool("PostToolUseFailure", data, env)
        left += len(spool.encode_record("PostToolUseFailure", where, time.time_ns(), data))
    assert ingest.spool_bytes(folder) == left


# --- Stop -------------------------------------------------------------------------------------


def test_stop_spends_its_small_budget_and_leaves_the_rest_in_the_spool(
    project: Path, monkeypatch: pytest.MonkeyPatch, detached: list[list[str]]
) -> None:
    """A spool five seconds of work long (the whole of the old budget): Stop returns after its
    own budget, with every record either stored or still spooled."""
    spool_failures(project, 100)
    real = ingest._handle

    def slow(record: Any, result: ingest.IngestResult) -> str | None:
        time.sleep(0.05)
        return real(record, result)

    monkeypatch.setattr(ingest, "_handle", slow)
    started = time.monotonic()
    code, out, err = run_hook("Stop", sample("Stop.json", project))
    spent = time.monotonic() - started
    assert (code, out, err) == (0, "", "")
    assert turn_end.STOP_INGEST_BUDGET <= 2.0
    assert spent < turn_end.STOP_INGEST_BUDGET + 1.5
    done = stored_count(project)
    assert 0 < done < 100
    assert ingest.pending(spool.spool_dir(str(project)))
    assert detached == []  # under the cap: the next ingester takes the rest
    monkeypatch.setattr(ingest, "_handle", real)
    assert ingest.ingest_project(str(project)).done == 100 - done


def test_a_spool_over_the_cap_goes_to_a_detached_ingester_and_nothing_is_dropped(
    project: Path, monkeypatch: pytest.MonkeyPatch, detached: list[list[str]]
) -> None:
    spool_failures(project, 30, pad=2000)
    folder = spool.spool_dir(str(project))
    monkeypatch.setattr(ingest, "SPOOL_CAP_BYTES", ingest.spool_bytes(folder) // 3)
    monkeypatch.setattr(turn_end, "STOP_INGEST_BUDGET", 0.0)

    assert run_hook("Stop", sample("Stop.json", project)) == (0, "", "")

    assert detached == [["graduate", "--quiet", "--project", str(project)]]
    from pokayokay.cli.main import main

    assert main(detached[0]) == 0  # what the detached process runs: everything ingested
    assert not ingest.pending(folder)
    assert stored_count(project) == 30


def test_a_spool_another_ingester_is_draining_starts_nothing(
    project: Path, monkeypatch: pytest.MonkeyPatch, detached: list[list[str]]
) -> None:
    import fcntl

    spool_failures(project, 5)
    folder = spool.spool_dir(str(project))
    monkeypatch.setattr(ingest, "SPOOL_CAP_BYTES", 0)
    fd = os.open(os.path.join(folder, spool.LOCK), os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        assert run_hook("Stop", sample("Stop.json", project)) == (0, "", "")
    finally:
        os.close(fd)
    assert detached == []  # the lock's holder is at work already
    assert run_hook("Stop", sample("Stop.json", project)) == (0, "", "")
    assert detached == []  # it ingested everything itself: nothing over the cap
    assert stored_count(project) == 5


def test_killed_sessions_keep_the_spool_under_its_cap(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Session after killed session (no Stop, no SessionEnd: only SessionStart runs), the
    spool never holds more than one session's calls, and every call is stored: each
    SessionStart hands the spool to its detached catch-up (decision 0130)."""
    from pokayokay.hooks import catch_up, catch_up_worker

    started: list[str] = []
    monkeypatch.setattr(catch_up, "start_worker", started.append)
    folder = spool.spool_dir(str(project))
    spool_failures(project, 20, pad=1000)
    one_session = ingest.spool_bytes(folder)
    largest = 0
    for n in range(1, 8):
        assert run_hook("SessionStart", sample("SessionStart.startup.json", project))[0] == 0
        assert started == [str(project)]
        # the detached worker runs (here: at once, in-process)
        assert catch_up_worker.main([started.pop()]) == 0
        assert not ingest.pending(folder)
        spool_failures(project, 20, start=20 * n, pad=1000)  # the next killed session
        largest = max(largest, ingest.spool_bytes(folder))
    assert largest <= one_session + 4096
    assert stored_count(project) == 140  # the last session's calls wait for the next start
    assert ingest.ingest_project(str(project)).done == 20
    assert stored_count(project) == 160
