"""The semantic model for tests: the real one when it was fetched, and tiny random BERTs.

The real model is looked for in ``$POKAYOKAY_SEMANTIC_MODEL``, else in
``~/.cache/pokayokay-semantic/models/all-MiniLM-L6-v2`` (``.ci/run`` fetches it there); tests
that need it skip without it. It is read only (the path is resolved when this module is
imported, before the fixtures move HOME), and linked into a test's own state folder by
:func:`install_model`.
"""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path
from typing import Any

import pytest

_CACHE = Path(os.path.expanduser("~")) / ".cache" / "pokayokay-semantic" / "models"
REAL_MODEL = Path(os.environ.get("POKAYOKAY_SEMANTIC_MODEL") or _CACHE / "all-MiniLM-L6-v2")


def real_model_available() -> bool:
    try:
        import numpy  # noqa: F401
    except ImportError:
        return False
    return (REAL_MODEL / "model.safetensors").is_file() and (REAL_MODEL / "vocab.txt").is_file()


needs_real_model = pytest.mark.skipif(
    not real_model_available(),
    reason="semantic model not fetched (pokayokay semantic fetch; see tests/helpers/semantic.py)",
)


def install_model(source: Path = REAL_MODEL) -> Path:
    """Link ``source`` as the model of the current (isolated) state home; its folder."""
    from pokayokay.recall.semantic import model_dir

    target = Path(model_dir())
    target.parent.mkdir(parents=True, exist_ok=True)
    target.symlink_to(source, target_is_directory=True)
    return target


SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
WORDS = [
    "run", "the", "test", "suite", "with", "python", "never", "system", "deploy", "on",
    "friday", "##s", "##ing", "##ed", "upload", "video", "large", "file", "s3", "un", "##aff",
    "##able", "cafe", "resume", ".", ",", "!", "?", "'", "`", "/", "-", "(", ")",
]  # fmt: skip


def write_safetensors(path: Path, tensors: dict[str, Any]) -> None:
    """numpy arrays (float32) in the safetensors layout: header length, JSON header, bytes."""
    header: dict[str, Any] = {"__metadata__": {"format": "pt"}}
    blobs: list[bytes] = []
    offset = 0
    for name, array in tensors.items():
        data = array.astype("<f4").tobytes()
        header[name] = {
            "dtype": "F32",
            "shape": list(array.shape),
            "data_offsets": [offset, offset + len(data)],
        }
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def tiny_weights(vocab_size: int, *, hidden: int = 8, layers: int = 2, seed: int = 7) -> Any:
    import numpy as np

    rng = np.random.default_rng(seed)

    def r(*shape: int) -> Any:
        return rng.normal(0, 0.5, shape).astype(np.float32)

    w = {
        "embeddings.word_embeddings.weight": r(vocab_size, hidden),
        "embeddings.position_embeddings.weight": r(64, hidden),
        "embeddings.token_type_embeddings.weight": r(2, hidden),
        "embeddings.LayerNorm.weight": 1 + r(hidden) * 0.1,
        "embeddings.LayerNorm.bias": r(hidden) * 0.1,
    }
    for i in range(layers):
        p = f"encoder.layer.{i}."
        for part in ("attention.self.query", "attention.self.key", "attention.self.value",
                     "attention.output.dense"):  # fmt: skip
            w[f"{p}{part}.weight"], w[f"{p}{part}.bias"] = r(hidden, hidden), r(hidden)
        w[f"{p}intermediate.dense.weight"] = r(2 * hidden, hidden)
        w[f"{p}intermediate.dense.bias"] = r(2 * hidden)
        w[f"{p}output.dense.weight"], w[f"{p}output.dense.bias"] = r(hidden, 2 * hidden), r(hidden)
        for part in ("attention.output.LayerNorm", "output.LayerNorm"):
            w[f"{p}{part}.weight"], w[f"{p}{part}.bias"] = 1 + r(hidden) * 0.1, r(hidden) * 0.1
    return w


def write_tiny_model(folder: Path, *, hidden: int = 8, layers: int = 2, **config: Any) -> Path:
    """A random 2-layer BERT with the real model's file layout (vocabulary padded to 1000)."""
    folder.mkdir(parents=True, exist_ok=True)
    vocab = SPECIALS + WORDS + [f"filler{i}" for i in range(1000 - len(SPECIALS) - len(WORDS))]
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    settings = {
        "hidden_act": "gelu",
        "hidden_size": hidden,
        "num_attention_heads": 2,
        "num_hidden_layers": layers,
        "layer_norm_eps": 1e-12,
        "max_position_embeddings": 64,
        **config,
    }
    (folder / "config.json").write_text(json.dumps(settings), encoding="utf-8")
    weights = tiny_weights(len(vocab), hidden=hidden, layers=layers)
    write_safetensors(folder / "model.safetensors", weights)
    return folder
