"""Manners through the real client (issue 23, item 4): the ``<task-notification>`` turn Claude
Code adds after a background subagent finished gets no recall and no skill suggestion, though
its words (the agent's description) would get both if a person typed them."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from .conftest import E2E, explain
from .mock_api import RecordedRequest, text, tool_use

pytestmark = pytest.mark.e2e

DATA = Path(__file__).resolve().parents[1] / "data" / "suggest"
PROMPT_CONTEXT = "UserPromptSubmit hook additional context: "
NOTE = (
    "Never run alembic upgrade head directly against the staging database; use make migrate "
    "ENV=staging, which takes the advisory lock first."
)
# What the agent is asked: the description Claude Code repeats in the notification's summary.
ASK = "write unit tests with pytest fixtures for the staging database migration lock"
MAIN_PROMPT = "E2E-MANNERS-7d1f start the background agent"


def _contexts(request: RecordedRequest) -> list[str]:
    return re.findall(re.escape(PROMPT_CONTEXT) + r"([^\n]*)", request.full_text)


def test_a_task_notification_turn_gets_no_recall_and_no_suggestion(e2e: E2E) -> None:
    e2e.init_pokayokay()
    for name in ("testing", "db-migrations"):
        shutil.copytree(DATA / "skills" / name, e2e.project / ".claude" / "skills" / name)
    e2e.pokayokay("remember", NOTE)
    typed = e2e.pokayokay("suggest", ASK, "--json").stdout
    assert '"testing"' in typed or '"db-migrations"' in typed  # the words do call for a skill
    recalled = e2e.pokayokay("recall", ASK).stdout
    assert "alembic upgrade head" in recalled  # ... and for the note

    agent = {
        "description": ASK,
        "prompt": "E2E-MANNERS-SUBAGENT do the work",
        "subagent_type": "general-purpose",
        "run_in_background": True,
    }
    run = e2e.run_claude(
        e2e.project,
        MAIN_PROMPT,
        [[tool_use("Agent", agent)], [text("E2E-MANNERS-WAITING")], [text("E2E-MANNERS-DONE")]],
        timeout=180,
    )
    assert run.exit_code == 0, explain(run, e2e)
    notified = [
        r for r in run.main_requests if "<task-notification>" in r.full_text
    ]
    assert notified, explain(run, e2e)
    last = notified[-1]
    # No hook context at all in the conversation: not for the main prompt (its words match
    # nothing), not for the notification. (The note itself is in the request anyway: Claude
    # Code loads the memory folder's files; pokayokay's fenced block is what recall adds.)
    assert _contexts(last) == [], _contexts(last)
    assert "<pokayokay-recall>" not in last.full_text
    assert "skills that fit this prompt" not in last.full_text
