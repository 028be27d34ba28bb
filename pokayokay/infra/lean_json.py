"""JSON for the hot paths without importing :mod:`json` (pure; public standard library only).

``import json`` also imports :mod:`re` (``json.decoder``, ``json.scanner`` and ``json.encoder``
compile patterns at import), with ``enum``, ``functools`` and the regex compiler behind it: about
8 ms, one interpreter start, on a hook that has three. The prompt hook imports no ``re`` at all
(``tests/architecture/test_prompt_imports_no_re``), so json's import would be most of what it
pays over a bare start. :func:`loads` and :func:`dumps` give what ``json.loads`` and
``json.dumps`` give (default options; ``dumps`` takes ``ensure_ascii``, ``separators`` and
``sort_keys``), built on ``str.find``, slicing, ``str.translate`` and an encoding error handler
(:mod:`codecs`, loaded by every interpreter's start), so that the long strings a payload carries
(a tool's output, a prompt) are copied in a few C calls, never walked character by character in
Python. A document nested deeper than :data:`MAX_DEPTH` raises :class:`RecursionError`, as
json's reader does near the interpreter's recursion limit (callers catch it as json's).
An earlier version drove CPython's private ``_json`` accelerator; decision 0163 says why it went.
"""

from __future__ import annotations

import codecs

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_DEPTH = 1000  # json's C reader stops near sys.getrecursionlimit() (1000 by default)
_WHITESPACE = " \t\n\r"
_SPACE_CHARS = frozenset(_WHITESPACE)
_NUMBER_TEXT = "0123456789+-.eE"
_NUMBER_CHARS = frozenset(_NUMBER_TEXT)
_DIGITS = frozenset("0123456789")
_HEX = frozenset("0123456789abcdefABCDEF")
_ESCAPED = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_LITERALS = (
    ("true", True), ("false", False), ("null", None),
    ("NaN", float("nan")), ("Infinity", float("inf")), ("-Infinity", float("-inf")),
)  # fmt: skip
_CONTROLS = {code: None for code in range(32)}  # str.translate: a string without them
# The escapes a piece with no escaped backslash in it can undo with str.replace, in any order.
_COMMON_ESCAPES = tuple(("\\" + name, char) for name, char in _ESCAPED.items() if name != "\\")


def loads(text: str) -> Any:
    """The value of a JSON document, as ``json.loads(text)``; ``ValueError`` when it is not one
    (leading and trailing JSON whitespace allowed, nothing else around the value)."""
    return _Reader(text).document()


