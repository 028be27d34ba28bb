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
    memory = e2e.memory_file()
    text_now = memory.read_text(encoding="utf-8")
    assert AP_MARKER in text_now
    memory.write_text(text_now.replace(AP_MARKER, AP_MARKER + ENVIRONMENT_PATTERN), "utf-8")

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
