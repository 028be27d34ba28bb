"""Fit the prompt-level models of :mod:`pokayokay.relevance.calls` (decision 0195).

Imported by ``scripts/fit_relevance_gate.py``, which writes ``calls_<room>.tsv`` beside the
gates and fits the gates on this module's out-of-fold probabilities. Run alone, it prints what
it would fit:

    .venv/bin/python scripts/calls_model.py

One model per room (notes, skills). Its training rows are every labelled prompt of the room:
the project's own sets (one fold) and each unseen split written blind, ``relevance_test`` and
``relevance_test2`` to ``relevance_test17`` (a fold each; :data:`helpers.splits.CALLS_SPLITS`),
a prompt labelled 1 when it expects a note (or a skill), 0 when it expects none. The test splits
(:data:`helpers.splits.TEST_SPLITS`) are never read.

The fit: L2-regularised logistic regression over the binary pieces of
:func:`pokayokay.relevance.calls.pieces` seen in at least :data:`MIN_PROMPTS` prompts, solved to
convergence by Newton's method with conjugate gradients (decision 0203); then the :data:`KEEP`
pieces of largest weight are kept. The gates are fitted on out-of-fold probabilities: each
fold's prompts scored by the model fitted on the other folds, so that a gate learns what the
opinion is worth on prompts it never saw.

A dev tool: numpy (the dev extra) is used here only.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO))

from helpers import splits  # noqa: E402

from pokayokay.relevance.calls import NOTES, SKILLS, pieces, probability  # noqa: E402

L2 = 3.0  # the penalty on the weights, against the summed log-loss (not on the bias)
MIN_PROMPTS = 2  # a piece seen in fewer training prompts gets no weight
NEWTON_STEPS = 50  # a cap: the fit stops at TOLERANCE, in about ten steps
CG_STEPS = 200  # a cap on each Newton step's conjugate-gradient iterations
TOLERANCE = 1e-10  # the gradient norm at which the fit has converged
KEEP = 1000  # the pieces of largest weight the shipped file keeps (decision 0195: 0.3 ms read)
OWN = "own sets"  # the fold of the project's own labelled sets

Rows = list[tuple[str, float]]


def _recall_rows(split: Sequence[tuple[str, str, str]]) -> Rows:
    return [
        (row["q"], 1.0 if row["expect"] else 0.0)
        for _corpus, _notes, rows in splits.recall_sources(split)
        for row in rows
    ]


def _skill_rows(path: Path) -> Rows:
    return [(row["prompt"], 1.0 if row["expected"] else 0.0) for row in splits.skill_rows(path)]


def folds(room: str) -> dict[str, Rows]:
    """Every labelled prompt of ``room``, by fold; a prompt in two folds counts in the first."""
    out: dict[str, Rows] = {}
    if room == NOTES:
        out[OWN] = _recall_rows((*splits.RECALL_TRAIN, splits.RECALL_DEV[0]))
        for split in splits.CALLS_SPLITS:
            out[split] = _recall_rows(splits.recall_projects(split))
    elif room == SKILLS:
        out[OWN] = [
            r
            for name in (*splits.SKILLS_TRAIN, *splits.SKILLS_DEV)
            for r in _skill_rows(splits.SKILLS_FOLDER / name)
        ]
        for split in splits.CALLS_SPLITS:
            out[split] = _skill_rows(splits.DATA / split / "skills" / "prompts.json")
    else:
        raise ValueError(room)
    seen: set[str] = set()
    for fold, rows in out.items():
        kept = []
        for prompt, label in rows:
            if prompt not in seen:
                seen.add(prompt)
                kept.append((prompt, label))
        out[fold] = kept
    return out


# Each prompt's pieces as ids into _PIECE_NAMES: read once per process, however many folds fit
_PIECE_IDS: dict[str, np.ndarray] = {}
_PIECE_NAMES: list[str] = []
_PIECE_OF: dict[str, int] = {}


def _piece_ids(prompt: str) -> np.ndarray:
    """The ids of ``prompt``'s pieces (each once), computed on first use."""
    found = _PIECE_IDS.get(prompt)
    if found is None:
        ids = []
        for piece in pieces(prompt):
            if piece not in _PIECE_OF:
                _PIECE_OF[piece] = len(_PIECE_NAMES)
                _PIECE_NAMES.append(piece)
            ids.append(_PIECE_OF[piece])
        found = _PIECE_IDS[prompt] = np.array(ids, dtype=np.int64)
    return found


