"""The hook commands init commits are safe in a shared repository: on a machine without
pokayokay every one exits 0 quietly and only SessionStart says so, in one line; with pokayokay
the per-tool-call events land in the spool and a CLI reader ingests them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers.paths import FIXTURE_SAMPLES_DIR

from pokayokay.hooks.events import HOOKED_EVENTS
from pokayokay.install.handlers import NOT_INSTALLED_NOTE, handler_form
from pokayokay.install.wiring import init

VENV_BIN = Path(sys.executable).parent


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    return Path(os.path.realpath(root))


def registered(project: Path, **init_args: Any) -> dict[str, dict[str, Any]]:
    init(project, environ=dict(os.environ, PATH=str(VENV_BIN)), **init_args)
    data = json.loads((project / ".claude" / "settings.json").read_text())
    return {event: groups[0]["hooks"][0] for event, groups in data["hooks"].items()}


def run(handler: dict[str, Any], payload: bytes, path: str, project: Path) -> Any:
    # Shell form, as Claude Code runs it: `sh -c <command>`, the payload on stdin.
    assert "args" not in handler
    env = {"PATH": path, "HOME": os.environ["HOME"], "CLAUDE_PROJECT_DIR": str(project),
           "POKAYOKAY_HOME": os.environ["POKAYOKAY_HOME"]}
    return subprocess.run(["/bin/sh", "-c", handler["command"]], input=payload,
                          capture_output=True, env=env, cwd=project, timeout=60)


def payload_for(event: str) -> bytes:
    names = {"PostToolUse": "PostToolUse.Bash.json", "PostToolBatch": "PostToolBatch.json",
             "PostToolUseFailure": "PostToolUseFailure.Bash.json",
             "InstructionsLoaded": "InstructionsLoaded.path_glob_match.json",
             "SessionStart": "SessionStart.startup.json", "SessionEnd": "SessionEnd.other.json",
             "PreCompact": "PreCompact.manual.json"}
    name = names.get(event)
    return (FIXTURE_SAMPLES_DIR / name).read_bytes() if name else b'{"prompt": "fix the cart"}'


@pytest.mark.parametrize("absolute", [False, True])
def test_a_teammate_without_pokayokay_sees_one_line_at_session_start(
    project: Path, tmp_path: Path, absolute: bool
) -> None:
    handlers = registered(project, absolute=absolute)
    assert set(handlers) == {spec.event for spec in HOOKED_EVENTS}
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    for event, handler in handlers.items():
        assert handler_form(handler) == ("absolute" if absolute else "path")
        if absolute:  # the interpreter recorded by init is gone on the teammate's machine
            handler = {**handler, "command": handler["command"].replace(
                sys.executable, "/nonexistent/python3")}
        result = run(handler, payload_for(event), str(empty), project)
        assert (result.returncode, result.stderr) == (0, b""), (event, result)
        if event == "SessionStart":
            [line] = result.stdout.decode().splitlines()
            assert json.loads(line) == {"systemMessage": NOT_INSTALLED_NOTE}
        else:
            assert result.stdout == b"", event


@pytest.mark.parametrize("absolute", [False, True])
def test_with_pokayokay_a_failure_is_spooled_then_read_by_the_cli(
    project: Path, absolute: bool
) -> None:
    handlers = registered(project, absolute=absolute)
    if not absolute:
        assert handlers["PostToolUseFailure"]["command"].endswith(
            "exec pokayokay-spool PostToolUseFailure")
    error = ("Exit code 1\nFAILED tests/test_cart.py::test_add - assert 3 == 4\n"
             "========================= 1 failed, 11 passed in 0.41s ==========================")
    payload = json.loads(payload_for("PostToolUseFailure"))
    payload.update(cwd=str(project), error=error,
                   tool_input={"command": "pytest tests/test_cart.py"})
    result = run(handlers["PostToolUseFailure"], json.dumps(payload).encode(), str(VENV_BIN),
                 project)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    shown = subprocess.run(
        [str(VENV_BIN / "pokayokay"), "failures", "--project", str(project)],
        capture_output=True, text=True, timeout=120,
    )
    assert shown.returncode == 0, shown.stderr
    assert "FAILED tests/test_cart.py::test_add" in shown.stdout
