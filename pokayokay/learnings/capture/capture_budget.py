"""The per-session budget of learnings the model may store without asking (capture_mode: silent): a
small JSON count per session in the state folder, pruned by age and number."""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pokayokay.infra.locate import MemoryLocation


# The silent-capture counts kept per project: sessions idle this long are forgotten, and never
# more than this many are kept.
SESSION_RETENTION = timedelta(days=30)


SESSIONS_KEPT = 500


BUDGET_FILE = "silent-captures.json"


def environ_copy(environ: Mapping[str, str] | None) -> dict[str, str]:
    """A copy of ``environ``, or of the process's environment when None."""
    return dict(os.environ if environ is None else environ)


def budget_paths(location: MemoryLocation, environ: Mapping[str, str] | None) -> tuple[Path, Path]:
    """The silent-capture budget file of a memory location and the lock guarding it."""
    from pokayokay.infra.state import project_state_dir

    folder = project_state_dir(str(location.project_key), environ_copy(environ))
    return folder / BUDGET_FILE, folder / "silent-captures.lock"


def read_counts(path: Path) -> dict[str, dict[str, object]]:
    """The per-session capture counts kept at ``path``; empty when missing or damaged."""
    import json

    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return {}  # missing or damaged: counting starts again (the budget errs towards asking)
    sessions = data.get("sessions") if isinstance(data, dict) else None
    if not isinstance(sessions, dict):
        return {}
    return {
        str(key): value
        for key, value in sessions.items()
        if isinstance(value, dict) and isinstance(value.get("count"), int)
    }


def write_counts(path: Path, sessions: dict[str, dict[str, object]], now: datetime) -> None:
    """Write the newest sessions' counts to ``path`` atomically, dropping those past retention."""
    import json

    from pokayokay.infra.safe_write import encode_text, write_atomic

    cutoff = (now - SESSION_RETENTION).strftime("%Y-%m-%dT%H:%M:%SZ")
    kept = {k: v for k, v in sessions.items() if str(v.get("updated", "")) >= cutoff}
    newest = sorted(kept.items(), key=lambda item: str(item[1].get("updated", "")), reverse=True)
    data = {"version": 1, "sessions": dict(newest[:SESSIONS_KEPT])}
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, encode_text(json.dumps(data, indent=1, sort_keys=True) + "\n"))


def silent_captures(
    location: MemoryLocation, session_id: str, environ: Mapping[str, str] | None = None
) -> int:
    """How many silent captures ``session_id`` has made in this project."""
    path, _ = budget_paths(location, environ)
    entry = read_counts(path).get(session_id, {})
    count = entry.get("count", 0)
    return count if isinstance(count, int) else 0
