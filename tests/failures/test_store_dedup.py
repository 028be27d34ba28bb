"""A tool call is recorded once per session: the same ``tool_use_id`` in another session (a
replay, a resumed or mocked session) is a failure of its own, and old stores migrate in place."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from helpers.hooks import run_hook

from pokayokay.failures.model import Failure
from pokayokay.failures.schema import MIGRATIONS, SCHEMA_VERSION
from pokayokay.failures.store import DB_NAME, FailureStore

T0 = 1_800_000_000.0


def failure(session: str, ts: float = T0) -> Failure:
    return Failure(
        ts,
        session,
        "Bash",
        "pytest tests/test_cart.py",
        "FAILED tests/test_cart.py::test_add - assert <n> == <n>",
        "testing",
        ("tests/test_cart.py",),
        "FAILED tests/test_cart.py::test_add - assert 3 == 4",
        1,
    )


def test_the_same_call_twice_in_one_session_counts_once(tmp_path: Path) -> None:
    with FailureStore(tmp_path / DB_NAME) as store:
        assert store.record_failure(failure("s1"), tool_use_id="toolu_01")
        assert not store.record_failure(failure("s1", T0 + 1), tool_use_id="toolu_01")
        assert store.failure_groups()[0].occurrences == 1


def test_a_reused_id_in_another_session_is_recorded(tmp_path: Path) -> None:
    with FailureStore(tmp_path / DB_NAME) as store:
        assert store.record_failure(failure("s1"), tool_use_id="toolu_mock_0001_01")
        assert store.record_failure(failure("s2", T0 + 60), tool_use_id="toolu_mock_0001_01")
        assert (
            store.record_failures(
                [
                    (failure("s3", T0 + 120), "toolu_mock_0001_01"),
                    (failure("s3"), "toolu_mock_0001_01"),
                ]
            )
            == 1
        )
        group = store.failure_groups()[0]
        assert (group.sessions, group.occurrences) == (3, 3)


def test_a_version_1_store_migrates_without_losing_a_row(tmp_path: Path) -> None:
    path = tmp_path / DB_NAME
    with closing(sqlite3.connect(path)) as conn, conn:
        for statement in MIGRATIONS[0]:
            conn.execute(statement)
        conn.execute("PRAGMA user_version=1")
        conn.execute(
            "INSERT INTO failures (ts, session_id, tool, command, signature, category, paths,"
            " excerpt, exit_code, tool_use_id) VALUES (?, 's1', 'Bash', 'pytest', 'sig',"
            " 'testing', '[]', 'x', 1, 'toolu_01')",
            (T0,),
        )
    with FailureStore(path) as store:
        # Under version 1 this second session's failure was silently dropped.
        assert store.record_failure(failure("s2", T0 + 5), tool_use_id="toolu_01")
        assert not store.record_failure(failure("s2", T0 + 6), tool_use_id="toolu_01")
        assert [f.session_id for f in store.failures()] == ["s1", "s2"]
    with closing(sqlite3.connect(path)) as conn, conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 6
        indexes = {
            row[1]: [col[2] for col in conn.execute(f"PRAGMA index_info({row[1]})")]
            for row in conn.execute("PRAGMA index_list(failures)")
        }
    # Unique per session (and per mistake: one call may record several), never across sessions.
    assert indexes["failures_tool_use"] == ["session_id", "tool_use_id", "signature"]
    assert "failures_session_tool_use" not in indexes


def test_a_replayed_session_reusing_ids_is_recorded_through_the_hooks(project: Path) -> None:
    (project / "tests").mkdir()
    (project / "tests" / "test_cart.py").write_text("def test_add(): ...\n", encoding="utf-8")
    error = "Exit code 1\nFAILED tests/test_cart.py::test_add - assert 3 == 4"
    for session in ("0ebb4b7c-7011-44b6-afdb-8302b6c943e8", "7f3e2d1c-0000-4b6a-9c8d-112233445566"):
        payload = {
            "session_id": session,
            "transcript_path": f"/home/dev/.claude/projects/p/{session}.jsonl",
            "cwd": str(project),
            "hook_event_name": "PostToolUseFailure",
            "tool_name": "Bash",
            "tool_input": {"command": "pytest tests/test_cart.py", "description": "run"},
            "tool_use_id": "toolu_mock_0001_01",  # a mocked client numbers its calls the same
            "error": error,
            "is_interrupt": False,
        }
        for _ in range(2):  # PostToolUseFailure and a retry of the same hook: counted once
            assert run_hook("PostToolUseFailure", payload) == (0, "", "")
    with FailureStore.for_project(str(project)) as store:
        group = store.failure_groups()[0]
    assert (group.sessions, group.occurrences) == (2, 2)
