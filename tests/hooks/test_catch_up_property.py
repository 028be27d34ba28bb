"""SessionStart's detached catch-up against every other ingester, in any order (decision 0130):
killed sessions spool failures, sessions start (each handing the spool to a worker that runs
later, or never), prompts and Stops ingest within their budgets, some while a worker holds the
spool's lock. Whatever the order: no call is stored twice, a worker leaves the spool empty, the
catch-up mark is there only while the spool holds calls, a hook waits for the worker at work and
for no one else, and in the end every call is stored once."""

from __future__ import annotations

import itertools
import json
import os
from pathlib import Path

import pytest
from helpers.hooks import held_lock
from helpers.hooks import sample_payload as sample
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pokayokay.failures.store import FailureStore
from pokayokay.hooks import catch_up, catch_up_worker, ingest
from pokayokay.infra import spool

STEPS = ("capture", "capture", "session_start", "worker", "prompt", "stop", "prompt_during_worker")
_projects = itertools.count()


def stored(project: Path) -> int:
    if not FailureStore.for_project(project).path.exists():
        return 0
    with FailureStore.for_project(project) as store:
        return len(store.failures())


def run_steps(home: Path, monkeypatch: pytest.MonkeyPatch, steps: list[str]) -> None:
    project = home / f"project-{next(_projects)}"
    project.mkdir()
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    launch = str(project)
    folder = spool.spool_dir(launch)
    mark = os.path.join(folder, spool.CATCH_UP)
    waiting: list[str] = []
    monkeypatch.setattr(catch_up, "start_worker", waiting.append)
    captures = 0
    for step in steps:
        if step == "capture":  # a call of a session that is then killed
            error = f"Exit code 2\nmake: *** [step{captures}] Error 2\n"
            payload = sample("PostToolUseFailure.Bash.json", project, session_id=f"k{captures}",
                             tool_use_id=f"toolu_01Prop{captures:05d}", error=error,
                             tool_input={"command": f"make step{captures}"})  # fmt: skip
            assert spool.spool("PostToolUseFailure", json.dumps(payload).encode())
            captures += 1
        elif step == "session_start":
            catch_up.catch_up(sample("SessionStart.startup.json", project))
        elif step == "worker" and waiting:
            catch_up_worker.catch_up_now(waiting.pop(0))
            assert not ingest.pending(folder), "a worker left calls in the spool"
        elif step in ("prompt", "stop"):
            ingest.ingest_project(launch, budget=0.25 if step == "prompt" else 1.5)
        elif step == "prompt_during_worker" and ingest.pending(folder):
            marked = os.path.exists(mark)
            holder = held_lock(folder, 0.05)
            try:
                result = ingest.ingest_project(launch, budget=2.0)
            finally:
                holder.join()
            # It waits for the worker (its mark), and for no other holder of the lock.
            assert result.busy is not marked
        assert stored(project) <= captures, "a call was stored twice"
        if os.path.exists(mark):
            assert ingest.pending(folder), "a catch-up mark on an empty spool"
    for launched in waiting:  # the workers that were started run in the end
        catch_up_worker.catch_up_now(launched)
    ingest.ingest_project(launch)  # what none of them took (no session started since)
    assert stored(project) == captures
    assert not ingest.pending(folder) and not os.path.exists(mark)


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=st.lists(st.sampled_from(STEPS), max_size=10))
def test_the_catch_up_and_the_hooks_store_every_call_once_in_any_order(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch, steps: list[str]
) -> None:
    run_steps(isolated_home, monkeypatch, steps)


@pytest.mark.slow
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=st.lists(st.sampled_from(STEPS), max_size=16))
def test_the_catch_up_and_the_hooks_store_every_call_once_in_any_order_slow(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch, steps: list[str]
) -> None:
    run_steps(isolated_home, monkeypatch, steps)
