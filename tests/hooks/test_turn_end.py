"""Stop: the turn's spooled tool calls are ingested in the background when Claude finishes its
turn, so the user's next prompt finds the spool empty. Nothing reaches the model, nothing is
decided, a failure is logged with one stderr line, and a Stop racing the next prompt's ingest
still counts every record exactly once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers.hooks import prompt_payload, run_hook
from helpers.paths import FIXTURE_SAMPLES_DIR, REPO_ROOT

from pokayokay.failures.store import FailureStore
from pokayokay.hooks import ingest
from pokayokay.hooks.events import HOOKED_EVENTS
from pokayokay.infra import spool
from pokayokay.names import FAILURES_DB

SAMPLE_ROOT = "/home/dev/project"
SPOOL_PY = REPO_ROOT / "pokayokay" / "infra" / "spool.py"

PUSH = "git push origin feature/checkout"
PUSH_ERROR = (
    "Exit code 128\n"
    "remote: Invalid username or token. Password authentication is not supported for Git "
    "operations.\n"
    "fatal: Authentication failed for "
    "'https://ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8@github.com/acme/shop.git/'"
)
TSC = "npx tsc --noEmit -p ."
TSC_ERROR = (
    "Exit code 2\n"
    "src/cart.ts(41,7): error TS2322: Type 'string' is not assignable to type 'number'.\n"
    "src/cart.ts(58,19): error TS2339: Property 'totl' does not exist on type 'Cart'.\n"
    "Found 2 errors in the same file, starting at: src/cart.ts:41"
)


@pytest.fixture
def project(project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (project / "src").mkdir()
    (project / "src" / "cart.ts").write_text("export const total = 0;\n")
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    return project


def sample(name: str, project: Path) -> dict[str, Any]:
    text = (FIXTURE_SAMPLES_DIR / name).read_text(encoding="utf-8")
    payload: dict[str, Any] = json.loads(text.replace(SAMPLE_ROOT, str(project)))
    return payload


def spool_failure(
    project: Path, command: str, error: str, n: int, session: str | None = None
) -> None:
    """A failed Bash call as the registered hook spools it: the spool file, no site."""
    payload = sample("PostToolUseFailure.Bash.json", project)
    if session is not None:
        payload["session_id"] = session
    payload["tool_input"] = {"command": command, "description": "check the build"}
    payload["error"] = error
    payload["tool_use_id"] = f"toolu_01Stop{n:04d}"
    result = subprocess.run(
        [sys.executable, "-S", "-E", str(SPOOL_PY), "PostToolUseFailure"],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=dict(os.environ, CLAUDE_PROJECT_DIR=str(project)),
        timeout=60,
    )
    assert (result.returncode, result.stderr) == (0, b"")


def folder(project: Path) -> str:
    return spool.spool_dir(str(project))


def stored_commands(project: Path) -> list[str]:
    with FailureStore.for_project(project) as store:
        return sorted(str(f.command) for f in store.failures())


def test_stop_is_registered_in_the_background_with_room_for_its_budget() -> None:
    from pokayokay.hooks.turn_end import STOP_INGEST_BUDGET

    [spec] = [spec for spec in HOOKED_EVENTS if spec.event == "Stop"]
    assert spec.background and spec.matcher is None
    assert spec.timeout >= STOP_INGEST_BUDGET * 2
    # Only Stop runs in the background: every other handler's output or timing matters.
    assert [s.event for s in HOOKED_EVENTS if s.background] == ["Stop"]


@pytest.mark.parametrize("name", ["Stop.json", "Stop.stop_hook_active.json"])
def test_stop_ingests_the_turns_failures_and_says_nothing(project: Path, name: str) -> None:
    spool_failure(project, PUSH, PUSH_ERROR, 1)
    spool_failure(project, TSC, TSC_ERROR, 2)
    assert ingest.pending(folder(project))

    code, out, err = run_hook("Stop", sample(name, project))

    assert (code, out, err) == (0, "", "")  # no decision, no context: the turn just ends
    assert not ingest.pending(folder(project))
    assert set(stored_commands(project)) == {PUSH, TSC}  # tsc: one row per mistake
    with FailureStore.for_project(project) as store:
        stored = " ".join(f.excerpt + " " + f.signature for f in store.failures())
    assert "ghp_a1B2" not in stored and "[redacted:github-token]" in stored
    assert "TS2339" in stored


def test_a_stop_with_nothing_spooled_opens_no_store(project: Path) -> None:
    from pokayokay.infra.state import project_state_dir

    code, out, err = run_hook("Stop", sample("Stop.json", project))
    assert (code, out, err) == (0, "", "")
    assert not (project_state_dir(str(project)) / FAILURES_DB).exists()


def test_a_failing_ingest_is_logged_with_one_line_and_the_record_stays(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spool_failure(project, TSC, TSC_ERROR, 1)
    lock = Path(folder(project)) / spool.LOCK
    lock.mkdir()  # the ingest lock cannot be opened: an OSError inside the ingest

    code, out, err = run_hook("Stop", sample("Stop.json", project))

    assert (code, out, err) == (0, "", "")
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("pokayokay: Stop: ingesting the spool skipped: ")
    log = Path(line.rsplit("(details: ", 1)[1].rstrip(")"))
    assert "Stop: ingesting the spool skipped" in log.read_text()
    assert ingest.pending(folder(project))  # nothing lost: the next ingester takes it
    lock.rmdir()
    assert ingest.ingest_project(str(project)).done == 1
    assert set(stored_commands(project)) == {TSC}


def test_a_refused_launch_folder_fails_open_quietly_for_the_model(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project / "gone"))
    code, out, err = run_hook("Stop", sample("Stop.json", project))
    assert (code, out, err) == (0, "", "")
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("pokayokay: Stop: locating the project skipped: ")


# --- a Stop racing the next prompt's ingest ---------------------------------------------------


def _hook(event: str, payload: dict[str, Any], project: Path) -> subprocess.Popen[bytes]:
    """``pokayokay hook <Event>`` as its own process, as Claude Code starts it."""
    process = subprocess.Popen(
        [sys.executable, "-m", "pokayokay", "hook", event],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(os.environ, CLAUDE_PROJECT_DIR=str(project)),
    )
    assert process.stdin is not None
    process.stdin.write(json.dumps(payload).encode())
    process.stdin.close()
    process.stdin = None  # communicate() only reads now
    return process


def test_stop_racing_the_next_prompt_ingests_every_failure_once(project: Path) -> None:
    prompt = prompt_payload(
        project, "tsc still fails on src/cart.ts, can you look at the Cart type again?"
    )
    expected: list[str] = []
    for turn in range(4):
        commands = [f"make dist-{turn}-{n}" for n in range(5)]
        for n, command in enumerate(commands):
            error = f"Exit code 2\nmake: *** No rule to make target 'dist-{turn}-{n}'.  Stop."
            spool_failure(project, command, error, turn * 10 + n)
        expected += commands
        # The turn ends and the user answers at once: both ingest the same spool.
        stop = _hook("Stop", sample("Stop.json", project), project)
        asked = _hook("UserPromptSubmit", prompt, project)
        for process in (stop, asked):
            _, err = process.communicate(timeout=120)
            assert (process.returncode, err) == (0, b"")
    ingest.ingest_project(str(project))  # what a budget left, if anything
    assert stored_commands(project) == sorted(expected)
    assert not ingest.pending(folder(project))


# --- the next prompt after a Stop: the caches it reads are fresh ------------------------------

CART_ERROR = (
    "Exit code 1\n"
    "============================= test session starts ==============================\n"
    "collected 12 items\n\n"
    "tests/test_cart.py ...F........                                          [100%]\n\n"
    "FAILED tests/test_cart.py::test_add - assert 3 == 4\n"
    "========================= 1 failed, 11 passed in 0.41s ========================="
)
NEXT_PROMPT = "test_add in tests/test_cart.py fails again after the refactor, what fixed it before?"


def spool_fix_episode(project: Path, n: int) -> None:
    """A failing test, the edit that fixes it and the passing rerun, as the hooks spool them
    (session ``n``)."""
    (project / "tests").mkdir(exist_ok=True)
    (project / "tests" / "test_cart.py").write_text("def test_add():\n    assert 3 == 4\n")
    (project / "src" / "cart.py").write_text("def add(a, b):\n    return a + b\n")
    command = "pytest tests/test_cart.py"
    session = f"5e55107a-0000-4000-8000-{n:012d}"
    spool_failure(project, command, CART_ERROR, 100 + n, session)
    edit = sample("PostToolUse.Edit.json", project)
    edit.update(session_id=session)
    edit["tool_input"]["file_path"] = str(project / "src" / "cart.py")
    success = sample("PostToolUse.Bash.json", project)
    success.update(session_id=session)
    success["tool_input"]["command"] = command
    env = dict(os.environ, CLAUDE_PROJECT_DIR=str(project))
    for payload in (edit, success):
        subprocess.run([sys.executable, "-S", "-E", str(SPOOL_PY), "PostToolUse"],
                       input=json.dumps(payload).encode(), env=env, check=True, timeout=60)


def prompt_without_sqlite(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[str, str]:
    """The next prompt, with SQLite out of reach: (its context, what it said on stderr)."""
    import sqlite3

    def no_store(*args: Any, **kwargs: Any) -> Any:
        raise sqlite3.OperationalError("the failure store was opened")

    payload = prompt_payload(project, NEXT_PROMPT)
    capsys.readouterr()
    with monkeypatch.context() as patch:
        patch.setattr(sqlite3, "connect", no_store)
        code, out, err = run_hook("UserPromptSubmit", payload)
    assert code == 0
    return out, err + capsys.readouterr().err


def warm_caches(project: Path) -> None:
    """A prompt before the turn: recall and the failure signals cached, as in a live session."""
    payload = prompt_payload(project, NEXT_PROMPT)
    assert run_hook("UserPromptSubmit", payload)[0] == 0


def test_after_the_stop_the_next_prompt_reads_no_store(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    spool_fix_episode(project, 1)
    spool_fix_episode(project, 2)
    ingest.ingest_project(str(project))
    warm_caches(project)
    spool_fix_episode(project, 3)  # the same failure and fix, in this turn

    assert run_hook("Stop", sample("Stop.json", project)) == (0, "", "")

    out, err = prompt_without_sqlite(project, monkeypatch, capsys)
    assert err == ""  # answered from the caches the Stop refreshed
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    # The third session is the one the Stop ingested: the signals are fresh, not stale.
    assert context == (
        "pokayokay: test `tests/test_cart.py::test_add` failed in 3 sessions in "
        "tests/test_cart.py: `assert 3 == 4`."
    )


def test_without_the_stop_the_next_prompt_rebuilds_from_the_store(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The control: the same turn ingested by anything but Stop leaves the caches stale, and
    # the prompt must read the store (here out of reach: it says so, fails open).
    spool_fix_episode(project, 1)
    spool_fix_episode(project, 2)
    ingest.ingest_project(str(project))
    warm_caches(project)
    spool_fix_episode(project, 3)
    ingest.ingest_project(str(project))

    _, err = prompt_without_sqlite(project, monkeypatch, capsys)
    assert "the failure store was opened" in err
