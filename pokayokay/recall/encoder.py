"""The semantic model itself: all-MiniLM-L6-v2 (a 6-layer BERT) run with numpy alone.

Loaded from the folder ``pokayokay semantic fetch`` fills (:mod:`pokayokay.recall.model_fetch`):
``model.safetensors`` is mapped into memory, not read — the format is an 8-byte little-endian
header length, a JSON header giving each tensor's dtype, shape and byte range, then the raw bytes,
so every weight is a zero-copy ``numpy`` view of the mapping and only the pages a prompt touches
are loaded; ``config.json`` gives the sizes and the LayerNorm epsilon, ``vocab.txt`` the
tokenizer's vocabulary (:mod:`pokayokay.recall.wordpiece`).

A text's vector is what sentence-transformers computes for this model (``modules.json``:
Transformer, mean Pooling, Normalize): token, position and segment embeddings, LayerNorm, six
encoder layers (12-head self-attention, residual and LayerNorm; a 1536-wide GELU feed-forward,
residual and LayerNorm), the mean of the token states under the attention mask, scaled to unit
length. GELU is the exact one (``x·Φ(x)``): numpy has no ``erf``, so it is the Abramowitz–Stegun
7.1.26 approximation, within 1.5e-7. ``tests/recall/test_semantic_model.py`` compares the vectors
with reference ones computed by sentence-transformers (``tests/data/semantic/golden.json``).

numpy is imported by :func:`load`, never at module import: the default install has no numpy and
the prompt hook imports this module only when a model is there.
"""

from __future__ import annotations

import json
import mmap
import os
import struct

from pokayokay.recall import wordpiece

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

WEIGHTS = "model.safetensors"
CONFIG = "config.json"
VOCAB = "vocab.txt"
POOLING = "1_Pooling/config.json"
MODULES = "modules.json"
# sentence-transformers' max_seq_length for this model (sentence_bert_config.json).
MAX_TOKENS = 256
DIMENSIONS = 384
# A header larger than this is not a model's (the real one is 11 kB).
MAX_HEADER = 1 << 20
# Texts embedded together (padding to the longest one in a batch costs little at this size).
BATCH = 16


class ModelError(ValueError):
    """The model folder is missing, incomplete or not the expected model."""


def _tensors(path: str) -> tuple[mmap.mmap, dict[str, Any]]:
    """The file mapped and its header (name → dtype, shape, data_offsets)."""
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if size < 8:
            raise ModelError(f"{path}: not a safetensors file")
        mapped = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    (length,) = struct.unpack("<Q", mapped[:8])
    if not 2 <= length <= min(MAX_HEADER, size - 8):
        raise ModelError(f"{path}: bad safetensors header length")
    try:
        header = json.loads(mapped[8 : 8 + length])
    except ValueError as exc:
        raise ModelError(f"{path}: bad safetensors header") from exc
    if not isinstance(header, dict):
        raise ModelError(f"{path}: bad safetensors header")
    header.pop("__metadata__", None)
    header["<data>"] = 8 + length
    return mapped, header


