"""The work a hook starts in the background: never a project's own code, and what cannot fit in
the hook's time.

A hook runs in the project folder, and the pokayokay work it starts in the background (curating
a large MEMORY.md, consolidation, the store's upgrades, a spool over its cap, the catch-up) is
``python -m ...``, which puts the working folder first on the module search path: a repository
holding a ``pokayokay.py`` (or a ``pokayokay/`` folder) had its code run in place of pokayokay's,
with the user's rights, by merely ending a session with a MEMORY.md over 1 MiB. And FileChanged
and PreCompact curated a MEMORY.md of any size inside the hook (40 MB: 11.7 s, past the 10 s
timeout). Driven through the registered commands (:mod:`helpers.hostile_hooks`).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest
from helpers.hostile_hooks import Scratch, Step, make_scratch, run_step, sample, settle

from pokayokay.infra.detach import module_argv

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX only")

HIJACK = "import pathlib; pathlib.Path({marker!r}).write_text('ran')\n"


@pytest.fixture
def scratch(isolated_home: Path, tmp_path: Path) -> Scratch:
    return make_scratch(isolated_home, tmp_path)


def big_memory() -> str:
    """MEMORY.md over 1 MiB: Claude's notes, and a managed Completed Work over its budget."""
    notes = "".join(f"- note {n}: the cart total is kept in cents\n" for n in range(30_000))
    done = "".join(f"- 2026-03-{n % 28 + 1:02d} finished task {n}\n" for n in range(40))
    return (
        f"# Memory\n\n{notes}\n## Completed Work\n<!-- pokayokay: managed by session hooks -->\n"
        f"{done}<!-- /pokayokay -->\n"
    )


@pytest.mark.parametrize("hijack", ["pokayokay.py", "pokayokay/__main__.py"])
def test_a_projects_pokayokay_module_never_runs_in_the_background_work(
    scratch: Scratch, hijack: str
) -> None:
    marker = scratch.project / "HIJACKED"
    target = scratch.project / hijack
    target.parent.mkdir(exist_ok=True)
    if target.name == "__main__.py":
        (target.parent / "__init__.py").write_text(HIJACK.format(marker=str(marker)))
    target.write_text(HIJACK.format(marker=str(marker)))
    memory = scratch.memory / "MEMORY.md"
    memory.write_text(big_memory(), encoding="utf-8")
    before = memory.read_bytes()
    end = sample(scratch, "SessionEnd.other.json")
    run_step(scratch, Step("SessionEnd", json.dumps(end).encode()))  # detaches `curate`
    give_up = time.monotonic() + 60
    while time.monotonic() < give_up and memory.read_bytes() == before:
        assert not marker.exists(), "the project's own pokayokay module ran"
        time.sleep(0.1)
    assert memory.read_bytes() != before, "the detached curation never ran"
    assert not marker.exists(), "the project's own pokayokay module ran"


NO_P = pytest.mark.skipif(sys.version_info < (3, 11), reason="-P is Python 3.11+")


@pytest.mark.parametrize(
    "flag", [pytest.param(True, marks=NO_P, id="-P"), pytest.param(False, id="before-3.11")]
)
def test_every_background_start_keeps_the_working_folder_off_the_module_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flag: bool
) -> None:
    """What :func:`module_argv` starts imports the module from pokayokay's installation, never
    from the folder it starts in (Python 3.10 has no ``-P``: its form runs here too)."""
    import subprocess

    from pokayokay.infra import detach

    monkeypatch.setattr(detach, "SAFE_PATH_FLAG", flag)
    (tmp_path / "pokayokay").mkdir()
    (tmp_path / "pokayokay" / "__init__.py").write_text("raise SystemExit('the project ran')\n")
    argv = module_argv("pokayokay", ["--version"])
    done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.startswith("pokayokay "), done.stderr
    assert argv[0] == sys.executable


