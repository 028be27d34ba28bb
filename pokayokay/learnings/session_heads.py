"""The commit each session started on (SessionStart notes it; SessionEnd lists the commits made
since in Completed Work, :mod:`pokayokay.learnings.observed`).

Apart from ``observed`` because SessionStart runs on every launch: this module imports only
``os``, ``json``, ``subprocess`` and ``time`` (no dataclasses, typing, datetime or pathlib), so
noting the HEAD costs the git call and one small file, not observed's imports.
"""

from __future__ import annotations

import json
import subprocess
import time

from pokayokay.names import SESSION_HEADS_FILE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

# Sessions whose starting HEAD is kept (the oldest go first).
MAX_SESSIONS_KEPT = 100
# Seconds a git call of the session hooks may take.
GIT_TIMEOUT = 2.0


def git_head(project: Path) -> str | None:
    """The commit checked out in ``project`` (None outside git or without a commit)."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--verify", "-q", "HEAD"],
            cwd=project,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    head = done.stdout.strip()
    return head if done.returncode == 0 and len(head) >= 7 else None


def _heads_path(state_dir: Path) -> Path:
    return state_dir / SESSION_HEADS_FILE


def _load_heads(state_dir: Path) -> dict[str, dict[str, object]]:
    try:
        data = json.loads(_heads_path(state_dir).read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, dict)} if isinstance(data, dict) else {}


def note_session_head(
    state_dir: Path, session_id: str, head: str, now: float | None = None
) -> None:
    """Remember the HEAD a session started on (the first note for a session wins)."""
    heads = _load_heads(state_dir)
    if session_id in heads:
        return
    heads[session_id] = {"head": head, "t": time.time() if now is None else now}
    kept = sorted(heads.items(), key=lambda kv: float(str(kv[1].get("t", 0))))[-MAX_SESSIONS_KEPT:]
    from pokayokay.infra.safe_write import write_atomic

    state_dir.mkdir(parents=True, exist_ok=True)
    write_atomic(_heads_path(state_dir), json.dumps(dict(kept)).encode("utf-8"))


def session_head(state_dir: Path, session_id: str) -> str | None:
    found = _load_heads(state_dir).get(session_id, {}).get("head")
    return found if isinstance(found, str) else None