class Model:
    """The weights (numpy views of the mapped file), the vocabulary and the sizes."""

    def __init__(self, folder: str) -> None:
        import numpy as np

        self.np = np
        self.folder = folder
        try:
            with open(os.path.join(folder, CONFIG), encoding="utf-8") as fh:
                config = json.load(fh)
            with open(os.path.join(folder, VOCAB), encoding="utf-8") as fh:
                self.vocab = wordpiece.parse_vocab(fh.read())
        except (OSError, ValueError) as exc:
            raise ModelError(f"{folder}: {exc}") from exc
        if not isinstance(config, dict) or config.get("hidden_act") != "gelu":
            raise ModelError(f"{folder}: not a BERT model with GELU")
        try:
            self.hidden = int(config["hidden_size"])
            self.heads = int(config["num_attention_heads"])
            self.layers = int(config["num_hidden_layers"])
            self.eps = float(config["layer_norm_eps"])
            positions = int(config["max_position_embeddings"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelError(f"{folder}: config.json lacks {exc}") from exc
        if self.hidden % self.heads or len(self.vocab) < 1000:
            raise ModelError(f"{folder}: inconsistent sizes")
        self.max_tokens = min(MAX_TOKENS, positions)
        self._map, header = _tensors(os.path.join(folder, WEIGHTS))
        base = header.pop("<data>")
        self.w: dict[str, Any] = {}
        for name, spec in header.items():
            try:
                dtype, shape, (start, end) = spec["dtype"], spec["shape"], spec["data_offsets"]
            except (KeyError, TypeError, ValueError) as exc:
                raise ModelError(f"{folder}: bad tensor entry {name!r}") from exc
            if dtype != "F32":
                continue  # position_ids (I64) is not a weight
            count = 1
            for n in shape:
                count *= int(n)
            if not 0 <= start <= end <= len(self._map) - base or end - start != 4 * count:
                raise ModelError(f"{folder}: tensor {name!r} out of bounds")
            self.w[name] = np.frombuffer(
                self._map, dtype="<f4", count=count, offset=base + start
            ).reshape(shape)
        for name in self._required():
            if name not in self.w:
                raise ModelError(f"{folder}: missing tensor {name}")
        if self.w["embeddings.word_embeddings.weight"].shape != (len(self.vocab), self.hidden):
            raise ModelError(f"{folder}: vocabulary and embeddings disagree")

    def _required(self) -> list[str]:
        names = [
            "embeddings.word_embeddings.weight",
            "embeddings.position_embeddings.weight",
            "embeddings.token_type_embeddings.weight",
            "embeddings.LayerNorm.weight",
            "embeddings.LayerNorm.bias",
        ]
        for i in range(self.layers):
            p = f"encoder.layer.{i}."
            for part in (
                "attention.self.query",
                "attention.self.key",
                "attention.self.value",
                "attention.output.dense",
                "intermediate.dense",
                "output.dense",
            ):
                names += [f"{p}{part}.weight", f"{p}{part}.bias"]
            for part in ("attention.output.LayerNorm", "output.LayerNorm"):
                names += [f"{p}{part}.weight", f"{p}{part}.bias"]
        return names

    # -- the forward pass ---------------------------------------------------------------------

    def _norm(self, x: Any, name: str) -> Any:
        np = self.np
        mean = x.mean(axis=-1, keepdims=True)
        centred = x - mean
        var = (centred * centred).mean(axis=-1, keepdims=True)
        out = centred / np.sqrt(var + self.eps)
        return out * self.w[f"{name}.weight"] + self.w[f"{name}.bias"]

    def _dense(self, x: Any, name: str) -> Any:
        return x @ self.w[f"{name}.weight"].T + self.w[f"{name}.bias"]

    def _gelu(self, x: Any) -> Any:
        np = self.np
        z = np.abs(x) * np.float32(0.7071067811865476)
        t = 1.0 / (1.0 + np.float32(0.3275911) * z)
        poly = t * (
            np.float32(0.254829592)
            + t
            * (
                np.float32(-0.284496736)
                + t
                * (np.float32(1.421413741) + t * (np.float32(-1.453152027) + t * 1.061405429))
            )
        )
        erf = 1.0 - poly * np.exp(-z * z)
        erf = np.where(x < 0, -erf, erf)
        return (x * 0.5 * (1.0 + erf)).astype(np.float32, copy=False)

    def _forward(self, batch: list[list[int]]) -> Any:
        np = self.np
        n, length = len(batch), max(len(ids) for ids in batch)
        ids = np.zeros((n, length), dtype=np.int64)
        mask = np.zeros((n, length), dtype=np.float32)
        for i, row in enumerate(batch):
            ids[i, : len(row)] = row
            mask[i, : len(row)] = 1.0
        w = self.w
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:length]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = self._norm(x, "embeddings.LayerNorm")
        heads, size = self.heads, self.hidden // self.heads
        scale = np.float32(1.0 / np.sqrt(size))
        bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
        for i in range(self.layers):
            p = f"encoder.layer.{i}."

            def split(t: Any) -> Any:
                return t.reshape(n, length, heads, size).transpose(0, 2, 1, 3)

            q = split(self._dense(x, p + "attention.self.query"))
            k = split(self._dense(x, p + "attention.self.key"))
            v = split(self._dense(x, p + "attention.self.value"))
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale + bias
            scores -= scores.max(axis=-1, keepdims=True)
            probs = np.exp(scores)
            probs /= probs.sum(axis=-1, keepdims=True)
            context = (probs @ v).transpose(0, 2, 1, 3).reshape(n, length, self.hidden)
            attended = self._dense(context, p + "attention.output.dense")
            x = self._norm(attended + x, p + "attention.output.LayerNorm")
            inner = self._gelu(self._dense(x, p + "intermediate.dense"))
            x = self._norm(self._dense(inner, p + "output.dense") + x, p + "output.LayerNorm")
        pooled = (x * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9)[:, None]
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)

    def embed_ids(self, batch: list[list[int]]) -> Any:
        """Unit vectors of already tokenised inputs (each ``[CLS] ids... [SEP]``), one row per
        input: what ``scripts/distil_static_vectors.py`` runs each vocabulary token through."""
        return self._forward(batch)

    def token_ids(self, text: str) -> list[int]:
        return wordpiece.encode(text, self.vocab, self.max_tokens)

    def embed(self, texts: Sequence[str]) -> Any:
        """Unit vectors, one row per text (float32, ``len(texts) × 384``)."""
        np = self.np
        encoded = [self.token_ids(t) for t in texts]
        out = np.zeros((len(texts), self.hidden), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(encoded[i]))
        for start in range(0, len(order), BATCH):
            chunk = order[start : start + BATCH]
            out[chunk] = self._forward([encoded[i] for i in chunk])
        return out


_LOADED: dict[tuple[str, int, int], Model] = {}


def load(folder: str) -> Model:
    """The model in ``folder`` (ModelError when it is not a complete, consistent one; ImportError
    when numpy is not installed); loaded once per process while its weights file stays the same.
    """
    try:
        st = os.stat(os.path.join(folder, WEIGHTS))
    except OSError as exc:
        raise ModelError(f"{folder}: {exc}") from exc
    key = (os.path.realpath(folder), st.st_mtime_ns, st.st_size)
    found = _LOADED.get(key)
    if found is None:
        found = _LOADED[key] = Model(folder)
    return found
