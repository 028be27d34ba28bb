"""The relevance splits written unseen (``tests/data/relevance_test3``, the test split since
2026-11-28, and ``tests/data/relevance_test2``, dev since then): unchanged since they were
written, and scored through the registered prompt hook as a regression gate.

The split was written before the code it judges, by a writer who read only the README and the
inputs; nobody tuning pokayokay reads its prompts (``tests/helpers/relevance_split.py``). The
bars below are its first-run figures, rounded down by about one interval's half-width: the gate
catches a change that makes recall or suggestion clearly worse on unseen prompts; it is not the
goal (issue 23's goals are higher, and stated beside each bar).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import relevance_split as split

DATA = split.REPO / "tests" / "data"
SPLITS = (DATA / "relevance_test3", DATA / "relevance_test2")


@pytest.mark.parametrize("root", SPLITS, ids=lambda p: p.name)
def test_the_split_is_what_its_writer_hashed(root: Path) -> None:
    assert split.check_hashes(root) == []


@pytest.mark.parametrize("root", SPLITS, ids=lambda p: p.name)
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


# relevance_test3, the test split since 2026-11-28 (written blind: 3 projects x 18 notes, 97 + 55
# recall prompts; 38 real skills, 117 + 57 prompts), scored through the hook on main before the
# session's relevance changes: recall hit 0.75 [0.66, 0.83], silence 0.85 [0.74, 0.92], precision
# 0.80 [0.71, 0.87]; skills 0.70 [0.61, 0.78], 0.84 [0.73, 0.91], 0.88 [0.80, 0.93]; then once after
# them (the first run of that code): recall unchanged; skills hit 0.70 [0.61, 0.78], silence 0.88
# [0.77, 0.94], precision 0.91 [0.83, 0.95]. Bars at the lower ends of that run. (The first
# unseen split, relevance_test, is train since 2026-11-28 and no longer gated here.)
RECALL_BARS = {"hit": 0.66, "silence": 0.74, "precision": 0.71}  # goals: 0.80 / 0.90 / 0.85
SKILL_BARS = {"hit": 0.61, "silence": 0.77, "precision": 0.83}  # goals: 0.85 / 0.95 / 0.85
# relevance_test2, first run (2026-11-28, main after issue 23's dense gate and audit): recall hit
# 0.68 [0.57, 0.77], silence 0.80 [0.67, 0.88], precision 0.72 [0.61, 0.81]; skills hit 0.70
# [0.60, 0.78], silence 0.80 [0.67, 0.88], precision 0.76 [0.67, 0.84].
RECALL_BARS_2 = {"hit": 0.57, "silence": 0.67, "precision": 0.61}
# Skills, dev since 2026-11-28 (read; decisions 0121, 0122): hit 0.73 [0.64, 0.81], silence
# 0.81 [0.69, 0.90], precision 0.80 [0.70, 0.87]; bars at those lower ends.
SKILL_BARS_2 = {"hit": 0.64, "silence": 0.69, "precision": 0.70}


def _assert_bars(figures: split.Figures, bars: dict[str, float]) -> None:
    got = {name: getattr(figures, name).value for name in bars}
    assert all(got[name] >= bar for name, bar in bars.items()), (got, bars)


BARS = [(SPLITS[0], RECALL_BARS, SKILL_BARS), (SPLITS[1], RECALL_BARS_2, SKILL_BARS_2)]


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
