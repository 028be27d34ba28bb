"""Curation at the edge: locking, compare-and-swap against Claude writing the same file, kills
mid-write, interrupted runs, backups, refusal of unsafe targets."""

from __future__ import annotations

import dataclasses
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from collections import Counter
from datetime import date
from pathlib import Path

import pytest

from pokayokay.errors import ConcurrentChangeError, InvariantViolation, PokayokayError
from pokayokay.infra import safe_write
from pokayokay.infra.locate import resolve_memory_location
from pokayokay.infra.state import BACKUPS_KEPT, project_state_dir
from pokayokay.memory import apply as curate_run
from pokayokay.memory.apply import run_curation
from pokayokay.memory.curation import curate
from pokayokay.memory.sections import DEFAULT_SECTIONS, Settings

TODAY = date(2026, 11, 22)


def over_budget_memory(n_decisions: int = 60, claude_notes: int = 5) -> str:
    notes = "".join(f"- [Claude note {i}](note-{i}.md) — kept as is\n" for i in range(claude_notes))
    decisions = "".join(
        f"- 2026-{1 + i % 12:02d}-{1 + i % 28:02d} decision {i}: because {i}\n"
        for i in range(n_decisions)
    )
    return "# Memory\n\n" + notes + "\n## Key Decisions\n<!-- pokayokay: promoted -->\n" + decisions


@pytest.fixture
def location(tmp_path: Path):  # type: ignore[no-untyped-def]
    project = tmp_path / "project"
    project.mkdir()
    memory = tmp_path / "memory"
    memory.mkdir()
    return resolve_memory_location(project, memory_dir=memory)


def all_lines(folder: Path) -> Counter[str]:
    lines: Counter[str] = Counter()
    for path in folder.glob("*.md"):
        lines.update(x for x in path.read_text("utf-8").splitlines() if x.strip())
    return lines


def test_curation_writes_archives_backup_and_keeps_claude_notes(location) -> None:  # type: ignore[no-untyped-def]
    text = over_budget_memory()
    location.memory_file.write_text(text)
    outcome = run_curation(location, Settings(), write=True, today=TODAY)
    assert outcome.written and outcome.attempts == 1
    new = location.memory_file.read_text()
    archive = (location.memory_dir / "decisions-archive.md").read_text()
    for i in range(5):
        assert f"- [Claude note {i}](note-{i}.md) — kept as is\n" in new
    assert new.count("decision ") == 40
    assert archive.count("decision ") == 20
    assert outcome.backup is not None and outcome.backup.read_text() == text
    assert outcome.backup.is_relative_to(project_state_dir(str(location.project_key)))


def test_dry_run_writes_nothing(location) -> None:  # type: ignore[no-untyped-def]
    location.memory_file.write_text(over_budget_memory())
    before = sorted(p.name for p in location.memory_dir.iterdir())
    stat = location.memory_file.stat()
    outcome = run_curation(location, Settings(), write=False, today=TODAY)
    assert outcome.changed and not outcome.written
    assert sorted(p.name for p in location.memory_dir.iterdir()) == before
    assert location.memory_file.stat().st_mtime_ns == stat.st_mtime_ns


def test_backups_keep_the_last_ten(location) -> None:  # type: ignore[no-untyped-def]
    for round_ in range(BACKUPS_KEPT + 3):
        location.memory_file.write_text(over_budget_memory(45 + round_))
        assert run_curation(location, Settings(), write=True, today=TODAY).written
    folder = project_state_dir(str(location.project_key)) / "backups"
    assert len(list(folder.iterdir())) == BACKUPS_KEPT


