"""Recall's labelled evaluation sets, analysed exactly as the sources analyse real files, and the
figures the tests assert (and ``python tests/helpers/recall_eval.py`` prints).

Sets: ``tests/data/recall_eval`` — an online-course team's 45 learnings and 5 fix episodes with
``prompts.json`` (split ``dev``: looked at while the concept table and the floor were tuned;
``fresh``: written after that), ``heldout.json`` (written before the second round of changes to
the method and never used to tune them), ``blind.json`` and ``blind2.json`` (written after the
code was frozen), ``blind3.json`` (written by a writer who never saw the code, measured before
and after the third round only), ``blind4.json`` and ``blind5.json`` (written by writers who read
only the notes; blind4 measured before the fourth round and read during it, blind5 kept unread
until it was done) and ``blind6.json`` (the same, its ordinary prompts marked ``surface`` or
``subject``, kept unread until the fourth round was committed) and ``blind7.json`` (the same
kinds, kept unread until the round was done);
``tests/data/recall`` — an invoicing team's notes and prompts, written before the concept table.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pokayokay.learnings import model as learnings
from pokayokay.recall.readers import FIX_WEIGHT, decision_document, learning_document
from pokayokay.relevance import note_index as recall
from pokayokay.relevance.note_index import Document, Index
from pokayokay.safety.sanitize import excerpt

DATA = Path(__file__).resolve().parents[1] / "data"
EVAL = DATA / "recall_eval"
OLDER = DATA / "recall"


def _json(path: Path, key: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads(path.read_text("utf-8"))[key]
    return rows


def eval_notes() -> list[dict[str, Any]]:
    return _json(EVAL / "learnings.json", "notes")


def older_notes() -> list[dict[str, Any]]:
    return _json(OLDER / "learnings.json", "notes")


def as_learning(note: dict[str, Any]) -> learnings.Learning:
    """A labelled note as ``pokayokay remember`` would store it."""
    text = note["text"]
    return learnings.Learning(
        name=learnings.make_name(text),
        description=excerpt(text, learnings.DESCRIPTION_MAX),
        text=text,
        category=note.get("category") or "heuristics",
        confidence=note.get("confidence", "medium"),
        hash=learnings.identity(text),
        asked=tuple(note.get("asked", ())),
    )


ASKED = Path(__file__).resolve().parents[1] / "data" / "recall_asked"


def asked_phrases(name: str = "train_dev.json") -> dict[str, list[str]]:
    """How a teammate might ask for each labelled note (``tests/data/recall_asked``; decision
    0175), by the note's text."""
    from helpers.relevance_split import asked_phrases as read

    return read(ASKED / name)


def with_asked(
    notes: list[dict[str, Any]], phrases: dict[str, list[str]]
) -> list[dict[str, Any]]:
    """``notes`` with the ``asked`` phrases of the learnings ``phrases`` holds."""
    return [
        {**note, "asked": phrases[note["text"]]}
        if note.get("kind", "learning") == "learning" and note["text"] in phrases
        else note
        for note in notes
    ]


def build(notes: list[dict[str, Any]]) -> Index:
    """The index of labelled notes (learnings, decisions, fixes) as the sources build it."""
    docs: list[Document] = []
    counts: list[dict[str, int]] = []
    for note in notes:
        if note["kind"] == "learning":
            doc, doc_counts = learning_document(as_learning(note), f"learning-{note['id']}.md")
        elif note["kind"] == "decision":
            made = decision_document(note["text"])
            assert made is not None
            doc, doc_counts = made
        else:
            doc = Document(note["id"], "fix", note["text"], weight=FIX_WEIGHT)
            doc_counts = recall.features(note["text"])
        doc.id = note["id"]
        docs.append(doc)
        counts.append(doc_counts)
    return Index.build(docs, counts)


