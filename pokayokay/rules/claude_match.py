"""Which files a rule's ``paths:`` make Claude Code load it for — Claude Code's own semantics.

Pure: strings in, values out; standard library only (no pathspec), so it is cheap to import.

What Claude Code 2.1.330 does (read from its bundle, checked against it on random patterns):

1. **The ``paths:`` value** (:func:`normalise_patterns`). A falsy value (absent, ``null``, ``""``)
   means no ``paths``. A list is flattened recursively and every string item is processed like a
   single string; non-string items are dropped. A string is split at top-level commas (commas
   inside ``{…}`` stay), each piece is trimmed (JavaScript ``trim``) and empty pieces dropped.
   Quotes are *not* special: in ``other/**, "*.md"`` the second pattern is ``"*.md"`` with its
   quotes. Brace groups are then expanded (:func:`expand_braces`), within a budget of 1,000
   patterns and 4 MiB per rule; a pattern over budget is kept unexpanded. A trailing ``/**`` is
   stripped once (``src/**`` → ``src``, which also matches ``src`` at any depth), empty patterns
   dropped, and if no pattern is left or every pattern is ``**`` the rule is unconditional: it
   loads at session start. Here that is an empty list.

2. **Matching** (:func:`matches`). The file path is made relative to the folder that holds
   ``.claude/``; an empty path, a path starting with ``..`` (that includes a file named
   ``..foo`` at the top level) or an absolute one never matches. Patterns that cannot be compiled
   are dropped ("treated as matching nothing"), the others go to a gitignore matcher whose API and
   error messages are those of the npm ``ignore`` package, but which is Claude Code's own, smaller
   implementation:

   * gitignore rules: ``#`` comments, ``!`` negation, last matching pattern wins; a pattern with a
     slash at its start or middle is anchored at the base folder, one without matches at any
     depth; a trailing ``/`` matches folders only; ``*`` and ``?`` never cross ``/``; ``**/``,
     ``/**/`` and a trailing ``/**`` span folders; trailing spaces are dropped unless escaped;
   * a folder that matches makes everything under it match, and a negation cannot re-include a
     file below a matching folder (each parent folder is tested first, as ``dir/``);
   * matching is **case-insensitive** (``ignorecase`` defaults to true and Claude Code keeps the
     default). Case folding is JavaScript's non-Unicode ``/i``: a character matches another when
     their single-character upper-cases agree, never mapping a non-ASCII character to an ASCII
     one (so ``ſ`` does not match ``s``); strings are compared as UTF-16 code units, so ``?``
     does not match an emoji (two units);
   * bracket expressions: ``[abc]``, ``[a-z]``; **``!`` and ``^`` after ``[`` are literal
     characters**, not negation (git and npm ``ignore`` negate); a reversed range (``[z-a]``), an
     escaped ``]`` or a missing ``]`` make the pattern match nothing; POSIX classes
     (``[[:alpha:]]``) are not supported (taken literally);
   * backslash escapes follow Claude Code's translation, quirks included (``\\*`` at the very end
     of a pattern still acts as ``*``; a backslash before a letter turns into a regular-expression
     escape such as ``\\d``; a backslash before ``?`` or ``/**`` breaks the pattern).

   Implementation: each pattern is translated to the same JavaScript regular-expression source
   Claude Code builds, and that source is converted to an equivalent Python expression by a small
   parser of JavaScript's (non-Unicode, Annex B) regex syntax, so every corner — including the
   quirks above and which patterns fail to compile — comes out as Claude Code's.

How this differs from pathspec's ``gitwildmatch``/``GitIgnoreSpec`` (git semantics), which is why
this module does not use it: pathspec is case-sensitive; it negates ``[!…]``/``[^…]``; it
supports POSIX classes; it lets a later ``!pattern`` re-include a file whose folder matched
(``GitIgnoreSpec``) or evaluates every pattern against the full path only (``PathSpec``); it
discards a pattern with a bad range instead of keeping the rest; it has no ``..`` rule; and its
regular expressions match any descendant of a matching path by prefix, which changes the outcome
of ordered negations. See ``tests/test_rule_match.py`` for each case.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache

# Brace-expansion budget per rule (Claude Code: 1,000 patterns, 4 MiB of pattern text).
BRACE_MAX_PATTERNS = 1000
BRACE_MAX_BYTES = 4 * 1024 * 1024

# JavaScript's WhiteSpace and LineTerminator code points (what `trim` and `\s` use).
_JS_SPACE = frozenset(
    "\t\n\x0b\x0c\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_JS_LINE_TERMINATORS = frozenset("\n\r\u2028\u2029")
_JS_NOT_LINE_TERMINATOR = r"[^\n\r\u2028\u2029]"
_BOM = "\ufeff"


# ---------------------------------------------------------------------------------------------
# JavaScript string helpers


def js_trim(text: str) -> str:
    """``String.prototype.trim``: JavaScript's whitespace set, not Python's."""
    return js_trim_end(js_trim_start(text))


def js_trim_start(text: str) -> str:
    start = 0
    while start < len(text) and text[start] in _JS_SPACE:
        start += 1
    return text[start:]


def js_trim_end(text: str) -> str:
    end = len(text)
    while end > 0 and text[end - 1] in _JS_SPACE:
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


# ---------------------------------------------------------------------------------------------
# The `paths:` value


@dataclass
class BraceBudget:
    """What is left of one rule's brace-expansion budget (shared by all its patterns)."""

    patterns: int = BRACE_MAX_PATTERNS
    units: int = BRACE_MAX_BYTES
    exceeded: list[str] = field(default_factory=list)  # patterns kept unexpanded


