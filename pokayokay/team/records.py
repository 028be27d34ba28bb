"""Team evidence records: what one teammate shares of one mistake, as one JSON line (pure).

A writer's file ``.claude/pokayokay/team/<writer-id>.jsonl`` holds one record per line. A
record is either *evidence* (one mistake's counts in this writer's own sessions, cumulative: a
later line for the same mistake supersedes an earlier one) or a *tombstone* (the writer retired
the rule holding that mistake, at a moment). What a record holds (docs/decisions/0111): the
mistake key, its category, project-relative paths (failure and fix), the failing command and
its corrections (both redacted), counts and timestamps, and the fixing commit's short SHA
when git shows one (optional: :mod:`pokayokay.team.commits`, docs/decisions/0114). Never tool
output, never a fixing edit's lines, never a name, host or absolute path.

Redaction runs twice: :func:`from_group` redacts and strips ``<private>`` spans before a record
is written, and :func:`decode_line` *refuses* (rather than repairs) a line read back from any
writer whose text redaction or the private filter would change, whose paths leave the project,
or whose shape is wrong. A refusal is a value with its reason, never an exception: a hostile
teammate file costs its own lines, never a hook.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from pokayokay.failures.model import Correction, FailureGroup
from pokayokay.infra.private import has_private, strip_private
from pokayokay.safety.redact import redact

__all__ = [
    "EVIDENCE",
    "FORMAT",
    "TOMBSTONE",
    "Refused",
    "TeamRecord",
    "decode_line",
    "encode_line",
    "from_group",
    "safe_path",
    "tombstone",
]

FORMAT = 1
EVIDENCE = "evidence"
TOMBSTONE = "retired"
MAX_TEXT = 400  # a key, a command or a correction, in characters
MAX_PATHS = 12  # paths of each kind kept in a record
MAX_CORRECTIONS = 3
MAX_COUNT = 10**7
MAX_LINE = 8192  # bytes of one JSON line
_CATEGORY = re.compile(r"[a-z0-9][a-z0-9_-]{0,40}")
_KINDS = frozenset({"environment", "command"})
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_SHA = re.compile(r"[0-9a-f]{7,12}")


@dataclass(frozen=True)
class TeamRecord:
    """One line of a writer's file, as read (the writer is the file's name, not a field)."""

    kind: str  # EVIDENCE or TOMBSTONE
    mistake: str  # the group key (failures.mistakes): "ruff:F401", "test:tests/x.py::t"
    category: str = ""
    sessions: int = 0  # distinct sessions of this writer in which it failed
    occurrences: int = 0
    first: int = 0  # Unix seconds (UTC), the first failure
    last: int = 0  # the last failure; for a tombstone, the moment of retirement
    paths: tuple[str, ...] = ()
    fix_paths: tuple[str, ...] = ()
    command: str | None = None  # a failing command (redacted)
    corrections: tuple[Correction, ...] = ()
    fix_commit: str | None = None  # the fixing commit's short SHA (team/commits.py), if known


@dataclass(frozen=True)
class Refused:
    """A line that is not taken, and why (``doctor`` lists it)."""

    reason: str


def safe_path(path: str) -> bool:
    """A project-relative POSIX path that stays inside the project: no root, no drive, no
    ``..``, no backslash, no control character, no home shorthand."""
    if not path or len(path) > MAX_TEXT or _CONTROL.search(path):
        return False
    if path.startswith(("/", "~")) or "\\" in path or re.match(r"[A-Za-z]:", path):
        return False
    parts = path.split("/")
    return all(part not in ("", ".", "..") for part in parts)


def _clean(text: str) -> str:
    """Redacted, private spans replaced, control characters made spaces, cut to a prefix whose
    redaction is itself (a cut never leaves half a secret behind)."""
    text = _CONTROL.sub(" ", redact(strip_private(text)))
    cut = text[:MAX_TEXT]
    while cut and (redact(cut) != cut or has_private(cut)):
        cut = cut[: len(cut) // 2]
    return cut


def _paths(paths: tuple[str, ...]) -> tuple[str, ...]:
    kept = sorted({p for p in paths if safe_path(p) and _clean(p) == p})
    return tuple(kept[:MAX_PATHS])


def from_group(group: FailureGroup, fix_commit: str | None = None) -> TeamRecord | None:
    """This writer's evidence of one mistake, redacted (None when nothing shareable is left: a
    key that redaction or the private filter would change is not shared at all), with the
    fixing commit's short SHA when known (kept only when it is one)."""
    if _clean(group.signature) != group.signature or not group.signature:
        return None
    if _CONTROL.search(group.signature):
        return None
    category = group.category if _CATEGORY.fullmatch(group.category) else "other"
    command = None
    if group.sample_command:
        command = _clean(group.sample_command) or None
    corrections = tuple(
        Correction(_clean(c.failing), _clean(c.corrected), c.kind, min(MAX_COUNT, max(0, c.times)))
        for c in group.corrections[:MAX_CORRECTIONS]
        if c.kind in _KINDS and _clean(c.failing) and _clean(c.corrected)
    )
    return TeamRecord(
        kind=EVIDENCE,
        mistake=group.signature,
        category=category,
        sessions=min(MAX_COUNT, max(0, group.sessions)),
        occurrences=min(MAX_COUNT, max(0, group.occurrences)),
        first=int(group.first_seen),
        last=int(group.last_seen),
        paths=_paths(group.paths),
        fix_paths=_paths(group.fix_paths),
        command=command,
        corrections=corrections,
        fix_commit=fix_commit if fix_commit and _SHA.fullmatch(fix_commit) else None,
    )


