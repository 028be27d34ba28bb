"""Recall's scorer: which of a project's notes are similar to a prompt, and which of them speak
(the fenced block that says so is :mod:`pokayokay.recall.block`'s).

Pure: documents in, ranked results and text out; no file, clock or environment is read here
(``pokayokay.recall.sources`` gathers the documents, ``pokayokay.hooks.recall`` is the hook).

Method (``fused``, decision 0200), entirely offline: the notes the concept scorer below lets
speak, ranked by standard retrieval's opinion — each note's BM25 share of the prompt's weight
(:mod:`pokayokay.relevance.bm25`, over the same terms, bigrams and concepts) — plus
``FUSED_CONCEPTS`` of the concept scorer's own score. On the twenty blind splits the note
expected ranks first for 0.86 of the prompts (with the notes' phrases; 0.80 by the concept score
alone) and 0.77 without them (0.72).

The concept scorer (``concepts``, the method alone until decision 0200; it and its factors
are :mod:`pokayokay.relevance.note_scores`'s):

* Features: terms — words split at non-letters and at camelCase boundaries (an identifier also
  counts as a whole), short letter+digit words kept whole (``s3``, ``k8s``), numbers and stop
  words dropped, abbreviations folded (``db`` → ``database``), a light suffix stemmer — plus
  bigrams of adjacent terms and the software concepts the text evokes
  (:mod:`pokayokay.relevance.concepts`: "styles" and "CSS modules" both evoke ``~style``, "upload a
  2 GB video" evokes ``~upload``, ``~large`` and ``~video``).
* Weights: ``(1 + ln tf) · idf`` with ``idf = ln((N + 1) / (df + 1)) + 1``; generic words
  ("add", "test", "error" …) weigh :data:`~pokayokay.relevance.analyser.WEAK_FACTOR` of it, bigrams
  :data:`~pokayokay.relevance.concepts.BIGRAM_FACTOR`; a prompt term no note contains weighs
  ``UNKNOWN_FACTOR`` of the rarest known term (a paraphrase says much the note does not).
* Score: the better of two cosines — over words (terms and bigrams) and over concepts — plus
  ``BOTH_SHARE`` of the other, times the note's prior (``Document.weight``: 0.9 for a
  low-confidence learning, 0.85 for an automatic past fix). Evidence is counted in pieces of
  the prompt (a concept, the words that evoke it and those words matched as themselves are one
  piece; a weak word or a bigram is none; an ambiguous word alone — "total", "image",
  "search" — or a word inside a path or an identifier half of one; a phrase of the table two):
  a note backed by fewer than ``MIN_EVIDENCE`` pieces scores ``THIN_EVIDENCE_FACTOR``
  of that, and one backed by less than one piece ``NO_EVIDENCE_FACTOR``. A note whose
  *plain* pieces (words not only in paths or identifiers, concepts a plain word evokes) are
  fewer than two, none of them a word rare among the notes, is not scored at all
  (:mod:`pokayokay.relevance.evidence`, the rule skill suggestion shares). In a corpus of
  ``MIN_DENSE_DOCS`` notes or more, a concept more than ``DENSE_CONCEPT`` of them evoke
  is left out of the prompt's concepts.

Calibration: ``tests/recall/test_recall_eval.py`` (``python tests/helpers/recall_eval.py`` prints
every set); how :data:`FLOOR` and the factors were chosen, round by round, is in
``docs/design/recall-calibration.md``; the gates since, in ``docs/decisions/``.
``concepts``, ``tfidf`` (the plain cosine over terms) and ``bm25`` stay available for
comparison.

Only scores at or above :data:`FLOOR` are candidates: one note by default, a second only when
nearly as strong and about something else, an automatic past fix never on one piece
(:func:`pokayokay.relevance.evidence.show_less`); then the relevance gate (decision 0070,
:mod:`pokayokay.relevance.gate`) decides whether each still speaks. The block that shows them is
:mod:`pokayokay.recall.block`'s.
"""

from __future__ import annotations

import math

from pokayokay.relevance.analyser import MAX_QUERY_CHARS, weak_terms
from pokayokay.relevance.asks import edits_docs, explains_code, message_content
from pokayokay.relevance.concepts import (
    CONCEPT_PREFIX,
    features,
    query_features,
    term_weight,
)
from pokayokay.relevance.evidence import show_less
from pokayokay.relevance.note_documents import Document as Document
from pokayokay.relevance.note_documents import Hit as Hit
from pokayokay.relevance.note_documents import clamped_weights
from pokayokay.relevance.note_scores import MIN_EVIDENCE, concept_scores, fused_scores
from pokayokay.relevance.postings import idf as term_idf
from pokayokay.relevance.postings import packed_posting, unpacked_posting
from pokayokay.relevance.symptoms import speaks_of

