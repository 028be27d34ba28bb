"""`/skill-phrases` through the real client (decision 0176): the command lists the installed
skills that have no phrases, the model writes how a user might ask for each and hands them to
`pokayokay skills --asked-from -` on the command's own `allowed-tools` (the user allows no Bash),
and a later prompt worded like those phrases, not like the skill's description, gets the skill
suggested; the phrases themselves never reach the model again.

The skills are two real ones (anthropics/skills' brand-guidelines and internal-comms, as copied
into ``tests/data/relevance_test2/skills``, a dev split); the later prompt was a dev miss: it
shares no word of substance with the brand-guidelines description.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from .conftest import E2E, explain, pokayokay_log
from .mock_api import text
from .test_remember_recall import (
    assert_completed,
    every_request_text,
    restrict_user_permissions,
    run_phrase_command,
)

pytestmark = pytest.mark.e2e

DATA = Path(__file__).resolve().parents[1] / "data" / "relevance_test2" / "skills"
SKILLS = ("brand-guidelines", "internal-comms")
PHRASES = {
    "brand-guidelines": [
        "make this slide deck look like our company's style",
        "which hex colours and fonts do we use for marketing material?",
        "the landing page uses the wrong shade of blue",
        "our logo looks off on this one-pager",
    ],
    "internal-comms": [
        "write the weekly status update for my team",
        "draft an announcement for the whole company",
        "turn these bullets into a newsletter for staff",
    ],
}
LATER_PROMPT = "the marketing site uses the wrong shade of blue, align it with our style guide"
SUGGESTION = "pokayokay: skills that fit this prompt — /brand-guidelines ("
PHRASES_REPLY = "E2E-SKILL-PHRASES-REPLY-5b1e"
LATER_REPLY = "E2E-SKILL-PHRASES-LATER-5b1e"


def test_claude_writes_how_a_user_might_ask_for_each_skill_and_a_paraphrase_gets_it(
    e2e: E2E, monkeypatch: pytest.MonkeyPatch
) -> None:
    restrict_user_permissions(e2e)
    for name in SKILLS:
        shutil.copytree(DATA / name, e2e.project / ".claude" / "skills" / name)
    e2e.init_pokayokay()
    assert (e2e.project / ".claude" / "commands" / "skill-phrases.md").is_file()
    before = json.loads(e2e.pokayokay("suggest", LATER_PROMPT, "--json").stdout)
    assert before["suggestions"] == [], "the prompt is a miss without phrases: pick another"

    first = run_phrase_command(
        e2e, monkeypatch, "skill-phrases", "skills", PHRASES, PHRASES_REPLY
    )

    assert_completed(first, e2e, PHRASES_REPLY)
    listing = every_request_text(first)
    # the two copied here and pokayokay's own capturing-learnings, which init installed
    assert "3 skill(s) have no phrases yet" in listing, explain(first, e2e)
    assert "- brand-guidelines: Applies Anthropic's official brand colors" in listing
    assert "- internal-comms: A set of resources" in listing
    assert "pokayokay skills --unasked --reply" not in listing  # the block's output replaced it
    results = every_request_text(first)
    assert "Noted how a user might ask for 2 skill(s): brand-guidelines, internal-comms." in (
        results
    ), explain(first, e2e)
    stored = json.loads((e2e.pokayokay_home / "skills-asked.json").read_text("utf-8"))
    kept = {entry["name"]: entry["asked"] for entry in stored["skills"].values()}
    assert kept == PHRASES

    second = e2e.run_claude(e2e.project, LATER_PROMPT, [[text(LATER_REPLY)]])

    assert_completed(second, e2e, LATER_REPLY)
    seen = second.first_request.full_text
    assert SUGGESTION in seen, seen[-4000:]
    assert len(re.findall(re.escape("pokayokay: skills that fit this prompt"), seen)) == 1
    for phrases in PHRASES.values():
        for phrase in phrases:
            assert phrase not in seen, f"a skill phrase reached the model: {phrase}"
    assert "Traceback" not in pokayokay_log(e2e), pokayokay_log(e2e)


FIRST_REPLY = "E2E-PHRASE-HINT-FIRST-7c2d"
SECOND_REPLY = "E2E-PHRASE-HINT-SECOND-7c2d"


def test_the_user_is_told_once_that_skills_have_no_phrases_and_the_model_never_is(
    e2e: E2E,
) -> None:
    """Decision 0178: SessionEnd keeps which skills visible here have no phrases; the next
    SessionStart tells the user in a ``systemMessage``, once, and the model never sees it."""
    for name in SKILLS:
        shutil.copytree(DATA / name, e2e.project / ".claude" / "skills" / name)
    init = e2e.init_pokayokay()
    assert "no phrases yet; run /skill-phrases once in Claude Code" in init.stdout, init.stdout

    first = e2e.run_claude(e2e.project, "summarise the README", [[text(FIRST_REPLY)]])
    assert_completed(first, e2e, FIRST_REPLY)
    # (print mode's stream-json does not carry a hook's systemMessage: what SessionStart said
    # is read from the file it keeps of the skills it mentioned)
    assert not (e2e.state_dir() / "skills-unasked-hinted.json").exists()  # no SessionEnd yet
    second = e2e.run_claude(e2e.project, "list the open TODOs", [[text(SECOND_REPLY)]])
    assert_completed(second, e2e, SECOND_REPLY)
    told = e2e.state_dir() / "skills-unasked-hinted.json"
    assert told.is_file(), explain(second, e2e)
    mentioned = told.stat().st_mtime_ns
    third = e2e.run_claude(e2e.project, "list the open TODOs again", [[text(SECOND_REPLY)]])

    assert {"brand-guidelines", "internal-comms", "capturing-learnings"} <= set(
        json.loads(told.read_text("utf-8"))["skills"].values()
    )
    for run in (first, second, third):
        assert "no phrases yet" not in every_request_text(run), "the hint reached the model"
    assert told.stat().st_mtime_ns == mentioned  # the third session mentioned nothing new
    assert "Traceback" not in pokayokay_log(e2e), pokayokay_log(e2e)
