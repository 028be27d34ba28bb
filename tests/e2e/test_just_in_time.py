"""The lesson at the moment of the mistake, with the real client (issue 16): a subagent starts
with the always-loaded lessons."""

from __future__ import annotations

import json

import pytest

from .conftest import E2E
from .mock_api import RecordedRequest, text, tool_use

pytestmark = pytest.mark.e2e

BAD = "python -m pytest -q tests/test_cart.py"
GOOD = ".venv/bin/python -m pytest -q tests/test_cart.py"
SUBAGENT_PROMPT = "SUBAGENT-ANCHOR run the cart tests and report"
ENVIRONMENT_PATTERN = (
    f"- How commands run here: use `{GOOD}`, not `{BAD}` (3 times); see "
    ".claude/rules/pokayokay/environment.md (3 sessions, since 2026-11-20)\n"
)
AP_MARKER = "<!-- pokayokay: graduated to .claude/rules/ when confirmed -->\n"


def subagent_requests(e2e: E2E) -> list[RecordedRequest]:
    return [
        r for r in e2e.mock.requests if r.body.get("tools") and SUBAGENT_PROMPT in r.full_text
        and r.kind != "main"
    ]


def test_a_subagent_first_request_carries_the_environment_lesson(e2e: E2E) -> None:
    e2e.init_pokayokay()
    # MEMORY.md as graduation leaves it: the environment lesson in Active Patterns.
    e2e.write_memory(
        "# Memory\n\n## Active Patterns\n"
        + AP_MARKER
        + ENVIRONMENT_PATTERN
        + "<!-- /pokayokay -->\n"
    )

    agent = {
        "description": "run the cart tests",
        "prompt": SUBAGENT_PROMPT,
        "subagent_type": "general-purpose",
    }
    run = e2e.run_claude(
        e2e.project,
        "delegate the cart tests to a subagent",
        [[tool_use("Agent", agent)], [text("SUBAGENT-DONE")]],
    )
    assert run.exit_code == 0, run.describe()
    found = subagent_requests(e2e)
    assert found, run.describe()
    first = found[0]
    body = json.dumps(first.body)
    assert "<pokayokay-lessons>" in first.full_text, body[:3000]
    assert f"use `{GOOD}`, not `{BAD}`" in first.full_text
    # The main conversation never got the subagent block: it has MEMORY.md itself.
    assert "<pokayokay-lessons>" not in run.first_request.full_text


# --- (a) and (b): the correction learnt over three sessions, at the failure and before it -------

FAKE_PYTHON = """#!/bin/sh
# The system python of this sandbox: pytest is not installed for it.
if [ "$1" = "-m" ] && [ "$2" = "pytest" ]; then
    echo "/usr/bin/python: No module named pytest" >&2
    exit 1
fi
exec /bin/false
"""
VENV_PYTHON = """#!/bin/sh
# The project's virtualenv python: the test suite passes here.
echo "tests/test_cart.py ....                                  [100%]"
echo "4 passed in 0.03s"
exit 0
"""


def sandbox(e2e: E2E) -> dict[str, str]:
    """The project with a `.venv/bin/python` that passes, and a `python` on PATH that lacks
    pytest: `python -m pytest` fails, `.venv/bin/python -m pytest` passes."""
    fake_bin = e2e.root / "system-bin"
    fake_bin.mkdir(exist_ok=True)
    (fake_bin / "python").write_text(FAKE_PYTHON, encoding="utf-8")
    (fake_bin / "python").chmod(0o755)
    venv = e2e.project / ".venv" / "bin"
    venv.mkdir(parents=True, exist_ok=True)
    (venv / "python").write_text(VENV_PYTHON, encoding="utf-8")
    (venv / "python").chmod(0o755)
    tests = e2e.project / "tests"
    tests.mkdir(exist_ok=True)
    (tests / "test_cart.py").write_text("def test_total():\n    assert 1 + 1 == 2\n", "utf-8")
    env = dict(e2e.env)
    env["PATH"] = f"{fake_bin}:{env['PATH']}"
    return env


def bash(command: str) -> list[dict[str, object]]:
    return [tool_use("Bash", {"command": command, "description": "run the cart tests"})]


def learn_the_correction(e2e: E2E, env: dict[str, str], sessions: int = 3) -> None:
    for n in range(sessions):
        run = e2e.run_claude(
            e2e.project,
            f"run the cart tests, session {n + 1}",
            [bash(BAD), bash(GOOD), [text("TESTS-PASS")]],
            env=env,
        )
        assert run.exit_code == 0, run.describe()
        results = run.main_requests[1].tool_results()
        assert results and results[0].get("is_error") is True, run.describe()


def test_the_fourth_session_gets_the_correction_next_to_the_failure(e2e: E2E) -> None:
    e2e.init_pokayokay()
    env = sandbox(e2e)
    learn_the_correction(e2e, env)

    run = e2e.run_claude(
        e2e.project, "run the cart tests once more", [bash(BAD), [text("SEEN")]], env=env
    )
    assert run.exit_code == 0, run.describe()
    after_failure = run.main_requests[1]
    results = after_failure.tool_results()
    assert results and results[0].get("is_error") is True
    lesson = (
        "pokayokay: "
        f"Run `{GOOD}`, not `{BAD}`: its dependencies live in `.venv`. "
        "It failed in 3 earlier sessions of this project too; "
        "the corrected form passed after it (3 times)."
    )
    assert lesson in after_failure.full_text, after_failure.full_text[-3000:]
    # The guard's default (hint) named the correction before the command ran, too.
    assert "It failed in 3 earlier sessions of this project; the corrected form passed." in (
        after_failure.full_text
    )


def test_guard_block_denies_the_known_bad_command_with_the_correction(e2e: E2E) -> None:
    e2e.init_pokayokay()
    env = sandbox(e2e)
    learn_the_correction(e2e, env)
    (e2e.project / ".claude" / "pokayokay.md").write_text("---\nguard: block\n---\n", "utf-8")

    run = e2e.run_claude(e2e.project, "run the cart tests, guarded", [bash(BAD), [text("OK")]],
                         env=env)
    assert run.exit_code == 0, run.describe()
    next_request = run.main_requests[1]
    [result] = next_request.tool_results()
    shown = json.dumps(result.get("content"))
    assert result.get("is_error") is True, shown
    assert "pokayokay guard" in shown and GOOD in shown and BAD in shown
    assert "This call was not run (guard: block)." in shown
