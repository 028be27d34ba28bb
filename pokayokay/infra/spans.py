"""Spans of a text: found in its lower case, and replaced (pure, no imports: ``infra/private``
runs it on the hook paths, the spool's included).

- :func:`lower_in_place`: a lower case in which every index is the same place in the text, to
  find a tag or a word case-insensitively and cut the text itself there;
- :func:`replace_spans`: the one splice of a text by ``(begin, end)`` spans: ``<private>``
  spans and stray tags (:mod:`pokayokay.infra.private`); ``relevance.scan.replace_spans`` is the
  same procedure for the prompt's scans (a pattern's ``sub`` over its ``finditer`` spans).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable


def replace_spans(text: str, spans: Iterable[tuple[int, int]], by: str) -> str:
    """``text`` with each of ``spans`` (in order, not overlapping) replaced by ``by``."""
    parts: list[str] = []
    pos = 0
    for begin, end in spans:
        parts.append(text[pos:begin])
        parts.append(by)
        pos = end
    parts.append(text[pos:])
    return "".join(parts)


def lower_in_place(text: str) -> str:
    """``text`` in lower case, one character for one, so that an index found in it is the same
    place in ``text``. ``str.lower`` turns the dotted capital I (U+0130) into two characters, so
    every index after one would point further on in ``text``; such a character is kept as it is
    (it lowers to no single letter a search could be looking for)."""
    lower = text.lower()
    if len(lower) == len(text):  # no character lowers to none, so each lowered to one
        return lower
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