_BRACE_GROUP = re.compile(r"([^{]*)\{([^}]+)\}(" + _JS_NOT_LINE_TERMINATOR + r"*)")


def expand_braces(pattern: str, budget: BraceBudget | None = None) -> list[str]:
    """Expand the brace groups of one pattern the way Claude Code does.

    The first ``{…}`` group (no nesting: it ends at the first ``}``) is replaced by each of its
    comma-separated, trimmed alternatives, repeatedly. ``{a}`` becomes ``a``; ``{}`` and a group
    followed by a line break stay as they are. A pattern whose expansion would exceed the budget
    is returned unexpanded (and recorded in ``budget.exceeded``).
    """
    if "{" not in pattern:
        return [pattern]
    if budget is None:
        budget = BraceBudget()
    length = utf16_length(pattern)
    done: list[str] = []
    stack = [pattern]
    while stack:
        current = stack.pop()
        found = _BRACE_GROUP.fullmatch(current)
        if found is None:
            done.append(current)
            continue
        head, body, tail = found.groups()
        alternatives = [js_trim(part) for part in body.split(",")]
        budget.units -= utf16_length(current)
        total = len(done) + len(stack) + len(alternatives)
        if budget.units < 0 or total > budget.patterns or total * length > budget.units:
            budget.exceeded.append(pattern)
            return [pattern]
        for alternative in reversed(alternatives):
            stack.append(head + alternative + tail)
    budget.patterns -= len(done)
    budget.units -= len(done) * length
    return done


def split_paths_value(value: object, budget: BraceBudget | None = None) -> list[str]:
    """The patterns of a ``paths:`` value before the ``/**`` clean-up (see module docstring)."""
    if budget is None:
        budget = BraceBudget()
    if isinstance(value, list):
        out: list[str] = []
        for item in value:
            out.extend(split_paths_value(item, budget))
        return out
    if not isinstance(value, str):
        return []
    pieces: list[str] = []
    current: list[str] = []
    depth = 0
    for char in value:
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == "," and depth == 0:
            piece = js_trim("".join(current))
            if piece:
                pieces.append(piece)
            current = []
            continue
        current.append(char)
    last = js_trim("".join(current))
    if last:
        pieces.append(last)
    expanded: list[str] = []
    for piece in pieces:
        expanded.extend(expand_braces(piece, budget))
    return expanded


