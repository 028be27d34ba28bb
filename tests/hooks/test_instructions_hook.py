"""The InstructionsLoaded hook, fed real payloads captured from Claude Code 2.1.330.

Paths in the payloads (``/home/dev/project/...``) are rewritten to a temporary project; every
other field is kept as captured. Only ``load_reason: path_glob_match`` for one of the project's
``.claude/rules/`` files is recorded; every other payload is a no-op that creates nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers.gitrepo import git
from helpers.hooks import run_hook
from helpers.paths import FIXTURE_SAMPLES_DIR

from pokayokay.failures.store import FailureStore, RuleLoad
from pokayokay.hooks.instructions import instructions_loaded, rule_rel_path

CAPTURED_ROOT = "/home/dev/project"


def load_sample(name: str, project: Path) -> dict[str, Any]:
    text = (FIXTURE_SAMPLES_DIR / f"InstructionsLoaded.{name}.json").read_text(encoding="utf-8")
    payload: dict[str, Any] = json.loads(text)

    def rewrite(value: Any) -> Any:
        if isinstance(value, str) and value.startswith(CAPTURED_ROOT):
            return str(project) + value[len(CAPTURED_ROOT) :]
        if isinstance(value, list):
            return [rewrite(v) for v in value]
        return value

    return {key: rewrite(value) for key, value in payload.items()}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    rules = root / ".claude" / "rules"
    (rules / "sub").mkdir(parents=True)
    (rules / "python.md").write_text("---\npaths:\n  - src/**/*.py\n---\n# Python\n")
    (rules / "sub" / "nested.md").write_text("# Nested\n")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("print()\n")
    return Path(os.path.realpath(root))


def store_for(key: Path) -> FailureStore:
    return FailureStore.for_project(os.path.realpath(key))


def recorded(key: Path) -> list[RuleLoad]:
    store = store_for(key)
    if not store.path.exists():
        return []
    with store:
        loads: list[RuleLoad] = store.rule_loads()
    return loads


def run_instructions_hook(payload: dict[str, Any]) -> tuple[int, str, str]:
    return run_hook("InstructionsLoaded", payload)


def test_path_glob_match_records_the_load(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    payload = load_sample("path_glob_match", project)
    assert payload["file_path"] == f"{project}/.claude/rules/python.md"
    code, out, err = run_instructions_hook(payload)
    assert (code, out, err) == (0, "", "")
    (load,) = recorded(project)
    assert load.session_id == "0ebb4b7c-7011-44b6-afdb-8302b6c943e8"
    assert load.rule_path == ".claude/rules/python.md"
    assert load.trigger_path == "src/app.py"
    assert load.ts > 0


@pytest.mark.parametrize("reason", ["session_start", "nested_traversal", "include"])
def test_other_load_reasons_are_no_ops(
    reason: str, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    payload = load_sample(reason, project)
    assert payload["load_reason"] == reason
    assert run_instructions_hook(payload) == (0, "", "")
    assert not store_for(project).path.exists()  # nothing created


@pytest.mark.parametrize("reason", ["compact", "", None, 3])
def test_unexpected_reasons_are_no_ops(reason: object, project: Path) -> None:
    payload = load_sample("path_glob_match", project)
    payload["load_reason"] = reason
    assert instructions_loaded(payload, "InstructionsLoaded") == ""
    assert not store_for(project).path.exists()


@pytest.mark.parametrize(
    "file_path",
    [
        "{home}/.claude/rules/mine.md",  # a user rule
        "{project}/CLAUDE.md",  # not under .claude/rules
        "{project}/.claude/rules",  # the folder itself
        "{project}/.claude/rules/notes.txt",  # not a .md file
        "{project}/../other/.claude/rules/python.md",  # another project
        ".claude/rules/python.md",  # not absolute
        "",
    ],
)
def test_files_outside_the_projects_rules_are_ignored(
    file_path: str, project: Path, isolated_home: Path
) -> None:
    payload = load_sample("path_glob_match", project)
    payload["file_path"] = file_path.format(home=isolated_home, project=project)
    assert instructions_loaded(payload, "InstructionsLoaded") == ""
    assert not store_for(project).path.exists()


def test_missing_session_id_is_a_no_op(project: Path) -> None:
    payload = load_sample("path_glob_match", project)
    del payload["session_id"]
    assert instructions_loaded(payload, "InstructionsLoaded") == ""
    assert not store_for(project).path.exists()


def test_trigger_outside_the_project_is_kept_absolute(project: Path, tmp_path: Path) -> None:
    payload = load_sample("path_glob_match", project)
    payload["trigger_file_path"] = str(tmp_path / "elsewhere.py")
    del payload["globs"]
    instructions_loaded(payload, "InstructionsLoaded")
    (load,) = recorded(project)
    assert load.trigger_path == str(tmp_path / "elsewhere.py")
    payload.pop("trigger_file_path")
    instructions_loaded(payload, "InstructionsLoaded")
    assert recorded(project)[1].trigger_path is None


def test_nested_rules_folder_and_repeated_loads(project: Path) -> None:
    payload = load_sample("path_glob_match", project)
    payload["file_path"] = f"{project}/.claude/rules/sub/nested.md"
    for _ in range(3):
        instructions_loaded(payload, "InstructionsLoaded")
    payload["session_id"] = "another-session"
    instructions_loaded(payload, "InstructionsLoaded")
    loads = recorded(project)
    assert [load.rule_path for load in loads] == [".claude/rules/sub/nested.md"] * 4
    assert len({load.session_id for load in loads}) == 2


def test_symlinked_rule_reported_by_its_resolved_path(project: Path) -> None:
    shared = project / "shared" / "team.md"
    shared.parent.mkdir()
    shared.write_text("---\npaths: ['*.py']\n---\nteam\n")
    os.symlink(shared, project / ".claude" / "rules" / "team.md")
    payload = load_sample("path_glob_match", project)
    payload["file_path"] = str(shared)  # what Claude Code reports
    instructions_loaded(payload, "InstructionsLoaded")
    assert [load.rule_path for load in recorded(project)] == [".claude/rules/team.md"]
    payload["file_path"] = str(project / "shared" / "unrelated.md")
    instructions_loaded(payload, "InstructionsLoaded")
    assert len(recorded(project)) == 1


def test_launched_in_a_subfolder_of_a_git_repo(project: Path) -> None:
    git(project, "init", "-q")
    payload = load_sample("path_glob_match", project)
    payload["cwd"] = str(project / "src")
    instructions_loaded(payload, "InstructionsLoaded")
    (load,) = recorded(project)
    assert load.rule_path == ".claude/rules/python.md"
    assert load.trigger_path == "src/app.py"


def test_linked_worktree_records_into_the_main_repositorys_store(
    project: Path, tmp_path: Path
) -> None:
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "init")
    worktree = tmp_path / "wt"
    git(project, "worktree", "add", "-q", str(worktree))
    worktree = Path(os.path.realpath(worktree))
    payload = load_sample("path_glob_match", worktree)
    instructions_loaded(payload, "InstructionsLoaded")
    (load,) = recorded(project)  # keyed by the canonical git root, like Claude Code's memory
    assert load.rule_path == ".claude/rules/python.md"
    assert load.trigger_path == "src/app.py"


def test_claude_project_dir_wins_over_cwd(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    payload = load_sample("path_glob_match", project)
    payload["cwd"] = str(tmp_path)
    instructions_loaded(payload, "InstructionsLoaded")
    assert len(recorded(project)) == 1


def test_rule_rel_path_helper(project: Path) -> None:
    root = str(project)
    assert rule_rel_path(f"{root}/.claude/rules/a/b.md", root) == ".claude/rules/a/b.md"
    assert rule_rel_path(f"{root}/pkg/.claude/rules/x.md", root) == "pkg/.claude/rules/x.md"
    assert rule_rel_path(f"{root}/.claude/rules.md", root) is None
    assert rule_rel_path(f"{root}/docs/rules/x.md", root) is None


def test_loads_show_up_in_rules_list(project: Path) -> None:
    from pokayokay.cli.rules import cmd_rules_list

    instructions_loaded(load_sample("path_glob_match", project), "InstructionsLoaded")
    data = json.loads(cmd_rules_list(project, as_json=True)[1])
    row = next(r for r in data["rules"] if r["rule_path"] == "python.md")
    assert (row["loads"], row["sessions"]) == (1, 1)


def test_handler_uses_only_the_standard_library(project: Path, isolated_home: Path) -> None:
    payload = load_sample("path_glob_match", project)
    code = (
        "import json, sys\n"
        "import pokayokay.hooks.instructions as m\n"
        "m.instructions_loaded(json.loads(sys.argv[1]), 'InstructionsLoaded')\n"
        "bad = sorted(n for n in sys.modules if n.split('.')[0] in "
        "('ruamel', 'pathspec', 'jinja2', 'watchdog', 'hypothesis'))\n"
        "print(bad)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, json.dumps(payload)],
        capture_output=True,
        text=True,
        check=True,
        env=dict(os.environ),
    )
    assert done.stdout.strip() == "[]"
    assert len(recorded(project)) == 1  # it did record (same POKAYOKAY_HOME)
