"""YAML frontmatter read without a YAML library, for the simple blocks the hooks meet (pure).

Rule files, settings files and learnings start with a block of YAML between ``---`` lines.
Loading ruamel.yaml costs a hook about 30 ms (33 modules), more than the rest of a prompt. Nearly
every block pokayokay or a person writes is a flat mapping of plain or quoted scalars, block or
flow lists of them, and one level of nested mappings; :func:`load` reads exactly that subset and
says :data:`UNSUPPORTED` for anything else (anchors, tags, block scalars, multi-line strings,
numbers other than plain integers, dates, duplicate keys, deeper nesting), so that the caller
hands the block to ruamel.yaml, which stays the reference. Within the subset the result equals
``YAML(typ="safe").load(block)`` (YAML 1.2 core schema, double-quoted escapes included); a
property test holds the two equal on generated blocks.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final


class _Unsupported:
    """The block needs a YAML parser (see the module docstring)."""

    def __repr__(self) -> str:
        return "UNSUPPORTED"


UNSUPPORTED: Final = _Unsupported()


class _Out(Exception):
    pass


# Characters that start something other than a plain scalar (YAML 1.2, "c-indicator"), plus
# the quote characters handled on their own.
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
_NULLS = frozenset({"", "~", "null", "Null", "NULL"})
_TRUE = frozenset({"true", "True", "TRUE"})
_FALSE = frozenset({"false", "False", "FALSE"})
_KEY_FIRST = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_KEY_CHARS = _KEY_FIRST | frozenset("0123456789-")
_DIGITS = frozenset("0123456789")


def load(block: str) -> object:
    """The value of a frontmatter block (the text between the ``---`` lines): a dict, or None
    for an empty block; :data:`UNSUPPORTED` when the block is outside the subset."""
    try:
        return _load(block)
    except _Out:
        return UNSUPPORTED


# Line breaks other than "\n" (YAML reads NEL and the Unicode separators as breaks), tabs, a
# byte-order mark inside the text and other control characters: the YAML parser's job.
_AWKWARD = frozenset(
    [chr(c) for c in range(32) if c != 10] + ["\x7f", "\x85", "\u2028", "\u2029", "\ufeff"]
)


def _load(block: str) -> dict[str, object] | None:
    if not _AWKWARD.isdisjoint(block):
        raise _Out
    lines = [line for line in block.split("\n") if not _blank(line)]
    if not lines:
        return None
    out: dict[str, object] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        if line[0] == " ":
            raise _Out  # indented where a key was expected
        key, rest = _key_line(line)
        i += 1
        if rest:
            value: object = _scalar_or_flow(rest)
        else:
            start = i
            while i < len(lines) and (lines[i][0] == " " or lines[i].startswith("- ")):
                i += 1
            value = _nested(lines[start:i])
        if key in out:
            raise _Out  # YAML loaders differ on duplicate keys: let the caller's decide
        out[key] = value
    return out


def _blank(line: str) -> bool:
    stripped = line.strip(" ")
    return not stripped or stripped.startswith("#")


def _key_line(line: str) -> tuple[str, str]:
    """(key, the rest after ``: ``) of a ``key: value`` or ``key:`` line."""
    colon = line.find(":")
    if colon <= 0:
        raise _Out
    key, rest = line[:colon], line[colon + 1 :]
    if key[0] not in _KEY_FIRST or not _KEY_CHARS.issuperset(key) or _resolve(key) != key:
        raise _Out
    if rest and rest[0] != " ":
        raise _Out
    return key, rest.strip(" ")


def _nested(lines: list[str]) -> object:
    """What follows ``key:`` on the next lines: nothing (None), a block list of scalars or a
    mapping of scalars, all at one indentation."""
    if not lines:
        return None
    indent = len(lines[0]) - len(lines[0].lstrip(" "))
    if any(len(line) - len(line.lstrip(" ")) != indent for line in lines):
        raise _Out
    body = [line[indent:] for line in lines]
    if body[0].startswith("-"):
        items = []
        for item in body:
            if not item.startswith("- ") or item[2:].strip(" ") == "":
                raise _Out
            value = _scalar(item[2:].strip(" "))
            items.append(value)
        return items
    if indent == 0:
        raise _Out
    mapping: dict[str, object] = {}
    for line in body:
        key, rest = _key_line(line)
        if not rest or key in mapping:
            raise _Out
        mapping[key] = _scalar_or_flow(rest)
    return mapping


def _scalar_or_flow(raw: str) -> object:
    if raw.startswith("["):
        return _flow_list(raw)
    return _scalar(raw)


def _flow_list(raw: str) -> list[object]:
    """A one-line flow list: quoted scalars (which may hold ``,``, ``:``, ``#`` and brackets,
    as pokayokay writes a learning's ``asked`` phrases) and plain ones (which may not), one
    comma between items, optional spaces, then nothing or a comment."""
    items: list[object] = []
    size = len(raw)
    at = _spaces(raw, 1)
    if raw[at : at + 1] == "]":
        if not _only_comment(raw[at + 1 :]):
            raise _Out
        return items
    while at < size:
        if raw[at] in "\"'":
            end = _quote_end(raw, at)
            items.append(_scalar(raw[at : end + 1], in_flow=True))
            at = end + 1
        else:
            end = at
            while end < size and raw[end] not in ",[]{}":
                end += 1
            part = raw[at:end].strip(" ")
            if not part or ":" in part or "#" in part:
                raise _Out
            items.append(_scalar(part, in_flow=True))
            at = end
        at = _spaces(raw, at)
        if raw[at : at + 1] == "]":
            if not _only_comment(raw[at + 1 :]):
                raise _Out
            return items
        if raw[at : at + 1] != ",":
            raise _Out
        at = _spaces(raw, at + 1)
        if raw[at : at + 1] in ("]", ","):
            raise _Out  # an empty or trailing entry: the YAML parser decides
    raise _Out


def _spaces(raw: str, at: int) -> int:
    while raw[at : at + 1] == " ":
        at += 1
    return at


def _quote_end(raw: str, start: int) -> int:
    """The position of the quote closing the scalar quoted at ``start`` (``''`` is a quote in a
    single-quoted scalar, ``\\"`` in a double-quoted one); raises when it is not closed."""
    first = raw[start]
    end = raw.find(first, start + 1)
    while first == "'" and end >= 0 and raw[end + 1 : end + 2] == "'":
        end = raw.find("'", end + 2)
    while first == '"' and end >= 0 and _escaped(raw, end):
        end = raw.find('"', end + 1)
    if end < 0:
        raise _Out
    return end


def _only_comment(rest: str) -> bool:
    """Nothing, or a comment (a ``#`` after white space) after a closed scalar or list."""
    stripped = rest.strip(" ")
    return not stripped or (stripped.startswith("#") and rest.startswith(" "))


def _scalar(raw: str, *, in_flow: bool = False) -> object:
    first = raw[0]
    if first in "\"'":
        end = _quote_end(raw, 0)
        if not _only_comment(raw[end + 1 :]):
            raise _Out
        body = raw[1:end]
        if first == '"':
            return _unescape(body) if "\\" in body else body
        return body.replace("''", "'")
    if first in _INDICATORS:
        raise _Out
    cut = raw.find(" #")
    if cut >= 0:
        raw = raw[:cut].rstrip(" ")
    if ": " in raw or raw.endswith(":") or "#" in raw:
        raise _Out
    if in_flow and any(ch in raw for ch in "[]{},"):
        raise _Out
    return _resolve(raw)


def _escaped(raw: str, index: int) -> bool:
    """Whether the character at ``index`` follows an odd run of backslashes."""
    run = 0
    while index - run - 1 >= 0 and raw[index - run - 1] == "\\":
        run += 1
    return run % 2 == 1


# YAML 1.2's escapes in double-quoted scalars (section 5.7) and the hex ones' lengths.
_ESCAPES = {
    "0": "\x00", "a": "\x07", "b": "\x08", "t": "\t", "\t": "\t", "n": "\n", "v": "\x0b",
    "f": "\x0c", "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\",
    "N": "\x85", "_": "\xa0", "L": "\u2028", "P": "\u2029",
}  # fmt: skip
_HEX_LENGTHS = {"x": 2, "u": 4, "U": 8}
_HEX = frozenset("0123456789abcdefABCDEF")


def _unescape(body: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        code = body[i + 1 : i + 2]
        if code in _ESCAPES:
            out.append(_ESCAPES[code])
            i += 2
        elif code in _HEX_LENGTHS:
            digits = body[i + 2 : i + 2 + _HEX_LENGTHS[code]]
            if len(digits) != _HEX_LENGTHS[code] or not _HEX.issuperset(digits):
                raise _Out
            point = int(digits, 16)
            if point > 0x10FFFF or 0xD800 <= point <= 0xDFFF:
                raise _Out  # surrogates and beyond Unicode: the YAML parser decides
            out.append(chr(point))
            i += 2 + len(digits)
        else:
            raise _Out  # an unknown escape is an error in YAML
    return "".join(out)


def _resolve(plain: str) -> object:
    """A plain scalar as the YAML 1.2 core schema reads it, within the subset."""
    if plain in _NULLS:
        return None
    if plain in _TRUE:
        return True
    if plain in _FALSE:
        return False
    if plain[0] in _DIGITS:
        if _DIGITS.issuperset(plain) and (plain == "0" or plain[0] != "0"):
            return int(plain)
        raise _Out  # floats, octal, hex, dates, times, versions: the YAML parser decides
    if plain[0] in "+.":
        raise _Out  # +1, .5, .inf, .nan
    return plain
