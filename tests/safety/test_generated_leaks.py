"""Generated secrets in the shapes that leaked (issue 25) reach nothing pokayokay keeps or shows.

Each case is a failing command and its output carrying a secret: a password in a program's own
flag, a URL with credentials, a JSON value (escaped or docker's ``auth``), a private key cut off
at its BEGIN line, a token in base64 or hex, a token wrapped across lines. They go through the
registered hook entry point (``infra/spool.py``'s ``main``; a few through the real command
``init --absolute`` registers for PostToolUseFailure and PostToolUse, ``python -S -E
…/infra/spool_launch.py``, as a subprocess), are ingested, graduate into rules, and are
listed, shown and looked up again (the lesson context, the PreToolUse guard, SessionStart).
Afterwards no file under the project, the state folder or the memory folder (the SQLite store
included, read as bytes), and no hook context or command output, holds any of the secrets.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers.gitrepo import git
from helpers.hooks import run_hook
from helpers.paths import FIXTURE_SAMPLES_DIR
from helpers.secret_shapes import Leak, files_under, leaky_cases
from hypothesis import HealthCheck, given, settings

from pokayokay.cli import main as cli
from pokayokay.hooks import ingest
from pokayokay.infra import spool
from pokayokay.infra.locate import memory_location_for
from pokayokay.install.handlers import spool_file

SESSIONS = ("6c1d2b9f-0001-4d72-8e3b-8e2e4e1d0001", "6c1d2b9f-0002-4d72-8e3b-8e2e4e1d0002",
            "6c1d2b9f-0003-4d72-8e3b-8e2e4e1d0003")  # fmt: skip
SPOOL_PY = Path(spool_file())  # the file init --absolute registers
TEST_FILE = "tests/test_deploy.py"


def draw_cases(count: int) -> list[Leak]:
    """``count`` generated cases (Hypothesis explores the families; nothing here can fail)."""
    cases: list[Leak] = []

    @settings(max_examples=count, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(leaky_cases())
    def collect(case: Leak) -> None:
        if len(cases) < count:
            cases.append(case)

    collect()
    return cases


def failure_payload(project: Path, session: str, n: int, case: Leak) -> dict[str, Any]:
    output = (
        f"{TEST_FILE}:{10 + n}: in test_case_{n}\n{case.output}\n"
        f"FAILED {TEST_FILE}::test_case_{n} - deploy step {n} failed"
    )
    return {
        "session_id": session,
        "transcript_path": str(project / "transcript.jsonl"),
        "cwd": str(project),
        "permission_mode": "default",
        "hook_event_name": "PostToolUseFailure",
        "tool_name": "Bash",
        "tool_input": {"command": case.command, "description": "Run it"},
        "tool_use_id": f"toolu_03{session[-4:]}{n:05d}",
        "error": f"Exit code 1\n{output}",
        "is_interrupt": False,
        "duration_ms": 512,
    }


def success_payload(project: Path, session: str, n: int, case: Leak) -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": str(project / "transcript.jsonl"),
        "cwd": str(project),
        "permission_mode": "default",
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": case.command + " --retry", "description": "Run it"},
        "tool_response": {"stdout": "ok", "stderr": "", "interrupted": False},
        "tool_use_id": f"toolu_04{session[-4:]}{n:05d}",
    }


class _Stdin:
    """What ``spool.main`` reads: ``sys.stdin.buffer``."""

    def __init__(self, data: bytes) -> None:
        self.buffer = io.BytesIO(data)


def spool_hook(
    event: str,
    payload: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> str:
    """The registered per-tool-call command's entry point, in this process."""
    capsys.readouterr()
    monkeypatch.setattr(sys, "stdin", _Stdin(json.dumps(payload).encode()))
    assert spool.main([event]) == 0
    out, err = capsys.readouterr()
    return out + err


