"""SessionStart catches up on SessionEnds that never ran (issue 24 item 8, issue 26): three
killed sessions fail the same way, and the rule learnt from them is on disk moments after
session 4 starts (the detached catch-up: decision 0130), so Claude Code loads it the first time
session 4 reads the file. Driven through the registered commands: the spool file for
PostToolUseFailure and InstructionsLoaded, and ``python -m pokayokay hook SessionStart``, whose
detached worker the tests wait for."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers.hooks import held_lock, run_hook
from helpers.hooks import sample_payload as sample
from helpers.paths import REPO_ROOT

from pokayokay.failures.store import FailureStore
from pokayokay.hooks import catch_up, catch_up_worker, graduation_check, ingest
from pokayokay.infra import spool
from pokayokay.infra.state import project_state_dir
from pokayokay.rules.claude_match import paths_match
from pokayokay.rules.files import split_frontmatter

SPOOL_PY = REPO_ROOT / "pokayokay" / "infra" / "spool.py"
TEST_FILE = "tests/test_cart.py"
ERROR = (
    "Exit code 1\n"
    "FAILED tests/test_cart.py::test_total - AssertionError: assert 3 == 4\n"
    "1 failed in 0.12s"
)


@pytest.fixture
def project(project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (project / "tests").mkdir()
    (project / TEST_FILE).write_text("def test_total():\n    assert 3 == 4\n")
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    return project


def spooled(event: str, payload: dict[str, Any], project: Path) -> None:
    """What the registered command of a per-tool-call event does: the spool file, no site."""
    result = subprocess.run(
        [sys.executable, "-S", "-E", str(SPOOL_PY), event],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=dict(os.environ, CLAUDE_PROJECT_DIR=str(project)),
        timeout=60,
    )
    assert (result.returncode, result.stderr) == (0, b"")


def killed_session(project: Path, n: int) -> None:
    """A session that ran pytest, failed, and was killed: no Stop, no SessionEnd."""
    spooled(
        "PostToolUseFailure",
        sample(
            "PostToolUseFailure.Bash.json",
            project,
            session_id=f"killed-session-{n}",
            tool_use_id=f"toolu_01Killed{n:04d}",
            tool_input={"command": f"pytest {TEST_FILE}", "description": "run the tests"},
            error=ERROR,
        ),
        project,
    )


def session_start(project: Path, session_id: str) -> subprocess.CompletedProcess[bytes]:
    """The registered SessionStart command, as Claude Code runs it."""
    payload = sample("SessionStart.startup.json", project, session_id=session_id)
    return registered("SessionStart", payload, project)


def registered(
    event: str, payload: dict[str, Any], project: Path
) -> subprocess.CompletedProcess[bytes]:
    """The registered command of ``event``, as Claude Code runs it."""
    return subprocess.run(
        [sys.executable, "-m", "pokayokay", "hook", event],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=dict(os.environ, CLAUDE_PROJECT_DIR=str(project)),
        cwd=project,
        timeout=60,
    )


def wait_for_catch_up(project: Path, limit: float = 60.0) -> None:
    """Until the detached worker is done: nothing left to do (spool empty, evidence stamped)
    and no worker holds the lock (one may have finished its work but not its cache refresh)."""
    import fcntl
    import time

    from pokayokay.hooks.runtime import memory_paths

    key = memory_paths({"cwd": str(project)}).project_key
    lock = project_state_dir(str(key)) / catch_up_worker.LOCK_FILE
    give_up = time.monotonic() + limit
    while time.monotonic() < give_up:
        if not catch_up.work_left(str(project), key) and lock.exists():
            fd = os.open(lock, os.O_RDWR)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                pass  # still refreshing the caches
            finally:
                os.close(fd)
        time.sleep(0.05)
    raise AssertionError("the detached catch-up did not finish")


def rule_files(project: Path) -> list[Path]:
    return sorted((project / ".claude" / "rules" / "pokayokay").glob("*.md"))


def test_the_fourth_session_starts_with_the_rule_three_killed_sessions_taught(
    project: Path,
) -> None:
    for n in range(3):
        killed_session(project, n)
    assert not rule_files(project)

    result = session_start(project, "session-4")

    assert (result.returncode, result.stderr) == (0, b"")
    assert json.loads(result.stdout)["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    wait_for_catch_up(project)
    assert not ingest.pending(spool.spool_dir(str(project)))
    [rule] = rule_files(project)
    # Claude Code loads it when session 4 first reads the file: its paths match the file.
    front = split_frontmatter(rule.read_text(encoding="utf-8"))
    assert paths_match(front.data.get("paths"), TEST_FILE)
    assert "test_cart.py" in front.body
    # ...and the load Claude Code then reports is counted for the rule (InstructionsLoaded
    # through its registered command, ingested like any spooled call).
    rel = rule.relative_to(project).as_posix()
    spooled(
        "InstructionsLoaded",
        sample(
            "InstructionsLoaded.path_glob_match.json",
            project,
            session_id="session-4",
            file_path=str(rule),
            globs=front.data.get("paths"),
            trigger_file_path=str(project / TEST_FILE),
        ),
        project,
    )
    ingest.ingest_project(str(project))
    with FailureStore.for_project(project) as store:
        loads = store.rule_loads()
    assert [(load.session_id, load.rule_path) for load in loads] == [("session-4", rel)]


def test_two_killed_sessions_teach_no_rule_and_the_next_start_ingests_them(
    project: Path,
) -> None:
    for n in range(2):
        killed_session(project, n)
    result = session_start(project, "session-3")
    assert (result.returncode, result.stderr) == (0, b"")
    wait_for_catch_up(project)
    assert not ingest.pending(spool.spool_dir(str(project)))
    assert not rule_files(project)  # two sessions are below the graduation threshold
    with FailureStore.for_project(project) as store:
        assert len(store.failures()) == 2


def test_after_a_finished_session_end_session_start_opens_no_store(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(3):
        killed_session(project, n)
    assert run_hook("SessionEnd", sample("SessionEnd.other.json", project))[0] == 0
    assert rule_files(project)
    import pokayokay.failures.store as store_module

    opened: list[object] = []
    real_init = store_module.FailureStore.__init__

    def counting(self: Any, *args: Any, **kwargs: Any) -> None:
        opened.append(args)
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(store_module.FailureStore, "__init__", counting)
    assert catch_up.catch_up(sample("SessionStart.startup.json", project)) == ""
    assert opened == []


def test_graduation_already_stamped_is_not_run_again(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(3):
        killed_session(project, n)
    assert catch_up_worker.catch_up_now(str(project)) == "ingested 3, graduated"
    # A read moves the store's mtime past the stamp: the evidence itself decides.
    with FailureStore.for_project(project) as store:
        store.failures()
    ran: list[int] = []
    import pokayokay.rules.apply as apply

    monkeypatch.setattr(apply, "graduate_project", lambda *a, **k: ran.append(1))
    assert catch_up_worker.catch_up_now(str(project)) == ""
    assert ran == []
    # ...and the next SessionStart starts no worker at all: a few stats said so.
    started: list[str] = []
    monkeypatch.setattr(catch_up, "start_worker", started.append)
    assert catch_up.catch_up(sample("SessionStart.startup.json", project)) == ""
    assert started == []


def test_session_start_leaves_the_work_to_its_detached_worker_which_loses_nothing(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(3):
        killed_session(project, n)
    started: list[str] = []
    monkeypatch.setattr(catch_up, "start_worker", started.append)
    code, out, err = run_hook("SessionStart", sample("SessionStart.startup.json", project))
    assert (code, err) == (0, "")
    assert json.loads(out)["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert started == [str(project)]
    assert ingest.pending(spool.spool_dir(str(project)))  # untouched: left to the worker
    assert not FailureStore.for_project(project).path.exists()  # no store opened in the hook
    # The worker itself (its ``main``, in-process here): everything ingested, then graduated.
    assert catch_up_worker.main([str(project)]) == 0
    assert not ingest.pending(spool.spool_dir(str(project)))
    assert len(rule_files(project)) == 1
    with FailureStore.for_project(project) as store:
        assert len(store.failures()) == 3


def test_one_worker_at_a_time_and_the_second_leaves_the_spool_to_the_first(
    project: Path,
) -> None:
    import fcntl

    killed_session(project, 0)
    lock = project_state_dir(str(project)) / catch_up_worker.LOCK_FILE
    lock.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock, os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        assert catch_up_worker.catch_up_now(str(project)) == ""
        assert ingest.pending(spool.spool_dir(str(project)))
    finally:
        os.close(fd)
    assert catch_up_worker.catch_up_now(str(project)) == "ingested 1, graduated"
    assert not ingest.pending(spool.spool_dir(str(project)))


def test_the_worker_leaves_the_first_prompt_warm_caches(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store changed and graduation rewrote a rule: the worker rewrites the failure
    signals' cache for the store as it is now, and, once the new rule file is settled, the
    rule scopes with the answers for the paths prompts named before, so the session's first
    prompt reads caches instead of the store and the rule (decision 0130; Stop does the same
    for the signals after a turn)."""
    from pokayokay.infra import packed
    from pokayokay.names import (
        FAILURES_CHANGED,
        FAILURES_DB,
        RULE_SCOPES_FILE,
        SUGGEST_FAILURES_FILE,
    )
    from pokayokay.recall.readers import stat_key
    from pokayokay.rules import scopes
    from pokayokay.skills.failure_boost import signals_from_data

    monkeypatch.setattr(catch_up_worker, "SETTLE_WAIT", 3.5)
    state = project_state_dir(str(project))
    for n in range(3):
        killed_session(project, n)
    assert catch_up_worker.catch_up_now(str(project)) == "ingested 3, graduated"
    [rule] = rule_files(project)
    first = rule.read_bytes()
    # A prompt named the test file: its answer (the rule loads there) is cached.
    cache = str(state / RULE_SCOPES_FILE)
    rel = rule.relative_to(project / ".claude" / "rules").as_posix()
    assert scopes.rules_for_paths(project, cache, [TEST_FILE])[1] == [
        (f".claude/rules/{rel}", TEST_FILE)
    ]
    killed_session(project, 3)  # a fourth session: graduation rewrites the rule's counts
    assert catch_up_worker.catch_up_now(str(project)) == "ingested 1, graduated"
    assert rule_files(project) == [rule] and rule.read_bytes() != first
    # The key the prompt's cached_signals checks: the store's change marker as it is now.
    key = [stat_key(str(state / FAILURES_CHANGED)) or stat_key(str(state / FAILURES_DB))]
    data = packed.load(state / SUGGEST_FAILURES_FILE)
    signals = signals_from_data(data, key)
    assert signals is not None, "the cache is not for the store as the worker left it"
    assert [g.sessions for g in signals.groups] == [4]
    # The rule's new scope is cached with its file's stats, and the named path answered again.
    st = rule.stat()
    cached = packed.load(cache)
    assert cached["files"][rel][:2] == [st.st_size, st.st_mtime_ns]
    assert cached["loads"] == {TEST_FILE: [f".claude/rules/{rel}"]}


