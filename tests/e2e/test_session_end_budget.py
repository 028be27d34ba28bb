"""SessionEnd curation finishes inside Claude Code's default 1.5 s SessionEnd budget.

A SessionEnd handler without a ``timeout`` gets the shared default budget, which is also all a
plugin's hooks get (a plugin's timeout cannot raise it; interfaces doc §1.8). The client cancels
what runs longer, says "Hook cancelled" on stderr and logs "<hook> cancelled" in its debug log.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from .conftest import E2E
from .memory_docs import check_curated, over_budget_memory
from .mock_api import text

pytestmark = pytest.mark.e2e

REPO_ROOT = Path(__file__).resolve().parents[2]

_STAMP = re.compile(r"^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3})Z ")
# Lines the client logs while it shuts down, just before it starts the SessionEnd hooks.
_SHUTDOWN_MARKS = ("[uds-messaging] Shutting down", "LSP server manager shut down",
                   "Cleaned up session snapshot")


def _stamp(line: str) -> datetime | None:
    match = _STAMP.match(line)
    return datetime.fromisoformat(match.group(1)) if match else None


def session_end_seconds(debug_log: str) -> float | None:
    """Approximate SessionEnd hook time from the client's debug log: from the last shutdown line
    before the hook finished to the hook's "completed" line (the client logs no start line)."""
    start: datetime | None = None
    for line in debug_log.splitlines():
        when = _stamp(line)
        if when is None:
            continue
        if any(mark in line for mark in _SHUTDOWN_MARKS):
            start = when
        elif "SessionEnd:" in line and "completed with status" in line and start is not None:
            return (when - start).total_seconds()
    return None


def strip_session_end_timeouts(settings: dict[str, Any]) -> int:
    groups = settings.get("hooks", {}).get("SessionEnd", [])
    handlers = [h for group in groups for h in group.get("hooks", [])]
    for handler in handlers:
        handler.pop("timeout", None)
    return len(handlers)


@pytest.mark.parametrize("registration", ["settings-without-timeout", "plugin"])
def test_session_end_curation_fits_the_default_budget(
    e2e: E2E, registration: str, record_property: pytest.RecordProperty
) -> None:
    extra_args: list[str] = []
    if registration == "plugin":
        # The repository is the plugin: hooks/hooks.json, whose SessionEnd timeout is ignored.
        assert (REPO_ROOT / "hooks" / "hooks.json").is_file()
        extra_args = ["--plugin-dir", str(REPO_ROOT)]
    else:
        e2e.init_pokayokay()
        settings = e2e.project_settings()
        assert strip_session_end_timeouts(settings) >= 1, settings
        e2e.write_project_settings(settings)
    doc = over_budget_memory()
    memory = e2e.write_memory(doc.text)

    run = e2e.run_claude(e2e.project, "budget: end the session", [[text("BUDGET-DONE")]],
                         debug=True, extra_args=extra_args)

    assert run.exit_code == 0, run.describe()
    assert run.result_event.get("result") == "BUDGET-DONE"
    assert run.debug_log is not None
    log = Path(run.debug_log).read_text(encoding="utf-8", errors="replace")
    session_end_lines = [line for line in log.splitlines() if "SessionEnd:" in line]
    assert not [line for line in session_end_lines if line.rstrip().endswith("cancelled")], (
        session_end_lines)
    assert "Hook cancelled" not in run.stderr, run.stderr
    assert any("pokayokay" in line and "completed with status 0" in line
               for line in session_end_lines), session_end_lines

    check_curated(memory, doc)

    seconds = session_end_seconds(log)
    if seconds is not None:
        record_property("session_end_hook_seconds", round(seconds, 3))
        print(f"[{registration}] SessionEnd hook took about {seconds:.3f}s of the 1.5s budget")
