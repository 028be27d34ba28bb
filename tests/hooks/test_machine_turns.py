"""Manners of the prompt hook (issue 23, item 4): a turn Claude Code wrote itself gets no note
and no skill, through the registered hook command (``scripts/pokayokay-event``, what the
plugin's ``hooks.json`` runs) fed the real ``<task-notification>`` payload the client sent.

The e2e harness's mock API does not drive a background subagent to completion, so the turn is
the captured payload (``UserPromptSubmit.task-notification.json``) with its ``<result>`` made
to say what a person's prompt would be recalled and suggested on: the same words, typed, get
both (so the project would speak), wrapped get nothing."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from helpers.hooks import prompt_payload
from helpers.paths import DATA_DIR, FIXTURE_SAMPLES_DIR, REPO_ROOT

from pokayokay.infra.locate import resolve_memory_location
from pokayokay.learnings import model as learnings
from pokayokay.learnings import topic_file
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
