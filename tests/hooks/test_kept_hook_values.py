"""Values a hook keeps in the project's state folder by the stat of the files they are made
from (``pokayokay.infra.stamped``, issue 26): SubagentStart's lessons block and SessionStart's
note on an over-limit MEMORY.md. A warm start neither parses MEMORY.md nor reads the lesson
lookup, and a change to any of those files is followed on the next start. Driven through the
hook runtime with Claude Code's real payloads."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from helpers.graduation import memory_text
from helpers.hooks import run_hook
from helpers.hooks import sample_payload as sample

from pokayokay.hooks import subagent
from pokayokay.infra import lesson_lookup
from pokayokay.infra.locate import memory_location_for
from pokayokay.rules.lessons import CommandLesson, lookup_content

AP = "- Failing test tests/test_cart.py::test_total: see .claude/rules/pokayokay/testing.md\n"
AP2 = "- Lint error ruff F401 in src/app.py: see .claude/rules/pokayokay/lint.md\n"


def age(path: Path | str, seconds: float) -> None:
    when = os.stat(path).st_mtime - seconds
    os.utime(path, (when, when))


def lessons(project: Path) -> str:
    code, out, err = run_hook("SubagentStart", sample("SubagentStart.json", project))
    assert (code, err) == (0, "")
    if not out:
        return ""
    text: str = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    return text


@pytest.fixture
def launched(project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    return project


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each time the block is made from the files (not taken from the state folder)."""
    calls: list[str] = []
    real = subagent._make_block

    def counting(project: str, lookup_path: str | None, memory_file: str) -> str:
        calls.append(project)
        return real(project, lookup_path, memory_file)

    monkeypatch.setattr(subagent, "_make_block", counting)
    return calls


def write_lookup(project: Path, command: str, fixed: str) -> str:
    lesson_lookup.write_lookup(
        [str(project)], lookup_content([CommandLesson(command, 4, fixed, "environment")], 3)
    )
    path = lesson_lookup.find_lookup(str(project))
    assert path is not None
    return path


