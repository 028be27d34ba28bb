"""BM25 over a notes index (pure): :func:`bm25`, the alternative recall method kept for
calibration and comparison, and :func:`shares`, the same share for a few candidates, which the
asked recall gates weigh (decision 0194)."""

from __future__ import annotations

import math

from pokayokay.relevance.analyser import weak_terms
from pokayokay.relevance.concepts import term_weight

TYPE_CHECKING = False  # no typing import at run time: the asked recall gate imports this module
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Protocol

    class Index(Protocol):
        """What BM25 reads of :class:`pokayokay.relevance.note_index.Index`."""

        lengths: list[int]
        weights: list[float]

        def __len__(self) -> int: ...
        def posting(self, term: str) -> list[int]: ...


BM25_K1 = 1.2
BM25_B = 0.75


def bm25(index: Index, query: dict[str, int]) -> dict[int, float]:
    """BM25, divided by what a document matching every query term at once would score:
    the share of the query's weight a document covers (0 to 1)."""
    acc, best = _scored(index, query, None)
    if best <= 0:
        return {}
    return {d: min(1.0, s / best) * index.weights[d] for d, s in acc.items()}


def shares(index: Index, query: dict[str, int], docs: Sequence[int]) -> list[float]:
    """:func:`bm25`'s score of each of ``docs`` (document positions; 0 for one sharing no term
    with ``query``), reading only the postings of the query's terms, as it does."""
    acc, best = _scored(index, query, set(docs))
    if best <= 0:
        return [0.0] * len(docs)
    return [min(1.0, acc[d] / best) * index.weights[d] if d in acc else 0.0 for d in docs]


def _scored(
    index: Index, query: dict[str, int], wanted: set[int] | None
) -> tuple[dict[int, float], float]:
    """Each document's BM25 sum over ``query``'s terms (only those in ``wanted``, unless None),
    and the sum a document matching every term would score."""
    n = len(index)
    if not n or not query or wanted == set():
        return {}, 0.0
    avgdl = (sum(index.lengths) / n) or 1.0
    rarest = math.log(1 + (n - 0.5) / 1.5)
    weak = weak_terms()
    acc: dict[int, float] = {}
    best = 0.0
    for term in query:
        posting = index.posting(term)
        df = len(posting) // 2
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5)) if posting else rarest
        idf *= term_weight(term, weak)
        best += idf
        for j in range(0, len(posting), 2):
            d = posting[j]
            if wanted is not None and d not in wanted:
                continue
            tf, dl = posting[j + 1], index.lengths[d]
            sat = tf * (BM25_K1 + 1) / (tf + BM25_K1 * (1 - BM25_B + BM25_B * dl / avgdl))
            acc[d] = acc.get(d, 0.0) + idf * sat / (BM25_K1 + 1)
    return acc, best
