"""Plain string scans for the prompt's tokenisers (pure): each gives exactly what the regular
expression named in its docstring gives (``tests/relevance/test_scan.py`` holds each pattern
as the oracle of a hypothesis property, unicode text included), without importing ``re``.

A warm prompt reads a few hundred characters; ``re`` with what it imports (enum, functools,
collections) and the compiling of a dozen patterns cost about half an interpreter start, more
than the scans themselves. ``\\w`` below is ``re``'s on ``str``: a character for which
``str.isalnum`` holds, or ``_``.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

_ASCII_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_UPPER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")
_DIGITS = frozenset("0123456789")


def is_word_char(c: str) -> bool:
    """``re``'s ``\\w`` for one character of a ``str``."""
    return c.isalnum() or c == "_"


# The only characters outside ASCII that ``re.IGNORECASE`` lets match an ASCII letter (İ and ı
# match i, ſ matches s, the Kelvin sign matches k; tested over every code point).
FOLD_TO_ASCII = {0x130: "i", 0x131: "i", 0x17F: "s", 0x212A: "k"}


def case_folded(text: str) -> str:
    """``text`` lower-cased, the characters ``re.IGNORECASE`` matches to an ASCII letter made
    that letter first: the same length as ``text`` (only İ lower-cases to two characters), and
    an ASCII word is in it wherever a case-insensitive pattern of that word matches ``text``."""
    if text.isascii():
        return text.lower()
    return text.translate(FOLD_TO_ASCII).lower()


def whole_word_spans(text: str, words: Sequence[str]) -> list[tuple[int, int]]:
    """The spans where one of ``words`` (each starting and ending with a word character) stands
    whole in ``text``, ``\\b`` at both ends, leftmost first and never overlapping: what
    ``re.finditer(r"\\b(?:…)\\b")`` of them gives when at most one fits at any start."""
    found = []
    for word in words:
        at = text.find(word)
        while at != -1:
            end = at + len(word)
            if (at == 0 or not is_word_char(text[at - 1])) and (
                end == len(text) or not is_word_char(text[end])
            ):
                found.append((at, end))
            at = text.find(word, at + 1)
    out: list[tuple[int, int]] = []
    for start, end in sorted(found):
        if not out or start >= out[-1][1]:
            out.append((start, end))
    return out


class _Keep(dict[int, int]):
    """A ``str.translate`` table that keeps the characters ``keep`` accepts and turns every
    other one into a space; filled on first sight of each code point."""

    def __init__(self, keep: frozenset[str] | None) -> None:
        super().__init__()
        self._keep = keep

    def __missing__(self, code: int) -> int:
        c = chr(code)
        kept = c.isalnum() if self._keep is None else c in self._keep
        value = code if kept else 32
        if len(self) < 65_536:
            self[code] = value
        return value


_ALNUM_TABLE = _Keep(None)
_LOWER_WORD_TABLE = _Keep(frozenset("abcdefghijklmnopqrstuvwxyz0123456789-"))
_CONCEPT_TABLE = _Keep(frozenset("abcdefghijklmnopqrstuvwxyz0123456789_.+@:-"))


# ASCII text (most of it) through bytes.translate: about twice as fast as str.translate
_ALNUM_BYTES = bytes(i if chr(i).isalnum() else 32 for i in range(256))


def word_chunks(text: str) -> list[str]:
    """``re.findall(r"[^\\W_]+", text)``: the runs of letters and digits."""
    if text.isascii():
        return text.encode("ascii").translate(_ALNUM_BYTES).decode("ascii").split()
    return text.translate(_ALNUM_TABLE).split()


def lower_words(text: str) -> list[str]:
    """``re.findall(r"[a-z][a-z0-9-]*", text)``."""
    out = []
    for run in text.translate(_LOWER_WORD_TABLE).split():
        word = run.lstrip("0123456789-")
        if word:
            out.append(word)
    return out


def concept_word_spans(text: str) -> list[tuple[int, int]]:
    """The spans of ``re.finditer(r"[a-z0-9][a-z0-9_.+@:-]*[a-z0-9+]|[a-z0-9]", text)``: in
    each run of those characters, from its first letter or digit to its last letter, digit or
    ``+`` (one match a run: nothing after that last one can start another)."""
    spans = []
    at = 0
    for run in text.translate(_CONCEPT_TABLE).split(" "):
        if run:
            head = len(run) - len(run.lstrip("_.+@:-"))
            if head < len(run):
                spans.append((at + head, at + len(run.rstrip("_.@:-"))))
        at += len(run) + 1
    return spans