def test_retries_from_claudes_version_when_the_file_changes_under_it(
    location, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    location.memory_file.write_text(over_budget_memory())
    real_curate = curate_run.curate
    calls = 0

    def curate_then_claude_writes(*args, **kwargs):  # type: ignore[no-untyped-def]
        nonlocal calls
        calls += 1
        result = real_curate(*args, **kwargs)
        if calls == 1:  # Claude rewrites the file between our read and our write
            with open(location.memory_file, "a") as fh:
                fh.write("- [Written by Claude meanwhile](new.md) — must survive\n")
        return result

    monkeypatch.setattr(curate_run, "curate", curate_then_claude_writes)
    outcome = run_curation(location, Settings(), write=True, today=TODAY)
    assert outcome.written
    assert "Written by Claude meanwhile" in location.memory_file.read_text()


def test_starts_over_when_claude_rewrites_the_file_meanwhile(
    location, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    location.memory_file.write_text(over_budget_memory())
    real_curate = curate_run.curate
    calls = 0

    def curate_then_claude_rewrites(*args, **kwargs):  # type: ignore[no-untyped-def]
        nonlocal calls
        calls += 1
        result = real_curate(*args, **kwargs)
        if calls == 1:
            text = location.memory_file.read_text()
            location.memory_file.write_text(text.replace("Claude note 1", "Claude note ONE"))
        return result

    monkeypatch.setattr(curate_run, "curate", curate_then_claude_rewrites)
    outcome = run_curation(location, Settings(), write=True, today=TODAY)
    assert outcome.written and outcome.attempts == 2
    text = location.memory_file.read_text()
    assert "Claude note ONE" in text and "Claude note 1]" not in text


def test_gives_up_cleanly_when_the_file_never_settles(
    location, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    location.memory_file.write_text(over_budget_memory())
    real_curate = curate_run.curate
    counter = iter(range(1000))

    def always_changing(*args, **kwargs):  # type: ignore[no-untyped-def]
        """Claude rewrites the file (not a mere append) while every attempt is under way."""
        result = real_curate(*args, **kwargs)
        text = location.memory_file.read_text()
        location.memory_file.write_text(f"- [churn {next(counter)}](c.md) — x\n" + text)
        return result

    monkeypatch.setattr(curate_run, "curate", always_changing)
    with pytest.raises(ConcurrentChangeError):
        run_curation(location, Settings(), write=True, today=TODAY)
    text = location.memory_file.read_text()
    assert all(f"churn {i}" in text for i in range(safe_write.ATTEMPTS))


def test_interrupted_run_does_not_archive_twice(location, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """A crash after the archive was written but before MEMORY.md was: nothing lost, and the
    next run does not put the same entries in the archive a second time."""
    text = over_budget_memory()
    location.memory_file.write_text(text)
    real = safe_write.replace_if_unchanged

    def crash_on_memory(path: Path, expected: bytes | None, data: bytes, **kw: bool) -> None:
        if path.name == "MEMORY.md":
            raise KeyboardInterrupt("killed")
        real(path, expected, data, **kw)

    monkeypatch.setattr(curate_run, "replace_if_unchanged", crash_on_memory)
    with pytest.raises(KeyboardInterrupt):
        run_curation(location, Settings(), write=True, today=TODAY)
    assert location.memory_file.read_text() == text
    archive = location.memory_dir / "decisions-archive.md"
    first = archive.read_text()
    assert first.count("decision ") == 20

    monkeypatch.setattr(curate_run, "replace_if_unchanged", real)
    assert run_curation(location, Settings(), write=True, today=TODAY).written
    assert archive.read_text().count("decision ") == 20
    lines = all_lines(location.memory_dir)
    for i in range(60):
        assert lines[f"- 2026-{1 + i % 12:02d}-{1 + i % 28:02d} decision {i}: because {i}"] == 1


def test_invariant_violation_writes_nothing(location, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    text = over_budget_memory()
    location.memory_file.write_text(text)
    real_curate = curate_run.curate

    def lossy(*args, **kwargs):  # type: ignore[no-untyped-def]
        result = real_curate(*args, **kwargs)
        return dataclasses.replace(result, text=result.text.replace("Claude note 3", "", 1))

    monkeypatch.setattr(curate_run, "curate", lossy)
    with pytest.raises(InvariantViolation) as err:
        run_curation(location, Settings(), write=True, today=TODAY)
    assert err.value.exit_code == 4
    assert location.memory_file.read_text() == text
    assert not (location.memory_dir / "decisions-archive.md").exists()


def test_symlink_outside_the_memory_folder_is_refused(location, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    outside = tmp_path / "elsewhere.md"
    outside.write_text(over_budget_memory())
    location.memory_file.symlink_to(outside)
    with pytest.raises(PokayokayError, match="outside the memory folder"):
        run_curation(location, Settings(), write=True, today=TODAY)
    assert outside.read_text() == over_budget_memory()


def test_symlink_inside_the_memory_folder_is_followed(location) -> None:  # type: ignore[no-untyped-def]
    real = location.memory_dir / "real-memory.md"
    real.write_text(over_budget_memory())
    location.memory_file.symlink_to(real.name)
    assert run_curation(location, Settings(), write=True, today=TODAY).written
    assert location.memory_file.is_symlink()
    assert real.read_text().count("decision ") == 40


def test_binary_memory_file_is_left_alone(location) -> None:  # type: ignore[no-untyped-def]
    data = b"# Memory\n\x00\x01\x02 binary\n"
    location.memory_file.write_bytes(data)
    with pytest.raises(PokayokayError, match="NUL byte"):
        run_curation(location, Settings(), write=True, today=TODAY)
    assert location.memory_file.read_bytes() == data


def test_read_only_memory_folder_fails_cleanly(location, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    text = over_budget_memory()
    location.memory_file.write_text(text)
    if os.geteuid() != 0:
        location.memory_dir.chmod(0o555)
    else:  # root ignores permission bits: inject the error the kernel would give

        def refuse(path: Path, data: bytes, mode: int) -> Path:
            raise PermissionError(13, "Permission denied", str(path))

        monkeypatch.setattr(safe_write, "_write_temp", refuse)
    try:
        with pytest.raises(PermissionError):
            run_curation(location, Settings(), write=True, today=TODAY)
    finally:
        location.memory_dir.chmod(0o755)
    assert location.memory_file.read_text() == text
    assert [p.name for p in location.memory_dir.iterdir()] == ["MEMORY.md"]


def test_crlf_file_keeps_its_line_endings(location) -> None:  # type: ignore[no-untyped-def]
    location.memory_file.write_bytes(over_budget_memory().replace("\n", "\r\n").encode())
    run_curation(location, Settings(), write=True, today=TODAY)
    data = location.memory_file.read_bytes()
    assert data.count(b"\n") == data.count(b"\r\n")
    archive = (location.memory_dir / "decisions-archive.md").read_bytes()
    assert archive.count(b"\n") == archive.count(b"\r\n")


def test_hundred_thousand_line_file(location) -> None:  # type: ignore[no-untyped-def]
    text = over_budget_memory(n_decisions=100_000, claude_notes=50)
    location.memory_file.write_text(text)
    outcome = run_curation(location, Settings(), write=True, today=TODAY)
    assert outcome.written
    assert outcome.result is not None and outcome.result.after.lines <= 200
    lines = all_lines(location.memory_dir)
    assert sum(1 for line in lines if " decision " in line) == 100_000


def test_lock_is_exclusive_between_processes(location, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    lock = curate_run.lock_path(location)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(f"""
            import sys, time
            from pathlib import Path
            from pokayokay.infra.safe_write import file_lock
            with file_lock(Path({str(lock)!r}), 5):
                print("held", flush=True)
                sys.stdin.readline()
            """),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    with holder:
        try:
            assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
            with pytest.raises(safe_write.LockTimeout):
                run_curation(location, Settings(), write=True, today=TODAY, lock_timeout=0.2)
        finally:
            assert holder.stdin is not None
            holder.stdin.write("\n")
            holder.stdin.flush()
            holder.wait(10)


APPENDER = textwrap.dedent("""
    import os, sys, time
    path, stop, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    i = 0
    while i < count and not os.path.exists(stop):
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(f"- [race {i}](race.md) — appended while curating\\n")
        i += 1
        time.sleep(0.003)
    print(i, flush=True)
""")


def test_no_line_lost_while_another_process_keeps_appending(location) -> None:  # type: ignore[no-untyped-def]
    """Claude appends to MEMORY.md while pokayokay curates it over and over: every appended
    line and every original entry ends up exactly once in MEMORY.md or an archive."""
    # The appender is stopped by the test once the race was exercised (or at the deadline), never
    # by its count: under load it would otherwise finish before curation wrote often enough.
    n_entries, n_appends = 400, 1_000_000
    specs = tuple(
        dataclasses.replace(spec, budget=10_000, max_entries=None) for spec in DEFAULT_SECTIONS
    )
    # Each appended line pushes the whole file over max_lines, so each curation must move a
    # managed entry out and write: the race window is exercised on every round.
    location.memory_file.write_text(over_budget_memory(n_decisions=n_entries, claude_notes=3))
    roomy = Settings(sections=specs, max_lines=10**6, max_bytes=10**9)
    run_curation(location, roomy, write=True, today=TODAY)  # sections added: the file is full
    full = len(location.memory_file.read_text().splitlines())
    config = dataclasses.replace(roomy, max_lines=full)
    # The appender runs until the race has been exercised (however loaded the machine is), then
    # stops at the next line; it reports how many it appended.
    stop = location.memory_dir.parent / "stop-appending"
    appender = subprocess.Popen(
        [sys.executable, "-c", APPENDER, str(location.memory_file), str(stop), str(n_appends)],
        stdout=subprocess.PIPE,
        text=True,
    )
    writes = retries = 0
    deadline = time.monotonic() + 120
    while appender.poll() is None:
        if writes > 10 or time.monotonic() > deadline:
            stop.touch()
        try:
            outcome = run_curation(location, config, write=True, today=TODAY)
        except ConcurrentChangeError:
            retries += safe_write.ATTEMPTS
            continue
        writes += outcome.written
        retries += outcome.attempts - 1
    assert appender.wait(60) == 0
    assert appender.stdout is not None
    appended = int(appender.stdout.read())
    appender.stdout.close()
    run_curation(location, config, write=True, today=TODAY)

    assert writes > 10, "the race was not exercised"
    lines = all_lines(location.memory_dir)
    memory = location.memory_file.read_text()
    for i in range(appended):
        assert memory.count(f"- [race {i}](race.md) — appended while curating\n") == 1, i
    assert f"- [race {appended}](race.md)" not in memory
    for i in range(n_entries):
        entry = f"- 2026-{1 + i % 12:02d}-{1 + i % 28:02d} decision {i}: because {i}"
        assert lines[entry] == 1, entry
    print(f"curations that wrote: {writes}, retries after a concurrent change: {retries}")


KILLED_CURATOR = textwrap.dedent("""
    import sys
    from pathlib import Path
    from pokayokay.cli.main import main
    sys.exit(main(["curate", "--quiet", "--project", sys.argv[1], "--memory-dir", sys.argv[2]]))
""")


def test_a_kill_at_any_moment_leaves_old_or_new(location) -> None:  # type: ignore[no-untyped-def]
    text = over_budget_memory(n_decisions=20_000, claude_notes=20)
    expected = curate(text, Settings(), {}, date.today())
    archive = location.memory_dir / "decisions-archive.md"
    rng = random.Random(7)
    outcomes = Counter()
    for _ in range(12):
        location.memory_file.write_text(text)
        archive.unlink(missing_ok=True)
        proc = subprocess.Popen(
            [
                sys.executable,
                "-c",
                KILLED_CURATOR,
                str(location.project_dir),
                str(location.memory_dir),
            ]
        )
        time.sleep(rng.uniform(0.05, 0.6))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        now = location.memory_file.read_text()
        assert now in (text, expected.text)
        if archive.exists():
            assert archive.read_text() == expected.archives["decisions-archive.md"]
        else:
            assert now == text  # MEMORY.md never changes before its archive is complete
        outcomes["new" if now == expected.text else "old"] += 1
        lines = all_lines(location.memory_dir)
        for i in range(0, 20_000, 997):
            entry = f"- 2026-{1 + i % 12:02d}-{1 + i % 28:02d} decision {i}: because {i}"
            assert lines[entry] >= 1
    assert sum(outcomes.values()) == 12


def test_section_edit_sets_a_features_own_entries_and_nothing_else(location) -> None:  # type: ignore[no-untyped-def]
    text = over_budget_memory(n_decisions=5)
    location.memory_file.write_text(text)

    def owns(entry: str) -> bool:
        return ".claude/rules/pokayokay/" in entry

    first = curate_run.SectionEdit(
        "active_patterns",
        ("- Testing failures: see .claude/rules/pokayokay/testing.md (3 sessions)",),
        owns,
    )
    assert run_curation(location, Settings(), write=True, today=TODAY, edit=first).written
    after_first = location.memory_file.read_text()
    assert (
        "- Testing failures: see .claude/rules/pokayokay/testing.md (3 sessions)\n" in after_first
    )
    for i in range(5):
        assert f"- [Claude note {i}](note-{i}.md) — kept as is\n" in after_first

    # Claude adds its own pattern; the feature regenerates its entry with a new count.
    location.memory_file.write_text(
        after_first.replace(
            "<!-- pokayokay: graduated to .claude/rules/ when confirmed -->\n",
            "<!-- pokayokay: graduated to .claude/rules/ when confirmed -->\n"
            "- Claude's own pattern: prefer small commits\n",
        )
    )
    second = curate_run.SectionEdit(
        "active_patterns",
        ("- Testing failures: see .claude/rules/pokayokay/testing.md (4 sessions)",),
        owns,
    )
    outcome = run_curation(location, Settings(), write=True, today=TODAY, edit=second)
    assert outcome.written and outcome.changed
    now = location.memory_file.read_text()
    assert "(4 sessions)" in now and "(3 sessions)" not in now
    assert "- Claude's own pattern: prefer small commits\n" in now
    # Running the same edit again changes nothing.
    again = run_curation(location, Settings(), write=True, today=TODAY, edit=second)
    assert not again.written and not again.changed


def test_section_edit_may_not_touch_other_sections(location) -> None:  # type: ignore[no-untyped-def]
    text = over_budget_memory(n_decisions=5)
    location.memory_file.write_text(text)
    sneaky = curate_run.SectionEdit(
        "active_patterns",
        ("- 2026-01-01 decision 0: because 0",),
        lambda entry: "decision" in entry,
    )

    class Rogue(curate_run.SectionEdit):
        def apply(self, text: str, settings: Settings) -> str:
            return text.replace("decision 1:", "decision one:")

    rogue = Rogue(sneaky.section_id, sneaky.entries, sneaky.owns)
    with pytest.raises(InvariantViolation, match="Key Decisions"):
        run_curation(location, Settings(), write=True, today=TODAY, edit=rogue)
    assert location.memory_file.read_text() == text
