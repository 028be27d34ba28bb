"""Plain TF-IDF cosine over terms, an alternative recall method kept for calibration and
comparison, as BM25 is (pure; ``pokayokay.relevance.note_index.Index.scores`` with
``method="tfidf"``)."""

from __future__ import annotations

import math
from typing import Protocol

from pokayokay.relevance.analyser import weak_terms
from pokayokay.relevance.concepts import term_weight
from pokayokay.relevance.postings import idf


class Index(Protocol):
    """What TF-IDF reads of :class:`pokayokay.relevance.note_index.Index`."""

    norms: list[float]
    weights: list[float]

    def __len__(self) -> int: ...
    def posting(self, term: str) -> list[int]: ...


def tfidf(index: Index, query: dict[str, int]) -> dict[int, float]:
    """The cosine of each document sharing a term with ``query``, times its prior; a query term
    no document holds weighs as the rarest term would (:func:`pokayokay.relevance.postings.idf`,
    as the concepts method weighs terms)."""
    n = len(index)
    if not n or not query:
        return {}
    weak = weak_terms()
    acc: dict[int, float] = {}
    q_norm = 0.0
    for term, qtf in query.items():
        posting = index.posting(term)
        weight = idf(n, len(posting) // 2 if posting else 1) * term_weight(term, weak)
        qw = (1.0 + math.log(qtf)) * weight
        q_norm += qw * qw
        for j in range(0, len(posting), 2):
            d = posting[j]
            acc[d] = acc.get(d, 0.0) + qw * (1.0 + math.log(posting[j + 1])) * weight
    q_norm = math.sqrt(q_norm)
    out = {}
    for d, dot in acc.items():
        norm = index.norms[d]
        if norm > 0 and q_norm > 0:
            out[d] = min(1.0, dot / (norm * q_norm)) * index.weights[d]
    return out
