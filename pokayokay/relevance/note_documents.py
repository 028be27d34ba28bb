"""What recall shows: a note (a learning, a decision, a past fix) and its score for a prompt
(pure; ``pokayokay.relevance.note_index`` indexes and ranks them and re-exports both)."""

from __future__ import annotations

TYPE_CHECKING = False  # no typing import at run time: the prompt hook imports this module
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any


class Document:
    """One recallable note: a learning, a Key Decisions entry or a past fix.

    ``text`` is what the block shows; ``search`` what is matched (``text`` when empty);
    ``label`` a short tag shown before the text (a learning's category); ``weight`` a prior
    multiplied into the score (at most 1). ``clean`` says that ``text`` already went through
    :func:`safe_text` (the sources do that when they read a file): the block then uses it as it
    is, which keeps ``pokayokay.safety.sanitize`` off the prompt path. ``asked``: how a teammate
    might ask for the note (a learning's ``asked`` phrases), each phrase's terms a line
    (:func:`pokayokay.relevance.asked.phrase_terms`), "" without them. What is matched then
    includes them, and the note is judged by the gate fitted on notes that have them (decision
    0175), which also asks how much of the prompt one phrase says (decision 0177).
    """

    __slots__ = ("id", "kind", "label", "text", "search", "weight", "clean", "asked")

    def __init__(
        self,
        id: str,
        kind: str,
        text: str,
        *,
        label: str = "",
        search: str = "",
        weight: float = 1.0,
        clean: bool = False,
        asked: str = "",
    ) -> None:
        self.id = id
        self.kind = kind
        self.label = label
        self.text = text
        self.search = search or text
        self.weight = min(1.0, max(0.0, weight))
        self.clean = clean
        self.asked = asked

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> Document:
        """A document from its cached row ``[id, kind, label, text, weight, clean, asked]`` (a
        cache file's row holds the term counts between ``clean`` and ``asked``)."""
        doc_id, kind, label, text, weight, clean = row[:6]
        return cls(
            str(doc_id),
            str(kind),
            str(text),
            label=str(label),
            weight=float(weight),
            clean=clean is True,
            asked=row[-1] if isinstance(row[-1], str) else "",
        )

    def __repr__(self) -> str:
        return f"Document({self.id!r}, {self.kind!r}, {self.text[:40]!r})"


def clamped_weights(weights: list[float]) -> list[float]:
    """A new list of each weight in [0, 1], as :class:`Document` clamps it (``min(1.0,
    max(0.0, w))``: a NaN or -0.0 becomes 0.0). Weights are priors in (0, 1]: then the list is
    copied as it is, after three passes in C instead of two calls per weight (a third of a
    millisecond a prompt at 2,000 learnings). A NaN makes the sum a NaN; an infinity fails the
    bounds."""
    if weights:
        total = sum(weights)
        if min(weights) > 0.0 and max(weights) <= 1.0 and total == total:
            return list(weights)  # each w: max(0.0, w) is w, min(1.0, w) is w or an equal 1.0
    return [min(1.0, max(0.0, w)) for w in weights]


class Hit:
    """A document and its score for one query (``at``: its position in the index, if known)."""

    __slots__ = ("doc", "score", "at")

    def __init__(self, doc: Document, score: float, at: int = -1) -> None:
        self.doc = doc
        self.score = score
        self.at = at

    def __repr__(self) -> str:
        return f"Hit({self.doc.id!r}, {self.score:.3f})"
