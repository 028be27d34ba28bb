"""A few lines showing what an edit changed, for "what fixed it" in a rule (pure).

Built from the PostToolUse payload of ``Edit``/``MultiEdit``/``Write``/``NotebookEdit``: the
``structuredPatch`` Claude Code reports in ``tool_response`` when there is one (only its ``-``
and ``+`` lines), else a line diff of ``old_string``/``new_string`` (each of MultiEdit's
``edits``), else the first lines of a new file's ``content`` or a notebook cell's
``new_source``. Secrets are redacted over each run of ``+`` or ``-`` lines together (a private
key's body, a token wrapped across lines), then at most :data:`MAX_LINES` lines are kept, each
exact (:func:`pokayokay.safety.shown.shown_code_line`: exact, or left out) and prefixed ``- ``
or ``+ ``; blank and whitespace-only changes are skipped, and so is a removed line that comes
back added with the same text (an indentation change): no ``was``/``now`` pair reads the same.
Returned as one string, lines joined by ``\\n`` ("" when nothing readable changed)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from typing import Any

MAX_LINES = 4
MAX_SCANNED = 400  # patch lines looked at, at most


def _changed(old: str, new: str) -> list[str]:
    old_lines, new_lines = old.splitlines()[:MAX_SCANNED], new.splitlines()[:MAX_SCANNED]
    out = []
    for line in difflib.unified_diff(old_lines, new_lines, lineterm="", n=0):
        if line.startswith(("---", "+++", "@@")):
            continue
        out.append(line)
    return out


def _from_patch(patch: object) -> list[str]:
    out: list[str] = []
    if not isinstance(patch, list):
        return out
    for hunk in patch:
        lines = hunk.get("lines") if isinstance(hunk, dict) else None
        if not isinstance(lines, list):
            continue
        out.extend(line for line in lines[:MAX_SCANNED] if isinstance(line, str))
    return out


def _redacted(lines: Iterable[str]) -> list[str]:
    """The ``+``/``-`` lines with secrets redacted over each run of one sign as a whole: a key's
    body lines or a token wrapped across lines are secrets only together (line by line, a
    private key's BEGIN line went and its body stayed)."""
    from pokayokay.safety.redact import redact

    out: list[str] = []
    run: list[str] = []
    sign = ""
    for line in [*lines, ""]:
        here = line[:1] if line[:1] in ("+", "-") else ""
        if run and here != sign:
            out.extend(sign + body for body in redact("\n".join(run)).split("\n"))
            run = []
        if here:
            sign = here
            run.append(line[1:])
    return out


def _shown(lines: Iterable[str]) -> str:
    from pokayokay.safety.shown import shown_code_line

    changed: list[tuple[str, str]] = []
    for line in _redacted(lines):
        if not line or line[0] not in "+-":
            continue
        body = shown_code_line(line[1:].strip())
        if body and any(ch.isalnum() for ch in body):
            changed.append((line[0], body))
    removed = {body for sign, body in changed if sign == "-"}
    added = {body for sign, body in changed if sign == "+"}
    same = removed & added
    kept = [f"{sign} {body}" for sign, body in changed if body not in same]
    return "\n".join(kept[:MAX_LINES])


def edit_excerpt(tool: str, tool_input: dict[str, Any], tool_response: object) -> str:
    """The changed lines of one successful edit (see the module doc)."""
    response = tool_response if isinstance(tool_response, dict) else {}
    patch = _from_patch(response.get("structuredPatch"))
    if patch:
        return _shown(patch)
    lines: list[str] = []
    if tool == "MultiEdit" and isinstance(tool_input.get("edits"), list):
        for edit in tool_input["edits"]:
            if isinstance(edit, dict):
                old, new = edit.get("old_string"), edit.get("new_string")
                if isinstance(old, str) and isinstance(new, str):
                    lines.extend(_changed(old, new))
    elif isinstance(tool_input.get("old_string"), str) and isinstance(
        tool_input.get("new_string"), str
    ):
        lines = _changed(tool_input["old_string"], tool_input["new_string"])
    else:
        content = tool_input.get("content", tool_input.get("new_source"))
        if isinstance(content, str):
            lines = ["+" + line for line in content.splitlines()[:MAX_SCANNED]]
    return _shown(lines)


def _inverse(excerpt: str) -> tuple[str, ...]:
    """The lines of ``excerpt`` with ``+`` and ``-`` swapped, sorted: what undoing the change
    shows. Compared as a multiset, so a line removed twice is not undone by adding it once."""
    swap = {"+": "-", "-": "+"}
    return tuple(
        sorted(swap[line[0]] + line[1:] for line in excerpt.split("\n") if line[:1] in swap)
    )


def credited_edits(
    edits: Sequence[tuple[float, str, str]], last_failure: float | None
) -> list[tuple[str, str]]:
    """The edits a fix is credited to, as (path, excerpt), from a fix episode's edits as
    (time, path, excerpt), oldest first (pure).

    * Only the edits after the command's last failure: an edit before it did not make it pass.
    * A revert is not a fix: an edit whose excerpt undoes an earlier edit of the same file (the
      same lines with ``+`` and ``-`` swapped) cancels it, and neither is credited.
    """
    kept: list[tuple[str, str] | None] = []
    for when, path, excerpt in edits:
        if last_failure is not None and when < last_failure:
            continue
        at = _undone(kept, path, excerpt) if excerpt else None
        if at is None:
            kept.append((path, excerpt))
        else:
            kept[at] = None
    return list(dict.fromkeys(item for item in kept if item is not None))


def _undone(kept: Sequence[tuple[str, str] | None], path: str, excerpt: str) -> int | None:
    """Where in ``kept`` the edit ``excerpt`` of ``path`` undoes: the latest earlier edit of the
    file it inverts line for line, in order; else the latest it inverts as a multiset of lines
    (an undo that wrote the same lines in another order). None when it undoes none."""
    undone = _inverse(excerpt)
    if not undone:
        return None
    exact = _ordered_inverse(excerpt)
    loose = None
    for at in range(len(kept) - 1, -1, -1):
        earlier = kept[at]
        if earlier is None or earlier[0] != path:
            continue
        lines = tuple(line for line in earlier[1].split("\n") if line[:1] in "+-")
        if lines == exact:
            return at
        if loose is None and lines and tuple(sorted(lines)) == undone:
            loose = at
    return loose


def _ordered_inverse(excerpt: str) -> tuple[str, ...]:
    """The excerpt of the edit ``excerpt`` undoes, line for line: its added lines as removed
    ones, then its removed lines as added ones, each in their order."""
    lines = [line for line in excerpt.split("\n") if line[:1] in "+-"]
    return (
        *("-" + line[1:] for line in lines if line[0] == "+"),
        *("+" + line[1:] for line in lines if line[0] == "-"),
    )
