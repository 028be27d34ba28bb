"""Recall through the real client on realistic material (issue 12): a paraphrased prompt that
shares almost no words with a learning gets it in the request, fenced; a slash command and an
unrelated prompt get nothing.

Learnings are stored with `pokayokay remember` (the CLI `/remember` runs); each prompt is its own
`claude -p` session, the mock answering, so what reached the model is read from the request."""

from __future__ import annotations

import pytest

from .conftest import E2E, RunResult, explain, pokayokay_log, scripted_on
from .mock_api import text

pytestmark = pytest.mark.e2e

LEARNINGS = [
    "Run the test suite with `.venv/bin/python -m pytest`, never the system pytest: the system "
    "one misses the editable install and fails with ImportError on our plugins.",
    "Styles live in CSS modules next to each component (`Button.module.css`); only global "
    "resets and CSS variables go in `src/index.css`.",
    "Large uploads go straight from the browser to S3 with a presigned POST from "
    "`/api/uploads/presign`; never stream files through Django, the worker times out after 30 s.",
]
PARAPHRASE = "let users upload a 2 GB video"
EXPECTED = "presigned POST"
UNRELATED = "write a haiku about refactoring"
SLASH_ARGS = "Never deploy the billing service on Fridays: the finance team is away"
OPEN_TAG, CLOSE_TAG = "<pokayokay-recall>", "</pokayokay-recall>"
PROMPT_CONTEXT = "UserPromptSubmit hook additional context: "


def completed(run: RunResult, e2e: E2E, reply: str) -> str:
    assert run.exit_code == 0 and not run.timed_out, explain(run, e2e)
    assert run.result_event.get("result") == reply, explain(run, e2e)
    return "\n".join(r.full_text for r in run.requests)


def test_a_paraphrase_gets_its_learning_and_a_slash_command_or_unrelated_prompt_nothing(
    e2e: E2E, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pokayokay.recall.block import ADVISORY, REANCHOR

    e2e.init_pokayokay()
    for learning in LEARNINGS:
        e2e.pokayokay("remember", learning)

    # a paraphrase with no key word of the learning ("upload" aside): the learning is injected
    seen = completed(e2e.run_claude(e2e.project, PARAPHRASE, [[text("R-PARA")]]), e2e, "R-PARA")
    assert seen.count(OPEN_TAG) == 1 and seen.count(CLOSE_TAG) == 1, seen[-4000:]
    start = seen.index(OPEN_TAG)
    block = seen[start : seen.index(CLOSE_TAG) + len(CLOSE_TAG)]
    assert EXPECTED in block, block
    assert "CSS modules" not in block  # only what concerns the prompt
    assert seen[: start - len(ADVISORY) - 1].endswith(PROMPT_CONTEXT)
    assert REANCHOR in seen[start:]

    # a slash command: its own prompt is a command, not a task; nothing is recalled beside it
    with scripted_on(e2e, monkeypatch, f"<command-args>{SLASH_ARGS}</command-args>"):
        slash = e2e.run_claude(e2e.project, f"/remember {SLASH_ARGS}", [[text("R-SLASH")]])
    seen_slash = completed(slash, e2e, "R-SLASH")
    for absent in (OPEN_TAG, ADVISORY, PROMPT_CONTEXT):
        assert absent not in seen_slash, f"{absent!r} reached the model for a slash command"

    # an unrelated prompt: nothing
    seen_unrelated = completed(
        e2e.run_claude(e2e.project, UNRELATED, [[text("R-UNREL")]]), e2e, "R-UNREL"
    )
    for absent in (OPEN_TAG, ADVISORY, PROMPT_CONTEXT):
        assert absent not in seen_unrelated, f"{absent!r} reached the model for {UNRELATED!r}"
    assert "Traceback" not in pokayokay_log(e2e), pokayokay_log(e2e)
