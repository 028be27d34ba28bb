"""The relevance splits written unseen (``tests/data/relevance_test17``, the test split since
decision 0197, ``relevance_test16``, that of decision 0196, and ``relevance_test15``, that of
decision 0195): unchanged since they were written, and scored through the registered prompt hook
as a regression gate.

Each split was written before the code it judges, by a writer who read only the README and the
inputs; nobody tuning pokayokay reads its prompts (``tests/helpers/relevance_split.py``). The
bars below are its first-run figures' lower 95 % bounds: the gate catches a change that makes
recall or suggestion clearly worse on unseen prompts; it is not the goal (issue 23's goals are
higher, and stated beside each bar). ``relevance_test2`` (dev, read) is no longer gated here:
the fitting script measures it on every fit; ``relevance_test11`` and ``12``, gated here until
decision 0196, are among the splits the gates are fitted on since.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import relevance_split as split

DATA = split.REPO / "tests" / "data"
SPLITS = (DATA / "relevance_test17", DATA / "relevance_test16", DATA / "relevance_test15")
# hash-checked and measured for size; scored by the lead (first runs in SPLITS.md), not gated
# here (CI time): relevance_test3 (gated until split 11 was written), relevance_test4 (gated until
# split 15 was written, decision 0195), relevance_test5, the second
# test split written blind on 2026-11-28, relevance_test6 to 10, written on 2026-11-29, and
# relevance_test11 to 14, written on 2026-11-30
CHECKED = (*SPLITS, *(DATA / f"relevance_test{n}" for n in range(3, 15)))


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


# relevance_test17, the test split since decision 0197 (written blind on 2026-11-30 with
# relevance_test16's brief: PowerShell school-district automation, Solidity grants contracts, a
# Pandoc book pipeline, 3 x 18 notes, 120 + 54 recall prompts; 40 real Cloudflare and TypeScript
# skills, 120 + 60 prompts), first run of the decision as shipped, as scored here: recall hit
# 0.66 [0.57, 0.74], silence 0.81 [0.69, 0.90], precision 0.77 [0.68, 0.84]; skills hit 0.58
# [0.49, 0.67], silence 0.95 [0.86, 0.98], precision 0.80 [0.70, 0.87]. Bars at the lower ends.
RECALL_BARS_17 = {"hit": 0.57, "silence": 0.69, "precision": 0.68}  # goals: 0.80 / 0.90 / 0.85
SKILL_BARS_17 = {"hit": 0.49, "silence": 0.86, "precision": 0.70}  # goals: 0.85 / 0.95 / 0.85
# relevance_test16, the test split of decision 0196 (written blind on 2026-11-30: a Clojure
# e-discovery platform, a Koha library consortium, Julia flood forecasting, 3 x 18 notes, 120 +
# 54 recall prompts; 40 real mobile/Expo/Firebase/Sentry skills, 120 + 60 prompts; its writers
# asked to vary the prompts that call for nothing), first run of the decision as shipped, as
# scored here (no phrases, no dense opinion): recall hit 0.55 [0.46, 0.64], silence 0.83 [0.71,
# 0.91], precision 0.75 [0.65, 0.83]; skills hit 0.61 [0.52, 0.69], silence 0.95 [0.86, 0.98],
# precision 0.72 [0.62, 0.79]. Bars at the lower ends.
RECALL_BARS = {"hit": 0.46, "silence": 0.71, "precision": 0.65}  # goals: 0.80 / 0.90 / 0.85
SKILL_BARS = {"hit": 0.52, "silence": 0.86, "precision": 0.62}  # goals: 0.85 / 0.95 / 0.85
# relevance_test15, the test split of decision 0195 (written blind on 2026-11-30: WooCommerce
# shop, Odoo customisation, Angular claims desk, 3 x 18 notes, 120 + 54 recall prompts; 40 real
# skills, mostly for security work, 120 + 60 prompts), first run of that decision as shipped, as
# scored here: recall hit 0.57 [0.48, 0.65], silence 0.93 [0.82, 0.97], precision 0.82 [0.72,
# 0.89]; skills hit 0.44 [0.36, 0.53], silence 0.85 [0.74, 0.92], precision 0.65 [0.55, 0.75].
# Second run, after decision 0196: recall 0.54 / 0.93 / 0.84, skills 0.45 / 0.92 / 0.65. Bars at
# the first run's lower ends.
RECALL_BARS_15 = {"hit": 0.48, "silence": 0.82, "precision": 0.72}
SKILL_BARS_15 = {"hit": 0.36, "silence": 0.74, "precision": 0.55}


def _assert_bars(figures: split.Figures, bars: dict[str, float]) -> None:
    got = {name: getattr(figures, name).value for name in bars}
    assert all(got[name] >= bar for name, bar in bars.items()), (got, bars)


BARS = [
    (SPLITS[0], RECALL_BARS_17, SKILL_BARS_17),
    (SPLITS[1], RECALL_BARS, SKILL_BARS),
    (SPLITS[2], RECALL_BARS_15, SKILL_BARS_15),
]


@pytest.mark.slow
@pytest.mark.parametrize(("root", "bars", "_skills"), BARS, ids=lambda v: getattr(v, "name", ""))
def test_recall_on_the_unseen_split_holds_its_first_run(
    root: Path, bars: dict[str, float], _skills: dict[str, float]
) -> None:
    parts = [split.score_recall(path) for path in split.recall_sets(root / "recall")]
    _assert_bars(split.combined(parts), bars)


@pytest.mark.slow
@pytest.mark.parametrize(("root", "_recall", "bars"), BARS, ids=lambda v: getattr(v, "name", ""))
def test_skill_suggestion_on_the_unseen_split_holds_its_first_run(
    root: Path, _recall: dict[str, float], bars: dict[str, float]
) -> None:
    _assert_bars(split.score_skills(root / "skills"), bars)
