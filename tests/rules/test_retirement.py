"""Retiring graduated rules whose failure stopped recurring, end to end: real failure store,
real rule files, real MEMORY.md; and graduation not resurrecting a retired rule from old
evidence."""

from __future__ import annotations

import dataclasses
import os
from datetime import date, datetime, time, timezone
from pathlib import Path

import pytest
from helpers.graduation import CLAUDE_AP, CLAUDE_BOTTOM, CLAUDE_TOP, FILES, group, memory_text

from pokayokay.cli.rules import cmd_rules_retire
from pokayokay.errors import PokayokayError
from pokayokay.failures.model import Failure, FailureGroup
from pokayokay.failures.signature import short_id
from pokayokay.failures.store import FailureStore
from pokayokay.infra.locate import MemoryLocation, resolve_memory_location
from pokayokay.memory.sections import Settings
from pokayokay.rules import apply as graduation_run
from pokayokay.rules.graduation import RULES_ARCHIVE, RULES_DIR, plan_graduation
from pokayokay.rules.retirement import ARCHIVE_NAME, retire_due_rules
from pokayokay.rules.rule_text import parse_retired, retired_line

SIG = "FAILED tests/test_cart.py::test_total - AssertionError: assert <n> == <n>"
DAY = 86_400.0
T0 = datetime(2026, 10, 1, tzinfo=timezone.utc).timestamp()
RETIRE_DAY = date(2026, 11, 22)
AFTER_RETIREMENT = datetime(2026, 11, 23, 12, tzinfo=timezone.utc).timestamp()
N = 4  # retire_after_sessions in these tests
SETTINGS = dataclasses.replace(Settings(), retire_after_sessions=N)


@pytest.fixture
def where(tmp_path: Path) -> tuple[Path, MemoryLocation]:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    for name in FILES:  # the rules' files exist (a rule whose files are all gone is stale)
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text("x\n", encoding="utf-8")
    memory = tmp_path / "memory"
    memory.mkdir()
    location = resolve_memory_location(project, memory_dir=memory)
    location.memory_file.write_text(memory_text(CLAUDE_AP), encoding="utf-8")
    return project, location


def store(project: Path) -> FailureStore:
    return FailureStore.for_project(os.path.realpath(project))


def fail(session: str, ts: float) -> Failure:
    return Failure(
        ts, session, "Bash", "pytest tests/test_cart.py", SIG, "testing",
        ("tests/test_cart.py",), "AssertionError: assert 3 == 4", 1,
    )  # fmt: skip


def graduate(project: Path, location: MemoryLocation) -> None:
    with store(project) as s:
        groups = s.failure_groups()
    graduation_run.graduate(
        groups,
        project_dir=project,
        location=location,
        settings=SETTINGS,
        project_files=FILES,
        today=RETIRE_DAY,
    )


def graduated_rule(project: Path, location: MemoryLocation) -> Path:
    """Three sessions of the same failure in October → one graduated rule."""
    with store(project) as s:
        for i in range(3):
            s.record_failure(fail(f"f{i}", T0 + i * DAY))
    graduate(project, location)
    rules = sorted((project / RULES_DIR).iterdir())
    assert len(rules) == 1
    return rules[0]


def load(project: Path, rule: Path, sessions: int, start: float = T0 + 10 * DAY) -> None:
    key = f"{RULES_DIR}/{rule.name}"
    with store(project) as s:
        for i in range(sessions):
            s.record_rule_load(f"l{i}", key, "tests/test_cart.py", start + i * DAY)
            s.record_rule_load(f"l{i}", key, "tests/test_cart.py", start + i * DAY + 60)


def entry_line(memory: str, rule: Path) -> str:
    lines = [ln for ln in memory.splitlines(keepends=True) if f"{RULES_DIR}/{rule.name}" in ln]
    assert len(lines) == 1
    return lines[0]


def end_of(day: date) -> datetime:
    """A day-only ``retired=`` value means the end of that day (UTC)."""
    return datetime.combine(day, time.max, timezone.utc)


