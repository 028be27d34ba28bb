"""PostToolUseFailure: record the failure in the project's state folder.

A deliberately small first step: one JSON line per failure, appended with a single write (so
concurrent hook processes cannot interleave records). Rule graduation will build on it.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from pokayokay.hook import project_dir

MAX_ERROR_HEAD = 400


def post_tool_use_failure(payload: dict[str, Any], event: str) -> str:
    from pokayokay.locate import find_git_root
    from pokayokay.state import project_state_dir

    project = Path(project_dir(payload))
    key = find_git_root(project) or project
    tool_input = payload.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    error = payload.get("error")
    error = error if isinstance(error, str) else ""
    first, _, rest = error.partition("\n")
    exit_code = None
    if first.startswith("Exit code "):
        try:
            exit_code = int(first.removeprefix("Exit code ").strip())
        except ValueError:
            exit_code = None
    record = {
        "ts": round(time.time(), 3),
        "session_id": payload.get("session_id"),
        "tool_name": payload.get("tool_name"),
        "tool_use_id": payload.get("tool_use_id"),
        "command": command if isinstance(command, str) else None,
        "exit_code": exit_code,
        "is_interrupt": bool(payload.get("is_interrupt")),
        "error_head": (rest if exit_code is not None else error)[:MAX_ERROR_HEAD],
    }
    folder = project_state_dir(str(key))
    folder.mkdir(parents=True, exist_ok=True)
    line = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8", "replace")
    fd = os.open(folder / "failures.jsonl", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)
    return ""
