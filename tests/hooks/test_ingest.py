"""Ingesting the spool: every record reaches its event's ordinary handler once, with the time
and project of the hook that spooled it; across crashes, parallel writers and concurrent
ingesters nothing is lost and nothing counted twice."""

from __future__ import annotations

import json
import multiprocessing
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from helpers.hooks import sample_payload as sample

from pokayokay.failures.store import FailureStore
from pokayokay.hooks import capture, ingest
from pokayokay.infra import spool
from pokayokay.install.handlers import spool_file

SPOOL_PY = Path(spool_file())  # the file init --absolute registers for these events


@pytest.fixture
def project(project: Path) -> Path:
    """The failing test file and the source file its fix edits exist, as in a real project."""
    for name in ("tests/test_cart.py", "src/cart.py"):
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text("# placeholder\n")
    return project


def failure(project: Path, command: str, error: str, n: int = 1, **changes: Any) -> dict[str, Any]:
    payload = sample("PostToolUseFailure.Bash.json", project, error=error, **changes)
    payload["tool_input"] = {"command": command, "description": "run the tests"}
    payload["tool_use_id"] = f"toolu_{n:04d}"
    return payload


def hook(event: str, payload: dict[str, Any], project: Path) -> None:
    """The registered command for a per-tool-call event: the spool file, no site."""
    env = dict(os.environ, CLAUDE_PROJECT_DIR=str(project))
    result = subprocess.run(
        [sys.executable, "-S", "-E", str(SPOOL_PY), event],
        input=json.dumps(payload).encode(), capture_output=True, env=env, timeout=60,
    )
    assert (result.returncode, result.stderr) == (0, b"")


def folder(project: Path) -> str:
    return spool.spool_dir(str(project))


def stored(project: Path) -> list[Any]:
    with FailureStore.for_project(project) as store:
        return store.failures()


PYTEST_ERROR = (
    "Exit code 1\n"
    "============================= test session starts ==============================\n"
    "collected 12 items\n\n"
    "tests/test_cart.py ...F........                                          [100%]\n\n"
    "FAILED tests/test_cart.py::test_add - assert 3 == 4\n"
    "========================= 1 failed, 11 passed in 0.41s ========================="
)


def test_a_fix_episode_spooled_then_ingested(project: Path) -> None:
    command = "pytest tests/test_cart.py"
    hook("PostToolUseFailure", failure(project, command, PYTEST_ERROR), project)
    session = sample("PostToolUseFailure.Bash.json", project)["session_id"]
    edit = sample("PostToolUse.Edit.json", project, session_id=session)
    edit["tool_input"]["file_path"] = str(project / "src" / "cart.py")
    hook("PostToolUse", edit, project)
    success = sample("PostToolUse.Bash.json", project, session_id=session)
    success["tool_input"]["command"] = command
    hook("PostToolUse", success, project)
    assert stored(project) == []  # nothing processed yet: the hooks only appended

    result = ingest.ingest_project(str(project))
    assert (result.done, result.skipped, result.left) == (3, 0, False)
    with FailureStore.for_project(project) as store:
        [group] = store.failure_groups()
    assert group.paths == ("src/cart.py", "tests/test_cart.py")  # the module the test tests too
    assert group.fix_paths == ("src/cart.py",)
    assert group.fix_commands == (command,)
    assert not ingest.pending(folder(project))
    assert ingest.ingest_project(str(project)).done == 0


def append(project: Path, event: str, payload: dict[str, Any], ts_ns: int) -> None:
    where = folder(project)
    os.makedirs(where, exist_ok=True)
    record = spool.encode_record(event, str(project), ts_ns, json.dumps(payload).encode())
    with open(os.path.join(where, spool.ACTIVE), "ab") as fh:
        fh.write(record)


def test_records_keep_the_time_and_project_of_their_hook(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    then = 1_760_000_000.25
    payload = failure(project, "make build", "Exit code 2\nmake: *** [build] Error 2")
    payload["cwd"] = str(tmp_path)  # the ingester's own project and cwd do not matter
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(tmp_path))
    append(project, "PostToolUseFailure", payload, int(then * 1e9))
    ingest.ingest(folder(project))
    [stored_failure] = stored(project)
    assert stored_failure.ts == pytest.approx(then)
    assert stored_failure.command == "make build"


