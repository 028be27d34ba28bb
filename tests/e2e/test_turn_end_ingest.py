"""The Stop hook, registered async by init, with the real CLI.

In a session that lives on after its turn (interactive, or ``-p`` fed turns on stdin with
``--input-format stream-json``), a failing Bash call ends the turn and the background Stop hook
ingests it: the store holds the failure and the spool is empty BEFORE the user's next prompt,
with no SessionEnd involved. A one-shot ``-p`` run exits at the end of its only turn and the CLI
cancels the background hook at teardown (its debug log says "cancelled" about 10 ms after the
hook starts): nothing is lost there, SessionEnd ingests the spool."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import IO, Any

import pytest

from .conftest import E2E, explain, pokayokay_log
from .mock_api import text, tool_use

pytestmark = pytest.mark.e2e

FAILING_COMMAND = (
    "python3 -c 'import sys; print(\"E2E-STOP-MARK cannot reach registry.npmjs.org\", "
    "file=sys.stderr); sys.exit(4)'"
)


def spool_folder(e2e: E2E) -> Path:
    from pokayokay.infra import spool

    return Path(spool.spool_dir(str(e2e.project), {"POKAYOKAY_HOME": str(e2e.pokayokay_home)}))


def spooled_bytes(e2e: E2E) -> int:
    folder = spool_folder(e2e)
    return sum(
        (folder / name).stat().st_size
        for name in ("active.spool", "claimed.spool")
        if (folder / name).exists()
    )


def stored_failures(e2e: E2E) -> list[Any]:
    from pokayokay.failures.store import FailureStore

    db = e2e.state_dir() / "failures.db"
    if not db.is_file():
        return []
    with FailureStore(db) as store:
        return list(store.failures())


def user_message(content: str) -> bytes:
    message = {"type": "user", "message": {"role": "user", "content": content}}
    return (json.dumps(message) + "\n").encode()


def read_until_result(stdout: IO[bytes], seen: list[dict[str, Any]]) -> dict[str, Any]:
    """Stream-json events up to the turn's ``result`` (the CLI then waits for the next turn)."""
    for line in iter(stdout.readline, b""):
        try:
            event = json.loads(line)
        except ValueError:
            continue
        seen.append(event)
        if isinstance(event, dict) and event.get("type") == "result":
            return event
    raise AssertionError(f"the CLI ended before the turn's result: {seen[-3:]}")


def test_stop_ingests_the_turns_failure_before_the_next_prompt(e2e: E2E) -> None:
    e2e.init_pokayokay()
    [stop_group] = e2e.project_settings()["hooks"]["Stop"]
    assert stop_group["hooks"][0]["async"] is True

    first = "install the dependencies"
    e2e.mock.script(first, [
        [tool_use("Bash", {"command": FAILING_COMMAND, "description": "install"})],
        [text("STOP-DONE")],
    ])
    stderr_path = e2e.root / "stream-stderr.txt"
    with open(stderr_path, "wb") as err:
        proc = subprocess.Popen(
            [str(e2e.claude), "-p", "--input-format", "stream-json",
             "--output-format", "stream-json", "--verbose"],
            cwd=e2e.project, env=e2e.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=err, start_new_session=True,
        )
    assert proc.stdin is not None and proc.stdout is not None
    events: list[dict[str, Any]] = []
    try:
        proc.stdin.write(user_message(first))
        proc.stdin.flush()
        result = read_until_result(proc.stdout, events)
        assert result.get("result") == "STOP-DONE", events[-3:]

        # The turn ended; the session lives on, no SessionEnd has run and no prompt is sent:
        # only the background Stop hook can empty the spool into the store.
        # It then refreshes the caches the prompt reads from the store (the first prompt named
        # no path, so nothing had written the failure signals' cache before).
        from pokayokay.names import SUGGEST_FAILURES_FILE

        signals = e2e.state_dir() / SUGGEST_FAILURES_FILE
        give_up = time.monotonic() + 60
        while (spooled_bytes(e2e) or not signals.is_file()) and time.monotonic() < give_up:
            time.sleep(0.1)
        assert proc.poll() is None
        assert signals.is_file(), pokayokay_log(e2e)
        assert spooled_bytes(e2e) == 0, pokayokay_log(e2e)
        [record] = stored_failures(e2e)
        assert record.command == FAILING_COMMAND and record.exit_code == 4
        assert record.session_id == result.get("session_id")
        assert "E2E-STOP-MARK cannot reach registry.npmjs.org" in record.excerpt

        # The next prompt names a project file, so it reads failure signals: the spool is
        # empty, nothing is ingested twice.
        second = "now look at app.py and tell me what it prints"
        e2e.mock.script(second, [[text("SECOND-DONE")]])
        proc.stdin.write(user_message(second))
        proc.stdin.flush()
        assert read_until_result(proc.stdout, events).get("result") == "SECOND-DONE"
        proc.stdin.close()
        assert proc.wait(timeout=120) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdin.close()
        proc.stdout.close()
    assert len(stored_failures(e2e)) == 1
    assert spooled_bytes(e2e) == 0
    assert "Stop" not in stderr_path.read_text(errors="replace"), pokayokay_log(e2e)


def test_a_one_shot_run_loses_nothing_when_the_cli_cancels_the_stop_hook(e2e: E2E) -> None:
    e2e.init_pokayokay()
    run = e2e.run_claude(
        e2e.project,
        "install the dependencies",
        [[tool_use("Bash", {"command": FAILING_COMMAND, "description": "install"})],
         [text("STOP-DONE")]],
        debug=True,
    )
    assert run.exit_code == 0, explain(run, e2e)
    assert run.result_event.get("result") == "STOP-DONE"
    debug = run.debug_log.read_text(errors="replace") if run.debug_log else ""
    from pokayokay.hooks.events import HOOKED_EVENTS

    [spec] = [spec for spec in HOOKED_EVENTS if spec.event == "Stop"]
    # The CLI's debug log: "Registering async hook … (Stop) with timeout …ms".
    assert f"(Stop) with timeout {spec.timeout * 1000}ms" in debug
    # Whether the background Stop got anything done before the CLI cancelled it, SessionEnd
    # ingested the rest: the failure is stored once and the spool is empty.
    [record] = stored_failures(e2e)
    assert record.command == FAILING_COMMAND and record.session_id == run.session_id
    assert spooled_bytes(e2e) == 0
