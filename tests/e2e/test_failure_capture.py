"""A failing Bash command reaches pokayokay's failure capture with the client's real payload."""

from __future__ import annotations

import json

import pytest

from .conftest import E2E
from .mock_api import text, tool_use

pytestmark = pytest.mark.e2e

FAILING_COMMAND = (
    "python3 -c 'import sys; print(\"E2E-FAIL-MARK disk quota\", file=sys.stderr); sys.exit(3)'"
)


def registered_events(settings: dict[str, object]) -> set[str]:
    hooks = settings.get("hooks")
    return set(hooks) if isinstance(hooks, dict) else set()


def test_failing_bash_command_is_captured(e2e: E2E) -> None:
    e2e.init_pokayokay()
    assert "PostToolUseFailure" in registered_events(e2e.project_settings())

    run = e2e.run_claude(
        e2e.project,
        "run the failing script",
        [[tool_use("Bash", {"command": FAILING_COMMAND, "description": "fail on purpose"})],
         [text("CAPTURE-DONE")]],
    )

    assert run.exit_code == 0, run.describe()
    assert run.result_event.get("result") == "CAPTURE-DONE"
    # The client really ran the command and told the model it failed.
    assert len(run.main_requests) == 2, run.describe()
    results = run.main_requests[1].tool_results()
    assert results and results[0].get("is_error") is True
    assert "Exit code 3" in json.dumps(results[0].get("content"))

    from pokayokay.failures.store import FailureStore

    db = e2e.state_dir() / "failures.db"
    assert db.is_file(), (
        f"no {db}; state folder holds "
        f"{sorted(str(p.relative_to(e2e.pokayokay_home)) for p in e2e.pokayokay_home.rglob('*'))}"
    )
    with FailureStore(db) as store:
        records = store.failures()
        groups = store.failure_groups()
    assert len(records) == 1, records
    record = records[0]
    assert record.session_id == run.session_id
    assert record.tool == "Bash"
    assert record.command == FAILING_COMMAND
    assert record.exit_code == 3
    assert "E2E-FAIL-MARK disk quota" in record.excerpt
    assert len(groups) == 1 and groups[0].sessions == 1
