"""``chain-learnings.md``: one bounded entry per finished session (SessionEnd).

An entry says what the session was asked (its first prompt, shortened, on one line), which
skills it invoked (``Skill`` tool calls in the transcript), the failures the store recorded for
it, the files it edited and how it ended. Skill suggestion reads the file back to flag risk when
a skill it is about to suggest was used on a similar task in a session that ended failing.

The newest :data:`MAX_ENTRIES` entries stay in the file; older ones move to
``chain-learnings-archive.md``. The transcript format is internal to Claude Code, so it is read
defensively: malformed lines are skipped, and only the first :data:`MAX_TRANSCRIPT_BYTES`.

Entry format::

    ## 2025-03-02 session 1f0c2a9e
    - Task: add email_verified to the users table
    - Skills: db-migrations, testing
    - Failures: 3 (testing 2, build 1)
    - Files: src/db/migrations/0042.py, src/models/user.py
    - Result: failed (the last command failed)
"""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from pokayokay.learnings.outcomes.chain_entries import (
    SessionOutcome,
)
from pokayokay.learnings.outcomes.chain_entries import read as read_entries
from pokayokay.names import CHAIN_LEARNINGS_ARCHIVE_FILE, CHAIN_LEARNINGS_FILE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Any

    from pokayokay.failures.model import Failure
    from pokayokay.infra.locate import MemoryLocation

FILE_NAME = CHAIN_LEARNINGS_FILE
ARCHIVE_NAME = CHAIN_LEARNINGS_ARCHIVE_FILE
MAX_ENTRIES = 50
MAX_TRANSCRIPT_BYTES = 32 << 20
TASK_CHARS = 160
FAILURE_WINDOW = 7 * 24 * 3600.0
HEADER = (
    "# Chain learnings\n\n"
    "<!-- pokayokay: session outcomes, newest last; the last 50 stay here, older ones move to "
    "chain-learnings-archive.md -->\n"
)
EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
RESULTS = ("clean", "recovered", "failed", "unknown")

_NAME_OK = re.compile(r"[A-Za-z0-9][A-Za-z0-9:_.-]{0,80}")


# --------------------------------------------------------------------------------------------
# The file


def split_entries(text: str) -> tuple[str, list[str]]:
    """``(head, entries)``: the text before the first entry, and each entry's raw text."""
    parts = re.split(r"(?m)^(?=## \d{4}-\d{2}-\d{2} session )", text)
    return parts[0], [p if p.endswith("\n") else p + "\n" for p in parts[1:]]


def rotate(text: str, entry: str, keep: int = MAX_ENTRIES) -> tuple[str, list[str]]:
    """``text`` with ``entry`` appended and only the newest ``keep`` entries kept; returns the
    new text and the entries that move to the archive, oldest first (pure)."""
    return trim(text.rstrip("\n") + "\n\n" + entry.strip("\n") + "\n", keep)


def trim(text: str, keep: int = MAX_ENTRIES) -> tuple[str, list[str]]:
    """``text`` with only its newest ``keep`` entries, and the entries that move to the
    archive, oldest first (pure)."""
    head, entries = split_entries(text) if text.strip() else (HEADER, [])
    if not head.strip():
        head = HEADER
    moved = entries[:-keep] if len(entries) > keep else []
    kept = entries[len(moved) :]
    return head.rstrip("\n") + "\n" + "".join("\n" + e.strip("\n") + "\n" for e in kept), moved


def read(memory_dir: Path) -> list[SessionOutcome]:
    return read_entries(str(memory_dir), FILE_NAME)


# How long a SessionEnd waits for another one's rotation before leaving it to the next.
ROTATE_WAIT = 0.2


def append(
    location: MemoryLocation,
    outcome: SessionOutcome,
    *,
    keep: int = MAX_ENTRIES,
    environ: Mapping[str, str] | None = None,
) -> None:
    """Append one entry, then move the overflow past ``keep`` entries to the archive.

    The entry lands lock-free, in one ``O_APPEND`` write (:func:`append_entry`): 50 SessionEnds
    at once used to queue on one lock with a 1 s wait and 5 of 50 entries were lost. The
    rotation that follows takes the lock only when it is free within :data:`ROTATE_WAIT`;
    otherwise the file holds a few entries more until the next SessionEnd. Overflow reaches
    the archive before it leaves the file, so an entry is never in neither."""
    from pokayokay.memory.apply import checked_target

    target = checked_target(location, FILE_NAME)
    target.parent.mkdir(parents=True, exist_ok=True)
    append_entry(target, outcome.render())
    rotate_file(location, keep=keep, environ=environ)


