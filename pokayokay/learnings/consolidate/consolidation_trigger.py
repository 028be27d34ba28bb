"""Whether consolidation is due, checked cheaply at SessionEnd (no git, no parsing beyond a line
count) from the state saved after each run; the heavy run itself is detached by the caller."""

from __future__ import annotations

import json
import os
from datetime import date
from pathlib import Path

from pokayokay.infra import logs
from pokayokay.infra.regular import open_regular
from pokayokay.infra.state import project_state_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from pokayokay.infra.locate import MemoryLocation
    from pokayokay.learnings.aging.ages import AgesReport
    from pokayokay.memory.sections import Settings


STATE_NAME = "consolidation-state.json"


def state_path(location: MemoryLocation, environ: Mapping[str, str] | None = None) -> Path:
    env = dict(os.environ if environ is None else environ)
    return project_state_dir(str(location.project_key), env) / STATE_NAME


def save_state(
    location: MemoryLocation, report: AgesReport, environ: Mapping[str, str] | None = None
) -> None:
    """Remember the staleness just computed, so SessionEnd can skip git next time."""
    from pokayokay.infra.safe_write import encode_text, write_atomic

    try:
        info = report.path.stat()
        state = {
            "file": str(report.path),
            "mtime_ns": info.st_mtime_ns,
            "size": info.st_size,
            "computed": report.today.isoformat(),
            "staleness": report.staleness,
            "max_age": report.max_age,
            "lines": report.file_lines,
        }
        target = state_path(location, environ)
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(target, encode_text(json.dumps(state, indent=1) + "\n"))
    except OSError as exc:
        logs.log(f"consolidation: could not save state: {exc}")


# What session_end_check needs of ConsolidationConfig's defaults, without importing it (a test
# keeps the two equal).
SESSION_DEFAULTS: dict[str, object] = {
    "learnings_file": ".claude/learnings.md",
    "size_trigger": 150,
    "staleness_trigger": 14,
    "session_end": True,
}


def consolidation_setting(settings: object, name: str) -> Any:
    """The ``consolidation_<name>`` setting, or its session default when it is not set."""
    value = getattr(settings, f"consolidation_{name}", None)
    return SESSION_DEFAULTS[name] if value is None else value


def _count_lines_upto(path: Path, limit: int) -> int:
    """Lines of ``path``, reading no further than needed to know it is over ``limit``."""
    lines, last = 0, b"\n"
    with open_regular(path) as fh:
        while chunk := fh.read(1 << 16):
            lines += chunk.count(b"\n")
            last = chunk[-1:]
            if lines > limit:
                return lines
    return lines + (0 if last == b"\n" else 1)


def session_end_check(
    project_dir: Path,
    location: MemoryLocation,
    settings: Settings | None = None,
    *,
    today: date | None = None,
    environ: Mapping[str, str] | None = None,
) -> str | None:
    """Why consolidation is due (run ``pokayokay consolidate`` detached), or None.

    No git: staleness grows by at most one active day per calendar day, so the staleness the
    last run cached plus the days since is an upper bound; git runs (in the detached process)
    only when that bound reaches the trigger, when the file is over the size trigger, or when
    nothing is cached yet. Once checked today with the file unchanged, nothing is due until
    tomorrow. Never raises: a failure is logged and answers None.
    """
    try:
        if settings is None:
            from pokayokay.config.settings import load_settings

            settings = load_settings(project_dir)
        if not consolidation_setting(settings, "session_end"):
            return None
        name = str(consolidation_setting(settings, "learnings_file"))
        size_trigger = int(consolidation_setting(settings, "size_trigger"))
        staleness_trigger = int(consolidation_setting(settings, "staleness_trigger"))
        path = project_dir / name
        try:
            info = path.stat()
        except FileNotFoundError:
            return None
        day = today or date.today()
        state = _load_state(location, environ)
        real = str(Path(os.path.realpath(path)))
        if state is not None and state.get("file") != real:
            state = None
        if (
            state is not None
            and state.get("computed") == day.isoformat()
            and state.get("mtime_ns") == info.st_mtime_ns
            and state.get("size") == info.st_size
        ):
            return None  # checked today, unchanged since
        lines = _count_lines_upto(path, size_trigger)
        if lines > size_trigger:
            return f"{name} has over {size_trigger} lines"
        if state is None:
            return f"the staleness of {name} has not been computed yet"
        computed = date.fromisoformat(str(state["computed"]))
        elapsed = max(0, (day - computed).days)
        staleness = state.get("staleness")
        measure = int(staleness if staleness is not None else state.get("max_age") or 0)
        if measure + elapsed >= staleness_trigger:
            what = (
                "active days since the last consolidation"
                if staleness is not None
                else "active days old (oldest entry; no consolidation yet)"
            )
            return (
                f"{name} may be stale: {measure} {what} on "
                f"{computed.isoformat()}, {elapsed} calendar days ago"
            )
        return None
    except Exception as exc:  # SessionEnd must never fail because of this check
        logs.fail_open("consolidation check", exc)
        return None


def _load_state(
    location: MemoryLocation, environ: Mapping[str, str] | None
) -> dict[str, Any] | None:
    try:
        with open(state_path(location, environ), encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and "computed" in data else None
