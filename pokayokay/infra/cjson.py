"""JSON for the hot paths without importing :mod:`json` (pure; standard library only).

``import json`` also imports :mod:`re` (``json.decoder`` and ``json.scanner`` compile patterns at
import), with ``enum``, ``functools`` and the regex compiler behind it: about 3 ms of a hook that
has 10 ms to start an interpreter. The C accelerator ``_json`` that ``json`` itself uses needs
none of that, so :func:`loads` drives its scanner directly and :func:`dumps` writes the simple
values hooks print (objects, arrays, strings, numbers, booleans, null) with its string encoder.
Both give what ``json.loads`` / ``json.dumps`` (default options) give; where ``_json`` is
missing (an interpreter built without it) they are those functions.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

_WHITESPACE = " \t\n\r"

try:
    import _json
except ImportError:  # pragma: no cover - every CPython build has it
    _json = None  # type: ignore[assignment]


class _Context:
    """What ``_json.make_scanner`` reads of a decoder: ``json.loads``' defaults."""

    def __init__(self) -> None:
        self.strict = True
        self.object_hook = None
        self.object_pairs_hook = None
        self.parse_float = float
        self.parse_int = int
        self.parse_constant = float  # NaN, Infinity, -Infinity, as json.loads reads them
        self.memo: dict[str, str] = {}


_scanner: Any = None


def loads(text: str) -> Any:
    """The value of a JSON document, as ``json.loads(text)``; ``ValueError`` when it is not one
    (leading and trailing JSON whitespace allowed, nothing else around the value)."""
    global _scanner
    if _json is None:  # pragma: no cover
        import json

        return json.loads(text)
    if _scanner is None:
        _scanner = _json.make_scanner(_Context())  # type: ignore[arg-type]
    start = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        value, end = _scanner(text, start)
    except StopIteration as stop:
        raise ValueError(f"not JSON: expecting a value at character {stop.value}") from None
    except (SystemError, ValueError):
        # A malformed document: the scanner reports it with json.decoder's JSONDecodeError,
        # which it finds only when json is imported (else it fails with a SystemError). Only
        # bad input pays for json's import, to get its message.
        import json

        return json.loads(text)
    if text[end:].strip(_WHITESPACE):
        raise ValueError(f"not JSON: extra data at character {end}")
    return value


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
    if _json is None:  # pragma: no cover
        import json

        return json.dumps(
            value, ensure_ascii=ensure_ascii, separators=separators, sort_keys=sort_keys
        )
    out: list[str] = []
    encode = _json.encode_basestring_ascii if ensure_ascii else _json.encode_basestring
    _write(value, out, _Style(encode, separators or (", ", ": "), sort_keys))
    return "".join(out)


class _Style:
    """How :func:`dumps` writes: the string encoder, the separators, keys sorted or not."""

    __slots__ = ("encode", "item", "key", "sort")

    def __init__(self, encode: Callable[[str], str], separators: tuple[str, str], sort: bool):
        self.encode = encode
        self.item, self.key = separators
        self.sort = sort


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
