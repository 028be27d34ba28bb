"""The fitted gates shipped beside this module: ``gate_recall.json`` and ``gate_skills.json``,
written by ``scripts/fit_relevance_gate.py``; never edited by hand. Each holds what a prompt
reads (features, weights, bias, threshold); how it was fitted (the method, the splits, the
figures) is in ``gate_<kind>.provenance.json`` beside it, read by tests and people, never by a
hook: read by :mod:`pokayokay.infra.lean_json`, it was 95% of the file's cost (decision 0163).

Reads package data only, as rendering a bundled template does, so the pure core may call it;
each file is read once per process, through :mod:`pokayokay.infra.lean_json` (no ``json`` import
on the prompt path) and with :mod:`os.path` (no ``pathlib`` import either: the prompt hook
resolves its paths without it). A file that is missing or is not a gate raises (OSError,
ValueError): the hook's boundary logs it and fails open.
"""

from __future__ import annotations

import os

from pokayokay.infra.lean_json import loads
from pokayokay.relevance.gate import Gate, select

TYPE_CHECKING = False  # no typing import at run time: the prompt hook imports this module
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import TypeVar

    from pokayokay.relevance.gate import Evidence

    Candidate = TypeVar("Candidate")

HERE = os.path.dirname(os.path.abspath(__file__))
RECALL = "recall"
SKILLS = "skills"
# Recall's gate for a note that carries how a teammate might ask for it (``asked`` phrases):
# fitted on the same prompts with those phrases in the notes (decision 0175).
RECALL_ASKED = "recall_asked"
# Skill suggestion's gate for a skill that carries how a user might ask for it (decision 0176).
SKILLS_ASKED = "skills_asked"
# Skill suggestion's gates for a prompt the dense opinion answered for (decision 0181): the
# lexical features and the model's three (``gate.DENSE_FEATURES``).
SKILLS_DENSE = "skills_dense"
SKILLS_ASKED_DENSE = "skills_asked_dense"
RECALL_DENSE = "recall_dense"
RECALL_ASKED_DENSE = "recall_asked_dense"
KINDS = (
    RECALL, SKILLS, RECALL_ASKED, SKILLS_ASKED,
    SKILLS_DENSE, SKILLS_ASKED_DENSE, RECALL_DENSE, RECALL_ASKED_DENSE,
)  # fmt: skip
# The gate that judges a candidate carrying ``asked`` phrases, by the kind of the decision.
ASKED_KIND = {
    RECALL: RECALL_ASKED, SKILLS: SKILLS_ASKED,
    SKILLS_DENSE: SKILLS_ASKED_DENSE, RECALL_DENSE: RECALL_ASKED_DENSE,
}  # fmt: skip
# The gate of a kind for a prompt the dense opinion answered for.
DENSE_KIND = {SKILLS: SKILLS_DENSE, RECALL: RECALL_DENSE}
_loaded: dict[str, Gate] = {}


def gate_name(kind: str) -> str:
    """The file name of the ``kind`` gate (one of :data:`KINDS`)."""
    if kind not in KINDS:
        raise ValueError(f"no relevance gate for {kind!r}")
    return f"gate_{kind}.json"


def gate_path(kind: str) -> str:
    """The file of the ``kind`` gate (:func:`gate_name`)."""
    return os.path.join(HERE, gate_name(kind))


def provenance_path(kind: str) -> str:
    """The file saying how the ``kind`` gate was fitted (:func:`provenance`)."""
    return gate_path(kind).removesuffix(".json") + ".provenance.json"


def provenance(kind: str) -> dict[str, object]:
    """How the shipped ``kind`` gate was fitted: the command, date, method, training and dev
    files and their figures; ValueError when the file holds no JSON object."""
    with open(provenance_path(kind), encoding="utf-8") as file:
        found = loads(file.read())
    if not isinstance(found, dict):
        raise ValueError(f"{provenance_path(kind)}: not a JSON object")
    return found


def fitted(kind: str) -> Gate:
    """The shipped ``kind`` gate, read once."""
    name = gate_name(kind)
    found = _loaded.get(name)
    if found is None:
        with open(gate_path(kind), encoding="utf-8") as file:
            found = _loaded[name] = Gate.from_data(loads(file.read()))
    return found


def speak(
    gate: Gate | bool,
    kind: str,
    ranked: Sequence[Candidate],
    evidence: Callable[[], Sequence[Evidence]],
    asked: Callable[[Candidate], bool] | None = None,
) -> list[Candidate]:
    """The candidates of ``ranked`` (best first) the gate lets speak: one by default, a second
    only when nearly as probable and about something else (:func:`~pokayokay.relevance.gate.
    select`). ``gate`` True: the shipped ``kind`` gate; False: every candidate speaks.
    ``evidence``: the :class:`~pokayokay.relevance.gate.Evidence` of each of ``ranked``, in
    order, computed only when a gate decides. The one decision recall
    (:mod:`pokayokay.relevance.note_gating`) and skill suggestion
    (:mod:`pokayokay.relevance.skill_gating`) take. ``asked``: whether a candidate carries ``asked``
    phrases; with the shipped gates, such a candidate is judged by its kind's :data:`ASKED_KIND`
    gate (decisions 0175, 0176)."""
    if not ranked or gate is False:
        return list(ranked)
    gates = None
    if gate is True:
        gate = fitted(kind)
        if asked is not None and any(map(asked, ranked)):
            other = fitted(ASKED_KIND[kind])
            gates = [other if asked(c) else gate for c in ranked]
    return [ranked[i] for i in select(gate, evidence(), gates)]
