"""Running a hook in-process, the way Claude Code runs `pokayokay hook <Event>`."""

from __future__ import annotations

import io
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

from helpers.paths import FIXTURE_SAMPLES_DIR
from pokayokay.hooks import runtime


def run_hook(event: str, payload: dict[str, Any] | bytes) -> tuple[int, str, str]:
    """Feed PAYLOAD (a dict, or raw bytes as Claude Code would send them) to EVENT's hook and
    return (exit code, stdout, stderr)."""
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode("utf-8")
    out, err = io.StringIO(), io.StringIO()
    code = runtime.run(event, io.BytesIO(data), out, err)
    return code, out.getvalue(), err.getvalue()


def prompt_payload(project: Path, prompt: str) -> dict[str, Any]:
    """The real UserPromptSubmit payload Claude Code sent, for ``prompt`` in ``project``."""
    data: dict[str, Any] = json.loads(
        (FIXTURE_SAMPLES_DIR / "UserPromptSubmit.json").read_text("utf-8")
    )
    data["cwd"] = str(project)
    data["prompt"] = prompt
    return data


# The folder the captured payloads were recorded in (tests/data/claude-code-samples).
SAMPLE_ROOT = "/home/dev/project"


def sample_payload(name: str, project: Path, **changes: Any) -> dict[str, Any]:
    """The captured payload ``name`` moved into ``project`` (every path under the recording's
    folder follows it), with ``changes`` applied."""
    text = (FIXTURE_SAMPLES_DIR / name).read_text(encoding="utf-8")
    payload: dict[str, Any] = json.loads(text.replace(SAMPLE_ROOT, str(project)))
    payload.update(changes)
    return payload


def edit_payload(project: Path, rel: str, old: str, new: str, **changes: Any) -> dict[str, Any]:
    """The captured PostToolUse payload of an Edit, moved into ``project``, that replaced ``old``
    by ``new`` in ``project / rel`` (the file held the line ``old`` before), with ``changes``
    applied (``session_id``, ``tool_use_id``)."""
    payload = sample_payload("PostToolUse.Edit.json", project, **changes)
    path = str(project / rel)
    payload["tool_input"] = {"file_path": path, "old_string": old, "new_string": new}
    payload["tool_response"].update(
        filePath=path,
        oldString=old,
        newString=new,
        originalFile=f"{old}\n",
        structuredPatch=[
            {
                "oldStart": 1,
                "oldLines": 1,
                "newStart": 1,
                "newLines": 1,
                "lines": [f"-{old}", f"+{new}"],
            }
        ],
    )
    return payload


def held_lock(folder: str, seconds: float) -> threading.Thread:
    """The spool's ingest lock taken now (as an ingester or the catch-up worker at work holds
    it), let go after ``seconds`` by a thread (join it)."""
    import fcntl

    from pokayokay.infra import spool

    os.makedirs(folder, exist_ok=True)
    fd = os.open(os.path.join(folder, spool.LOCK), os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)

    def release() -> None:
        time.sleep(seconds)
        os.close(fd)

    thread = threading.Thread(target=release)
    thread.start()
    return thread


def gate_in_fresh_interpreter(
    signals_data: str, session: str, payload: dict[str, Any], root: Path
) -> tuple[str, str]:
    """The prompt's spool gate run in a new interpreter on one spooled failure: what
    ``could_change`` answered for a prompt naming ``src/cart.py``, and whether ``re`` and the
    capture pipeline were imported (``"True"``/``"False"`` each, space-separated).
    ``signals_data``: the signals' cache JSON (``dumps(signals_to_data(...))``)."""
    import subprocess
    import sys

    code = f"""
import sys
from pokayokay.hooks.spool_gate import could_change
from pokayokay.infra.lean_json import loads, dumps
from pokayokay.skills.failure_boost import signals_from_data
signals = signals_from_data(loads({signals_data!r}), ["k"])
record = ({session!r}, dumps({payload!r}).encode(), {str(root)!r})
print(could_change([record], {str(root)!r}, ["src/cart.py"], signals))
print("re" in sys.modules, "pokayokay.hooks.capture" in sys.modules)
"""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    ).stdout.split("\n")
    return out[0], out[1]

