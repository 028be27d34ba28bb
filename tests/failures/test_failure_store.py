"""The SQLite failure store: groups, distinct sessions, fix episodes, pruning, concurrency."""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from pokayokay.failures.model import Failure, FailureGroup
from pokayokay.failures.store import (
    DB_NAME,
    EPISODE_MAX_AGE,
    SCHEMA_VERSION,
    FailureStore,
    RuleLoad,
    StoreError,
)
from pokayokay.infra.state import project_state_dir

T0 = 1_800_000_000.0


def failure(
    *,
    ts: float = T0,
    session: str = "s1",
    tool: str = "Bash",
    command: str | None = "pytest tests/test_cart.py",
    signature: str = "FAILED tests/test_cart.py::test_add - assert <n> == <n>",
    category: str = "testing",
    paths: tuple[str, ...] = ("tests/test_cart.py",),
    excerpt: str = "FAILED tests/test_cart.py::test_add - assert 3 == 4",
    exit_code: int | None = 1,
) -> Failure:
    return Failure(ts, session, tool, command, signature, category, paths, excerpt, exit_code)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[FailureStore]:
    with FailureStore(tmp_path / "state" / DB_NAME) as opened:
        yield opened


def only_group(store: FailureStore) -> FailureGroup:
    groups = store.failure_groups()
    assert len(groups) == 1, groups
    return groups[0]


def raw(store: FailureStore, sql: str) -> list[tuple[object, ...]]:
    with closing(sqlite3.connect(store.path)) as conn, conn:
        return conn.execute(sql).fetchall()


# --------------------------------------------------------------------------------------------
# the file


def test_a_new_store_is_private_wal_and_versioned(store: FailureStore) -> None:
    assert store.failure_groups() == []
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    with closing(sqlite3.connect(store.path)) as conn, conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_for_project_lives_in_the_project_state_folder(tmp_path: Path) -> None:
    key = tmp_path / "my project"
    store = FailureStore.for_project(key)
    assert store.path == project_state_dir(str(key)) / "failures.db"
    env = {"POKAYOKAY_HOME": str(tmp_path / "elsewhere")}
    other = FailureStore.for_project(str(key), env)
    assert other.path == project_state_dir(str(key), env) / "failures.db"
    assert str(other.path).startswith(str(tmp_path / "elsewhere"))
    assert not store.path.exists()  # opened lazily


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / DB_NAME
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    with FailureStore(path) as store, pytest.raises(StoreError, match="newer than this"):
        store.failure_groups()


def test_an_unreadable_file_is_moved_aside_not_lost(tmp_path: Path) -> None:
    path = tmp_path / DB_NAME
    path.write_bytes(b"this is not an sqlite database, but somebody's bytes" * 100)
    with FailureStore(path) as store:
        store.record_failure(failure())
        assert store.recovered_from is not None
        assert store.recovered_from.read_bytes().startswith(b"this is not an sqlite")
        assert only_group(store).occurrences == 1


def test_a_damaged_database_is_moved_aside_and_a_fresh_one_started(tmp_path: Path) -> None:
    """Issue 25 item 6: a complete SQLite header over bytes SQLite cannot read is corrupt, not
    busy: it is moved aside (kept whole) and the store goes on afresh."""
    path = tmp_path / DB_NAME
    damaged = b"SQLite format 3\x00" + b"\xff" * 200
    path.write_bytes(damaged)
    with FailureStore(path) as store:
        assert store.failure_groups() == []
        assert store.recovered_from is not None and store.recovered_from.read_bytes() == damaged
    assert path.read_bytes().startswith(b"SQLite format 3") and path.stat().st_size > 216


def test_a_header_still_being_written_is_left_alone(tmp_path: Path) -> None:
    """Shorter than SQLite's 100-byte header and starting like one: maybe another process's
    database being created; reported, never moved."""
    path = tmp_path / DB_NAME
    path.write_bytes(b"SQLite format 3\x00\x10\x00")
    with FailureStore(path) as store, pytest.raises(sqlite3.DatabaseError):
        store.failure_groups()
    assert store.recovered_from is None
    assert path.read_bytes() == b"SQLite format 3\x00\x10\x00"


