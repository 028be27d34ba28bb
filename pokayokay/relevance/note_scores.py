"""How a prompt scores the notes of an index (pure): the concept scorer, and the fused ranking
recall uses since decision 0200 (:func:`fused_scores`: BM25's share plus a part of the concept
score, over the notes the evidence rule lets speak).

:class:`pokayokay.relevance.note_index.Index` holds the notes, their postings and norms, and
dispatches :meth:`~pokayokay.relevance.note_index.Index.scores` here; how each method was
chosen is in ``note_index``'s docstring and the decisions it names.
"""

from __future__ import annotations

import math

from pokayokay.relevance.analyser import weak_terms
from pokayokay.relevance.concepts import BIGRAM_JOIN, CONCEPT_PREFIX, term_weight
from pokayokay.relevance.evidence import rare, speaks
from pokayokay.relevance.postings import idf as term_idf

TYPE_CHECKING = False  # no typing import at run time: the prompt hook imports this module
if TYPE_CHECKING:
    from collections.abc import Collection, Mapping

    from pokayokay.relevance.note_index import Index

# The concept scorer's part in the fused score, beside BM25's share (decision 0200: 0, 0.1, 0.25
# and 0.5 tried; 0.25 ranks as well as any on the blind splits held out and keeps the concepts'
# opinion in the score).
FUSED_CONCEPTS = 0.25
# A prompt term no note contains weighs this share of the rarest known term's IDF: a paraphrase
# says much the note does not, and that alone must not push the note away.
UNKNOWN_FACTOR = 0.5
# A note backed by fewer than MIN_EVIDENCE pieces of the prompt's evidence (a concept with its
# words, or a word; bigrams and weak words not counted) scores THIN_EVIDENCE_FACTOR of its cosine.
MIN_EVIDENCE = 2
# The concept cosine counts this share of itself against the word cosine (calibrated: 1.0).
CONCEPT_SHARE = 1.0
# The weaker of the two cosines adds this share of itself (it breaks ties among notes about the
# same concepts).
BOTH_SHARE = 0.25
THIN_EVIDENCE_FACTOR = 0.55
# ... and a note matched on less than one piece (weak words, bigrams, unsupported ambiguous
# words alone) scores this share.
NO_EVIDENCE_FACTOR = 0.25
# A concept more than this share of the notes evoke is left out of a prompt's concepts (in a
# corpus of at least MIN_DENSE_DOCS notes): it says little, and walking its posting costs.
DENSE_CONCEPT = 0.3
MIN_DENSE_DOCS = 100
# The mark Index.scores leaves in ``pieces`` for a document the evidence rule silenced.
SILENCED = -1


def _scale(index: Index, query: dict[str, int]) -> tuple[int, float, frozenset[str]] | None:
    """What the scorer weighs a query's terms by: the number of documents, the idf of a
    term one document holds and the weak terms; None when there is nothing to score (no
    document or an empty query)."""
    n = len(index)
    if not n or not query:
        return None
    return n, term_idf(n, 1), weak_terms()


