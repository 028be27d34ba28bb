"""Shared test helpers."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

LEARNINGS = ".claude/learnings.md"


class GitRepo:
    """A throwaway repository; every commit gets the date it is given (noon UTC by default)."""

    def __init__(self, root: Path, branch: str = "main") -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", branch)

    def git(self, *args: str, day: str | None = None, at: str = "12:00:00+0000") -> str:
        return git(self.root, *args, day=day, at=at)

    def write(self, name: str, text: str) -> Path:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def commit(
        self, day: str, message: str = "change", at: str = "12:00:00+0000", **files: str
    ) -> str:
        """Write ``files`` (keyword names use __ for / and _dot_ for .) and commit everything."""
        for name, text in files.items():
            self.write(name.replace("__", "/").replace("_dot_", "."), text)
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message, day=day, at=at)
        return self.head()

    def touch(self, day: str, at: str = "12:00:00+0000") -> str:
        """A commit that does not touch the learnings file: one more active day."""
        stamp = self.root / "activity.txt"
        with open(stamp, "a", encoding="utf-8") as fh:
            fh.write(f"{day} {at}\n")
        return self.commit(day, "activity", at=at)

    def head(self) -> str:
        return self.git("rev-parse", "HEAD").strip()

    def learnings(self, text: str, day: str, message: str = "learnings") -> str:
        self.write(LEARNINGS, text)
        return self.commit(day, message)


def git(cwd: Path, *args: str, day: str | None = None, at: str = "12:00:00+0000") -> str:
    """Run git in ``cwd`` as a throwaway identity, ignoring the user's and the system's git
    configuration; ``day`` (``YYYY-MM-DD``) dates the commit at ``at``. Its output."""
    env = dict(
        os.environ,
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@e",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@e",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_CONFIG_NOSYSTEM="1",
    )
    if day is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = f"{day}T{at}"
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    )
    return done.stdout
