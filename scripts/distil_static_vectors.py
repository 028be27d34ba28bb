"""Distil static token vectors from all-MiniLM-L6-v2, the model2vec way (issue 23, item 2).

    .venv/bin/python scripts/distil_static_vectors.py            # build/static/raw.npy
    .venv/bin/python scripts/distil_static_vectors.py --dims 128 # + build/static/static128.npz

Each token of the model's WordPiece vocabulary goes through the encoder on its own
(``[CLS] token [SEP]``, mean-pooled over the three positions, as the sentence model pools a
text: :class:`pokayokay.recall.encoder.Model`), giving one 384-wide vector per token with no
context. The vectors are then centred and reduced by PCA to ``--dims`` dimensions, and each
token is weighted by SIF over a Zipf estimate of its probability from its vocabulary rank
(BERT's vocabulary is ordered by frequency after its single characters):
``weight = a / (a + p(rank))`` with ``p`` proportional to ``1 / (rank + 2)``, ``a`` = 1e-4. A
text's static vector is then the mean of its tokens' weighted vectors (a lookup and a mean, no
forward pass), scaled to unit length (:func:`text_vectors`).

The model is looked for where the tests look (``$POKAYOKAY_SEMANTIC_MODEL`` or
``~/.cache/pokayokay-semantic/models/all-MiniLM-L6-v2``; ``pokayokay semantic fetch`` puts it in
pokayokay's state folder). A dev tool: numpy (the dev extra) is used here only.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # a shared machine: one core

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from pokayokay.recall import wordpiece  # noqa: E402

OUT = REPO / "build" / "static"
RAW = OUT / "raw.npy"
SIF = 1e-4
BATCH = 512


def model_folder() -> Path:
    from helpers.semantic import REAL_MODEL

    return REAL_MODEL


def distil_raw(folder: Path, tokens: Sequence[int] | None = None) -> np.ndarray:
    """Each vocabulary token's vector through the encoder on its own, ``[CLS] token [SEP]``
    mean-pooled (``len(tokens) × 384``; every token of the vocabulary by default)."""
    from pokayokay.recall.encoder import load

    model = load(str(folder))
    cls, sep = model.vocab[wordpiece.CLS], model.vocab[wordpiece.SEP]
    every = list(range(len(model.vocab))) if tokens is None else list(tokens)
    n = len(every)
    out = np.zeros((n, model.hidden), dtype=np.float32)
    started = time.monotonic()
    for start in range(0, n, BATCH):
        rows = list(range(start, min(n, start + BATCH)))
        out[rows] = model.embed_ids([[cls, every[i], sep] for i in rows])
        if start % (BATCH * 10) == 0 and n > BATCH:
            print(f"  {start}/{n} tokens, {time.monotonic() - started:.0f} s", flush=True)
    return out


def sif_weights(n: int) -> np.ndarray:
    """SIF weights from a Zipf probability by vocabulary rank."""
    inverse = 1.0 / np.arange(2, n + 2, dtype=np.float64)
    p = inverse / inverse.sum()
    return (SIF / (SIF + p)).astype(np.float32)


def reduce(raw: np.ndarray, dims: int, sif: bool = True) -> np.ndarray:
    """PCA of the token vectors to ``dims`` dimensions, then SIF-weighted (``sif``)."""
    centred = raw - raw.mean(axis=0)
    _u, _s, vt = np.linalg.svd(centred.astype(np.float64), full_matrices=False)
    reduced = centred @ vt[:dims].T.astype(np.float32)
    if not sif:
        return reduced.astype(np.float32)
    return (reduced * sif_weights(len(raw))[:, None]).astype(np.float32)


def token_ids(vocab: dict[str, int], text: str) -> list[int]:
    """The WordPiece ids of ``text`` (no [CLS] / [SEP], unknown pieces left out)."""
    unk = vocab[wordpiece.UNK]
    ids = [
        vocab.get(piece, unk)
        for word in wordpiece.words(text)
        for piece in wordpiece.pieces(word, vocab)
    ]
    return [t for t in ids if t != unk]


def text_vectors(
    table: np.ndarray,
    vocab: dict[str, int],
    texts: Sequence[str],
    weights: dict[int, float] | None = None,
) -> np.ndarray:
    """Each text's static vector: the mean of its WordPiece tokens' rows (times ``weights``,
    a token's weight, 1 when absent), unit length (a text with no known token gets zeros)."""
    out = np.zeros((len(texts), table.shape[1]), dtype=np.float32)
    for i, text in enumerate(texts):
        ids = token_ids(vocab, text)
        if ids:
            scale = np.array([(weights or {}).get(t, 1.0) for t in ids], dtype=np.float32)
            v = (table[ids] * scale[:, None]).mean(axis=0)
            norm = float(np.linalg.norm(v))
            out[i] = v / norm if norm > 0 else v
    return out


def load_vocab(folder: Path) -> dict[str, int]:
    return wordpiece.parse_vocab((folder / "vocab.txt").read_text("utf-8"))


def load_table(dims: int) -> tuple[np.ndarray, dict[str, int]]:
    """The reduced, weighted table (made from ``build/static/raw.npy``) and the vocabulary."""
    raw = np.load(RAW)
    return reduce(raw, dims), load_vocab(model_folder())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dims", type=int, action="append", default=None)
    args = parser.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    if not RAW.is_file():
        raw = distil_raw(model_folder())
        np.save(RAW, raw)
        print(f"wrote {RAW.relative_to(REPO)} {raw.shape}")
    for dims in args.dims or ():
        table: Any = reduce(np.load(RAW), dims)
        target = OUT / f"static{dims}.npy"
        np.save(target, table)
        print(f"wrote {target.relative_to(REPO)} {table.shape}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
