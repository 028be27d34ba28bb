"""The relevance splits written unseen (``tests/data/relevance_test28``, decision 0204's test
split, and ``relevance_test29``, decision 0205's): unchanged since they were written, and scored
through the registered prompt hook as a regression gate.

Each split was written before the code it judges, by a writer who read only the README and the
inputs; nobody tuning pokayokay reads its prompts (``tests/helpers/relevance_split.py``). The
bars below are its first-run figures' lower 95 % bounds: the gate catches a change that makes
recall or suggestion clearly worse on unseen prompts; it is not the goal (issue 23's goals are
higher, and stated beside each bar). ``relevance_test2`` (dev, read) is no longer gated here:
the fitting script measures it on every fit; ``relevance_test11`` to ``19``, gated here in
turn, are among the splits the gates are fitted on since decisions 0196, 0198 and 0200.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import relevance_split as split

DATA = split.REPO / "tests" / "data"
SPLITS = (DATA / "relevance_test30", DATA / "relevance_test31")
# hash-checked and measured for size; scored by the lead (first runs in SPLITS.md), not gated
# here (CI time): relevance_test3 (gated until split 11 was written), relevance_test4 (gated until
# split 15 was written, decision 0195), relevance_test5, the second
# test split written blind on 2026-11-28, relevance_test6 to 10, written on 2026-11-29, and
# relevance_test11 to 17, written on 2026-11-30 (15 to 17 gated here until decision 0198), and
# relevance_test20, 21 and 23, written blind as dev (decisions 0199, 0200), never test splits,
# and relevance_test18 and 19, the test splits of decisions 0198 and 0199 (fitted on since 0200),
# and relevance_test22, decision 0200's test split, gated here until relevance_test25 was written
# (CI time: two gated splits at a time), and relevance_test24, decision 0201's test split, gated
# here until relevance_test26 had its first run, and relevance_test25, gated here until
# relevance_test27 had its first run, and relevance_test26, gated here until relevance_test28 had
# its first run, and relevance_test27, gated here until relevance_test29 had its first run, and
# relevance_test28 and 29, gated here until relevance_test31 had its first run (decision 0206)
CHECKED = (*SPLITS, *(DATA / f"relevance_test{n}" for n in range(3, 30)))


# The two checks below read data files only (hashes, counts): the same on every Python, so CI's
# 3.10 and 3.13 tiers skip them (decision 0160); the gates run the hook and stay slow-tier.
@pytest.mark.one_python
@pytest.mark.parametrize("root", CHECKED, ids=lambda p: p.name)
def test_the_split_is_what_its_writer_hashed(root: Path) -> None:
    assert split.check_hashes(root) == []


@pytest.mark.one_python
@pytest.mark.parametrize("root", CHECKED, ids=lambda p: p.name)
def test_the_split_is_big_enough_to_measure(root: Path) -> None:
    import json

    notes = prompts_with = prompts_without = 0
    for path in split.recall_sets(root / "recall"):
        data = json.loads(path.read_text("utf-8"))
        notes += len(data["notes"])
        prompts_with += sum(bool(p["expect"]) for p in data["prompts"])
        prompts_without += sum(not p["expect"] for p in data["prompts"])
    assert notes >= 54 and prompts_with >= 60 and prompts_without >= 40
    skills = json.loads((root / "skills" / "prompts.json").read_text("utf-8"))["prompts"]
    assert len(skills) >= 120
    named = {name for p in skills for name in p["expect"]}
    assert len(named) >= 30


# relevance_test22, the test split of decision 0200 (written blind on 2026-11-30 with
# relevance_test16's brief by an independent pair of writers: an F# airline maintenance tracker,
# a C++ recycling sorting line, an OCaml grid-battery trader; 3 x 18 notes, 120 + 54 recall
# prompts; 40 real skills of an application-security engineer, 120 + 60 prompts), first run of
# the decision as shipped, as scored here (no phrases, no dense opinion): recall hit 0.67 [0.58,
# 0.74], silence 0.87 [0.76, 0.94], precision 0.82 [0.74, 0.89]; skills 0.72 [0.63, 0.79], 0.93
# [0.84, 0.97], 0.90 [0.82, 0.94]. Bars at the lower ends; the goals are recall 0.80 / 0.90 /
# 0.85 and skills 0.85 / 0.95 / 0.85. Gated here at those lower ends until relevance_test25 was
# written; hash-checked since.
# relevance_test24, the test split of decision 0201 (written blind on 2026-12-01 with the same
# brief: a Crystal flower auction, a Nim laundry RFID tracker, a Groovy/Grails customs brokerage;
# 3 x 18 notes, 120 + 54 recall prompts; 40 real skills of a research scientist, 120 + 60
# prompts), first run of the decision as shipped, as scored here: recall hit 0.68 [0.59, 0.75],
# silence 0.94 [0.85, 0.98], precision 0.87 [0.79, 0.92]; skills 0.59 [0.50, 0.68], 0.95 [0.86,
# 0.98], 0.86 [0.76, 0.92]. Gated here at those lower ends until relevance_test26 had its first
# run; hash-checked since.
# relevance_test25 (written blind on 2026-12-01 with the same brief after decision 0201's code:
# a Common Lisp clinical-trial randomiser, Tcl/Expect end-of-line test stations, a Pharo
# harbour-pilot dispatcher; 3 x 18 notes, 120 + 54 recall prompts; 40 real skills of a payments
# platform engineer, 120 + 60 prompts), first run of the code as it stood (d5abd81), as scored
# here: recall hit 0.68 [0.60, 0.76], silence 0.89 [0.78, 0.95], precision 0.86 [0.78, 0.92];
# skills 0.63 [0.54, 0.71], 0.90 [0.80, 0.95], 0.84 [0.76, 0.91].
# Gated here at those lower ends until relevance_test27 had its first run; hash-checked since.
# relevance_test26, the test split of decision 0203 (written blind on 2026-12-01 with the same
# brief before that decision's code: a Vala hand-loom designer, SWI-Prolog working-time checks
# for a rail freight operator's rosters, a D radio-advertising traffic system; 3 x 18 notes,
# 120 + 54 recall prompts; 40 real skills of an analytics engineer, 120 + 60 prompts), first run
# of the decision as shipped (21682be), as scored here: recall hit 0.68 [0.59, 0.75], silence
# 0.91 [0.80, 0.96], precision 0.89 [0.81, 0.94]; skills 0.60 [0.51, 0.68], 0.93 [0.84, 0.97],
# 0.92 [0.84, 0.96].
# Gated here at those lower ends until relevance_test28 had its first run; hash-checked since.
# relevance_test27 (written blind on 2026-12-01 with the same brief after decision 0203's code: a
# Hack ski-pass and lift-gate system, a Pony parking-guidance system, a Haxe water-meter reading
# app; 3 x 18 notes, 120 + 54 recall prompts; 40 real skills of a QA engineer, 120 + 60 prompts),
# first run of the code with every expected skill in the skills gates' fit (2eda5e7), as scored
# here: recall hit 0.55 [0.46, 0.64], silence 0.91 [0.80, 0.96], precision 0.84 [0.74, 0.90];
# skills 0.56 [0.47, 0.64], 0.95 [0.86, 0.98], 0.87 [0.78, 0.93].
# Gated here at those lower ends until relevance_test29 had its first run; hash-checked since.
# relevance_test28, the test split of decision 0204 (written blind on 2026-12-01 with the same
# brief before that decision's code: a COBOL pension-payroll system, MATLAB wind-turbine
# condition monitoring, Ada/SPARK cubesat flight software; 3 x 18 notes, 120 + 54 recall
# prompts; 40 real skills of a developer-relations engineer, 120 + 60 prompts), first run of the
# decision as shipped (7c32d74), as scored here: recall hit 0.68 [0.60, 0.76], silence 0.94
# [0.85, 0.98], precision 0.85 [0.76, 0.90]; skills 0.55 [0.46, 0.64], 0.93 [0.84, 0.97], 0.87
# [0.77, 0.93].
# relevance_test29, the test split of decision 0205 (written blind on 2026-12-01 with the same
# brief before that decision's code: a VB.NET dental-lab case-management system, an Objective-C
# hearing-aid fitting app, a Guile Scheme contest log checker; 3 x 18 notes, 120 + 54 recall
# prompts; 40 real skills of an LLM application engineer, 120 + 60 prompts), first run of the
# decision as shipped (5457893), as scored here: recall hit 0.59 [0.50, 0.68], silence 0.91
# [0.80, 0.96], precision 0.85 [0.75, 0.91]; skills 0.78 [0.69, 0.84], 1.00 [0.94, 1.00], 0.89
# [0.82, 0.94].
# Gated here at those lower ends (28 and 29) until relevance_test31 had its first run;
# hash-checked since.
# relevance_test30, the test split of decision 0206 (written blind on 2026-12-01 with the same
# brief before that decision's code: a Zig caption inserter for live television, a Gleam
# home-care visit scheduler, an ILE RPG credit-union core-banking system; 3 x 18 notes, 120 + 54
# recall prompts; 40 real skills of a web agency developer, 120 + 60 prompts), first run of the
# decision as shipped (7f72cda), as scored here: recall hit 0.68 [0.60, 0.76], silence 0.94
# [0.85, 0.98], precision 0.88 [0.80, 0.93]; skills 0.81 [0.73, 0.87], 0.95 [0.86, 0.98], 0.90
# [0.83, 0.94].
RECALL_BARS_30 = {"hit": 0.60, "silence": 0.85, "precision": 0.80}
SKILL_BARS_30 = {"hit": 0.73, "silence": 0.86, "precision": 0.83}
# relevance_test31 (written blind on 2026-12-01 with the same brief after decision 0206's code:
# a Raku parish-register index, PureScript zoo animal-care records, a Chapel radio-telescope
# imaging pipeline; 3 x 18 notes, 120 + 54 recall prompts; 40 real skills of an indie game
# developer, 120 + 60 prompts), first run (89544db), as scored here: recall hit 0.65 [0.56,
# 0.73], silence 0.94 [0.85, 0.98], precision 0.87 [0.78, 0.92]; skills 0.76 [0.67, 0.83], 0.97
# [0.89, 0.99], 0.90 [0.83, 0.95].
RECALL_BARS_31 = {"hit": 0.56, "silence": 0.85, "precision": 0.78}
SKILL_BARS_31 = {"hit": 0.67, "silence": 0.89, "precision": 0.83}


def _assert_bars(figures: split.Figures, bars: dict[str, float]) -> None:
    got = {name: getattr(figures, name).value for name in bars}
    assert all(got[name] >= bar for name, bar in bars.items()), (got, bars)


BARS = [
    (SPLITS[0], RECALL_BARS_30, SKILL_BARS_30),
    (SPLITS[1], RECALL_BARS_31, SKILL_BARS_31),
]


@pytest.mark.slow
@pytest.mark.every_part  # the regression gate of every relevance change: each CI run (0207)
@pytest.mark.parametrize(("root", "bars", "_skills"), BARS, ids=lambda v: getattr(v, "name", ""))
def test_recall_on_the_unseen_split_holds_its_first_run(
    root: Path, bars: dict[str, float], _skills: dict[str, float]
) -> None:
    parts = [split.score_recall(path) for path in split.recall_sets(root / "recall")]
    _assert_bars(split.combined(parts), bars)


@pytest.mark.slow
@pytest.mark.every_part
@pytest.mark.parametrize(("root", "_recall", "bars"), BARS, ids=lambda v: getattr(v, "name", ""))
def test_skill_suggestion_on_the_unseen_split_holds_its_first_run(
    root: Path, _recall: dict[str, float], bars: dict[str, float]
) -> None:
    _assert_bars(split.score_skills(root / "skills"), bars)
