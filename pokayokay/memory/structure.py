"""MEMORY.md's structure as lines (pure, standard library and ``infra.markdown`` only): the
markers, the headings that end a managed section, the fences, and where a managed section's
body runs. ``memory.document`` parses with these; recall reads the Key Decisions body with
:func:`section_body` without importing the document model or CommonMark (a prompt after Claude
rewrote MEMORY.md tells a rewrite elsewhere from a changed decision at the cost of this scan).
"""

from __future__ import annotations

from pokayokay.infra.lazyre import Lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

# The patterns, for the document model (compiled on first use); this module's own scans are the
# plain functions below, each property-tested against its pattern (a prompt right after Claude
# rewrote MEMORY.md reads the Key Decisions body without importing ``re``).
MARKER_RE = Lazy(r"^\s*<!--\s*pokayokay:(.*?)-->\s*$")
END_MARKER_RE = Lazy(r"^\s*<!--\s*/pokayokay\s*-->\s*$")
HEADING_RE = Lazy(r"^(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")


def _to_end(rest: str) -> str | None:
    """``rest`` without the one ``\n`` that ``$`` may stand before (None: a ``\n`` that
    ``.`` cannot cross)."""
    if rest.endswith("\n"):
        rest = rest[:-1]
    return None if "\n" in rest else rest


def heading_parts(text: str) -> tuple[str, str] | None:
    """``HEADING_RE.match(text)``'s groups (its ``#`` run and its title), or None."""
    level = len(text) - len(text.lstrip("#"))
    if not 1 <= level <= 6 or text[level : level + 1] not in (" ", "\t"):
        return None
    rest = _to_end(text[level:].lstrip(" \t"))
    if rest is None:
        return None
    # the title is lazy: it stops where the longest tail of blanks, #s and blanks starts
    cut = len(rest.rstrip(" \t"))
    cut = len(rest[:cut].rstrip("#"))
    cut = len(rest[:cut].rstrip(" \t"))
    return text[:level], rest[:cut]


def _comment_after(text: str, word: str) -> str | None:
    """What follows ``word`` in a line that opens with ``<!--`` and then ``word`` (white space
    before and after ``<!--``, as the marker patterns' ``^\\s*<!--\\s*`` allow), or None."""
    rest = text.lstrip()
    if not rest.startswith("<!--"):
        return None
    rest = rest[4:].lstrip()
    if not rest.startswith(word):
        return None
    return rest[len(word) :]


def marker_text(text: str) -> str | None:
    """``MARKER_RE.match(text)``'s group (what follows ``pokayokay:``), or None."""
    rest = _comment_after(text, "pokayokay:")
    if rest is None:
        return None
    close = rest.rfind("-->")  # the group is lazy, but only the last one can end the line
    if close < 0 or (rest[close + 3 :] and not rest[close + 3 :].isspace()):
        return None
    inside = rest[:close]
    return None if "\n" in inside else inside


def is_end_marker(text: str) -> bool:
    """``END_MARKER_RE.match(text) is not None``."""
    rest = _comment_after(text, "/pokayokay")
    if rest is None:
        return False
    rest = rest.lstrip()
    return rest.startswith("-->") and (not rest[3:] or rest[3:].isspace())


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
    parts = heading_parts(strip_eol(line))
    return parts is not None and len(parts[0]) <= 2


def is_structure(line: str) -> bool:
    """A pokayokay marker (start or end) or a ``#``/``## `` heading at column 0 (what ends a
    managed section): MEMORY.md's structure, whatever code fences surround it. A fence never
    crosses one (see ``infra.markdown``)."""
    body = strip_eol(line)
    if body.startswith("#"):
        return is_boundary_heading(body)
    if "<!--" not in body:  # what both marker patterns need: most lines stop here
        return False
    return marker_text(body) is not None or is_end_marker(body)


def fenced_lines(lines: list[str]) -> list[bool]:
    """For each line: is it inside (or opening/closing) a fenced code block? (The fence
    scanner is imported here: :func:`section_body`, on the prompt, needs no fence state.)"""
    from pokayokay.infra.markdown import fence_states

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
                if is_end_marker(text):
                    end = line
                    i += 1
                    ran_out = False
                    break
                heading = heading_parts(text)
                if (heading is not None and len(heading[0]) <= 2) or marker_text(text) is not None:
                    ran_out = False
                    break
        body.append(line)
        i += 1
    if end is None:
        while body and is_blank(body[-1]):
            body.pop()
            i -= 1
    return body, end, i, ran_out


def section_body(text: str, title: str) -> list[str] | None:
    """The body lines of the first managed section titled ``title`` (None when there is none):
    ``memory.document.parse(text, specs).section(id).body_lines`` for the spec of that title,
    whatever the other specs (a section's body never holds an unfenced ``##`` heading, so the
    first ``## title`` line followed by a marker is where ``parse`` finds it).

    No fence states are needed: the lines that decide (a ``## title`` heading, the marker after
    it, the structure line that ends the body) are all structure lines, which are never fenced
    (:func:`is_structure`). So the scan jumps from one line starting with ``##`` to the next
    (``str.find``) and splits only the lines of the section it returns: one pass over the text,
    up to the section's end, with no regex on any other line.
    """
    want = normalise_title(title)
    n = len(text)
    at = 0 if text.startswith("##") else _next_heading(text, 0)
    while at >= 0:
        eol = text.find("\n", at)
        after = n if eol < 0 else eol + 1
        heading = heading_parts(strip_eol(text[at:after]))
        if heading is not None and len(heading[0]) == 2 and normalise_title(heading[1]) == want:
            line, j = _first_filled(text, after)
            if line is not None and marker_text(strip_eol(line)) is not None:
                return _body_after(text, j + len(line))
        at = _next_heading(text, at)
    return None


def _next_heading(text: str, at: int) -> int:
    """Where the next line after the one at ``at`` that starts with ``##`` begins (-1: none)."""
    found = text.find("\n##", at)
    return found + 1 if found >= 0 else -1


def _lines_from(text: str, at: int) -> Iterator[tuple[int, str]]:
    """The lines of ``text`` from offset ``at`` (a line's start), each with its offset."""
    n = len(text)
    while at < n:
        eol = text.find("\n", at)
        after = n if eol < 0 else eol + 1
        yield at, text[at:after]
        at = after


def _first_filled(text: str, at: int) -> tuple[str | None, int]:
    """The first line from offset ``at`` that is not blank, and its offset (None at the end)."""
    for start, line in _lines_from(text, at):
        if not is_blank(line):
            return line, start
    return None, len(text)


def _body_after(text: str, at: int) -> list[str]:
    """The body of the section whose marker line ends at offset ``at``: the lines up to the
    first structure line (an end marker, a ``#``/``##`` heading, a marker) or the end of the
    text; without an end marker its trailing blank lines are not part of it (as
    :func:`body_span`)."""
    body: list[str] = []
    ended = False
    for _start, line in _lines_from(text, at):
        # A heading starts with "#" and both markers hold "<!--": most lines stop here.
        if (line.startswith("#") or "<!--" in line) and is_structure(line):
            ended = is_end_marker(strip_eol(line))
            break
        body.append(line)
    if not ended:
        while body and is_blank(body[-1]):
            body.pop()
    return body