def test_the_registered_session_start_imports_no_ingester_store_or_subprocess(
    project: Path,
) -> None:
    """With a killed session's capture in the spool, SessionStart's own process stays on its
    light path: the detached worker (posix_spawn) does the ingest."""
    killed_session(project, 0)
    payload = sample("SessionStart.startup.json", project, session_id="s-next")
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "pokayokay", "hook", "SessionStart"],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=dict(os.environ, CLAUDE_PROJECT_DIR=str(project)),
        cwd=project,
        timeout=60,
    )
    assert result.returncode == 0
    imported = {
        line.rsplit("|", 1)[-1].strip()
        for line in result.stderr.decode().splitlines()
        if line.startswith("import time:")
    }
    heavy = {"subprocess", "sqlite3", "json", "pokayokay.hooks.ingest", "pokayokay.failures.store"}
    assert imported & heavy == set()
    assert "pokayokay.infra.detach" in imported  # it did start the worker
    wait_for_catch_up(project)
    with FailureStore.for_project(project) as store:
        assert len(store.failures()) == 1


def test_a_failing_catch_up_costs_the_session_nothing_but_a_logged_line(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    killed_session(project, 0)

    def broken(payload: dict[str, Any]) -> str:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(catch_up, "catch_up", broken)
    code, out, err = run_hook("SessionStart", sample("SessionStart.startup.json", project))
    assert code in (0, 1)
    assert json.loads(out)["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    said = (err + capsys.readouterr().err).strip().splitlines()
    assert len(said) == 1 and "catching up" in said[0]
    assert ingest.pending(spool.spool_dir(str(project)))  # left for the next ingester


def test_graduation_may_be_due_only_when_the_store_was_written_after_the_stamp(
    project: Path,
) -> None:
    from pokayokay.names import FAILURES_CHANGED

    folder = project_state_dir(str(project))
    assert not catch_up.graduation_may_be_due(project)  # no store
    killed_session(project, 0)
    ingest.ingest_project(str(project))
    assert catch_up.graduation_may_be_due(project)  # no stamp yet
    catch_up_worker.catch_up_now(str(project))  # one session: nothing graduates; stamped
    assert (folder / graduation_check.GRADUATED_STAMP).is_file()
    assert not catch_up.graduation_may_be_due(project)
    with FailureStore.for_project(project) as store:  # a read is no write
        store.failures()
    assert not catch_up.graduation_may_be_due(project)
    mark = folder / FAILURES_CHANGED
    later = mark.stat().st_mtime_ns + 10**9
    os.utime(mark, ns=(later, later))  # what every write to the store does
    assert catch_up.graduation_may_be_due(project)


def test_a_hook_waits_within_its_budget_for_the_catch_up_at_work_and_only_for_it(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A prompt right after SessionStart (``claude -p``) whose ingest finds the worker holding
    the spool's lock waits for it, within its budget, instead of reading the store without the
    killed session's calls; any other holder (a Stop) it does not wait for."""
    import time

    killed_session(project, 0)
    folder = spool.spool_dir(str(project))
    monkeypatch.setattr(catch_up, "start_worker", lambda launch: None)
    assert catch_up.catch_up(sample("SessionStart.startup.json", project)) == "detached"
    assert os.path.exists(os.path.join(folder, spool.CATCH_UP))

    holder = held_lock(folder, 0.2)
    started = time.monotonic()
    result = ingest.ingest_project(str(project), budget=2.0)
    holder.join()
    assert result.done == 1 and not result.busy
    assert 0.15 <= time.monotonic() - started < 2.0
    assert not os.path.exists(os.path.join(folder, spool.CATCH_UP))  # drained: moot
    # Without the mark (no catch-up at work), a hook does not wait for the lock's holder.
    killed_session(project, 1)
    holder = held_lock(folder, 0.5)
    started = time.monotonic()
    result = ingest.ingest_project(str(project), budget=2.0)
    assert result.busy and result.done == 0
    assert time.monotonic() - started < 0.4
    holder.join()
    assert ingest.ingest_project(str(project)).done == 1


@pytest.mark.parametrize(
    "text",
    [
        "look at the cart, what does it do?",
        "go",  # too short to recall anything, but Claude may still read the cart
        "/review",  # a slash command returns before recall, and may read files too
    ],
)
def test_the_first_prompt_after_the_catch_up_started_finds_the_rule_on_disk(
    project: Path, text: str
) -> None:
    """``claude -p``: the prompt comes right after SessionStart and the model may ask for a Read
    at once. Claude Code looks for path-scoped rules when a file is read, so the rule must be
    on disk before the prompt hook returns: the prompt waits for the worker's graduation,
    whatever the prompt is."""
    for n in range(3):
        killed_session(project, n)
    start = session_start(project, "session-4")
    assert (start.returncode, start.stderr) == (0, b"")

    prompt = registered(
        "UserPromptSubmit",
        sample("UserPromptSubmit.json", project, prompt=text),
        project,
    )

    assert (prompt.returncode, prompt.stderr) == (0, b"")
    [rule] = rule_files(project)  # no waiting here: the prompt hook did
    assert "test_cart.py" in rule.read_text(encoding="utf-8")
    mark = os.path.join(spool.spool_dir(str(project)), spool.CATCH_UP_RUNNING)
    assert not os.path.exists(mark)
    wait_for_catch_up(project)  # the cache refresh, before the test's folder goes


def test_the_running_mark_names_its_worker_which_alone_removes_it(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    killed_session(project, 0)
    folder = spool.spool_dir(str(project))
    mark = os.path.join(folder, spool.CATCH_UP_RUNNING)
    monkeypatch.setattr(catch_up, "start_worker", lambda launch: 424242)
    assert catch_up.catch_up(sample("SessionStart.startup.json", project)) == "detached"
    with open(mark, encoding="ascii") as handle:
        assert handle.read() == "424242"
    catch_up.clear_running(str(project), 1234)  # another worker's mark: left
    assert os.path.exists(mark)
    catch_up.clear_running(str(project), 424242)
    assert not os.path.exists(mark)
    catch_up.clear_running(str(project), 424242)  # gone already: nothing to do


def test_a_prompt_does_not_wait_on_a_mark_whose_worker_is_gone(project: Path) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    folder = spool.spool_dir(str(project))
    catch_up.mark_running(folder, gone.pid)
    mark = os.path.join(folder, spool.CATCH_UP_RUNNING)
    assert catch_up.wait_for_worker(mark, limit=30.0) < 10.0
    assert not os.path.exists(mark)  # removed: the next prompt pays one stat
    # A mark without a pid (started without posix_spawn) is trusted only for the limit.
    catch_up.mark_running(folder, None)
    old = os.stat(mark).st_mtime - 60
    os.utime(mark, (old, old))
    assert catch_up.wait_for_worker(mark, limit=30.0) < 10.0
    assert not os.path.exists(mark)


def test_a_prompt_waits_for_a_live_worker_until_it_clears_the_mark_or_the_limit(
    project: Path,
) -> None:
    import threading

    folder = spool.spool_dir(str(project))
    mark = os.path.join(folder, spool.CATCH_UP_RUNNING)
    catch_up.mark_running(folder, os.getpid())  # a live process: this one
    # the worker is past graduation no sooner than 0.3 s from now: the prompt waits for it,
    # and goes on when it clears the mark, long before its limit
    worker_done = threading.Timer(0.3, catch_up.clear_running, (str(project), os.getpid()))
    worker_done.start()
    waited = catch_up.wait_for_worker(mark, limit=30.0)
    worker_done.join()
    assert 0.25 <= waited < 30.0
    assert not os.path.exists(mark)
    # A worker still at work at the limit: the prompt goes on and leaves the mark to it.
    catch_up.mark_running(folder, os.getpid())
    assert catch_up.wait_for_worker(mark, limit=0.1) >= 0.1
    assert os.path.exists(mark)