def append_entry(target: Path, entry: str) -> None:
    """Add ``entry`` at the end of ``target`` in one ``O_APPEND`` write: concurrent appenders
    never interleave and never overwrite each other. A missing file is first created holding
    :data:`HEADER`, atomically (another process may be creating it too). The file is opened
    without blocking and checked to be a regular file before any byte is written."""
    import contextlib
    import errno
    import stat

    from pokayokay.infra.regular import NotARegularFile, open_nonblocking
    from pokayokay.infra.safe_write import Conflict, encode_text, replace_if_unchanged

    if not os.path.lexists(target):
        with contextlib.suppress(Conflict):  # another SessionEnd created it first
            replace_if_unchanged(target, None, encode_text(HEADER))
    data = encode_text("\n" + entry.strip("\n") + "\n")
    fd = open_nonblocking(target, os.O_WRONLY | os.O_APPEND)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotARegularFile(errno.EINVAL, "not a regular file", str(target))
        view = memoryview(data)
        while view:  # one write for an entry (a few hundred bytes); the loop is for the odd FS
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def rotate_file(
    location: MemoryLocation, *, keep: int = MAX_ENTRIES, environ: Mapping[str, str] | None = None
) -> None:
    """Move the entries past the newest ``keep`` to the archive (those it holds already are
    not written twice), then drop them from the file, keeping lines appended meanwhile. Left
    to a later call, with a log line, when another process holds the lock or the file."""
    from pokayokay.infra import logs
    from pokayokay.infra.safe_write import (
        Conflict,
        LockTimeout,
        encode_text,
        file_lock,
        read_bytes,
        replace_if_unchanged,
    )
    from pokayokay.learnings.outcomes.spikes import topic_lock
    from pokayokay.memory.apply import checked_target

    target = checked_target(location, FILE_NAME)
    try:
        with file_lock(topic_lock(location, environ), ROTATE_WAIT):
            old = read_bytes(target)
            if old is None:
                return
            new_text, moved = trim(old.decode("utf-8", "replace"), keep)
            if not moved:
                return
            archive = checked_target(location, ARCHIVE_NAME)
            old_archive = read_bytes(archive)
            base = old_archive.decode("utf-8", "replace") if old_archive is not None else ""
            if not base.strip():
                base = "# Chain learnings archive\n"
            fresh = [m for m in moved if m.strip("\n") not in base]
            if fresh:
                added = "".join("\n" + m.strip("\n") + "\n" for m in fresh)
                base = base.rstrip("\n") + "\n" + added
                replace_if_unchanged(archive, old_archive, encode_text(base))
            replace_if_unchanged(target, old, encode_text(new_text), keep_appends=True)
    except (LockTimeout, Conflict) as exc:
        logs.log(f"chain learnings: rotation left to the next session end ({exc!r})")


# --------------------------------------------------------------------------------------------
# The session


@dataclass
class TranscriptFacts:
    task: str = ""
    skills: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    last_command_failed: bool | None = None  # None: no command result seen
    readable: bool = True  # False: the transcript could not be read at all


def _prompt_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_result":
                return ""
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                parts.append(block["text"])
        return " ".join(parts)
    return ""


def _skill_name(tool_input: Any) -> str | None:
    if not isinstance(tool_input, dict):
        return None
    for key in ("skill", "command", "name"):
        value = tool_input.get(key)
        if isinstance(value, str):
            name = value.strip().lstrip("/").split(" ", 1)[0]
            if _NAME_OK.fullmatch(name):
                return name
    return None


def _relative(path: str, project_dir: str) -> str:
    if not os.path.isabs(path):
        return path.replace(os.sep, "/")
    try:
        rel = os.path.relpath(path, project_dir)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel.replace(os.sep, "/")


def _answered(command: str, content: Any) -> bool:
    """A failed Bash result that is pokayokay's documented answer (``remember --mode model``
    exiting 5), which does not make the session failed."""
    if "pokayokay" not in command:
        return False
    text = content if isinstance(content, str) else _prompt_text(content)
    found = re.match(r"\s*(?:Error: )?Exit code (-?\d+)", text)
    if found is None:
        return False
    from pokayokay.failures.classify import own_answer

    return own_answer(command, int(found.group(1)))


