"""The train / dev / test splits of the labelled relevance sets, declared once
(``tests/data/SPLITS.md`` explains them): ``scripts/fit_relevance_gate.py`` fits on TRAIN and
reports DEV; the tests hold their bars per split. TEST (``tests/data/relevance_test4/``, since
2026-11-28; ``relevance_test3/`` before it, still unread: :data:`HELD_OUT_FOLDER`) is scored
only through the registered hook, by the lead: neither the fitting script nor these lists ever
read it. ``tests/data/relevance_test/`` was the test split until 2026-11-28 and is
train now (read, decision 0115); ``tests/data/relevance_test2/`` was the test split until
2026-11-28, when split 3 was written, and is dev now (:data:`DEV_UNSEEN_FOLDER`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parents[1] / "data"

# recall: (folder under tests/data, file, key of its prompt list)
RECALL_TRAIN: tuple[tuple[str, str, str], ...] = (
    ("recall_eval", "prompts.json", "prompts"),
    *(("recall_eval", f"blind{n}.json", "prompts") for n in ("", 2, 3, 4, 5, 6, 7, 8, 9, 10)),
    ("recall", "queries.json", "queries"),
)
# The key of a recall set in the unseen splits' format: one project file holding its own
# ``notes`` and ``prompts`` (``relevance_test*/recall/*.json``).
PROJECT = "project"
# dev: the held-out prompts and the second unseen split (the test split until 2026-11-28)
RECALL_DEV: tuple[tuple[str, str, str], ...] = (
    ("recall_eval", "heldout.json", "prompts"),
    *(
        ("relevance_test2/recall", name, PROJECT)
        for name in ("django-vet-clinic.json", "rn-hiking-app.json", "rust-soil-sensor.json")
    ),
)

# skill suggestion: files of tests/data/skills_eval (the catalog is its skills/ folder)
SKILLS_TRAIN: tuple[str, ...] = (
    "prompts.json", "blind3.json", "blind4.json", "blind5.json", "blind6.json", "blind7.json",
)  # fmt: skip
SKILLS_DEV: tuple[str, ...] = ("held_out.json",)
SKILLS_FOLDER = DATA / "skills_eval"

# the notes each recall folder's prompts are about
RECALL_NOTES = {"recall_eval": "learnings.json", "recall": "learnings.json"}
TEST_FOLDER = DATA / "relevance_test4"  # never read here: the lead scores it through the hook
# The test split until relevance_test4 was written (2026-11-28): never read either, scored
# through the hook as a gate beside it; it becomes dev once someone reads it.
HELD_OUT_FOLDER = DATA / "relevance_test3"
# A second test split written blind the same night by another writer (tests/data/SPLITS.md):
# never read either; hash-checked in CI, scored by the lead.
TEST2_FOLDER = DATA / "relevance_test5"
# A third, written blind on 2026-11-29 (SwiftUI, Spring Boot, Laravel; 36 skills): never read.
TEST3_FOLDER = DATA / "relevance_test6"
# A fourth, written blind on 2026-11-29 (Flutter, JUCE, ASP.NET Core; 44 skills): never read.
TEST4_FOLDER = DATA / "relevance_test7"
# A fifth, written blind on 2026-11-29 after decision 0167 (Next.js, Zephyr, R Shiny; 38 skills).
TEST5_FOLDER = DATA / "relevance_test8"
# A sixth, written blind on 2026-11-29 before decision 0177 (Go webhooks, Python bird-call ML,
# Godot roguelite; 43 skills): never read.
TEST6_FOLDER = DATA / "relevance_test9"
# A seventh, written blind on 2026-11-29 before decision 0181 (Rails, Rust CLI, Kotlin Android;
# 48 skills): never read.
TEST7_FOLDER = DATA / "relevance_test10"
# An eighth, written blind on 2026-11-30 after decision 0181 (Nuxt box office, ROS 2 robots,
# Scala/ZIO buses; 40 skills): never read; hook-gated in CI beside relevance_test4.
TEST8_FOLDER = DATA / "relevance_test11"
# A ninth, written blind on 2026-11-30 after decision 0189 (SvelteKit gardens, Haskell/Elm
# invoicing, Electron transcription; 40 skills): never read; hook-gated in CI beside
# relevance_test4 and relevance_test11.
TEST9_FOLDER = DATA / "relevance_test12"
# A tenth, written blind on 2026-11-30 after decision 0193 (Elixir/Phoenix brackets, dbt/Snowflake
# grocery analytics, Expo/Firebase running club; 40 skills): never read; hash-checked in CI.
TEST10_FOLDER = DATA / "relevance_test13"
# An eleventh, written blind on 2026-11-30 after decision 0194 (three new projects; 40 skills, 37
# names new, most of them scientific): the first runs of decision 0195, then dev (BLIND_DEV).
TEST11_FOLDER = DATA / "relevance_test14"
# A twelfth, written blind on 2026-11-30 after relevance_test14's first runs: the test split of
# decision 0195's model as shipped, never read here.
TEST12_FOLDER = DATA / "relevance_test15"
# The thirteenth to fifteenth (relevance_test15 to 17, the test splits of decisions 0195 to
# 0197) are blind dev since decision 0198 (BLIND_DEV). The sixteenth and seventeenth, written
# blind on 2026-11-30 after decision 0197 with relevance_test16's brief by two independent pairs
# of writers (Fortran, Erlang, Haskell projects, a data and ML engineer's 40 skills; Delphi,
# Kotlin Multiplatform, ABAP projects, a freelance web designer's 40 skills), were the test
# splits of decisions 0198 and 0199 and are blind dev since decision 0200. The eighteenth,
# relevance_test22, written blind on 2026-11-30 with the same brief (F#, C++ and OCaml projects;
# an application-security engineer's 40 skills) before decision 0200's code, is its test split:
# no script reads it, the lead scores it through the hook only. The nineteenth, relevance_test24,
# written blind on 2026-12-01 with the same brief (Crystal, Nim and Groovy/Grails projects; a
# research scientist's 40 skills) before decision 0201's code, is that decision's test split,
# read by nothing either. The twentieth, relevance_test25, written blind on 2026-12-01 with the
# same brief (Common Lisp, Tcl and Pharo projects; a payments platform engineer's 40 skills)
# after decision 0201's code, measured the shipped code once and is read by nothing either. The
# twenty-first, relevance_test26, written blind on 2026-12-01 with the same brief (Vala, Prolog
# and D projects; an analytics engineer's 40 skills) before decision 0203's code, is its test
# split, read by nothing either. The twenty-second, relevance_test27, written blind on 2026-12-01
# with the same brief (Hack, Pony and Haxe projects; a QA engineer's 40 skills) after decision
# 0203's code, measured the skills gates refitted with every expected skill: read by nothing
# either. The twenty-third, relevance_test28, written blind on 2026-12-01 with the same brief
# (COBOL, MATLAB and Ada/SPARK projects; a developer-relations engineer's 40 skills), is read by
# nothing either. The twenty-fourth, relevance_test29, written blind on 2026-12-01 with the same
# brief (VB.NET, Objective-C and Guile Scheme projects; an LLM application engineer's 40
# skills), is read by nothing either. The twenty-fifth, relevance_test30, written blind on
# 2026-12-01 with the same brief (Zig, Gleam and ILE RPG projects; a web agency developer's 40
# skills), is read by nothing either.
# Since decision 0206, relevance_test22 and 24 to 27 (each scored as a test split through the
# hook, never read) are blind dev: fitted on (BLIND_DEV). The test splits are the newest. The
# twenty-sixth, relevance_test31, written blind on 2026-12-01 with the same brief after decision
# 0206's code (Raku, PureScript and Chapel projects; an indie game developer's 40 skills), is
# read by nothing either.
TEST_SPLITS: tuple[str, ...] = (
    "relevance_test28", "relevance_test29", "relevance_test30", "relevance_test31",
)  # fmt: skip
# The splits written blind after relevance_test2 and before relevance_test28 (before
# relevance_test15 until decision 0198, before relevance_test18 until decision 0200, before
# relevance_test22 until decision 0206), among them
# relevance_test20, 21 and 23, written blind as dev (decisions 0199, 0200), with the files of
# phrases written for their notes and skills (tests/data/recall_asked, skills_asked): the
# fitting script measured its gates on them as "blind" dev (decision 0195); since decision 0196
# it fits on them beside TRAIN and reports each held out, judged by the gate fitted without it.
BLIND_DEV: tuple[tuple[str, str, str], ...] = (
    *((f"relevance_test{n}", "test3_5.json", "test3_5.json") for n in (3, 4, 5)),
    *((f"relevance_test{n}", "test6_8.json", "test6_8.json") for n in (6, 7, 8)),
    *((f"relevance_test{n}", f"test{n}.json", f"test{n}.json") for n in (9, 10)),
    *((f"relevance_test{n}", f"test{n}_v2.json", f"test{n}.json") for n in (11, 12)),
    *(
        (f"relevance_test{n}", f"test{n}.json", f"test{n}.json")
        for n in (13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27)
    ),
)
# The prompt-level models of decision 0195 (pokayokay/relevance/calls.py) learn from every split
# written blind, each a fold of its own (scripts/calls_model.py): the first two and the blind
# splits; the gates are fitted on their out-of-fold probabilities. The test splits (TEST_SPLITS)
# are never read by them (relevance_test15 until decision 0198, relevance_test18 until 0200,
# relevance_test22 until 0206).
CALLS_SPLITS: tuple[str, ...] = ("relevance_test", "relevance_test2", *(b[0] for b in BLIND_DEV))
DEV_UNSEEN_FOLDER = DATA / "relevance_test2"  # the second unseen split, now dev (SPLITS.md)
TRAIN_READ_FOLDER = DATA / "relevance_test"  # the first unseen split, read: train
# the second unseen split's skills (its SKILL.md folders and prompts.json): skills dev too
SKILLS_DEV_UNSEEN_FOLDER = DEV_UNSEEN_FOLDER / "skills"
SKILLS_DEV_UNSEEN: tuple[str, ...] = ("prompts.json",)
# The first unseen split, read on 2026-11-28 to learn what fails (decision 0115): a read set
# moves to train (SPLITS.md), so the gate is fitted on it too; heldout / held_out stay dev.
RECALL_TRAIN_READ: tuple[tuple[str, str, str], ...] = tuple(
    ("relevance_test/recall", name, PROJECT)
    for name in ("fleetline.json", "gridcast.json", "shiftly.json")
)
SKILLS_TRAIN_READ_FOLDER = TRAIN_READ_FOLDER / "skills"  # its SKILL.md folders and prompts.json
SKILLS_TRAIN_READ: tuple[str, ...] = ("prompts.json",)


def names(split: tuple[tuple[str, str, str], ...] | tuple[str, ...]) -> list[str]:
    """The split's files as paths under tests/data (for provenance)."""
    out = []
    for item in split:
        if isinstance(item, tuple):
            out.append(f"tests/data/{item[0]}/{item[1]}")
        else:
            out.append(f"tests/data/skills_eval/{item}")
    return out