def count_parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A list that gets "MEMORY.md" each time MEMORY.md is parsed from here on."""
    from pokayokay.memory import document

    parsed: list[str] = []
    real = document.parse

    def counting(*args: Any, **kwargs: Any) -> Any:
        parsed.append("MEMORY.md")
        return real(*args, **kwargs)

    monkeypatch.setattr(document, "parse", counting)
    return parsed


def test_a_warm_start_reads_nothing_and_every_change_is_followed(
    launched: Path, made: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    lookup = write_lookup(launched, "python -m pytest", ".venv/bin/python -m pytest")
    memory = memory_location_for(launched).memory_file
    memory.parent.mkdir(parents=True, exist_ok=True)
    memory.write_text(memory_text(ap_body=AP), "utf-8")
    age(lookup, 60)
    age(memory, 60)
    first = lessons(launched)
    assert "`.venv/bin/python -m pytest`" in first and "test_cart.py" in first
    assert len(made) == 1

    from pokayokay.memory import document

    def refuse(*args: object, **kwargs: object) -> object:
        raise AssertionError("read on a warm start")

    with monkeypatch.context() as m:
        m.setattr(document, "parse", refuse)
        m.setattr(lesson_lookup, "read_lookup", refuse)
        assert lessons(launched) == first
    assert len(made) == 1

    memory.write_text(memory_text(ap_body=AP + AP2), "utf-8")  # MEMORY.md changed
    age(memory, 30)
    second = lessons(launched)
    assert "ruff F401" in second and len(made) == 2
    assert lessons(launched) == second and len(made) == 2

    write_lookup(launched, "npm test", "pnpm test")  # the lookup changed
    age(lookup, 30)
    third = lessons(launched)
    assert "`pnpm test`" in third and "`.venv/bin/python" not in third
    assert len(made) == 3

    settings = launched / ".claude" / "pokayokay.md"  # a settings file appears
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text("---\nmemory:\n  max_lines: 180\n---\n", "utf-8")
    age(settings, 30)
    assert lessons(launched) == third and len(made) == 4
    assert lessons(launched) == third and len(made) == 4

    memory.unlink()  # MEMORY.md removed: its lines go
    fourth = lessons(launched)
    assert "test_cart.py" not in fourth and "`pnpm test`" in fourth


def test_files_written_just_now_are_read_every_time(launched: Path, made: list[str]) -> None:
    """Same size, same coarse timestamp: a block kept now could hide the next rewrite."""
    memory = memory_location_for(launched).memory_file
    memory.parent.mkdir(parents=True, exist_ok=True)
    memory.write_text(memory_text(ap_body=AP), "utf-8")
    assert "test_cart.py" in lessons(launched)
    stat = memory.stat()
    memory.write_text(memory_text(ap_body=AP.replace("cart", "cars")), "utf-8")  # same size
    os.utime(memory, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # and the same time
    assert "test_cars.py" in lessons(launched)
    assert len(made) == 2


def session_note(project: Path) -> str:
    code, out, err = run_hook("SessionStart", sample("SessionStart.startup.json", project))
    assert (code, err) == (0, "")
    text: str = json.loads(out)["hookSpecificOutput"].get("additionalContext", "")
    return text


def test_the_overflow_note_is_kept_until_memory_or_the_settings_change(
    launched: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = memory_location_for(launched).memory_file
    memory.parent.mkdir(parents=True, exist_ok=True)
    claude_notes = "".join(f"- note {i}\n" for i in range(250))
    memory.write_text(memory_text(ap_body=AP) + claude_notes, "utf-8")
    age(memory, 60)
    first = session_note(launched)
    assert "MEMORY.md is" in first and "of its lines are notes outside" in first

    from pokayokay.memory import document

    def refuse(*args: object, **kwargs: object) -> object:
        raise AssertionError("MEMORY.md parsed again")

    with monkeypatch.context() as m:
        m.setattr(document, "parse", refuse)
        assert session_note(launched) == first

    memory.write_text(memory_text(ap_body=AP) + claude_notes + "- one more note\n", "utf-8")
    age(memory, 30)
    second = session_note(launched)
    assert second != first
    lines = len(memory.read_text("utf-8").splitlines())
    assert f"{lines} lines" in second

    settings = launched / ".claude" / "pokayokay.md"  # the sections may be someone else's now
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text("---\nmemory:\n  max_lines: 180\n---\n", "utf-8")
    age(settings, 30)
    parsed = count_parses(monkeypatch)
    assert session_note(launched) == second  # made again (the same for the same files)
    assert parsed == ["MEMORY.md"]
    assert session_note(launched) == second
    assert parsed == ["MEMORY.md"]


def test_a_memory_file_written_just_now_is_kept_by_its_content(
    launched: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``/clear`` runs SessionEnd (which may curate MEMORY.md) and SessionStart at once: the
    file is seconds old, too new for a stat to be trusted, and the note is kept by the file's
    content instead; a rewrite of the same lines and size within the same instant that
    changes the bytes is followed."""
    memory = memory_location_for(launched).memory_file
    memory.parent.mkdir(parents=True, exist_ok=True)
    claude_notes = "".join(f"- note {i:03d}\n" for i in range(250))
    memory.write_text(memory_text(ap_body=AP) + claude_notes, "utf-8")
    first = session_note(launched)  # not aged: written just now
    assert "of its lines are notes outside" in first

    from pokayokay.memory import document

    def refuse(*args: object, **kwargs: object) -> object:
        raise AssertionError("MEMORY.md parsed again")

    with monkeypatch.context() as m:
        m.setattr(document, "parse", refuse)
        assert session_note(launched) == first

    # The same size and lines, its mtime put back (what a stat cannot tell apart): a note
    # moved to the end of the file.
    stat = memory.stat()
    text = memory.read_text("utf-8")
    moved = text.replace("- note 000\n", "", 1) + "- note 000\n"
    assert len(moved) == len(text) and moved != text
    memory.write_text(moved, "utf-8")
    os.utime(memory, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    parsed = count_parses(monkeypatch)
    session_note(launched)
    assert parsed == ["MEMORY.md"]  # the content moved: made again, not taken from the cache
