"""MEMORY.md without pokayokay's scaffolding, for ``uninstall --purge`` (pure: text in, text out).

Every managed section's marker line (``<!-- pokayokay: … -->`` under its heading) and end marker
(``<!-- /pokayokay -->``) go; a managed section left with no entry goes with its heading (it was
pokayokay's empty scaffolding); every other line stays exactly as it was, so each entry is kept in
place as a plain bullet under its heading. Lines inside fenced code blocks are never touched.
"""

from __future__ import annotations

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


def unmanage(text: str) -> str:
    """``text`` without pokayokay's markers and empty managed sections."""
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