def test_a_rule_loaded_in_n_quiet_sessions_is_retired(where: tuple[Path, MemoryLocation]) -> None:
    project, location = where
    rule = graduated_rule(project, location)
    text = rule.read_text(encoding="utf-8")
    graduated = location.memory_file.read_text(encoding="utf-8")
    entry = entry_line(graduated, rule)
    load(project, rule, N)

    lines = retire_due_rules(project, location, SETTINGS, today=RETIRE_DAY)

    assert len(lines) == 1 and lines[0].startswith(f"retired {RULES_DIR}/{rule.name}")
    assert "Active Patterns entry removed" in lines[0]
    assert not rule.exists()
    archive = (location.memory_dir / ARCHIVE_NAME).read_text(encoding="utf-8")
    assert text.rstrip("\n") in archive  # nothing lost
    assert retired_line(rule.stem, [short_id(SIG)], RETIRE_DAY) in archive
    assert parse_retired(archive) == {short_id(SIG): end_of(RETIRE_DAY)}
    memory = location.memory_file.read_text(encoding="utf-8")
    # Only the rule's entry left: every other byte (Claude's text included) is as it was.
    assert memory == graduated.replace(entry, "", 1)
    assert memory.startswith(CLAUDE_TOP) and memory.endswith(CLAUDE_BOTTOM)
    assert CLAUDE_AP in memory
    # Nothing more is due.
    assert retire_due_rules(project, location, SETTINGS, today=RETIRE_DAY) == []


def test_one_session_short_is_not_retired(where: tuple[Path, MemoryLocation]) -> None:
    project, location = where
    rule = graduated_rule(project, location)
    before = location.memory_file.read_bytes()
    load(project, rule, N - 1)
    assert retire_due_rules(project, location, SETTINGS, today=RETIRE_DAY) == []
    assert rule.exists() and location.memory_file.read_bytes() == before
    assert not (location.memory_dir / ARCHIVE_NAME).exists()


def test_a_recurrence_after_the_first_load_keeps_the_rule(
    where: tuple[Path, MemoryLocation],
) -> None:
    project, location = where
    rule = graduated_rule(project, location)
    load(project, rule, N + 3)
    with store(project) as s:
        s.record_failure(fail("late", T0 + 11.5 * DAY))  # after the first load
    assert retire_due_rules(project, location, SETTINGS, today=RETIRE_DAY) == []
    assert rule.exists()


def test_old_evidence_does_not_resurrect_a_retired_rule_but_a_new_failure_does(
    where: tuple[Path, MemoryLocation],
) -> None:
    project, location = where
    rule = graduated_rule(project, location)
    load(project, rule, N)
    assert len(retire_due_rules(project, location, SETTINGS, today=RETIRE_DAY)) == 1
    retired_memory = location.memory_file.read_bytes()

    graduate(project, location)  # the same old evidence (SessionEnd runs graduation)
    assert not rule.exists()
    assert location.memory_file.read_bytes() == retired_memory

    with store(project) as s:
        s.record_failure(fail("back", AFTER_RETIREMENT))  # the failure came back
    graduate(project, location)
    assert rule.exists()  # a new file with the same stable id
    assert f"signatures={short_id(SIG)}" in rule.read_text(encoding="utf-8")
    assert f"{RULES_DIR}/{rule.name}" in location.memory_file.read_text(encoding="utf-8")


def test_plan_graduation_skips_retired_signatures_until_they_fail_after_the_date() -> None:
    sig = "FAILED tests/test_cart.py::test_total"
    last = datetime(2026, 11, 22, 23, tzinfo=timezone.utc).timestamp()
    old = group(sig, last=last)

    def rules(groups: list[FailureGroup], retired: dict[str, date] | None = None) -> int:
        p = plan_graduation(
            groups, project_files=FILES, existing_rules={}, today=date(2026, 12, 1), retired=retired
        )
        return len(p.rules)

    assert rules([old]) == 1
    retired = {short_id(sig): RETIRE_DAY}
    assert rules([old], retired) == 0
    assert rules([group(sig, last=last + 3600)], retired) == 1  # the next day (UTC)


def test_parse_retired_takes_the_latest_date_and_ignores_fenced_text() -> None:
    text = "\n".join(
        [
            "# Retired rules",
            retired_line("a", ["s1", "s2"], date(2026, 1, 1)),
            "```markdown",
            retired_line("fake", ["s9"], date(2026, 1, 1)),
            "```",
            retired_line("a", ["s1"], date(2026, 3, 1)),
            "<!-- pokayokay-retired: id=b; signatures=s3; retired=not-a-date -->",
        ]
    )
    assert parse_retired(text) == {"s1": end_of(date(2026, 3, 1)), "s2": end_of(date(2026, 1, 1))}


