"""The dense opinion of a project's notes, as recall reads it (decision 0181): each note's
cosine with the prompt from the resident model (:mod:`pokayokay.skills.dense_service`), and the
note it ranks first, which :func:`pokayokay.relevance.note_index.recall` adds to the candidates the
words chose."""

from __future__ import annotations

from pokayokay.relevance.note_documents import Hit

TYPE_CHECKING = False  # no typing import at run time: the prompt hook imports this module
if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Mapping, Sequence

    from pokayokay.relevance.dense.client import Pending
    from pokayokay.relevance.note_index import Index


def dense_notes(pending: Pending | None) -> Callable[[], DenseNotes | None] | None:
    """Recall's reader of the dense opinion asked for (None without one): the notes' cosines,
    read when first needed, once."""
    if pending is None:
        return None
    read: list[DenseNotes | None] = []

    def opinion() -> DenseNotes | None:
        if not read:
            found = pending.notes()
            read.append(None if found is None else DenseNotes(*found))
        return read[0]

    return opinion


class DenseNotes:
    """The dense opinion of an index's notes (decision 0181): each note's cosine with the
    prompt, by id, and the ids in the order the service read the index."""

    __slots__ = ("cosines", "ids")

    def __init__(self, ids: Sequence[str], cosines: Mapping[str, float]) -> None:
        self.ids = ids
        self.cosines = cosines

    def with_first_choice(
        self, chosen: list[Hit], index: Index, shown: Collection[str] = ()
    ) -> list[Hit]:
        """``chosen`` and, when they lack it, the note the model ranks first
        (:meth:`first_choice`): the gates fitted with the opinion judge it like the others."""
        first = self.first_choice(index, shown)
        if first is None or any(h.doc.id == first.doc.id for h in chosen):
            return chosen
        return [*chosen, first]

    def first_choice(self, index: Index, shown: Collection[str] = ()) -> Hit | None:
        """The note the model ranks first among those recall may add on its own (not an
        automatic fix, not shown in this session), as a hit at score 0; None when the index
        is not the one the service read (its note at that place has another id)."""
        from pokayokay.relevance.dense.texts import top_of

        left = {i: v for i, v in self.cosines.items() if i not in shown}
        while (best := top_of(left)) is not None:
            at = self.ids.index(best)
            if at >= len(index) or index.doc(at).id != best:
                return None
            doc = index.doc(at)
            if doc.kind != "fix":
                return Hit(doc, 0.0, at)
            del left[best]  # an automatic fix never speaks on the model's word alone
        return None
