"""The bookkeeping lines inside a graduated rule file and the retired-rules archive (pure): the
rule's id, signatures and dates in an HTML comment Claude Code strips, the end marker that keeps
the user's notes below it, and the retired marks."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

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


def _user_tail(text: str) -> str:
    """What a user wrote below the end line of a rule file (kept on every update)."""
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if END_RE.match(line.rstrip("\r\n")):
            return "".join(lines[i + 1 :])
    return ""


def rule_ids_in(text: str) -> list[str]:
    """Rule ids an Active Patterns entry links (``.claude/rules/pokayokay/<id>.md``)."""
    return RULE_LINK_RE.findall(text)


def retired_line(rule_id: str, signatures: Sequence[str], day: date) -> str:
    """The bookkeeping line ``rules-archive.md`` keeps for a retired rule (one line)."""
    sigs = ",".join(s for s in signatures if s and "," not in s and "-->" not in s)
    return f"<!-- pokayokay-retired: id={rule_id}; signatures={sigs}; retired={day.isoformat()} -->"


def parse_retired(text: str) -> dict[str, date]:
    """Signature (short id) → the latest date a rule listing it was retired, from the text of
    ``rules-archive.md`` (pure). Only whole :func:`retired_line` lines outside fenced blocks
    count, so an archived rule's own text can never fake one."""
    out: dict[str, date] = {}
    for line in outside_fences(text.splitlines()):
        match = RETIRED_RE.match(line)
        if match is None:
            continue
        fields: dict[str, str] = {}
        for part in match[1].split(";"):
            key, sep, value = part.partition("=")
            if sep:
                fields[key.strip()] = value.strip()
        try:
            day = date.fromisoformat(fields.get("retired", ""))
        except ValueError:
            continue
        for sig in fields.get("signatures", "").split(","):
            sig = sig.strip()
            if sig and (sig not in out or out[sig] < day):
                out[sig] = day
    return out