def test_garbage_and_a_bad_record_are_passed_over_and_logged(project: Path) -> None:
    where = folder(project)
    os.makedirs(where)
    with open(os.path.join(where, spool.ACTIVE), "ab") as fh:
        fh.write(b"\x00\x01 torn bytes \n")
        fh.write(spool.encode_record("PostToolUseFailure", str(project), 1, b"{not json"))
    append(project, "PostToolUseFailure", failure(project, "tsc", "Exit code 2\nerror TS2322"),
           time.time_ns())
    result = ingest.ingest(folder(project))
    assert (result.done, result.skipped) == (1, 1)
    assert [f.command for f in stored(project)] == ["tsc"]
    log = (Path(os.environ["POKAYOKAY_HOME"]) / "logs" / "pokayokay.log").read_text()
    assert "passed over" in log and "bytes that are no record" in log


def test_a_transient_error_leaves_the_record_for_the_next_ingester(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(3):
        append(project, "PostToolUseFailure",
               failure(project, f"cmd{n}", f"Exit code 1\nboom {n}", n=n), time.time_ns())
    real = capture.post_tool_use_failure
    calls: list[str] = []

    def busy_once(payload: dict[str, Any], event: str) -> str:
        calls.append(payload["tool_use_id"])
        if len(calls) == 2:
            raise sqlite3.OperationalError("database is locked")
        return real(payload, event)

    monkeypatch.setattr(capture, "post_tool_use_failure", busy_once)
    first = ingest.ingest(folder(project))
    assert (first.done, first.left) == (1, True)
    second = ingest.ingest(folder(project))
    assert (second.done, second.left) == (2, False)
    assert calls == ["toolu_0000", "toolu_0001", "toolu_0001", "toolu_0002"]
    assert sorted(f.command for f in stored(project)) == ["cmd0", "cmd1", "cmd2"]


def test_a_budget_leaves_the_rest_in_order(project: Path) -> None:
    for n in range(5):
        append(project, "PostToolUseFailure",
               failure(project, f"cmd{n}", f"Exit code 1\nboom {n}", n=n), time.time_ns())
    assert ingest.ingest(folder(project), budget=0.0).left
    assert stored(project) == []
    assert ingest.ingest(folder(project)).done == 5


def test_a_hook_does_not_wait_for_another_ingester(project: Path) -> None:
    append(project, "PostToolUseFailure", failure(project, "x", "Exit code 1\nx"), 1)
    import fcntl

    fd = os.open(os.path.join(folder(project), spool.LOCK), os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        result = ingest.ingest_project(str(project), budget=0.2)
        assert (result.done, result.left) == (0, True)
    finally:
        os.close(fd)
    assert ingest.ingest_project(str(project)).done == 1


# --- crashes and concurrency ------------------------------------------------------------------


def _record_ids(log: str) -> Any:
    def recorder(payload: dict[str, Any], event: str) -> str:
        fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        os.write(fd, (payload["tool_use_id"] + "\n").encode())
        os.close(fd)
        return ""

    return recorder


def _crash_at(log: str, crash_id: str) -> Any:
    record = _record_ids(log)

    def handler(payload: dict[str, Any], event: str) -> str:
        if payload["tool_use_id"] == crash_id:
            os._exit(3)  # the ingester dies before this record is stored
        return record(payload, event)

    return handler


def _ingest_in_child(where: str) -> None:
    ingest.ingest(where, wait=10.0)


def test_a_crashed_ingester_loses_nothing_and_repeats_nothing(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(6):
        append(project, "PostToolUseFailure",
               failure(project, "c", "Exit code 1\nx", n=n), time.time_ns())
    log = str(tmp_path / "handled.log")
    context = multiprocessing.get_context("fork")
    monkeypatch.setattr(capture, "post_tool_use_failure", _crash_at(log, "toolu_0003"))
    child = context.Process(target=_ingest_in_child, args=(folder(project),))
    child.start()
    child.join(60)
    assert child.exitcode == 3
    # More tool calls arrive meanwhile, then the next ingester runs.
    append(project, "PostToolUseFailure", failure(project, "c", "Exit code 1\nx", n=6), 1)
    monkeypatch.setattr(capture, "post_tool_use_failure", _record_ids(log))
    assert ingest.ingest(folder(project)).done == 4
    assert Path(log).read_text().split() == [f"toolu_{n:04d}" for n in range(7)]


def _write_many(project: str, writer: int, count: int) -> None:
    for n in range(count):
        payload = {"session_id": f"s{writer}", "tool_name": "Bash", "cwd": project,
                   "tool_input": {"command": "x"}, "error": "Exit code 1\n" + "y" * (n * 97),
                   "tool_use_id": f"w{writer}-{n}"}
        spool.spool("PostToolUseFailure", json.dumps(payload).encode(),
                    dict(os.environ, CLAUDE_PROJECT_DIR=project))


def _ingest_until(where: str, stop: Any) -> None:
    while not stop.is_set():
        ingest.ingest(where, wait=0.0)
    ingest.ingest(where, wait=10.0)


def test_parallel_sessions_and_concurrent_ingesters_count_every_call_once(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = str(tmp_path / "handled.log")
    monkeypatch.setattr(capture, "post_tool_use_failure", _record_ids(log))
    context = multiprocessing.get_context("fork")
    stop = context.Event()
    where = folder(project)
    os.makedirs(where)
    ingesters = [context.Process(target=_ingest_until, args=(where, stop)) for _ in range(2)]
    writers = [context.Process(target=_write_many, args=(str(project), w, 60)) for w in range(4)]
    for process in ingesters + writers:
        process.start()
    for process in writers:
        process.join(120)
        assert process.exitcode == 0
    stop.set()
    for process in ingesters:
        process.join(120)
        assert process.exitcode == 0
    ingest.ingest(where)
    handled = Path(log).read_text().split()
    assert sorted(handled) == sorted(f"w{w}-{n}" for w in range(4) for n in range(60))
    assert not ingest.pending(where)


# --------------------------------------------------------------------------------------------
# UserPromptSubmit ingests only when it reads failure signals: when the prompt names a path


def prompt_hook(
    project: Path, prompt: str, monkeypatch: pytest.MonkeyPatch, budget: float = 60.0
) -> str:
    """The prompt hook in-process. Its ingest budget is generous unless a test is about the
    budget: what these tests check is which prompts ingest, not how fast (a 0.25 s budget made
    them fail on a loaded machine, where the first ingest creates the store)."""
    from pokayokay.hooks import prompt as prompt_module
    from pokayokay.hooks.prompt import user_prompt_submit

    monkeypatch.setattr(prompt_module, "PROMPT_INGEST_BUDGET", budget)
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    payload = sample("UserPromptSubmit.json", project, prompt=prompt, session_id="s-now")
    return user_prompt_submit(payload, "UserPromptSubmit")


def spool_two_sessions_of_failures(project: Path) -> None:
    for n, session in enumerate(("s-earlier", "s-now"), start=1):
        hook("PostToolUseFailure", failure(project, "pytest tests/test_cart.py", PYTEST_ERROR,
                                           n, session_id=session), project)  # fmt: skip
    assert ingest.pending(folder(project))


def test_a_prompt_naming_a_project_file_ingests_first_and_sees_the_failures(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spool_two_sessions_of_failures(project)
    out = prompt_hook(project, "the cart test fails again, fix tests/test_cart.py", monkeypatch)
    assert not ingest.pending(folder(project))
    assert len(stored(project)) == 2
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    said = "test `tests/test_cart.py::test_add` failed in 2 sessions in tests/test_cart.py"
    assert said in context


def test_a_prompt_out_of_ingest_budget_answers_and_leaves_the_rest_for_later(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spool_two_sessions_of_failures(project)
    out = prompt_hook(project, "fix tests/test_cart.py", monkeypatch, budget=0.0)
    assert ingest.pending(folder(project))  # nothing taken in: the budget was spent at once
    assert "failures recurred" not in out
    ingest.ingest_project(str(project))  # the turn's Stop or SessionEnd takes it in
    assert len(stored(project)) == 2


def test_a_prompt_naming_no_path_leaves_the_spool_for_later(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spool_two_sessions_of_failures(project)
    for prompt in ("why is the cart total wrong after a discount?", "use time.sleep in the retry"):
        assert "failures recurred" not in prompt_hook(project, prompt, monkeypatch)
        assert ingest.pending(folder(project)), prompt
    assert not FailureStore.for_project(project).path.exists()
    ingest.ingest_project(str(project))  # SessionEnd or a CLI reader takes it in
    assert len(stored(project)) == 2


# The spool is ingested before the signals only when it can change whether a boost shows
# (pokayokay.hooks.spool_gate); otherwise the turn's Stop takes it in and the prompt reads the
# store as it is.


def pytest_error(test_file: str) -> str:
    return PYTEST_ERROR.replace("tests/test_cart.py", test_file)


def store_failures(project: Path, sessions: list[str], test_file: str = "tests/test_cart.py"):
    """Failures of ``test_file`` in ``sessions``, spooled and ingested (as Stop does)."""
    for n, session in enumerate(sessions, start=100):
        hook("PostToolUseFailure", failure(project, f"pytest {test_file}", pytest_error(test_file),
                                           n, session_id=session), project)  # fmt: skip
    ingest.ingest_project(str(project))
    assert not ingest.pending(folder(project))


def spool_failure_now(project: Path, test_file: str = "tests/test_cart.py") -> None:
    hook("PostToolUseFailure", failure(project, f"pytest {test_file}", pytest_error(test_file),
                                       7, session_id="s-now"), project)  # fmt: skip
    assert ingest.pending(folder(project))


def boost(out: str) -> str:
    if not out:
        return ""
    context: str = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    return next((line for line in context.splitlines() if " sessions " in line), "")


def test_a_failure_that_makes_a_group_recur_is_ingested_before_the_signals(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store_failures(project, ["s-earlier"])
    spool_failure_now(project)
    out = prompt_hook(project, "the cart test fails again, fix tests/test_cart.py", monkeypatch)
    assert not ingest.pending(folder(project))
    assert "failed in 2 sessions in tests/test_cart.py" in boost(out)


def _signals_cache(project: Path) -> tuple[bytes, Any]:
    """The failure signals' cache file (bytes) and what it holds when it is for the store as
    it is now (None when it is stale), read as the prompt reads it."""
    from pokayokay.infra import packed
    from pokayokay.infra.state import project_state_dir
    from pokayokay.names import FAILURES_CHANGED, FAILURES_DB, SUGGEST_FAILURES_FILE
    from pokayokay.recall.readers import stat_key
    from pokayokay.skills.failure_boost import signals_from_data

    state = project_state_dir(str(project))
    key = [stat_key(str(state / FAILURES_CHANGED)) or stat_key(str(state / FAILURES_DB))]
    data = (state / SUGGEST_FAILURES_FILE).read_bytes()
    return data, signals_from_data(packed.load(state / SUGGEST_FAILURES_FILE), key)


def test_a_prompt_that_ingests_leaves_the_signals_cache_to_the_turns_stop(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The prompt that stored the spooled failure reads the signals from the store and shows
    the boost, but leaves their cache (the shown lines of every failing test: the safety
    patterns compiled) to the turn's Stop, with a mark that Stop takes."""
    from pokayokay.hooks.turn_end import stop

    store_failures(project, ["s-earlier"])
    prompt = "the cart test fails again, fix tests/test_cart.py"
    assert boost(prompt_hook(project, prompt, monkeypatch)) == ""  # the cache written
    before, signals = _signals_cache(project)
    assert signals is not None and not signals.groups
    spool_failure_now(project)
    assert "failed in 2 sessions in tests/test_cart.py" in boost(
        prompt_hook(project, prompt, monkeypatch))  # fmt: skip
    assert not ingest.pending(folder(project))
    mark = os.path.join(folder(project), spool.CACHES_STALE)
    assert os.path.exists(mark)
    assert _signals_cache(project) == (before, None)  # not rewritten: stale now

    assert stop(sample("Stop.json", project, session_id="s-now"), "Stop") == ""
    assert not os.path.exists(mark)
    after, signals = _signals_cache(project)
    assert signals is not None, "the Stop left the cache stale"
    assert [g.sessions for g in signals.groups] == [2]
    assert signals.bounds is not None  # the Stop's refresh, with the gate's bounds
    # A Stop with no mark and nothing spooled refreshes nothing.
    stop(sample("Stop.json", project, session_id="s-now"), "Stop")
    assert _signals_cache(project)[0] == after


def test_a_failure_of_a_group_that_recurs_already_waits_for_the_turns_stop(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store_failures(project, ["s-a", "s-b"])
    spool_failure_now(project)
    prompt = "the cart test fails again, fix tests/test_cart.py"
    assert "failed in 2 sessions in tests/test_cart.py" in boost(
        prompt_hook(project, prompt, monkeypatch))  # fmt: skip
    assert ingest.pending(folder(project))  # only the count lagged
    ingest.ingest_project(str(project))
    assert "failed in 3 sessions in tests/test_cart.py" in boost(
        prompt_hook(project, prompt, monkeypatch))  # fmt: skip


def test_a_second_failure_in_the_same_session_cannot_make_it_recur(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store_failures(project, ["s-now"])
    spool_failure_now(project)
    prompt = "the cart test fails again, fix tests/test_cart.py"
    assert boost(prompt_hook(project, prompt, monkeypatch)) == ""
    assert ingest.pending(folder(project))
    ingest.ingest_project(str(project))  # and indeed: taken in, nothing recurs
    assert boost(prompt_hook(project, prompt, monkeypatch)) == ""


def test_a_failure_that_resolves_a_bare_file_name_is_ingested_first(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "tests" / "test_order.py").write_text("# placeholder\n")
    store_failures(project, ["s-a", "s-b"])
    spool_failure_now(project, "tests/test_order.py")
    out = prompt_hook(project, "the order test fails, look at test_order.py", monkeypatch)
    assert not ingest.pending(folder(project))
    assert "recurred in 2 sessions under tests/" in boost(out)


def test_the_gate_reads_failure_records_only_and_gives_up_on_a_large_spool(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pokayokay.hooks import spool_gate

    success = sample("PostToolUse.Bash.json", project, session_id="s-now")
    hook("PostToolUse", success, project)
    batch = sample("PostToolBatch.json", project, session_id="s-now")
    hook("PostToolBatch", batch, project)
    assert spool_gate.pending_failures(folder(project)) == []
    spool_failure_now(project)
    found = spool_gate.pending_failures(folder(project))
    assert [(session, where) for session, _data, where in found or []] == [("s-now", str(project))]
    monkeypatch.setattr(spool_gate, "SCAN_MAX", 1000)
    assert spool_gate.pending_failures(folder(project)) is None
    monkeypatch.setattr(spool_gate, "SCAN_MAX", 4 << 20)
    with open(os.path.join(folder(project), spool.ACTIVE), "ab") as fh:
        fh.write(b"not a record\n")
    assert spool_gate.pending_failures(folder(project)) is None  # the ingester sorts it out
    ingest.ingest_project(str(project))
    assert spool_gate.pending_failures(folder(project)) == []
    ingest.ingest_project(str(project))
    assert spool_gate.pending_failures(folder(project)) == []


def test_one_ingest_opens_the_store_once_not_once_a_record(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 26: opening and closing the store per record (with a WAL checkpoint) was three
    quarters of an ingest, and a killed session's 150 calls took a whole Stop budget."""
    for n in range(20):
        append(project, "PostToolUseFailure", failure(project, f"make t{n}", "Exit code 2\nno",
                                                      n=n), time.time_ns())  # fmt: skip
    real = sqlite3.connect
    opened: list[str] = []

    def connect(path: Any, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        opened.append(str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(sqlite3, "connect", connect)
    result = ingest.ingest(folder(project))
    assert result.done == 20
    assert len(opened) == 1
    monkeypatch.undo()
    assert len(stored(project)) == 20  # and the store was closed: another connection reads all
