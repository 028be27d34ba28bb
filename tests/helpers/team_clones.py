"""A team over git, for team-memory tests: a bare remote and clones, each with its own home
(HOME, POKAYOKAY_HOME, CLAUDE_CONFIG_DIR, XDG folders), running sessions through the registered
hook commands with captured payloads, then committing, pulling (``git pull --no-rebase``, the
default merge driver) and pushing."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from helpers.hooks import run_hook, sample_payload

SETTINGS = "---\nteam: true\n---\n\nTeam memory is on for this project.\n"
CART_TEST = "def test_add():\n    assert 1 + 2 == 4\n"
_GIT_ENV = {
    "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0",
}  # fmt: skip


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **_GIT_ENV}
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    if check and done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {done.stdout}{done.stderr}")
    return done


def make_remote(tmp: Path) -> Path:
    """A bare remote holding a small Python project with team memory switched on."""
    remote = tmp / "remote.git"
    git(tmp, "init", "-q", "--bare", "-b", "main", str(remote))
    seed = tmp / "seed"
    git(tmp, "clone", "-q", str(remote), str(seed))
    (seed / ".claude").mkdir()
    (seed / ".claude" / "pokayokay.md").write_text(SETTINGS)
    (seed / "tests").mkdir()
    (seed / "tests" / "test_cart.py").write_text(CART_TEST)
    (seed / "src").mkdir()
    (seed / "src" / "cart.py").write_text("def add(a, b):\n    return a + b\n")
    git(seed, "add", "-A")
    git(seed, "commit", "-q", "-m", "seed")
    git(seed, "push", "-q", "origin", "HEAD:main")
    return remote


@dataclass
class Clone:
    name: str
    root: Path
    home: Path
    sessions: int = 0
    conflicts: list[str] = field(default_factory=list)

    def env(self) -> dict[str, str]:
        return {
            "HOME": str(self.home),
            "POKAYOKAY_HOME": str(self.home / "pokayokay-state"),
            "CLAUDE_CONFIG_DIR": str(self.home / ".claude"),
            "XDG_STATE_HOME": str(self.home / ".local" / "state"),
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_CACHE_HOME": str(self.home / ".cache"),
            "CLAUDE_PROJECT_DIR": str(self.root),
        }

    @contextmanager
    def active(self) -> Iterator[None]:
        patch = pytest.MonkeyPatch()
        for key, value in self.env().items():
            patch.setenv(key, value)
        try:
            yield
        finally:
            patch.undo()

    def hook(self, event: str, payload: dict[str, Any]) -> tuple[int, str, str]:
        with self.active():
            return run_hook(event, payload)

    def session(self, failures: list[tuple[str, str]], at: float | None = None) -> str:
        """One Claude Code session: SessionStart, a failing Bash call per (command, error),
        SessionEnd. Returns the session id."""
        self.sessions += 1
        sid = f"{self.name}-session-{self.sessions:04d}"
        code, _, err = self.hook(
            "SessionStart", sample_payload("SessionStart.startup.json", self.root, session_id=sid)
        )
        assert code == 0, err
        for n, (command, error) in enumerate(failures):
            payload = sample_payload(
                "PostToolUseFailure.Bash.json", self.root, session_id=sid, error=error,
                tool_use_id=f"toolu_{sid}_{n}", tool_input={"command": command},
            )
            code, _, err = self.hook("PostToolUseFailure", payload)
            assert code == 0, err
        code, _, err = self.hook(
            "SessionEnd", sample_payload("SessionEnd.other.json", self.root, session_id=sid)
        )
        assert code == 0, err
        return sid

    def commit(self) -> None:
        git(self.root, "add", "-A")
        if git(self.root, "diff", "--cached", "--quiet", check=False).returncode:
            git(self.root, "commit", "-q", "-m", f"{self.name}: session {self.sessions}")

    def pull(self) -> bool:
        """``git pull --no-rebase``; False (and the conflict kept in ``conflicts``) when the
        merge stopped, which the tests count. A stopped merge is aborted."""
        done = git(self.root, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main",
                   check=False)
        if done.returncode != 0:
            self.conflicts.append(done.stdout + done.stderr)
            git(self.root, "merge", "--abort", check=False)
            return False
        return True

    def push(self) -> bool:
        return git(self.root, "push", "-q", "origin", "HEAD:main", check=False).returncode == 0

    def sync(self) -> None:
        """Commit, then pull and push until the push lands (another clone may push between)."""
        self.commit()
        for _ in range(10):
            if not self.pull():
                return
            if self.push():
                return
        raise AssertionError(f"{self.name} could not push")

    def team_files(self) -> dict[str, bytes]:
        folder = self.root / ".claude" / "pokayokay" / "team"
        return {p.name: p.read_bytes() for p in sorted(folder.glob("*"))} if folder.is_dir() else {}

    def rules(self) -> dict[str, bytes]:
        folder = self.root / ".claude" / "rules" / "pokayokay"
        return {p.name: p.read_bytes() for p in sorted(folder.glob("*.md"))}


def make_clones(tmp: Path, remote: Path, count: int) -> list[Clone]:
    clones = []
    for n in range(count):
        name = "abcdefgh"[n]
        root = tmp / f"clone-{name}"
        git(tmp, "clone", "-q", str(remote), str(root))
        home = tmp / f"home-{name}"
        home.mkdir()
        clones.append(Clone(name, Path(os.path.realpath(root)), home))
    return clones


def pytest_failure(test: str) -> tuple[str, str]:
    """A failing pytest run of one test of tests/test_cart.py: (command, error)."""
    return (
        f"pytest tests/test_cart.py::{test}",
        f"Exit code 1\nFAILED tests/test_cart.py::{test} - assert 3 == 4",
    )
