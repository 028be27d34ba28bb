"""The next session has the lesson (issue 24 item 8): three sessions fail the same way and
none of them runs SessionEnd or Stop (as when Claude is killed, or ``claude -p`` is torn down
first), and yet the rule they teach is on disk by session 4's first tool call: SessionStart's
detached catch-up (decision 0130) ingests the spool and graduates while the session starts, and
the first prompt waits until it has (decision 0140: the mock answers at once, so without that
wait the Read raced the worker and lost on a loaded CI machine), so the client loads the rule
next to session 4's first Read of the file."""

from __future__ import annotations

import pytest

from .conftest import E2E
from .mock_api import text, tool_use
from .test_graduation import (
    CART,
    THRESHOLD,
    add_shop,
    break_and_fix_turns,
    check_red_then_green,
    diagnosis,
    last_result,
    newest_message,
    result_text,
    rule_files,
)

pytestmark = pytest.mark.e2e


def test_three_sessions_without_session_end_teach_the_rule_session_4_loads(e2e: E2E) -> None:
    add_shop(e2e)
    e2e.init_pokayokay()
    project = e2e.project
    settings = e2e.project_settings()
    hooks = settings["hooks"]
    assert "SessionEnd" in hooks and "SessionStart" in hooks
    del hooks["SessionEnd"], hooks["Stop"]  # killed sessions: neither ever runs
    e2e.write_project_settings(settings)

    for number in range(1, THRESHOLD + 1):
        label = f"LATE{number}"
        run = e2e.run_claude(
            project, f"session {number}: change the cart", break_and_fix_turns(project, label)
        )
        check_red_then_green(run, label)
    # The third session's failure is still spooled: nothing graduated it yet.
    assert not rule_files(project), diagnosis(e2e)

    fourth = e2e.run_claude(
        project,
        "session 4: look at the cart",
        [[tool_use("Read", {"file_path": str(project / CART)})], [text("LATE4-DONE")]],
    )
    assert fourth.exit_code == 0, fourth.describe()
    assert fourth.result_event.get("result") == "LATE4-DONE", fourth.describe()
    [rule] = rule_files(project)
    heading = next(line for line in rule.read_text("utf-8").splitlines() if line.startswith("# "))
    assert heading.startswith("# Failing test `tests/test_cart.py::"), heading
    # Not loaded at start (it is path-scoped), loaded next to the first Read of the cart.
    assert f"Contents of {rule.resolve()}" not in fourth.main_requests[0].full_text
    with_cart = newest_message(fourth, 1)
    assert "def total(items)" in result_text(last_result(fourth, 1))
    assert f"Contents of {rule.resolve()}" in with_cart, with_cart[-3000:]
    assert heading in with_cart, with_cart[-3000:]
