"""SessionEnd over a failure store: it ingests the session's spool first, graduates only when
the evidence changed (not when the file's mtime moved), and hands graduation over a large store
to a detached process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers.paths import FIXTURE_SAMPLES_DIR

from pokayokay.failures.model import Failure
from pokayokay.failures.store import FailureStore
from pokayokay.hooks import graduation_check, session
from pokayokay.infra import detach, spool
from pokayokay.infra.locate import resolve_memory_location
from pokayokay.infra.state import project_state_dir

ERROR = "Exit code 1\nFAILED tests/test_cart.py::test_add - assert 3 == 4"


@pytest.fixture
def project(project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (project / "tests").mkdir()
    (project / "tests" / "test_cart.py").write_text("def test_total():\n    assert False\n")
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    return project


def payload(project: Path, name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURE_SAMPLES_DIR / name).read_text("utf-8"))
    data["cwd"] = str(project)
    return data


def spool_failures(project: Path, sessions: int) -> None:
    for n in range(sessions):
        failure = payload(project, "PostToolUseFailure.Bash.json")
        failure.update(session_id=f"session-{n}", error=ERROR, tool_use_id=f"toolu_{n}",
                       tool_input={"command": "pytest tests/test_cart.py"})
        spool.spool("PostToolUseFailure", json.dumps(failure).encode())


def test_session_end_ingests_then_graduates_once_per_new_evidence(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spool_failures(project, 3)
    runs: list[Any] = []
    import pokayokay.rules.apply as apply

    real = apply.graduate_project
    monkeypatch.setattr(apply, "graduate_project", lambda *a, **k: runs.append(1) or real(*a, **k))
    session.session_end(payload(project, "SessionEnd.other.json"), "SessionEnd")
    assert len(runs) == 1
    assert list((project / ".claude" / "rules" / "pokayokay").glob("*.md"))
    location = resolve_memory_location(project)
    with FailureStore.for_project(location.project_key) as store:  # a read moves the mtime
        assert len(store.failures()) == 3
    session.session_end(payload(project, "SessionEnd.other.json"), "SessionEnd")
    assert len(runs) == 1  # nothing new: no second graduation


def test_graduation_over_a_large_store_is_detached(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    location = resolve_memory_location(project)
    with FailureStore.for_project(location.project_key) as store:
        store.record_failure(Failure(1.0, "s", "Bash", "pytest", "FAILED <n>", "testing", (),
                                     "FAILED", 1), tool_use_id="t1")
    detached: list[list[str]] = []
    monkeypatch.setattr(graduation_check, "DETACH_GRADUATION_ABOVE_BYTES", 0)
    monkeypatch.setattr(
        detach, "detach_command", lambda args, why: detached.append(args)
    )
    session.session_end(payload(project, "SessionEnd.other.json"), "SessionEnd")
    assert [args[:2] for args in detached] == [["graduate", "--quiet"]]
    assert (project_state_dir(str(location.project_key)) / "graduated.stamp").is_file()
