"""SessionStart (a factual note when MEMORY.md is past Claude Code's load limit), SessionEnd and
PreCompact (curation)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from pokayokay.hook import project_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Above this size SessionEnd hands curation to a detached process: Claude Code gives all
# SessionEnd hooks 1.5 s together and kills what is still running.
DETACH_ABOVE_BYTES = 1 << 20
SESSION_END_LOCK_WAIT = 0.3


def _location(payload: dict[str, Any]) -> tuple[Path, Any]:
    from pokayokay.locate import resolve_memory_location

    project = Path(project_dir(payload))
    override = os.environ.get("POKAYOKAY_MEMORY_DIR")
    return project, resolve_memory_location(
        project, memory_dir=Path(override) if override else None
    )


# Claude Code's load limit for MEMORY.md (as in pokayokay.sections, not imported on this path).
_MAX_LINES, _MAX_BYTES = 200, 25_000


# Above this size the note skips telling Claude's notes from pokayokay's sections.
_PARSE_AT_MOST = 4 << 20


def session_start(payload: dict[str, Any], event: str) -> str:
    import stat

    project, location = _location(payload)
    try:
        with open(location.memory_file, "rb") as fh:
            info = os.fstat(fh.fileno())
            if not stat.S_ISREG(info.st_mode):
                return ""  # a FIFO or a device is nothing Claude Code loads either
            lines, size, head = 0, 0, b""
            last = b"\n"
            while chunk := fh.read(1 << 20):
                lines += chunk.count(b"\n")
                size += len(chunk)
                last = chunk[-1:]
                if size <= _PARSE_AT_MOST:
                    head += chunk
    except OSError:
        return ""
    lines += 0 if not size or last == b"\n" else 1
    if lines <= _MAX_LINES and size <= _MAX_BYTES:
        return ""
    text = head.decode("utf-8", "surrogateescape") if size <= _PARSE_AT_MOST else None
    note = overflow_note(project, text, lines, size)
    out = {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": note}}
    return json.dumps(out) + "\n"


def overflow_note(project: Path, text: str | None, lines: int, size: int) -> str:
    from pokayokay.sections import CLAUDE_MAX_BYTES, CLAUDE_MAX_LINES

    note = (
        f"pokayokay: MEMORY.md is {lines} lines / {size:,} bytes. Claude Code loads only its first "
        f"{CLAUDE_MAX_LINES} lines or {CLAUDE_MAX_BYTES:,} bytes, so the rest of it was not "
        "loaded in this session. "
    )
    if text is not None:
        note += (
            f"{_unmanaged_lines(project, text)} of its lines are notes outside pokayokay's "
            "managed sections, which pokayokay never edits. "
        )
    return note + (
        "Moving detail from those notes into topic files in the same memory folder, each "
        "linked from MEMORY.md by a one-line entry, brings the whole index back within the limit."
    )


def _unmanaged_lines(project: Path, text: str) -> int:
    from pokayokay.memory_doc import Text, parse
    from pokayokay.sections import DEFAULT_SECTIONS
    from pokayokay.settings import load_settings

    try:
        specs = load_settings(project).sections
    except Exception:  # a broken settings file must not cost Claude this note
        specs = DEFAULT_SECTIONS
    doc = parse(text, specs)
    return sum(len(seg.lines) for seg in doc.segments if isinstance(seg, Text))


def _curate(payload: dict[str, Any], lock_wait: float) -> str:
    from pokayokay import logs
    from pokayokay.curate_run import run_curation
    from pokayokay.safe_write import LockTimeout
    from pokayokay.settings import load_settings

    project, location = _location(payload)
    if not location.memory_file.exists():
        return ""
    settings = load_settings(project)
    try:
        outcome = run_curation(location, settings, write=True, lock_timeout=lock_wait)
    except LockTimeout:
        logs.log(f"{location.memory_file}: another pokayokay process is curating; skipped")
        return ""
    if outcome.written and outcome.result is not None:
        moved = sum(len(m.entries) for m in outcome.result.moves)
        logs.log(
            f"curated {location.memory_file}: moved {moved} entries, added "
            f"{len(outcome.result.added_sections)} sections, {outcome.result.after.lines} lines now"
        )
    return ""


def session_end(payload: dict[str, Any], event: str) -> str:
    from pokayokay.curate_run import checked_target

    project, location = _location(payload)
    try:
        size = checked_target(location).stat().st_size  # refuses a symlink leading outside
    except OSError:
        return ""
    if size > DETACH_ABOVE_BYTES:
        _detach(project, location.memory_dir)
        return ""
    return _curate(payload, SESSION_END_LOCK_WAIT)


def pre_compact(payload: dict[str, Any], event: str) -> str:
    return _curate(payload, 10.0)


def _detach(project: Path, memory_dir: Path) -> None:
    """Run `pokayokay curate` in its own session: Claude Code's SessionEnd cut cannot kill it."""
    import subprocess
    import sys

    from pokayokay import logs

    log = logs.log(f"SessionEnd: {memory_dir}/MEMORY.md is large; curating in the background")
    with open(log, "ab") as sink:
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "pokayokay",
                "curate",
                "--quiet",
                "--project",
                str(project),
                "--memory-dir",
                str(memory_dir),
            ],
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=sink,
            start_new_session=True,
            close_fds=True,
        )
