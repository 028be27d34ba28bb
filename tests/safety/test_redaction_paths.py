"""No secret survives any path through pokayokay: real hook payloads carrying the whole secrets
corpus in their commands and outputs are captured over three sessions, graduated into rules,
listed, recalled and remembered; afterwards no file under the project, the state folder or the
memory folder, and nothing printed, holds a single one of the secrets."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from helpers.gitrepo import git
from helpers.hooks import run_hook
from helpers.secrets import SECRETS

from pokayokay.cli import main as cli
from pokayokay.infra.locate import memory_location_for

SESSIONS = ("5b0c1a8e-0001-4c61-9d2a-7d1d3d0c0001", "5b0c1a8e-0002-4c61-9d2a-7d1d3d0c0002",
            "5b0c1a8e-0003-4c61-9d2a-7d1d3d0c0003")  # fmt: skip
FILES = ("tests/test_billing.py", "src/shop/billing.py", "scripts/summarise.py")


def _failure(project: Path, session: str, n: int, command: str, output: str) -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": str(project / "transcript.jsonl"),
        "cwd": str(project),
        "permission_mode": "default",
        "hook_event_name": "PostToolUseFailure",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "Run it"},
        "tool_use_id": f"toolu_01{session[-4:]}{n:04d}",
        "error": f"Exit code 1\n{output}",
        "is_interrupt": False,
        "duration_ms": 412,
    }


def _success(project: Path, session: str, n: int, command: str) -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": str(project / "transcript.jsonl"),
        "cwd": str(project),
        "permission_mode": "default",
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "Run it"},
        "tool_response": {"stdout": "ok", "stderr": "", "interrupted": False},
        "tool_use_id": f"toolu_02{session[-4:]}{n:04d}",
    }


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    cli.main(list(args))
    out, err = capsys.readouterr()
    return out + err


def _files_under(*roots: Path) -> list[Path]:
    found: list[Path] = []
    for root in roots:
        for folder, _, names in os.walk(root):
            found.extend(Path(folder) / name for name in names)
    return found


def test_no_secret_reaches_any_file_or_output(
    project: Path, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in FILES:
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text("# placeholder\n", encoding="utf-8")
    git(project, "add", "-A")
    git(project, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "init")
    printed: list[str] = []
    for session in SESSIONS:
        for n, case in enumerate(SECRETS):
            command = case.command or f"pytest tests/test_billing.py -k case_{n}"
            output = (
                f"tests/test_billing.py:{10 + n}: in test_case_{n}\n{case.text}\n"
                f"FAILED tests/test_billing.py::test_case_{n} - {case.text.splitlines()[-1]}"
            )
            for event, payload in (
                ("PostToolUseFailure", _failure(project, session, n, command, output)),
                ("PostToolUse", _success(project, session, n, command)),
            ):
                code, out, err = run_hook(event, payload)
                assert code == 0, err
                printed += [out, err]

    printed.append(_cli(capsys, "graduate", "--project", str(project)))
    printed.append(_cli(capsys, "failures", "--project", str(project)))
    as_json = _cli(capsys, "failures", "--json", "--project", str(project))
    printed.append(as_json)
    printed.append(json.dumps(json.loads(as_json)))  # escapes undone: the values themselves
    rules = sorted((project / ".claude" / "rules" / "pokayokay").glob("*.md"))
    assert rules, "three sessions of the same failures graduate into rules"
    for rule in rules:
        printed.append(_cli(capsys, "rules", "show", rule.stem, "--project", str(project)))
    printed.append(_cli(capsys, "status", "--project", str(project)))
    printed.append(_cli(capsys, "status", "--json", "--project", str(project)))
    for query in ("psql connection to the shop database fails", "aws s3 ls fails", "gh pr create"):
        printed.append(_cli(capsys, "recall", query, "--project", str(project)))
        code, out, _ = run_hook(
            "UserPromptSubmit",
            {
                "session_id": SESSIONS[0],
                "transcript_path": str(project / "transcript.jsonl"),
                "cwd": str(project),
                "hook_event_name": "UserPromptSubmit",
                "prompt": query,
            },
        )
        printed.append(out)
    github = next(s for s in SECRETS if s.kind == "github classic")
    told = _cli(
        capsys,
        "remember",
        f"Push with the deploy token from the vault, e.g. git push https://{github.secret}"
        "@github.com/acme/shop.git, never a personal one",
        "--project",
        str(project),
    )
    printed.append(told)
    assert "redacted" in told.lower() and "github-token" in told

    location = memory_location_for(project)
    written = _files_under(project, isolated_home, location.memory_dir)
    recurring = location.memory_dir / "recurring-failures.md"
    assert recurring.exists()
    assert any(p.name.startswith("learning-") for p in location.memory_dir.iterdir())
    assert "[redacted:" in recurring.read_text(encoding="utf-8")
    assert any("[redacted:" in rule.read_text(encoding="utf-8") for rule in rules)
    leaks = [
        (case.kind, str(path))
        for path in written
        for case in SECRETS
        if case.secret.encode() in path.read_bytes()
    ]
    leaks += [(case.kind, "output") for text in printed for case in SECRETS if case.secret in text]
    print(f"files checked: {len(written)}; outputs checked: {len(printed)}; leaks: {len(leaks)}")
    assert leaks == []
