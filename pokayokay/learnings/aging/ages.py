"""Ages of learning entries in git-active days, and staleness since the last consolidation.

A learnings file is any markdown file whose entries are H2 sections: an entry is a ``## Title``
line (outside code fences) and the lines up to the next one. Lines before the first entry are the
file's preamble.

Counting rules (the same everywhere in pokayokay):

* **Dates are committer dates**, on the committer's own calendar (``git log --date=short``). The
  committer date says when a line entered *this* history: a rebased or cherry-picked commit keeps
  its old author date but gets a new committer date.
* **Added** = the committer date of the commit that introduced the entry's heading line, found
  with ``git blame -C -C``: whole-file renames and lines moved or copied from other files are
  followed, and a line added on a branch that was merged is attributed to the branch commit that
  added it. A heading that is not committed yet is "uncommitted", age 0.
* **Git-active days** since a date D = the number of distinct commit dates in the history
  reachable from HEAD that are strictly after D and not after today (the local date). The added
  day itself does not count, so an entry added today is 0 days old, and a day without commits
  does not age anything.
* **Last consolidation** = the most recent commit (``git log -p --follow``, so renames are
  followed) whose diff removes at least one ``## `` line of the file that the same diff does not
  add back (an entry moved within the file is not a consolidation; merge commits show no diff of
  their own, so a consolidation made on a merged branch counts at its branch commit).
  **Staleness** = git-active days since that commit's date; unknown when there is none.

Every git call runs with ``LC_ALL=C``, ``core.quotepath=off``, literal pathspecs, no optional
locks (so a concurrent ``git commit`` never trips over us) and a timeout.
"""

from __future__ import annotations

import bisect
import os
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from pokayokay.errors import PokayokayError
from pokayokay.infra.git import GIT_TIMEOUT, Git, first_line
from pokayokay.infra.regular import read_regular
from pokayokay.learnings.aging.entries import LearningEntry, h2_title, parse_entries
from pokayokay.learnings.model import EntryAge
from pokayokay.memory.document import count_lines

ZERO_SHA = "0" * 40
DEFAULT_FRESHNESS = 7
# Past this many entries, blame the whole file rather than one ``-L`` range per heading.
MAX_LINE_RANGES = 2000

_TZ = re.compile(r"^([+-])(\d\d)(\d\d)$")


# -- the file ----------------------------------------------------------------------------------


# -- pure age arithmetic -----------------------------------------------------------------------


def active_days(dates: Sequence[date], since: date, today: date) -> int:
    """Distinct dates in ``dates`` (sorted, unique) with ``since < d <= today``."""
    if since >= today:
        return 0
    return bisect.bisect_right(dates, today) - bisect.bisect_right(dates, since)


def commit_day(timestamp: int, tz: str) -> date:
    """The calendar date of a commit in its own time zone (what ``--date=short`` prints)."""
    match = _TZ.match(tz.strip())
    offset = timedelta(0)
    if match:
        offset = timedelta(hours=int(match[2]), minutes=int(match[3]))
        if match[1] == "-":
            offset = -offset
    return datetime.fromtimestamp(timestamp, timezone(offset)).date()


def parse_dates(output: str) -> list[date]:
    """Sorted distinct dates from ``git log --format=%cd --date=short`` output."""
    found: set[date] = set()
    for line in output.splitlines():
        text = line.strip()
        if text:
            try:
                found.add(date.fromisoformat(text))
            except ValueError:
                continue  # not a date: ignored
    return sorted(found)


@dataclass(frozen=True)
class BlameLine:
    commit: str
    day: date | None  # None for lines not committed yet


def parse_blame(output: str) -> dict[int, BlameLine]:
    """Final line number → the commit that added the line, from ``--line-porcelain`` output."""
    out: dict[int, BlameLine] = {}
    sha, final = "", 0
    when: int | None = None
    tz = "+0000"
    for raw in output.split("\n"):
        if raw.startswith("\t"):
            if sha:
                committed = sha != ZERO_SHA and when is not None
                day = commit_day(when, tz) if committed and when is not None else None
                out[final] = BlameLine(sha, day)
            sha, when, tz = "", None, "+0000"
            continue
        if not sha:
            parts = raw.split(" ")
            if len(parts) >= 3 and len(parts[0]) in (40, 64) and parts[2].isdigit():
                sha, final = parts[0], int(parts[2])
            continue
        if raw.startswith("committer-time "):
            value = raw[len("committer-time ") :].strip()
            when = int(value) if value.isdigit() else None
        elif raw.startswith("committer-tz "):
            tz = raw[len("committer-tz ") :]
    return out


