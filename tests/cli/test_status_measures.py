"""What `status` and `doctor` add for issue 16: free text Claude wrote inside a managed section,
and seed 002's capture share (SC-4) and weekly capture count (SC-5)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from helpers.graduation import memory_text

from pokayokay.cli.main import main as cli
from pokayokay.infra.locate import memory_location_for
from pokayokay.learnings.capture.capture_metrics import capture_metrics
from pokayokay.learnings.model import Learning
from pokayokay.memory.document import FreeText, free_text_in_sections, parse
from pokayokay.memory.sections import Settings

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=timezone.utc)
KEY_DECISIONS_MARKER = "<!-- pokayokay: promoted from session handoffs -->\n"
FREE = "Claude wrote this paragraph inside the section, it is not a bullet."


def with_free_text() -> str:
    return memory_text().replace(
        KEY_DECISIONS_MARKER,
        KEY_DECISIONS_MARKER + "- 2026-11-01 use postgres\n\n" + FREE + "\n",
    )


def test_free_text_inside_sections_is_found_with_its_line() -> None:
    text = with_free_text()
    line = text.splitlines().index(FREE) + 1
    found = free_text_in_sections(parse(text, Settings().sections))
    assert found == [FreeText("Key Decisions", line, FREE)]
    assert free_text_in_sections(parse(memory_text(), Settings().sections)) == []


def test_status_and_doctor_report_it(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    memory = memory_location_for(project).memory_file
    memory.parent.mkdir(parents=True)
    memory.write_text(with_free_text(), encoding="utf-8")
    assert cli(["status", "--project", str(project), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    [item] = data["free_text_in_sections"]
    assert item["section"] == "Key Decisions" and item["text"] == FREE
    assert cli(["status", "--project", str(project)]) == 0
    assert f"free text inside Key Decisions (line {item['line']}" in capsys.readouterr().out
    cli(["doctor", "--project", str(project), "--json"])
    checks = json.loads(capsys.readouterr().out)["checks"]
    assert any(
        c["level"] == "warn" and f"line {item['line']} inside Key Decisions" in c["detail"]
        for c in checks
    )


def learning(n: int, source: str, days_ago: float) -> Learning:
    created = (NOW - timedelta(days=days_ago)).strftime("%Y-%m-%dT%H:%M:%SZ")
    return Learning(f"l{n}", "d", "text " * 10, source=source, created=created)


def test_capture_measures() -> None:
    pool = [
        learning(1, "session-capture", 1),
        learning(2, "session-capture", 6.9),
        learning(3, "session-capture", 8),  # older than a week
        learning(4, "user", 0.5),
        learning(5, "user", 30),
    ]
    found = capture_metrics(pool, NOW)
    assert found["capture_share"] == 60.0 and not found["capture_share_ok"]
    assert found["captures_last_7_days"] == 2 and not found["captures_weekly_ok"]
    empty = capture_metrics([], NOW)
    assert empty["capture_share"] is None and empty["capture_share_ok"]


def test_status_json_carries_the_capture_measures(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(["init", "--project", str(project)]) == 0
    text = "The cache key includes the locale, so tests must clear the cache between locales"
    args = ["remember", "--project", str(project), "--source", "session-capture", text]
    assert cli(args) == 0
    other = "Integration tests need the postgres container running on port 5433 locally"
    assert cli(["remember", "--project", str(project), other]) == 0
    capsys.readouterr()
    assert cli(["status", "--project", str(project), "--json"]) == 0
    capture = json.loads(capsys.readouterr().out)["capture"]
    assert capture["learnings"] == 2 and capture["session_captures"] == 1
    assert capture["capture_share"] == 50.0 and capture["captures_last_7_days"] == 1
    assert cli(["status", "--project", str(project)]) == 0
    assert "session captures: 1 of 2 learnings (50.0%" in capsys.readouterr().out
