"""Recurring lint failures and the skill suggestion through the real client (issue 12): a prompt
naming a file whose ruff check failed in two sessions gets that fact, and no unrelated skill,
in the request the model receives.

The project holds skills written like a public collection (spreadsheets, Word, PDF, Playwright
testing, frontend design, pytest, code review, MCP servers): before issue 12 the ruff failures
boosted the spreadsheet skill (its description talks about "formatting"). The failures are
captured for real: two sessions run ``ruff check`` on the file through the Bash tool.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from .conftest import E2E, VENV_BIN, explain, failing_bash_sessions, pokayokay_log
from .mock_api import text

pytestmark = pytest.mark.e2e

SKILLS_DIR = Path(__file__).resolve().parents[1] / "data" / "skills_eval" / "skills"
SKILLS = ("xlsx", "docx", "pdf", "webapp-testing", "frontend-design", "python-testing",
          "code-review", "mcp-builder")  # fmt: skip
MODELS = "src/app/models.py"
MODELS_TEXT = 'import os\nimport sys\n\n\nclass Order:\n    """An order."""\n'
LINT = f"{VENV_BIN / 'ruff'} check --no-cache --select F401 {MODELS}"
PROMPT = f"tidy up {MODELS} before the release"
PROMPT_CONTEXT = "UserPromptSubmit hook additional context: "
SUGGESTION_LEAD = "pokayokay: skills that fit this prompt"
EXPECTED = f"pokayokay: ruff failures recurred in 2 sessions in {MODELS}."
REPLY = "E2E-SUGGEST-LINT-4b1d"


def add_models(e2e: E2E) -> None:
    path = e2e.project / MODELS
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(MODELS_TEXT, encoding="utf-8")
    for args in (["add", MODELS], ["commit", "-q", "-m", "add the models"]):
        subprocess.run(["git", *args], cwd=e2e.project, env=e2e.env, check=True,
                       capture_output=True, text=True)  # fmt: skip
    target = e2e.project / ".claude" / "skills"
    for name in SKILLS:
        shutil.copytree(SKILLS_DIR / name, target / name)


def lint_groups(e2e: E2E) -> list[dict[str, object]]:
    from pokayokay.failures.store import FailureStore

    with FailureStore(e2e.state_dir() / "failures.db") as store:
        groups = store.failure_groups()
    return [{"category": g.category, "sessions": g.sessions, "paths": list(g.paths),
             "command": g.sample_command} for g in groups if g.category == "lint"]  # fmt: skip


def test_a_file_with_recurring_lint_failures_gets_no_unrelated_skill(e2e: E2E) -> None:
    add_models(e2e)
    e2e.init_pokayokay()

    # Two sessions: ruff fails on the file each time (captured by the failure hook).
    failing_bash_sessions(e2e, LINT, "lint the models", "F401", sessions=2)
    groups = lint_groups(e2e)
    assert len(groups) == 1 and groups[0]["sessions"] == 2, groups
    assert MODELS in groups[0]["paths"], groups

    # What pokayokay computes for the prompt: the failure, named, and no skill.
    advice = json.loads(e2e.pokayokay("suggest", PROMPT, "--json").stdout)
    assert advice["suggestions"] == [], advice
    assert advice["context"] == EXPECTED, advice

    # The third session: exactly that reaches the model beside the prompt.
    run = e2e.run_claude(e2e.project, PROMPT, [[text(REPLY)]])
    assert run.exit_code == 0 and run.result_event.get("result") == REPLY, explain(run, e2e)
    seen = run.first_request.full_text
    contexts = re.findall(re.escape(PROMPT_CONTEXT) + r"([^\n]*)", seen)
    assert contexts == [EXPECTED], seen[-3000:]
    assert SUGGESTION_LEAD not in seen
    for name in SKILLS:  # Claude Code lists the skills itself; pokayokay never names one here
        assert f"/{name} (" not in seen, name
    assert "Traceback" not in pokayokay_log(e2e), pokayokay_log(e2e)
