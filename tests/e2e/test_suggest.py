"""Skill suggestion through the real client (issue 5): the UserPromptSubmit hook names the
project's skills that fit a prompt, with the reason, and says nothing for an unrelated prompt;
a spike question already answered gets its recorded conclusion and date instead of the spike
skill.

Claude Code itself lists the project's skills (name and description) to the model, so a skill
name showing up in a request proves nothing: the assertions look for pokayokay's own wording
("pokayokay: skills that fit this prompt — /<name> (<reason>)") right after the client's
``UserPromptSubmit hook additional context: `` prefix, and compare it with what
``pokayokay suggest --json`` computes for the same project and prompt.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from .conftest import E2E, RunResult, explain, pokayokay_log
from .mock_api import RecordedRequest, message_text, text

pytestmark = pytest.mark.e2e

DATA = Path(__file__).resolve().parents[1] / "data" / "suggest"
# A handful of the labelled skills, the spike skill among them.
SKILLS = ("testing", "debugging", "db-migrations", "docs", "performance", "release", "spike")

PROMPT_CONTEXT = "UserPromptSubmit hook additional context: "
PREFIX = "pokayokay: "
SUGGESTION_LEAD = "pokayokay: skills that fit this prompt — "
SPIKE_LEAD = "spike already answered on "
OPEN_TAG = "<pokayokay-recall>"

RELEVANT_PROMPT = "write unit tests for the invoice parser with pytest fixtures"
RELEVANT_SKILL = "testing"
UNRELATED_PROMPT = "What's a good name for a cat?"
SPIKE_QUESTION = "Can we use SQLite FTS5 for search?"
SPIKE_CONCLUSION = "FTS5 lacks per-tenant ranking; use Postgres full-text search instead"
SPIKE_PROMPT = "spike the question: can we use SQLite FTS5 for search? decide GO or NO-GO"

RELEVANT_REPLY = "E2E-SUGGEST-RELEVANT-7c3e"
UNRELATED_REPLY = "E2E-SUGGEST-UNRELATED-7c3e"
SPIKE_BEFORE_REPLY = "E2E-SUGGEST-SPIKE-BEFORE-7c3e"
SPIKE_AFTER_REPLY = "E2E-SUGGEST-SPIKE-AFTER-7c3e"


# --- helpers ---------------------------------------------------------------------------------


def install_skills(e2e: E2E) -> None:
    target = e2e.project / ".claude" / "skills"
    for name in SKILLS:
        shutil.copytree(DATA / "skills" / name, target / name)


def expected_top_skill(prompt: str) -> str:
    labelled = json.loads((DATA / "prompts.json").read_text(encoding="utf-8"))
    return next(str(p["expected"]) for p in labelled if p["prompt"] == prompt)


def assert_completed(run: RunResult, e2e: E2E, reply: str) -> None:
    assert run.exit_code == 0 and not run.timed_out, explain(run, e2e)
    assert run.result_event.get("subtype") == "success", explain(run, e2e)
    assert run.result_event.get("result") == reply, explain(run, e2e)


def cli_advice(e2e: E2E, prompt: str) -> dict[str, Any]:
    """What `pokayokay suggest --json` says for ``prompt`` in the test project."""
    data = json.loads(e2e.pokayokay("suggest", prompt, "--json").stdout)
    assert isinstance(data, dict), data
    return data


def hook_contexts(request: RecordedRequest) -> list[str]:
    """Every UserPromptSubmit additional context in the request, each up to its line's end
    (pokayokay's suggestion is one line)."""
    return re.findall(re.escape(PROMPT_CONTEXT) + r"([^\n]*)", request.full_text)


def every_request_text(run: RunResult) -> str:
    return "\n".join(r.full_text for r in run.requests)


def message_index(request: RecordedRequest, needle: str) -> int:
    found = [i for i, m in enumerate(request.messages) if needle in message_text(m)]
    assert found, f"{needle!r} is in no message of the request"
    return found[-1]


def excerpt(request: RecordedRequest, needle: str, width: int = 600) -> str:
    seen = request.full_text
    at = seen.find(needle)
    return seen[-3000:] if at < 0 else seen[max(0, at - width) : at + width]


# --- the tests ---------------------------------------------------------------------------------


def test_relevant_prompt_gets_the_skill_and_unrelated_prompt_gets_nothing(e2e: E2E) -> None:
    assert expected_top_skill(RELEVANT_PROMPT) == RELEVANT_SKILL
    install_skills(e2e)
    e2e.init_pokayokay()

    # What pokayokay computes for this project: the labelled skill, with a reason.
    advice = cli_advice(e2e, RELEVANT_PROMPT)
    suggested = [s["skill"] for s in advice["suggestions"]]
    assert suggested and suggested[0] == RELEVANT_SKILL, advice
    reasons = advice["suggestions"][0]["reasons"]
    assert reasons and all(r.strip() for r in reasons), advice
    expected = str(advice["context"])
    assert expected.startswith(f"{SUGGESTION_LEAD}/{RELEVANT_SKILL} ({'; '.join(reasons)})")
    assert reasons[0].startswith("matches ") and "pytest" in reasons[0], reasons

    # -- a relevant prompt: the suggestion is the hook's additional context ----------------------
    relevant = e2e.run_claude(e2e.project, RELEVANT_PROMPT, [[text(RELEVANT_REPLY)]])

    assert_completed(relevant, e2e, RELEVANT_REPLY)
    request = relevant.first_request
    seen = request.full_text
    # Claude Code lists the skill by itself too: only pokayokay's wording counts.
    assert RELEVANT_SKILL in seen
    assert hook_contexts(request) == [expected], excerpt(request, PROMPT_CONTEXT)
    assert PROMPT_CONTEXT + expected in seen
    assert seen.count(SUGGESTION_LEAD) == 1, excerpt(request, SUGGESTION_LEAD)
    # Beside the prompt (not in the session-start context), and nothing recalled.
    assert message_index(request, SUGGESTION_LEAD) >= message_index(request, RELEVANT_PROMPT)
    assert OPEN_TAG not in seen

    # -- an unrelated prompt: no pokayokay context reaches the model -----------------------------
    assert cli_advice(e2e, UNRELATED_PROMPT)["context"] == ""
    unrelated = e2e.run_claude(e2e.project, UNRELATED_PROMPT, [[text(UNRELATED_REPLY)]])

    assert_completed(unrelated, e2e, UNRELATED_REPLY)
    assert UNRELATED_PROMPT in unrelated.first_request.full_text
    everything = every_request_text(unrelated)
    for absent in (PROMPT_CONTEXT, SUGGESTION_LEAD, SPIKE_LEAD, OPEN_TAG, f"/{RELEVANT_SKILL} ("):
        assert absent not in everything, (
            f"{absent!r} reached the model for an unrelated prompt:\n"
            f"{excerpt(unrelated.first_request, absent)}"
        )
    # No pokayokay: line from the prompt hook in any message (the session-start tip aside).
    for req in unrelated.requests:
        for message in req.messages:
            body = message_text(message)
            assert f"{PREFIX}skills" not in body and f"{PREFIX}spike" not in body, body[-2000:]

    assert "Traceback" not in pokayokay_log(e2e), pokayokay_log(e2e)


def test_answered_spike_surfaces_the_conclusion_instead_of_the_spike_skill(e2e: E2E) -> None:
    install_skills(e2e)
    e2e.init_pokayokay()

    # -- before the spike is recorded, the prompt gets the spike skill ---------------------------
    before_advice = cli_advice(e2e, SPIKE_PROMPT)
    assert [s["skill"] for s in before_advice["suggestions"]][:1] == ["spike"], before_advice
    assert before_advice["spike"] is None
    before = e2e.run_claude(e2e.project, SPIKE_PROMPT, [[text(SPIKE_BEFORE_REPLY)]])

    assert_completed(before, e2e, SPIKE_BEFORE_REPLY)
    contexts = hook_contexts(before.first_request)
    assert contexts == [before_advice["context"]], excerpt(before.first_request, PROMPT_CONTEXT)
    assert contexts[0].startswith(f"{SUGGESTION_LEAD}/spike ("), contexts

    # -- record a NO-GO conclusion for the same question -----------------------------------------
    recorded = e2e.pokayokay("spike", "record", SPIKE_QUESTION, "--no-go", SPIKE_CONCLUSION)
    spike_file = e2e.memory_dir() / "spike-results.md"
    assert spike_file.is_file(), f"{recorded.stdout}\n{recorded.stderr}"
    entry = re.search(
        r"^## (\d{4}-\d{2}-\d{2}) — " + re.escape(SPIKE_QUESTION) + r"\n- Verdict: NO-GO\n"
        r"- Conclusion: " + re.escape(SPIKE_CONCLUSION) + r"$",
        spike_file.read_text(encoding="utf-8"),
        re.MULTILINE,
    )
    assert entry, spike_file.read_text(encoding="utf-8")
    day = entry[1]
    assert day in recorded.stdout, recorded.stdout

    # -- the same question again: the prior conclusion and its date, not the spike skill ---------
    after_advice = cli_advice(e2e, SPIKE_PROMPT)
    assert after_advice["spike"] == {
        "date": day,
        "question": SPIKE_QUESTION,
        "verdict": "NO-GO",
        "conclusion": SPIKE_CONCLUSION,
    }, after_advice
    assert "spike" not in [s["skill"] for s in after_advice["suggestions"]], after_advice
    after = e2e.run_claude(e2e.project, SPIKE_PROMPT, [[text(SPIKE_AFTER_REPLY)]])

    assert_completed(after, e2e, SPIKE_AFTER_REPLY)
    request = after.first_request
    seen = request.full_text
    answered = f"{SPIKE_LEAD}{day}: “{SPIKE_QUESTION}” — NO-GO: {SPIKE_CONCLUSION}."
    contexts = hook_contexts(request)
    assert contexts == [after_advice["context"]], excerpt(request, PROMPT_CONTEXT)
    assert contexts[0].startswith(PREFIX) and answered in contexts[0], contexts
    assert PROMPT_CONTEXT + PREFIX in seen
    # The spike skill is still installed, but pokayokay does not suggest it.
    assert "/spike (" not in seen and "/spike." not in contexts[0], contexts
    assert message_index(request, SPIKE_LEAD) >= message_index(request, SPIKE_PROMPT)

    assert "Traceback" not in pokayokay_log(e2e), pokayokay_log(e2e)
