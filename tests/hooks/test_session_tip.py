"""The SessionStart `/remember` tip is shown until the project has a learning, then never again;
the overflow note does not depend on it."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pokayokay.config.settings import load_settings
from pokayokay.hooks import runtime as hook
from pokayokay.infra.locate import memory_location_for
from pokayokay.learnings.capture.remember import remember
from pokayokay.names import SESSION_START_TIP

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "claude-code-samples"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "billing"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    monkeypatch.setenv("POKAYOKAY_MEMORY_DIR", str(tmp_path / "memory"))
    return root


def start(project: Path) -> str:
    payload: dict[str, Any] = json.loads((SAMPLE / "SessionStart.startup.json").read_text())
    payload["cwd"] = str(project)
    out, err = io.StringIO(), io.StringIO()
    code = hook.run("SessionStart", io.BytesIO(json.dumps(payload).encode()), out, err)
    assert (code, err.getvalue()) == (0, "")
    specific = json.loads(out.getvalue())["hookSpecificOutput"]
    assert specific["watchPaths"][0].endswith("MEMORY.md")  # always: FileChanged curates
    return str(specific.get("additionalContext", ""))


def store(project: Path, text: str) -> None:
    location = memory_location_for(project)
    result = remember(text, project_dir=project, location=location, settings=load_settings(project))
    assert result.saved, result


def test_tip_until_the_first_learning(project: Path) -> None:
    assert start(project) == SESSION_START_TIP
    assert start(project) == SESSION_START_TIP  # still no learning: still the tip
    store(project, "Invoice totals are stored in cents; the PDF renderer divides by 100.")
    assert start(project) == ""  # nothing to say: no output at all


def test_overflow_note_without_the_tip(project: Path, tmp_path: Path) -> None:
    store(project, "Run `make schema` after editing billing/models.py or the API tests fail.")
    memory = tmp_path / "memory" / "MEMORY.md"
    memory.write_text("# Memory\n" + "".join(f"- note {i}\n" for i in range(260)))
    note = start(project)
    assert "261 lines" in note and SESSION_START_TIP not in note