@dataclass(frozen=True)
class Consolidation:
    """The commit that last removed entries from the file."""

    commit: str
    day: date
    removed: tuple[str, ...]  # titles of the removed headings


def find_consolidation(lines: Iterable[str]) -> Consolidation | None:
    """The first commit, in ``git log -p`` order, whose diff removes an H2 line it does not add
    back. ``lines`` is the log with each commit header written as ``\\0<sha> <YYYY-MM-DD>``."""
    sha: str | None = None
    day: date | None = None
    removed: Counter[str] = Counter()
    added: Counter[str] = Counter()

    def verdict() -> Consolidation | None:
        net = removed - added
        if sha is None or day is None or not net:
            return None
        return Consolidation(sha, day, tuple(sorted(net.elements())))

    for raw in lines:
        line = raw.rstrip("\r\n")
        if line.startswith("\0"):
            found = verdict()
            if found is not None:
                return found
            removed, added = Counter(), Counter()
            head = line[1:].split(" ")
            sha = head[0] if head and head[0] else None
            try:
                day = date.fromisoformat(head[1]) if len(head) > 1 else None
            except ValueError:
                day = None
            continue
        if line.startswith(("---", "+++")):
            continue  # file headers of the diff
        if line.startswith("-") or line.startswith("+"):
            title = h2_title(line[1:])
            if title is not None:
                (removed if line[0] == "-" else added)[title] += 1
    return verdict()


# -- report ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AgesReport:
    path: Path
    display: str  # the path relative to the repository root
    repo_root: Path
    data: bytes  # exactly the bytes that were dated
    file_lines: int
    entries: tuple[LearningEntry, ...]
    ages: tuple[EntryAge, ...]
    last_consolidation: Consolidation | None
    staleness: int | None
    today: date
    freshness: int = DEFAULT_FRESHNESS

    @property
    def text(self) -> str:
        return self.data.decode("utf-8", "surrogateescape")

    @property
    def fresh_count(self) -> int:
        """Entries at least ``freshness`` active days old."""
        return sum(1 for age in self.ages if age.age >= self.freshness)

    @property
    def max_age(self) -> int:
        return max((age.age for age in self.ages), default=0)

    def last_consolidation_label(self) -> str:
        found = self.last_consolidation
        if found is None or self.staleness is None:
            return "unknown (no prior consolidation detected)"
        return (
            f"{self.staleness} active days ago "
            f"({found.day.isoformat()}, commit {found.commit[:12]})"
        )

    def to_markdown(self) -> str:
        """Seed 004's D-2 format. Each entry's lines are fixed (``- Age: N active days``, even
        for 1) so scripts and agents can read them back; the last consolidation line adds its
        date and commit in parentheses. The file's path is in ``to_dict``."""
        out = [
            "# Learning Ages Report",
            "",
            f"**File lines:** {self.file_lines}",
            f"**Last consolidation:** {self.last_consolidation_label()}",
            f"**Total entries:** {len(self.ages)}",
            f"**Entries ≥{self.freshness} active days:** {self.fresh_count}",
        ]
        for age in self.ages:
            out += ["", f"## {age.title}", f"- Age: {age.age} active days"]
            out.append(f"- Added: {age.added_label}")
        return "\n".join(out) + "\n"

    def to_dict(self) -> dict[str, Any]:
        found = self.last_consolidation
        return {
            "file": self.display,
            "path": str(self.path),
            "repo_root": str(self.repo_root),
            "today": self.today.isoformat(),
            "file_lines": self.file_lines,
            "last_consolidation": None
            if found is None
            else {
                "commit": found.commit,
                "date": found.day.isoformat(),
                "removed": list(found.removed),
            },
            "staleness": self.staleness,
            "total_entries": len(self.ages),
            "freshness": self.freshness,
            "entries_at_least_freshness": self.fresh_count,
            "entries": [age.to_dict() for age in self.ages],
        }


def compute_ages(
    entries: Sequence[LearningEntry],
    blame: Mapping[int, BlameLine],
    dates: Sequence[date],
    today: date,
) -> tuple[EntryAge, ...]:
    """Ages of ``entries`` from the blame of their heading lines (pure)."""
    out = []
    for entry in entries:
        found = blame.get(entry.line)
        if found is None or found.day is None:
            out.append(EntryAge(entry.title, entry.line, 0, None, None))
            continue
        age = active_days(dates, found.day, today)
        out.append(EntryAge(entry.title, entry.line, age, found.day, found.commit))
    return tuple(out)


# -- git ---------------------------------------------------------------------------------------