def js_truthy(value: object) -> bool:
    """JavaScript truthiness of a YAML value (``[]``/``{}`` are truthy, ``0``/``""`` are not)."""
    if value is None or value is False:
        return False
    if isinstance(value, bool):
        return True
    if isinstance(value, (int, float)):
        return value != 0 and value == value  # NaN is falsy
    if isinstance(value, str):
        return value != ""
    return True


def normalise_patterns(paths_value: object, budget: BraceBudget | None = None) -> list[str]:
    """The patterns Claude Code matches for a rule whose frontmatter has ``paths: paths_value``.

    An empty list means the rule is unconditional (loads at session start): no usable
    ``paths``, or every pattern is ``**``.
    """
    if not js_truthy(paths_value):
        return []
    patterns = [
        pattern[:-3] if pattern.endswith("/**") else pattern
        for pattern in split_paths_value(paths_value, budget)
    ]
    patterns = [pattern for pattern in patterns if pattern]
    if all(pattern == "**" for pattern in patterns):
        return []
    return patterns


# ---------------------------------------------------------------------------------------------
# One pattern → the JavaScript regular expression Claude Code builds for it


class PatternError(ValueError):
    """A pattern Claude Code cannot compile: it drops it ("matches nothing")."""


_REGEX_SPECIALS = ".$()+^{|*"
_MAX_STAR_RUN = 1_000_000


def _is_word_char(char: str) -> bool:
    return char.isascii() and (char.isalnum() or char == "_")


def _tokens(text: str) -> Iterable[tuple[str | None, str, str, int, int]]:
    """Claude Code's tokeniser: ``(stars, backslashes, token, start, end)`` tuples.

    ``stars`` is a run of ``*`` followed by another character (``token`` then empty), otherwise
    ``backslashes`` is a (possibly empty) run of ``\\`` and ``token`` one of: ``/**`` (followed by
    ``/`` or the end), a run of ASCII word characters, any single character, or ``""`` at the
    end. The end always yields one last empty token.
    """
    size = len(text)
    pos = 0
    while pos < size:
        if text[pos] == "*":
            run_end = pos
            while run_end < size and text[run_end] == "*":
                run_end += 1
            if run_end < size and text[run_end] not in _JS_LINE_TERMINATORS:
                stars_end = run_end
            else:
                stars_end = run_end - 1  # the last star is the character that follows
            if stars_end > pos:
                yield text[pos:stars_end], "", "", pos, stars_end
                pos = stars_end
                continue
        start = pos
        while pos < size and text[pos] == "\\":
            pos += 1
        backslashes = text[start:pos]
        if text.startswith("/**", pos) and (pos + 3 == size or text[pos + 3] == "/"):
            token = "/**"
        elif pos < size and _is_word_char(text[pos]):
            word_end = pos
            while word_end < size and _is_word_char(text[word_end]):
                word_end += 1
            token = text[pos:word_end]
        else:
            token = text[pos : pos + 1]  # one character, or "" after trailing backslashes
        pos += len(token)
        yield None, backslashes, token, start, pos
    # JavaScript's global `replace` also matches the empty string at the very end.
    yield None, "", "", size, size


_REVERSED_RANGE = re.compile(r"[0-z]-[0-z]")


def _drop_reversed_ranges(text: str) -> str:
    return _REVERSED_RANGE.sub(lambda m: "" if m.group()[0] > m.group()[2] else m.group(), text)


