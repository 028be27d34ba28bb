"""Shared fixtures. Every test runs with HOME, POKAYOKAY_HOME, CLAUDE_CONFIG_DIR and the XDG
folders pointed into its own temporary folder, so no test can touch the real home folder."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings

# CI runs Hypothesis derandomized: the same examples every run, so a red build is reproducible
# and never flaky; locally each run explores new examples.
hypothesis_settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI") == "true":
    hypothesis_settings.load_profile("ci")

REPO_ROOT = Path(__file__).resolve().parent.parent
SAMPLES_DIR = REPO_ROOT.parent / "shared" / "claude-code-samples"
FIXTURE_SAMPLES_DIR = Path(__file__).resolve().parent / "data" / "claude-code-samples"


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


def git(cwd: Path, *args: str) -> str:
    import subprocess

    env = dict(
        os.environ,
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@e",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@e",
    )
    out = subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    )
    return out.stdout
