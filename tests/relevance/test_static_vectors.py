"""The static-vector experiment of issue 23 (docs/decisions/0133): the distillation
(``scripts/distil_static_vectors.py``: each vocabulary token through the encoder on its own,
PCA, SIF weights, a text as the mean of its tokens) and the offline measurement
(``scripts/measure_static_recall.py``: the cosine's top note added as a gate candidate)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from helpers import splits
from helpers.paths import REPO_ROOT
from helpers.semantic import REAL_MODEL, needs_real_model, write_tiny_model
from helpers.semantic import WORDS as TINY_WORDS
from hypothesis import given, settings
from hypothesis import strategies as st

np = pytest.importorskip("numpy")

WORDS = ("alpha", "beta", "gamma", "delta", "omega")
PIECES = ("##s", "##ing")


@pytest.fixture(scope="module")
def scripts() -> Iterator[tuple[ModuleType, ModuleType]]:
    sys.path.insert(0, str(REPO_ROOT / "scripts"))
    try:
        yield (
            importlib.import_module("distil_static_vectors"),
            importlib.import_module("measure_static_recall"),
        )
    finally:
        sys.path.remove(str(REPO_ROOT / "scripts"))


def tiny_vocab() -> dict[str, int]:
    names = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", *WORDS, *PIECES]
    return {name: i for i, name in enumerate(names)}


TEXT = st.lists(st.sampled_from([*WORDS, "alphas", "betaing", "zzz", "!"]), max_size=12)


@settings(max_examples=60, deadline=None)
@given(TEXT, st.randoms(use_true_random=False), st.floats(0.1, 10))
def test_a_texts_static_vector_is_the_unit_mean_of_its_tokens(
    scripts: tuple[ModuleType, ModuleType], words: list[str], rnd: Any, scale: float
) -> None:
    distil, _ = scripts
    vocab = tiny_vocab()
    table = np.random.default_rng(rnd.randrange(1 << 30)).normal(size=(len(vocab), 8))
    table = table.astype(np.float32)
    text = " ".join(words)
    (vector,) = distil.text_vectors(table, vocab, [text])
    ids = distil.token_ids(vocab, text)
    if not ids:  # nothing known ("zzz", "!"): zeros, never NaN
        assert not vector.any()
        return
    expected = table[ids].mean(axis=0)
    assert np.allclose(vector, expected / np.linalg.norm(expected), atol=1e-5)
    assert np.linalg.norm(vector) == pytest.approx(1.0, abs=1e-5)
    # a bag of tokens: the order of the words and a uniform weight do not matter
    shuffled = list(words)
    rnd.shuffle(shuffled)
    (again,) = distil.text_vectors(table, vocab, [" ".join(shuffled)])
    weights = dict.fromkeys(vocab.values(), scale)
    (weighted,) = distil.text_vectors(table, vocab, [text], weights)
    assert np.allclose(again, vector, atol=1e-5)
    assert np.allclose(weighted, vector, atol=1e-5)


def test_a_word_piece_splits_into_the_vocabularys_pieces(
    scripts: tuple[ModuleType, ModuleType],
) -> None:
    distil, _ = scripts
    vocab = tiny_vocab()
    assert distil.token_ids(vocab, "Alphas betaing zzz") == [
        vocab["alpha"], vocab["##s"], vocab["beta"], vocab["##ing"],
    ]  # fmt: skip


@given(st.integers(1, 5000))
def test_sif_weights_grow_with_the_rank_and_stay_below_one(
    scripts: tuple[ModuleType, ModuleType], n: int
) -> None:
    distil, _ = scripts
    weights = distil.sif_weights(n)
    assert len(weights) == n
    assert np.all((weights > 0) & (weights < 1))
    assert np.all(np.diff(weights) >= 0)  # a rarer token (later rank) weighs at least as much


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 1 << 30), st.integers(3, 12), st.integers(2, 6))
def test_the_reduction_is_pca_then_sif(
    scripts: tuple[ModuleType, ModuleType], seed: int, rows: int, width: int
) -> None:
    distil, _ = scripts
    raw = np.random.default_rng(seed).normal(size=(rows, width)).astype(np.float32)
    full = distil.reduce(raw, width, sif=False)
    # an orthogonal change of axes of the centred vectors: every distance is kept
    centred = raw - raw.mean(axis=0)
    before = np.linalg.norm(centred[:, None] - centred[None], axis=-1)
    after = np.linalg.norm(full[:, None] - full[None], axis=-1)
    assert np.allclose(before, after, atol=1e-3)
    variances = full.var(axis=0)
    assert np.all(variances[:-1] >= variances[1:] - 1e-4)  # the main axes first
    weighted = distil.reduce(raw, 2, sif=True)
    assert np.allclose(weighted, full[:, :2] * distil.sif_weights(rows)[:, None], atol=1e-4)


def test_distilling_runs_each_token_through_the_encoder_alone(
    scripts: tuple[ModuleType, ModuleType], tmp_path: Path
) -> None:
    """On a tiny random BERT: a whole-word token's distilled row is the encoder's vector of
    that word alone, and every vocabulary token gets a unit row (no token is skipped)."""
    distil, _ = scripts
    from pokayokay.recall.encoder import load

    folder = write_tiny_model(tmp_path / "tiny")
    model = load(str(folder))
    words = [w for w in TINY_WORDS[:6] if model.token_ids(w)[1:-1] == [model.vocab[w]]]
    assert words
    rows = distil.distil_raw(folder, [model.vocab[w] for w in words])
    assert np.allclose(rows, model.embed(words), atol=1e-6)
    every = distil.distil_raw(folder)
    assert every.shape == (len(model.vocab), model.hidden)
    assert np.allclose(np.linalg.norm(every, axis=1), 1.0, atol=1e-5)


@needs_real_model
def test_a_tokens_static_vector_is_the_encoders_vector_of_that_token_alone(
    scripts: tuple[ModuleType, ModuleType],
) -> None:
    """A one-piece word's distilled row is what the sentence model gives that word."""
    distil, _ = scripts
    from pokayokay.recall.encoder import load

    model = load(str(REAL_MODEL))
    words = ["database", "deploy", "password"]
    ids = [model.vocab[w] for w in words]
    assert all(model.token_ids(w)[1:-1] == [i] for w, i in zip(words, ids, strict=True))
    rows = distil.distil_raw(REAL_MODEL, ids)
    assert np.allclose(rows, model.embed(words), atol=1e-5)