def camel_pieces(text: str) -> list[str]:
    """``re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+", text)``: capitals, a capital and
    its lower-case letters, lower-case letters, digits (ASCII)."""
    out = []
    n = len(text)
    i = 0
    while i < n:
        c = text[i]
        if c in _UPPER:
            j = i + 1
            while j < n and text[j] in _UPPER:
                j += 1
            if j < n and text[j] in _LOWER:
                if j - i >= 2:  # the last capital starts the next word: HTTPServer
                    out.append(text[i : j - 1])
                    i = j - 1
                    continue
                j += 1
                while j < n and text[j] in _LOWER:
                    j += 1
            out.append(text[i:j])
            i = j
        elif c in _LOWER or c in _DIGITS:
            kind = _LOWER if c in _LOWER else _DIGITS
            j = i + 1
            while j < n and text[j] in kind:
                j += 1
            out.append(text[i:j])
            i = j
        else:
            i += 1
    return out


def skill_name_ok(name: str) -> bool:
    """``re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9:_.-]{0,80}", name) is not None``."""
    return (
        0 < len(name) <= 81
        and name[0] in _ASCII_ALNUM
        and all(c in _ASCII_ALNUM or c in ":_.-" for c in name)
    )


def shown_path_ok(text: str) -> bool:
    """``re.fullmatch(r"[\\w./@+-]{1,160}", text) is not None``."""
    return 0 < len(text) <= 160 and all(c in "./@+-" or is_word_char(c) for c in text)


def looks_like_url(path: str) -> bool:
    """``re.search(r"^(?:https?|ftp|www)\\b|://", path) is not None``."""
    if "://" in path:
        return True
    for scheme in ("https", "http", "ftp", "www"):
        if path.startswith(scheme):
            after = path[len(scheme) : len(scheme) + 1]
            if not after or not is_word_char(after):
                return True
    return False


_HTTP_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


def names_http_method(text: str) -> bool:
    """``re.search(r"\\b(?:GET|POST|PUT|PATCH|DELETE)\\b", text) is not None``."""
    for method in _HTTP_METHODS:
        at = text.find(method)
        while at >= 0:
            end = at + len(method)
            if (at == 0 or not is_word_char(text[at - 1])) and (
                end == len(text) or not is_word_char(text[end])
            ):
                return True
            at = text.find(method, at + 1)
    return False


_LOWER_DIGITS = _LOWER | _DIGITS


def joins_words(text: str, mark: str) -> bool:
    """Whether some ``mark`` in ``text`` ("." or "(") follows a word character (``\\w``:
    alphanumeric or ``_``), and for ".", precedes an ASCII letter or ``_``: what the dotted
    and called identifier shapes of ``relevance.skill_match`` hold (``client.create``,
    ``export()``), and a sentence's full stop or an aside in brackets does not."""
    at = text.find(mark, 1)
    while at != -1:
        before = text[at - 1]
        if before.isalnum() or before == "_":
            if mark != ".":
                return True
            after = text[at + 1 : at + 2]
            if after == "_" or (after.isascii() and after.isalpha()):
                return True
        at = text.find(mark, at + 1)
    return False


def has_inner_capital(text: str) -> bool:
    """Whether an ASCII capital follows an ASCII lower-case letter or digit in ``text``
    (``camelCase``, ``PdfIcon``): what every identifier shape of ``relevance.skill_match`` without
    an underscore, dot or parenthesis holds."""
    if text.islower():
        return False
    previous = ""
    for c in text:
        if c in _UPPER and previous in _LOWER_DIGITS:
            return True
        previous = c
    return False


def code_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """The inline code spans of ``text[start:end]`` as ``(start, end)`` offsets: one or two
    backticks, no backtick right after them, a run of characters that are neither backticks
    nor white space, the same backticks again, and no backtick right after those (the pattern
    ``(``?)(?!`)([^`\\s]+?)\\1(?!`)`` searched between ``start`` and ``end``). Text past
    ``end`` is not read, as if the text ended there."""
    stop = len(text) if end is None else min(end, len(text))
    found: list[tuple[int, int]] = []
    at = text.find("`", start, stop)
    while at != -1:
        ticks = 2 if text.startswith("``", at, stop) else 1
        opened = at + ticks
        if ticks == 1 or not text.startswith("`", opened, stop):
            close = opened
            while close < stop and text[close] != "`" and not text[close].isspace():
                close += 1
            ends = close + ticks
            if (
                close > opened
                and text.startswith("`" * ticks, close, stop)
                and not text.startswith("`", ends, stop)
            ):
                found.append((at, ends))
                at = text.find("`", ends, stop)
                continue
        at = text.find("`", at + 1, stop)
    return found
