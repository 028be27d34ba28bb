"""SessionEnd steps are isolated: one bad file (a NUL byte in MEMORY.md, a broken settings file)
fails its own step open — logged, one stderr line — and the other steps still run. Graduation
writes its rule even when MEMORY.md cannot take the Active Patterns entry, and says so."""

from __future__ import annotations

import io
import json
import os
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from helpers.gitrepo import git
from helpers.paths import FIXTURE_SAMPLES_DIR

from pokayokay.failures.model import FailureGroup
from pokayokay.hooks import runtime, session
from pokayokay.infra.locate import resolve_memory_location
from pokayokay.memory.sections import Settings
from pokayokay.rules import apply as graduation_run

SAMPLES = FIXTURE_SAMPLES_DIR
NUL_MEMORY = (
    b"# Memory\n\n## Completed Work\n<!-- pokayokay: managed by session hooks -->\n"
    + b"".join(b"- 2026-01-%02d finished story-%d\n" % (d, d) for d in range(1, 26))
    + b"<!-- /pokayokay -->\n\npasted from a binary: \x00\x01\x02\n"
)


def _log() -> str:
    path = Path(os.environ["POKAYOKAY_HOME"]) / "logs" / "pokayokay.log"
    return path.read_text("utf-8") if path.exists() else ""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "shop-api"
    folder.mkdir()
    git(folder, "init", "-q")
    memory = tmp_path / "memory"
    memory.mkdir()
    monkeypatch.setenv("POKAYOKAY_MEMORY_DIR", str(memory))
    return folder


def _session_end(project: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    payload = json.loads((SAMPLES / "SessionEnd.other.json").read_text())
    payload["cwd"] = str(project)
    err = io.StringIO()
    code = runtime.run("SessionEnd", io.BytesIO(json.dumps(payload).encode()), io.StringIO(), err)
    return code, err.getvalue() + capsys.readouterr().err


def _record_steps(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    ran: list[str] = []
    for name in ("graduate_if_new_evidence", "_retire_due", "_consolidate_if_due"):

        def fake(project: Path, location: Any, settings: Any, name: str = name) -> None:
            assert isinstance(settings, Settings)
            ran.append(name)

        monkeypatch.setattr(session, name, fake)
    return ran


def test_a_nul_byte_in_memory_md_costs_curation_only(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    memory = Path(os.environ["POKAYOKAY_MEMORY_DIR"]) / "MEMORY.md"
    memory.write_bytes(NUL_MEMORY)
    ran = _record_steps(monkeypatch)
    code, err = _session_end(project, capsys)
    assert code == 1  # failed open: a non-blocking error, the other steps ran
    assert len(err.splitlines()) == 1
    assert "SessionEnd curation skipped" in err and "looks binary (NUL byte" in err
    assert ran == ["graduate_if_new_evidence", "_retire_due", "_consolidate_if_due"]
    assert memory.read_bytes() == NUL_MEMORY
    assert "SessionEnd curation skipped" in _log()


def test_a_broken_settings_file_is_said_once_and_no_step_guesses(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "pokayokay.md").write_text("---\nmax_lines: [oops\n---\n")
    ran = _record_steps(monkeypatch)
    code, err = _session_end(project, capsys)
    assert code == 1
    assert len(err.splitlines()) == 1 and ".claude/pokayokay.md" in err
    assert ran == []  # nothing acted on guessed settings
    log = _log()
    for step in ("graduation", "rule retirement", "consolidation"):
        assert f"SessionEnd {step} skipped: the settings are unreadable" in log


def test_graduate_writes_the_rule_and_says_memory_md_was_not_updated(project: Path) -> None:
    location = resolve_memory_location(project, memory_dir=Path(os.environ["POKAYOKAY_MEMORY_DIR"]))
    location.memory_file.write_bytes(NUL_MEMORY)
    t0 = datetime(2026, 10, 1, tzinfo=timezone.utc).timestamp()
    failing = FailureGroup(
        signature="FAILED tests/test_cart.py::test_total",
        category="testing",
        sessions=3,
        occurrences=6,
        first_seen=t0,
        last_seen=t0 + 20 * 86_400,
        paths=("tests/test_cart.py",),
        fix_paths=("src/cart/models.py",),
        fix_commands=("pytest tests/test_cart.py",),
        sample_command="pytest tests/test_cart.py",
        excerpt="AssertionError: assert 3 == 4",
    )
    plan, outcome = graduation_run.graduate(
        [failing],
        project_dir=project,
        location=location,
        settings=Settings(),
        today=date(2026, 11, 22),
        project_files=["src/cart/models.py", "tests/test_cart.py"],
    )
    (rule,) = plan.rules
    assert (project / ".claude" / "rules" / "pokayokay" / f"{rule.id}.md").is_file()
    assert any("MEMORY.md was not updated" in note and "NUL byte" in note for note in outcome.notes)
    assert location.memory_file.read_bytes() == NUL_MEMORY
    assert "graduation: MEMORY.md not updated" in _log()
