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


_ASCII_WORD = _ASCII_ALNUM | {"_"}


def _in(c: str, extra: str) -> bool:
    return c in _ASCII_WORD or c in extra or (c > "\x7f" and c.isalnum())


def run_end(text: str, at: int, extra: str) -> int:
    """The end of the run of ``\\w`` and ``extra`` characters from ``at`` (the test inlined:
    this runs on every character of a prompt's paths)."""
    n = len(text)
    while at < n:
        c = text[at]
        if c in _ASCII_WORD or c in extra or (c > "\x7f" and c.isalnum()):
            at += 1
        else:
            break
    return at


def _runs(text: str, extra: str) -> list[tuple[int, int]]:
    """The maximal runs of ``\\w`` and ``extra`` characters in ``text``, as spans."""
    out = []
    n = len(text)
    s = 0
    while s < n:
        if not _in(text[s], extra):
            s += 1
            continue
        e = run_end(text, s, extra)
        out.append((s, e))
        s = e
    return out


def _dotted_ext_end(text: str, at: int, ext_max: int, stop: str) -> int:
    """``[\\w-]+(?:\\.[\\w-]+)*\\.[A-Za-z][A-Za-z0-9]{0,ext_max}(?![\\w<stop>])`` at ``at``:
    the end of the match, or -1. The blocks between dots are forced (``[\\w-]+`` is greedy and
    holds no dot); the extension is the start of the last block that allows one."""
    n = len(text)
    end = run_end(text, at, "-")
    if end == at:
        return -1
    dots = []  # the index of each dot that starts a block
    while end < n and text[end] == "." and end + 1 < n and _in(text[end + 1], "-"):
        dots.append(end)
        end = run_end(text, end + 1, "-")
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
        seg = run_end(text, end, ".-")
        if seg == end or seg >= n or text[seg] != "/":
            break
        if first_slash < 0:
            first_slash = seg
        end = seg + 1
    if first_slash < 0:
        return -1
    q = run_end(text, end, ".-")  # the last segment, as long as it goes
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
    for s, e in _runs(text, "./-"):
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
    return out


def _ident_end(text: str, at: int) -> int:
    """``[A-Za-z_]\\w*`` at ``at``: its end, or -1."""
    if at >= len(text) or text[at] not in _IDENT_START:
        return -1
    return run_end(text, at + 1, "")


def _name_at(text: str, s: int) -> int:
    """The end of the analyser's name pattern (see :func:`name_spans`) at ``s``, or -1."""
    n = len(text)
    # [\w.@~-]*/[\w./@~-]*
    m = run_end(text, s, ".@~-")
    if m < n and text[m] == "/":
        return run_end(text, m + 1, "./@~-")
    # [\w-]+(?:\.[\w-]+)*\.[A-Za-z][A-Za-z0-9]{0,5}(?![\w(])
    end = _dotted_ext_end(text, s, 5, "(")
    if end >= 0:
        return end
    # [A-Za-z0-9]+_[\w]*
    a = s
    while a < n and text[a] in _ASCII_ALNUM:
        a += 1
    if a > s and a < n and text[a] == "_":
        return run_end(text, a + 1, "")
    # [a-z][a-z0-9]*[A-Z]\w*
    if text[s] in _LOWER:
        a = s + 1
        while a < n and text[a] in _LOWER_DIGITS:
            a += 1
        if a < n and text[a] in _UPPER:
            return run_end(text, a + 1, "")
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


# What a PascalCase name followed by one of these names ("the ChangelogPage component"), and the
# endings that make one a name of code on its own (``PdfIcon``, ``CsvExportButton``): other
# PascalCase is often a subject (GraphQL, JavaScript, PowerPoint). relevance.skill_match's
# identifiers.
CODE_KINDS = (
    "component", "class", "hook", "model", "view", "screen", "modal", "widget", "module",
    "function", "method", "type", "interface", "enum", "struct", "prop",
)  # fmt: skip
CODE_ENDINGS = (
    "Icon", "Button", "Badge", "Card", "Page", "View", "ViewSet", "Modal", "Dialog", "List",
    "Table", "Form", "Field", "Input", "Panel", "Menu", "Tab", "Row", "Cell", "Header", "Footer",
    "Link", "Preview", "Viewer", "Renderer", "Parser", "Loader", "Uploader", "Exporter",
    "Importer", "Generator", "Builder", "Service", "Client", "Handler", "Controller", "Provider",
    "Manager", "Factory", "Helper", "Util", "Utils", "Store", "Slice", "Hook", "Component",
    "Screen", "Widget", "Section", "Item", "Spec", "Test", "Tests", "Schema", "Props", "State",
    "Context", "Route", "Router", "Config", "Settings", "Error", "Exception", "Serializer",
    "Mixin", "Job", "Task", "Worker", "Resolver", "Repository", "Adapter", "Wrapper",
    "Container", "Layout", "Template", "Editor", "Picker", "Selector", "Toggle", "Banner",
    "Tooltip", "Toolbar", "Sidebar", "Navbar", "Chart", "Grid", "Dashboard",
)  # fmt: skip
_ENDINGS = frozenset(CODE_ENDINGS)


