"""Audit the relevance vocabulary's entries for provenance (issue 23, item 5).

    .venv/bin/python scripts/audit_vocabulary.py            # rewrite the files' provenance
    .venv/bin/python scripts/audit_vocabulary.py --check    # print the counts, write nothing
    .venv/bin/python scripts/audit_vocabulary.py --drop     # also drop the entries only
                                                            # evaluation prompts justify

The tables audited are the vocabulary files of the relevance room
(``pokayokay/relevance/vocabulary/*.tsv``: recall's concepts, synonyms and weak words, skill
suggestion's evoked subjects and generic words). Every entry (a word, or a phrase) is looked
up, whole-word and lower-cased, with or without a plural ``s`` (``#`` is any number), in:

* the **sources** that are not evaluation prompts: the notes of the labelled recall sets
  (``tests/data/recall_eval/learnings.json``, ``tests/data/recall/learnings.json``: the
  learnings of the train split) and the ``SKILL.md`` files of the skills catalog
  (``tests/data/skills_eval/skills``: the tools' own descriptions);
* the **train** split's prompts (``tests/helpers/splits.py``);
* the **dev** split's prompts, only to say which entries nothing but an evaluation prompt
  holds. The test split is never read.

Each entry is then

* ``source`` — a source holds it: kept; provenance is the file (and note id) and the example
  its sentence;
* ``train`` — two train prompts or more hold it and no source does: kept (a pattern the
  training prompts share, not one prompt's wording);
* ``one prompt`` — no source, and one evaluation prompt (train or dev) alone holds it:
  ``--drop`` removes it from its table;
* ``evaluation prompts`` — no source, fewer than two train prompts, and dev prompts: only
  evaluation prompts justify it (``--drop-all-evaluation`` removes these too);
* ``unattested`` — nothing in the repository holds it: general vocabulary whose example is
  outside the repository; kept and listed, to be given a dictionary or tool-doc source.

Each file has one line per entry: group, kind, entry, class, source, example; the audit
rewrites the last three (and, with ``--drop``, removes lines of the concept tables).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from helpers import splits  # noqa: E402

from pokayokay.relevance import vocabulary  # noqa: E402

FILES = {  # table name -> vocabulary file (pokayokay/relevance/vocabulary/<name>.tsv)
    "concepts": "concepts",
    "skill-evokes": "skill_evokes",
    "synonyms": "synonyms",
    "weak-words": "weak_words",
    "skill-generic": "skill_generic",
}
DROPPABLE = ("concepts", "skill-evokes")  # the tables --drop edits
HEADER = "group\tkind\tentry\tclass\tsource\texample"
ONE, PROMPTS = "one prompt", "evaluation prompts"
CLASSES = ("source", "train", PROMPTS, ONE, "unattested")
EXAMPLE_CHARS = 90


class Entry:
    __slots__ = ("table", "group", "form", "text", "kind", "source", "example")

    def __init__(self, table: str, group: str, text: str, form: str = "word") -> None:
        self.table, self.group, self.text, self.form = table, group, text, form
        self.kind = self.source = self.example = ""


# -- the tables ------------------------------------------------------------------------------


def entries() -> list[Entry]:
    """Every entry of every vocabulary file, in file order."""
    found: list[Entry] = []
    for table, name in FILES.items():
        for entry in vocabulary.entries(name):
            found.append(Entry(table, entry.group, entry.text, entry.kind))
    return found


# -- where an entry occurs -------------------------------------------------------------------


def pattern(entry: str) -> re.Pattern[str]:
    body = entry.removeprefix("?").lower()
    tokens = [re.escape(t).replace("\\#", "[0-9]+") for t in body.split()]
    joined = r"\s+".join(tokens)
    return re.compile(rf"(?<![a-z0-9]){joined}(?:s|es)?(?![a-z0-9])")


def sources() -> list[tuple[str, str]]:
    """(where, text) of every non-evaluation source."""
    out: list[tuple[str, str]] = []
    for folder in ("recall_eval", "recall"):
        path = splits.DATA / folder / "learnings.json"
        for note in json.loads(path.read_text("utf-8"))["notes"]:
            out.append((f"tests/data/{folder}/learnings.json#{note['id']}", note["text"]))
    for skill in sorted((splits.SKILLS_FOLDER / "skills").glob("*/SKILL.md")):
        out.append((str(skill.relative_to(REPO)), skill.read_text("utf-8")))
    return out


def prompts(
    recall: tuple[tuple[str, str, str], ...],
    skills: tuple[str, ...],
    skill_folders: tuple[tuple[Path, tuple[str, ...]], ...] = (),
) -> list[str]:
    """The prompts of the recall sets ``recall`` (either format: a prompt file, or a project
    file of an unseen split), of the skills_eval files ``skills`` and of the prompt files under
    each of ``skill_folders``."""
    out: list[str] = []
    for folder, name, key in recall:
        data = json.loads((splits.DATA / folder / name).read_text("utf-8"))
        rows = data["prompts"] if key == splits.PROJECT else data[key]
        out.extend(row["q"] for row in rows)
    files = [splits.SKILLS_FOLDER / name for name in skills]
    files += [folder / name for folder, names in skill_folders for name in names]
    for path in files:
        data = json.loads(path.read_text("utf-8"))
        rows = data if isinstance(data, list) else data["prompts"]
        out.extend(row["prompt"] if "prompt" in row else row["q"] for row in rows)
    return out


def snippet(text: str, match: re.Match[str]) -> str:
    start = max(0, match.start() - EXAMPLE_CHARS // 2)
    piece = " ".join(text[start : start + EXAMPLE_CHARS].split())
    return ("…" if start else "") + piece


def classify(found: list[Entry]) -> None:
    where = [(w, t, t.lower()) for w, t in sources()]
    train_read = ((splits.SKILLS_TRAIN_READ_FOLDER, splits.SKILLS_TRAIN_READ),)
    dev_unseen = ((splits.SKILLS_DEV_UNSEEN_FOLDER, splits.SKILLS_DEV_UNSEEN),)
    train = prompts(splits.RECALL_TRAIN + splits.RECALL_TRAIN_READ, splits.SKILLS_TRAIN, train_read)
    dev = prompts(splits.RECALL_DEV, splits.SKILLS_DEV, dev_unseen)
    train = [(p, p.lower()) for p in train]
    dev = [(p, p.lower()) for p in dev]
    for entry in found:
        rx = pattern(entry.text)
        for name, text, lower in where:
            match = rx.search(lower)
            if match:
                entry.kind, entry.source, entry.example = "source", name, snippet(text, match)
                break
        if entry.kind:
            continue
        held = [(p, m) for p, lower in train if (m := rx.search(lower))]
        if len(held) >= 2:
            entry.kind, entry.source = "train", f"train split prompts ({len(held)})"
            entry.example = snippet(held[0][0], held[0][1])
            continue
        in_dev = [(p, m) for p, lower in dev if (m := rx.search(lower))]
        if held or in_dev:
            entry.kind = ONE if len(held) + len(in_dev) == 1 else PROMPTS
            entry.source = f"train prompts ({len(held)}), dev prompts ({len(in_dev)})"
            entry.example = snippet(*(held or in_dev)[0])
        else:
            entry.kind, entry.source = "unattested", "general vocabulary (no repository example)"


# -- writing --------------------------------------------------------------------------------


def write(found: list[Entry]) -> None:
    """Rewrite every vocabulary file with ``found`` (its entries and their provenance)."""
    for table, name in FILES.items():
        lines = [HEADER]
        lines += [
            "\t".join((e.group, e.form, e.text, e.kind, e.source, e.example.replace("\t", " ")))
            for e in found
            if e.table == table
        ]
        Path(vocabulary.path(name)).write_text("\n".join(lines) + "\n", "utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="print the counts, write nothing")
    parser.add_argument(
        "--drop", action="store_true", help="drop the entries one evaluation prompt alone holds"
    )
    parser.add_argument(
        "--drop-all-evaluation",
        action="store_true",
        help="also drop those only evaluation prompts hold (fewer than two train prompts)",
    )
    args = parser.parse_args(argv)
    found = entries()
    classify(found)
    counts = Counter((e.table, e.kind) for e in found)
    for table in ("concepts", "skill-evokes", "synonyms", "weak-words", "skill-generic"):
        total = sum(n for (t, _k), n in counts.items() if t == table)
        shown = ", ".join(f"{kind} {counts[(table, kind)]}" for kind in CLASSES)
        print(f"{table}: {total} entries: {shown}")
    print(f"all: {len(found)} entries")
    if args.check:
        return 0
    kinds = (ONE, PROMPTS) if args.drop_all_evaluation else (ONE,) if args.drop else ()
    if kinds:
        kept = [e for e in found if not (e.kind in kinds and e.table in DROPPABLE)]
        print(f"dropped {len(found) - len(kept)} entries of {', '.join(DROPPABLE)}")
        found = kept
    write(found)
    print("wrote the vocabulary files (pokayokay/relevance/vocabulary/*.tsv)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
