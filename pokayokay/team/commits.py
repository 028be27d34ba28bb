"""The commit that fixed a mistake, for a team record's ``commit`` (its short SHA).

The failure store knows the files whose edit made a failing check pass (``fix_paths``) and when
the mistake last failed; git knows when those files were committed. The fixing commit is the
first commit after the last failure (a later second) that touches one of the fix paths: the
edit that made the check pass went into it. :func:`parse_log` and :func:`fixing_commit` are pure;
:func:`recent_commits` is the edge (one ``git log`` per SessionEnd, bounded in count and time,
None-safe: no git, no commit, no answer within the hooks' git timeout all mean "unknown").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["MAX_COMMITS", "MAX_PATHSPECS", "Commit", "fixing_commit", "parse_log", "recent_commits"]

MAX_COMMITS = 500  # commits one SessionEnd looks through
MAX_PATHSPECS = 64  # fix paths handed to git (more: the rest are not looked for)
SHORT = 7  # the short SHA's length, fixed: every clone writes the same record
_HEAD = re.compile(r"([0-9a-f]{40}) (\d{1,12})")


@dataclass(frozen=True)
class Commit:
    sha: str  # full
    time: int  # committer time, Unix seconds
    paths: frozenset[str]  # project-relative paths it changed

    @property
    def short(self) -> str:
        return self.sha[:SHORT]


def parse_log(text: str) -> tuple[Commit, ...]:
    """``git log --format=%x00%H %ct --name-only`` read as commits (newest first, as printed);
    anything else in the text is skipped."""
    out = []
    for chunk in text.split("\0"):
        lines = chunk.strip("\n").split("\n")
        head = _HEAD.fullmatch(lines[0].strip()) if lines else None
        if head is None:
            continue
        paths = frozenset(line.strip() for line in lines[1:] if line.strip())
        out.append(Commit(head.group(1), int(head.group(2)), paths))
    return tuple(out)


def fixing_commit(
    last_failure: float, fix_paths: Iterable[str], commits: Sequence[Commit]
) -> str | None:
    """The short SHA of the first commit after ``last_failure`` touching a fix path (git's
    times are whole seconds: a commit in the failure's own second is taken to precede it)."""
    wanted = {p.lstrip("/") for p in fix_paths}
    if not wanted:
        return None
    found = [c for c in commits if c.time > int(last_failure) and c.paths & wanted]
    if not found:
        return None
    return min(found, key=lambda c: (c.time, c.sha)).short


def recent_commits(
    project: Path, since: float, paths: Iterable[str] = ()
) -> tuple[Commit, ...]:
    """The project's commits since ``since`` that touch one of ``paths`` (every commit when
    none are given), at most :data:`MAX_COMMITS`; () when unknown. Limiting git to the fix
    paths keeps the walk cheap on a busy history."""
    from pokayokay.learnings.outcomes.session_heads import session_git

    wanted = sorted({p.lstrip("/") for p in paths if p})[:MAX_PATHSPECS]
    text = session_git(
        project, "log", f"--max-count={MAX_COMMITS}", f"--since=@{int(since)}",
        "--no-renames", "--format=%x00%H %ct", "--name-only", "HEAD", "--",
        *(f":(literal){p}" for p in wanted),
    )  # fmt: skip
    return parse_log(text) if text else ()
