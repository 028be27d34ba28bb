"""Recall's decision to speak: the :class:`~pokayokay.relevance.gate.Evidence` of the notes
:func:`pokayokay.relevance.note_index.recall` ranked, and the ones the fitted gate lets through (the
one decision of :func:`pokayokay.relevance.fitted.speak`).

Pure: an index and a prompt's features in, positions out. A note's content units are the
prompt's pieces of evidence (:class:`~pokayokay.relevance.concepts.Query`: the words evoking a
concept, the concept and those words matched as themselves are one piece; bigrams and weak
words are none); a piece is rare when one of its words has an IDF above the index's median
word-occurrence IDF (:func:`~pokayokay.relevance.gate.rare_idf`), and named when all its words
were found only inside paths, file names or identifiers of the prompt.
"""

from __future__ import annotations

import math
from itertools import islice, pairwise

from pokayokay.relevance.analyser import MAX_QUERY_CHARS, tokenize, weak_terms
from pokayokay.relevance.concepts import BIGRAM_JOIN, CONCEPT_PREFIX
from pokayokay.relevance.gate import RARE_SAMPLE, Evidence, asked_share, rare_idf
from pokayokay.relevance.postings import posting_length

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from pokayokay.relevance.concepts import Query
    from pokayokay.relevance.note_index import Hit, Index

_TRIM = "`'\"()[]{}<>,;:!?*"
_rare_of: list[tuple[Index, float]] = []  # the last index's rare-word IDF (a prompt has one)


def name_words(prompt: str) -> frozenset[str]:
    """The terms of ``prompt`` found only inside paths, file names or identifiers: a token
    holding ``/``, ``_``, an inner ``.`` or a lower-to-upper case change (``billing/plans.py``,
    ``create_invoice``, ``invoiceTotal``), and nowhere as a plain word."""
    names: set[str] = set()
    plain: set[str] = set()
    for raw in prompt[:MAX_QUERY_CHARS].split():
        token = raw.strip(_TRIM).rstrip(".")
        named = (
            "/" in token
            or "_" in token
            or "." in token
            or any(a.islower() and b.isupper() for a, b in pairwise(token))
        )
        (names if named else plain).update(tokenize(token))
    return frozenset(names - plain)


def index_rare_idf(index: Index) -> float:
    """:func:`~pokayokay.relevance.gate.rare_idf` over the index's words (not its concepts or
    bigrams); a posting still packed is measured, not read."""
    if index.rare_from is not None:  # saved with the index (its postings may not all be read)
        return index.rare_from
    for known, value in _rare_of:
        if known is index:
            return value
    stride = max(1, len(index.postings) // RARE_SAMPLE)
    dfs = [  # an even stride first: rare_idf reads at most RARE_SAMPLE terms anyway
        posting_length(p)
        for t, p in islice(index.postings.items(), 0, None, stride)
        if not t.startswith(CONCEPT_PREFIX) and BIGRAM_JOIN not in t
    ]
    value = rare_idf(dfs, len(index))
    _rare_of[:] = [(index, value)]
    return value


def evidence(
    index: Index,
    query: Query,
    prompt: str,
    hits: Sequence[Hit],
    runners: Sequence[float],
    cosines: Mapping[str, float] | None = None,
    *,
    calls: float,
) -> list[Evidence]:
    """The evidence of each of ``hits`` (ranked notes, each with its document position
    ``Hit.at``); ``runners``: the scores of every candidate the ranking looked at, best first
    (the runner-up of a note is the best score below its own); ``cosines``: the dense opinion
    of every note, by id, when there is one (decision 0181); ``calls``: how likely the prompt
    is to call for a note at all (decision 0195: the shipped model's at a prompt, the fitting
    script's out-of-fold value when it fits)."""
    weak = weak_terms()
    pieces: dict[str, list[str]] = {}  # piece -> the prompt's features standing for it
    for term in query.counts:
        if term in weak or BIGRAM_JOIN in term:
            continue
        pieces.setdefault(query.groups.get(term, term), []).append(term)
    names = name_words(prompt)
    threshold = index_rare_idf(index)
    n = len(index)
    rare: set[str] = set()
    named: set[str] = set()
    for piece, terms in pieces.items():
        words = [t for t in terms if not t.startswith(CONCEPT_PREFIX)]
        for word in words:
            df = len(index.posting(word)) // 2
            if df and math.log((n + 1) / (df + 1)) + 1.0 >= threshold:
                rare.add(piece)
        if words and all(w in names for w in words):
            named.add(piece)
    holders = {t: set(index.posting(t)[::2]) for ts in pieces.values() for t in ts}
    frozen_rare, frozen_named = frozenset(rare), frozenset(named)
    held = list(pieces.values())
    from pokayokay.relevance.bm25 import shares

    bm25 = shares(index, query.counts, [hit.at for hit in hits])
    ranked = None
    if cosines is not None:
        from pokayokay.relevance.dense.texts import opinion_features, ranking

        ranked = ranking(cosines)
    out = []
    for hit, share in zip(hits, bm25, strict=True):
        matched = frozenset(
            piece for piece, terms in pieces.items() if any(hit.at in holders[t] for t in terms)
        )
        # a score equal to the note's own is the note itself or a copy of its text (recall shows
        # one of those): the runner-up is the best score strictly below
        runner = max((s for s in runners if s < hit.score), default=0.0)
        asked = asked_share(held, hit.doc.asked) if hit.doc.asked else 0.0
        dense = None
        if cosines is not None:
            dense = opinion_features(cosines, hit.doc.id, ranked)
        out.append(
            Evidence(
                hit.score, runner, matched, frozen_rare, frozen_named, len(pieces), asked, dense,
                share, calls,
            )
        )
    return out
