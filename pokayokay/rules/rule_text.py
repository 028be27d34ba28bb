"""The bookkeeping lines inside a graduated rule file and the retired-rules archive (pure): the
rule's id, signatures and dates in an HTML comment Claude Code strips, the end marker that keeps
the user's notes below it, and the retired marks."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timezone

from pokayokay.infra.markdown import outside_fences

BOOKKEEPING_RE = re.compile(r"<!--\s*pokayokay-rule:(.*?)-->")


RETIRED_RE = re.compile(r"^[ \t]*<!--\s*pokayokay-retired:(.*?)-->[ \t]*$")


END_RE = re.compile(r"^[ \t]*<!--\s*pokayokay-rule-end\b.*-->[ \t]*$")


RULE_LINK_RE = re.compile(r"\.claude/rules/pokayokay/([A-Za-z0-9][A-Za-z0-9._-]*?)\.md\b")


@dataclass(frozen=True)
class RuleMeta:
    """What the bookkeeping comment of an existing rule file says."""

    id: str
    signatures: tuple[str, ...]
    graduated: date | None


def parse_bookkeeping(text: str) -> RuleMeta | None:
    """The bookkeeping comment of a rule file (None when it is not a pokayokay rule)."""
    match = BOOKKEEPING_RE.search(text)
    if match is None:
        return None
    fields: dict[str, str] = {}
    for part in match[1].split(";"):
        key, sep, value = part.partition("=")
        if sep:
            fields[key.strip()] = value.strip()
    graduated: date | None = None
    try:
        graduated = date.fromisoformat(fields.get("graduated", ""))
    except ValueError:
        graduated = None
    signatures = tuple(s.strip() for s in fields.get("signatures", "").split(",") if s.strip())
    return RuleMeta(fields.get("id", ""), signatures, graduated)


def user_tail(text: str) -> str:
    """What a user wrote below the end line of a rule file (kept on every update)."""
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if END_RE.match(line.rstrip("\r\n")):
            return "".join(lines[i + 1 :])
    return ""


def rule_ids_in(text: str) -> list[str]:
    """Rule ids an Active Patterns entry links (``.claude/rules/pokayokay/<id>.md``)."""
    return RULE_LINK_RE.findall(text)


def retired_line(rule_id: str, signatures: Sequence[str], when: date | datetime) -> str:
    """The bookkeeping line ``rules-archive.md`` keeps for a retired rule (one line). ``when``
    is the moment of retirement (UTC, to the second); a date is the older, day-only form."""
    sigs = ",".join(s for s in signatures if s and "," not in s and "-->" not in s)
    if isinstance(when, datetime):
        stamp = when.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    else:
        stamp = when.isoformat()
    return f"<!-- pokayokay-retired: id={rule_id}; signatures={sigs}; retired={stamp} -->"


def retired_moment(value: str) -> datetime | None:
    """A ``retired=`` value as a UTC moment: a timestamp as written, a day-only value (older
    archives) as the end of that day, so failures later that day still count as old."""
    try:
        if "T" in value:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
            return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
        day = date.fromisoformat(value)
    except ValueError:
        return None
    return datetime.combine(day, time.max, timezone.utc)


def parse_retired(text: str) -> dict[str, datetime]:
    """Signature (short id) → the latest moment a rule listing it was retired, from the text of
    ``rules-archive.md`` (pure). Only whole :func:`retired_line` lines outside fenced blocks
    count, so an archived rule's own text can never fake one."""
    out: dict[str, datetime] = {}
    for line in outside_fences(text.splitlines()):
        match = RETIRED_RE.match(line)
        if match is None:
            continue
        fields: dict[str, str] = {}
        for part in match[1].split(";"):
            key, sep, value = part.partition("=")
            if sep:
                fields[key.strip()] = value.strip()
        moment = retired_moment(fields.get("retired", ""))
        if moment is None:
            continue
        for sig in fields.get("signatures", "").split(","):
            sig = sig.strip()
            if sig and (sig not in out or out[sig] < moment):
                out[sig] = moment
    return out
