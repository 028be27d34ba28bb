"""JavaScript regular expressions (non-Unicode, Annex B, flag i) converted to equivalent Python
ones (pure): the small parser that lets pokayokay run the very regex sources Claude Code's path
matcher builds, case folding and UTF-16 code units included."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache, lru_cache

from pokayokay.rules.js_text import (
    JS_NOT_LINE_TERMINATOR,
    JS_SPACE,
    PatternError,
    to_utf16_units,
)


@cache
def _canon(unit: int) -> int:
    """JavaScript's ``Canonicalize`` for a case-insensitive, non-Unicode regex (one code unit)."""
    if unit < 128:
        return unit - 32 if 97 <= unit <= 122 else unit
    if 0xD800 <= unit <= 0xDFFF:
        return unit
    upper = chr(unit).upper()
    if len(upper) != 1:
        return unit
    mapped = ord(upper)
    if mapped < 128 or mapped > 0xFFFF:
        return unit
    return mapped


def canonical_units(text: str) -> str:
    """``text`` as UTF-16 code units, each canonicalised (matched against :class:`_JsRegex`)."""
    units = to_utf16_units(text)
    if units.isascii():
        return units.upper()
    return "".join(chr(_canon(ord(char))) for char in units)


_Ranges = tuple[tuple[int, int], ...]


_DIGITS: _Ranges = ((0x30, 0x39),)


_WORD: _Ranges = ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A))


_SPACE: _Ranges = tuple((ord(c), ord(c)) for c in sorted(JS_SPACE))


def _merge(ranges: Iterable[tuple[int, int]]) -> _Ranges:
    out: list[tuple[int, int]] = []
    for low, high in sorted(ranges):
        if out and low <= out[-1][1] + 1:
            if high > out[-1][1]:
                out[-1] = (out[-1][0], high)
        else:
            out.append((low, high))
    return tuple(out)


def _complement(ranges: _Ranges) -> _Ranges:
    out: list[tuple[int, int]] = []
    start = 0
    for low, high in _merge(ranges):
        if low > start:
            out.append((start, low - 1))
        start = high + 1
    if start <= 0xFFFF:
        out.append((start, 0xFFFF))
    return tuple(out)


@lru_cache(maxsize=1024)
def _canonical_image(ranges: _Ranges) -> _Ranges:
    """The canonical forms of every code unit in ``ranges``."""
    image: set[int] = set()
    spans: list[tuple[int, int]] = []
    for low, high in ranges:
        if high < 0x41 or (low >= 0x5B and high <= 0x60) or (low >= 0x7B and high <= 0xB4):
            spans.append((low, high))  # nothing here has an upper case
            continue
        image.update(_canon(unit) for unit in range(low, high + 1))
    return _merge([*spans, *((unit, unit) for unit in image)])


_CLASS_ESCAPES: dict[str, tuple[_Ranges, bool]] = {
    "d": (_DIGITS, False),
    "D": (_DIGITS, True),
    "w": (_WORD, False),
    "W": (_WORD, True),
    "s": (_SPACE, False),
    "S": (_SPACE, True),
}


_CONTROL_ESCAPES = {"f": 0x0C, "n": 0x0A, "r": 0x0D, "t": 0x09, "v": 0x0B}


_QUANTIFIER_BRACES = re.compile(r"\{([0-9]+)(?:(,)([0-9]*))?\}")


_MAX_REPEAT = 65535


def _unit_text(unit: int) -> str:
    return f"\\u{unit:04x}"


def _class_text(ranges: _Ranges, negated: bool) -> str:
    """A Python character class for the canonical image of ``ranges``."""
    image = _canonical_image(ranges)
    if not image:
        return "[\\u0000-\\uffff]" if negated else "[^\\u0000-\\uffff]"
    items = "".join(
        _unit_text(low) if low == high else f"{_unit_text(low)}-{_unit_text(high)}"
        for low, high in image
    )
    return f"[{'^' if negated else ''}{items}]"


def _class_escape_ranges(letter: str) -> _Ranges:
    ranges, negated = _CLASS_ESCAPES[letter]
    return _complement(ranges) if negated else ranges


class UnsupportedPattern(PatternError):
    """Valid JavaScript that this converter does not reproduce (never produced by real globs)."""