def test_cmd_rules_retire(where: tuple[Path, MemoryLocation]) -> None:
    project, location = where
    rule = graduated_rule(project, location)
    with pytest.raises(PokayokayError):
        cmd_rules_retire(project, location, SETTINGS, "no-such-rule", due=False)
    with pytest.raises(PokayokayError):
        cmd_rules_retire(project, location, SETTINGS, rule.stem, due=True)
    with pytest.raises(PokayokayError):
        cmd_rules_retire(project, location, SETTINGS, None, due=False)
    code, text = cmd_rules_retire(project, location, SETTINGS, None, due=True)
    assert code == 0 and text.startswith("No rule is due") and rule.exists()

    code, text = cmd_rules_retire(
        project, location, SETTINGS, rule.stem, due=False, today=RETIRE_DAY
    )
    assert code == 0 and text.startswith(f"retired {RULES_DIR}/{rule.name}")
    assert not rule.exists()
    assert f"{RULES_DIR}/{rule.name}" not in location.memory_file.read_text(encoding="utf-8")
    assert (location.memory_dir / RULES_ARCHIVE).exists()
    with pytest.raises(PokayokayError):  # gone now
        cmd_rules_retire(project, location, SETTINGS, rule.stem, due=False)


def test_failures_does_not_report_a_retired_rule_as_graduated(
    where: tuple[Path, MemoryLocation],
) -> None:
    """`pokayokay failures` builds its plan through the one plan builder, retired set included
    (it used to build its own without it and kept saying RULE / "graduated": true)."""
    import json

    from pokayokay.cli.graduate import cmd_failures

    project, location = where
    rule = graduated_rule(project, location)
    code, before = cmd_failures(project, location, SETTINGS, as_json=True)
    assert code == 0 and json.loads(before)["failures"][0]["graduated"] is True
    load(project, rule, N)
    retire_due_rules(project, location, SETTINGS, today=RETIRE_DAY)

    code, after = cmd_failures(project, location, SETTINGS, as_json=True)
    row = json.loads(after)["failures"][0]
    assert code == 0 and row["graduated"] is False
    code, text = cmd_failures(project, location, SETTINGS, as_json=False)
    assert "RULE" not in text.split("\n")[1]


def test_failures_later_on_the_day_of_retirement_bring_the_rule_back(
    where: tuple[Path, MemoryLocation],
) -> None:
    """Retired this morning, failing again in three sessions this afternoon: the moment of
    retirement is recorded to the second, so the same day's new failures are new evidence."""
    project, location = where
    rule = graduated_rule(project, location)
    load(project, rule, N)
    assert len(retire_due_rules(project, location, SETTINGS)) == 1  # today, now
    archive = (location.memory_dir / ARCHIVE_NAME).read_text(encoding="utf-8")
    retired_at = parse_retired(archive)[short_id(SIG)]
    assert retired_at.date() == datetime.now(timezone.utc).date()
    assert retired_at.time() != time.max  # a moment, not the end of the day
    assert not rule.exists()

    later = retired_at.timestamp() + 2
    with store(project) as s:
        for i in range(3):
            s.record_failure(fail(f"afternoon-{i}", later + i))
    graduate(project, location)
    assert rule.exists()


def test_failures_before_the_moment_of_retirement_stay_old_evidence() -> None:
    sig = "FAILED tests/test_cart.py::test_total"
    retired_at = datetime(2026, 11, 22, 9, 30, tzinfo=timezone.utc)
    before = group(sig, last=retired_at.timestamp() - 1)
    after = group(sig, last=retired_at.timestamp() + 1)

    def rules(g: FailureGroup) -> int:
        p = plan_graduation(
            [g], project_files=FILES, existing_rules={}, today=date(2026, 11, 22),
            retired={short_id(sig): retired_at},
        )  # fmt: skip
        return len(p.rules)

    assert rules(before) == 0
    assert rules(after) == 1
    line = retired_line("testing", [short_id(sig)], retired_at)
    assert "retired=2026-11-22T09:30:00Z" in line
    assert parse_retired(line) == {short_id(sig): retired_at}
