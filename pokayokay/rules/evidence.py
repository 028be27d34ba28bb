"""What a rule says about its failures (pure): the failing commands, paths and excerpts shown as
evidence, sanitised, and the remedies the fix episodes suggest."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from datetime import date, datetime, timezone

from pokayokay.failures.model import FailureGroup
from pokayokay.rules.globs import normalise_path
from pokayokay.safety import sanitize

MAX_REMEDIES = 3


MAX_FIX_FILES = 5


MAX_COMMAND = 120


# Output piped into a pager or cut short only changes what Claude saw, not whether it passed.
_PIPE_TAIL = re.compile(r"\s*\|\s*(?:tail|head|less|more|cat|tee)\b[^|]*$")


_REDIRECT = re.compile(r"\s*(?:\d?>&\d|&>\s*/dev/null|\d?>\s*/dev/null)")


# When no fix episode shows a remedy and there is no command to re-run.
_DEFAULT_REMEDY = {
    "edit": "re-read a file right before editing it here; edits failed because the text to "
    "replace was missing or had changed.",
    "permissions": "calls here were refused (a permission rule, a hook or the user); check "
    "what is allowed before trying again.",
}


_FALLBACK_REMEDY = "check the failure above before finishing changes to files here."


def _day(ts: float) -> date:
    return datetime.fromtimestamp(ts, tz=timezone.utc).date()


def _code(text: str) -> str:
    """Sanitised text in a code span, or in quotes when it has a backtick."""
    return f"`{text}`" if "`" not in text else f'"{text}"'


def _command(command: str) -> str | None:
    shown = _REDIRECT.sub("", command)
    while True:
        shorter = _PIPE_TAIL.sub("", shown)
        if shorter == shown:
            break
        shown = shorter
    cleaned = sanitize.excerpt(shown.strip() or command, MAX_COMMAND)
    return _code(cleaned) if any(ch.isalnum() for ch in cleaned) else None


def _path(path: str) -> str | None:
    cleaned = sanitize.clean(path)
    return _code(cleaned) if cleaned else None


def _title(category: str) -> str:
    return category.replace("-", " ").replace("_", " ")


def _slug(text: str, limit: int = 40) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug[:limit].strip("-")


def _evidence(group: FailureGroup) -> list[str]:
    paths = (normalise_path(p) for p in (*group.paths, *group.fix_paths))
    return sorted({p for p in paths if p is not None})


def _keys(paths: Sequence[str]) -> set[str]:
    """Top-level folders (or top-level files) of ``paths``."""
    return {p.split("/")[0] for p in paths}


def _order(group: FailureGroup) -> tuple[int, int, float, str]:
    return (-group.sessions, -group.occurrences, -group.last_seen, group.signature)


def _where(globs: Sequence[str], limit: int) -> str:
    if not globs:
        return "the whole project"
    shown = [f"`{g}`" for g in globs[:limit]]
    more = len(globs) - limit
    text = ", ".join(shown)
    return text + (f" and {more} more" if more > 0 else "")


def _fix_files(groups: Sequence[FailureGroup]) -> list[str]:
    counts: Counter[str] = Counter()
    for group in groups:
        counts.update({p for p in map(normalise_path, group.fix_paths) if p is not None})
    ranked = sorted(counts, key=lambda p: (-counts[p], p))
    return [shown for p in ranked[:MAX_FIX_FILES] if (shown := _path(p))]


def _remedies(groups: Sequence[FailureGroup], category: str) -> list[str]:
    """What the fix episodes show, most frequent first; else a default for the category."""
    counts: Counter[str] = Counter()
    for group in groups:
        counts.update({shown for c in group.fix_commands if (shown := _command(c))})
    ranked = sorted(counts, key=lambda c: (-counts[c], c))
    out = []
    for shown in ranked[:MAX_REMEDIES]:
        times = "" if counts[shown] == 1 else f" ({counts[shown]} failures)"
        out.append(f"run {shown} after changing files here; it passed after the fix{times}.")
    if out:
        return out
    if category in _DEFAULT_REMEDY:  # the call was refused or the edit misfired: no re-run
        return [_DEFAULT_REMEDY[category]]
    samples = sorted(
        {shown for g in groups if g.sample_command and (shown := _command(g.sample_command))}
    )
    for shown in samples[:MAX_REMEDIES]:
        out.append(f"re-run {shown} after changing files here, before finishing.")
    return out or [_FALLBACK_REMEDY]


def _excerpt(text: str, limit: int = sanitize.DEFAULT_LIMIT) -> str:
    shown = sanitize.excerpt(text, limit)
    return shown if any(ch.isalnum() for ch in shown) else "(no error text)"