@pytest.mark.parametrize("event", ["FileChanged", "PreCompact"])
def test_a_memory_md_over_1_mib_is_curated_out_of_the_hook(scratch: Scratch, event: str) -> None:
    """FileChanged and PreCompact curated any MEMORY.md in the hook: 40 MB took 11.6 s, past
    FileChanged's 10 s (Claude Code kills the hook mid-curation) and holding a compaction up.
    Over 1 MiB they hand it to a detached ``pokayokay curate``, as SessionEnd does."""
    memory = scratch.memory / "MEMORY.md"
    memory.write_text(big_memory(), encoding="utf-8")
    before = memory.read_bytes()
    payload = sample(scratch, "PreCompact.manual.json")
    if event == "FileChanged":
        payload.update(hook_event_name=event, file_path=str(memory), event="change")
    run_step(scratch, Step(event, json.dumps(payload).encode()))
    log = (scratch.state / "logs" / "pokayokay.log").read_text("utf-8")
    assert f"{event}: {scratch.memory}/MEMORY.md is large; curating in the background" in log
    give_up = time.monotonic() + 60
    while time.monotonic() < give_up and memory.read_bytes() == before:
        time.sleep(0.1)
    after = memory.read_text("utf-8")
    assert after != before.decode() and after.count("finished task") < 40  # curated, detached


@pytest.mark.slow
def test_a_40_mb_memory_md_never_holds_file_changed_past_its_timeout(scratch: Scratch) -> None:
    memory = scratch.memory / "MEMORY.md"
    notes = "".join(f"- note {n} about the cart total and its tests {n}\n" for n in range(800_000))
    memory.write_text(f"# Memory\n\n{notes}", encoding="utf-8")
    payload = sample(scratch, "SessionEnd.other.json", hook_event_name="FileChanged",
                     file_path=str(memory), event="change")  # fmt: skip
    payload.pop("reason", None)
    run_step(scratch, Step("FileChanged", json.dumps(payload).encode()))  # within 10 s


def test_a_projects_own_git_fsmonitor_never_runs_in_a_session(scratch: Scratch) -> None:
    """A project whose ``.git/config`` names a ``core.fsmonitor`` program (a folder handed over
    whole brings its own config): failures naming a file git has and the work tree lost (the
    capture asks git's index), three sessions of them (graduation lists the project's files),
    then a prompt naming the file. pokayokay's git calls never run the program."""
    from helpers.gitrepo import git

    project = scratch.project
    (project / "src" / "gone.py").write_text("y = 2\n")
    git(project, "add", "-A")
    git(project, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "init")
    (project / "src" / "gone.py").unlink()
    marker = scratch.home / "fsmonitor-ran"
    program = scratch.home / "fsmonitor.sh"
    program.write_text(f"#!/bin/sh\necho ran >> '{marker}'\nexit 1\n", encoding="utf-8")
    program.chmod(0o755)
    git(project, "config", "core.fsmonitor", str(program))
    error = (
        "Exit code 1\nImportError while importing src/gone.py\n"
        "FAILED tests/test_cart.py::test_total"
    )
    steps: list[Step] = []
    for n in range(3):
        session = {"session_id": f"s-{n}"}
        failure = sample(scratch, "PostToolUseFailure.Bash.json", tool_use_id=f"toolu_{n}",
                         tool_input={"command": "pytest tests/test_cart.py"}, error=error,
                         **session)  # fmt: skip
        steps += [
            Step("PostToolUseFailure", json.dumps(failure).encode()),
            Step("Stop", json.dumps(sample(scratch, "Stop.json", **session)).encode()),
            Step("SessionEnd", json.dumps(sample(scratch, "SessionEnd.other.json", **session))
                 .encode()),
        ]  # fmt: skip
    prompt = sample(scratch, "UserPromptSubmit.json", session_id="s-9",
                    prompt="bring back src/gone.py and make tests/test_cart.py pass")  # fmt: skip
    steps.append(Step("UserPromptSubmit", json.dumps(prompt).encode()))
    for step in steps:
        run_step(scratch, step)
    settle(scratch)
    rules = list((project / ".claude" / "rules").rglob("*.md"))
    assert rules, "no rule graduated: the session never reached the file list"
    assert not marker.exists(), "a git call of pokayokay's ran the project's own program"
