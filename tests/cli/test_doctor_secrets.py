"""doctor names where a memory file holds what looks like a secret (file, line, kind), never the
value, and leaves the text alone: Claude Code reads these files into every session, and
pokayokay never edits what it did not write."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.gitrepo import git

from pokayokay.cli import main as cli
from pokayokay.infra.locate import resolve_memory_location
from pokayokay.memory.secrets import secret_lines

# Shapes of real credentials (made up, of the providers' formats).
GITHUB = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
AWS = "AKIA" + "QWERTYUIOPASDFGH"


def _project_with_memory(project: Path) -> tuple[Path, Path]:
    """A git project and its (empty) auto-memory folder."""
    project.mkdir()
    git(project, "init", "-q")
    memory = resolve_memory_location(project).memory_dir
    memory.mkdir(parents=True)
    return project, memory


def test_each_line_with_a_secret_is_named_with_its_kind() -> None:
    text = (
        "# Memory\n\n"
        "- deploy with the bot token " + GITHUB + "\n"
        "- the API returns 404 for a missing token (not 401)\n"
        "- staging: AWS_ACCESS_KEY_ID=" + AWS + "\n"
    )
    assert secret_lines(text) == [(3, ["github-token"]), (5, ["aws-access-key-id"])]
    assert secret_lines("- tokens are rotated every 90 days: see docs/ops.md\n") == []


def test_doctor_warns_of_each_place_and_never_shows_or_changes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project, memory = _project_with_memory(tmp_path / "shop-api")
    index = "# Memory\n\n- CI pushes with " + GITHUB + "\n"
    archive = "# Archive\n\n- ok\n- old key AWS_ACCESS_KEY_ID=" + AWS + "\n"
    (memory / "MEMORY.md").write_text(index)
    (memory / "archive-bug-fixes.md").write_text(archive)

    cli.main(["doctor", "--project", str(project)])
    out = capsys.readouterr().out
    warned = [line for line in out.splitlines() if line.startswith("[warn] memory secrets")]
    assert warned[:2] == [
        "[warn] memory secrets: MEMORY.md:3: github-token",
        "[warn] memory secrets: archive-bug-fixes.md:4: aws-access-key-id",
    ]
    assert "remove each secret by hand" in warned[2]
    assert GITHUB not in out and AWS not in out
    assert (memory / "MEMORY.md").read_text() == index  # never edited
    assert (memory / "archive-bug-fixes.md").read_text() == archive
    assert "[FAIL] memory secrets" not in out  # a warning, not a broken install


def test_doctor_says_none_were_found(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project, memory = _project_with_memory(tmp_path / "app")
    (memory / "MEMORY.md").write_text("# Memory\n\n- run tests with `uv run pytest`\n")
    cli.main(["doctor", "--project", str(project)])
    assert "[ok  ] memory secrets: none found in 1 file" in capsys.readouterr().out