def recall_projects(split: str) -> tuple[tuple[str, str, str], ...]:
    """The project files of an unseen split's ``recall`` folder, as a recall split's items."""
    folder = f"{split}/recall"
    return tuple((folder, p.name, PROJECT) for p in sorted((DATA / folder).glob("*.json")))


def recall_sources(
    split: Sequence[tuple[str, str, str]],
) -> list[tuple[str, list[dict[str, Any]], list[dict[str, Any]]]]:
    """Each set of ``split`` as (corpus name, its notes, its prompts). Two formats: a file of
    prompts whose notes are the folder's :data:`RECALL_NOTES` file, and (the
    unseen splits' format, :data:`PROJECT`) one project file holding its own ``notes`` and
    ``prompts`` (notes without a kind are learnings, as ``pokayokay remember`` stores them)."""
    out = []
    for folder, name, key in split:
        data = json.loads((DATA / folder / name).read_text("utf-8"))
        if key == PROJECT:
            notes = [{"kind": "learning", **note} for note in data["notes"]]
            out.append((f"{folder}/{name}", notes, data["prompts"]))
            continue
        shared = json.loads((DATA / folder / RECALL_NOTES[folder]).read_text())
        out.append((folder, shared["notes"], data[key]))
    return out


def skill_rows(path: Path) -> list[dict[str, Any]]:
    """A skill prompt file's rows as ``{"prompt", "expected", "also"}``: the labelled sets' own
    format (a list of ``{"prompt", "expected"}``) or the unseen splits' (``{"prompts": [{"q",
    "expect": [...]}]}``): ``expected`` the first skill expected (or None), ``also`` the others a
    prompt expects (a prompt expecting two skills is right with either)."""
    data = json.loads(path.read_text("utf-8"))
    if isinstance(data, list):
        return [{**row, "also": []} for row in data]
    return [
        {
            "prompt": row["q"],
            "expected": row["expect"][0] if row["expect"] else None,
            "also": list(row["expect"][1:]),
        }
        for row in data["prompts"]
    ]