def read_transcript(lines: Iterable[bytes | str], project_dir: str) -> TranscriptFacts:
    """What a session did, from its transcript lines (pure; unknown shapes are skipped)."""
    from pokayokay.infra.private import strip_private

    facts = TranscriptFacts()
    skills: list[str] = []
    files: list[str] = []
    commands: dict[str, str] = {}  # Bash tool_use id -> its command
    for raw in lines:
        try:
            record = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            continue  # a torn or foreign line: skipped
        if not isinstance(record, dict) or record.get("isSidechain") is True:
            continue
        message = record.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        kind = record.get("type")
        if kind == "user":
            if not facts.task and record.get("isMeta") is not True:
                text = strip_private(_prompt_text(content)).strip()
                if text and not text.startswith("<"):
                    facts.task = text
            if isinstance(content, list):
                for block in content:
                    if (
                        isinstance(block, dict)
                        and block.get("type") == "tool_result"
                        and block.get("tool_use_id") in commands
                    ):
                        facts.last_command_failed = block.get("is_error") is True and not (
                            _answered(commands[block["tool_use_id"]], block.get("content"))
                        )
        elif kind == "assistant" and isinstance(content, list):
            for block in content:
                if not isinstance(block, dict) or block.get("type") != "tool_use":
                    continue
                name, tool_input = block.get("name"), block.get("input")
                if name == "Skill":
                    skill = _skill_name(tool_input)
                    if skill and skill not in skills:
                        skills.append(skill)
                elif name in EDIT_TOOLS and isinstance(tool_input, dict):
                    path = tool_input.get("file_path") or tool_input.get("notebook_path")
                    if isinstance(path, str) and path:
                        rel = _relative(path, project_dir)
                        if rel not in files:
                            files.append(rel)
                elif name == "Bash" and isinstance(block.get("id"), str):
                    command = tool_input.get("command") if isinstance(tool_input, dict) else ""
                    commands[block["id"]] = command if isinstance(command, str) else ""
    facts.skills = tuple(skills)
    facts.files = tuple(files)
    return facts


def _transcript_lines(path: str) -> list[bytes] | None:
    """The transcript's lines; None when it cannot be read."""
    from pokayokay.infra.regular import read_regular

    try:
        data = read_regular(path, MAX_TRANSCRIPT_BYTES)[:MAX_TRANSCRIPT_BYTES]
    except OSError:  # missing, unreadable, or a FIFO (which would block SessionEnd)
        return None
    return data.splitlines()


def outcome_of(
    session_id: str,
    facts: TranscriptFacts,
    failures: Iterable[Failure],
    day: date,
) -> SessionOutcome:
    """The entry for one session (pure)."""
    from pokayokay.safety.sanitize import excerpt

    counts: dict[str, int] = {}
    total = 0
    for failure in failures:
        if failure.session_id != session_id:
            continue
        total += 1
        counts[failure.category] = counts.get(failure.category, 0) + 1
    cats = tuple(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    # "recovered" only on evidence: the transcript shows the last command passing.
    if facts.last_command_failed:
        result, note = "failed", "the last command failed"
    elif not facts.readable:
        result, note = "unknown", "the transcript could not be read"
    elif total and facts.last_command_failed is None:
        result, note = "unknown", "the transcript shows no command result after the failures"
    elif total:
        result, note = "recovered", "commands passed after the failures"
    else:
        result, note = "clean", ""
    skills = tuple(s for s in (excerpt(s, 80) for s in facts.skills) if s)
    files = tuple(f for f in (excerpt(f, 160).replace(",", "_") for f in facts.files) if f)
    sid = re.sub(r"[^A-Za-z0-9_-]", "", session_id)[:36] or "unknown"
    return SessionOutcome(
        day=day.isoformat(),
        session_id=sid,
        task=excerpt(facts.task, TASK_CHARS),
        skills=tuple(s.replace(",", " ") for s in skills),
        failures=total,
        categories=cats,
        files=files,
        result=result,
        result_note=note,
    )


def _session_failures(location: MemoryLocation, session_id: str) -> list[Failure]:
    from pokayokay.failures.store import FailureStore

    store = FailureStore.for_project(location.project_key)
    if not store.path.exists():
        return []
    with store:
        since = time.time() - FAILURE_WINDOW
        return store.failures(since=since, session_id=session_id)  # filtered in SQL


def session_end_chain(payload: dict[str, Any], project_dir: Path, location: MemoryLocation) -> None:
    """SessionEnd: append this session's outcome and link the file from the Topic Index.

    Fail-safe: any error is logged and swallowed (a missing entry is better than a broken
    session end). A session that invoked no skill, edited nothing and failed nothing is not
    recorded: it holds nothing to learn from.
    """
    try:
        _session_end_chain(payload, project_dir, location)
    except Exception as exc:  # SessionEnd goes on without this entry
        from pokayokay.infra.logs import fail_open

        fail_open("chain learnings", exc)


def _session_end_chain(
    payload: dict[str, Any], project_dir: Path, location: MemoryLocation
) -> None:
    session_id = payload.get("session_id")
    if not isinstance(session_id, str) or not session_id:
        return
    transcript = payload.get("transcript_path")
    lines = _transcript_lines(transcript) if isinstance(transcript, str) and transcript else None
    facts = read_transcript(lines or [], str(project_dir))
    facts.readable = lines is not None
    failures = _session_failures(location, session_id)
    outcome = outcome_of(session_id, facts, failures, date.today())
    if not (outcome.skills or outcome.files or outcome.failures):
        return
    append(location, outcome)
    from pokayokay.config.settings import load_settings
    from pokayokay.learnings.outcomes.spikes import index_topic_files

    note = index_topic_files(location, load_settings(project_dir))
    if note:
        from pokayokay.infra import logs

        logs.log(f"chain learnings: {note}")
