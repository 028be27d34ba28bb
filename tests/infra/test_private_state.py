"""Issue 25 item 12: the log, MEMORY.md's backups and every other file in pokayokay's state
folder are 0600 in 0700 folders, including folders and files an older pokayokay left 0755/0644
(tightened the first time pokayokay writes there). The user's own files keep their modes."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from helpers.hooks import run_hook
from helpers.paths import FIXTURE_SAMPLES_DIR

from pokayokay.failures.store import FailureStore
from pokayokay.infra import logs
from pokayokay.infra.locate import resolve_memory_location
from pokayokay.infra.safe_write import write_atomic
from pokayokay.infra.state import project_state_dir, state_home
from pokayokay.memory.apply import run_curation
from pokayokay.memory.sections import Settings


@pytest.fixture(autouse=True)
def lax_umask() -> Iterator[None]:
    """The usual umask: a file created without an explicit mode would be 0644."""
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def loose_entries(root: Path) -> list[str]:
    """Everything under ``root`` (itself included) that group or others can read."""
    found = []
    for folder, names, files in os.walk(root):
        for name in [*names, *files, ""]:
            path = os.path.join(folder, name) if name else folder
            mode = os.lstat(path).st_mode
            if stat.S_ISLNK(mode) or stat.S_ISSOCK(mode):
                continue
            if mode & 0o077:
                found.append(f"{path} {oct(mode & 0o777)}")
        names[:] = [n for n in names if not os.path.islink(os.path.join(folder, n))]
    return found


def over_budget_memory() -> str:
    decisions = "".join(f"- 2026-01-{1 + i % 28:02d} decision {i}: because\n" for i in range(60))
    return "# Memory\n\n## Key Decisions\n<!-- pokayokay: promoted -->\n" + decisions


def test_a_fresh_state_folder_is_private(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    memory = tmp_path / "memory"
    memory.mkdir()
    location = resolve_memory_location(project, memory_dir=memory)
    location.memory_file.write_text(over_budget_memory())
    outcome = run_curation(location, Settings(), write=True, today=date(2026, 11, 22))
    assert outcome.written and outcome.backup is not None
    logs.log("a line")
    with FailureStore.for_project(str(project)) as store:
        store.connection()
    home = state_home()
    assert outcome.backup.is_relative_to(home) and (home / "logs" / "pokayokay.log").is_file()
    assert loose_entries(home) == []
    # The user's MEMORY.md and archive are not pokayokay's to tighten.
    assert location.memory_file.stat().st_mode & 0o777 == 0o644


def test_folders_and_files_an_older_pokayokay_left_loose_are_tightened(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    memory = tmp_path / "memory"
    memory.mkdir()
    location = resolve_memory_location(project, memory_dir=memory)
    home = state_home()
    project_state = project_state_dir(str(location.project_key))
    for folder in (home / "logs", project_state / "backups"):
        folder.mkdir(parents=True, mode=0o755)
    for folder in (home, home / "projects", project_state, home / "logs"):
        os.chmod(folder, 0o755)
    os.chmod(project_state / "backups", 0o755)
    log = home / "logs" / "pokayokay.log"
    log.write_text("an old line\n")
    os.chmod(log, 0o644)
    cache = project_state / "failure-categories.json"
    cache.write_text("{}")
    os.chmod(cache, 0o644)
    assert {str(log), str(cache)} <= {entry.split(" ")[0] for entry in loose_entries(home)}

    logs.log("a new line")
    write_atomic(cache, b'{"version": 0}')
    location.memory_file.write_text(over_budget_memory())
    assert run_curation(location, Settings(), write=True, today=date(2026, 11, 22)).written
    assert loose_entries(home) == []
    assert log.read_text().startswith("an old line\n")


def test_hooks_leave_only_private_files(project: Path) -> None:
    """A session's hooks (start, a failing tool call, the end) as Claude Code sends them."""
    import json

    for name in ("SessionStart.startup.json", "PostToolUseFailure.Bash.json", "Stop.json",
                 "SessionEnd.other.json"):
        payload = json.loads((FIXTURE_SAMPLES_DIR / name).read_text("utf-8"))
        payload["cwd"] = str(project)
        payload.pop("transcript_path", None)
        code, _out, _err = run_hook(payload["hook_event_name"], payload)
        assert code == 0
    home = state_home()
    assert home.is_dir() and any(home.rglob("*"))
    assert loose_entries(home) == []


def test_the_spool_as_the_first_writer_makes_every_folder_private(project: Path) -> None:
    """The per-tool-call spool often creates the state folder: every level it creates is
    0700, not only the last (``os.makedirs`` gives the others the umask's 0755)."""
    import json

    from pokayokay.infra import spool

    home = state_home()
    assert not home.exists()
    payload = json.loads((FIXTURE_SAMPLES_DIR / "PostToolUseFailure.Bash.json").read_text())
    payload["cwd"] = str(project)
    assert spool.spool("PostToolUseFailure", json.dumps(payload).encode())
    assert any(home.rglob("*.spool")) and loose_entries(home) == []