class _Reader:
    """One document read left to right; containers on an explicit stack, so depth costs no
    Python frames."""

    __slots__ = ("text", "end")

    def __init__(self, text: str) -> None:
        self.text = text
        self.end = len(text)

    def fail(self, what: str, at: int) -> ValueError:
        return ValueError(f"not JSON: {what} at character {at}")

    def skip(self, at: int) -> int:
        """Where the whitespace at ``at`` ends (an indented document's runs are a few dozen)."""
        text = self.text
        if text[at : at + 1] not in _SPACE_CHARS:
            return at
        while True:
            piece = text[at : at + 64]
            rest = len(piece.lstrip(_WHITESPACE))
            at += len(piece) - rest
            if rest or not piece:
                return at

    def document(self) -> Any:
        value, at = self.value(0)
        at = self.skip(at)
        if at != self.end:
            raise self.fail("extra data", at)
        return value

    def value(self, at: int) -> tuple[Any, int]:
        """The value starting at ``at`` and where it ends."""
        text = self.text
        stack: list[tuple[Any, str | None]] = []  # (open container, the key its next value takes)
        while True:
            at = self.skip(at)
            char = text[at : at + 1]
            found: Any
            if char == "{" or char == "[":
                if len(stack) >= MAX_DEPTH:
                    raise RecursionError(f"JSON nested deeper than {MAX_DEPTH}")
                at = self.skip(at + 1)
                if text[at : at + 1] == ("}" if char == "{" else "]"):
                    found, at = ({} if char == "{" else []), at + 1
                elif char == "{":
                    key, at = self.key(at)
                    stack.append(({}, key))
                    continue
                else:
                    stack.append(([], None))
                    continue
            else:
                found, at = self.scalar(at)
            while stack:  # found is whole: it goes into the innermost open container
                container, pending = stack[-1]
                if pending is None:
                    container.append(found)
                else:
                    container[pending] = found
                at = self.skip(at)
                char = text[at : at + 1]
                if char == ",":
                    if pending is None:
                        at += 1
                    else:
                        key, at = self.key(self.skip(at + 1))
                        stack[-1] = (container, key)
                    break
                if char != ("]" if pending is None else "}"):
                    raise self.fail("expecting ',' or the container's end", at)
                stack.pop()
                found, at = container, at + 1
            else:
                return found, at

    def key(self, at: int) -> tuple[str, int]:
        """The object key starting at ``at`` and where its value starts (after the ':')."""
        if self.text[at : at + 1] != '"':
            raise self.fail("expecting a property name in double quotes", at)
        key, at = self.string(at + 1)
        at = self.skip(at)
        if self.text[at : at + 1] != ":":
            raise self.fail("expecting ':'", at)
        return key, at + 1

    def scalar(self, at: int) -> tuple[Any, int]:
        text = self.text
        char = text[at : at + 1]
        if char == '"':
            return self.string(at + 1)
        if char in _DIGITS or (char == "-" and text[at + 1 : at + 2] != "I"):
            return self.number(at)
        for word, value in _LITERALS:
            if text.startswith(word, at):
                return value, at + len(word)
        if char in _NUMBER_CHARS:
            return self.number(at)  # refused there, with the run named
        raise self.fail("expecting a value", at)

    def number(self, at: int) -> tuple[int | float, int]:
        """The number at ``at``: JSON's grammar, read as json reads it (an int when it has no
        fraction and no exponent). A run of number characters that is not one is refused
        whole: no valid document has a number character right after a number."""
        text, end, stop = self.text, self.end, at
        while True:  # the run's end, found by str.lstrip a slice at a time
            piece = text[stop : stop + 32]
            rest = len(piece.lstrip(_NUMBER_TEXT))
            stop += len(piece) - rest
            if rest or stop >= end:
                break
        run = text[at:stop]
        body = run[1:] if run.startswith("-") else run
        mantissa, e, exponent = body.partition("e" if "e" in body else "E")
        whole, dot, fraction = mantissa.partition(".")
        if exponent[:1] in ("+", "-"):
            exponent = exponent[1:]
        if (
            not _all_digits(whole)
            or (len(whole) > 1 and whole[0] == "0")
            or (dot and not _all_digits(fraction))
            or (e and not _all_digits(exponent))
        ):
            raise self.fail(f"not a number: {run!r}", at)
        return (float(run) if dot or e else int(run)), stop

    def string(self, at: int) -> tuple[str, int]:
        """The string whose opening quote is just before ``at``, and where it ends.

        Its closing quote is the first one after an even run of backslashes; between them, the
        common escapes are undone by ``str.replace`` over the pieces between escaped
        backslashes (a tool's output is mostly lines and tabs). A ``\\u`` escape, or an escape
        that is no escape, is read one at a time (:meth:`escape`)."""
        text = self.text
        quote = text.find('"', at)
        while quote > 0 and text[quote - 1] == "\\":
            run = 1
            while text[quote - 1 - run] == "\\":
                run += 1
            if run % 2 == 0:
                break
            quote = text.find('"', quote + 1)
        if quote < 0:
            raise self.fail("unterminated string", at)
        raw = text[at:quote]
        if not raw.isprintable() and len(raw.translate(_CONTROLS)) != len(raw):
            raise self.fail("a control character in a string", at)
        if "\\" not in raw:
            return raw, quote + 1
        pieces = raw.split("\\\\")
        for n, piece in enumerate(pieces):
            if "\\" in piece:
                for escape, char in _COMMON_ESCAPES:
                    if escape in piece:
                        piece = piece.replace(escape, char)
                if "\\" in piece:
                    return self.escaped(at, quote), quote + 1
                pieces[n] = piece
        return "\\".join(pieces), quote + 1

    def escaped(self, at: int, quote: int) -> str:
        """The string between ``at`` and its closing ``quote``, its escapes read one by one."""
        text = self.text
        pieces: list[str] = []
        while True:
            slash = text.find("\\", at, quote)
            if slash < 0:
                pieces.append(text[at:quote])
                return "".join(pieces)
            pieces.append(text[at:slash])
            escape, at = self.escape(slash + 1)
            pieces.append(escape)

    def escape(self, at: int) -> tuple[str, int]:
        """The character an escape stands for (its backslash just before ``at``) and where it
        ends; a surrogate pair written as two escapes is its one character, as json reads it."""
        text = self.text
        char = text[at : at + 1]
        if char != "u":
            if char not in _ESCAPED:
                raise self.fail("invalid escape", at - 1)
            return _ESCAPED[char], at + 1
        code = self.hex4(at + 1)
        if 0xD800 <= code <= 0xDBFF and text.startswith("\\u", at + 5):
            low = self.hex4(at + 7)
            if 0xDC00 <= low <= 0xDFFF:
                return chr(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)), at + 11
        return chr(code), at + 5

    def hex4(self, at: int) -> int:
        digits = self.text[at : at + 4]
        if len(digits) != 4 or not _HEX.issuperset(digits):
            raise self.fail("invalid \\uXXXX escape", at - 2)
        return int(digits, 16)


def _all_digits(text: str) -> bool:
    return bool(text) and _DIGITS.issuperset(text)


def dumps(
    value: Any,
    *,
    ensure_ascii: bool = True,
    separators: tuple[str, str] | None = None,
    sort_keys: bool = False,
) -> str:
    """``json.dumps(value, ensure_ascii=..., separators=..., sort_keys=...)`` for dicts (string
    keys), lists, tuples, strings, ints, floats, booleans and None; ``TypeError`` for anything
    else."""
    out: list[str] = []
    item, key = separators or (", ", ": ")
    _write(value, out, _Style(_ascii_string if ensure_ascii else _string, item, key, sort_keys))
    return "".join(out)


