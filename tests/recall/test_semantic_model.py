"""The numpy encoder (pokayokay.recall.encoder): the real all-MiniLM-L6-v2 against vectors that
sentence-transformers computed (tests/data/semantic/golden.json; skipped when the model was not
fetched), and the forward pass's invariants and the safetensors reader on tiny random BERTs."""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

import pytest
from helpers.paths import DATA_DIR
from helpers.semantic import REAL_MODEL, needs_real_model, write_safetensors, write_tiny_model

np = pytest.importorskip("numpy")

from pokayokay.recall import encoder  # noqa: E402 - after the skip: needs numpy

GOLDEN = json.loads((DATA_DIR / "semantic" / "golden.json").read_text("utf-8"))
TOLERANCE = 1e-4


@pytest.fixture(scope="module")
def real() -> encoder.Model:
    return encoder.load(str(REAL_MODEL))


@needs_real_model
def test_token_ids_are_the_reference_tokenizers(real: encoder.Model) -> None:
    for case in GOLDEN["texts"]:
        assert real.token_ids(case["text"]) == case["ids"], case["text"][:60]


@needs_real_model
def test_vectors_match_sentence_transformers(real: encoder.Model) -> None:
    texts = [case["text"] for case in GOLDEN["texts"]]
    vectors = real.embed(texts)
    assert vectors.shape == (len(texts), encoder.DIMENSIONS) and vectors.dtype == np.float32
    heads = np.array([case["head"] for case in GOLDEN["texts"]])
    assert np.abs(vectors[:, :16] - heads).max() < TOLERANCE
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # The whole vectors, through every pair's cosine.
    cosines = vectors.astype(np.float64) @ vectors.T.astype(np.float64)
    for i, row in enumerate(GOLDEN["cosines"]):
        for j, expected in enumerate(row, start=i + 1):
            assert abs(cosines[i, j] - expected) < TOLERANCE, (i, j)


@needs_real_model
def test_paraphrases_are_closer_than_unrelated_text(real: encoder.Model) -> None:
    note, paraphrase, unrelated = real.embed([
        "Use presigned S3 uploads for anything over 100 MB; the API server never proxies bodies.",
        "let users upload a 2 GB video",
        "rename the variable in the date formatter",
    ])  # fmt: skip
    assert float(note @ paraphrase) > float(note @ unrelated) + 0.1


@needs_real_model
def test_a_long_text_is_cut_at_the_models_limit(real: encoder.Model) -> None:
    ids = real.token_ids("memory and recall " * 400)
    assert len(ids) == encoder.MAX_TOKENS


# -- tiny random models: the forward pass's invariants, the reader's checks ------------------


@pytest.fixture
def tiny(tmp_path: Path) -> encoder.Model:
    return encoder.load(str(write_tiny_model(tmp_path / "tiny")))


def test_padding_in_a_batch_changes_no_vector(tiny: encoder.Model) -> None:
    short = "run the test suite"
    long = "never deploy on fridays, upload the large video file with python to s3"
    alone = tiny.embed([short])[0]
    together = tiny.embed([long, short, long])
    assert np.allclose(together[1], alone, atol=1e-6)
    assert np.allclose(together[0], together[2], atol=1e-6)


def test_vectors_are_unit_length_in_input_order(tiny: encoder.Model) -> None:
    texts = [f"run the test {'suite ' * n}" for n in range(40)]  # more than a batch
    vectors = tiny.embed(texts)
    assert vectors.shape == (40, 8)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    for i in (0, 17, 39):
        assert np.allclose(tiny.embed([texts[i]])[0], vectors[i], atol=1e-6)


def test_the_limit_is_the_models_positions_when_they_are_fewer(tiny: encoder.Model) -> None:
    assert tiny.max_tokens == 64
    assert len(tiny.token_ids("run " * 500)) == 64
    assert tiny.embed(["run " * 500]).shape == (1, 8)


def test_gelu_is_the_exact_one() -> None:
    import math

    x = np.linspace(-6, 6, 2001).astype(np.float32)
    exact = np.array([v * 0.5 * (1 + math.erf(v / math.sqrt(2))) for v in x.tolist()])
    model = encoder.Model.__new__(encoder.Model)
    model.np = np
    assert np.abs(model._gelu(x) - exact).max() < 1e-6


def _damage(folder: Path, header_edit: Any = None, *, raw: bytes | None = None) -> None:
    path = folder / "model.safetensors"
    if raw is not None:
        path.write_bytes(raw)
        return
    data = path.read_bytes()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + length])
    header_edit(header)
    text = json.dumps(header).encode().ljust(length)
    path.write_bytes(data[:8] + text[:length] + data[8 + length :])


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda f: _damage(f, raw=b"\x01"), id="truncated"),
        pytest.param(lambda f: _damage(f, raw=struct.pack("<Q", 1 << 40) + b"{}"), id="header"),
        pytest.param(lambda f: _damage(f, raw=struct.pack("<Q", 4) + b"[1,2"), id="not-json"),
        pytest.param(
            lambda f: _damage(
                f, lambda h: h["embeddings.LayerNorm.bias"].update(data_offsets=[0, 1 << 30])
            ),
            id="out-of-bounds",
        ),
        pytest.param(
            lambda f: _damage(f, lambda h: h.pop("encoder.layer.1.output.dense.weight")),
            id="missing-tensor",
        ),
        pytest.param(lambda f: (f / "vocab.txt").write_text("a\nb\n"), id="vocab"),
        pytest.param(lambda f: (f / "config.json").unlink(), id="no-config"),
    ],
)
def test_a_damaged_model_is_refused(tmp_path: Path, damage: Any) -> None:
    folder = write_tiny_model(tmp_path / "tiny")
    damage(folder)
    with pytest.raises(encoder.ModelError):
        encoder.load(str(folder))


def test_a_model_of_another_kind_is_refused(tmp_path: Path) -> None:
    with pytest.raises(encoder.ModelError, match="GELU"):
        encoder.load(str(write_tiny_model(tmp_path / "relu", hidden_act="relu")))
    folder = write_tiny_model(tmp_path / "short")
    tensors = {"embeddings.word_embeddings.weight": np.zeros((10, 8), dtype=np.float32)}
    write_safetensors(folder / "model.safetensors", tensors)
    with pytest.raises(encoder.ModelError, match="missing tensor"):
        encoder.load(str(folder))


def test_the_hooks_file_check_names_the_files_the_encoder_reads() -> None:
    from pokayokay.recall.semantic import MODEL_FILES

    assert set(MODEL_FILES) == {encoder.WEIGHTS, encoder.CONFIG, encoder.VOCAB}
