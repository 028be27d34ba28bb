"""MEMORY.md without pokayokay's scaffolding, for ``uninstall --purge`` (pure: text in, text out).

Every managed section's marker line (``<!-- pokayokay: … -->`` under its heading) and end marker
(``<!-- /pokayokay -->``) go; a managed section left with no entry goes with its heading (it was
pokayokay's empty scaffolding); every other line stays exactly as it was, so each entry is kept in
place as a plain bullet under its heading. Lines inside fenced code blocks are never touched.

Only the entries of a managed section that point at a file the purge removed (a graduated rule:
``removed`` holds their project-relative paths) go too: a plain bullet pointing at a file that is
gone would send Claude looking for it. The copy of the file as it was keeps them.
"""

from __future__ import annotations

from collections.abc import Collection

from pokayokay.infra.markdown import fence_states
from pokayokay.memory.document import END_MARKER_RE, HEADING_RE, MARKER_RE

TITLE_ONLY = "# Memory"


def _bare(line: str) -> str:
    return line.rstrip("\r\n")


def _fences(lines: list[str]) -> list[bool]:
    """For each line: whether it is inside (or opens/closes) a fenced code block. Unlike curation,
    purging never treats a marker inside a fence as structure: an example stays as written."""
    return fence_states([_bare(line) for line in lines])


def _is_section_end(line: str) -> bool:
    heading = HEADING_RE.match(_bare(line))
    return heading is not None and len(heading.group(1)) <= 2


def _without_pointers(body: list[str], removed: Collection[str]) -> list[str]:
    """``body`` (a managed section's) without the entries — a column-0 bullet and the lines up
    to the next one, a blank line followed by unindented text, or a heading — that name a path
    in ``removed``."""
    if not removed:
        return body
    groups: list[list[str]] = [[]]
    in_entry = after_blank = False
    for line, fenced in zip(body, _fences(body), strict=True):
        bare = _bare(line)
        if not fenced and bare[:2] in _BULLETS:
            groups.append([line])
            in_entry = True
        elif in_entry and not fenced and after_blank and bare[:1] not in ("", " ", "\t"):
            groups.append([line])
            in_entry = False
        else:
            groups[-1].append(line)
        after_blank = not bare.strip()
    return [
        line
        for group in groups
        if not (group and group[0][:2] in _BULLETS and any(p in "".join(group) for p in removed))
        for line in group
    ]


_BULLETS = ("- ", "* ", "+ ")


def unmanage(text: str, removed: Collection[str] = ()) -> str:
    """``text`` without pokayokay's markers and empty managed sections, and without the
    entries of its sections that point at a ``removed`` file."""
    lines = text.splitlines(keepends=True)
    fenced = _fences(lines)
    out: list[str] = []
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        if fenced[i]:
            out.append(line)
            i += 1
            continue
        managed = (
            HEADING_RE.match(_bare(line)) is not None
            and i + 1 < n
            and not fenced[i + 1]
            and MARKER_RE.match(_bare(lines[i + 1])) is not None
        )
        if not managed:
            if not (MARKER_RE.match(_bare(line)) or END_MARKER_RE.match(_bare(line))):
                out.append(line)
            i += 1
            continue
        # A managed section: its body runs to its end marker or the next section heading.
        j = i + 2
        body: list[str] = []
        while j < n:
            if not fenced[j] and END_MARKER_RE.match(_bare(lines[j])):
                j += 1
                break
            if not fenced[j] and _is_section_end(lines[j]):
                break
            body.append(lines[j])
            j += 1
        body = _without_pointers(body, removed)
        if any(b.strip() for b in body):
            out.append(line)
            out.extend(
                b for b in body
                if not (MARKER_RE.match(_bare(b)) or END_MARKER_RE.match(_bare(b)))
            )
        else:
            while out and not out[-1].strip():
                out.pop()
            if j < n and out:
                out.append("\n")
        i = j
        # Blank lines right after a dropped section would double the spacing.
        if not any(b.strip() for b in body):
            while i < n and not lines[i].strip() and (not out or not out[-1].strip()):
                i += 1
    result = "".join(out)
    if result and not result.endswith("\n"):
        result += "\n"
    return result


def is_title_only(text: str) -> bool:
    """Whether nothing but the template's ``# Memory`` title is left."""
    return text.strip() in ("", TITLE_ONLY)
