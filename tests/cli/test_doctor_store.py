"""doctor on a failure store that was corrupt: it says so loudly, names where the old file went,
and logs it — it used to report "integrity ok" for the fresh store and log nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers.gitrepo import git

from pokayokay.cli import main as cli
from pokayokay.failures.store import FailureStore
from pokayokay.infra.locate import resolve_memory_location
from pokayokay.infra.state import project_state_dir
from pokayokay.names import FAILURES_DB


def _log() -> str:
    path = Path(os.environ["POKAYOKAY_HOME"]) / "logs" / "pokayokay.log"
    return path.read_text("utf-8") if path.exists() else ""


def test_doctor_says_the_store_was_corrupt_and_where_it_went(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "shop-api"
    project.mkdir()
    git(project, "init", "-q")
    location = resolve_memory_location(project)
    db = project_state_dir(str(location.project_key)) / FAILURES_DB
    db.parent.mkdir(parents=True)
    db.write_bytes(b"PK\x03\x04 a zip file copied over the store by a sync tool\n" * 40)

    with FailureStore.for_project(location.project_key) as store:  # a hook opens it
        assert store.failure_groups() == []
    aside = store.recovered_from
    assert aside is not None and aside.exists()
    assert f"moved aside to {aside}" in _log()

    code = cli.main(["doctor", "--project", str(project)])
    out = capsys.readouterr().out
    assert code == 1
    fails = [line for line in out.splitlines() if line.startswith("[FAIL] failure store")]
    assert len(fails) == 1
    assert "THE FAILURE STORE WAS CORRUPT" in fails[0] and str(aside) in fails[0]
    assert "doctor: THE FAILURE STORE WAS CORRUPT" in _log()
    assert aside.read_bytes().startswith(b"PK\x03\x04")  # the old file is kept
