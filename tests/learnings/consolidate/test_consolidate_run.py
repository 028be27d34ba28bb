"""Consolidation end to end on real temporary git repositories: what moves where, what stays,
every line kept, dry runs, the report, splits, failures, and the cheap SessionEnd check."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from collections import Counter
from datetime import date
from pathlib import Path

import pytest
from helpers.gitrepo import LEARNINGS, GitRepo

from pokayokay.errors import PokayokayError
from pokayokay.infra import safe_write
from pokayokay.infra.locate import MemoryLocation, resolve_memory_location
from pokayokay.infra.safe_write import file_lock
from pokayokay.infra.state import log_file, state_home
from pokayokay.learnings.aging.ages import ages
from pokayokay.learnings.consolidate import consolidate_apply as consolidate_run
from pokayokay.learnings.consolidate import consolidation
from pokayokay.learnings.consolidate.consolidate_apply import (
    REPORT_NAME,
    consolidate,
    consolidation_lock,
)
from pokayokay.learnings.consolidate.consolidation_report import render_summary
from pokayokay.learnings.consolidate.consolidation_trigger import (
    SESSION_DEFAULTS,
    session_end_check,
    state_path,
)
from pokayokay.memory.apply import ensure_memory_template
from pokayokay.memory.sections import Settings

TODAY = date(2026, 1, 20)
# These runs test routing, pre-checks and writing over every entry old enough: none is kept back
# as one of the most recent (retention has its own test, with the default settings).
ALL_OLD_ENOUGH = Settings(consolidation_keep_recent=0)
RULES = ".claude/rules/testing.md"
RULES_TEXT = """---
paths: ["tests/**"]
---
# Testing rules

