"""The labelled failure corpus (tests/data/failure_corpus.yaml) through the real capture hooks:
each case's failing call is fed to Claude Code's hook the way Claude Code sends it, in a git
repository holding the case's project files, and the category and paths the store records are
compared with the labels. Both must be right for at least 95% of the cases."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from helpers.corpus import captured, project
from helpers.paths import DATA_DIR
from ruamel.yaml import YAML

from pokayokay.failures.classify import CATEGORIES

CORPUS = DATA_DIR / "failure_corpus.yaml"
REQUIRED = 0.95


def load_corpus() -> list[dict[str, Any]]:
    cases = YAML(typ="safe").load(CORPUS.read_text(encoding="utf-8"))
    assert isinstance(cases, list)
    return cases


def _captured(case: dict[str, Any], root: Path, n: int) -> tuple[str | None, set[str]]:
    failures = captured(case, root, n, case.get("tool", "Bash"))
    if not failures:
        return None, set()
    category = Counter(f.category for f in failures).most_common(1)[0][0]
    return category, {p for f in failures for p in f.paths}


def test_the_corpus_is_broad_and_well_formed() -> None:
    cases = load_corpus()
    assert len(cases) >= 40
    ids = [case["id"] for case in cases]
    assert len(set(ids)) == len(ids)
    for case in cases:
        assert case["category"] in CATEGORIES, case["id"]
        assert "group" in case, case["id"]
        assert isinstance(case["paths"], list), case["id"]
        assert case.get("command") or case.get("tool_input"), case["id"]
    commands = " ".join(str(case.get("command", "")) for case in cases)
    for tool in (
        "pytest", "unittest", "jest", "vitest", "mocha", "go test", "cargo", "ruff", "flake8",
        "eslint", "prettier", "black", "mypy", "pyright", "tsc", "npm", "pnpm", "yarn", "pip ",
        "uv ", "poetry", "git push", "git merge", "git rebase", "make", "clang", "docker build",
        "python3 tests/",
    ):  # fmt: skip
        assert tool in commands, tool
    categories = Counter(case["category"] for case in cases)
    assert {"permissions", "dependencies", "edit"} <= set(categories)


def test_category_and_paths_are_right_for_95_percent(tmp_path: Path) -> None:
    cases = load_corpus()
    wrong_category: list[str] = []
    wrong_paths: list[str] = []
    for n, case in enumerate(cases):
        root = project(tmp_path, case)
        category, paths = _captured(case, root, n)
        if category != case["category"]:
            wrong_category.append(f"{case['id']}: {category} (expected {case['category']})")
        if paths != set(case["paths"]):
            wrong_paths.append(f"{case['id']}: {sorted(paths)} (expected {case['paths']})")
    total = len(cases)
    category_ok = (total - len(wrong_category)) / total
    paths_ok = (total - len(wrong_paths)) / total
    print(
        f"\nfailure corpus: {total} cases; category {total - len(wrong_category)}/{total} "
        f"({category_ok:.1%}); paths {total - len(wrong_paths)}/{total} ({paths_ok:.1%})"
    )
    for line in wrong_category + wrong_paths:
        print("  miss:", line)
    assert category_ok >= REQUIRED, json.dumps(wrong_category, indent=1)
    assert paths_ok >= REQUIRED, json.dumps(wrong_paths, indent=1)


@pytest.mark.parametrize("case_id", ["ssh-key-outside-project", "git-push-rejected"])
def test_nothing_outside_the_project_and_no_branch_names(tmp_path: Path, case_id: str) -> None:
    case = next(c for c in load_corpus() if c["id"] == case_id)
    root = project(tmp_path, case)
    (root / "feature").mkdir()  # a folder named like the branch's first part is no excuse
    _, paths = _captured(case, root, 0)
    assert not any(p.startswith(("~", "/")) or "feature/cart" in p or ".ssh" in p for p in paths)