TYPE_CHECKING = False  # no typing import at run time: the prompt hook imports this module
if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
    from typing import Any, Protocol

    from pokayokay.relevance.concepts import Query
    from pokayokay.relevance.dense_notes import DenseNotes
    from pokayokay.relevance.gate import Gate

    class Rows(Protocol):  # the documents' rows: a list, or a reader of the cache file's tail
        def __len__(self) -> int: ...
        def __getitem__(self, i: int, /) -> str: ...

    class PackedPostings(Protocol):  # a cache file's postings, read a bucket at a time (cache_io)
        def get(self, term: str, /) -> bytes | None: ...
        def terms(self) -> list[str]: ...

# How recall ranks (decision 0200): BM25's share of the prompt's weight plus FUSED_CONCEPTS of
# the concept scorer's cosine ("fused"); "concepts", "tfidf" and "bm25" are kept for comparison.
METHOD = "fused"
# Bumped whenever tokenisation, weights or document scores change: cached indexes are rebuilt.
ANALYSIS_VERSION = 9  # 9: a learning row carries its phrases' terms (0177)
# The layout of Index.to_data (4: number columns as lists, not text to parse; 5: a document's
# row ends with its ``asked`` flag; 6: with its ``asked`` phrases' terms instead, decision 0177;
# 7: a posting packed as unsigned 32-bit integers, read in C, decision 0187).
INDEX_FORMAT = 7
# The fused score a note needs to be a candidate; the gate then decides (decision 0200; 0.20 of
# the concept scorer's cosine until then, 0.28 until decision 0197).
FLOOR = 0.05
# One note by default, a second only when nearly as strong and about something else
# (pokayokay.relevance.evidence.show_less).
TOP_K = 2
# At most this many automatic past fixes among the hits, unless nothing else qualifies.
MAX_FIXES = 1
# How many candidates above the floor are looked at beyond TOP_K (fixes set aside, notes shown).
MAX_CANDIDATES = 12
# A note already injected in this session comes back only when the prompt is about it again
# (also the floor for a prompt the code or text at hand answers). On the fused scale since
# decision 0200: 0.30 lets through the same share of candidates, about 10 %, as 0.6 of the
# concept score did on the labelled and blind sets (the two rules agree on 94 % of them).
REPEAT_FLOOR = 0.30
# A note under this share of the best one reads the prompt worse: left out (see recall()).
RELATIVE_FLOOR = 0.5
# A truncated entry keeps at least this many characters of text, else it is dropped.
MIN_ENTRY_CHARS = 40
# How many candidates below the floor `pokayokay recall --json` reports.
NEAR_MISSES = 3


KINDS = ("learning", "decision", "fix")

# --------------------------------------------------------------------------------------------
# Documents and the index


_STR, _BYTES = frozenset({str}), frozenset({bytes})
_INT, _FLOAT = frozenset({int}), frozenset({float})


