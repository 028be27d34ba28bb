"""The benchmarks build a realistic state once and share it: a filled failure store is copied
into every project of that shape instead of being filled again. That is sound only while a
filled store holds nothing of its project; these tests keep it so."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from benchmarks.fixtures.failures import (
    failure_kinds,
    fill_project_store,
    fill_store,
    write_project_files,
)
from benchmarks.fixtures.lab import Lab
from pokayokay.failures.store import FailureStore
from pokayokay.names import FAILURES_CHANGED

# The benchmarks are a dev tool CI runs on its main Python only (decision 0155).
pytestmark = pytest.mark.one_python

Rows = list[tuple[str, tuple[object, ...]]]


@pytest.fixture
def lab(tmp_path: Path) -> Lab:
    return Lab(tmp_path / "lab")


def rows(db: Path) -> Rows:
    """Every row of every table, its times left out (a fill dates events from the clock)."""
    conn = sqlite3.connect(db)  # closed below: ``with`` on a connection only commits
    try:
        tables = [t for (t,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        found = [
            (table, tuple(v for v in row if not isinstance(v, float)))
            for table in tables
            for row in conn.execute(f"SELECT * FROM {table}")
        ]
    finally:
        conn.close()
    return sorted(found, key=repr)


def test_a_copied_store_is_the_store_fill_store_writes_for_that_project(lab: Lab) -> None:
    """Two projects at unrelated paths (one with a space and a non-ASCII name) get the same
    store by copy as a fill of their own would write, change marker included."""
    direct = lab.project("direct fill ü")
    write_project_files(direct.path, failure_kinds())
    with direct.store() as store:
        want_signatures = fill_store(store, direct.path, 600, sessions=12)
    want = rows(direct.store().path)
    assert len(want) > 600

    for name in ("copied one", "elsewhere/copied two"):
        project = lab.project(name)
        write_project_files(project.path, failure_kinds())
        assert fill_project_store(lab, project, 600, sessions=12) == want_signatures
        assert rows(project.store().path) == want
        assert (project.store().path.parent / FAILURES_CHANGED).is_file()
        with FailureStore.for_project(project.location.project_key, project.env) as store:
            assert len(store.failures()) == 600  # pokayokay reads it as its own


def test_a_filled_store_names_no_project_folder(lab: Lab) -> None:
    project = lab.project("named-folder-x7q")
    write_project_files(project.path, failure_kinds())
    fill_project_store(lab, project, 300, sessions=6)
    data = project.store().path.read_bytes()
    assert b"named-folder-x7q" not in data
    assert b"store-template" not in data
    assert str(lab.root).encode() not in data
