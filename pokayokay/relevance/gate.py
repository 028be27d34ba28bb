"""The decision to speak: whether a candidate note or skill, ranked first by its scorer, is
worth the model's attention (issue 23, item 2).

Pure: values in, values out. A scorer (:mod:`pokayokay.relevance.note_index`,
:mod:`pokayokay.relevance.skill_match`) ranks; for its few best candidates it states the
:class:`Evidence` it already holds, and a :class:`Gate` — logistic regression over a handful of
features, its coefficients fitted by ``scripts/fit_relevance_gate.py`` on the training split
and frozen in ``gate_recall.json`` / ``gate_skills.json`` beside this module — turns it into a
probability. A candidate speaks when that probability reaches the gate's threshold (chosen on
the training split for precision first). Evaluation is a dot product and one ``exp``: no
numpy, nothing to import on the prompt path.

Features (:data:`FEATURES`), each from what the scorer produced or from the corpus itself:

* ``score`` — the scorer's own score;
* ``margin`` — its lead over the runner-up (0 for a candidate behind another);
* ``rare`` — how many of the prompt's words it holds are rare in the corpus: their IDF is above
  at least the median IDF of the corpus's word occurrences (:func:`rare_idf`), no hand-made list;
* ``names_only`` — 1 when every prompt word it holds was found only inside a path, a file name
  or an identifier (where a word says where, not what);
* ``coverage`` — the share of the prompt's content words (or pieces of evidence) it holds;
* ``length`` — ``ln(1 + n)`` of the prompt's content words;
* ``rare_share`` — the share of the prompt's rare units it holds (``rare`` counts them, which
  grows with the prompt's length; this does not; decision 0116);
* ``asked_share`` — for a note carrying how a teammate might ask for it (decision 0175), the
  largest share of the prompt's content units that one of those phrases holds
  (:func:`asked_share`): a prompt said much like one of them, not words scattered over the
  note. 0 for a note without them, and for every skill: skill suggestion keeps no phrase's
  terms apart, as the feature did not win there (decision 0177);
* ``bm25`` — for a note, the share of the prompt's weight its BM25 score covers
  (:func:`pokayokay.relevance.bm25.shares`): standard retrieval's opinion beside the concept
  scorer's. Only the gates for notes carrying phrases weigh it; it won only there (decision
  0194). 0 for every skill;
* ``calls`` — how likely the prompt is to call for a note (or a skill) at all, whatever the
  candidate: a learned prompt-level opinion (:mod:`pokayokay.relevance.calls`, decision 0195)
  that a tiny literal edit or a quick factual question calls for nothing, however well its
  words match;
* ``named_share`` — the share of the prompt words it holds that were found only inside a path,
  a file name or an identifier: ``names_only`` by degrees (decision 0201). A prompt naming a
  note's file or function to do something else there ("fix the typo in `InvoiceMailer`")
  matches mostly by the name; one about the note's subject, by its plain words too;
* ``body_share`` — for a skill, the share of the prompt words it holds that only its
  ``SKILL.md`` body holds, not its name, description or phrases (decision 0205): a body word is
  weaker evidence than a description's. 0 for every note.

With a dense opinion (``pokayokay[dense]``, :mod:`pokayokay.relevance.dense`, decision 0181),
three more (:data:`DENSE_FEATURES`): the model's cosine between the prompt and the candidate,
its lead over the best cosine of any other, and whether the model ranks it first. A gate fitted
with them (``gate_<kind>_dense.json``) judges a prompt the resident model answered for; the
lexical gates judge every other (no service, or no answer in time).

One coefficient set per kind is shipped, ``gate_<kind>.json`` (:mod:`pokayokay.relevance.fitted`).

Show less, better (:func:`select`): one candidate by default; a second only when it passes
the gate too, its probability is at least :data:`NEARLY` of the first's, and it holds words
the first does not (it is about something else).
"""

from __future__ import annotations

import math

from pokayokay.infra import Value

TYPE_CHECKING = False  # no typing import at run time: the prompt hook imports this module
if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Sequence

FEATURES = (
    "score", "margin", "rare", "names_only", "coverage", "length", "rare_share", "asked_share",
    "bm25", "calls", "named_share", "body_share",
)  # fmt: skip
DENSE_FEATURES = ("cosine", "cosine_lead", "cosine_top")
# A second candidate speaks only at this share of the first one's probability, or more.
NEARLY = 0.9
# At most this many terms are read to estimate the corpus's rare-word IDF (bounded work).
RARE_SAMPLE = 1000
MAX_SHOWN = 2


# Slotted classes, not dataclasses: this module is on the prompt hook's path, where importing
# dataclasses (and inspect behind it) costs more than the whole decision (``Value``: 0154).
class Evidence(Value):
    """What a scorer knows about one candidate for one prompt (a value: never changed).

    ``matched``: the prompt's content units (words, or pieces of evidence) the candidate holds;
    ``rare``: the prompt's units rare in the corpus; ``named``: those found only in paths,
    file names or identifiers; ``units``: how many content units the prompt has; ``asked``: the
    share of them one way of asking for the candidate holds (:func:`asked_share`); ``dense``:
    the dense opinion's three features; ``bm25``: the note's BM25 share (decision 0194);
    ``calls``: how likely the prompt is to call for a note or a skill at all (decision 0195);
    ``body``: for a skill, the held words only its body holds (decision 0205)."""

    score: float
    runner_up: float
    matched: frozenset[str]
    rare: frozenset[str]
    named: frozenset[str]
    units: int
    asked: float = 0.0
    dense: tuple[float, float, float] | None = None
    bm25: float = 0.0
    calls: float = 0.0
    body: frozenset[str] = frozenset()

    def __repr__(self) -> str:
        dense = self.dense is not None
        shown = zip(FEATURES + DENSE_FEATURES * dense, self.values(dense), strict=True)
        return f"Evidence({', '.join(f'{n}={v:.3f}' for n, v in shown)})"

    def values(self, dense: bool = False) -> tuple[float, ...]:
        """The feature vector, in :data:`FEATURES` order; with ``dense``, then the
        :data:`DENSE_FEATURES` (0 each without an opinion)."""
        if dense:
            return self.values() + (self.dense or (0.0, 0.0, 0.0))
        matched, rare = self.matched, self.rare
        named = len(matched & self.named)  # the held words found only in names
        return (
            self.score,
            max(0.0, self.score - self.runner_up),
            float(len(matched & self.rare)),
            1.0 if matched and named == len(matched) else 0.0,
            len(matched) / self.units if self.units else 0.0,
            math.log1p(self.units),
            len(matched & rare) / len(rare) if rare else 0.0,
            self.asked,
            self.bm25,
            self.calls,
            named / len(matched) if matched else 0.0,
            len(matched & self.body) / len(matched) if matched else 0.0,
        )


