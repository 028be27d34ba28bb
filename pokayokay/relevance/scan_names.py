"""Plain string scans for the paths, file names and identifiers in a prompt (pure): each gives
exactly what the regular expression named in its docstring gives
(``tests/relevance/test_scan_names.py`` holds each pattern as the oracle of a hypothesis
property), without importing ``re`` (see :mod:`pokayokay.relevance.scan`).

Each pattern starts after a look-behind that no character of the run it matches passes, so a
scan only tries the starts of runs, and its backtracking reduces to choosing, among a few
forced cut points, the last one that the closing look-ahead accepts.
"""

from __future__ import annotations

from pokayokay.relevance.scan import is_word_char

_ASCII_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_UPPER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")
_LOWER_DIGITS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
_IDENT_START = _LETTERS | {"_"}


class Found(tuple[int, int, tuple[str, ...]]):
    """One match: its span and its groups (``groups[0]`` is group 1); a tuple, immutable (a
    dataclass would import ``re``, through ``dataclasses``, on every prompt)."""

    __slots__ = ()

    def __new__(cls, start: int, end: int, groups: tuple[str, ...] = ()) -> Found:
        return tuple.__new__(cls, (start, end, groups))

    @property
    def start(self) -> int:
        return self[0]

    @property
    def end(self) -> int:
        return self[1]

    @property
    def groups(self) -> tuple[str, ...]:
        return self[2]


def _in(c: str, extra: str) -> bool:
    return c in extra or is_word_char(c)


def _run_end(text: str, at: int, extra: str) -> int:
    """The end of the run of ``\\w`` and ``extra`` characters from ``at``."""
    n = len(text)
    while at < n and _in(text[at], extra):
        at += 1
    return at


def _dotted_ext_end(text: str, at: int, ext_max: int, stop: str) -> int:
    """``[\\w-]+(?:\\.[\\w-]+)*\\.[A-Za-z][A-Za-z0-9]{0,ext_max}(?![\\w<stop>])`` at ``at``:
    the end of the match, or -1. The blocks between dots are forced (``[\\w-]+`` is greedy and
    holds no dot); the extension is the start of the last block that allows one."""
    n = len(text)
    end = _run_end(text, at, "-")
    if end == at:
        return -1
    dots = []  # the index of each dot that starts a block
    while end < n and text[end] == "." and end + 1 < n and _in(text[end + 1], "-"):
        dots.append(end)
        end = _run_end(text, end + 1, "-")
    for dot in reversed(dots):
        first = dot + 1
        if text[first] not in _LETTERS:
            continue
        q = first + 1
        while q < n and text[q] in _ASCII_ALNUM:
            q += 1
        if q - first > ext_max + 1:
            continue
        if q < n and (text[q] in stop or is_word_char(text[q])):
            continue
        return q
    return -1


def _path_at(text: str, at: int) -> int:
    """``(?:[\\w.-]+/)+[\\w.-]*(?![\\w/-])`` at ``at``: the end of the match, or -1."""
    n = len(text)
    first_slash = -1
    end = at
    while True:
        seg = _run_end(text, end, ".-")
        if seg == end or seg >= n or text[seg] != "/":
            break
        if first_slash < 0:
            first_slash = seg
        end = seg + 1
    if first_slash < 0:
        return -1
    q = _run_end(text, end, ".-")  # the last segment, as long as it goes
    if q >= n or not (text[q] == "/" or text[q] == "-" or is_word_char(text[q])):
        return q
    # shorter: only an end before a dot passes the look-ahead (a slash never does)
    for k in range(q - 1, first_slash, -1):
        if text[k] == ".":
            return k
    return -1


def prompt_path_matches(text: str) -> list[Found]:
    """``re.finditer`` of suggest's path pattern
    ``(?<![\\w/.-])(?:\\./)?((?:[\\w.-]+/)+[\\w.-]*|[\\w-]+(?:\\.[\\w-]+)*\\.[A-Za-z]``
    ``[A-Za-z0-9]{0,5})(?![\\w/-])``, with group 1."""
    out = []
    n = len(text)
    s = 0
    while s < n:
        if not _in(text[s], "/.-") or (s and _in(text[s - 1], "/.-")):
            s += 1
            continue
        found = None
        for at in (s + 2, s) if text.startswith("./", s) else (s,):
            end = _path_at(text, at)
            if end < 0:
                end = _dotted_ext_end(text, at, 5, "/-")
            if end >= 0:
                found = Found(s, end, (text[at:end],))
                break
        if found is None:
            s += 1
            continue
        out.append(found)
        s = found.end if found.end > s else s + 1
    return out