def _read_file(path: Path) -> bytes:
    if not path.exists():
        raise PokayokayError(f"{path}: no such file")
    if not path.is_file():
        raise PokayokayError(f"{path}: not a regular file")
    try:
        data = read_regular(path)
    except OSError as exc:
        raise PokayokayError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    nul = data.find(b"\0")
    if nul != -1:
        raise PokayokayError(
            f"{path} looks binary (NUL byte at offset {nul}); not a learnings file"
        )
    return data


def locate(file: Path, repo_root: Path | None, git: Git) -> tuple[Path, str]:
    """The repository's top level and the file's path in it; errors name what is wrong."""
    real = Path(os.path.realpath(file))
    done = git.run("rev-parse", "--show-toplevel")
    if done.returncode != 0:
        message = first_line(done.stderr)
        if "not a git repository" in message:
            where = repo_root if repo_root is not None else real.parent
            raise PokayokayError(
                f"{where} is not a git repository: entry ages come from git history "
                f"(run `git init` and commit {file.name})"
            )
        raise PokayokayError(f"git rev-parse failed in {git.cwd}: {message}")
    top = Path(os.path.realpath(done.stdout.decode("utf-8", "surrogateescape").strip()))
    try:
        rel = real.relative_to(top).as_posix()
    except ValueError:
        raise PokayokayError(f"{file} is outside the git repository at {top}") from None
    git.cwd = top
    listed = git.run("ls-files", "-z", "--", rel)
    if listed.returncode != 0:
        raise PokayokayError(f"git ls-files failed in {top}: {first_line(listed.stderr)}")
    names = listed.stdout.decode("utf-8", "surrogateescape").split("\0")
    if rel not in names:
        raise PokayokayError(
            f"{file} is not tracked by git, so its entries have no history to date them: "
            f"run `git add {rel}` and commit it"
        )
    return top, rel


def blame_headings(
    git: Git, rel: str, data: bytes, entries: Sequence[LearningEntry]
) -> dict[int, BlameLine]:
    """Who added each heading line: ``git blame -C -C`` of ``data`` as the file's content."""
    ranges: list[str] = []
    if len(entries) <= MAX_LINE_RANGES:
        for entry in entries:
            ranges += ["-L", f"{entry.line},{entry.line}"]
    output = git.output(
        "blame", "-C", "-C", "--line-porcelain", "--contents", "-", *ranges, "--", rel, stdin=data
    )
    return parse_blame(output)


def last_consolidation(git: Git, rel: str) -> Consolidation | None:
    """Walk ``git log -p --follow`` newest first and stop at the first consolidation."""
    log = git.stream(
        "log",
        "--follow",
        "-p",
        "-U0",
        "--no-color",
        "--no-ext-diff",
        "--no-textconv",
        "--format=%x00%H %cd",
        "--date=short",
        "HEAD",
        "--",
        rel,
    )
    try:
        return find_consolidation(log)
    finally:
        log.close()


def ages(
    file: Path,
    repo_root: Path | None = None,
    *,
    today: date | None = None,
    freshness: int = DEFAULT_FRESHNESS,
    timeout: float = GIT_TIMEOUT,
    environ: Mapping[str, str] | None = None,
) -> AgesReport:
    """Age of every H2 entry of ``file`` in git-active days, and the file's staleness.

    ``repo_root`` is the folder git runs in (default: the file's folder; git finds the top level
    itself). Raises :class:`PokayokayError` (exit 2) with one line when the file is missing,
    git is missing, the folder is not a git repository, or the file is not tracked.
    """
    file = Path(file)
    day = today or date.today()
    data = _read_file(file)
    real = Path(os.path.realpath(file))
    git = Git(repo_root if repo_root is not None else real.parent, timeout=timeout, environ=environ)
    top, rel = locate(file, repo_root, git)
    text = data.decode("utf-8", "surrogateescape")
    _, entries = parse_entries(text)

    has_head = git.run("rev-parse", "--verify", "-q", "HEAD^{commit}").returncode == 0
    dates: list[date] = []
    blame: dict[int, BlameLine] = {}
    found: Consolidation | None = None
    if has_head:
        # Three independent walks of the history: run them side by side.
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=3) as pool:
            walk = pool.submit(last_consolidation, git, rel)
            dated = pool.submit(git.output, "log", "--format=%cd", "--date=short", "HEAD")
            blamed = pool.submit(blame_headings, git, rel, data, entries) if entries else None
            dates = parse_dates(dated.result())
            if blamed is not None:
                blame = blamed.result()
            found = walk.result()
    staleness = None if found is None else active_days(dates, found.day, day)
    return AgesReport(
        path=real,
        display=rel,
        repo_root=top,
        data=data,
        file_lines=count_lines(text),
        entries=tuple(entries),
        ages=compute_ages(entries, blame, dates, day),
        last_consolidation=found,
        staleness=staleness,
        today=day,
        freshness=freshness,
    )
