"""The recall cache is keyed by what recall reads: a captured failure that closes no fix episode
keeps the index (and after one digest, opens no database); a closed fix episode changes it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from helpers.gitrepo import git

from pokayokay.failures import store as store_module
from pokayokay.failures.model import Failure
from pokayokay.failures.store import FailureStore
from pokayokay.infra.locate import resolve_memory_location
from pokayokay.infra.state import project_state_dir
from pokayokay.learnings import model as learnings
from pokayokay.learnings.topics import topic_file
from pokayokay.recall import fixes, sources
from pokayokay.safety.sanitize import excerpt

NOTE = ("Run migrations with `make migrate` before the integration tests; the test database is "
        "not migrated automatically and the errors look like missing columns.")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    return Path(os.path.realpath(root))


def setup(project: Path) -> tuple[Path, Path, Path]:
    location = resolve_memory_location(project)
    memory = location.memory_dir
    memory.mkdir(parents=True)
    name = learnings.make_name(NOTE)
    learning = learnings.Learning(name=name, description=excerpt(NOTE, learnings.DESCRIPTION_MAX),
                                  text=NOTE, category="patterns", hash=learnings.identity(NOTE))
    (memory / learnings.file_name_for(name)).write_text(topic_file.render(learning), "utf-8")
    return memory, location.project_dir, project_state_dir(str(location.project_key))


def fail(store: FailureStore, n: int, signature: str, command: str, ts: float) -> None:
    failure = Failure(ts, f"session-{n}", "Bash", command, signature, "testing",
                      ("tests/test_orders.py",), signature[:80], 1)
    store.record_failure(failure, tool_use_id=f"toolu_{n}")


def test_a_capture_that_fixes_nothing_keeps_the_index(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory, project_dir, state = setup(project)
    db = state / "failures.db"
    with FailureStore(db) as store:
        fail(store, 1, "psycopg.errors.UndefinedColumn: column orders.tenant_id does not exist",
             "pytest tests/test_orders.py", 1_760_000_000.0)
        store.record_edit("session-1", "migrations/0042_tenant.py", 1_760_000_010.0)
        store.record_success("session-1", "Bash", "pytest tests/test_orders.py", 1_760_000_020.0)
    first = sources.load(memory, project_dir, state).index
    assert first is not None and len(first) == 2  # the learning and the fix episode

    builds: list[Any] = []
    opened: list[Any] = []
    real_build, real_init = sources.build, store_module.FailureStore.__init__
    monkeypatch.setattr(sources, "build", lambda *a, **k: builds.append(1) or real_build(*a, **k))

    def counting_init(self: FailureStore, *args: Any, **kwargs: Any) -> None:
        opened.append(args)
        real_init(self, *args, **kwargs)

    with FailureStore(db) as store:  # a new failure in another session: no fix closed
        fail(store, 2, "ruff: F401 `os` imported but unused", "ruff check", 1_760_000_100.0)
    monkeypatch.setattr(store_module.FailureStore, "__init__", counting_init)
    made: list[Any] = []
    real_documents = fixes.fix_documents
    monkeypatch.setattr(fixes, "fix_documents", lambda g: made.append(1) or real_documents(g))
    again = sources.load(memory, project_dir, state).index
    assert again is not None and len(again) == 2
    assert builds == []  # the cached index stayed valid
    assert made == []  # the fixed groups were as before: no text sanitised or analysed
    assert len(opened) == 1  # the digest was recomputed once ...
    sources.load(memory, project_dir, state)
    assert len(opened) == 1  # ... and the next prompt opens no database

    monkeypatch.setattr(store_module.FailureStore, "__init__", real_init)
    with FailureStore(db) as store:  # now a fix episode closes: the fix texts change
        fail(store, 3, "ruff: F401 `os` imported but unused", "ruff check", 1_760_000_200.0)
        # (a bare re-run that passes fixes nothing: recall shows edits and corrections only)
        store.record_edit("session-3", "src/app.py", 1_760_000_250.0)
        store.record_success("session-3", "Bash", "ruff check", 1_760_000_300.0)
    changed = sources.load(memory, project_dir, state).index
    assert builds == [1]
    assert made == [1]
    assert changed is not None and len(changed) == 3
