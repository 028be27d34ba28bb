"""Audit the relevance vocabulary's entries for provenance (issue 23, item 5).

    .venv/bin/python scripts/audit_vocabulary.py            # write docs/vocabulary-provenance.tsv
    .venv/bin/python scripts/audit_vocabulary.py --check    # print the counts, write nothing
    .venv/bin/python scripts/audit_vocabulary.py --drop     # also drop the entries only
                                                            # evaluation prompts justify

The tables audited are the two "subject: words | phrases" tables (recall's concept table,
``pokayokay/recall/concept_table.CONCEPTS``, and skill suggestion's ``EVOKES`` in
``pokayokay/skills/terms.py``), recall's ``SYNONYMS`` and ``WEAK_WORDS``, and skills'
``GENERIC``. Every entry (a word, or a phrase) is looked up, whole-word and lower-cased, with
or without a plural ``s`` (``#`` is any number), in:

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

The provenance file has one line per entry: table, group, entry, class, source, example.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from helpers import splits  # noqa: E402

from pokayokay.recall import concept_table  # noqa: E402
from pokayokay.recall import terms as recall_terms  # noqa: E402
from pokayokay.skills import terms as skill_terms  # noqa: E402

OUT = REPO / "docs" / "vocabulary-provenance.tsv"
TABLES = {  # table name -> (source file, the string constant holding it)
    "concepts": (REPO / "pokayokay/recall/concept_table.py", "CONCEPTS"),
    "skill-evokes": (REPO / "pokayokay/skills/terms.py", "EVOKES"),
}
ONE, PROMPTS = "one prompt", "evaluation prompts"
CLASSES = ("source", "train", PROMPTS, ONE, "unattested")
EXAMPLE_CHARS = 90


class Entry:
    __slots__ = ("table", "group", "text", "kind", "source", "example")

    def __init__(self, table: str, group: str, text: str) -> None:
        self.table, self.group, self.text = table, group, text
        self.kind = self.source = self.example = ""


# -- the tables ------------------------------------------------------------------------------


def table_lines(text: str) -> Iterator[tuple[str, list[str], list[str]]]:
    """``(subject, words, phrases)`` per line of a "subject: words | phrases" table (a line
    starting with a space continues the subject above)."""
    subject = ""
    for raw in text.splitlines():
        if not raw.strip():
            continue
        line = raw
        if not raw.startswith(" "):
            subject, _, line = raw.partition(":")
            subject = subject.strip()
        parts = line.split("|")
        words = parts[0].split()
        phrases = [p.strip() for p in parts[1:] if p.strip()]
        yield subject, words, phrases


def entries() -> list[Entry]:
    found: list[Entry] = []
    for table, text in (("concepts", concept_table.CONCEPTS), ("skill-evokes", skill_terms.EVOKES)):
        for subject, words, phrases in table_lines(text):
            found.extend(Entry(table, subject, w) for w in words)
            found.extend(Entry(table, subject, p) for p in phrases)
    found.extend(Entry("synonyms", to, word) for word, to in recall_terms.SYNONYMS.items())
    found.extend(Entry("weak-words", "weak", w) for w in recall_terms.WEAK_WORDS)
    found.extend(Entry("skill-generic", "generic", w) for w in sorted(skill_terms.GENERIC))
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


def prompts(recall: tuple[tuple[str, str, str], ...], skills: tuple[str, ...]) -> list[str]:
    out: list[str] = []
    for folder, name, key in recall:
        rows = json.loads((splits.DATA / folder / name).read_text("utf-8"))[key]
        out.extend(row["q"] for row in rows)
    for name in skills:
        out.extend(row["prompt"] for row in json.loads((splits.SKILLS_FOLDER / name).read_text()))
    return out


def snippet(text: str, match: re.Match[str]) -> str:
    start = max(0, match.start() - EXAMPLE_CHARS // 2)
    piece = " ".join(text[start : start + EXAMPLE_CHARS].split())
    return ("…" if start else "") + piece


def classify(found: list[Entry]) -> None:
    where = [(w, t, t.lower()) for w, t in sources()]
    train = [(p, p.lower()) for p in prompts(splits.RECALL_TRAIN, splits.SKILLS_TRAIN)]
    dev = [(p, p.lower()) for p in prompts(splits.RECALL_DEV, splits.SKILLS_DEV)]
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


# -- dropping --------------------------------------------------------------------------------


def rebuilt(text: str, table: str, dropped: set[tuple[str, str, str]]) -> str:
    """``text`` (a "subject: words | phrases" table) without the ``dropped`` entries; a line
    left empty goes, and a subject left with nothing goes."""
    out: list[str] = []
    subject = ""
    pending: list[str] = []

    def flush() -> None:
        if pending and (pending[0].partition(":")[2].strip() or len(pending) > 1):
            out.extend(pending)
        pending.clear()

    for raw in text.splitlines():
        if not raw.strip():
            flush()
            out.append(raw)
            continue
        head = not raw.startswith(" ")
        line = raw
        if head:
            flush()
            subject, _, line = raw.partition(":")
            subject = subject.strip()
        parts = line.split("|")
        words = [w for w in parts[0].split() if (table, subject, w) not in dropped]
        phrases = [p.strip() for p in parts[1:] if p.strip()]
        phrases = [p for p in phrases if (table, subject, p) not in dropped]
        body = " ".join(words) + "".join(f" | {p}" for p in phrases)
        body = body.strip()
        if head:
            pending.append(f"{subject}: {body}".rstrip())
        elif body:
            pending.append(f"  {body}")
    flush()
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def drop(found: list[Entry], kinds: tuple[str, ...]) -> int:
    """Remove the entries of the two tables whose class is one of ``kinds`` from their source
    files."""
    dropped = {(e.table, e.group, e.text) for e in found if e.kind in kinds and e.table in TABLES}
    for table, (path, name) in TABLES.items():
        source = path.read_text("utf-8")
        start = source.index(f'{name} = """') + len(f'{name} = """')
        end = source.index('"""', start)
        source = source[:start] + rebuilt(source[start:end], table, dropped) + source[end:]
        path.write_text(source, "utf-8")
    return len(dropped)


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
        print(f"dropped {drop(found, kinds)} entries of the two tables")
        found = [e for e in found if not (e.kind in kinds and e.table in TABLES)]
    lines = ["table\tgroup\tentry\tclass\tsource\texample"]
    lines += [
        "\t".join((e.table, e.group, e.text, e.kind, e.source, e.example.replace("\t", " ")))
        for e in found
    ]
    OUT.write_text("\n".join(lines) + "\n", "utf-8")
    print(f"wrote {OUT.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
