"""`pokayokay ages` on a project without `.claude/learnings.md` explains what the file is and how
it differs from what `/remember` writes, and succeeds; a FILE named on purpose must exist."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from pokayokay.cli.main import main
from pokayokay.errors import EXIT_USAGE


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "api"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    monkeypatch.chdir(root)
    monkeypatch.setenv("POKAYOKAY_MEMORY_DIR", str(tmp_path / "memory"))
    return root


def test_no_learnings_file_is_explained(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ages"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    first, *rest = out.splitlines()
    assert first == f"nothing to age: {repo / '.claude' / 'learnings.md'} does not exist."
    body = " ".join(rest)
    assert "`consolidate` moves the proven ones into lasting memory" in body
    assert "`/remember` and `pokayokay remember` do not write it" in body

    assert main(["ages", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["exists"] is False and data["file"].endswith(".claude/learnings.md")


def test_a_named_file_that_is_missing_is_still_an_error(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ages", "docs/learnings.md"]) == EXIT_USAGE
    assert "no such file" in capsys.readouterr().err
