"""The commit a session starts on, read from the files when they tell and from git otherwise:
the answer is ``git rev-parse --verify -q HEAD``'s in every state a work tree can be in."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from helpers.gitrepo import git

from pokayokay.learnings.outcomes.session_heads import git_head, head_from_files, note_session_head


def rev_parse(where: Path) -> str | None:
    done = subprocess.run(
        ["git", "rev-parse", "--verify", "-q", "HEAD"], cwd=where, capture_output=True, text=True
    )
    return done.stdout.strip() if done.returncode == 0 else None


def commit(root: Path, name: str) -> None:
    (root / name).write_text(name)
    git(root, "add", name)
    git(root, "commit", "-q", "-m", f"add {name}")


def test_an_unborn_branch_has_no_head(project: Path) -> None:
    assert head_from_files(str(project)) is None
    assert git_head(project) is None is rev_parse(project)


def test_a_branch_with_a_loose_ref_is_read_from_the_files(project: Path) -> None:
    commit(project, "a.txt")
    assert head_from_files(str(project)) == rev_parse(project)
    commit(project, "b.txt")
    git(project, "checkout", "-q", "-b", "feature/deep/name")
    commit(project, "c.txt")
    assert head_from_files(str(project)) == rev_parse(project) == git_head(project)


def test_a_detached_head_is_read_from_the_files(project: Path) -> None:
    commit(project, "a.txt")
    commit(project, "b.txt")
    git(project, "checkout", "-q", "--detach", "HEAD~1")
    assert head_from_files(str(project)) == rev_parse(project) == git_head(project)


@pytest.mark.parametrize("state", ["packed", "subfolder", "worktree", "symbolic", "GIT_DIR"])
def test_whatever_the_files_do_not_tell_is_asked_of_git(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, state: str
) -> None:
    commit(project, "a.txt")
    where = project
    if state == "packed":
        git(project, "pack-refs", "--all")
    elif state == "subfolder":
        where = project / "sub"
        where.mkdir()
    elif state == "worktree":
        where = tmp_path / "linked"
        git(project, "worktree", "add", "-q", "-b", "other", str(where))
        commit(where, "w.txt")
    elif state == "symbolic":
        git(project, "symbolic-ref", "refs/heads/alias", "refs/heads/main")
        git(project, "symbolic-ref", "HEAD", "refs/heads/alias")
    else:
        other = tmp_path / "other"
        other.mkdir()
        git(other, "init", "-q", "-b", "main")
        commit(other, "o.txt")
        monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    assert head_from_files(str(where)) is None
    assert git_head(where) == rev_parse(where) is not None
    if state == "GIT_DIR":
        assert git_head(where) != (project / ".git" / "refs" / "heads" / "main").read_text()


def test_a_ref_that_is_no_object_name_is_asked_of_git(project: Path) -> None:
    commit(project, "a.txt")
    ref = project / ".git" / "refs" / "heads" / "main"
    real = ref.read_text()
    ref.write_text("not a sha\n")
    assert head_from_files(str(project)) is None
    assert git_head(project) is None  # git rejects it too
    ref.write_text(real)
    assert git_head(project) == real.strip()


def test_the_first_note_for_a_session_wins(tmp_path: Path) -> None:
    from pokayokay.learnings.outcomes.session_heads import session_head

    note_session_head(tmp_path, "s1", "a" * 40, now=1.0)
    note_session_head(tmp_path, "s1", "b" * 40, now=2.0)
    assert session_head(tmp_path, "s1") == "a" * 40


def test_no_commit_is_known_without_git_where_git_would_find_none(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import subprocess as real_subprocess

    from pokayokay.learnings.outcomes.session_heads import read_head

    plain = tmp_path / "plain" / "deep"
    plain.mkdir(parents=True)
    assert read_head(str(project)) == (True, None)  # unborn: no ref, no packed-refs
    assert rev_parse(project) is None
    if not any(
        os.path.lexists(os.path.join(parent, name))
        for parent in [str(plain), *map(str, plain.parents)]
        for name in (".git", "HEAD")
    ):
        assert read_head(str(plain)) == (True, None)
        assert rev_parse(plain) is None
    calls: list[object] = []
    monkeypatch.setattr(real_subprocess, "run", lambda *a, **k: calls.append(a))
    assert git_head(project) is None
    assert calls == []
    monkeypatch.undo()
    git(project, "pack-refs", "--all")  # a packed-refs file: the branch may be in it
    assert read_head(str(project)) == (False, None)


def test_a_fifo_for_head_or_ref_is_never_opened_blocking(project: Path) -> None:
    commit(project, "a.txt")
    ref = project / ".git" / "refs" / "heads" / "main"
    ref.unlink()
    os.mkfifo(ref)
    assert head_from_files(str(project)) is None  # returns: no read of the FIFO
