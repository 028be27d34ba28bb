"""Tests for pokayokay.infra.location_rules: the pathlib-free resolver the prompt hook uses gives
the folders pokayokay.infra.locate gives, on every layout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path, PurePosixPath

import pytest
from helpers.gitrepo import git
from hypothesis import given
from hypothesis import strategies as st

from pokayokay.infra.locate import memory_location_for, resolve_memory_location
from pokayokay.infra.location_rules import as_path, hook_memory_paths, resolve
from pokayokay.infra.state import (
    project_state_dir,
    project_state_path,
    state_home,
    state_home_path,
)

PARTS = st.sampled_from(["", ".", "..", "a", "b c", "~", "x.y", "é"])


@given(st.booleans(), st.integers(0, 4), st.lists(PARTS, max_size=6), st.booleans())
def test_as_path_writes_what_pathlib_writes(
    absolute: bool, slashes: int, parts: list[str], trailing: bool
) -> None:
    sep = "/" * max(1, slashes)
    text = ("/" * slashes if absolute else "") + sep.join(parts) + ("/" if trailing else "")
    assert as_path(text) == str(PurePosixPath(text))


def _layout(root: Path) -> dict[str, Path]:
    """Folders of every kind: plain, a repository and its subfolder, a linked worktree, a
    symlink into the repository, settings naming other memory folders (valid or not)."""
    plain = root / "plain" / "sub"
    plain.mkdir(parents=True)
    repo = root / "repo"
    (repo / "a" / "b").mkdir(parents=True)
    git(repo, "init", "-q")
    git(repo, "commit", "-q", "--allow-empty", "-m", "start")
    worktree = root / "wt"
    git(repo, "worktree", "add", "-q", "-b", "feature", str(worktree))
    (worktree / "deep").mkdir()
    link = root / "link"
    link.symlink_to(repo / "a")
    settings = {
        repo / ".claude" / "settings.json": {"autoMemoryDirectory": "~/mem/shared/"},
        worktree / ".claude" / "settings.local.json": {"autoMemoryDirectory": "/abs//mem/./x/"},
        root / "rel" / ".claude" / "settings.json": {"autoMemoryDirectory": "relative/x"},
        root / "homeish" / ".claude" / "settings.json": {"autoMemoryDirectory": "~/"},
    }
    for path, data in settings.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data), "utf-8")
    (root / "broken" / ".claude").mkdir(parents=True)
    (root / "broken" / ".claude" / "settings.json").write_text("{not json", "utf-8")
    return {
        "plain": root / "plain",
        "plain-sub": plain,
        "repo": repo,
        "repo-deep": repo / "a" / "b",
        "repo-dotted": repo / "a" / "." / "b",
        "worktree": worktree,
        "worktree-deep": worktree / "deep",
        "symlink": link,
        "relative-setting": root / "rel",
        "home-setting": root / "homeish",
        "broken-setting": root / "broken",
    }


ENVIRONMENTS = [
    {},
    {"CLAUDE_CONFIG_DIR": "{root}/config/"},
    {"CLAUDE_CONFIG_DIR": "{root}//config/./"},
    {"CLAUDE_CONFIG_DIR": "{root}/config", "CLAUDE_CODE_PROJECT_DIR_NAME": "my_proj-1"},
    {"CLAUDE_CODE_PROJECT_DIR_NAME": "my_proj-1"},  # ignored without CLAUDE_CONFIG_DIR
    {"CLAUDE_CONFIG_DIR": "{root}/config", "CLAUDE_CODE_PROJECT_DIR_NAME": "not valid!"},
    {"HOME": "{root}//home/"},
]


@pytest.mark.parametrize("env_template", ENVIRONMENTS)
def test_memory_paths_are_the_locations_folders(
    tmp_path: Path, env_template: dict[str, str]
) -> None:
    folders = _layout(tmp_path)
    managed = tmp_path / "managed.json"
    managed.write_text(json.dumps({"autoMemoryDirectory": "~/managed"}), "utf-8")
    env = {"HOME": str(tmp_path / "home")}
    env.update({k: v.format(root=tmp_path) for k, v in env_template.items()})
    for name, folder in folders.items():
        for memory_dir in (None, "~/m/", "/abs//m", "./~/m"):
            for managed_file in (None, managed):
                expected = resolve_memory_location(
                    folder,
                    memory_dir=None if memory_dir is None else Path(memory_dir),
                    environ=env,
                    managed_settings=managed_file,
                )
                found = resolve(
                    str(folder),
                    memory_dir=memory_dir,
                    environ=env,
                    managed_settings=None if managed_file is None else str(managed_file),
                ).paths
                where = f"{name} {env_template} {memory_dir} {managed_file}"
                assert found.memory_dir == str(expected.memory_dir), where
                assert found.project_dir == str(expected.project_dir), where
                assert found.project_key == str(expected.project_key), where
                assert found.config_dir == str(expected.config_dir), where


def test_the_layouts_reach_every_kind_of_answer(tmp_path: Path) -> None:
    """The agreement above is not vacuous: the layouts give different folders and sources."""
    folders = _layout(tmp_path)
    env = {"HOME": str(tmp_path / "home")}
    sources = {resolve_memory_location(f, environ=env).source for f in folders.values()}
    assert "default (git root)" in sources
    assert "default (project folder)" in sources
    assert any(s.endswith("settings.json") for s in sources)
    assert any(s.endswith("settings.local.json") for s in sources)
    keys = {resolve(str(f), environ=env).paths.project_key for f in folders.values()}
    assert str(folders["repo"]) in keys
    assert str(folders["worktree"]) not in keys  # a worktree is keyed by its main repository


def test_hook_memory_paths_honour_the_override(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "p"
    project.mkdir()
    for override in (None, str(tmp_path / "elsewhere/"), "~/mine"):
        if override is None:
            monkeypatch.delenv("POKAYOKAY_MEMORY_DIR", raising=False)
        else:
            monkeypatch.setenv("POKAYOKAY_MEMORY_DIR", override)
        expected = memory_location_for(project)
        found = hook_memory_paths(str(project))
        assert found.memory_dir == str(expected.memory_dir)
        assert found.project_key == str(expected.project_key)


@pytest.mark.parametrize("home", ["{root}/state", "{root}/state/", "{root}//state/./x"])
def test_state_paths_are_the_state_folders(tmp_path: Path, home: str) -> None:
    env = {"POKAYOKAY_HOME": home.format(root=tmp_path)}
    assert state_home_path(env) == str(state_home(env))
    for key in ("/home/u/proj", "/home/u/" + "x" * 300):
        assert project_state_path(key, env) == str(project_state_dir(key, env))


def test_the_prompt_hook_imports_no_pathlib(project: Path) -> None:
    """Recall and suggestion of a prompt naming a project file resolve their folders with
    strings: pathlib (with urllib.parse and ipaddress behind it) is never imported."""
    skills = project / ".claude" / "skills" / "pytest-fixing"
    skills.mkdir(parents=True)
    (skills / "SKILL.md").write_text(
        "---\nname: pytest-fixing\ndescription: Fix failing pytest tests.\n---\n", "utf-8"
    )
    (project / "tests").mkdir()
    (project / "tests" / "test_a.py").write_text("", "utf-8")
    payload = {
        "session_id": "s1",
        "cwd": str(project),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "the pytest test in tests/test_a.py fails, fix it",
    }
    probe = (
        "import json, sys\n"
        "from pokayokay.hooks.prompt import user_prompt_submit\n"
        "out = user_prompt_submit(json.loads(sys.stdin.read()), 'UserPromptSubmit')\n"
        "print(json.dumps({'out': out, 'pathlib': 'pathlib' in sys.modules}))\n"
    )
    env = dict(os.environ, CLAUDE_PROJECT_DIR=str(project))
    for _warm in range(2):  # the first run builds the caches
        proc = subprocess.run(
            [sys.executable, "-c", probe],
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
            env=env,
        )
    result = json.loads(proc.stdout)
    assert "/pytest-fixing" in result["out"]  # the suggestion was made
    assert result["pathlib"] is False


# What a settings file may hold: the hook's resolver skips the parse of a file whose text cannot
# name the key (decision 0169); whether it sets the folder, and which, must not change.
SETTINGS_TEXTS = [
    '{"hooks": {"Stop": []}}',
    '{"autoMemoryDirectory": "~/notes"}',
    '{"autoMemory\\u0044irectory": "~/notes"}',  # the key spelled with an escape
    '{"autoMemoryDirectory": "relative/notes"}',
    '{"autoMemoryDirectory": 3}',
    '{"autoMemoryDirectory": ""}',
    '{"hooks": [1, 2',  # not JSON
    '["autoMemoryDirectory"]',
    '"a string"',
    '{"x": "autoMemoryDirectory"}',
    '{"autoMemoryDirectory": "~/one", "autoMemoryDirectory": "~/two"}',
    "",
]


@pytest.mark.parametrize("text", SETTINGS_TEXTS)
def test_the_hooks_quick_read_of_a_settings_file_picks_the_same_folder(
    tmp_path: Path, text: str
) -> None:
    from pokayokay.infra.location_rules import settings_option

    settings = tmp_path / "settings.json"
    settings.write_text(text, encoding="utf-8")
    home = str(tmp_path / "home")
    full = settings_option("user settings", str(settings), home, [])
    quick = settings_option("user settings", str(settings), home, [], winner_only=True)
    assert (quick.eligible, quick.path) == (full.eligible, full.path)


@given(st.text(alphabet='{}[]":,\\u0044 autoMemoryDirectory~/x', max_size=60))
def test_the_quick_read_agrees_on_any_text(text: str) -> None:
    import tempfile

    from pokayokay.infra.location_rules import settings_option

    with tempfile.TemporaryDirectory() as folder:
        settings = os.path.join(folder, "settings.json")
        with open(settings, "w", encoding="utf-8") as fh:
            fh.write(text)
        full = settings_option("user settings", settings, folder, [])
        quick = settings_option("user settings", settings, folder, [], winner_only=True)
    assert (quick.eligible, quick.path) == (full.eligible, full.path)
