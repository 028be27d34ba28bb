"""An independent, deliberately simple check that curation lost nothing (pure).

It shares no code with the parser it checks (:mod:`pokayokay.memory.document`): no fence
tracking, no entries. It knows four kinds of lines — ``#`` and ``## `` headings at
column 0, a start marker ``<!-- pokayokay: … -->`` and the end marker ``<!-- /pokayokay -->`` —
and from their positions alone it tells pokayokay's regions from Claude's text:

* a region opens at a ``## `` heading (naming a configured section, when the titles are given)
  whose next non-blank line is a start marker, and runs to
  the end marker, the next start marker, the next ``#``/``## `` heading or the end of the file;
* everything else is Claude's text.

This errs towards calling text pokayokay's (a marked section whose title is not configured),
never the other way, so it can only miss a problem there, never invent one. Two promises are
checked:

1. no line lost: every non-blank line of the old MEMORY.md is still in the new one, in what was
   appended to an archive, or in an archive's last batch (the batch of an interrupted run,
   which curation does not write twice) — only marker and ``## `` heading lines may go (merged
   sections);
2. Claude's text kept: its non-blank lines, in order, are still Claude's text in the new file.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Mapping

_H2 = re.compile(r"^##[ \t]")
_H1 = re.compile(r"^#[ \t]")
_START = re.compile(r"^\s*<!--\s*pokayokay:.*-->\s*$")
_END = re.compile(r"^\s*<!--\s*/pokayokay\s*-->\s*$")


def lines_of(text: str) -> list[str]:
    """Lines without terminators: ``\\n`` (an ``\\r`` before it dropped), or ``\\r`` in a file
    without a single ``\\n``."""
    if "\n" not in text:
        return text.split("\r") if text else []
    return [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]


def _title(heading: str) -> str:
    return " ".join(heading[2:].strip().rstrip("#").split()).casefold()


def claude_lines(text: str, titles: Collection[str] | None = None) -> list[str]:
    """The non-blank lines of Claude's text, in order (located by marker positions alone)."""
    known = None if titles is None else {" ".join(t.split()).casefold() for t in titles}
    lines = lines_of(text)
    out: list[str] = []
    inside = False
    skip_to = -1  # the start marker of the region being opened
    for i, line in enumerate(lines):
        if i <= skip_to:
            continue
        if _H2.match(line):
            j = i + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            opens = known is None or _title(line) in known
            if opens and j < len(lines) and _START.match(lines[j]):
                inside, skip_to = True, j
                continue
            inside = False
        elif _H1.match(line):
            inside = False
        elif inside:
            if _END.match(line):
                inside = False
                continue
            if not _START.match(line):
                continue
            inside = False
        if line.strip():
            out.append(line)
    return out


def _is_structure(line: str) -> bool:
    return bool(_H2.match(line) or _START.match(line) or _END.match(line))


def _counts(text: str) -> Counter[str]:
    return Counter(line for line in lines_of(text) if line.strip())


def _appended(before: str | None, after: str) -> str | None:
    """What was appended to an archive; None when its old text was rewritten."""
    if before is None:
        return after
    return after[len(before) :] if after.startswith(before) else None


def _last_batch(archive: str) -> str:
    """An archive's text from its last batch line on."""
    at = archive.rfind("<!-- pokayokay-batch:")
    return archive[at:] if at != -1 else ""


def _is_subsequence(small: list[str], big: list[str]) -> bool:
    it = iter(big)
    return all(any(line == other for other in it) for line in small)


def problems(
    before: str,
    after: str,
    archives_before: Mapping[str, str],
    archives_after: Mapping[str, str],
    titles: Collection[str] | None = None,
) -> list[str]:
    """What curation from ``before`` to ``after`` broke (empty when nothing). ``titles``: the
    configured sections' titles (None: any ``## `` heading over a marker opens a region)."""
    found: list[str] = []
    available = _counts(after)
    for old in archives_before.values():
        available.update(_counts(_last_batch(old)))
    for name, new in archives_after.items():
        added = _appended(archives_before.get(name), new)
        if added is None:
            found.append(f"curation would rewrite existing text of {name}")
        else:
            available.update(_counts(added))
    missing = [line for line in (_counts(before) - available).elements() if not _is_structure(line)]
    if missing:
        sample = "\n".join(sorted(set(missing))[:10])
        found.append(f"curation would lose {len(missing)} line(s):\n{sample}")
    if not _is_subsequence(claude_lines(before, titles), claude_lines(after, titles)):
        found.append("curation would change or move Claude's text outside the managed sections")
    return found