def concept_scores(
    index: Index,
    query: dict[str, int],
    groups: Mapping[str, str],
    strength: Mapping[str, float],
    names: Collection[str] = (),
    pieces: dict[int, int] | None = None,
) -> dict[int, float]:
    """Two cosines, over words (terms and bigrams) and over concepts; the better one counts,
    scaled down when the note shares fewer than MIN_EVIDENCE words of the prompt, and left
    out when its plain words do not speak (:func:`pokayokay.relevance.evidence.speaks`: two
    plain pieces, or one holding a word rare among the notes)."""
    scale = _scale(index, query)
    if scale is None:
        return {}
    n, rarest, weak = scale
    acc: dict[int, float] = {}
    cacc: dict[int, float] = {}
    evidence: dict[int, int] = {}  # the pieces a document shares: one bit each
    bits: dict[str, int] = {}
    plain_bits = rare_bits = 0  # pieces holding a plain feature; a rare plain word
    q_norm = cq_norm = 0.0
    dense = DENSE_CONCEPT * n
    for term, qtf in query.items():
        posting = index.posting(term)
        concept = term.startswith(CONCEPT_PREFIX)
        if concept and n >= MIN_DENSE_DOCS and len(posting) // 2 > dense:
            continue  # a concept most notes evoke tells them apart no more than a stop word
        weight = term_weight(term, weak)
        idf = (term_idf(n, len(posting) // 2) if posting else rarest * UNKNOWN_FACTOR) * weight
        qw = (1.0 + math.log(qtf)) * idf
        if concept:
            cq_norm += qw * qw
            target = cacc
        else:
            q_norm += qw * qw
            target = acc
        # Evidence is counted in pieces: the words evoking a concept, the concept and those
        # words matched as themselves are one piece; a bigram or a weak word is none.
        piece = "" if term in weak or BIGRAM_JOIN in term else groups.get(term, term)
        bit = bits.setdefault(piece, 1 << len(bits)) if piece else 0
        # a concept counts as plain when a plain word evokes it (a name's words back
        # nothing); a word when it is not only in a path or an identifier
        plain = strength.get(piece, 1.0) >= 1.0 if concept else term not in names
        if bit and posting and plain:
            plain_bits |= bit
            rare_bits |= bit if rare(n, len(posting) // 2) else 0
        once = qw * idf  # a term found once: qw * (1 + ln 1) * idf, the same float
        get, seen = target.get, evidence.get
        for d, tf in zip(posting[::2], posting[1::2], strict=True):
            target[d] = get(d, 0.0) + (once if tf == 1 else qw * (1.0 + math.log(tf)) * idf)
            if bit:
                evidence[d] = seen(d, 0) | bit
    q_norm, cq_norm = math.sqrt(q_norm), math.sqrt(cq_norm)
    weights = {bit: strength.get(piece, 1.0) for piece, bit in bits.items()}
    found_of: dict[int, float] = {}
    speaking: dict[int, bool] = {}
    out = {}
    for d in set(acc) | set(cacc):
        mask = evidence.get(d, 0)
        if mask not in found_of:
            found_of[mask] = sum(w for bit, w in weights.items() if mask & bit)
            backed = sum(w for bit, w in weights.items() if mask & plain_bits & bit)
            speaking[mask] = speaks(backed, bool(mask & plain_bits & rare_bits))
        if not speaking[mask]:  # a path alone, one common word: never speaks (most notes
            if pieces is not None:  # a prompt touches: no score computed for them)
                pieces[d] = SILENCED
            continue
        norm, cnorm = index.norms[d], index.cnorms[d]
        lexical = acc.get(d, 0.0) / (norm * q_norm) if norm > 0 and q_norm > 0 else 0.0
        conceptual = cacc.get(d, 0.0) / (cnorm * cq_norm) if cnorm > 0 and cq_norm > 0 else 0.0
        conceptual *= CONCEPT_SHARE
        best, other = max(lexical, conceptual), min(lexical, conceptual)
        score = min(1.0, best + BOTH_SHARE * other) * index.weights[d]
        found = found_of[mask]
        if found < 1:
            score *= NO_EVIDENCE_FACTOR
        elif found < MIN_EVIDENCE:
            score *= THIN_EVIDENCE_FACTOR
        if score > 0:
            out[d] = score
            if pieces is not None:
                pieces[d] = mask & plain_bits
    return out


def fused_scores(
    index: Index, query: dict[str, int], concepts: dict[int, float]
) -> dict[int, float]:
    """Standard retrieval's order over the notes the evidence rule lets speak (decision
    0200): each note ``concepts`` scores (:func:`concept_scores`' result: a path alone or one
    common word scores none) by its BM25 share of the prompt's weight
    (:func:`pokayokay.relevance.bm25.shares`) plus :data:`FUSED_CONCEPTS` of that score."""
    from pokayokay.relevance.bm25 import shares

    docs = list(concepts)
    found = shares(index, query, docs)
    return {d: share + FUSED_CONCEPTS * concepts[d] for d, share in zip(docs, found, strict=True)}
