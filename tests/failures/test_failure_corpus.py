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
from helpers.gitrepo import git
from helpers.hooks import run_hook
from helpers.paths import DATA_DIR
from ruamel.yaml import YAML

from pokayokay.failures.classify import CATEGORIES
from pokayokay.failures.store import FailureStore

CORPUS = DATA_DIR / "failure_corpus.yaml"
SESSION = "3c1d2b7e-8a51-4f0e-9d3b-5a7c9e1f0a42"
REQUIRED = 0.95


def load_corpus() -> list[dict[str, Any]]:
    cases = YAML(typ="safe").load(CORPUS.read_text(encoding="utf-8"))
    assert isinstance(cases, list)
    return cases


def _fill(value: Any, root: Path) -> Any:
    if isinstance(value, str):
        return value.replace("{root}", str(root))
    if isinstance(value, dict):
        return {k: _fill(v, root) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, root) for v in value]
    return value


def _payload(case: dict[str, Any], root: Path, n: int) -> tuple[str, dict[str, Any]]:
    cwd = root / case["cwd"] if case.get("cwd") else root
    tool = case.get("tool", "Bash")
    tool_input = _fill(case.get("tool_input") or {"command": case["command"]}, root)
    tool_input.setdefault("description", "run it")
    common = {
        "session_id": SESSION,
        "transcript_path": f"/home/dev/.claude/projects/x/{SESSION}.jsonl",
        "cwd": str(cwd),
        "permission_mode": "default",
    }
    tool_use_id = f"toolu_01Corpus{n:04d}"
    output = _fill(case["output"], root).rstrip("\n")
    if case.get("event") == "PostToolBatch":
        call = {
            "tool_name": tool,
            "tool_input": tool_input,
            "tool_use_id": tool_use_id,
            "tool_response": output,
        }
        return "PostToolBatch", {**common, "hook_event_name": "PostToolBatch", "tool_calls": [call]}
    return "PostToolUseFailure", {
        **common,
        "hook_event_name": "PostToolUseFailure",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": tool_use_id,
        "error": f"Exit code {case['exit_code']}\n{output}",
        "is_interrupt": False,
        "duration_ms": 1830,
    }


def _project(tmp_path: Path, case: dict[str, Any]) -> Path:
    root = (tmp_path / case["id"]).resolve()
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    for name in [*case["paths"], *case.get("files", [])]:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# {name}\n", encoding="utf-8")
    if case.get("cwd"):
        (root / case["cwd"]).mkdir(parents=True, exist_ok=True)
    git(root, "add", "-A")
    return root


def _captured(case: dict[str, Any], root: Path, n: int) -> tuple[str | None, set[str]]:
    event, payload = _payload(case, root, n)
    code, out, err = run_hook(event, payload)
    assert (code, out, err) == (0, "", ""), case["id"]
    store = FailureStore.for_project(str(root))
    if not store.path.exists():
        return None, set()
    with store:
        failures = store.failures()
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
        root = _project(tmp_path, case)
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
    root = _project(tmp_path, case)
    (root / "feature").mkdir()  # a folder named like the branch's first part is no excuse
    _, paths = _captured(case, root, 0)
    assert not any(p.startswith(("~", "/")) or "feature/cart" in p or ".ssh" in p for p in paths)
