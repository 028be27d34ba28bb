"""The two values failure capture and rule graduation share (docs/design/graduation.md).

Pure data: ``Failure`` is one captured, already normalised failure; ``FailureGroup`` is one
signature's evidence across sessions, as :meth:`FailureStore.failure_groups` returns it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Failure:  # one captured failure, already normalised
    ts: float  # time.time()
    session_id: str
    tool: str  # "Bash", "Edit", "Write", ...
    command: str | None  # normalised command for Bash (whitespace collapsed), else None
    signature: str  # signature.normalise(...) of the error text
    category: str  # classify.classify(...)
    paths: tuple[str, ...]  # project-relative POSIX paths involved, deduplicated, sorted
    excerpt: str  # sanitize.excerpt(...): short, sanitised, single line, ≤ 160 chars
    exit_code: int | None


@dataclass(frozen=True)
class FailureGroup:  # what graduation reads: one signature's evidence across sessions
    signature: str
    category: str
    sessions: int  # DISTINCT sessions in which it failed (a retry loop counts once)
    occurrences: int
    first_seen: float
    last_seen: float
    paths: tuple[str, ...]  # failure paths (project-relative)
    fix_paths: tuple[str, ...]  # files edited between a failure and the later success
    fix_commands: tuple[str, ...]  # the commands whose success closed an episode (the remedy)
    sample_command: str | None
    excerpt: str
