"""A FIFO (or a device) where pokayokay expects a file never blocks a hook: the transcript at
SessionEnd, MEMORY.md at SessionStart, the settings and a rule file. Each hook runs as Claude
Code runs it (the console script, payload on stdin); the subprocess timeout only guards against
a hang, it measures nothing."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.gitrepo import git
from helpers.paths import FIXTURE_SAMPLES_DIR

from pokayokay.infra.regular import NotARegularFile, read_bounded, read_regular

CONSOLE_SCRIPT = Path(sys.executable).parent / "pokayokay"

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "proj"
    folder.mkdir()
    git(folder, "init", "-q")
    return Path(os.path.realpath(folder))


def memory_dir(project: Path) -> Path:
    slug = re.sub(r"[^A-Za-z0-9]", "-", str(project))
    return Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / slug / "memory"


def hook(event: str, payload: dict[str, object], project: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CONSOLE_SCRIPT), "hook", event], input=json.dumps(payload), cwd=project,
        capture_output=True, text=True, timeout=60,
        env=dict(os.environ, CLAUDE_PROJECT_DIR=str(project)),
    )


def sample(name: str, project: Path) -> dict[str, object]:
    payload: dict[str, object] = json.loads((FIXTURE_SAMPLES_DIR / name).read_text())
    payload["cwd"] = str(project)
    return payload


def test_read_regular_refuses_a_fifo_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "MEMORY.md"
    os.mkfifo(fifo)
    with pytest.raises(NotARegularFile):
        read_regular(fifo)
    regular = tmp_path / "notes.md"
    regular.write_bytes(b"- a note\n" * 10)
    assert read_regular(regular) == b"- a note\n" * 10
    assert read_regular(regular, 20) == (b"- a note\n" * 10)[:21]


def test_read_bounded_gives_the_bytes_or_why_not(tmp_path: Path) -> None:
    exact = tmp_path / "learning-exact.md"
    exact.write_bytes(b"x" * 64)
    assert read_bounded(exact, 64) == b"x" * 64
    assert read_bounded(exact, 63) == "larger than 63 bytes"
    fifo = tmp_path / "writer.jsonl"
    os.mkfifo(fifo)
    assert read_bounded(fifo, 64) == "unreadable: not a regular file"
    assert read_bounded(tmp_path / "gone.md", 64) == "unreadable: No such file or directory"
    # a link is refused, even to a regular file it could read (the folder's callers rely on it)
    link = tmp_path / "learning-link.md"
    link.symlink_to(exact)
    assert read_bounded(link, 64) == "a symlink"
    assert read_regular(link) == b"x" * 64


def test_session_end_with_a_fifo_transcript_finishes(project: Path, tmp_path: Path) -> None:
    transcript = tmp_path / "session.jsonl"
    os.mkfifo(transcript)
    payload = sample("SessionEnd.other.json", project)
    payload["transcript_path"] = str(transcript)
    result = hook("SessionEnd", payload, project)
    assert result.returncode == 0, result.stderr


def test_session_start_with_a_fifo_memory_md_gives_the_tip(project: Path) -> None:
    folder = memory_dir(project)
    folder.mkdir(parents=True)
    os.mkfifo(folder / "MEMORY.md")
    result = hook("SessionStart", sample("SessionStart.startup.json", project), project)
    assert result.returncode == 0, result.stderr
    context = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "/remember" in context and "MEMORY.md is" not in context


def test_fifo_settings_and_rules_do_not_block_the_prompt_or_the_cli(project: Path) -> None:
    claude = project / ".claude"
    (claude / "rules" / "pokayokay").mkdir(parents=True)
    os.mkfifo(claude / "pokayokay.md")  # the project's pokayokay settings
    os.mkfifo(claude / "settings.json")
    os.mkfifo(claude / "rules" / "pokayokay" / "pytest-cart.md")
    payload = sample("SessionStart.startup.json", project)
    payload.update(hook_event_name="UserPromptSubmit",
                   prompt="fix the failing test in tests/test_cart.py")
    result = hook("UserPromptSubmit", payload, project)
    assert result.returncode in (0, 1), result.stderr
    assert "Traceback" not in result.stderr
    listed = subprocess.run([str(CONSOLE_SCRIPT), "rules", "list", "--project", str(project)],
                            capture_output=True, text=True, timeout=60)
    assert "Traceback" not in listed.stderr


def test_subagent_start_with_a_fifo_memory_md_finishes(project: Path) -> None:
    """Issue 25 item 7: SubagentStart read MEMORY.md with a plain open, which waits forever for
    a FIFO's writer. Run through the registered hook command: it must finish, say nothing wrong
    and give no lessons from a file it could not read."""
    folder = memory_dir(project)
    folder.mkdir(parents=True)
    os.mkfifo(folder / "MEMORY.md")
    result = hook("SubagentStart", sample("SubagentStart.json", project), project)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "Active Patterns" not in result.stdout


def test_fifos_everywhere_pokayokay_reads_never_block_a_hook(project: Path, tmp_path: Path) -> None:
    """Every file a hook reads that pokayokay did not create is opened without blocking and
    checked to be regular: MEMORY.md, its topic and chain files, a learning file, a rule file,
    a SKILL.md, the settings and git's HEAD, all FIFOs at once, through every hook that reads
    them (each run as Claude Code runs it)."""
    folder = memory_dir(project)
    folder.mkdir(parents=True)
    for name in ("MEMORY.md", "spike-results.md", "chain-learnings.md", "debugging.md",
                 "recurring-failures.md"):
        os.mkfifo(folder / name)
    claude = project / ".claude"
    (claude / "rules" / "pokayokay").mkdir(parents=True)
    (claude / "skills" / "fixer").mkdir(parents=True)
    os.mkfifo(claude / "skills" / "fixer" / "SKILL.md")
    os.mkfifo(claude / "rules" / "pokayokay" / "pytest-cart.md")
    os.mkfifo(claude / "pokayokay.md")
    os.mkfifo(claude / "pokayokay.local.md")
    head = project / ".git" / "HEAD"
    head.unlink()
    os.mkfifo(head)
    transcript = tmp_path / "t.jsonl"
    os.mkfifo(transcript)
    prompt = sample("UserPromptSubmit.json", project)
    prompt["prompt"] = "why does the webhook retry test in tests/test_cart.py fail again"
    changed = sample("SessionStart.startup.json", project)
    changed.update(hook_event_name="FileChanged", file_path=str(folder / "MEMORY.md"),
                   event="change")
    end = sample("SessionEnd.other.json", project)
    end["transcript_path"] = str(transcript)
    runs = [("SessionStart", sample("SessionStart.startup.json", project)),
            ("UserPromptSubmit", prompt), ("SubagentStart", sample("SubagentStart.json", project)),
            ("FileChanged", changed), ("SessionEnd", end)]
    for event, payload in runs:
        result = hook(event, payload, project)
        assert result.returncode in (0, 1), (event, result.stderr)
        assert "Traceback" not in result.stderr, (event, result.stderr)