def claude_regex_source(expression: str) -> str:
    """The JavaScript regex source Claude Code compiles for one pattern body.

    ``expression`` is the pattern after :func:`_split_negation` (no leading ``!``), in UTF-16
    code units. The result is JavaScript syntax; :func:`_JsRegex` turns it into Python's.
    """
    raw = expression[1:] if expression.startswith(_BOM) else expression
    trimmed = js_trim_end(raw)
    if not trimmed:
        return ""
    lead = re.match(r"/?(\*\*/)?", trimmed)
    assert lead is not None
    lead_text = lead.group(0)
    if lead.group(1):
        out = r"^(?:.*\/)?"
    elif lead_text or re.search(r"/[\s\S]", raw):
        out = "^"
    else:
        out = r"(?:^|\/)"
    body = trimmed[len(lead_text) :]
    if trimmed != raw and trimmed.endswith("\\"):
        body += " "  # an escaped trailing space survives the trim
    in_bracket = False
    saved = ""  # the expression before an open `[` (plus its backslashes)
    bracket_escaped = ""  # the backslashes before that `[`
    previous = ""
    for stars, slashes, token, _start, end in _tokens(body):
        if stars is not None and len(stars) > _MAX_STAR_RUN:
            raise PatternError("regular expression too large")
        at_end = end == len(body)
        kept = slashes[len(slashes) % 2 :]  # escaped backslashes, as pairs
        if in_bracket and stars is None and token in ("]", ""):
            if bracket_escaped:
                out = f"{saved}[{out}{kept}{token}"
            elif token and kept == slashes:
                out = f"{saved}[{_drop_reversed_ranges(out)}{slashes}]"
            else:
                out = f"{saved}[]"
            in_bracket, saved = False, ""
        elif not in_bracket and stars is None and token == "[":
            saved, bracket_escaped, out, in_bracket = out + slashes, slashes, "", True
        elif stars is not None or token == "?" or token.startswith("/"):
            opened = f"{saved}[" if in_bracket else ""
            if token == "/**" and not at_end:
                tail = (slashes[1:] or slashes) + r"(?:\/[^\/]+)*"
            elif stars is not None:
                tail = r"[^\/]*"
            elif token == "?":
                tail = slashes + r"[^\/]"
            elif token == "/":
                tail = slashes + r"\/"
            else:
                tail = slashes + r"\/.+"
            out = opened + out + tail
            in_bracket, saved = False, ""
        elif token == "*" and at_end:
            out += slashes[1:] + "[^/]" + ("+" if previous == "/" and len(slashes) < 2 else "*")
        elif slashes and len(token) == 1 and token in _JS_SPACE:
            out += slashes if at_end and kept == slashes else kept + " "
        else:
            escape = "\\" if token and token in _REGEX_SPECIALS else ""
            out += (slashes or escape) + token
        previous = "" if stars is not None else token
    return out + ("$" if body.endswith("/") else r"(?=$|\/$)")


# ---------------------------------------------------------------------------------------------
# JavaScript regex source (non-Unicode, Annex B, flag `i`) → Python regex


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
_SPACE: _Ranges = tuple((ord(c), ord(c)) for c in sorted(_JS_SPACE))


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


class _Unsupported(PatternError):
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
            atom = _JS_NOT_LINE_TERMINATOR
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
                raise _Unsupported("repeat count too large")
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
            raise _Unsupported("lookbehind or named group")
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
                raise _Unsupported("backreference")
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
        raise _Unsupported(f"cannot reproduce in Python: {exc}") from None


# ---------------------------------------------------------------------------------------------
# Patterns and the matcher


def _skipped(pattern: str) -> str | None:
    """Why Claude Code's matcher ignores ``pattern`` outright, or None."""
    if pattern.startswith("#"):
        return "a comment (starts with #)"
    if not any(char not in _JS_SPACE for char in pattern):
        return "blank"
    if pattern.endswith("\\") and not pattern.endswith("\\\\"):
        return "ends with a single backslash"
    return None


def _split_negation(pattern: str) -> tuple[bool, str]:
    negative = pattern.startswith("!")
    body = pattern[1:] if negative else pattern
    if body[:1] == "\\" and body[1:2] in ("!", "#"):
        body = body[1:]
    return negative, body