def test_the_measurement_adds_the_cosines_first_note_when_the_words_missed_it(
    scripts: tuple[ModuleType, ModuleType],
) -> None:
    """On the held-out prompts, with an opinion that always prefers one note: that note is a
    candidate of every prompt, after the lexical ones when the words did not find it, and
    never twice; without the dense candidate the candidates are recall's own."""
    _, measure = scripts
    split = splits.RECALL_DEV[:1]
    calls: list[Sequence[str]] = []

    def embed(batch: Sequence[str], _weights: object = None) -> Any:
        """The notes (first call): the first one (1, 0), the others (0, 1); the prompts (second
        call): (0.8, 0.6), nearest to the first note."""
        calls.append(batch)
        out = np.zeros((len(batch), 2), dtype=np.float32)
        for i, text in enumerate(batch):
            if len(calls) == 2:
                out[i] = (0.8, 0.6)
            else:
                out[i] = (1.0, 0.0) if text == calls[0][0] else (0.0, 1.0)
        return out

    data = measure.rows(split, embed, measure.Options())
    assert len(data) > 50
    assert len(calls) == 2  # one corpus: its notes, then its prompts
    favourite = next(r.index.doc(d).id for r in data[:1] for d in r.cosines)  # the first note
    plain = measure.cases(data, add_dense=False, use_cosine=False)
    dense = measure.cases(data, add_dense=True, use_cosine=True)
    added = 0
    for row, without, with_dense in zip(data, plain, dense, strict=True):
        lexical = [h.doc.id for h in row.hits]
        assert without.candidates == lexical
        assert with_dense.candidates.count(favourite) == 1
        if favourite in lexical:
            assert with_dense.candidates == lexical
        else:
            added += 1
            assert with_dense.candidates == [*lexical, favourite]
            assert with_dense.evidence[-1].dense_top  # the model's first choice
    assert added > 0