def spool_subprocess(event: str, payload: dict[str, Any], project: Path) -> str:
    """The registered command itself: ``python -S -E …/infra/spool_launch.py <Event>``."""
    env = dict(os.environ, CLAUDE_PROJECT_DIR=str(project))
    done = subprocess.run(
        [sys.executable, "-S", "-E", str(SPOOL_PY), event],
        input=json.dumps(payload).encode(), capture_output=True, env=env, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout.decode() + done.stderr.decode()


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    capsys.readouterr()
    cli.main(list(args))
    out, err = capsys.readouterr()
    return out + err


def run_through_pokayokay(
    cases: list[Leak],
    project: Path,
    isolated_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> tuple[list[Path], list[str]]:
    """Every case through capture, ingest, graduation and every way out; returns the files
    written and everything printed or emitted as hook context."""
    (project / TEST_FILE).parent.mkdir(parents=True, exist_ok=True)
    (project / TEST_FILE).write_text("# placeholder\n", encoding="utf-8")
    git(project, "add", "-A")
    git(project, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "init")
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    printed: list[str] = []
    for session in SESSIONS:
        for n, case in enumerate(cases):
            failure, success = (
                failure_payload(project, session, n, case),
                success_payload(project, session, n, case),
            )
            if n < 2:  # a few through the real subprocess, the rest through its entry point
                printed.append(spool_subprocess("PostToolUseFailure", failure, project))
                printed.append(spool_subprocess("PostToolUse", success, project))
            else:
                printed.append(spool_hook("PostToolUseFailure", failure, monkeypatch, capsys))
                printed.append(spool_hook("PostToolUse", success, monkeypatch, capsys))
        ingest.ingest_project(str(project))
    printed.append(_cli(capsys, "graduate", "--project", str(project)))
    printed.append(_cli(capsys, "failures", "--project", str(project)))
    as_json = _cli(capsys, "failures", "--json", "--project", str(project))
    printed += [as_json, json.dumps(json.loads(as_json), ensure_ascii=False)]
    printed.append(_cli(capsys, "status", "--project", str(project)))
    printed.append(_cli(capsys, "status", "--json", "--project", str(project)))
    rules = sorted((project / ".claude" / "rules" / "pokayokay").glob("*.md"))
    assert rules, "three sessions of the same failures graduate into rules"
    for rule in rules:
        printed.append(_cli(capsys, "rules", "show", rule.stem, "--project", str(project)))
    # The ways back in: the lesson a failure is answered with, the PreToolUse guard, the
    # session's start.
    for n, case in enumerate(cases):
        again = failure_payload(project, SESSIONS[0], 90_000 + n, case)
        printed.append(spool_hook("PostToolUseFailure", again, monkeypatch, capsys))
        pre = {k: again[k] for k in ("session_id", "transcript_path", "cwd", "permission_mode")}
        pre |= {"hook_event_name": "PreToolUse", "tool_name": "Bash",
                "tool_input": again["tool_input"], "tool_use_id": again["tool_use_id"]}  # fmt: skip
        code, out, err = run_hook("PreToolUse", pre)
        assert code == 0, err
        printed += [out, err]
    start = {k: SESSIONS[0] if k == "session_id" else str(project) for k in ("session_id", "cwd")}
    start |= {"hook_event_name": "SessionStart", "source": "startup",
              "transcript_path": str(project / "transcript.jsonl")}  # fmt: skip
    code, out, err = run_hook("SessionStart", start)
    assert code == 0, err
    printed += [out, err]
    sample = json.loads((FIXTURE_SAMPLES_DIR / "SubagentStart.json").read_text(encoding="utf-8"))
    sample |= {"cwd": str(project), "session_id": SESSIONS[0]}
    code, out, err = run_hook("SubagentStart", sample)  # the environment lessons
    assert code == 0, err
    printed += [out, err]
    ingest.ingest_project(str(project))
    location = memory_location_for(project)
    assert (location.memory_dir / "recurring-failures.md").exists()
    return files_under(project, isolated_home, location.memory_dir), printed


def leaks_in(cases: list[Leak], files: list[Path], printed: list[str]) -> list[tuple[str, str]]:
    contents = [(str(path), path.read_bytes()) for path in files]
    found = [
        (case.shape, where)
        for case in cases
        for secret in case.secrets
        for where, data in contents
        if secret.encode() in data
    ]
    found += [
        (case.shape, "output") for case in cases for secret in case.secrets for text in printed
        if secret in text
    ]  # fmt: skip
    return found


def check(cases: list[Leak], project: Path, isolated_home: Path,
          monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    files, printed = run_through_pokayokay(cases, project, isolated_home, monkeypatch, capsys)
    leaks = leaks_in(cases, files, printed)
    with capsys.disabled():
        shapes = sorted({case.shape for case in cases})
        print(f"\n{len(cases)} generated cases ({', '.join(shapes)}) x {len(SESSIONS)} sessions;"
              f" files checked: {len(files)}; outputs checked: {len(printed)};"
              f" leaks: {len(leaks)}")  # fmt: skip
    assert leaks == []


def test_generated_secrets_reach_no_file_store_or_context(
    project: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    check(draw_cases(36), project, isolated_home, monkeypatch, capsys)


@pytest.mark.slow
def test_hundreds_of_generated_secrets_reach_no_file_store_or_context(
    project: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    check(draw_cases(300), project, isolated_home, monkeypatch, capsys)