def tombstone(mistake: str, at: float) -> TeamRecord:
    """The writer retired the rule holding ``mistake`` at ``at`` (Unix seconds)."""
    return TeamRecord(kind=TOMBSTONE, mistake=mistake, last=int(at))


def encode_line(record: TeamRecord) -> str:
    """One JSON line (keys sorted, no spaces, ASCII only): the same record is the same bytes
    on every machine."""
    data: dict[str, Any] = {"v": FORMAT, "kind": record.kind, "mistake": record.mistake}
    if record.kind == TOMBSTONE:
        data["at"] = record.last
    else:
        data.update(
            category=record.category,
            sessions=record.sessions,
            occurrences=record.occurrences,
            first=record.first,
            last=record.last,
            paths=list(record.paths),
            fix_paths=list(record.fix_paths),
        )
        if record.command is not None:
            data["command"] = record.command
        if record.corrections:
            data["corrections"] = [list(c) for c in record.corrections]
        if record.fix_commit is not None:
            data["commit"] = record.fix_commit  # optional: a v1 line without it stays valid
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def _text(value: object, what: str, known: bool = False) -> str:
    if not isinstance(value, str) or not value or len(value) > MAX_TEXT:
        raise _Bad(f"{what} is not a short text")
    if _CONTROL.search(value):
        raise _Bad(f"{what} holds a control character")
    if known:  # these exact bytes passed the checks below before
        return value
    if has_private(value):
        raise _Bad(f"{what} holds a <private> span")
    if redact(value) != value:
        raise _Bad(f"{what} holds what redaction removes")
    return value


def _count(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_COUNT:
        raise _Bad(f"{what} is not a count")
    return value


def _moment(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**33:
        raise _Bad(f"{what} is not a time")
    return value


def _path_list(value: object, what: str, known: bool) -> tuple[str, ...]:
    if not isinstance(value, list) or len(value) > MAX_PATHS:
        raise _Bad(f"{what} is not a short list")
    out = []
    for item in value:
        text = _text(item, what, known)
        if not safe_path(text):
            raise _Bad(f"{what} leaves the project")
        out.append(text)
    return tuple(sorted(set(out)))


class _Bad(Exception):
    pass


def decode_line(line: str, *, known: bool = False) -> TeamRecord | Refused:
    """A line of any writer's file checked and read, or the reason it is refused. ``known``:
    this exact line passed every check before (the caller keeps digests of checked lines), so
    only its shape is checked, not redaction again (the costly part)."""
    if len(line.encode("utf-8", "surrogateescape")) > MAX_LINE:
        return Refused("the line is too long")
    try:
        data = json.loads(line)
    except ValueError:
        return Refused("not a JSON line")
    if not isinstance(data, dict):
        return Refused("not a JSON object")
    try:
        return _decode(data, known)
    except _Bad as exc:
        return Refused(str(exc))


def _decode(data: dict[str, Any], known: bool) -> TeamRecord:
    if data.get("v") != FORMAT:
        raise _Bad("an unknown record format")
    kind = data.get("kind")
    mistake = _text(data.get("mistake"), "the mistake key", known)
    if kind == TOMBSTONE:
        return tombstone(mistake, _moment(data.get("at"), "the retirement time"))
    if kind != EVIDENCE:
        raise _Bad("an unknown record kind")
    category = data.get("category")
    if not isinstance(category, str) or not _CATEGORY.fullmatch(category):
        raise _Bad("the category is not a category name")
    first = _moment(data.get("first"), "the first time")
    last = _moment(data.get("last"), "the last time")
    if first > last:
        raise _Bad("the first failure is after the last")
    command = data.get("command")
    commit = data.get("commit")
    if commit is not None and not (isinstance(commit, str) and _SHA.fullmatch(commit)):
        raise _Bad("the commit is not a short SHA")
    corrections: list[Correction] = []
    raw = data.get("corrections", [])
    if not isinstance(raw, list) or len(raw) > MAX_CORRECTIONS:
        raise _Bad("the corrections are not a short list")
    for item in raw:
        if not isinstance(item, list) or len(item) != 4 or item[2] not in _KINDS:
            raise _Bad("a correction has the wrong shape")
        corrections.append(
            Correction(
                _text(item[0], "a correction", known),
                _text(item[1], "a correction", known),
                item[2],
                _count(item[3], "a correction's count"),
            )
        )
    return TeamRecord(
        kind=EVIDENCE,
        mistake=mistake,
        category=category,
        sessions=_count(data.get("sessions"), "the session count"),
        occurrences=_count(data.get("occurrences"), "the failure count"),
        first=first,
        last=last,
        paths=_path_list(data.get("paths", []), "a path", known),
        fix_paths=_path_list(data.get("fix_paths", []), "a fix path", known),
        command=None if command is None else _text(command, "the command", known),
        corrections=tuple(corrections),
        fix_commit=commit,
    )
