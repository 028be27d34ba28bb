"""A slow writer: an editor or a tool truncates MEMORY.md, writes part of it and holds it open for
1.5 s (longer than the settle time) before writing the rest. Curation must never act on that
partial read, never replace the file the writer is writing into, and its backup must hold the
bytes it actually swapped out. Also: temp files of killed processes are cleaned up."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from collections import Counter
from datetime import date
from pathlib import Path

import pytest

from pokayokay.errors import ConcurrentChangeError
from pokayokay.infra import safe_write
from pokayokay.infra.locate import MemoryLocation, resolve_memory_location
from pokayokay.memory.apply import run_curation
from pokayokay.memory.sections import Settings

TODAY = date(2026, 11, 22)
HOLD_SECONDS = 1.5


def _memory_text() -> str:
    """83 lines: Claude's notes, an over-budget Key Decisions section, more of Claude's notes."""
    head = "# Project memory\n\n" + "".join(
        f"- [Deploy note {i}](deploy-{i}.md) — staging needs the VPN for step {i}\n"
        for i in range(10)
    )
    decisions = "".join(
        f"- 2026-{1 + i // 28:02d}-{1 + i % 28:02d} chose option {i} for the cache layer\n"
        for i in range(60)
    )
    section = (
        "\n## Key Decisions\n<!-- pokayokay: promoted from session handoffs -->\n"
        + decisions
        + "<!-- /pokayokay -->\n\n"
    )
    tail = "## Build\n" + "".join(f"- build step {i}: run `make step-{i}`\n" for i in range(5))
    text = head + section + tail
    assert text.count("\n") == 83
    return text


@pytest.fixture
def location(tmp_path: Path) -> MemoryLocation:
    project = tmp_path / "project"
    project.mkdir()
    memory = tmp_path / "memory"
    memory.mkdir()
    return resolve_memory_location(project, memory_dir=memory)


def _start_slow_writer(path: Path, text: str, first: int) -> subprocess.Popen[str]:
    """A separate process that truncates ``path``, writes its first ``first`` bytes, says so,
    holds the file open for HOLD_SECONDS and then writes the rest."""
    script = textwrap.dedent(
        f"""
        import sys, time
        data = open(sys.argv[2], "rb").read()
        with open(sys.argv[1], "wb") as fh:  # truncates, like an in-place rewrite
            fh.write(data[:{first}])
            fh.flush()
            print("partial", flush=True)
            time.sleep({HOLD_SECONDS})
            fh.write(data[{first}:])
        print("done", flush=True)
        """
    )
    source = path.with_name("writer-source.txt")
    source.write_text(text)
    proc = subprocess.Popen(
        [sys.executable, "-c", script, str(path), str(source)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "partial"
    return proc


def _lines(text: str) -> Counter[str]:
    return Counter(x for x in text.splitlines() if x.strip())


def _lost(expected: str, folder: Path) -> int:
    have: Counter[str] = Counter()
    for path in folder.glob("*.md"):
        have.update(_lines(path.read_text("utf-8")))
    return sum((_lines(expected) - have).values())


@pytest.mark.parametrize("first", [0, 1800], ids=["empty-read", "partial-read"])
def test_a_writer_holding_a_truncated_file_loses_nothing(
    location: MemoryLocation, first: int
) -> None:
    text = _memory_text()
    location.memory_file.write_text("# Project memory\n\nsomething older\n")
    writer = _start_slow_writer(location.memory_file, text, first)
    try:
        try:
            outcome = run_curation(location, Settings(), write=True, today=TODAY)
            gave_up = False
        except ConcurrentChangeError:
            gave_up, outcome = True, None
        # Curation either gave up (nothing written) or waited for the writer to finish.
        writer.wait(timeout=30)
    finally:
        writer.kill()
        writer.wait()
        assert writer.stdout is not None
        writer.stdout.close()
    assert writer.returncode == 0
    final = location.memory_file.read_text("utf-8")
    assert _lost(text, location.memory_dir) == 0
    if gave_up or outcome is None or not outcome.written:
        assert final == text  # the writer's file, whole, untouched
    # A later run, the writer gone, curates the whole text and still loses nothing.
    again = run_curation(location, Settings(), write=True, today=TODAY)
    assert again.written
    assert _lost(text, location.memory_dir) == 0
    assert "- build step 4: run `make step-4`" in location.memory_file.read_text("utf-8")
    assert again.backup is not None and again.backup.read_text("utf-8") == text


def test_a_read_that_races_a_writer_is_busy(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    path.write_text("one\n")
    with open(path, "a") as fh:
        fh.write("two\n")
        fh.flush()
        with pytest.raises(safe_write.Busy):
            safe_write.settled(path)
    safe_write.settled(path)  # closed: fine
    assert safe_write.read_bytes(path) == b"one\ntwo\n"


def test_a_shrunk_file_is_a_conflict_and_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    path.write_text("one\ntwo\nthree\n")
    path.write_text("one\n")  # truncated by someone since we read three lines
    with pytest.raises(safe_write.Conflict):
        safe_write.replace_if_unchanged(path, b"one\ntwo\nthree\n", b"curated\n", keep_appends=True)
    assert path.read_text() == "one\n"


def test_replace_returns_the_bytes_it_swapped_out(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    path.write_bytes(b"old\n")
    assert safe_write.replace_if_unchanged(path, b"old\n", b"new\n") == b"old\n"
    assert path.read_bytes() == b"new\n"


def test_temp_files_of_dead_processes_are_removed(tmp_path: Path) -> None:
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    dead_pid = int(dead.stdout)
    folder = tmp_path / "memory"
    folder.mkdir()
    stale = folder / f".MEMORY.md.pokayokay-{dead_pid}-123456.tmp"
    stale.write_bytes(b"x" * 300_000)
    alive = folder / f".MEMORY.md.pokayokay-{os.getppid()}-99.tmp"  # our parent: alive
    alive.write_bytes(b"in flight")
    ancient = folder / f".MEMORY.md.pokayokay-{os.getppid()}-98.tmp"
    ancient.write_bytes(b"a day old: the pid was reused")
    day_ago = time.time() - safe_write.STALE_TEMP_SECONDS - 60
    os.utime(ancient, (day_ago, day_ago))
    notes = folder / ".notes.md.swp"  # not pokayokay's
    notes.write_bytes(b"editor")

    safe_write.update(folder / "MEMORY.md", lambda _old: b"# Memory\n")

    assert not stale.exists() and not ancient.exists()
    assert alive.exists() and notes.exists()
    assert (folder / "MEMORY.md").read_bytes() == b"# Memory\n"
