"""Stale lessons: a graduated rule that no longer teaches anything (pure: values in, values out).

A pokayokay rule is **stale** when

* **its files are all gone**: it has ``paths:`` and no file of the project matches them with
  Claude Code's own matcher (:mod:`pokayokay.rules.claude_match`), so it can never load again;
  or
* **its check passed in N sessions in a row after it loaded**: in each of the last ``N``
  sessions in which Claude Code loaded it (the ``InstructionsLoaded`` log), the mistake it is
  about did not happen after that load: the streak is the number of loaded sessions whose first
  load comes after the last failure of any of its signatures. ``N`` is
  ``graduation.stale_after_sessions`` in the committed ``.claude/pokayokay.md``
  (:data:`DEFAULT_STALE_AFTER_SESSIONS`). A rule naming no signature has no check, so it is
  never stale this way.

``status`` and ``report`` flag a stale rule; the retirement policy
(:func:`pokayokay.rules.retirement.retire_due_rules`, run at SessionEnd and by
``pokayokay rules retire --due``) retires it like any rule due, its text kept in
``rules-archive.md``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pokayokay.rules.effectiveness import FailureEvent, LoadEvent, signature_matcher

__all__ = [
    "DEFAULT_STALE_AFTER_SESSIONS",
    "FILES_GONE",
    "PASSED",
    "Staleness",
    "clean_streak",
    "files_gone",
    "literal_paths",
    "staleness",
]

DEFAULT_STALE_AFTER_SESSIONS = 10
FILES_GONE = "files gone"
PASSED = "check passed"


@dataclass(frozen=True)
class Staleness:
    """Why a rule is stale: ``kind`` is :data:`FILES_GONE` or :data:`PASSED`."""

    kind: str
    detail: str  # one sentence for `status`, `report` and the archive


def files_gone(patterns: Sequence[str] | None, project_files: Iterable[str]) -> bool:
    """A rule whose ``paths:`` (``patterns``, normalised as ``RuleFile.paths`` holds them)
    no project file matches with Claude Code's matcher. A rule without ``paths:`` loads at
    every session start: its files are never "gone"."""
    if not patterns:
        return False
    files = list(project_files)
    if _a_literal_path_exists(patterns, files):
        return False
    from pokayokay.rules.claude_match import Matcher

    matcher = Matcher(patterns)
    return not any(matcher.matches(path) for path in files)


_GLOB_CHARS = frozenset("*?[]{}!\\")


def literal_paths(patterns: Sequence[str]) -> tuple[set[str], set[str]]:
    """The patterns without glob syntax and with a slash before their end (anchored, in
    gitignore semantics), casefolded, as (file or folder paths, folder-only paths: a trailing
    ``/``). Such a pattern matches that path and everything under it."""
    files_or_folders: set[str] = set()
    folders: set[str] = set()
    for pattern in patterns:
        body = pattern.rstrip("/")
        plain = body == body.strip() and not body.startswith(("!", "#"))
        if plain and _GLOB_CHARS.isdisjoint(body) and "/" in body:
            literal = body.lstrip("/").casefold()
            (folders if pattern.endswith("/") else files_or_folders).add(literal)
    return files_or_folders, folders


def _a_literal_path_exists(patterns: Sequence[str], files: Sequence[str]) -> bool:
    """The quick answer for the usual family rule (its ``paths:`` list files, see
    :func:`literal_paths`), case-insensitively like Claude Code. Only a "yes" is trusted;
    anything else goes to the matcher."""
    files_or_folders, folders = literal_paths(patterns)
    under = files_or_folders | folders
    if not under:
        return False
    for path in files:
        folded = path.casefold()
        if folded in files_or_folders or any(folded.startswith(f"{lit}/") for lit in under):
            return True
    return False


def clean_streak(
    rule_path: str,
    signatures: Sequence[str],
    loads: Iterable[LoadEvent],
    failures: Iterable[FailureEvent],
) -> int:
    """Loaded sessions in a row, up to now, whose first load of the rule came after the last
    failure of one of its ``signatures`` (full or short ids); 0 without signatures."""
    wanted = signature_matcher(signatures)
    if not wanted:
        return 0
    from pokayokay.failures.signature import short_id

    last_failure = max(
        (
            f.ts
            for f in failures
            if f.signature in wanted or short_id(f.signature) in wanted
        ),
        default=None,
    )
    first_load: dict[str, float] = {}
    for load in loads:
        if load.rule_path == rule_path:
            seen = first_load.get(load.session_id)
            first_load[load.session_id] = load.ts if seen is None else min(seen, load.ts)
    return sum(1 for t in first_load.values() if last_failure is None or t > last_failure)


def staleness(
    *,
    paths: Sequence[str] | None,
    signatures: Sequence[str],
    gone: bool,
    streak: int,
    stale_after: int = DEFAULT_STALE_AFTER_SESSIONS,
) -> Staleness | None:
    """The rule's :class:`Staleness`, or None while it still teaches something. ``gone``:
    :func:`files_gone`; ``streak``: :func:`clean_streak`."""
    if stale_after < 1:
        raise ValueError("stale_after_sessions must be at least 1")
    if gone and paths:
        return Staleness(
            FILES_GONE, "no file of the project matches its paths: any more, so it never loads"
        )
    if signatures and streak >= stale_after:
        return Staleness(
            PASSED,
            f"its mistake has not happened in the {streak} sessions in a row that loaded it "
            f"(stale after {stale_after})",
        )
    return None
