"""The CLI boundary: a closed output pipe is quiet (as with git), a file pokayokay may not write
is one clear line naming it (exit 2), and a project root that does not exist or is ``/`` is
refused — by the CLI and by the hooks — with a logged line."""

from __future__ import annotations

import errno
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.paths import FIXTURE_SAMPLES_DIR

from pokayokay.cli import main as cli
from pokayokay.errors import EXIT_BROKEN_PIPE, EXIT_FAILED_OPEN, EXIT_USAGE
from pokayokay.hooks import runtime
from pokayokay.infra import safe_write

SAMPLES = FIXTURE_SAMPLES_DIR

MEMORY = (
    "# Memory\n\n- [Deploy](deploy.md) — staging deploys from `main`\n\n"
    "## Completed Work\n<!-- pokayokay: managed by session hooks -->\n"
    + "".join(f"- 2026-01-{d:02d} finished story-{d}\n" for d in range(1, 26))
    + "<!-- /pokayokay -->\n"
)


def _log() -> str:
    path = Path(os.environ["POKAYOKAY_HOME"]) / "logs" / "pokayokay.log"
    return path.read_text("utf-8") if path.exists() else ""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "shop-api"
    folder.mkdir()
    return folder


@pytest.fixture
def memory(tmp_path: Path) -> Path:
    folder = tmp_path / "memory"
    folder.mkdir()
    (folder / "MEMORY.md").write_text(MEMORY)
    return folder


@pytest.mark.parametrize(
    "args",
    [
        ["status"],
        ["rules", "lint"],
        ["curate", "--check"],
    ],
)
def test_a_closed_pipe_is_quiet_like_git(project: Path, memory: Path, args: list[str]) -> None:
    """`pokayokay status | head -1`: the reader goes away before pokayokay writes."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pokayokay",
            *args,
            "--project",
            str(project),
            *(["--memory-dir", str(memory)] if args[0] != "rules" else []),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone
    err = proc.stderr.read().decode()
    proc.stderr.close()
    code = proc.wait(timeout=60)
    assert err == ""
    assert code in (EXIT_BROKEN_PIPE, 0, 1)  # 0/1: the command wrote nothing at all
    assert "unexpected error" not in _log()


def test_a_broken_pipe_mid_output_exits_141_without_a_traceback(
    project: Path, memory: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    class Gone(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError(errno.EPIPE, "Broken pipe")

        def fileno(self) -> int:
            return os.open(os.devnull, os.O_WRONLY)

    monkeypatch.setattr(sys, "stdout", Gone())
    code = cli.main(["status", "--project", str(project), "--memory-dir", str(memory)])
    assert code == EXIT_BROKEN_PIPE
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    ("err", "hint"),
    [
        (errno.EACCES, "check its permissions"),
        (errno.EPERM, "immutable"),
        (errno.EROFS, "read-only"),
        (errno.ENAMETOOLONG, "shorten the name"),
    ],
)
def test_a_file_pokayokay_may_not_write_is_one_line_exit_2(
    project: Path,
    memory: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    err: int,
    hint: str,
) -> None:
    """An unwritable, read-only or immutable memory folder (chattr +i), or a name too long:
    the kernel's error for the temp file, reported as one line naming it."""
    real_open = os.open

    def refusing(path: str | bytes | os.PathLike[str], flags: int, *a: int) -> int:
        if flags & os.O_CREAT and ".pokayokay-" in os.fsdecode(path):
            raise OSError(err, os.strerror(err), os.fsdecode(path))
        return real_open(path, flags, *a)

    monkeypatch.setattr(safe_write.os, "open", refusing)
    before = (memory / "MEMORY.md").read_bytes()
    code = cli.main(["curate", "--project", str(project), "--memory-dir", str(memory)])
    captured = capsys.readouterr()
    assert code == EXIT_USAGE
    lines = captured.err.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("pokayokay: error: cannot write ")
    assert str(memory) in lines[0] and hint in lines[0]
    assert "unexpected error" not in captured.err
    assert (memory / "MEMORY.md").read_bytes() == before
    assert "refused: cannot write" in _log()


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores folder permissions")
def test_a_read_only_memory_folder_is_exit_2(
    project: Path, memory: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    memory.chmod(0o555)
    try:
        code = cli.main(["curate", "--project", str(project), "--memory-dir", str(memory)])
    finally:
        memory.chmod(0o755)
    assert code == EXIT_USAGE
    assert "cannot write" in capsys.readouterr().err


@pytest.mark.parametrize("where", ["/", "missing"])
def test_the_cli_refuses_a_project_root_that_is_slash_or_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    folder = "/" if where == "/" else str(tmp_path / "gone")
    code = cli.main(["graduate", "--project", folder])
    captured = capsys.readouterr()
    assert code == EXIT_USAGE
    assert len(captured.err.splitlines()) == 1
    assert "pokayokay writes nothing there" in captured.err
    assert "refused: project folder" in _log()
    assert not (tmp_path / "gone").exists()


@pytest.mark.parametrize("event", ["SessionEnd", "PostToolUseFailure"])
@pytest.mark.parametrize("where", ["/", "missing"])
def test_hooks_refuse_a_payload_cwd_that_is_slash_or_missing(
    tmp_path: Path, event: str, where: str
) -> None:
    """`cwd: /` once made graduation write /.claude/rules/pokayokay/build.md; a cwd that does
    not exist got <cwd>/.claude/rules/ created."""
    sample = {
        "SessionEnd": "SessionEnd.other.json",
        "PostToolUseFailure": "PostToolUseFailure.Bash.json",
    }[event]
    payload = json.loads((SAMPLES / sample).read_text())
    cwd = "/" if where == "/" else str(tmp_path / "gone" / "shop-api")
    payload["cwd"] = cwd
    stdin = io.BytesIO(json.dumps(payload).encode())
    stdout, stderr = io.StringIO(), io.StringIO()
    code = runtime.run(event, stdin, stdout, stderr)
    assert code == EXIT_FAILED_OPEN  # fails open: never blocks Claude
    assert stdout.getvalue() == ""
    assert len(stderr.getvalue().splitlines()) == 1
    assert "pokayokay writes nothing there" in stderr.getvalue()
    assert "pokayokay writes nothing there" in _log()
    assert not (tmp_path / "gone").exists()