def file_name_matches(text: str) -> list[Found]:
    """``re.finditer`` of the skills' file-name pattern
    ``(?<![\\w.])([\\w./-]*\\w)\\.([A-Za-z][A-Za-z0-9]{0,6})(?![\\w.])``, with groups 1 and 2.
    At most one a run of ``[\\w./-]``: its start is the only start that can succeed, and the
    match takes the last dot that works, past which no other one can."""
    out = []
    n = len(text)
    s = 0
    while s < n:
        if not _in(text[s], "./-"):
            s += 1
            continue
        e = _run_end(text, s, "./-")
        for g in range(e - 1, s, -1):
            if text[g] != "." or not is_word_char(text[g - 1]):
                continue
            first = g + 1
            if first >= n or text[first] not in _LETTERS:
                continue
            q = first + 1
            while q < n and text[q] in _ASCII_ALNUM:
                q += 1
            if q - first > 7 or (q < n and (text[q] == "." or is_word_char(text[q]))):
                continue
            out.append(Found(s, q, (text[s:g], text[first:q])))
            break
        s = e
    return out


def _ident_end(text: str, at: int) -> int:
    """``[A-Za-z_]\\w*`` at ``at``: its end, or -1."""
    if at >= len(text) or text[at] not in _IDENT_START:
        return -1
    return _run_end(text, at + 1, "")


def _name_at(text: str, s: int) -> int:
    """The end of the analyser's name pattern (see :func:`name_spans`) at ``s``, or -1."""
    n = len(text)
    # [\w.@~-]*/[\w./@~-]*
    m = _run_end(text, s, ".@~-")
    if m < n and text[m] == "/":
        return _run_end(text, m + 1, "./@~-")
    # [\w-]+(?:\.[\w-]+)*\.[A-Za-z][A-Za-z0-9]{0,5}(?![\w(])
    end = _dotted_ext_end(text, s, 5, "(")
    if end >= 0:
        return end
    # [A-Za-z0-9]+_[\w]*
    a = s
    while a < n and text[a] in _ASCII_ALNUM:
        a += 1
    if a > s and a < n and text[a] == "_":
        return _run_end(text, a + 1, "")
    # [a-z][a-z0-9]*[A-Z]\w*
    if text[s] in _LOWER:
        a = s + 1
        while a < n and text[a] in _LOWER_DIGITS:
            a += 1
        if a < n and text[a] in _UPPER:
            return _run_end(text, a + 1, "")
    ident = _ident_end(text, s)
    if ident < 0:
        return -1
    # [A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))?
    end = ident
    while end < n and text[end] == ".":
        nxt = _ident_end(text, end + 1)
        if nxt < 0:
            break
        end = nxt
    if end > ident:
        return end + 2 if text.startswith("()", end) else end
    # [A-Za-z_]\w*\(\)?
    if ident < n and text[ident] == "(":
        return ident + 2 if text.startswith(")", ident + 1) else ident + 1
    return -1


def name_spans(text: str) -> list[tuple[int, int]]:
    """The spans of ``re.finditer`` of the analyser's name pattern:
    ``(?<![\\w/.-])(?:[\\w.@~-]*/[\\w./@~-]*|[\\w-]+(?:\\.[\\w-]+)*\\.[A-Za-z][A-Za-z0-9]{0,5}``
    ``(?![\\w(])|[A-Za-z0-9]+_[\\w]*|[a-z][a-z0-9]*[A-Z]\\w*|[A-Za-z_]\\w*(?:\\.[A-Za-z_]\\w*)+``
    ``(?:\\(\\))?|[A-Za-z_]\\w*\\(\\)?)``."""
    out = []
    n = len(text)
    s = 0
    while s < n:
        if (s and _in(text[s - 1], "/.-")) or not _in(text[s], "./@~-"):
            s += 1
            continue
        end = _name_at(text, s)
        if end < 0:
            s += 1
            continue
        out.append((s, end))
        s = end
    return out
