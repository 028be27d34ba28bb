"""The index read without git (``pokayokay.infra.git_index``): "surely untracked" only when git
itself lists none of the paths, on real repositories git made (no index yet, index versions 2,
3 with an intent-to-add entry, 4, a split index, a sparse checkout), and the capture's file
check (``WorkTree.existing``) answers as it did when it always asked git."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers.gitrepo import GitRepo

from pokayokay.failures import evidence_paths
from pokayokay.failures.evidence_paths import WorkTree
from pokayokay.infra import git_index
from pokayokay.infra.git_index import surely_untracked

TRACKED = ["src/app/checkout.py", "tests/test_checkout.py", "Makefile", "docs/a b.md"]
# Deleted from the work tree but still in the index, near misses of tracked names, folders,
# build products, module-like words, a name only another entry's path ends with.
ASKED = [
    "src/app/gone.py", "src/app/checkout", "src/app/checkout.p", "rc/app/checkout.py", "src",
    "src/app", "build/native/hashing.o", "app", "checkout.py", "akefile", "docs/a b.md",
    "tests/test_checkout.py", "src/app/checkout.py/", "tests",
]  # fmt: skip


def _listed(root: Path, rels: list[str]) -> set[str]:
    """What the capture took from git before: ``ls-files --cached`` named exactly."""
    listed = WorkTree(str(root))._in_git(rels)
    return {rel for rel in rels if rel in listed}


def _repo(tmp_path: Path, *setup: tuple[str, ...]) -> GitRepo:
    repo = GitRepo(tmp_path / "repo")
    for name in [*TRACKED, "src/app/gone.py"]:
        repo.write(name, f"# {name}\n")
    repo.commit("2026-01-05")
    for args in setup:
        repo.git(*args)
    (repo.root / "src" / "app" / "gone.py").unlink()  # deleted, still cached
    return repo


def _agrees(root: Path) -> list[str]:
    """The paths :func:`surely_untracked` answers True for; each is listed by no ls-files."""
    sure = [rel for rel in ASKED if surely_untracked(str(root), [rel], os.environ)]
    for rel in sure:
        assert _listed(root, [rel]) == set(), rel
    if sure:
        assert _listed(root, sure) == set()
    return sure


def test_a_repository_without_an_index_caches_nothing(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.write("src/app/checkout.py", "x = 1\n")
    assert not (repo.root / ".git" / "index").exists()
    assert _agrees(repo.root) == ASKED
    assert surely_untracked(str(repo.root), ASKED, os.environ)


def test_a_version_2_index_is_read_for_exact_names(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    sure = _agrees(repo.root)
    cached = {"src/app/gone.py", "docs/a b.md", "tests/test_checkout.py"}
    assert set(ASKED) - set(sure) >= cached
    assert {"build/native/hashing.o", "checkout.py", "src/app/checkout.p", "akefile"} <= set(sure)
    assert not surely_untracked(str(repo.root), ["build/x.o", "src/app/gone.py"], os.environ)


def test_a_version_3_index_with_an_intent_to_add_entry(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    repo.write("src/app/new.py", "x = 1\n")
    repo.git("add", "-N", "src/app/new.py")
    assert int.from_bytes((repo.root / ".git" / "index").read_bytes()[4:8], "big") == 3
    (repo.root / "src" / "app" / "new.py").unlink()
    assert not surely_untracked(str(repo.root), ["src/app/new.py"], os.environ)
    assert _listed(repo.root, ["src/app/new.py"]) == {"src/app/new.py"}
    assert "build/native/hashing.o" in _agrees(repo.root)


@pytest.mark.parametrize(
    "setup",
    [
        ("update-index", "--index-version", "4"),
        ("update-index", "--split-index"),
        ("sparse-checkout", "set", "--no-cone", "/src/"),
    ],
    ids=["version 4", "split index", "sparse checkout"],
)
def test_other_layouts_are_left_to_git(tmp_path: Path, setup: tuple[str, ...]) -> None:
    repo = _repo(tmp_path, setup)
    assert _agrees(repo.root) == []
    assert _listed(repo.root, ["src/app/gone.py"]) == {"src/app/gone.py"}


def test_what_git_may_spell_otherwise_is_left_to_git(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")  # no index: every plain name is surely untracked
    root = str(repo.root)
    assert surely_untracked(root, ["build/x.o"], os.environ)
    assert not surely_untracked(root, ["src/café.py"], os.environ)
    for variable in git_index.GIT_LOCATION_VARIABLES:
        assert not surely_untracked(root, ["build/x.o"], {variable: "/elsewhere"})
    assert not surely_untracked(str(tmp_path), ["build/x.o"], os.environ)  # no .git folder
    (tmp_path / "wt").mkdir()
    (tmp_path / "wt" / ".git").write_text("gitdir: ../repo/.git\n", "utf-8")  # a worktree file
    assert not surely_untracked(str(tmp_path / "wt"), ["build/x.o"], os.environ)


def test_the_capture_keeps_the_same_files_as_when_it_always_asked_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _repo(tmp_path)
    (repo.root / "build").mkdir()
    (repo.root / "build" / "out.o").write_bytes(b"")
    asked = [*ASKED, "build/out.o"]
    tree = WorkTree(str(repo.root))
    fast = tree.existing(asked)
    calls: list[list[str]] = []
    real = WorkTree._in_git
    monkeypatch.setattr(
        WorkTree, "_in_git", lambda self, rels: calls.append(rels) or real(self, rels)
    )
    monkeypatch.setattr(git_index, "surely_untracked", lambda *a: False)
    assert tree.existing(asked) == fast
    assert calls  # the slow reading did ask git
    assert fast >= {"src/app/gone.py", "build/out.o", "docs/a b.md"}
    monkeypatch.undo()
    monkeypatch.setattr(WorkTree, "_in_git", lambda self, rels: pytest.fail("git asked"))
    assert tree.existing(["build/out.o", "build/native/hashing.o"]) == {"build/out.o"}
    assert evidence_paths.WorkTree is WorkTree