def test_an_empty_file_is_a_new_database(tmp_path: Path) -> None:
    path = tmp_path / DB_NAME
    path.touch()
    with FailureStore(path) as store:
        store.record_failure(failure())
        assert store.recovered_from is None
        assert only_group(store).occurrences == 1


def test_max_events_must_be_positive(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        FailureStore(tmp_path / DB_NAME, max_events=0)


# --------------------------------------------------------------------------------------------
# groups


def test_one_failure_becomes_one_group(store: FailureStore) -> None:
    assert store.record_failure(failure(paths=("src/cart.py", "tests/test_cart.py")))
    assert only_group(store) == FailureGroup(
        signature="FAILED tests/test_cart.py::test_add - assert <n> == <n>",
        category="testing",
        sessions=1,
        occurrences=1,
        first_seen=T0,
        last_seen=T0,
        paths=("src/cart.py", "tests/test_cart.py"),
        fix_paths=(),
        fix_commands=(),
        sample_command="pytest tests/test_cart.py",
        excerpt="FAILED tests/test_cart.py::test_add - assert 3 == 4",
    )


def test_retries_in_one_session_are_one_session(store: FailureStore) -> None:
    for n in range(5):
        store.record_failure(failure(ts=T0 + n))
    group = only_group(store)
    assert (group.sessions, group.occurrences) == (1, 5)
    assert (group.first_seen, group.last_seen) == (T0, T0 + 4)
    store.record_failure(failure(ts=T0 + 100, session="s2"))
    store.record_failure(failure(ts=T0 - 100, session="s3"))
    group = only_group(store)
    assert (group.sessions, group.occurrences) == (3, 7)
    assert (group.first_seen, group.last_seen) == (T0 - 100, T0 + 100)


def test_groups_are_ordered_by_sessions_then_occurrences(store: FailureStore) -> None:
    for n in range(4):
        store.record_failure(failure(signature="busy", session="s1", ts=T0 + n))
    for n in range(3):
        store.record_failure(failure(signature="widespread", session=f"s{n}", ts=T0 + n))
    store.record_failure(failure(signature="once"))
    assert [g.signature for g in store.failure_groups()] == ["widespread", "busy", "once"]


def test_the_latest_category_and_excerpt_win_and_commands_are_normalised(
    store: FailureStore,
) -> None:
    store.record_failure(failure(category="shell", excerpt="old", command="pytest   -x"))
    store.record_failure(failure(category="testing", excerpt="new", command=None, tool="Edit"))
    group = only_group(store)
    assert (group.category, group.excerpt, group.sample_command) == ("testing", "new", "pytest -x")


def test_the_same_tool_call_is_recorded_once(store: FailureStore) -> None:
    assert store.record_failure(failure(), tool_use_id="toolu_1")
    assert not store.record_failure(failure(ts=T0 + 1), tool_use_id="toolu_1")
    assert store.record_failure(failure(ts=T0 + 2), tool_use_id="toolu_2")
    assert store.record_failures([(failure(), "toolu_2"), (failure(), "toolu_3"), failure()]) == 2
    assert only_group(store).occurrences == 4


def test_paths_accumulate_across_failures(store: FailureStore) -> None:
    store.record_failure(failure(paths=("b.py",)))
    store.record_failure(failure(paths=("a.py", "b.py")))
    assert only_group(store).paths == ("a.py", "b.py")


# --------------------------------------------------------------------------------------------
# fix episodes


def test_a_fix_episode_collects_the_edits_between_failure_and_success(
    store: FailureStore,
) -> None:
    store.record_edit("s1", "src/before.py", T0 - 10)  # before the failure: not part of it
    store.record_failure(failure(ts=T0))
    assert store.record_edit("s1", "src/cart.py", T0 + 1)
    assert store.record_edit("s1", "src/cart.py", T0 + 2)
    assert store.record_edit("s1", "tests/conftest.py", T0 + 3)
    store.record_edit("s2", "src/other_session.py", T0 + 3)
    assert store.record_success("s1", "Bash", "pytest  tests/test_cart.py", T0 + 4) == 1
    store.record_edit("s1", "src/after.py", T0 + 5)  # after the success: not part of it
    group = only_group(store)
    assert group.fix_paths == ("src/cart.py", "tests/conftest.py")
    assert group.fix_commands == ("pytest tests/test_cart.py",)
    assert raw(store, "SELECT count(*) FROM episodes") == [(0,)]
    assert raw(store, "SELECT count(*) FROM edits") == [(0,)]


def test_the_episode_starts_at_its_first_failure(store: FailureStore) -> None:
    store.record_failure(failure(ts=T0))
    store.record_edit("s1", "src/a.py", T0 + 1)
    store.record_failure(failure(ts=T0 + 2, signature="another error"))
    store.record_edit("s1", "src/b.py", T0 + 3)
    store.record_success("s1", "Bash", "pytest tests/test_cart.py", T0 + 4)
    paths = {g.signature: g.fix_paths for g in store.failure_groups()}
    # The first mistake changed after the edit to a.py: both edits are its fix. The second was
    # still failing after a.py was edited: only the edit after its last failure fixed it.
    assert paths == {failure().signature: ("src/a.py", "src/b.py"), "another error": ("src/b.py",)}
    for group in store.failure_groups():
        assert group.fix_commands == ("pytest tests/test_cart.py",)


def test_only_the_edits_after_the_last_failure_are_the_fix(store: FailureStore) -> None:
    store.record_failure(failure(ts=T0))
    store.record_edit("s1", "src/wrong.py", T0 + 1, "- a = 1\n+ a = 2")
    store.record_failure(failure(ts=T0 + 2))  # the same mistake, again
    store.record_edit("s1", "src/right.py", T0 + 3, "- b = 1\n+ b = 2")
    store.record_success("s1", "Bash", "pytest tests/test_cart.py", T0 + 4)
    (group,) = store.failure_groups()
    assert group.fix_paths == ("src/right.py",)
    assert [e.path for e in group.fix_edits] == ["src/right.py"]
    assert [f.paths for f in store.session_fixes("s1")] == [("src/right.py",)]


def test_a_revert_is_not_a_fix(store: FailureStore) -> None:
    store.record_failure(failure(ts=T0))
    store.record_edit("s1", "src/cart.py", T0 + 1, "- total = 0\n+ total = 1")
    store.record_edit("s1", "src/cart.py", T0 + 2, "- total = 1\n+ total = 0")  # undone
    store.record_edit("s1", "src/db.py", T0 + 3, "- x = 1\n+ x = 2")
    store.record_success("s1", "Bash", "pytest tests/test_cart.py", T0 + 4)
    (group,) = store.failure_groups()
    assert group.fix_paths == ("src/db.py",)
    assert [(e.path, e.excerpt) for e in group.fix_edits] == [("src/db.py", "- x = 1\n+ x = 2")]


def test_a_rerun_passing_with_no_edit_is_no_bug_fix(store: FailureStore) -> None:
    store.record_failure(failure(ts=T0))
    assert store.record_success("s1", "Bash", "pytest tests/test_cart.py", T0 + 1) == 1
    assert store.session_fixes("s1") == []


def test_a_success_of_another_command_or_session_closes_nothing(store: FailureStore) -> None:
    store.record_failure(failure(ts=T0))
    store.record_edit("s1", "src/cart.py", T0 + 1)
    assert store.record_success("s1", "Bash", "pytest", T0 + 2) == 0
    assert store.record_success("s2", "Bash", "pytest tests/test_cart.py", T0 + 2) == 0
    assert store.record_success("s1", "Bash", None, T0 + 2) == 0
    group = only_group(store)
    assert (group.fix_paths, group.fix_commands) == ((), ())
    store.record_success("s1", "Bash", "pytest tests/test_cart.py", T0 + 3)
    assert only_group(store).fix_paths == ("src/cart.py",)


def test_edits_are_kept_only_while_the_session_has_an_open_episode(store: FailureStore) -> None:
    assert not store.record_edit("s1", "src/a.py", T0)
    assert raw(store, "SELECT count(*) FROM edits") == [(0,)]
    store.record_failure(failure(ts=T0 + 1, session="s2"))
    assert not store.record_edit("s1", "src/a.py", T0 + 2)  # s2's episode, not s1's
    assert store.record_edit("s2", "src/a.py", T0 + 2)


def test_a_second_episode_does_not_inherit_the_first_ones_edits(store: FailureStore) -> None:
    store.record_failure(failure(ts=T0))
    store.record_edit("s1", "src/first.py", T0 + 1)
    store.record_success("s1", "Bash", "pytest tests/test_cart.py", T0 + 2)
    store.record_failure(failure(ts=T0 + 3, signature="second"))
    store.record_edit("s1", "src/second.py", T0 + 4)
    store.record_success("s1", "Bash", "pytest tests/test_cart.py", T0 + 5)
    fixes = {g.signature: g.fix_paths for g in store.failure_groups()}
    assert fixes["second"] == ("src/second.py",)
    assert "src/first.py" in fixes[failure().signature]


def test_fix_commands_are_most_frequent_first(store: FailureStore) -> None:
    for n, command in enumerate(["make test", "pytest", "pytest", "make test", "pytest"]):
        store.record_failure(failure(ts=T0 + 2 * n, command=command))
        store.record_success("s1", "Bash", command, T0 + 2 * n + 1)
    assert only_group(store).fix_commands == ("pytest", "make test")


def test_failures_without_a_command_open_no_episode(store: FailureStore) -> None:
    store.record_failure(failure(tool="Edit", command=None, category="edit"))
    assert raw(store, "SELECT count(*) FROM episodes") == [(0,)]


def test_a_success_with_nothing_to_close_writes_nothing(store: FailureStore) -> None:
    store.record_success("s1", "Bash", "ls", T0)  # registers the session (one write)
    conn = store._connection()
    before = conn.total_changes
    for n in range(20):
        assert store.record_success("s1", "Bash", f"ls {n}", T0 + n) == 0
        assert not store.record_edit("s1", "src/a.py", T0 + n)
    assert conn.total_changes == before


def test_old_open_episodes_and_their_edits_expire(store: FailureStore) -> None:
    store.record_failure(failure(ts=T0))
    store.record_edit("s1", "src/a.py", T0 + 1)
    store.maintain(now=T0 + EPISODE_MAX_AGE + 10)
    assert raw(store, "SELECT count(*) FROM episodes") == [(0,)]
    assert raw(store, "SELECT count(*) FROM episode_signatures") == [(0,)]
    assert raw(store, "SELECT count(*) FROM edits") == [(0,)]
    assert store.record_success("s1", "Bash", "pytest tests/test_cart.py") == 0
    assert only_group(store).occurrences == 1


# --------------------------------------------------------------------------------------------
# bounded size


def test_pruning_keeps_the_newest_rows_and_exact_group_counts(tmp_path: Path) -> None:
    with FailureStore(tmp_path / DB_NAME, max_events=10) as store:
        for n in range(25):
            store.record_failure(
                failure(ts=T0 + n, session=f"s{n % 4}", signature=f"sig{n % 2}", paths=(f"{n}",))
            )
        assert raw(store, "SELECT count(*) FROM failures") == [(10,)]
        kept = store.failures()
        assert [f.ts for f in kept] == [T0 + n for n in range(15, 25)]
        groups = {g.signature: g for g in store.failure_groups()}
        assert groups["sig0"].occurrences == 13
        assert groups["sig1"].occurrences == 12
        assert groups["sig0"].sessions == 2  # s0 and s2
        assert groups["sig1"].sessions == 2  # s1 and s3
        assert groups["sig0"].first_seen == T0
        assert len(groups["sig0"].paths) == 13


def test_failures_reads_raw_rows(store: FailureStore) -> None:
    store.record_failure(failure(ts=T0, signature="a", paths=("x.py",)))
    store.record_failure(failure(ts=T0 + 1, signature="b", exit_code=None, command=None))
    store.record_failure(failure(ts=T0 + 2, signature="a"))
    assert [f.signature for f in store.failures()] == ["a", "b", "a"]
    assert store.failures()[0] == failure(ts=T0, signature="a", paths=("x.py",))
    assert [f.ts for f in store.failures(since=T0 + 1)] == [T0 + 1, T0 + 2]
    assert [f.ts for f in store.failures(signatures=["a"])] == [T0, T0 + 2]
    assert store.failures(signatures=[]) == []
    assert [f.ts for f in store.failures(limit=2)] == [T0 + 1, T0 + 2]


# --------------------------------------------------------------------------------------------
# rule loads and sessions


def test_rule_loads_and_sessions_since(store: FailureStore) -> None:
    store.record_rule_load("s1", ".claude/rules/pokayokay/testing.md", "tests/test_a.py", T0)
    store.record_rule_load("s2", ".claude/rules/pokayokay/testing.md", None, T0 + 10)
    assert store.rule_loads() == [
        RuleLoad(T0, "s1", ".claude/rules/pokayokay/testing.md", "tests/test_a.py"),
        RuleLoad(T0 + 10, "s2", ".claude/rules/pokayokay/testing.md", None),
    ]
    store.record_success("s3", "Bash", "ls", T0 + 20)
    store.record_edit("s4", "a.py", T0 + 30)
    store.record_failure(failure(session="s5", ts=T0 + 40))
    store.record_failure(failure(session="s1", ts=T0 + 50))  # s1 was seen before
    assert store.sessions_since(T0) == 5
    assert store.sessions_since(T0 + 5) == 4
    assert store.sessions_since(T0 + 35) == 1
    assert store.sessions_since(T0 + 1000) == 0


# --------------------------------------------------------------------------------------------
# many processes at once

WORKER = """
import sys, time
from pathlib import Path
from pokayokay.failures.store import FailureStore
from pokayokay.failures.model import Failure

path, index, go = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
while not go.exists():
    time.sleep(0.002)
store = FailureStore(path)
for n in range(20):
    signature = "shared" if n % 2 == 0 else f"own-{index}"
    command = f"cmd {n % 4}"
    store.record_failure(
        Failure(time.time(), f"s{index}", "Bash", command, signature, "testing",
                (f"src/m{n % 3}.py",), "x", 1),
        tool_use_id=f"toolu_{index}_{n}",
    )
    store.record_edit(f"s{index}", f"src/fix{index}.py")
    if n % 5 == 4:
        store.record_success(f"s{index}", "Bash", command)
store.close()
"""


def test_thirty_processes_at_once_lose_nothing(tmp_path: Path) -> None:
    """30 processes x 20 failures each, on a database none of them found: exact counts."""
    path = tmp_path / "fresh" / DB_NAME
    go = tmp_path / "go"
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(path), str(i), str(go)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for i in range(30)
    ]
    time.sleep(0.5)
    go.touch()
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()
    with FailureStore(path) as store:
        assert raw(store, "SELECT count(*) FROM failures") == [(600,)]
        assert raw(store, "PRAGMA integrity_check") == [("ok",)]
        groups = {g.signature: g for g in store.failure_groups()}
        assert len(groups) == 31
        assert (groups["shared"].occurrences, groups["shared"].sessions) == (300, 30)
        for i in range(30):
            own = groups[f"own-{i}"]
            assert (own.occurrences, own.sessions) == (10, 1)
            # cmd 0 and cmd 2 failed with "shared", cmd 1 and cmd 3 with "own-i"; each
            # succeeded once (n = 4, 9, 14, 19), after this process's own edits.
            assert own.fix_paths == (f"src/fix{i}.py",)
            assert own.fix_commands == ("cmd 1", "cmd 3")
        assert set(groups["shared"].fix_paths) == {f"src/fix{i}.py" for i in range(30)}
        assert groups["shared"].fix_commands == ("cmd 0", "cmd 2")
        assert store.sessions_since(0) == 30