@dataclass(frozen=True)
class CompiledPattern:
    """One pattern as Claude Code's matcher holds it."""

    pattern: str
    negative: bool
    regex: re.Pattern[str] | None  # None: skipped or failed to compile
    skipped: str | None = None  # why the matcher ignores it (comment, blank, trailing "\")
    error: str | None = None  # why it does not compile (Claude Code drops it)
    js_source: str | None = None

    @property
    def usable(self) -> bool:
        return self.regex is not None


@lru_cache(maxsize=4096)
def compile_pattern(pattern: str) -> CompiledPattern:
    """Compile one pattern of a rule's (normalised) ``paths`` list."""
    skipped = _skipped(pattern)
    negative, body = _split_negation(pattern)
    if skipped is not None:
        return CompiledPattern(pattern, negative, None, skipped=skipped)
    try:
        source = claude_regex_source(to_utf16_units(body))
        regex = python_regex(source)
    except _Unsupported as exc:
        return CompiledPattern(pattern, negative, None, error=f"not supported by pokayokay: {exc}")
    except PatternError as exc:
        return CompiledPattern(pattern, negative, None, error=str(exc))
    return CompiledPattern(pattern, negative, regex, js_source=source)


def pattern_problem(pattern: str) -> str | None:
    """Why ``pattern`` has no effect in Claude Code (None when it is usable)."""
    compiled = compile_pattern(pattern)
    if compiled.skipped:
        return f"ignored: {compiled.skipped}"
    if compiled.error:
        return f"cannot be compiled ({compiled.error}); Claude Code treats it as matching nothing"
    return None


def _is_outside(rel_path: str) -> bool:
    """Paths Claude Code never matches (or on which its matcher would throw)."""
    if not rel_path or rel_path.startswith("..") or rel_path.startswith("/"):
        return True
    return rel_path == "." or rel_path.startswith("./")


class Matcher:
    """A rule's compiled patterns; :meth:`matches` answers like Claude Code for a relative path.

    Folder verdicts are cached, so testing many files of one project is cheap.
    """

    def __init__(self, patterns: Sequence[str]) -> None:
        self.patterns = tuple(patterns)
        self.compiled = tuple(c for c in map(compile_pattern, self.patterns) if c.usable)
        self._cache: dict[str, CompiledPattern | None] = {}

    def _verdict(self, candidate: str) -> CompiledPattern | None:
        """The positive pattern that leaves ``candidate`` matched, or None (last match wins)."""
        subject = canonical_units(candidate)
        decided: CompiledPattern | None = None
        for compiled in self.compiled:
            if compiled.negative != (decided is not None):
                continue
            assert compiled.regex is not None
            if compiled.regex.search(subject):
                decided = None if compiled.negative else compiled
        return decided

    def deciding_pattern(self, rel_path: str) -> str | None:
        """The pattern that makes Claude Code load the rule for ``rel_path``, or None."""
        if not self.compiled or _is_outside(rel_path):
            return None
        collapsed = re.sub("/+", "/", rel_path) if "//" in rel_path else rel_path
        folders = []
        index = len(collapsed) - 1
        while True:
            index = collapsed.rfind("/", 0, index)
            if index <= 0:
                break
            folders.append(collapsed[: index + 1])
        decided: CompiledPattern | None = None
        for folder in reversed(folders):
            if decided is None:
                decided = self._cache[folder] if folder in self._cache else self._verdict(folder)
            self._cache[folder] = decided
        if decided is None:
            decided = self._verdict(rel_path)
        return None if decided is None else decided.pattern

    def matches(self, rel_path: str) -> bool:
        return self.deciding_pattern(rel_path) is not None


def matches(patterns: Sequence[str], rel_path: str) -> bool:
    """Would Claude Code load a rule with these (normalised) patterns when ``rel_path`` is read?

    ``rel_path`` is relative to the folder holding ``.claude/``, with ``/`` separators.
    """
    if not patterns:
        return False
    return Matcher(patterns).matches(rel_path)


def paths_match(paths_value: object, rel_path: str) -> bool:
    """:func:`matches` for a raw frontmatter ``paths:`` value (False when unconditional)."""
    return matches(normalise_patterns(paths_value), rel_path)
