"""Manners of the prompt hook (issue 23, item 4): a turn Claude Code wrote itself gets no note
and no skill, through the registered hook command (``scripts/pokayokay-event``, what the
plugin's ``hooks.json`` runs) fed the real ``<task-notification>`` payload the client sent.

The turn is the captured payload (``UserPromptSubmit.task-notification.json``) with its
``<result>`` made to say what a person's prompt would be recalled and suggested on: the same
words, typed, get both (so the project would speak), wrapped get nothing. The real client
producing such a turn is driven in ``tests/e2e/test_prompt_manners.py``."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from helpers.hooks import prompt_payload, run_hook
from helpers.paths import DATA_DIR, FIXTURE_SAMPLES_DIR, REPO_ROOT

from pokayokay.infra.locate import resolve_memory_location
from pokayokay.learnings import model as learnings
from pokayokay.learnings.topics import topic_file
from pokayokay.safety.sanitize import excerpt

EVENT = "UserPromptSubmit"
SCRIPT = [sys.executable, str(REPO_ROOT / "scripts" / "pokayokay-event"), EVENT]
NOTE = (
    "Never run alembic upgrade head directly against the staging database; use make migrate "
    "ENV=staging, which takes the advisory lock first."
)
ASK = "write unit tests with pytest fixtures for the staging database migration lock"


def _project(project: Path) -> None:
    memory = resolve_memory_location(project).memory_dir
    memory.mkdir(parents=True, exist_ok=True)
    name = learnings.make_name(NOTE)
    learning = learnings.Learning(
        name=name,
        description=excerpt(NOTE, learnings.DESCRIPTION_MAX),
        text=NOTE,
        category="anti-patterns",
        hash=learnings.identity(NOTE),
    )
    (memory / learnings.file_name_for(name)).write_text(topic_file.render(learning), "utf-8")
    shutil.copytree(DATA_DIR / "suggest" / "skills", project / ".claude" / "skills")


def _notification(project: Path, result: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        (FIXTURE_SAMPLES_DIR / "UserPromptSubmit.task-notification.json").read_text("utf-8")
    )
    data["cwd"] = str(project)
    prompt = data["prompt"]
    start, end = prompt.index("<result>") + len("<result>"), prompt.index("</result>")
    data["prompt"] = prompt[:start] + result + prompt[end:]
    return data


def _hook(data: dict[str, Any]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        SCRIPT, input=json.dumps(data).encode("utf-8"), capture_output=True, timeout=60,
        check=False,
    )


def test_a_task_notification_gets_no_recall_and_no_suggestion(project: Path) -> None:
    _project(project)
    typed = _hook(prompt_payload(project, ASK))
    assert typed.returncode == 0 and typed.stderr == b""
    context = json.loads(typed.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "alembic upgrade head" in context  # the words are recalled on when a person types them
    assert "skills that fit this prompt" in context  # ... and suggested on
    wrapped = _hook(_notification(project, ASK))
    assert (wrapped.returncode, wrapped.stdout, wrapped.stderr) == (0, b"", b"")
    real = _hook(_notification(project, "subagent done"))
    assert (real.returncode, real.stdout, real.stderr) == (0, b"", b"")


def test_pasted_output_and_remember_get_nothing_a_commands_arguments_are_read(
    project: Path,
) -> None:
    _project(project)
    pasted = (
        "Traceback (most recent call last):\n"
        '  File "migrations/env.py", line 40, in run\n'
        "    context.run_migrations()\n"
        "sqlalchemy.exc.OperationalError: staging database migration lock not taken\n"
    )
    for prompt in (pasted, f"/remember {ASK}"):
        done = _hook(prompt_payload(project, prompt))
        assert (done.returncode, done.stdout, done.stderr) == (0, b"", b""), prompt
    wrapped = (
        "<command-message>ship is running…</command-message>\n<command-name>/ship</command-name>"
        f"\n<command-args>{ASK}</command-args>"
    )
    done = _hook(prompt_payload(project, wrapped))
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "alembic upgrade head" in context  # recalled on the arguments
    assert "skills that fit this prompt" not in context  # the user chose a command already


# --------------------------------------------------------------------------------------------
# The failing test of the very file a prompt names (issue 23's fourth failure mode): captured
# by the real PostToolUseFailure handler from pytest's own output in three sessions.

PYTEST_OUTPUT = """Exit code 1
============================= test session starts ==============================
collected 12 items

tests/api/test_users.py .....F......                                     [100%]

=================================== FAILURES ===================================
_________________________ test_deactivate_returns_204 __________________________

client = <FlaskClient <Flask 'api'>>

    def test_deactivate_returns_204(client):
        response = client.post("/users/u-17/deactivate")
>       assert response.status_code == 204
E       assert 404 == 204
E        +  where 404 = <WrapperTestResponse streamed [404 NOT FOUND]>.status_code

tests/api/test_users.py:31: AssertionError
=========================== short test summary info ============================
FAILED tests/api/test_users.py::test_deactivate_returns_204 - assert 404 == 204
========================= 1 failed, 11 passed in 0.42s ========================="""


def _capture(project: Path, session: str, n: int) -> None:
    data: dict[str, Any] = json.loads(
        (FIXTURE_SAMPLES_DIR / "PostToolUseFailure.Bash.json").read_text("utf-8")
    )
    data.update(cwd=str(project), session_id=session, tool_use_id=f"toolu_pytest_{n}",
                error=PYTEST_OUTPUT)  # fmt: skip
    data["tool_input"] = {"command": ".venv/bin/python -m pytest -q tests/api", "description": "t"}
    assert run_hook("PostToolUseFailure", data) == (0, "", "")


def test_a_prompt_naming_a_source_file_names_its_failing_test(project: Path) -> None:
    for name in ("src/api/users.py", "src/api/orders.py", "tests/api/test_users.py"):
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text("# project file\n", "utf-8")
    shutil.copytree(DATA_DIR / "suggest" / "skills", project / ".claude" / "skills")
    for n in range(3):
        _capture(project, f"session-{n}", n)
    prompt = "Add a deactivate endpoint to src/api/users.py and make sure nothing breaks"
    done = _hook(prompt_payload(project, prompt))
    assert done.returncode == 0 and done.stderr == b""
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert (
        "test `tests/api/test_users.py::test_deactivate_returns_204` (of src/api/users.py) "
        "failed in 3 sessions: `assert 404 == 204`" in context
    ), context
    other = _hook(prompt_payload(project, "Add a cancel endpoint to src/api/orders.py"))
    assert b"test_users" not in other.stdout
