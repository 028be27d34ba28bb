"""Issue 25 item 8: 50 simultaneous SessionEnds lost 5 of 50 session-outcome entries to lock
contention (a 1 s lock wait, then the entry was dropped). Each entry now lands in one lock-free
``O_APPEND`` write and the rotation to the archive waits for nobody: 0 lost, none doubled.
Real processes, not threads: the registered hook command as Claude Code runs it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from collections import Counter
from datetime import date
from pathlib import Path

import pytest
from helpers.paths import FIXTURE_SAMPLES_DIR

from pokayokay.infra.locate import resolve_memory_location
from pokayokay.learnings.outcomes.chain import ARCHIVE_NAME, FILE_NAME, SessionOutcome, append

CONSOLE_SCRIPT = Path(sys.executable).parent / "pokayokay"
HEADING = re.compile(r"(?m)^## \d{4}-\d{2}-\d{2} session (\S+)\s*$")


def sessions_recorded(memory: Path) -> Counter[str]:
    found: Counter[str] = Counter()
    for name in (FILE_NAME, ARCHIVE_NAME):
        path = memory / name
        if path.exists():
            found.update(HEADING.findall(path.read_text("utf-8")))
    return found


def entry(session: str) -> SessionOutcome:
    return SessionOutcome(date.today().isoformat(), session, "a task", (), 0, (),
                          ("src/app.py",), "clean")


def transcript(folder: Path, project: Path, n: int) -> Path:
    """A session that edited one file: an outcome worth an entry."""
    lines = [
        {"type": "user", "message": {"role": "user", "content": f"fix bug number {n}"}},
        {"type": "assistant", "message": {"content": [{
            "type": "tool_use", "id": f"e{n}", "name": "Edit",
            "input": {"file_path": str(project / "src" / f"mod_{n}.py")},
        }]}},
    ]
    path = folder / f"t{n}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def prefill(memory: Path, count: int) -> None:
    location = resolve_memory_location(memory.parent, memory_dir=memory)
    for n in range(count):
        append(location, entry(f"before-{n}"))


APPENDER = textwrap.dedent(
    """
    import sys
    from datetime import date
    from pathlib import Path
    from pokayokay.infra.locate import resolve_memory_location
    from pokayokay.learnings.outcomes.chain import SessionOutcome, append

    memory, session = Path(sys.argv[1]), sys.argv[2]
    location = resolve_memory_location(memory.parent, memory_dir=memory)
    append(location, SessionOutcome(date.today().isoformat(), session, "a task", (), 0, (),
                                    ("src/app.py",), "clean"))
    """
)


def test_twenty_processes_appending_at_once_lose_no_entry(tmp_path: Path) -> None:
    """The quick version: the writer alone, 20 processes started together over a file that
    already holds 45 entries (so rotations run while others append)."""
    memory = tmp_path / "memory"
    memory.mkdir()
    prefill(memory, 45)
    procs = [subprocess.Popen([sys.executable, "-c", APPENDER, str(memory), f"p-{n}"],
                              stderr=subprocess.PIPE, text=True) for n in range(20)]
    errors = [p.communicate(timeout=120)[1] for p in procs]
    assert [p.returncode for p in procs] == [0] * 20, errors
    recorded = sessions_recorded(memory)
    expected = {f"before-{n}" for n in range(45)} | {f"p-{n}" for n in range(20)}
    assert set(recorded) == expected
    append(resolve_memory_location(tmp_path, memory_dir=memory), entry("settle"))
    recorded = sessions_recorded(memory)
    assert recorded == Counter(expected | {"settle"})  # each exactly once, file + archive
    assert len(HEADING.findall((memory / FILE_NAME).read_text())) == 50


@pytest.mark.slow
def test_fifty_simultaneous_session_ends_lose_no_outcome(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    memory = tmp_path / "memory"
    memory.mkdir()
    prefill(memory, 30)
    env = dict(os.environ, CLAUDE_PROJECT_DIR=str(project), POKAYOKAY_MEMORY_DIR=str(memory))
    base = json.loads((FIXTURE_SAMPLES_DIR / "SessionEnd.other.json").read_text("utf-8"))
    procs = []
    for n in range(50):
        payload = dict(base, cwd=str(project), session_id=f"end-{n}",
                       transcript_path=str(transcript(tmp_path, project, n)))
        proc = subprocess.Popen([str(CONSOLE_SCRIPT), "hook", "SessionEnd"], cwd=project,
                                env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        procs.append((proc, json.dumps(payload)))
    for proc, data in procs:  # all 50 are running before the first one gets its payload
        assert proc.stdin is not None
        proc.stdin.write(data)
        proc.stdin.close()
    errors = []
    for proc, _ in procs:
        assert proc.stderr is not None and proc.stdout is not None
        with proc.stderr, proc.stdout:
            errors.append(proc.stderr.read())
            proc.stdout.read()
        proc.wait(timeout=300)
    assert [proc.returncode for proc, _ in procs] == [0] * 50, errors
    recorded = sessions_recorded(memory)
    missing = {f"end-{n}" for n in range(50)} - set(recorded)
    assert not missing, f"{len(missing)} of 50 session outcomes lost: {sorted(missing)[:5]}"
    assert set(recorded) >= {f"before-{n}" for n in range(30)}