def space_end(text: str, at: int) -> int:
    """The end of the run of white space (``\\s``) from ``at``."""
    n = len(text)
    while at < n and text[at].isspace():
        at += 1
    return at


def _kind_at(text: str, at: int) -> bool:
    """``(?:component|class|…)s?\\b`` at ``at``."""
    n = len(text)
    for kind in CODE_KINDS:
        if text.startswith(kind, at):
            end = at + len(kind)
            if end < n and text[end] == "s":
                end += 1
            if end == n or not is_word_char(text[end]):
                return True
    return False


def _kind_follows(text: str, at: int) -> bool:
    """``(?=\\s+(?:[A-Z]\\w*\\s+)?(?:component|class|…)s?\\b)`` at ``at``. Each ``\\s+`` and
    ``\\w*`` is forced to its whole run: what follows a shorter one can never start there."""
    q = space_end(text, at)
    if q == at or q == len(text):
        return False
    if text[q] in _UPPER:
        r = run_end(text, q + 1, "")
        t = space_end(text, r)
        return t > r and _kind_at(text, t)
    return _kind_at(text, q)


def _pascal(run: str, humps: int) -> bool:
    """``[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)*`` (``humps`` 1) or ``…)+`` (2), whole."""
    if len(run) < 2 or run[0] not in _UPPER or run[1] not in _LOWER_DIGITS:
        return False
    if not all(c in _ASCII_ALNUM for c in run):
        return False
    return humps == 1 or any(c in _UPPER for c in run[2:])


def _is_identifier(text: str, s: int, e: int) -> bool:
    run = text[s:e]
    first = run[0]
    if "." in run:  # [A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+, the only shape holding a dot
        return all(part and part[0] in _IDENT_START for part in run.split("."))
    if first in _LETTERS and "_" in run and run[-1] in _ASCII_ALNUM and set(run) <= _ASCII_WORD:
        return True  # [A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]*[A-Za-z0-9]
    if first in _LOWER and any(c in _UPPER for c in run) and set(run) <= _ASCII_ALNUM:
        return True  # [a-z][a-z0-9]*[A-Z][A-Za-z0-9]*
    if first in _IDENT_START and e < len(text) and text[e] == "(":
        return True  # [A-Za-z_]\w*(?=\()
    if first not in _UPPER:
        return False
    if _pascal(run, 2) and _kind_follows(text, e):
        return True
    # [A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)*(?:Icon|…)s?: an ending starts at a capital past the
    # first hump, and runs to the end (an "s" after it aside)
    for k in range(2, len(run)):
        if run[k] in _UPPER:
            tail = run[k:]
            if (tail in _ENDINGS or (tail[-1] == "s" and tail[:-1] in _ENDINGS)) and _pascal(
                run[:k], 1
            ):
                return True
    return False


def identifier_spans(text: str) -> list[tuple[int, int]]:
    """The spans of ``re.finditer`` of skill suggestion's identifier pattern (an identifier of
    code: snake_case, lower camelCase, a dotted name, a call, PascalCase followed by the kind
    of thing it names or ending in one, :data:`CODE_KINDS`, :data:`CODE_ENDINGS`):
    ``(?<![\\w.])(?:[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]*[A-Za-z0-9]|[a-z][a-z0-9]*[A-Z]``
    ``[A-Za-z0-9]*|[A-Za-z_]\\w*(?:\\.[A-Za-z_]\\w*)+|[A-Za-z_]\\w*(?=\\()|[A-Z][a-z0-9]+``
    ``(?:[A-Z][a-z0-9]*)+(?=\\s+(?:[A-Z]\\w*\\s+)?(?:component|…)s?\\b)|[A-Z][a-z0-9]+``
    ``(?:[A-Z][a-z0-9]*)*(?:Icon|…)s?)(?![\\w.])``. Every shape is made of ``\\w`` and dots
    between look-arounds that refuse both, so a match is a whole run of them: each run is
    judged once."""
    return [(s, e) for s, e in _runs(text, ".") if _is_identifier(text, s, e)]