def prompt_sets() -> dict[str, list[dict[str, Any]]]:
    """Every labelled prompt set of the online-course corpus, by name."""
    sets: dict[str, list[dict[str, Any]]] = {"tuned": [], "fresh": []}
    for prompt in _json(EVAL / "prompts.json", "prompts"):
        sets["tuned" if prompt["split"] == "dev" else "fresh"].append(prompt)
    blinds = [f"blind{n}" for n in ("", 2, 3, 4, 5, 6, 7, 8, 9, 10)]
    for name in ("heldout", *blinds):
        path = EVAL / f"{name}.json"
        if path.exists():
            sets[name] = _json(path, "prompts")
    return sets


def older_prompts() -> list[dict[str, Any]]:
    return _json(OLDER / "queries.json", "queries")


@dataclass
class Rates:
    """Hits (every expected note recalled) and silences (nothing recalled) of one set."""

    hits: int = 0
    related: int = 0
    silent: int = 0
    unrelated: int = 0
    expected: int = 0
    found: int = 0
    shown: int = 0  # notes recalled on the related prompts
    misses: list[str] = field(default_factory=list)
    noise: list[str] = field(default_factory=list)

    @property
    def hit_rate(self) -> float:
        return self.hits / self.related if self.related else 1.0

    @property
    def silence(self) -> float:
        return self.silent / self.unrelated if self.unrelated else 1.0

    @property
    def recall_at_3(self) -> float:
        """The share of expected notes among the recalled ones."""
        return self.found / self.expected if self.expected else 1.0

    @property
    def precision(self) -> float:
        """The share of expected notes among the notes recalled on the related prompts: what
        reaches the model besides the note it needs."""
        return self.found / self.shown if self.shown else 1.0

    def __str__(self) -> str:
        return (
            f"hit {self.hits}/{self.related} = {self.hit_rate:.3f}, "
            f"silence {self.silent}/{self.unrelated} = {self.silence:.3f}, "
            f"precision {self.found}/{self.shown} = {self.precision:.3f}"
        )


def rates(
    index: Index, prompts: list[dict[str, Any]], floor: float = recall.FLOOR, gate: bool = True
) -> Rates:
    """The figures of ``prompts``; ``gate``: with the fitted relevance gate (else none)."""
    out = Rates()
    for prompt in prompts:
        hits = recall.recall(index, prompt["q"], floor=floor, gate=gate).hits
        ids = {h.doc.id for h in hits}
        if prompt["expect"]:
            out.related += 1
            out.expected += len(prompt["expect"])
            out.found += sum(1 for e in prompt["expect"] if e in ids)
            out.shown += len(ids)
            if set(prompt["expect"]) <= ids:
                out.hits += 1
            else:
                out.misses.append(f"{prompt['expect']} {prompt['q']!r} -> {sorted(ids)}")
        else:
            out.unrelated += 1
            if ids:
                out.noise.append(
                    f"{prompt['q']!r} -> " + ", ".join(f"{h.doc.id} {h.score:.2f}" for h in hits)
                )
            else:
                out.silent += 1
    return out


def report(floor: float = recall.FLOOR, gate: bool = True) -> dict[str, Rates]:
    """Every set's figures at ``floor`` (the older set under the name ``older``)."""
    index = build(eval_notes())
    found = {name: rates(index, prompts, floor, gate) for name, prompts in prompt_sets().items()}
    found["older"] = rates(build(older_notes()), older_prompts(), floor, gate)
    return found


def main(argv: list[str]) -> int:
    verbose = "-v" in argv
    gate = "--no-gate" not in argv
    floors = [float(a) for a in argv if not a.startswith("-")] or [recall.FLOOR]
    for floor in floors:
        print(f"floor {floor:.2f}" + ("" if gate else ", no relevance gate"))
        for name, r in report(floor, gate).items():
            extra = f" (recall@3 {r.recall_at_3:.3f})" if name == "older" else ""
            print(f"  {name:8} {r}{extra}")
            if verbose:
                for line in r.misses:
                    print(f"      miss  {line}")
                for line in r.noise:
                    print(f"      noise {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
