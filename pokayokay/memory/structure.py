"""MEMORY.md's structure as lines (pure, standard library and ``infra.markdown`` only): the
markers, the headings that end a managed section, the fences, and where a managed section's
body runs. ``memory.document`` parses with these; recall reads the Key Decisions body with
:func:`section_body` without importing the document model or CommonMark (a prompt after Claude
rewrote MEMORY.md tells a rewrite elsewhere from a changed decision at the cost of this scan).
"""

from __future__ import annotations

import re

from pokayokay.infra.markdown import fence_states

MARKER_RE = re.compile(r"^\s*<!--\s*pokayokay:(.*?)-->\s*$")
END_MARKER_RE = re.compile(r"^\s*<!--\s*/pokayokay\s*-->\s*$")
HEADING_RE = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")


def split_lines(text: str) -> list[str]:
    """Lines with their terminators (``\\n`` or ``\\r\\n``; none on an unterminated last line).

    Only ``\\n`` ends a line, as in Claude Code (a JavaScript ``split("\\n")``): other Unicode
    line separators are ordinary characters here.
    """
    if not text:
        return []
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def strip_eol(line: str) -> str:
    if line.endswith("\r\n"):
        return line[:-2]
    if line.endswith("\n"):
        return line[:-1]
    return line


def is_blank(line: str) -> bool:
    return not line.strip()


def normalise_title(title: str) -> str:
    return " ".join(title.split()).casefold()


def is_boundary_heading(line: str) -> bool:
    """A ``#`` or ``##`` heading (what ends a managed section)."""
    match = HEADING_RE.match(strip_eol(line))
    return bool(match) and len(match[1] if match else "") <= 2


def is_structure(line: str) -> bool:
    """A pokayokay marker (start or end) or a ``#``/``## `` heading at column 0 (what ends a
    managed section): MEMORY.md's structure, whatever code fences surround it. A fence never
    crosses one (see ``infra.markdown``)."""
    body = strip_eol(line)
    if body.startswith("#"):
        return is_boundary_heading(body)
    if "<!--" not in body:  # what both marker patterns need: most lines stop here
        return False
    return bool(MARKER_RE.match(body) or END_MARKER_RE.match(body))


def fenced_lines(lines: list[str]) -> list[bool]:
    """For each line: is it inside (or opening/closing) a fenced code block?"""
    return fence_states(lines, is_structure)


def body_span(
    lines: list[str], fenced: list[bool], marker: int
) -> tuple[list[str], str | None, int]:
    """The body of the managed section whose marker is line ``marker``: its lines, its end
    marker line (None without one) and the index of the first line after the section. The body
    runs to the end marker, the next ``#``/``##`` heading or marker, or the end of the text;
    without an end marker its trailing blank lines go back to whatever follows."""
    body, end, after, _ran_out = _scan_body(lines, fenced, marker)
    return body, end, after


def _scan_body(
    lines: list[str], fenced: list[bool], marker: int
) -> tuple[list[str], str | None, int, bool]:
    """:func:`body_span`, and whether the body ran to the last line (no end marker, heading
    or marker after it)."""
    i = marker + 1
    body: list[str] = []
    end: str | None = None
    ran_out = True
    while i < len(lines):
        line = lines[i]
        if not fenced[i]:
            text = strip_eol(line)
            # A heading starts with "#" and both markers hold "<!--": most lines stop here.
            if text.startswith("#") or "<!--" in text:
                if END_MARKER_RE.match(text):
                    end = line
                    i += 1
                    ran_out = False
                    break
                heading = HEADING_RE.match(text)
                if (heading is not None and len(heading[1]) <= 2) or MARKER_RE.match(text):
                    ran_out = False
                    break
        body.append(line)
        i += 1
    if end is None:
        while body and is_blank(body[-1]):
            body.pop()
            i -= 1
    return body, end, i, ran_out


# Lines scanned first for a section; the scan reads four times as many each time the section
# may run further (fence states depend only on the lines before: a prefix's are the text's).
SCAN_CHUNK = 512


def section_body(text: str, title: str, *, chunk: int = SCAN_CHUNK) -> list[str] | None:
    """The body lines of the first managed section titled ``title`` (None when there is none):
    ``memory.document.parse(text, specs).section(id).body_lines`` for the spec of that title,
    whatever the other specs (a section's body never holds an unfenced ``##`` heading, so the
    first ``## title`` line followed by a marker is where ``parse`` finds it). Only the lines
    up to the section's end are scanned, in prefixes of ``chunk`` lines and more."""
    lines = split_lines(text)
    want = normalise_title(title)
    n = len(lines)
    k = min(n, max(1, chunk))
    while True:
        found = _body_in(lines[:k], want, k >= n)
        if found is not _MORE:
            return found  # type: ignore[return-value]
        k = min(n, k * 4)


_MORE = object()  # the prefix cannot tell: scan a longer one


def _body_in(lines: list[str], want: str, complete: bool) -> list[str] | object | None:
    fenced = fenced_lines(lines)
    n = len(lines)
    for i, line in enumerate(lines):
        if fenced[i] or not line.startswith("##"):
            continue
        heading = HEADING_RE.match(strip_eol(line))
        if heading is None or len(heading[1]) != 2 or normalise_title(heading[2]) != want:
            continue
        j = i + 1
        while j < n and is_blank(lines[j]):
            j += 1
        if j == n and not complete:
            return _MORE
        if j < n and not fenced[j] and MARKER_RE.match(strip_eol(lines[j])):
            body, _end, _after, ran_out = _scan_body(lines, fenced, j)
            return _MORE if ran_out and not complete else body
    return None if complete else _MORE
