"""What a static-vector opinion adds to recall, measured offline before it is built (issue 23,
item 2; docs/decisions/0133).

    .venv/bin/python scripts/distil_static_vectors.py      # once: build/static/raw.npy
    .venv/bin/python scripts/measure_static_recall.py --dims 128
    .venv/bin/python scripts/measure_static_recall.py --dims 256 --centre --idf --minilm

For every prompt of the TRAIN and DEV recall splits (``tests/helpers/splits.py``; the TEST split
is never read) it takes recall as it ships (the lexical candidates and the fitted lexical gate)
and the static vectors of the notes and the prompt (``scripts/distil_static_vectors.py``;
``--centre`` removes the corpus's mean note vector, ``--idf`` weighs tokens by their IDF over
the notes, ``--no-sif`` drops the SIF weights; ``--minilm`` measures the full encoder the same
way, for scale), and reports:

(a) the DEV (and TRAIN) misses: prompts about a note where today's recall does not show it;
    how many of them never had the note as a lexical candidate, and how many of those the
    cosine ranks in its top 1 / 2 / 3;
(b) the gate refitted on TRAIN (``scripts/fit_relevance_gate.py``'s fit and threshold) with the
    cosine, its margin over the runner-up and the agreement of both opinions as features: on
    the lexical candidates only; with the cosine's top note added as a candidate when the words
    did not find it; and that candidate with three weights of its own (:class:`Dense`). DEV
    hit / silence / precision with 95 % Wilson intervals against today's gate, and for each
    refit the most DEV hits any threshold reaches at today's DEV silence (:func:`oracle`: an
    upper bound, chosen on dev, never a gate to ship).

A dev tool: numpy is used here only.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests"), str(REPO / "scripts")]

import distil_static_vectors as distil  # noqa: E402
import fit_relevance_gate as fitting  # noqa: E402
from helpers import recall_eval, splits  # noqa: E402
from helpers.relevance_split import Figures, figures  # noqa: E402

from pokayokay.recall import index as recall_index  # noqa: E402
from pokayokay.recall.documents import Hit  # noqa: E402
from pokayokay.recall.gating import evidence as recall_evidence  # noqa: E402
from pokayokay.recall.semantic import UNEMBEDDED  # noqa: E402
from pokayokay.relevance.concepts import query_features  # noqa: E402
from pokayokay.relevance.fitted import RECALL, fitted  # noqa: E402
from pokayokay.relevance.gate import FEATURES, Evidence, Gate, select  # noqa: E402

Embed = Callable[..., np.ndarray]  # (texts, weights=None) -> unit rows


class Row:
    """One prompt: expected ids, today's shown ids, the lexical candidates (Hits), every note's
    cosine (position -> cosine) and the index."""

    def __init__(
        self,
        expected: list[str],
        shown: list[str],
        hits: list[Hit],
        runners: list[float],
        cosines: dict[int, float],
        index: recall_index.Index,
        prompt: str,
    ) -> None:
        self.expected, self.shown, self.hits, self.runners = expected, shown, hits, runners
        self.cosines, self.index, self.prompt = cosines, index, prompt

    def dense_order(self) -> list[str]:
        ranked = sorted(self.cosines, key=lambda d: -self.cosines[d])
        return [self.index.doc(d).id for d in ranked]


@dataclass(frozen=True)
class Options:
    """How texts become vectors: ``centre`` removes the corpus's mean note vector (SIF's second
    step, per corpus); ``idf`` weighs each token by its IDF over the corpus's notes (needs
    ``vocab``)."""

    centre: bool = False
    idf: bool = False
    vocab: dict[str, int] = field(default_factory=dict)


def idf_weights(vocab: dict[str, int], texts: Sequence[str]) -> dict[int, float]:
    """Each token's IDF over ``texts`` (``ln((n + 1) / (df + 1)) + 1``, as the lexical scorer
    weighs words; a token no text holds gets the highest)."""
    df: dict[int, int] = {}
    for text in texts:
        for t in set(distil.token_ids(vocab, text)):
            df[t] = df.get(t, 0) + 1
    n = len(texts)
    top = float(np.log(n + 1) + 1.0)
    out = {t: float(np.log((n + 1) / (c + 1)) + 1.0) for t, c in df.items()}
    return {t: out.get(t, top) for t in vocab.values()}


def unit(m: np.ndarray) -> np.ndarray:
    return m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)


def rows(split: Sequence[tuple[str, str, str]], embed: Embed, options: Options) -> list[Row]:
    out: list[Row] = []
    for _corpus, notes, prompts in fitting.recall_sources(split):
        index = recall_eval.build(notes)
        covered = [d for d in range(len(index)) if index.doc(d).kind not in UNEMBEDDED]
        texts = [index.doc(d).text for d in covered]
        weights = idf_weights(options.vocab, texts) if options.idf else None
        matrix = embed(texts, weights)
        queries = embed([p["q"] for p in prompts], weights)
        if options.centre:  # the corpus's common direction removed (SIF's second step, per corpus)
            centre = matrix.mean(axis=0)
            matrix, queries = unit(matrix - centre), unit(queries - centre)
        for p, q in zip(prompts, queries, strict=True):
            prompt = p["q"]
            sims = (matrix @ q).tolist()
            cosines = {d: float(s) for d, s in zip(covered, sims, strict=True)}
            shown = [h.doc.id for h in recall_index.recall(index, prompt).hits]
            hits = recall_index.recall(index, prompt, gate=False).hits
            runners = [s for _d, s in index.ranked(prompt)]
            out.append(Row(list(p["expect"]), shown, hits, runners, cosines, index, prompt))
    return out


def misses(data: Sequence[Row], label: str) -> None:
    about = [r for r in data if r.expected]
    missed = [r for r in about if not set(r.shown) & set(r.expected)]
    never = [r for r in missed if not {h.doc.id for h in r.hits} & set(r.expected)]
    found = [
        sum(bool(set(r.dense_order()[:k]) & set(r.expected)) for r in never) for k in (1, 2, 3)
    ]
    print(
        f"  {label}: {len(about)} prompts about a note, {len(missed)} missed today, "
        f"{len(never)} of them never a lexical candidate; the dense top-1/2/3 holds "
        f"{found[0]}/{found[1]}/{found[2]} of those"
    )


class Dense(Evidence):
    """Evidence with three more columns for a candidate only the static cosine proposed: 1,
    its cosine and its cosine margin (0 for a lexical candidate): the interaction a linear gate
    needs to trust the cosine where the words say nothing."""

    __slots__ = ("alone",)
    alone: bool

    def values(self) -> tuple[float, ...]:
        base = super().values()
        if not self.alone:
            return (*base, 0.0, 0.0, 0.0)
        return (*base, 1.0, self.cosine, self.cosine - self.cosine_other)


def extend(found: Evidence, alone: bool) -> Dense:
    out = Dense(
        found.score, found.runner_up, found.matched, found.rare, found.named, found.units,
        found.cosine, found.cosine_other, found.dense_top,
    )  # fmt: skip
    out.alone = alone
    return out


def cases(
    data: Sequence[Row], add_dense: bool, use_cosine: bool, interact: bool = False
) -> list[fitting.Case]:
    out = []
    for r in data:
        hits = list(r.hits)
        lexical = len(hits)
        if add_dense and r.cosines:
            top = max(r.cosines, key=lambda d: r.cosines[d])
            if all(h.at != top for h in hits):
                score = next((s for d, s in r.index.ranked(r.prompt) if d == top), 0.0)
                hits.append(Hit(r.index.doc(top), score, top))
        cos = r.cosines if use_cosine else None
        found = recall_evidence(r.index, query_features(r.prompt), r.prompt, hits, r.runners, cos)
        if interact:
            found = [extend(f, i >= lexical) for i, f in enumerate(found)]
        out.append(fitting.Case(r.expected, [h.doc.id for h in hits], found))
    return out


def refit(train: list[fitting.Case]) -> Gate:
    x, y = fitting.design(train)
    weights, bias = fitting.fit(x, y)
    rounded = tuple(float(w) for w in weights)

    def gate_at(t: float) -> Gate:
        return Gate(rounded, bias, t, {})

    return gate_at(fitting.choose_threshold(train, gate_at))


def outcome(data: Sequence[fitting.Case], gate: Gate) -> Figures:
    return figures(
        [(c.expected, [c.candidates[i] for i in select(gate, c.evidence)]) for c in data]
    )


def oracle(dev: Sequence[fitting.Case], gate: Gate, silence: int) -> Figures | None:
    """The most dev hits any threshold of ``gate`` reaches while keeping at least ``silence``
    silent dev prompts: a threshold chosen on dev itself, an upper bound for the variant (never
    a gate to ship)."""
    probabilities = sorted({gate.probability(f) for c in dev for f in c.evidence})
    best: Figures | None = None
    for t in probabilities:
        result = outcome(dev, Gate(gate.weights, gate.bias, t, {}))
        if result.silence.hits >= silence and (best is None or result.hit.hits > best.hit.hits):
            best = result
    return best


def report(name: str, embed: Embed, options: Options) -> dict[str, Any]:
    print(f"== {name}")
    train = rows(splits.RECALL_TRAIN + splits.RECALL_TRAIN_READ, embed, options)
    dev = rows(splits.RECALL_DEV, embed, options)
    misses(dev, "dev")
    misses(train, "train")
    today = fitted(RECALL)
    results: dict[str, Any] = {}
    for label, add, use, inter in (
        ("today (shipped lexical gate)", False, False, False),
        ("refit, lexical only", False, False, False),
        ("refit, + cosine features", False, True, False),
        ("refit, + cosine top-1 candidate + features", True, True, False),
        ("refit, + top-1 candidate, own weights", True, True, True),
    ):
        tr, dv = cases(train, add, use, inter), cases(dev, add, use, inter)
        gate = today if label.startswith("today") else refit(tr)
        a, b = outcome(tr, gate), outcome(dv, gate)
        print(fitting.line(f"{label}, train", a))
        print(fitting.line(f"{label}, dev", b))
        if use:
            names = ("cosine", "cosine_margin", "agree")
            print("    weights " + ", ".join(
                f"{n} {gate.weights[FEATURES.index(n)]:+.2f}" for n in names
            ))  # fmt: skip
        if label.startswith("today"):
            bar = b.silence.hits
        elif (bound := oracle(dv, gate, bar)) is not None:
            print(fitting.line("    dev-chosen threshold, dev", bound))
        if inter:
            print("    alone-weights " + ", ".join(f"{w:+.2f}" for w in gate.weights[-3:]))
        results[label] = (a, b)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dims", type=int, action="append", default=None)
    parser.add_argument("--minilm", action="store_true", help="the full encoder too, for scale")
    parser.add_argument("--centre", action="store_true", help="remove the notes' mean vector")
    parser.add_argument("--idf", action="store_true", help="weigh tokens by the notes' IDF")
    parser.add_argument("--no-sif", action="store_true", help="no SIF weights in the table")
    args = parser.parse_args(argv)
    vocab = distil.load_vocab(distil.model_folder())
    options = Options(args.centre, args.idf, vocab)
    raw = np.load(distil.RAW)
    for dims in args.dims or (128,):
        table = distil.reduce(raw, dims, sif=not args.no_sif)

        def embed(texts: Sequence[str], weights: Any = None, t: Any = table) -> np.ndarray:
            return distil.text_vectors(t, vocab, texts, weights)

        report(f"static {dims} dims", embed, options)
    if args.minilm:
        model = fitting.Embedder(distil.model_folder())
        report("MiniLM encoder", lambda texts, _w=None: model.vectors(texts), Options())
    return 0


if __name__ == "__main__":
    sys.exit(main())