class Gate:
    """A fitted logistic model: ``P = 1 / (1 + exp(-(bias + weights · features)))``; a
    candidate speaks at ``threshold`` or above. How it was fitted is kept apart, in its
    provenance file (:func:`pokayokay.relevance.fitted.provenance`): a prompt reads only this."""

    __slots__ = ("weights", "bias", "threshold", "dense")

    def __init__(self, weights: tuple[float, ...], bias: float, threshold: float) -> None:
        self.weights = weights
        self.bias = bias
        self.threshold = threshold
        self.dense = len(weights) == len(FEATURES) + len(DENSE_FEATURES)

    @property
    def features(self) -> tuple[str, ...]:
        return FEATURES + DENSE_FEATURES * self.dense

    @classmethod
    def from_data(cls, data: object) -> Gate:
        """The gate a JSON file holds; ValueError when it is not one."""
        if not isinstance(data, dict):
            raise ValueError("a relevance gate is a JSON object")
        names, weights = data.get("features"), data.get("weights")
        bias, threshold = data.get("bias"), data.get("threshold")
        names = list(names or ())
        if names not in (list(FEATURES), list(FEATURES + DENSE_FEATURES)) or not isinstance(
            weights, list
        ):
            raise ValueError(f"a relevance gate's features are {FEATURES}, then {DENSE_FEATURES}")
        numbers = [*weights, bias, threshold]
        if len(weights) != len(names) or not all(
            isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)
            for x in numbers
        ):
            raise ValueError("a relevance gate's weights, bias and threshold are numbers")
        return cls(
            tuple(float(w) for w in weights),
            float(bias),  # type: ignore[arg-type]
            float(threshold),  # type: ignore[arg-type]
        )

    def to_data(self) -> dict[str, object]:
        return {
            "features": list(self.features),
            "weights": list(self.weights),
            "bias": self.bias,
            "threshold": self.threshold,
        }

    def probability(self, evidence: Evidence) -> float:
        values = evidence.values(self.dense)
        z = self.bias + sum(w * x for w, x in zip(self.weights, values, strict=True))
        if z < -60.0:  # exp would overflow; the probability is 0 to double precision
            return 0.0
        return 1.0 / (1.0 + math.exp(-z))


def select(
    gate: Gate, evidence: Sequence[Evidence], gates: Sequence[Gate] | None = None
) -> list[int]:
    """The positions (into ``evidence``, best-ranked first) of the candidates that speak: the
    first that passes the gate, and a second only when it passes too, is nearly as probable
    (:data:`NEARLY`) and holds a word the first does not. ``gates``: the gate of each candidate
    when they differ (a note with ``asked`` phrases has its own, decision 0175), else ``gate``."""
    chosen: list[int] = []
    first = 0.0
    for i, found in enumerate(evidence):
        judge = gates[i] if gates is not None else gate
        p = judge.probability(found)
        if p < judge.threshold:
            continue
        if not chosen:
            chosen.append(i)
            first = p
            continue
        if p >= NEARLY * first and not found.matched <= evidence[chosen[0]].matched:
            chosen.append(i)
        if len(chosen) >= MAX_SHOWN:
            break
    return chosen


def asked_share(pieces: Sequence[Collection[str]], asked: str) -> float:
    """The largest share of ``pieces`` (a prompt's content units, each the terms that stand for
    it) that one way of asking for a candidate holds: ``asked`` has each way's terms, separated
    by spaces, a line each (:func:`pokayokay.relevance.asked.phrase_terms`); 0 without any."""
    if not asked or not pieces:
        return 0.0
    best = 0
    for line in asked.split("\n"):
        terms = set(line.split())
        best = max(best, sum(1 for piece in pieces if not terms.isdisjoint(piece)))
    return best / len(pieces)


def rare_idf(dfs: Iterable[int], n: int) -> float:
    """The IDF at or above which a word is rare in a corpus of ``n`` documents whose terms have
    the document frequencies ``dfs``: the median IDF of the corpus's word occurrences (each term
    counted once per document holding it), over at most :data:`RARE_SAMPLE` terms taken at an
    even stride. ``idf = ln((n + 1) / (df + 1)) + 1``, as the scorers compute it."""
    counts = [df for df in dfs if df > 0]
    if not counts or n <= 0:
        return math.inf
    stride = max(1, len(counts) // RARE_SAMPLE)
    sample = sorted(counts[::stride])
    half, seen = sum(sample) / 2.0, 0
    median = sample[-1]
    for df in sample:  # most terms are rare: from the rarest up, the median occurrence's df
        seen += df
        if seen >= half:
            median = df
            break
    return math.log((n + 1) / (median + 1)) + 1.0
