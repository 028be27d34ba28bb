"""Feeding a labelled failing tool call through the real capture hook (shared by the failure
corpus and the lesson corpus tests): the case's project files in a fresh git repository, the
call sent as Claude Code sends it, and what the store then holds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers.gitrepo import git
from helpers.hooks import run_hook
from pokayokay.failures.model import Failure
from pokayokay.failures.store import FailureStore

SESSION = "3c1d2b7e-8a51-4f0e-9d3b-5a7c9e1f0a42"


def fill(value: Any, root: Path) -> Any:
    """``value`` with every ``{root}`` replaced by the project's absolute path."""
    if isinstance(value, str):
        return value.replace("{root}", str(root))
    if isinstance(value, dict):
        return {k: fill(v, root) for k, v in value.items()}
    if isinstance(value, list):
        return [fill(v, root) for v in value]
    return value


def payload(case: dict[str, Any], root: Path, n: int, tool: str) -> tuple[str, dict[str, Any]]:
    """The hook event and payload Claude Code would send for ``case`` run by ``tool``."""
    cwd = root / case["cwd"] if case.get("cwd") else root
    tool_input = fill(case.get("tool_input") or {"command": case["command"]}, root)
    tool_input.setdefault("description", "run it")
    common = {
        "session_id": SESSION,
        "transcript_path": f"/home/dev/.claude/projects/x/{SESSION}.jsonl",
        "cwd": str(cwd),
        "permission_mode": "default",
    }
    tool_use_id = f"toolu_01Corpus{n:04d}"
    output = fill(case["output"], root).rstrip("\n")
    if case.get("event") == "PostToolBatch":
        call = {
            "tool_name": tool,
            "tool_input": tool_input,
            "tool_use_id": tool_use_id,
            "tool_response": output,
        }
        return "PostToolBatch", {**common, "hook_event_name": "PostToolBatch", "tool_calls": [call]}
    return "PostToolUseFailure", {
        **common,
        "hook_event_name": "PostToolUseFailure",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": tool_use_id,
        "error": f"Exit code {case['exit_code']}\n{output}",
        "is_interrupt": False,
        "duration_ms": 1830,
    }


def project(tmp_path: Path, case: dict[str, Any]) -> Path:
    """A git repository under ``tmp_path`` holding the case's ``paths`` and ``files``."""
    root = (tmp_path / case["id"]).resolve()
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    for name in [*case["paths"], *case.get("files", [])]:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# {name}\n", encoding="utf-8")
    if case.get("cwd"):
        (root / case["cwd"]).mkdir(parents=True, exist_ok=True)
    git(root, "add", "-A")
    return root


def captured(case: dict[str, Any], root: Path, n: int, tool: str = "Bash") -> list[Failure]:
    """Run the capture hook on ``case`` (it must answer nothing and exit 0) and return the
    failures the store then holds, in the order recorded."""
    event, data = payload(case, root, n, tool)
    code, out, err = run_hook(event, data)
    assert (code, out, err) == (0, "", ""), case["id"]
    store = FailureStore.for_project(str(root))
    if not store.path.exists():
        return []
    with store:
        return store.failures()
