"""Shared fixtures. Every test runs with HOME, POKAYOKAY_HOME, CLAUDE_CONFIG_DIR and the XDG
folders pointed into its own temporary folder, so no test can touch the real home folder."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.gitrepo import git
from helpers.paths import FIXTURE_SAMPLES_DIR
from hypothesis import settings

# CI runs every property test on the same examples (reproducible failures); locally Hypothesis
# explores new ones on every run.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")



@pytest.fixture(autouse=True)
def isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("POKAYOKAY_HOME", str(home / "pokayokay-state"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / ".local" / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    for var in ("CLAUDE_PROJECT_DIR", "CLAUDE_CODE_PROJECT_DIR_NAME", "CLAUDE_CODE_SESSION_ID"):
        monkeypatch.delenv(var, raising=False)
    yield home


@pytest.fixture
def samples_dir() -> Path:
    """Real hook payloads captured from Claude Code 2.1.330 (copied into tests/data)."""
    return FIXTURE_SAMPLES_DIR




@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An empty git work tree (branch main) at its real path: the project Claude Code runs in."""
    root = tmp_path / "project"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    return Path(os.path.realpath(root))