- Never mock the database in integration tests; use the test container.
- Run the suite with `pytest -q` before pushing.
"""

ENTRIES = [
    ("Postgres over MySQL", "We decided to use Postgres over MySQL because we need JSONB columns."),
    (
        "API module layering",
        "The api module sits in the service layer; handlers stay thin and call services.",
    ),
    (
        "Flaky upload test",
        "test_upload fails when TMPDIR is on tmpfs; point TMPDIR at a disk path.",
    ),
    (
        "Pytest markers",
        f"Mark slow tests with @pytest.mark.slow so the quick suite skips them.\nTarget: {RULES}",
    ),
    ("Formatter", "Use black for formatting Python code."),
    ("Formatter change", "Use ruff format instead of black for formatting Python code."),
    ("Suite before push", f"Run the suite with pytest -q before pushing.\nTarget: {RULES}"),
    (
        "Mocking the database",
        f"Mock the database in integration tests; it keeps them fast.\nTarget: {RULES}",
    ),
]
YOUNG = ("Young one", "Learned on the 15th: the cache key includes the locale.")

EXPECTED = {
    "Postgres over MySQL": ("consolidate", "consolidated"),
    "API module layering": ("consolidate", "consolidated"),
    "Flaky upload test": ("consolidate", "consolidated"),
    "Pytest markers": ("consolidate", "consolidated"),
    "Formatter": ("drop", "superseded"),
    "Formatter change": ("consolidate", "consolidated"),
    "Suite before push": ("drop", "redundant"),
    "Mocking the database": ("escalate", "contradiction"),
}


def staging_text(entries: list[tuple[str, str]]) -> str:
    out = "# Learnings\n\nStaging area: new learnings go at the bottom.\n\n"
    for title, body in entries:
        out += f"## {title}\n{body}\n\n"
    return out


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    return GitRepo(tmp_path / "project")


@pytest.fixture
def location(repo: GitRepo, tmp_path: Path) -> MemoryLocation:
    memory = tmp_path / "memory"
    memory.mkdir()
    found = resolve_memory_location(repo.root, memory_dir=memory)
    # a MEMORY.md with every managed section, as older versions (and empty_sections) write it
    ensure_memory_template(found, Settings(empty_sections=True))
    return found


def populate(repo: GitRepo, entries: list[tuple[str, str]] = ENTRIES, last_day: int = 20) -> None:
    """Entries committed on Jan 1st, one young entry on the 15th, a commit every day."""
    repo.write(RULES, RULES_TEXT)
    repo.learnings(staging_text(entries), "2026-01-01")
    for day in range(2, last_day + 1):
        if day == 15:
            repo.learnings(staging_text([*entries, YOUNG]), "2026-01-15")
        else:
            repo.touch(f"2026-01-{day:02d}")


def nonblank(*paths: Path) -> Counter[str]:
    out: Counter[str] = Counter()
    for path in paths:
        if path.exists():
            out.update(x for x in path.read_text("utf-8").splitlines() if x.strip())
    return out


def snapshot(*folders: Path) -> dict[str, tuple[bytes, int]]:
    out = {}
    for folder in folders:
        if not folder.exists():
            continue
        for path in folder.rglob("*"):
            if ".git" in path.relative_to(folder).parts or not path.is_file():
                continue
            out[str(path)] = (path.read_bytes(), path.stat().st_mtime_ns)
    return out


def decisions(outcome: consolidate_run.ConsolidationOutcome) -> dict[str, tuple[str, str]]:
    assert outcome.plan is not None
    return {d.title: (d.action, d.kind) for d in outcome.plan.decisions}


# -- the whole run -----------------------------------------------------------------------------


def test_full_run_moves_drops_escalates_and_keeps_every_line(
    repo: GitRepo, location: MemoryLocation
) -> None:
    populate(repo)
    staging = repo.root / LEARNINGS
    before = nonblank(staging)
    memory = location.memory_dir
    outcome = consolidate(repo.root, location, ALL_OLD_ENOUGH, today=TODAY)
    assert outcome.trigger is not None and outcome.trigger.triggered
    assert outcome.qualifying == 8
    assert decisions(outcome) == EXPECTED
    assert not outcome.errors

    staged = staging.read_text()
    assert "## Mocking the database\n" in staged and "## Young one\n" in staged  # stay
    for title, (action, _) in EXPECTED.items():
        assert (f"## {title}\n" in staged) is (action == "escalate")

    text = (memory / "MEMORY.md").read_text()
    assert "- 2026-01-20 Postgres over MySQL — We decided" in text
    assert "(learnings-archive.md#postgres-over-mysql))" in text
    assert text.index("Postgres over MySQL") < text.index("## Architecture Notes")
    assert text.index("API module layering") > text.index("## Architecture Notes")
    archive = (memory / "learnings-archive.md").read_text()
    for title in (
        "Postgres over MySQL",
        "API module layering",
        "Flaky upload test",
        "Formatter change",
    ):
        assert f"## {title}\n" in archive
    assert "<!-- consolidated by pokayokay on 2026-01-20 from .claude/learnings.md" in archive
    rules = (repo.root / RULES).read_text()
    assert rules.startswith(RULES_TEXT) and "## Pytest markers\n" in rules
    dropped = (memory / "learnings-dropped.md").read_text()
    assert "## Formatter\n" in dropped and "## Suite before push\n" in dropped
    assert "superseded by 'Formatter change'" in dropped

    after = nonblank(staging, repo.root / RULES, *memory.glob("*.md"))
    assert not before - after  # every line of the staging file is somewhere

    report = (memory / REPORT_NAME).read_text()
    assert outcome.report_path == memory / REPORT_NAME
    assert "- Triggered: yes — no consolidation in the file's history" in report
    assert "## Consolidated (5)" in report and "## Dropped (2," in report
    assert "## Escalated: decide by hand (1, left in the learnings file)" in report
    assert "contradicts .claude/rules/testing.md" in report
    json.dumps(outcome.to_dict())
    assert "5 consolidated, 2 dropped, 1 escalated, 0 kept (applied)" in render_summary(outcome)


def test_dry_run_writes_nothing_and_plans_what_the_run_does(
    repo: GitRepo, location: MemoryLocation
) -> None:
    populate(repo)
    folders = (repo.root, location.memory_dir, state_home())
    before = snapshot(*folders)
    planned = consolidate(repo.root, location, ALL_OLD_ENOUGH, today=TODAY, dry_run=True)
    assert snapshot(*folders) == before
    assert planned.report_path is None and "(dry run: nothing was written)" in planned.report_text
    done = consolidate(repo.root, location, ALL_OLD_ENOUGH, today=TODAY)
    assert decisions(planned) == decisions(done)
    assert [(c.path, c.kind, c.lines_after) for c in planned.changes] == [
        (c.path, c.kind, c.lines_after) for c in done.changes
    ]


def test_the_next_staleness_counts_from_the_committed_consolidation(
    repo: GitRepo, location: MemoryLocation
) -> None:
    populate(repo)
    consolidate(repo.root, location, ALL_OLD_ENOUGH, today=TODAY)
    sha = repo.commit("2026-01-21", "consolidate learnings")
    repo.touch("2026-01-22")
    report = ages(repo.root / LEARNINGS, today=date(2026, 1, 23))
    assert report.last_consolidation is not None and report.last_consolidation.commit == sha
    assert report.staleness == 1
    again = consolidate(repo.root, location, ALL_OLD_ENOUGH, today=date(2026, 1, 23))
    assert again.trigger is not None and not again.trigger.triggered
    assert "1 active days since the last consolidation (under 14)" in (again.problem or "")


# -- when nothing happens ----------------------------------------------------------------------


def test_not_due_writes_only_the_report(repo: GitRepo, location: MemoryLocation) -> None:
    populate(repo, last_day=10)  # oldest entry 9 active days, no consolidation yet
    staging = repo.root / LEARNINGS
    data = staging.read_bytes()
    outcome = consolidate(repo.root, location, ALL_OLD_ENOUGH, today=date(2026, 1, 10))
    assert outcome.trigger is not None and not outcome.trigger.triggered
    assert outcome.plan is None and staging.read_bytes() == data
    report = (location.memory_dir / REPORT_NAME).read_text()
    assert "- Triggered: no — the file has" in report and "oldest entry is 9 active days" in report
    assert "## Consolidated" not in report


@pytest.mark.parametrize(("qualifying", "moved"), [(2, False), (3, True)])
def test_batch_of_two_waits_batch_of_three_moves(
    repo: GitRepo, location: MemoryLocation, qualifying: int, moved: bool
) -> None:
    topics = [
        ("Cache headers", "Static assets get a one-year max-age with hashed names."),
        ("Flaky clock", "Freeze time with time-machine in date-dependent tests."),
        ("Release notes", "Changelog entries are written when the pull request merges."),
    ]
    old = topics[:qualifying]
    filler = "".join(f"filler line {n}\n" for n in range(150))  # over 150 lines: size trigger
    repo.learnings(staging_text(old), "2026-01-01")
    for day in range(2, 10):
        repo.touch(f"2026-01-{day:02d}")
    young = [(f"Young {n}", f"Young learning {n}.") for n in range(3)]
    repo.learnings(
        staging_text(old + young).replace("Staging area", filler + "Staging"), "2026-01-10"
    )
    outcome = consolidate(repo.root, location, ALL_OLD_ENOUGH, today=date(2026, 1, 10))
    assert outcome.trigger is not None and outcome.trigger.triggered
    assert "over 150" in outcome.trigger.reasons[0]
    assert outcome.qualifying == qualifying
    assert (outcome.plan is not None) is moved
    report = (location.memory_dir / REPORT_NAME).read_text()
    if not moved:
        assert "only 2 entries are at least 7 active days old; consolidation waits for 3" in report
    else:
        assert f"## Consolidated ({qualifying})" in report


def test_missing_learnings_file_is_nothing_to_do(repo: GitRepo, location: MemoryLocation) -> None:
    repo.touch("2026-01-01")
    outcome = consolidate(repo.root, location, ALL_OLD_ENOUGH, today=TODAY)
    assert outcome.problem is not None and "does not exist" in outcome.problem
    assert (location.memory_dir / REPORT_NAME).exists()


def test_git_problems_are_errors_for_the_user(repo: GitRepo, location: MemoryLocation) -> None:
    repo.touch("2026-01-01")
    repo.write(LEARNINGS, staging_text(ENTRIES))
    with pytest.raises(PokayokayError, match="not tracked by git"):
        consolidate(repo.root, location, ALL_OLD_ENOUGH, today=TODAY)


# -- split -------------------------------------------------------------------------------------


def test_a_target_reaching_400_lines_is_split_with_every_line_kept(
    repo: GitRepo, location: MemoryLocation
) -> None:
    sections = "".join(
        f"## Rule group {n}\n" + "".join(f"- rule {n}.{k}\n" for k in range(19)) for n in range(19)
    )
    repo.write(RULES, RULES_TEXT + "\n" + sections)
    entries = [
        (
            f"Fixture tip {n}",
            f"Fixture tip {n}: build fixture {n} lazily with factory_{n}.\n"
            f"Target: {RULES}\n" + "".join(f"detail {n}.{k}\n" for k in range(8)),
        )
        for n in range(3)
    ]
    repo.learnings(staging_text(entries), "2026-01-01")
    for day in range(2, 17):
        repo.touch(f"2026-01-{day:02d}")
    target = repo.root / RULES
    before = nonblank(target, repo.root / LEARNINGS)
    outcome = consolidate(repo.root, location, ALL_OLD_ENOUGH, today=date(2026, 1, 16))
    assert not outcome.errors
    assert [d.action for d in outcome.plan.decisions] == ["consolidate"] * 3  # type: ignore[union-attr]
    assert len(outcome.splits) == 1
    split = outcome.splits[0]
    assert split.lines_before >= 400
    files = [target.parent / name for name, _ in split.parts]
    assert [p.name for p in files][:2] == ["testing.md", "testing-part-2.md"]
    for path in files:
        lines = len(path.read_text().splitlines())
        assert 100 <= lines <= 300, (path, lines)
        assert path.read_text().startswith('---\npaths: ["tests/**"]\n---\n')
    assert not before - nonblank(*files, repo.root / LEARNINGS)
    report = (location.memory_dir / REPORT_NAME).read_text()
    assert "## Split files" in report and "testing-part-2.md" in report


# -- failures ----------------------------------------------------------------------------------


def test_missing_memory_md_keeps_section_entries_in_staging(
    repo: GitRepo, location: MemoryLocation
) -> None:
    populate(repo)
    location.memory_file.unlink()
    outcome = consolidate(repo.root, location, ALL_OLD_ENOUGH, today=TODAY)
    found = decisions(outcome)
    assert found["Postgres over MySQL"][0] == "keep"
    assert found["API module layering"][0] == "keep"
    assert found["Flaky upload test"][0] == "consolidate"
    staged = (repo.root / LEARNINGS).read_text()
    assert "## Postgres over MySQL\n" in staged and "## Flaky upload test\n" not in staged
    assert not location.memory_file.exists()
    assert "run `pokayokay init`" in (location.memory_dir / REPORT_NAME).read_text()


def test_a_target_that_cannot_be_written_leaves_its_entries(
    repo: GitRepo, location: MemoryLocation, monkeypatch: pytest.MonkeyPatch
) -> None:
    populate(repo)
    real = safe_write.replace_if_unchanged

    def flaky(path: Path, *args: object, **kwargs: object) -> None:
        if path.name == "learnings-archive.md":
            raise OSError(28, "No space left on device")
        real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(safe_write, "replace_if_unchanged", flaky)
    outcome = consolidate(repo.root, location, ALL_OLD_ENOUGH, today=TODAY)
    staged = (repo.root / LEARNINGS).read_text()
    # everything that needed the archive stays; the rules entry and the drops moved
    for title in ("Postgres over MySQL", "API module layering", "Formatter change"):
        assert f"## {title}\n" in staged
    assert "## Pytest markers\n" not in staged and "## Formatter\n" not in staged
    assert "Postgres over MySQL" not in location.memory_file.read_text()
    assert any("No space left" in e for e in outcome.errors)


def test_entries_appended_meanwhile_stay(
    repo: GitRepo, location: MemoryLocation, monkeypatch: pytest.MonkeyPatch
) -> None:
    populate(repo)
    staging = repo.root / LEARNINGS
    real = consolidation.plan_batch

    def plan_then_append(*args: object, **kwargs: object) -> object:
        plan = real(*args, **kwargs)  # type: ignore[arg-type]
        with open(staging, "a", encoding="utf-8") as fh:
            fh.write("## Written by Claude meanwhile\nA brand new learning.\n")
        return plan

    monkeypatch.setattr(consolidation, "plan_batch", plan_then_append)
    outcome = consolidate(repo.root, location, ALL_OLD_ENOUGH, today=TODAY)
    staged = staging.read_text()
    assert staged.endswith("## Written by Claude meanwhile\nA brand new learning.\n")
    assert "## Postgres over MySQL\n" not in staged
    assert not outcome.errors


def test_an_entry_edited_meanwhile_stays_and_is_reported(
    repo: GitRepo, location: MemoryLocation, monkeypatch: pytest.MonkeyPatch
) -> None:
    populate(repo)
    staging = repo.root / LEARNINGS
    real = consolidation.plan_batch

    def plan_then_edit(*args: object, **kwargs: object) -> object:
        plan = real(*args, **kwargs)  # type: ignore[arg-type]
        text = staging.read_text().replace("because we need JSONB", "since we need JSONB")
        staging.write_text(text)
        return plan

    monkeypatch.setattr(consolidation, "plan_batch", plan_then_edit)
    outcome = consolidate(repo.root, location, ALL_OLD_ENOUGH, today=TODAY)
    staged = staging.read_text()
    assert "since we need JSONB" in staged and "## Flaky upload test\n" not in staged
    assert any("'## Postgres over MySQL' changed" in e for e in outcome.errors)


def test_bad_targets_are_kept_with_the_reason(repo: GitRepo, location: MemoryLocation) -> None:
    (repo.root / "docs" / "folder.md").mkdir(parents=True)
    entries = [
        ("Into a folder", "This target is a folder.\nTarget: docs/folder.md"),
        ("Out of the project", "Escaping.\nTarget: ../elsewhere.md"),
        ("Nowhere section", "No such section.\nTarget: MEMORY.md#Nope"),
        ("Fine", "An ordinary learning about caching headers."),
    ]
    repo.learnings(staging_text(entries), "2026-01-01")
    for day in range(2, 17):
        repo.touch(f"2026-01-{day:02d}")
    outcome = consolidate(repo.root, location, ALL_OLD_ENOUGH, today=date(2026, 1, 16))
    found = decisions(outcome)
    assert [found[t][0] for t, _ in entries] == ["keep", "keep", "keep", "consolidate"]
    report = (location.memory_dir / REPORT_NAME).read_text()
    assert "## Kept: the target cannot take them (3" in report
    assert "is a folder" in report and "no managed section" in report
    assert not (repo.root.parent / "elsewhere.md").exists()


def test_one_consolidation_at_a_time(repo: GitRepo, location: MemoryLocation) -> None:
    populate(repo)
    with (
        file_lock(consolidation_lock(location, None), 1.0),
        pytest.raises(PokayokayError, match="another pokayokay process"),
    ):
        consolidate(repo.root, location, ALL_OLD_ENOUGH, today=TODAY, lock_timeout=0.05)


# -- SessionEnd --------------------------------------------------------------------------------


@pytest.fixture
def no_subprocess(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("session_end_check must not start a process")

    monkeypatch.setattr(subprocess, "Popen", refuse)
    monkeypatch.setattr(subprocess, "run", refuse)


def test_session_end_check_without_a_learnings_file(
    repo: GitRepo, location: MemoryLocation, no_subprocess: None
) -> None:
    assert session_end_check(repo.root, location, Settings(), today=TODAY) is None


def test_session_end_check_size_and_missing_state(
    repo: GitRepo, location: MemoryLocation, no_subprocess: None
) -> None:
    path = repo.write(LEARNINGS, "## A\n" + "line\n" * 148)  # 149 lines
    reason = session_end_check(repo.root, location, Settings(), today=TODAY)
    assert reason is not None and "not been computed yet" in reason
    path.write_text("## A\n" + "line\n" * 150)  # 151 lines
    reason = session_end_check(repo.root, location, Settings(), today=TODAY)
    assert reason is not None and "over 150 lines" in reason


def write_state(location: MemoryLocation, path: Path, **values: object) -> None:
    info = path.stat()
    state = {"file": str(path.resolve()), "mtime_ns": info.st_mtime_ns, "size": info.st_size}
    state.update(values)
    target = state_path(location)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(state))


@pytest.mark.parametrize(
    ("staleness", "max_age", "computed", "due"),
    [
        (5, 30, "2026-01-17", False),  # 5 + 3 calendar days < 14
        (5, 30, "2026-01-11", True),  # 5 + 9 = 14: may be stale, let git decide
        (13, 30, "2026-01-19", True),
        (None, 10, "2026-01-17", False),  # no consolidation: the oldest entry's age counts
        (None, 10, "2026-01-16", True),
    ],
)
def test_session_end_check_uses_an_upper_bound_instead_of_git(
    repo: GitRepo,
    location: MemoryLocation,
    no_subprocess: None,
    staleness: int | None,
    max_age: int,
    computed: str,
    due: bool,
) -> None:
    path = repo.write(LEARNINGS, "## A\nline\n")
    write_state(location, path, computed=computed, staleness=staleness, max_age=max_age)
    reason = session_end_check(repo.root, location, Settings(), today=TODAY)
    assert (reason is not None) is due
    if reason:
        assert "may be stale" in reason


def test_session_end_check_after_a_run_today_is_quiet(
    repo: GitRepo, location: MemoryLocation, monkeypatch: pytest.MonkeyPatch
) -> None:
    populate(repo)
    consolidate(repo.root, location, ALL_OLD_ENOUGH, today=TODAY)
    state = json.loads(state_path(location).read_text())
    assert state["computed"] == TODAY.isoformat() and state["staleness"] is None

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("no process")

    monkeypatch.setattr(subprocess, "Popen", refuse)
    assert session_end_check(repo.root, location, Settings(), today=TODAY) is None
    # tomorrow the escalated entry (still no committed consolidation) makes it due again
    reason = session_end_check(repo.root, location, Settings(), today=date(2026, 1, 21))
    assert reason is not None and "no consolidation yet" in reason


def test_session_end_check_never_raises(
    repo: GitRepo, location: MemoryLocation, no_subprocess: None
) -> None:
    repo.write(".claude/pokayokay.md", "---\nmax_lines: [not, a, number]\n---\n")
    repo.write(LEARNINGS, "## A\n" + "line\n" * 200)
    assert session_end_check(repo.root, location, today=TODAY) is None
    assert "consolidation check skipped" in log_file().read_text()


def test_session_end_check_can_be_turned_off(
    repo: GitRepo, location: MemoryLocation, no_subprocess: None
) -> None:
    off = dataclasses.replace(Settings(), consolidation_session_end=False)
    repo.write(LEARNINGS, "## A\n" + "line\n" * 200)
    assert session_end_check(repo.root, location, off, today=TODAY) is None


def test_session_defaults_match_the_config() -> None:
    for name, value in SESSION_DEFAULTS.items():
        assert getattr(consolidation.DEFAULT_CONFIG, name) == value


def test_session_end_check_imports_nothing_heavy() -> None:
    code = (
        "import sys; "
        "from pokayokay.learnings.consolidate.consolidation_trigger import session_end_check; "
        "heavy = {'pokayokay.learnings.aging.ages', "
        "'pokayokay.learnings.consolidate.consolidation', "
        "'pokayokay.memory.curation', "
        "'subprocess', 'jinja2', 'pokayokay.infra.safe_write'}; "
        "print(sorted(heavy & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_staging_file_linked_from_outside_the_project_is_not_written(
    repo: GitRepo, location: MemoryLocation, tmp_path: Path
) -> None:
    populate(repo)
    outside = GitRepo(tmp_path / "outside")
    outside.learnings(staging_text(ENTRIES), "2026-01-01")
    for day in range(2, 21):
        outside.touch(f"2026-01-{day:02d}")
    staging = repo.root / LEARNINGS
    staging.unlink()
    staging.symlink_to(outside.root / LEARNINGS)
    data = (outside.root / LEARNINGS).read_bytes()
    outcome = consolidate(repo.root, location, ALL_OLD_ENOUGH, today=TODAY)
    assert outcome.plan is None and "leads outside the project" in (outcome.problem or "")
    assert (outside.root / LEARNINGS).read_bytes() == data


def test_a_git_error_is_in_the_report_too(repo: GitRepo, location: MemoryLocation) -> None:
    repo.touch("2026-01-01")
    repo.write(LEARNINGS, staging_text(ENTRIES))
    with pytest.raises(PokayokayError):
        consolidate(repo.root, location, ALL_OLD_ENOUGH, today=TODAY)
    assert "not tracked by git" in (location.memory_dir / REPORT_NAME).read_text()


def test_default_learnings_file_follows_the_settings(repo: GitRepo) -> None:
    custom = dataclasses.replace(Settings(), consolidation_learnings_file="docs/learnings.md")
    assert consolidate_run.default_learnings_file(repo.root, Settings()) == repo.root / LEARNINGS
    assert consolidate_run.default_learnings_file(repo.root, custom) == (
        repo.root / "docs/learnings.md"
    )


def test_a_full_memory_section_stays_within_its_budget(
    repo: GitRepo, location: MemoryLocation
) -> None:
    text = location.memory_file.read_text()
    decisions_before = "".join(
        f"- 2025-{1 + n % 12:02d}-{1 + n % 28:02d} older decision {n}\n" for n in range(40)
    )
    marker = "<!-- pokayokay: promoted from session handoffs -->\n"
    location.memory_file.write_text(text.replace(marker, marker + decisions_before))
    populate(repo)
    outcome = consolidate(repo.root, location, ALL_OLD_ENOUGH, today=TODAY)
    assert not outcome.errors
    memory = location.memory_file.read_text()
    section = memory.split("## Key Decisions\n")[1].split("<!-- /pokayokay -->")[0]
    assert len([x for x in section.splitlines() if x.startswith("- ")]) == 40
    assert "Postgres over MySQL" in section
    archived = (location.memory_dir / "decisions-archive.md").read_text()
    assert "older decision 0\n" in archived or "older decision 12\n" in archived
    lines = nonblank(location.memory_file, *location.memory_dir.glob("*.md"))
    assert all(
        lines[f"- 2025-{1 + n % 12:02d}-{1 + n % 28:02d} older decision {n}"] for n in range(40)
    )


def test_the_three_most_recent_learnings_stay_in_staging(
    repo: GitRepo, location: MemoryLocation
) -> None:
    populate(repo)
    outcome = consolidate(repo.root, location, Settings(), today=TODAY)
    assert outcome.qualifying == 6  # 8 old enough, the newest two of them kept back
    found = decisions(outcome)
    assert "Suite before push" not in found and "Mocking the database" not in found
    staged = (repo.root / LEARNINGS).read_text()
    for title in ("Young one", "Mocking the database", "Suite before push"):
        assert f"## {title}\n" in staged
    assert "## Postgres over MySQL\n" not in staged


def test_a_contradiction_with_a_section_it_is_not_routed_to_is_escalated(
    repo: GitRepo, location: MemoryLocation
) -> None:
    """The issue's case, end to end: the entry goes to the archive topic file (no decision or
    architecture word), and contradicts a Key Decision already in MEMORY.md."""
    memory = location.memory_dir / "MEMORY.md"
    marker = "<!-- pokayokay: promoted from session handoffs -->\n"
    text = memory.read_text()
    decision = "- 2026-01-02 Deploys always go through the staging environment first.\n"
    memory.write_text(text.replace(marker, marker + decision))
    entries = [
        ("Hotfix deploys", "Skip staging for hotfix deploys."),
        ("Flaky upload test", "test_upload fails when TMPDIR is on tmpfs; point it at a disk."),
        ("Commit messages", "Keep commit messages short and in the imperative."),
    ]
    populate(repo, entries)
    outcome = consolidate(repo.root, location, ALL_OLD_ENOUGH, today=TODAY)
    found = decisions(outcome)
    assert found["Hotfix deploys"] == ("escalate", "contradiction")
    assert found["Flaky upload test"] == ("consolidate", "consolidated")
    assert "## Hotfix deploys\n" in (repo.root / LEARNINGS).read_text()  # stays, for the user
    assert "Hotfix deploys" not in (location.memory_dir / "learnings-archive.md").read_text()
    assert decision in memory.read_text()
