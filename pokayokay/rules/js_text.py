"""JavaScript string semantics Claude Code's matcher relies on (pure): trim and its whitespace set,
line terminators, UTF-16 code units, and the error a pattern that cannot be compiled raises."""

from __future__ import annotations

# JavaScript's WhiteSpace and LineTerminator code points (what `trim` and `\s` use).
JS_SPACE = frozenset(
    "\t\n\x0b\x0c\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)


JS_LINE_TERMINATORS = frozenset("\n\r\u2028\u2029")


JS_NOT_LINE_TERMINATOR = r"[^\n\r\u2028\u2029]"


BOM = "\ufeff"


def js_trim(text: str) -> str:
    """``String.prototype.trim``: JavaScript's whitespace set, not Python's."""
    return js_trim_end(js_trim_start(text))


def js_trim_start(text: str) -> str:
    start = 0
    while start < len(text) and text[start] in JS_SPACE:
        start += 1
    return text[start:]


def js_trim_end(text: str) -> str:
    end = len(text)
    while end > 0 and text[end - 1] in JS_SPACE:
        end -= 1
    return text[:end]


def utf16_length(text: str) -> int:
    """JavaScript's ``length``: characters outside the BMP count twice."""
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def to_utf16_units(text: str) -> str:
    """``text`` with every non-BMP character replaced by its UTF-16 surrogate pair.

    JavaScript regular expressions without the ``u`` flag see code units, so patterns and paths
    are matched in this form.
    """
    if all(ord(char) <= 0xFFFF for char in text):
        return text
    out = []
    for char in text:
        point = ord(char)
        if point > 0xFFFF:
            point -= 0x10000
            out.append(chr(0xD800 | (point >> 10)))
            out.append(chr(0xDC00 | (point & 0x3FF)))
        else:
            out.append(char)
    return "".join(out)


class PatternError(ValueError):
    """A pattern Claude Code cannot compile: it drops it ("matches nothing")."""
