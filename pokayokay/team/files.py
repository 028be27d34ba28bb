"""Team memory at the edge: the writer id, the team folder, and the files in it.

* The writer id is a random 16-hex-digit id kept in the project's pokayokay state folder
  (never a name, e-mail or host). One per user and clone: two clones never share a file.
* ``.claude/pokayokay/team/<writer-id>.jsonl`` is written by its writer only: new evidence is
  appended, and the file is compacted (one line per mistake) when superseded lines pile up.
  Nobody else ever writes it, so a ``git pull`` never meets two edits of one file
  (docs/decisions/0110).
* Every writer's file is read with a size limit, a regular file only (a symlink, a FIFO, a
  file named like no writer is skipped), line by line: a refused line costs itself, a file
  that cannot be read costs itself (``problems`` says which, for ``doctor``).
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
from dataclasses import dataclass
from pathlib import Path

from pokayokay.infra.regular import read_bounded
from pokayokay.infra.safe_write import read_bytes, update, write_atomic
from pokayokay.infra.state import project_state_dir
from pokayokay.team.aggregate import latest
from pokayokay.team.records import Refused, TeamRecord, decode_line, encode_line
from pokayokay.team.stamp import TEAM_DIR

__all__ = [
    "TeamFiles",
    "read_team",
    "team_folder",
    "write_own",
    "writer_id",
]

WRITER_FILE = "team-writer-id"
CHECKED_FILE = "team-checked-lines"  # digests of team lines that passed every check
MAX_FILE_BYTES = 1 << 20  # one writer's file; a larger one is skipped, never half-read
COMPACT_SLACK = 16  # superseded lines tolerated before a writer compacts its own file
_WRITER = re.compile(r"[0-9a-f]{16}")


def team_folder(project: Path) -> Path:
    return project / TEAM_DIR


def writer_id(project_key: str) -> str:
    """This user's writer id for this project (created on first use)."""
    path = project_state_dir(project_key) / WRITER_FILE
    try:
        text = path.read_text("ascii").strip()
        if _WRITER.fullmatch(text):
            return text
    except (OSError, UnicodeDecodeError):
        pass  # no id yet, or an unreadable one: a new id (a new file; the old one still counts)
    new = secrets.token_hex(8)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, new.encode("ascii") + b"\n")
    return new


@dataclass(frozen=True)
class TeamFiles:
    records: dict[str, tuple[TeamRecord, ...]]  # writer id → its records, file order
    problems: tuple[str, ...]  # one line per skipped file or refused line
    refused: int  # lines refused


def _inside(folder: Path, project: Path) -> bool:
    real = Path(os.path.realpath(folder))
    claude = Path(os.path.realpath(project / ".claude"))
    return claude in real.parents and Path(os.path.realpath(project)) == claude.parent


def _checked_digests(project_key: str | None) -> tuple[Path | None, set[str]]:
    if project_key is None:
        return None, set()
    path = project_state_dir(project_key) / CHECKED_FILE
    try:
        return path, set(path.read_text("ascii").split())
    except (OSError, UnicodeDecodeError):
        return path, set()


def _digest(line: bytes) -> str:
    return hashlib.blake2b(line, digest_size=12).hexdigest()


def read_team(project: Path, project_key: str | None = None) -> TeamFiles:
    """Every writer's records (none when there is no team folder). With ``project_key``, the
    digests of lines that passed every check are kept in the project's state folder, and such
    a line is only parsed on the next read (redaction of every field is what a read costs)."""
    cache, checked = _checked_digests(project_key)
    passed: set[str] = set()
    files = _read_team(project, checked, passed)
    if cache is not None and passed != checked:
        import contextlib

        with contextlib.suppress(OSError):  # a cache: without it the next read checks again
            cache.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(cache, "\n".join(sorted(passed)).encode("ascii") + b"\n")
    return files


def _read_team(project: Path, checked: set[str], passed: set[str]) -> TeamFiles:
    folder = team_folder(project)
    records: dict[str, tuple[TeamRecord, ...]] = {}
    problems: list[str] = []
    refused = 0
    if not folder.is_dir():
        return TeamFiles(records, (), 0)
    if not _inside(folder, project):
        return TeamFiles(records, (f"{TEAM_DIR} leads outside the project; not read",), 0)
    for path in sorted(folder.iterdir()):
        name = path.name
        if not name.endswith(".jsonl"):
            continue
        shown = f"{TEAM_DIR}/{name}"
        writer = name.removesuffix(".jsonl")
        if not _WRITER.fullmatch(writer):
            problems.append(f"{shown}: not a writer's file name; skipped")
            continue
        data = read_bounded(path, MAX_FILE_BYTES)
        if isinstance(data, str):
            problems.append(f"{shown}: {data}; skipped")
            continue
        taken: list[TeamRecord] = []
        for number, raw in enumerate(data.split(b"\n"), 1):
            if not raw.strip():
                continue
            digest = _digest(raw)
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                result: TeamRecord | Refused = Refused("not UTF-8")
            else:
                result = decode_line(line, known=digest in checked)
            if isinstance(result, Refused):
                refused += 1
                if refused <= 20:
                    problems.append(f"{shown}:{number}: refused: {result.reason}")
                continue
            passed.add(digest)
            taken.append(result)
        records[writer] = tuple(taken)
    if refused > 20:
        problems.append(f"… and {refused - 20} more refused lines")
    return TeamFiles(records, tuple(problems), refused)


def _own_text(
    current: bytes | None, wanted: tuple[TeamRecord, ...], checked: set[str]
) -> bytes | None:
    """The writer's file after adding what changed (None: nothing to add)."""
    old: list[TeamRecord] = []
    if current:
        for raw in current.split(b"\n"):
            if not raw.strip():
                continue
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                continue  # a broken line: the count below differs, so this write compacts it away
            result = decode_line(line, known=_digest(raw) in checked)
            if isinstance(result, TeamRecord):
                old.append(result)
    known = {(r.kind, r.mistake): r for r in latest(old)}
    new = [r for r in wanted if known.get((r.kind, r.mistake)) != r]
    if not new and current is not None:
        return None
    kept = latest([*old, *new])
    lines = [*(encode_line(r) for r in old), *(encode_line(r) for r in new)]
    if len(lines) > len(kept) + COMPACT_SLACK or (current or b"").count(b"\n") != len(old):
        lines = [encode_line(r) for r in kept]  # compaction: one line per mistake, sorted
    return ("\n".join(lines) + "\n").encode("ascii") if lines else b""  # JSON, ASCII only


def write_own(
    project: Path, writer: str, wanted: tuple[TeamRecord, ...], project_key: str | None = None
) -> bool:
    """Bring this writer's file up to ``wanted`` (its current records); True when written.
    ``project_key``: lines already checked (:func:`read_team`'s digests) are not checked again."""
    checked = _checked_digests(project_key)[1]
    folder = team_folder(project)
    folder.mkdir(parents=True, exist_ok=True)
    if not _inside(folder, project):
        raise OSError(f"{TEAM_DIR} leads outside the project; not written")
    path = folder / f"{writer}.jsonl"
    before = read_bytes(path)
    after = update(path, lambda current: _own_text(current, wanted, checked))
    return after != before
