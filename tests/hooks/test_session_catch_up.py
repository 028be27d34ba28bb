"""SessionStart catches up on SessionEnds that never ran (issue 24 item 8, issue 26): three
killed sessions fail the same way, and the rule learnt from them is on disk when session 4
starts, so Claude Code loads it the first time session 4 reads the file. Driven through the
registered commands: the spool file for PostToolUseFailure and InstructionsLoaded, and
``python -m pokayokay hook SessionStart``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers.hooks import run_hook
from helpers.hooks import sample_payload as sample
from helpers.paths import REPO_ROOT

from pokayokay.failures.store import FailureStore
from pokayokay.hooks import catch_up, graduation_check, ingest
from pokayokay.infra import spool
from pokayokay.infra.state import project_state_dir
from pokayokay.rules.claude_match import paths_match
from pokayokay.rules.files import split_frontmatter

SPOOL_PY = REPO_ROOT / "pokayokay" / "infra" / "spool.py"
TEST_FILE = "tests/test_cart.py"
ERROR = (
    "Exit code 1\n"
    "FAILED tests/test_cart.py::test_total - AssertionError: assert 3 == 4\n"
    "1 failed in 0.12s"
)


@pytest.fixture
def project(project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (project / "tests").mkdir()
    (project / TEST_FILE).write_text("def test_total():\n    assert 3 == 4\n")
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    return project


def spooled(event: str, payload: dict[str, Any], project: Path) -> None:
    """What the registered command of a per-tool-call event does: the spool file, no site."""
    result = subprocess.run(
        [sys.executable, "-S", "-E", str(SPOOL_PY), event],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=dict(os.environ, CLAUDE_PROJECT_DIR=str(project)),
        timeout=60,
    )
    assert (result.returncode, result.stderr) == (0, b"")


def killed_session(project: Path, n: int) -> None:
    """A session that ran pytest, failed, and was killed: no Stop, no SessionEnd."""
    spooled(
        "PostToolUseFailure",
        sample(
            "PostToolUseFailure.Bash.json",
            project,
            session_id=f"killed-session-{n}",
            tool_use_id=f"toolu_01Killed{n:04d}",
            tool_input={"command": f"pytest {TEST_FILE}", "description": "run the tests"},
            error=ERROR,
        ),
        project,
    )


def session_start(project: Path, session_id: str) -> subprocess.CompletedProcess[bytes]:
    """The registered SessionStart command, as Claude Code runs it."""
    payload = sample("SessionStart.startup.json", project, session_id=session_id)
    return subprocess.run(
        [sys.executable, "-m", "pokayokay", "hook", "SessionStart"],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=dict(os.environ, CLAUDE_PROJECT_DIR=str(project)),
        cwd=project,
        timeout=60,
    )


def rule_files(project: Path) -> list[Path]:
    return sorted((project / ".claude" / "rules" / "pokayokay").glob("*.md"))


def test_the_fourth_session_starts_with_the_rule_three_killed_sessions_taught(
    project: Path,
) -> None:
    for n in range(3):
        killed_session(project, n)
    assert not rule_files(project)

    result = session_start(project, "session-4")

    assert (result.returncode, result.stderr) == (0, b"")
    assert json.loads(result.stdout)["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert not ingest.pending(spool.spool_dir(str(project)))
    [rule] = rule_files(project)
    # Claude Code loads it when session 4 first reads the file: its paths match the file.
    front = split_frontmatter(rule.read_text(encoding="utf-8"))
    assert paths_match(front.data.get("paths"), TEST_FILE)
    assert "test_cart.py" in front.body
    # ...and the load Claude Code then reports is counted for the rule (InstructionsLoaded
    # through its registered command, ingested like any spooled call).
    rel = rule.relative_to(project).as_posix()
    spooled(
        "InstructionsLoaded",
        sample(
            "InstructionsLoaded.path_glob_match.json",
            project,
            session_id="session-4",
            file_path=str(rule),
            globs=front.data.get("paths"),
            trigger_file_path=str(project / TEST_FILE),
        ),
        project,
    )
    ingest.ingest_project(str(project))
    with FailureStore.for_project(project) as store:
        loads = store.rule_loads()
    assert [(load.session_id, load.rule_path) for load in loads] == [("session-4", rel)]


def test_two_killed_sessions_teach_no_rule_and_the_next_start_ingests_them(
    project: Path,
) -> None:
    for n in range(2):
        killed_session(project, n)
    result = session_start(project, "session-3")
    assert (result.returncode, result.stderr) == (0, b"")
    assert not ingest.pending(spool.spool_dir(str(project)))
    assert not rule_files(project)  # two sessions are below the graduation threshold
    with FailureStore.for_project(project) as store:
        assert len(store.failures()) == 2


def test_after_a_finished_session_end_session_start_opens_no_store(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(3):
        killed_session(project, n)
    assert run_hook("SessionEnd", sample("SessionEnd.other.json", project))[0] == 0
    assert rule_files(project)
    import pokayokay.failures.store as store_module

    opened: list[object] = []
    real_init = store_module.FailureStore.__init__

    def counting(self: Any, *args: Any, **kwargs: Any) -> None:
        opened.append(args)
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(store_module.FailureStore, "__init__", counting)
    assert catch_up.catch_up(sample("SessionStart.startup.json", project)) == ""
    assert opened == []


def test_graduation_already_stamped_is_not_run_again(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(3):
        killed_session(project, n)
    payload = sample("SessionStart.startup.json", project)
    assert catch_up.catch_up(payload) == "graduated"
    # A read moves the store's mtime past the stamp: the evidence itself decides.
    with FailureStore.for_project(project) as store:
        store.failures()
    ran: list[int] = []
    import pokayokay.rules.apply as apply

    monkeypatch.setattr(apply, "graduate_project", lambda *a, **k: ran.append(1))
    assert catch_up.catch_up(payload) == ""
    assert ran == []


def test_a_spool_larger_than_the_hook_takes_is_ingested_and_graduated_detached(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(3):
        killed_session(project, n)
    detached: list[list[str]] = []
    import pokayokay.infra.detach as detach

    monkeypatch.setattr(detach, "detach_command", lambda args, why: detached.append(args))
    monkeypatch.setattr(catch_up, "INGEST_IN_HOOK_MAX_BYTES", 0)
    assert catch_up.catch_up(sample("SessionStart.startup.json", project)) == "detached"
    assert [args[:4] for args in detached] == [["graduate", "--quiet", "--project", str(project)]]
    assert ingest.pending(spool.spool_dir(str(project)))  # nothing dropped: left to that run
    # The detached command itself: it ingests everything first, then graduates.
    from pokayokay.cli.main import main

    assert main(detached[0]) == 0
    assert not ingest.pending(spool.spool_dir(str(project)))
    assert len(rule_files(project)) == 1


def test_a_failing_catch_up_costs_the_session_nothing_but_a_logged_line(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    killed_session(project, 0)

    def broken(payload: dict[str, Any]) -> str:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(catch_up, "catch_up", broken)
    code, out, err = run_hook("SessionStart", sample("SessionStart.startup.json", project))
    assert code in (0, 1)
    assert json.loads(out)["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    said = (err + capsys.readouterr().err).strip().splitlines()
    assert len(said) == 1 and "catching up" in said[0]
    assert ingest.pending(spool.spool_dir(str(project)))  # left for the next ingester


def test_graduation_may_be_due_only_when_the_store_was_written_after_the_stamp(
    project: Path,
) -> None:
    from pokayokay.names import FAILURES_CHANGED

    folder = project_state_dir(str(project))
    assert not catch_up.graduation_may_be_due(project)  # no store
    killed_session(project, 0)
    ingest.ingest_project(str(project))
    assert catch_up.graduation_may_be_due(project)  # no stamp yet
    payload = sample("SessionStart.startup.json", project)
    catch_up.catch_up(payload)  # one session: nothing graduates, the evidence is stamped
    assert (folder / graduation_check.GRADUATED_STAMP).is_file()
    assert not catch_up.graduation_may_be_due(project)
    with FailureStore.for_project(project) as store:  # a read is no write
        store.failures()
    assert not catch_up.graduation_may_be_due(project)
    mark = folder / FAILURES_CHANGED
    later = mark.stat().st_mtime_ns + 10**9
    os.utime(mark, ns=(later, later))  # what every write to the store does
    assert catch_up.graduation_may_be_due(project)