class Index:
    """An inverted index over documents, serialisable to plain JSON data for the cache.

    ``postings`` maps a term to a flat list ``[doc, tf, doc, tf, ...]``; ``norms`` holds each
    document's TF-IDF vector length, ``lengths`` its number of terms (for BM25), ``weights`` its
    prior. Loaded from the cache, a posting stays the text it was saved as until a query needs
    that term, and a document until it is shown: a prompt touches a handful of terms and at
    most a few documents, while parsing all of them would cost more than the whole query.
    """

    __slots__ = (
        "_docs", "_rows", "lengths", "norms", "cnorms", "postings", "weights", "packed",
        "rare_from",
    )  # fmt: skip

    def __init__(
        self,
        docs: list[Document | None],
        lengths: list[int],
        norms: list[float],
        postings: dict[str, list[int] | bytes],
        weights: list[float],
        rows: Rows | None = None,
        cnorms: list[float] | None = None,
        packed: PackedPostings | None = None,
        rare_from: float | None = None,
    ) -> None:
        self._docs = docs
        self._rows = rows
        self.lengths = lengths
        self.norms = norms
        self.cnorms = cnorms if cnorms is not None else [0.0] * len(norms)
        # every term's posting when built; the terms a query looked up when read from a cache
        # file, whose ``packed`` postings hold the rest (and whose ``rare_from`` IDF was saved)
        self.postings = postings
        self.weights = weights
        self.packed = packed
        self.rare_from = rare_from

    @classmethod
    def build(
        cls, docs: Sequence[Document], counts: Sequence[dict[str, int]] | None = None
    ) -> Index:
        """Index ``docs``; ``counts`` (their term counts, in order) saves re-analysing them."""
        docs = list(docs)
        if counts is None:
            counts = [features(doc.search) for doc in docs]
        postings: dict[str, list[int]] = {}
        lengths: list[int] = []
        for i, doc_counts in enumerate(counts):
            lengths.append(sum(doc_counts.values()))
            for term, tf in doc_counts.items():
                postings.setdefault(term, []).extend((i, tf))
        n = len(docs)
        weak = weak_terms()
        idf = {t: term_idf(n, len(p) // 2) * term_weight(t, weak) for t, p in postings.items()}
        norms, cnorms = [], []
        for doc_counts in counts:
            words = concepts = 0.0
            for t, tf in doc_counts.items():
                w = ((1.0 + math.log(tf)) * idf[t]) ** 2
                if t.startswith(CONCEPT_PREFIX):
                    concepts += w
                else:
                    words += w
            norms.append(math.sqrt(words))
            cnorms.append(math.sqrt(concepts))
        weights = [d.weight for d in docs]
        return cls(list(docs), lengths, norms, dict(postings), weights, None, cnorms)

    def posting(self, term: str) -> list[int]:
        found = self.postings.get(term)
        if found is None:
            found = self.packed.get(term) if self.packed is not None else None
            if found is None:
                return []
        if isinstance(found, bytes):
            found = self.postings[term] = unpacked_posting(found)
            ids = found[::2]  # checked by min and max in C: a posting may list every note
            if len(found) % 2 or (ids and (max(ids) >= len(self._docs) or min(ids) < 0)):
                raise ValueError(f"inconsistent recall index (term {term!r})")
        return found

    def terms(self) -> list[str]:
        """Every term a note holds (reading every bucket of a cache file's postings: for checks
        and reports, never a prompt)."""
        if self.packed is None:
            return list(self.postings)
        return self.packed.terms()

    def doc(self, i: int) -> Document:
        found = self._docs[i]
        if found is None:
            assert self._rows is not None
            from pokayokay.infra.lean_json import loads  # json's import costs a prompt more
            row = loads(self._rows[i])  # a row read from the cache file may fail: ValueError
            if not (isinstance(row, list) and len(row) == 7):
                raise ValueError("inconsistent recall index (document)")
            found = Document.from_row(row)
            self._docs[i] = found
        return found

    @property
    def docs(self) -> list[Document]:
        return [self.doc(i) for i in range(len(self._docs))]

    def __len__(self) -> int:
        return len(self._docs)

    # -- serialisation (the cache) -----------------------------------------------------------

    def to_data(self) -> dict[str, Any]:
        """Plain data for marshal: the number columns as lists of numbers (loaded natively,
        nothing to parse), documents packed into strings and postings into bytes (read only
        when a query needs them). Not for an index read from a cache file with its postings
        left there (``packed``): :func:`pokayokay.recall.cache_io.save_index` copies those."""
        if self.packed is not None:
            raise ValueError("an index reading its postings from a cache file is copied, not saved")
        import json
        return {
            "format": INDEX_FORMAT,
            "docs": [
                json.dumps(
                    [d.id, d.kind, d.label, d.text, d.weight, d.clean, d.asked], ensure_ascii=False
                )
                for d in self.docs
            ],
            "lengths": [int(n) for n in self.lengths],
            "norms": [float(x) for x in self.norms],
            "cnorms": [float(x) for x in self.cnorms],
            "weights": [float(x) for x in self.weights],
            "rare": self.rare_idf(),
            "postings": {
                t: p if isinstance(p, bytes) else packed_posting(p)
                for t, p in self.postings.items()
            },
        }

    def rare_idf(self) -> float:
        """The IDF from which a word is rare among these notes (saved with the index)."""
        from pokayokay.relevance.note_gating import index_rare_idf

        return index_rare_idf(self)

    @classmethod
    def from_data(cls, data: dict[str, Any], rows: Rows | None = None) -> Index:
        """The index :meth:`to_data` saved; ValueError when the data is not one (an index of
        an earlier format included: the caller rebuilds it). ``rows``: the documents' rows kept
        apart (read from the cache file as they are shown), else ``data["docs"]``. A cache
        file's rows also read its postings, a bucket at a time, when ``data`` has none."""
        postings, docs = data.get("postings"), data.get("docs")
        packed: PackedPostings | None = None
        if postings is None:  # the cache file's: only the terms a query asks for are read
            packed, postings = getattr(rows, "postings", None), {}
            if packed is None:
                raise ValueError("inconsistent recall index (postings)")
        if rows is None and isinstance(docs, list) and set(map(type, docs)) <= _STR:
            rows = docs
        if rows is None:
            raise ValueError("inconsistent recall index (documents)")
        lengths, norms = data.get("lengths"), data.get("norms")
        cnorms, weights = data.get("cnorms"), data.get("weights")
        rare = data.get("rare")
        # Type checks over whole columns run in C (set(map(type, ...))): a prompt loads this.
        if not (
            data.get("format") == INDEX_FORMAT
            and type(rare) is float
            and isinstance(postings, dict)
            and isinstance(lengths, list)
            and isinstance(norms, list)
            and isinstance(cnorms, list)
            and isinstance(weights, list)
            and set(map(type, postings.values())) <= _BYTES
            and set(map(type, lengths)) <= _INT
            and set(map(type, norms)) <= _FLOAT
            and set(map(type, cnorms)) <= _FLOAT
            and set(map(type, weights)) <= _FLOAT
        ):
            raise ValueError("inconsistent recall index")
        if not len(rows) == len(lengths) == len(norms) == len(cnorms) == len(weights):
            raise ValueError("inconsistent recall index (columns)")
        weights = clamped_weights(weights)  # each in [0, 1]
        return cls(
            [None] * len(rows), lengths, norms, postings, weights, rows, cnorms, packed, rare
        )

    # -- scoring --------------------------------------------------------------------------------

    def scores(
        self,
        query: dict[str, int],
        method: str = "tfidf",
        groups: Mapping[str, str] | None = None,
        strength: Mapping[str, float] | None = None,
        names: Collection[str] = (),
        pieces: dict[int, int] | None = None,
    ) -> dict[int, float]:
        """Similarity of every document sharing a term with ``query`` (document index → score);
        ``groups``: the piece of evidence each feature of the prompt stands for, ``names``: the
        terms only in its paths and identifiers (:class:`~pokayokay.relevance.concepts.Query`);
        ``pieces``, when given, receives each scored document's plain pieces (a bit each), and
        :data:`~pokayokay.relevance.note_scores.SILENCED` for a document the evidence rule
        silenced.
        Recall ranks with :data:`METHOD`; ``concepts``, ``tfidf`` and ``bm25`` are kept for
        comparison."""
        if method in ("fused", "concepts"):
            concepts = concept_scores(self, query, groups or {}, strength or {}, names, pieces)
            return fused_scores(self, query, concepts) if method == "fused" else concepts
        if method == "tfidf":
            from pokayokay.relevance.tfidf import tfidf

            return tfidf(self, query)
        if method == "bm25":
            from pokayokay.relevance.bm25 import bm25

            return bm25(self, query)
        raise ValueError(f"unknown recall method {method!r}")

    def ranked(
        self,
        prompt: str,
        *,
        method: str = METHOD,
        query: Query | None = None,
        pieces: dict[int, int] | None = None,
    ) -> Iterator[tuple[int, float]]:
        """``(document index, score)`` of every document sharing a term with ``prompt``, best
        first; equal scores keep document order. No document is read. ``pieces``: as
        :meth:`scores` fills it."""
        query = query or query_features(prompt)
        marks = pieces if pieces is not None else {}
        scored = self.scores(
            query.counts, method, query.groups, query.strength, query.names, marks
        )
        for d in sorted(scored, key=lambda d: (-scored[d], d)):
            yield d, scored[d]

    def search(
        self,
        prompt: str,
        *,
        limit: int = TOP_K + NEAR_MISSES,
        method: str = METHOD,
        floor: float = 0.0,
    ) -> list[Hit]:
        """The best ``limit`` candidates scoring at least ``floor``, best first.

        A candidate whose text repeats a better one's is skipped.
        """
        hits: list[Hit] = []
        seen: set[str] = set()
        for d, score in self.ranked(prompt, method=method):
            if score < floor or len(hits) >= limit:
                break
            doc = self.doc(d)
            key = " ".join(doc.text.casefold().split())
            if key not in seen:
                seen.add(key)
                hits.append(Hit(doc, score))
        return hits


class Result:
    """What recall found for one prompt: ``hits`` (recalled) and ``near_misses`` (below floor)."""

    __slots__ = ("hits", "near_misses", "floor")

    def __init__(self, hits: list[Hit], near_misses: list[Hit], floor: float) -> None:
        self.hits, self.near_misses, self.floor = hits, near_misses, floor


def recall(
    index: Index,
    prompt: str,
    *,
    floor: float = FLOOR,
    k: int = TOP_K,
    method: str = METHOD,
    near_misses: int = 0,
    shown: Collection[str] = (),
    repeat_floor: float = REPEAT_FLOOR,
    gate: Gate | bool = True,
    dense: Callable[[], DenseNotes | None] | None = None,
) -> Result:
    """The top ``k`` documents at or above ``floor`` for ``prompt``; with ``near_misses``, also
    that many of the best below it (only those documents are read from the index).

    Manners: a note scoring less than :data:`RELATIVE_FLOOR` of the best one is left out (an
    automatic fix's score never sets the bar for the user's notes); at most :data:`MAX_FIXES`
    automatic past fix among the hits unless nothing else clears the floor (a fix also scores
    :data:`~pokayokay.recall.sources.FIX_WEIGHT` of its similarity, so at equal relevance the
    user's notes come first), and only when the prompt speaks of its failure
    (:mod:`pokayokay.relevance.symptoms`); a document in ``shown`` (already injected in this
    session), or any note for a prompt explaining the code at hand or editing documentation
    (:mod:`pokayokay.relevance.asks`), comes back only when it scores ``repeat_floor``.
    ``gate``: the decision to speak over the notes left (:mod:`pokayokay.relevance.note_gating`):
    ``True`` the fitted one, ``False`` none. ``dense``: see
    :mod:`pokayokay.relevance.dense_notes`."""
    above: list[Hit] = []
    near: list[Hit] = []
    seen: set[str] = set()
    query = query_features(prompt)
    asks = prompt[:MAX_QUERY_CHARS].lower()
    if answered := explains_code(asks) or edits_docs(asks) or message_content(asks) is not None:
        floor = max(floor, repeat_floor)  # the code or text answers: a clear match
    pieces: dict[int, int] = {}  # each document's plain pieces of the prompt, a bit each
    masks: dict[int, int] = {}  # ... by hit
    runners: list[float] = []  # every score looked at: the gate's margins to the runner-up
    for d, score in index.ranked(prompt, method=method, query=query, pieces=pieces):
        runners.append(score)
        is_above = score >= floor
        if is_above and len(above) >= k + MAX_CANDIDATES:
            if not near_misses:
                break
            continue
        if not is_above and len(near) >= near_misses:
            break
        doc = index.doc(d)
        key = " ".join(doc.text.casefold().split())
        if key in seen:
            continue
        seen.add(key)
        if is_above and doc.id in shown and score < repeat_floor:
            continue
        hit = Hit(doc, score, d)
        masks[id(hit)] = max(pieces.get(d, 0), 0)
        (above if is_above else near).append(hit)
    # the best k, with at most MAX_FIXES fixes among them unless nothing else qualifies
    fixes = [h for h in above if h.doc.kind == "fix" and speaks_of(h.doc.text, query)]
    room = MAX_FIXES if any(h.doc.kind != "fix" for h in above) else k
    allowed = {id(h) for h in fixes[:room]}
    chosen = [h for h in above if h.doc.kind != "fix" or id(h) in allowed][:k]
    if len(chosen) > 1:  # a note far below the best one reads the prompt worse: left out
        best = max(h.score for h in chosen)
        notes = max((h.score for h in chosen if h.doc.kind != "fix"), default=best)
        chosen = [
            h
            for h in chosen
            if h.score >= RELATIVE_FLOOR * (best if h.doc.kind == "fix" else notes)
        ]
    chosen.sort(key=lambda h: (-h.score, h.doc.kind == "fix"))
    chosen = show_less(chosen, [masks[id(h)] for h in chosen], k, MIN_EVIDENCE)
    opinion = dense() if dense is not None else None  # read once the words have ranked
    if opinion is not None and not answered:  # the model's own note, judged like the others
        chosen = opinion.with_first_choice(chosen, index, shown)
    if gate is not False and chosen:
        from pokayokay.relevance.calls import NOTES, calls
        from pokayokay.relevance.fitted import DENSE_KIND, RECALL, speak
        from pokayokay.relevance.note_gating import evidence

        ranked, cosines = chosen, None if opinion is None else opinion.cosines
        found = lambda: evidence(  # noqa: E731
            index, query, prompt, ranked, runners, cosines, calls=calls(prompt, NOTES)
        )
        kind = RECALL if cosines is None else DENSE_KIND[RECALL]
        chosen = speak(gate, kind, ranked, found, lambda hit: bool(hit.doc.asked))
    return Result(chosen, near, floor)


def rank(docs: Iterable[Document], prompt: str, *, method: str = METHOD) -> list[Hit]:
    """Every document sharing a term with ``prompt``, best first (for calibration and tests)."""
    index = Index.build(list(docs))
    return index.search(prompt, limit=len(index), method=method)