class _JsRegex:
    """Parse one JavaScript regex source (no ``u`` flag, Annex B) and emit Python's equivalent.

    The Python expression is matched, case-sensitively, against :func:`canonical_units` of the
    path, which reproduces the ``i`` flag exactly. Raises :class:`PatternError` where JavaScript
    throws a ``SyntaxError``.
    """

    def __init__(self, source: str) -> None:
        self.src = source
        self.pos = 0
        self.groups = self._count_groups()

    def _count_groups(self) -> int:
        count, pos, in_class = 0, 0, False
        src = self.src
        while pos < len(src):
            char = src[pos]
            if char == "\\":
                pos += 2
                continue
            if in_class:
                in_class = char != "]"
            elif char == "[":
                in_class = True
            elif char == "(" and not src.startswith("(?", pos):
                count += 1
            pos += 1
        return count

    def convert(self) -> str:
        out = self._disjunction()
        if self.pos < len(self.src):
            raise PatternError("Invalid regular expression: unmatched ')'")
        return out

    def _peek(self, offset: int = 0) -> str:
        index = self.pos + offset
        return self.src[index] if index < len(self.src) else ""

    def _disjunction(self) -> str:
        alternatives = [self._alternative()]
        while self._peek() == "|":
            self.pos += 1
            alternatives.append(self._alternative())
        return "|".join(alternatives)

    def _alternative(self) -> str:
        parts: list[str] = []
        while self.pos < len(self.src) and self._peek() not in "|)":
            parts.append(self._term())
        return "".join(parts)

    def _quantifier_at(self, pos: int) -> re.Match[str] | None:
        return _QUANTIFIER_BRACES.match(self.src, pos)

    def _term(self) -> str:
        char = self._peek()
        if char in ("^", "$"):
            self.pos += 1
            self._refuse_quantifier()
            return r"\A" if char == "^" else r"\Z"
        if char == "\\" and self._peek(1) in ("b", "B"):
            self.pos += 2
            self._refuse_quantifier()
            return "\\" + self.src[self.pos - 1]
        if char in ("*", "+", "?") or (char == "{" and self._quantifier_at(self.pos)):
            raise PatternError("Invalid regular expression: nothing to repeat")
        quantifiable_group = False
        if char == "(":
            atom, quantifiable_group = self._group()
        elif char == "[":
            atom = self._class()
        elif char == ".":
            self.pos += 1
            atom = JS_NOT_LINE_TERMINATOR
        elif char == "\\":
            atom = self._atom_escape()
        else:
            self.pos += 1
            atom = self._literal(ord(char))
        quantifier = self._quantifier()
        if quantifier and quantifiable_group:
            atom = f"(?:{atom})"
        return atom + quantifier

    def _refuse_quantifier(self) -> None:
        char = self._peek()
        if char in ("*", "+", "?") or (char == "{" and self._quantifier_at(self.pos)):
            raise PatternError("Invalid regular expression: nothing to repeat")

    def _quantifier(self) -> str:
        char = self._peek()
        if char in ("*", "+", "?"):
            self.pos += 1
            text = char
        elif char == "{":
            found = self._quantifier_at(self.pos)
            if found is None:
                return ""
            low = int(found.group(1))
            high = None if found.group(3) in (None, "") else int(found.group(3))
            if high is not None and low > high:
                raise PatternError("Invalid regular expression: numbers out of order")
            if low > _MAX_REPEAT or (high is not None and high > _MAX_REPEAT):
                raise UnsupportedPattern("repeat count too large")
            self.pos = found.end()
            text = found.group(0)
        else:
            return ""
        if self._peek() == "?":
            self.pos += 1
            text += "?"
        return text

    def _group(self) -> tuple[str, bool]:
        src = self.src
        if src.startswith("(?:", self.pos):
            opener, quantifiable = "(?:", False
        elif src.startswith("(?=", self.pos) or src.startswith("(?!", self.pos):
            opener, quantifiable = src[self.pos : self.pos + 3], True
        elif src.startswith("(?", self.pos):
            raise UnsupportedPattern("lookbehind or named group")
        else:
            opener, quantifiable = "(", False
        self.pos += len(opener)
        inner = self._disjunction()
        if self._peek() != ")":
            raise PatternError("Invalid regular expression: unterminated group")
        self.pos += 1
        return f"{opener}{inner})", quantifiable

    def _literal(self, unit: int) -> str:
        return re.escape(chr(_canon(unit)))

    def _atom_escape(self) -> str:
        self.pos += 1  # the backslash
        char = self._peek()
        if not char:
            raise PatternError("Invalid regular expression: \\ at end of pattern")
        if char in _CLASS_ESCAPES:
            self.pos += 1
            ranges, negated = _CLASS_ESCAPES[char]
            return _class_text(ranges, negated)
        if char.isascii() and char.isdigit() and char != "0":
            number_end = self.pos
            while number_end < len(self.src) and self.src[number_end] in "0123456789":
                number_end += 1
            if int(self.src[self.pos : number_end]) <= self.groups:
                raise UnsupportedPattern("backreference")
        unit = self._character_escape(in_class=False)
        return self._literal(unit)

    def _character_escape(self, *, in_class: bool) -> int:
        """The code unit of an escape whose backslash was consumed (``self.pos`` at its letter)."""
        src = self.src
        char = src[self.pos]
        if char in _CONTROL_ESCAPES:
            self.pos += 1
            return _CONTROL_ESCAPES[char]
        if in_class and char == "b":
            self.pos += 1
            return 0x08
        if char == "c":
            letter = self._peek(1)
            allowed = letter.isascii() and (
                letter.isalpha() or (in_class and (letter.isdigit() or letter == "_"))
            )
            if letter and allowed:
                self.pos += 2
                return ord(letter) % 32
            return ord("\\")  # `\c` not followed by a letter: a literal backslash, then "c"
        if char == "x" and re.fullmatch(r"[0-9A-Fa-f]{2}", src[self.pos + 1 : self.pos + 3]):
            self.pos += 3
            return int(src[self.pos - 2 : self.pos], 16)
        if char == "u" and re.fullmatch(r"[0-9A-Fa-f]{4}", src[self.pos + 1 : self.pos + 5]):
            self.pos += 5
            return int(src[self.pos - 4 : self.pos], 16)
        if char in "01234567":
            if char == "0" and not ("0" <= self._peek(1) <= "9"):
                self.pos += 1
                return 0
            limit = 3 if char <= "3" else 2
            digits = char
            index = self.pos + 1
            while len(digits) < limit and index < len(src) and src[index] in "01234567":
                digits += src[index]
                index += 1
            self.pos = index
            return int(digits, 8)
        self.pos += 1
        return ord(char)  # identity escape (including \8, \9, \k)

    def _class(self) -> str:
        self.pos += 1  # "["
        negated = self._peek() == "^"
        if negated:
            self.pos += 1
        ranges: list[tuple[int, int]] = []
        while True:
            if self.pos >= len(self.src):
                raise PatternError("Invalid regular expression: missing terminating ]")
            if self._peek() == "]":
                self.pos += 1
                break
            first = self._class_atom()
            if (
                self._peek() == "-"
                and self.pos + 1 < len(self.src)
                and self.src[self.pos + 1] != "]"
            ):
                self.pos += 1
                second = self._class_atom()
                if isinstance(first, int) and isinstance(second, int):
                    if first > second:
                        raise PatternError(
                            "Invalid regular expression: range out of order in character class"
                        )
                    ranges.append((first, second))
                else:  # Annex B: a class escape in a range is a union with "-"
                    for atom in (first, second):
                        ranges.extend(((atom, atom),) if isinstance(atom, int) else atom)
                    ranges.append((0x2D, 0x2D))
            else:
                ranges.extend(((first, first),) if isinstance(first, int) else first)
        return _class_text(_merge(ranges), negated)

    def _class_atom(self) -> int | _Ranges:
        char = self._peek()
        if char != "\\":
            self.pos += 1
            return ord(char)
        self.pos += 1
        letter = self._peek()
        if not letter:
            raise PatternError("Invalid regular expression: \\ at end of pattern")
        if letter in _CLASS_ESCAPES:
            self.pos += 1
            return _class_escape_ranges(letter)
        if letter == "-":
            self.pos += 1
            return 0x2D
        return self._character_escape(in_class=True)


def python_regex(source: str) -> re.Pattern[str]:
    """Compile a JavaScript regex source (flag ``i``) for matching :func:`canonical_units`."""
    try:
        return re.compile(_JsRegex(source).convert(), re.ASCII)
    except re.error as exc:  # pragma: no cover - the converter emits valid Python
        raise UnsupportedPattern(f"cannot reproduce in Python: {exc}") from None
