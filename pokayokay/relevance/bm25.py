"""BM25, the alternative recall method kept for calibration and comparison (pure)."""

from __future__ import annotations

import math
from typing import Protocol

from pokayokay.relevance.analyser import weak_terms
from pokayokay.relevance.concepts import term_weight


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
    n = len(index)
    if not n or not query:
        return {}
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
            d, tf = posting[j], posting[j + 1]
            dl = index.lengths[d]
            sat = tf * (BM25_K1 + 1) / (tf + BM25_K1 * (1 - BM25_B + BM25_B * dl / avgdl))
            acc[d] = acc.get(d, 0.0) + idf * sat / (BM25_K1 + 1)
    if best <= 0:
        return {}
    return {d: min(1.0, s / best) * index.weights[d] for d, s in acc.items()}
