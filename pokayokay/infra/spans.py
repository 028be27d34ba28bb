"""A text with some of its spans replaced (pure, no imports: ``infra/private`` runs it on the
hook paths, the spool's included).

The one splice of a text by ``(begin, end)`` spans: ``<private>`` spans and stray tags
(:mod:`pokayokay.infra.private`); ``relevance.scan.replace_spans`` is the same procedure for the
prompt's scans (a pattern's ``sub`` over its ``finditer`` spans).
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
