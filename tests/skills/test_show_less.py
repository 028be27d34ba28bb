"""Show less, better (issue 23, item 3; decision 0122): one skill by default, a second only
when its score is nearly the first's, on every prompt of the dev sets."""

from __future__ import annotations

import json

import pytest
from helpers.paths import DATA_DIR

from pokayokay.relevance.skill_gating import SECOND
from pokayokay.skills.catalog import catalog_from_folder
from pokayokay.skills.suggest import suggest


def _sets() -> list[tuple[str, list[str]]]:
    eval_rows = json.loads((DATA_DIR / "skills_eval" / "held_out.json").read_text())
    dev = [("skills_eval", [r["prompt"] for r in eval_rows])]
    rows = json.loads((DATA_DIR / "relevance_test2/skills/prompts.json").read_text())["prompts"]
    return [*dev, ("relevance_test2/skills", [r["q"] for r in rows])]


@pytest.mark.parametrize(("folder", "prompts"), _sets())
def test_a_second_skill_only_when_nearly_as_strong(folder: str, prompts: list[str]) -> None:
    root = DATA_DIR / folder
    catalog = catalog_from_folder(root / "skills" if (root / "skills").is_dir() else root)
    seconds = 0
    for prompt in prompts:
        shown = suggest(prompt, catalog).suggestions
        assert len(shown) <= 2
        if len(shown) == 2:
            seconds += 1
            assert shown[1].score >= SECOND * shown[0].score - 1e-3  # scores are rounded
    assert seconds <= len(prompts) // 20  # one skill is the rule