# json's escapes: a backslash and a quote, the two-character ones, \\u00XX for the other control
# characters; with ensure_ascii also DEL and, through the error handler below, every character
# past ASCII. Each is one str.replace over the whole string, tried only when the string holds it.
_FIRST_ESCAPES = (("\\", "\\\\"), ('"', '\\"'), ("\n", "\\n"), ("\t", "\\t"), ("\r", "\\r"))
_CONTROL_ESCAPES = tuple(
    (chr(code), {"\b": "\\b", "\f": "\\f"}.get(chr(code), f"\\u{code:04x}"))
    for code in range(32)
    if chr(code) not in "\n\t\r"
)
_ERRORS = "pokayokay-json-escape"


def _escape_beyond_ascii(error: UnicodeError) -> tuple[str, int]:
    """``\\uXXXX`` for each character of an unencodable run (a surrogate pair past U+FFFF)."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    out = []
    for char in error.object[error.start : error.end]:
        code = ord(char)
        if code > 0xFFFF:
            code -= 0x10000
            out.append(f"\\u{0xD800 | (code >> 10):04x}\\u{0xDC00 | (code & 0x3FF):04x}")
        else:
            out.append(f"\\u{code:04x}")
    return "".join(out), error.end


codecs.register_error(_ERRORS, _escape_beyond_ascii)


def _string(text: str) -> str:
    for char, escape in _FIRST_ESCAPES:
        if char in text:
            text = text.replace(char, escape)
    if not text.isprintable():  # the control characters are among the characters it flags
        for char, escape in _CONTROL_ESCAPES:
            if char in text:
                text = text.replace(char, escape)
    return '"' + text + '"'


def _ascii_string(text: str) -> str:
    text = _string(text)
    if not text.isascii():
        text = text.encode("ascii", _ERRORS).decode("ascii")
    if "\x7f" in text:
        text = text.replace("\x7f", "\\u007f")
    return text


class _Style:
    """How :func:`dumps` writes: the string encoder, the separators, keys sorted or not."""

    __slots__ = ("encode", "item", "key", "sort")

    def __init__(self, encode: Any, item: str, key: str, sort: bool) -> None:
        self.encode, self.item, self.key, self.sort = encode, item, key, sort


def _write(value: Any, out: list[str], style: _Style) -> None:
    if isinstance(value, str):
        out.append(style.encode(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(int.__repr__(value))
    elif isinstance(value, float):
        out.append(_float(value))
    elif isinstance(value, dict):
        out.append("{")
        items = sorted(value.items()) if style.sort else value.items()
        for n, (key, item) in enumerate(items):
            if not isinstance(key, str):
                raise TypeError(f"keys must be str, not {type(key).__name__}")
            if n:
                out.append(style.item)
            out.append(style.encode(key))
            out.append(style.key)
            _write(item, out, style)
        out.append("}")
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for n, item in enumerate(value):
            if n:
                out.append(style.item)
            _write(item, out, style)
        out.append("]")
    else:
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _float(value: float) -> str:
    if value != value:
        return "NaN"
    if value == float("inf"):
        return "Infinity"
    if value == -float("inf"):
        return "-Infinity"
    return float.__repr__(value)


def decode(data: bytes) -> str:
    """UTF-8 bytes as text, each byte that is not UTF-8 read as U+FFFD (as Node's decoder, Claude
    Code's, reads a file that is not UTF-8): a payload with one bad byte is still every other
    character of itself, never a payload refused whole (docs/decisions/0152)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("utf-8", "replace")


# A lone UTF-16 surrogate can reach a payload: Claude Code cuts a long output by JavaScript string
# length, which can split an emoji's pair, and JSON.stringify writes the half left as ``\udXXX``
# (it never writes a surrogate as raw bytes: its output is well-formed UTF-8). Python keeps the
# half as a lone code point that no UTF-8 writer (SQLite, a file) can encode, so the record
# holding it failed whole. Two scans of the bytes first (about 1 ms a MB); a walk only on a hit.


def may_hold_surrogates(data: bytes) -> bool:
    """Whether the JSON bytes ``data`` may hold a surrogate written as an escape (``\\ud800`` to
    ``\\udfff``, either case); False is exact for JSON written as UTF-8 without raw surrogate
    bytes, which is what Claude Code writes."""
    return b"\\ud" in data or b"\\uD" in data


def well_formed(value: Any) -> Any:
    """``value`` (decoded JSON) with every string and key well-formed Unicode: a surrogate pair
    written as two code points becomes its one character, and a lone surrogate becomes U+FFFD,
    as a UTF-16 decoder replaces it. Every other character is kept as it is."""
    if isinstance(value, str):
        if not any("\ud800" <= ch <= "\udfff" for ch in value):
            return value
        return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    if isinstance(value, dict):
        return {well_formed(key): well_formed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [well_formed(item) for item in value]
    return value