def fit(rows: Rows, l2: float = L2) -> tuple[dict[str, float], float]:
    """The weight of every piece seen in :data:`MIN_PROMPTS` prompts or more, and the bias: the
    minimum of the mean log-loss plus ``l2 / 2n`` times the squared weights (the bias is free),
    found by Newton's method with conjugate gradients (decision 0203)."""
    bags = [_piece_ids(prompt) for prompt, _label in rows]
    every = np.concatenate(bags) if bags else np.zeros(0, dtype=np.int64)
    row_every = np.repeat(np.arange(len(bags)), [len(b) for b in bags])
    counts = np.bincount(every, minlength=len(_PIECE_NAMES))
    # the pieces kept, numbered in the order of their names; each prompt's columns in that order
    names = sorted(_PIECE_NAMES[i] for i in np.flatnonzero(counts >= MIN_PROMPTS))
    vocabulary = {p: i for i, p in enumerate(names)}
    local = np.full(len(_PIECE_NAMES), -1, dtype=np.int64)
    local[[_PIECE_OF[p] for p in names]] = np.arange(len(names), dtype=np.int64)
    column = local[every]
    held = column >= 0
    order = np.lexsort((column[held], row_every[held]))
    index = column[held][order]
    row_of = row_every[held][order]
    y = np.array([label for _prompt, label in rows], dtype=float)
    n, size = len(y), len(vocabulary)
    penalty = np.full(size + 1, l2)
    penalty[-1] = 0.0

    def scores(w: np.ndarray) -> np.ndarray:  # X w: each prompt's summed weights plus the bias
        return np.bincount(row_of, weights=w[:-1][index], minlength=n) + w[-1]

    def back(r: np.ndarray) -> np.ndarray:  # X^T r
        return np.append(np.bincount(index, weights=r[row_of], minlength=size), r.sum())

    def loss(w: np.ndarray) -> float:
        z = scores(w)
        return float((np.logaddexp(0.0, z) - y * z).sum() + 0.5 * (penalty * w * w).sum()) / n

    w = np.zeros(size + 1)
    for _ in range(NEWTON_STEPS):
        p = 1.0 / (1.0 + np.exp(-scores(w)))
        g = (back(p - y) + penalty * w) / n
        norm = float(np.linalg.norm(g))
        if norm < TOLERANCE:
            break
        curve = p * (1.0 - p)
        # Solve H d = -g by conjugate gradients, H v = (X^T diag(curve) X v + penalty v) / n,
        # to the forcing tolerance min(0.5, sqrt|g|) |g| (superlinear near the minimum).
        d = np.zeros_like(w)
        r = -g
        s = r.copy()
        rr = float(r @ r)
        for _ in range(CG_STEPS):
            hs = (back(curve * scores(s)) + penalty * s) / n
            a = rr / float(s @ hs)
            d += a * s
            r = r - a * hs
            rr_next = float(r @ r)
            if rr_next**0.5 < min(0.5, norm**0.5) * norm:
                break
            s = r + rr_next / rr * s
            rr = rr_next
        # Backtrack until the loss falls enough (Armijo); a Newton step is nearly always taken.
        t, now, slope = 1.0, loss(w), float(g @ d)
        while loss(w + t * d) > now + 1e-4 * t * slope and t > 1e-8:
            t /= 2.0
        w = w + t * d
    return {p: float(w[i]) for p, i in vocabulary.items()}, float(w[-1])


def kept(weights: dict[str, float], keep: int = KEEP) -> dict[str, float]:
    """The ``keep`` pieces of largest weight (ties by piece), rounded for a stable file."""
    order = sorted(weights.items(), key=lambda kv: (-abs(kv[1]), kv[0]))[:keep]
    return {p: round(w, 6) for p, w in order}


def out_of_fold(room: str, every: dict[str, Rows] | None = None) -> dict[str, float]:
    """Each labelled prompt's probability by the model fitted without its fold."""
    every = folds(room) if every is None else every
    out: dict[str, float] = {}
    for fold, rows in every.items():
        others = [r for name, rs in every.items() if name != fold for r in rs]
        weights, bias = fit(others)
        small = kept(weights)
        for prompt, _label in rows:
            out[prompt] = round(probability(small, bias, prompt), 12)
    return out


def auc(scores: Sequence[float], labels: Sequence[float]) -> float:
    """The chance that a prompt calling for something outscores one that calls for nothing."""
    pos = [s for s, y in zip(scores, labels, strict=True) if y]
    neg = [s for s, y in zip(scores, labels, strict=True) if not y]
    if not pos or not neg:
        return float("nan")
    wins = sum((p > q) + 0.5 * (p == q) for p in pos for q in neg)
    return wins / (len(pos) * len(neg))


def room_model(room: str) -> tuple[dict[str, float], float, dict[str, float], dict[str, Any]]:
    """``room``'s shipped weights and bias, the out-of-fold probabilities, and the provenance."""
    every = folds(room)
    oof = out_of_fold(room, every)
    weights, bias = fit([r for rows in every.values() for r in rows])
    per_fold = {
        fold: {
            "prompts": len(rows),
            "calling": int(sum(y for _p, y in rows)),
            "auc_out_of_fold": round(auc([oof[p] for p, _y in rows], [y for _p, y in rows]), 4),
        }
        for fold, rows in every.items()
    }
    provenance = {
        "fitted_by": "python scripts/fit_relevance_gate.py (scripts/calls_model.py)",
        "method": f"L2 logistic regression (lambda {L2}) over pieces seen in {MIN_PROMPTS}+ "
        f"prompts, Newton-CG to a gradient norm below {TOLERANCE:g}; the {KEEP} pieces of largest "
        "weight kept",
        "folds": {
            OWN: "the project's own labelled sets (tests/helpers/splits.py: train and dev)",
            **{s: f"tests/data/{s}" for s in splits.CALLS_SPLITS},
        },
        "never_read": [f"tests/data/{test}" for test in splits.TEST_SPLITS],
        "pieces_fitted": len(weights),
        "figures": per_fold,
    }
    return kept(weights), round(bias, 6), oof, provenance


def main() -> int:
    for room in (NOTES, SKILLS):
        weights, bias, _oof, provenance = room_model(room)
        print(f"{room}: {provenance['pieces_fitted']} pieces fitted, {len(weights)} kept, "
              f"bias {bias:+.3f}")  # fmt: skip
        for fold, row in provenance["figures"].items():
            print(f"  {fold:18} {row}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
