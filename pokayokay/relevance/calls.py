"""Whether a prompt calls for anything at all: a learned, prompt-level opinion (decision 0195).

The gate's other features say how well a candidate matches the prompt. None says whether the
prompt is the kind of request that memory or a skill could change. "rename the pinia store id
'cart' to 'shoppingCart'" matches the Pinia skill as well as a real Pinia task does; "what's the
stripe test card number for a declined payment?" matches the Stripe skill better than most
Stripe work. Both call for nothing: a tiny literal edit, a quick factual question.

``calls`` is that opinion, learned rather than listed: L2 logistic regression over the prompt's
words, its adjacent pairs of words and its length (:func:`pieces`), fitted by
``scripts/calls_model.py`` on every labelled prompt set of the room (the prompts that expect a
note or a skill against those that expect none) and frozen beside this module as
``calls_notes.tsv`` and ``calls_skills.tsv``: the pieces of largest weight, one
``piece<TAB>weight`` a line, and the bias on the line ``#bias<TAB>value``. How each was fitted
is in ``calls_<room>.provenance.json``, never read by a hook. The gate weighs the probability as
its ``calls`` feature (:class:`pokayokay.relevance.gate.Evidence`).

Reads package data only, once per process, with plain string methods: no ``re``, ``json`` or
``pathlib`` on the prompt path. A missing or broken file raises (OSError, ValueError): the hook's
boundary logs it and fails open.
"""

from __future__ import annotations

import math
import os
from itertools import pairwise

HERE = os.path.dirname(os.path.abspath(__file__))
NOTES = "notes"
SKILLS = "skills"
ROOMS = (NOTES, SKILLS)
BIAS = "#bias"
# The length pieces: "<len0>" for 0-4 words, "<len1>" for 5-9 ... up to "<len8>" (40 or more).
LENGTH_STEP = 5
LENGTH_CAP = 8
# Bounded work, whatever the payload: the prompt's first characters only (a pasted log does not
# say what the request is).
MAX_CHARS = 4000
_loaded: dict[str, tuple[dict[str, float], float]] = {}


class _Separators(dict):  # type: ignore[type-arg]
    """``str.translate``'s table: ASCII letters and digits stay, every other character becomes a
    space (``__missing__``: looked up only for characters not in the table)."""

    def __missing__(self, code: int) -> str:
        return " "


_TABLE = _Separators({c: chr(c) for c in b"abcdefghijklmnopqrstuvwxyz0123456789"})


def words(text: str) -> list[str]:
    """The runs of ASCII letters and digits of ``text``, lower-cased, in order."""
    return text[:MAX_CHARS].lower().translate(_TABLE).split()


def pieces(text: str) -> set[str]:
    """What the model reads of a prompt: its words, each pair of adjacent words ("rename the"),
    and its length as one piece (``<len{n}>``, n words // :data:`LENGTH_STEP`, at most
    :data:`LENGTH_CAP`)."""
    found = words(text)
    out = set(found)
    out.update(f"{a} {b}" for a, b in pairwise(found))
    out.add(f"<len{min(len(found) // LENGTH_STEP, LENGTH_CAP)}>")
    return out


def model_path(room: str) -> str:
    """The weights of ``room``'s model (one of :data:`ROOMS`)."""
    if room not in ROOMS:
        raise ValueError(f"no prompt model for {room!r}")
    return os.path.join(HERE, f"calls_{room}.tsv")


def provenance_path(room: str) -> str:
    """How ``room``'s model was fitted (folds, out-of-fold AUC): read by tests, never a hook."""
    return model_path(room).removesuffix(".tsv") + ".provenance.json"


def parse(text: str) -> tuple[dict[str, float], float]:
    """A model file's weights and bias; ValueError when it is not one."""
    weights: dict[str, float] = {}
    bias = None
    for number, line in enumerate(text.splitlines(), 1):
        piece, tab, value = line.rpartition("\t")
        try:
            weight = float(value)
        except ValueError:
            weight = math.nan
        if not tab or not piece or not math.isfinite(weight):
            raise ValueError(f"line {number} is not 'piece<TAB>weight'")
        if piece == BIAS:
            bias = weight
        else:
            weights[piece] = weight
    if bias is None:
        raise ValueError(f"no {BIAS} line")
    return weights, bias


def render(weights: dict[str, float], bias: float) -> str:
    """The file :func:`parse` reads: the bias first, then the pieces by weight, largest first
    (ties by piece), so that a refit changes the lines it changes."""
    lines = [f"{BIAS}\t{bias!r}"]
    lines += [f"{p}\t{w!r}" for p, w in sorted(weights.items(), key=lambda kv: (-kv[1], kv[0]))]
    return "\n".join(lines) + "\n"


def model(room: str) -> tuple[dict[str, float], float]:
    """``room``'s shipped model, read once."""
    found = _loaded.get(room)
    if found is None:
        with open(model_path(room), encoding="utf-8") as file:
            found = _loaded[room] = parse(file.read())
    return found


def probability(weights: dict[str, float], bias: float, text: str) -> float:
    """The model's probability that ``text`` calls for a note (or a skill)."""
    z = bias + sum(weights.get(p, 0.0) for p in pieces(text))
    if z < -60.0:
        return 0.0
    return 1.0 / (1.0 + math.exp(-z))


def calls(prompt: str, room: str) -> float:
    """How likely ``prompt`` is to call for a note (``room`` :data:`NOTES`) or a skill
    (:data:`SKILLS`) at all, by the shipped model."""
    weights, bias = model(room)
    return probability(weights, bias, prompt)
