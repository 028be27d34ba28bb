"""The fitted gates shipped beside this module: ``gate_recall.json`` and ``gate_skills.json``
(written by ``scripts/fit_relevance_gate.py``; never edited by hand).

Reads package data only, as rendering a bundled template does, so the pure core may call it;
each file is read once per process, through :mod:`pokayokay.infra.cjson` (no ``json`` import
on the prompt path) and with :mod:`os.path` (no ``pathlib`` import either: the prompt hook
resolves its paths without it). A file that is missing or is not a gate raises (OSError,
ValueError): the hook's boundary logs it and fails open.
"""

from __future__ import annotations

import os

from pokayokay.infra.cjson import loads
from pokayokay.relevance.gate import Gate

HERE = os.path.dirname(os.path.abspath(__file__))
RECALL = "recall"
SKILLS = "skills"
_loaded: dict[str, Gate] = {}


def gate_path(kind: str) -> str:
    """The file of the ``kind`` gate (:data:`RECALL` or :data:`SKILLS`)."""
    if kind not in (RECALL, SKILLS):
        raise ValueError(f"no relevance gate for {kind!r}")
    return os.path.join(HERE, f"gate_{kind}.json")


def fitted(kind: str) -> Gate:
    """The shipped ``kind`` gate, read once."""
    found = _loaded.get(kind)
    if found is None:
        with open(gate_path(kind), encoding="utf-8") as file:
            found = _loaded[kind] = Gate.from_data(loads(file.read()))
    return found
