"""``<private>…</private>``: text the user marked as not to be kept (pure, standard library only).

Whatever sits between the tags is never written to disk by pokayokay: every store point (hook
payloads before capture or spooling, ``remember``, the recall cache, chain learnings) passes its
text through :func:`strip_private` first. The span is replaced by :data:`PLACEHOLDER`, so the
text around it still reads. Tags are matched case-insensitively and may carry spaces
(``< private >``); an opening tag that is never closed hides everything after it (a cut-off
paste must not leak its end), and a stray closing tag is dropped.

No imports but :mod:`pokayokay.infra.spans` (itself import-free): the hook runtime and the
spool may call it on every payload.
"""

from __future__ import annotations

from pokayokay.infra.spans import lower_in_place, replace_spans

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

PLACEHOLDER = "[private]"
_WORD = "private"


def _tag_at(lower: str, start: int, closing: bool) -> int:
    """The end of a ``<private>`` (or ``</private>``) tag starting at ``start`` in ``lower``,
    or -1."""
    i = start + 1
    n = len(lower)
    while i < n and lower[i] in " \t":
        i += 1
    if closing:
        if i >= n or lower[i] != "/":
            return -1
        i += 1
        while i < n and lower[i] in " \t":
            i += 1
    if not lower.startswith(_WORD, i):
        return -1
    i += len(_WORD)
    while i < n and lower[i] in " \t":
        i += 1
    return i + 1 if i < n and lower[i] == ">" else -1


def _find(lower: str, start: int, closing: bool) -> tuple[int, int]:
    """The first ``(begin, end)`` of an opening (or closing) tag at or after ``start``."""
    at = lower.find("<", start)
    while at >= 0:
        end = _tag_at(lower, at, closing)
        if end >= 0:
            return at, end
        at = lower.find("<", at + 1)
    return -1, -1


def has_private(text: str) -> bool:
    """True when ``text`` holds a private span (or a stray tag)."""
    return strip_private(text) != text


def strip_private(text: str) -> str:
    """``text`` with every ``<private>…</private>`` span replaced by :data:`PLACEHOLDER`."""
    if not text or _WORD not in text.lower():
        return text
    return _drop_closing(replace_spans(text, _private_spans(lower_in_place(text)), PLACEHOLDER))


def _private_spans(lower: str) -> Iterator[tuple[int, int]]:
    """Each private span of ``lower``, from its opening tag to the end of its closing one (to
    the end of the text when it is never closed: a cut-off paste hides the rest)."""
    pos = 0
    while True:
        begin, end = _find(lower, pos, False)
        if begin < 0:
            return
        close_begin, close_end = _find(lower, end, True)
        if close_begin < 0:
            yield begin, len(lower)  # never closed: the rest is private
            return
        yield begin, close_end
        pos = close_end


def _drop_closing(text: str) -> str:
    """``text`` without its stray closing tags."""
    lower = lower_in_place(text)
    if _WORD not in lower:
        return text
    return replace_spans(text, _closing_tags(lower), "")


def _closing_tags(lower: str) -> Iterator[tuple[int, int]]:
    pos = 0
    while True:
        begin, pos = _find(lower, pos, True)
        if begin < 0:
            return
        yield begin, pos


def strip_private_value(value: Any) -> Any:
    """A JSON value with :func:`strip_private` applied to every string in it (keys included)."""
    if isinstance(value, str):
        return strip_private(value)
    if isinstance(value, dict):
        return {strip_private(k): strip_private_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [strip_private_value(item) for item in value]
    return value


def may_hold_private(data: bytes) -> bool:
    """Cheap test on a raw JSON payload: False means no string in it can hold a tag (``<`` may
    arrive escaped as ``\\u003c``, so only the word is looked for)."""
    return b"private" in data.lower()
