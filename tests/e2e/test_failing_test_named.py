"""A prompt naming the source file of a test that failed in earlier sessions, through the real
client (issue 23, "manners"): what reaches the model beside the prompt names that failing test
and what it said, exactly as pytest printed it.

The failures are real: two sessions run a real pytest on a real failing test through the Bash
tool; the third session's prompt names only the source file, in words nobody tuned on (the
issue's own example).
"""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from .conftest import E2E, VENV_BIN, explain, failing_bash_sessions, pokayokay_log
from .mock_api import text

pytestmark = pytest.mark.e2e

SOURCE = "src/api/users.py"
TEST_FILE = "tests/api/test_users.py"
TEST_ID = f"{TEST_FILE}::test_deactivate_answers_no_content"
FILES = {
    "src/__init__.py": "",
    "src/api/__init__.py": "",
    SOURCE: "def deactivate(user_id: int) -> int:\n    return 404 if user_id < 0 else 404\n",
    TEST_FILE: (
        "from src.api.users import deactivate\n\n\n"
        "def test_deactivate_answers_no_content() -> None:\n"
        "    assert deactivate(7) == 204\n"
    ),
}
RUN_TESTS = f"{VENV_BIN / 'python'} -m pytest -q -p no:cacheprovider {TEST_FILE}"
PROMPT = f"Add a deactivate endpoint to {SOURCE} and make sure nothing breaks"
PROMPT_CONTEXT = "UserPromptSubmit hook additional context: "
REPLY = "E2E-FAILING-TEST-7c2e"


def add_files(e2e: E2E) -> None:
    for name, body in FILES.items():
        path = e2e.project / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, encoding="utf-8")
    for args in (["add", "-A"], ["commit", "-q", "-m", "users api"]):
        subprocess.run(["git", *args], cwd=e2e.project, env=e2e.env, check=True,
                       capture_output=True, text=True)  # fmt: skip


def test_naming_the_source_of_a_failing_test_names_the_test_and_what_it_said(e2e: E2E) -> None:
    add_files(e2e)
    e2e.init_pokayokay()

    # Two sessions: the real test fails each time (captured by the failure hook).
    failing_bash_sessions(e2e, RUN_TESTS, "run the users tests", "assert 404 == 204", sessions=2)

    # What pokayokay computes for the prompt names the test, its source and its line.
    advice = json.loads(e2e.pokayokay("suggest", PROMPT, "--json").stdout)
    said = f"test `{TEST_ID}` (of {SOURCE}) failed in 2 sessions: `"
    assert said in advice["context"], advice
    assert "assert 404 == 204" in advice["context"].split(said, 1)[1], advice

    # The third session: exactly that reaches the model beside the prompt.
    run = e2e.run_claude(e2e.project, PROMPT, [[text(REPLY)]])
    assert run.exit_code == 0 and run.result_event.get("result") == REPLY, explain(run, e2e)
    seen = run.first_request.full_text
    contexts = re.findall(re.escape(PROMPT_CONTEXT) + r"([^\n]*)", seen)
    assert contexts == [advice["context"]], seen[-3000:]
    assert "Traceback" not in pokayokay_log(e2e), pokayokay_log(e2e)
