"""A path a payload gives is resolved only when it could name a file (``infra.state.
real_payload_path``): resolving costs time quadratic in a path's length, and a path past
PATH_MAX names nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pokayokay.hooks import instructions, memory_watch
from pokayokay.infra.state import MAX_PATH_CHARS, project_root_problem, real_payload_path

LONG = "/x" * MAX_PATH_CHARS


def test_only_a_path_that_could_name_a_file_is_resolved(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert real_payload_path(str(tmp_path / "link")) == os.path.realpath(tmp_path / "real")
    assert real_payload_path(LONG) is None
    assert real_payload_path(str(tmp_path) + "/a\x00b") is None
    assert real_payload_path("/x" * (MAX_PATH_CHARS // 2)) is not None  # at the limit: resolved


@pytest.fixture
def no_long_lookups(monkeypatch: pytest.MonkeyPatch) -> None:
    """``os.path.realpath`` refuses, loudly, to resolve a path past the limit."""
    real = os.path.realpath

    def guarded(path: str, *args: object, **kwargs: object) -> str:
        assert len(os.fspath(path)) <= MAX_PATH_CHARS, "a path past PATH_MAX was resolved"
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os.path, "realpath", guarded)


@pytest.mark.usefixtures("no_long_lookups")
def test_file_changed_does_not_resolve_a_path_past_path_max(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("POKAYOKAY_MEMORY_DIR", str(tmp_path / "memory"))
    (tmp_path / "project").mkdir()
    payload = {"cwd": str(tmp_path / "project"), "event": "change", "file_path": LONG}
    assert memory_watch.file_changed(payload, "FileChanged") == ""


@pytest.mark.usefixtures("no_long_lookups")
def test_a_project_folder_past_path_max_is_refused() -> None:
    problem = project_root_problem(LONG)
    assert problem is not None and "is no path" in problem and len(problem) < 300


@pytest.mark.usefixtures("no_long_lookups")
def test_a_rule_path_past_path_max_is_no_rule(tmp_path: Path) -> None:
    assert instructions.rule_rel_path(LONG + ".md", str(tmp_path)) is None
