"""git where it may neither stall nor fail: its output, or None, never an exception; the hooks'
session HEAD, the capture's look into git's index and the project's file list all go through it."""

from __future__ import annotations

import os
from pathlib import Path

from helpers.gitrepo import GitRepo

from pokayokay.failures.evidence_paths import WorkTree
from pokayokay.infra.git import list_project_files
from pokayokay.infra.git_quiet import git_output
from pokayokay.learnings.outcomes.session_heads import session_git

EMPTY_BLOB = b"e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\n"


def test_it_gives_what_git_printed_with_an_empty_standard_input(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    sha = repo.commit("2026-01-05", "first", a_dot_py="print(1)\n")
    assert git_output(repo.root, "rev-parse", "HEAD", timeout=30) == sha.encode() + b"\n"
    # hash-object --stdin reads standard input: empty, whatever this process's stdin holds
    assert git_output(repo.root, "hash-object", "--stdin", timeout=30) == EMPTY_BLOB
    assert session_git(repo.root, "rev-parse", "HEAD") == sha + "\n"


def test_a_failing_a_missing_or_an_absent_git_gives_none(tmp_path: Path) -> None:
    assert git_output(tmp_path, "rev-parse", "HEAD", timeout=30) is None  # not a repository
    assert git_output(tmp_path / "missing", "status", timeout=30) is None  # no such folder
    no_git = dict(os.environ, PATH=str(tmp_path))  # git is not on this PATH
    assert git_output(tmp_path, "--version", timeout=30, env=no_git) is None
    assert session_git(tmp_path, "rev-parse", "HEAD") is None


def test_its_callers_read_git_and_fall_back_without_it(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.commit("2026-01-05", "first", src__kept_dot_py="x = 1\n", src__gone_dot_py="y = 2\n")
    (repo.root / "src" / "gone.py").unlink()
    (repo.root / "untracked.txt").write_text("u\n", encoding="utf-8")
    # git's list: tracked (a deleted file too, still in the index) and untracked files
    assert list_project_files(repo.root) == ["src/gone.py", "src/kept.py", "untracked.txt"]
    # git's index still holds the deleted file: the capture finds it there
    assert WorkTree(str(repo.root)).existing(["src/gone.py", "src/never.py"]) == {"src/gone.py"}
    plain = tmp_path / "plain"
    (plain / "sub").mkdir(parents=True)
    (plain / "sub" / "f.txt").write_text("f\n", encoding="utf-8")
    assert list_project_files(plain) == ["sub/f.txt"]  # no repository: a walk


def test_a_repositorys_own_fsmonitor_program_never_runs(tmp_path: Path) -> None:
    """A repository's ``.git/config`` can name a ``core.fsmonitor`` hook, a program that
    ``git ls-files``, ``status`` and ``diff`` run: a project folder handed over whole brings its
    own. None of pokayokay's git calls runs it (plain git in the same repository does)."""
    import subprocess

    from pokayokay.infra.git import Git

    repo = GitRepo(tmp_path / "repo")
    repo.commit("2026-01-05", "first", src__kept_dot_py="x = 1\n", src__gone_dot_py="y = 2\n")
    (repo.root / "src" / "gone.py").unlink()
    marker = tmp_path / "fsmonitor-ran"
    program = tmp_path / "fsmonitor.sh"
    program.write_text(f"#!/bin/sh\necho ran >> '{marker}'\nexit 1\n", encoding="utf-8")
    program.chmod(0o755)
    repo.git("config", "core.fsmonitor", str(program))
    subprocess.run(["git", "ls-files"], cwd=repo.root, capture_output=True, check=True)
    assert marker.exists(), "plain git did not run the repository's fsmonitor: the check is void"
    marker.unlink()
    assert list_project_files(repo.root) == ["src/gone.py", "src/kept.py"]
    assert WorkTree(str(repo.root)).existing(["src/gone.py"]) == {"src/gone.py"}
    assert git_output(repo.root, "status", "--porcelain", timeout=30) is not None
    assert Git(repo.root).output("status", "--porcelain") == " D src/gone.py\n"
    assert session_git(repo.root, "diff", "--stat") is not None
    assert not marker.exists(), "a git call of pokayokay's ran the repository's own program"
