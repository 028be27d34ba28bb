"""Saved regex programs: a pattern built by the engine from its saved program is the pattern
``re.compile`` makes, a bad or foreign file only means compiling with ``re``, and a warm prompt
imports no ``re`` at all."""

from __future__ import annotations

import importlib
import json
import marshal
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pokayokay.infra import lazyre, regex_programs

PATTERNS = [
    (r"[^\W_]+", 0),
    (r"(?<![\w.])([\w./-]*\w)\.([A-Za-z][A-Za-z0-9]{0,4})(?![\w.])", 0),
    (r"(?P<key>[A-Za-z_][A-Za-z0-9_-]*):(?:[ \t]+(?P<value>.*))?$", 0),
    (r"^---[ \t]*$", lazyre.MULTILINE),
    (r"\b(?:never|avoid)\s+(\w+)", lazyre.IGNORECASE),
    (r"(a|b)*?c{2,5}", lazyre.DOTALL | lazyre.ASCII),
    (r"ünïcode\s+\d+", lazyre.IGNORECASE),
]
TEXTS = ["Never mock the DB", "edit src/app.py and lib/x.js", "---\nname: x\n---", "aabcccc",
         "ÜNÏCODE 42", "key: value", ""]  # fmt: skip
EVENT = "UserPromptSubmit"
HOT_MODULES = [
    "pokayokay.skills.suggest", "pokayokay.skills.terms", "pokayokay.skills.match",
    "pokayokay.skills.catalog", "pokayokay.skills.failure_boost", "pokayokay.recall.terms",
    "pokayokay.recall.concepts", "pokayokay.recall.readers", "pokayokay.recall.block",
    "pokayokay.infra.location_rules",
]  # fmt: skip


@pytest.fixture(autouse=True)
def fresh_programs() -> object:
    yield
    lazyre.install_programs({})
    lazyre._programs = None
    lazyre._new.clear()


def test_flags_are_re_flags() -> None:
    assert (lazyre.IGNORECASE, lazyre.MULTILINE, lazyre.DOTALL, lazyre.VERBOSE, lazyre.ASCII) == (
        re.IGNORECASE, re.MULTILINE, re.DOTALL, re.VERBOSE, re.ASCII)  # fmt: skip


def _hot_patterns() -> list[tuple[str, int]]:
    found = []
    for name in HOT_MODULES:
        for value in vars(importlib.import_module(name)).values():
            if isinstance(value, lazyre.Lazy):
                found.append((value.pattern, value._args[1]))
    return found


def test_a_saved_program_makes_the_pattern_re_makes() -> None:
    patterns = PATTERNS + _hot_patterns()
    assert len(patterns) > 20
    lazyre.install_programs({})
    compiled = [lazyre.compile_pattern(p, f) for p, f in patterns]
    saved = marshal.loads(marshal.dumps(lazyre.new_programs()))
    assert set(saved) == {(p, f) for p, f in patterns}
    lazyre.install_programs(saved)
    lazyre._new.clear()
    for (pattern, flags), reference in zip(patterns, compiled, strict=True):
        rebuilt = lazyre.compile_pattern(pattern, flags)
        assert rebuilt == re.compile(pattern, flags) == reference
        assert rebuilt.groupindex == reference.groupindex
        for text in TEXTS:
            assert rebuilt.findall(text) == reference.findall(text)
    assert lazyre.new_programs() == {}  # every one came from its program


def test_a_wrong_program_is_never_used_blindly() -> None:
    lazyre.install_programs({(r"\d+", 0): (32, [1, 2, 3], 0, {}, (None,))})  # not \d+'s program
    regex = lazyre.compile_pattern(r"\d+")  # the engine refuses the code: re compiles it
    assert regex.findall("a 12 b 3") == ["12", "3"]


def test_programs_round_trip_through_the_state_folder(tmp_path: Path) -> None:
    home = str(tmp_path / "state")
    regex_programs.load(home, EVENT)  # no file yet
    lazyre.compile_pattern(r"[a-z]+(?=\d)", 0)
    regex_programs.save(home, EVENT)
    saved = os.path.join(home, regex_programs.FILE.format(event=EVENT))
    assert os.stat(saved).st_mode & 0o777 == 0o600
    lazyre._new.clear()
    regex_programs.load(home, EVENT)
    assert (r"[a-z]+(?=\d)", 0) in lazyre._programs  # type: ignore[operator]
    lazyre.compile_pattern(r"[a-z]+(?=\d)", 0)
    assert lazyre.new_programs() == {}


@pytest.mark.parametrize(
    "content",
    [b"", b"not marshal", marshal.dumps([1, 2]), marshal.dumps({"key": "other-python"}),
     marshal.dumps({"key": None, "programs": {("x", 0): "bad"}})],
)  # fmt: skip
def test_a_damaged_or_foreign_file_means_compiling_with_re(tmp_path: Path, content: bytes) -> None:
    home = tmp_path / "state"
    home.mkdir()
    (home / regex_programs.FILE.format(event=EVENT)).write_bytes(content)
    regex_programs.load(str(home), EVENT)
    assert lazyre._programs == {}
    assert lazyre.compile_pattern(r"x+").findall("xx y x") == ["xx", "x"]
    regex_programs.save(str(home), EVENT)  # replaced by a good file
    regex_programs.load(str(home), EVENT)
    assert lazyre._programs is not None and (r"x+", 0) in lazyre._programs


def test_a_fifo_in_place_of_the_file_never_blocks(tmp_path: Path) -> None:
    home = tmp_path / "state"
    home.mkdir()
    os.mkfifo(home / regex_programs.FILE.format(event=EVENT))
    regex_programs.load(str(home), EVENT)
    assert lazyre._programs == {}


def test_the_file_stays_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(regex_programs, "MAX_PROGRAMS", 3)
    home = str(tmp_path / "state")
    regex_programs.load(home, EVENT)
    for n in range(6):
        lazyre.compile_pattern(f"a{{{n + 1}}}")
    regex_programs.save(home, EVENT)
    regex_programs.load(home, EVENT)
    assert lazyre._programs is not None and len(lazyre._programs) == 3


def test_a_warm_prompt_imports_no_re(project: Path) -> None:
    """The prompt hook through the hook runtime, twice: the first run compiles with re and saves
    the programs; the second gives the same answer without importing re (nor enum, json or
    pathlib)."""
    skills = project / ".claude" / "skills" / "pytest-fixing"
    skills.mkdir(parents=True)
    (skills / "SKILL.md").write_text(
        "---\nname: pytest-fixing\ndescription: Fix failing pytest tests and flaky fixtures.\n"
        "---\n", "utf-8")  # fmt: skip
    (project / "tests").mkdir()
    (project / "tests" / "test_a.py").write_text("", "utf-8")
    payload = {"session_id": "s1", "cwd": str(project), "hook_event_name": "UserPromptSubmit",
               "prompt": "the pytest test in tests/test_a.py fails again, fix it"}  # fmt: skip
    probe = (  # json is not imported here: it would import re
        "import io, sys\n"
        "from pokayokay.hooks.runtime import run\n"
        "from pokayokay.infra.cjson import dumps\n"
        "out = io.StringIO()\n"
        "code = run('UserPromptSubmit', sys.stdin.buffer, out, sys.stderr)\n"
        "loaded = sorted(m for m in ('re', 'enum', 'json', 'pathlib') if m in sys.modules)\n"
        "print(dumps({'code': code, 'out': out.getvalue(), 'loaded': loaded}))\n"
    )
    env = dict(os.environ, CLAUDE_PROJECT_DIR=str(project))
    results = []
    for _run in range(3):  # caches and programs are written by the first run(s)
        proc = subprocess.run([sys.executable, "-c", probe], input=json.dumps(payload),
                              capture_output=True, text=True, timeout=60, check=True, env=env)
        assert proc.stderr == ""
        results.append(json.loads(proc.stdout))
    assert "/pytest-fixing" in results[0]["out"]
    assert results[0]["out"] == results[-1]["out"]
    assert results[-1]["loaded"] == []


def test_each_event_keeps_its_own_programs(tmp_path: Path) -> None:
    home = str(tmp_path / "state")
    regex_programs.load(home, "SessionEnd")
    lazyre.compile_pattern(r"end-only \d+")
    regex_programs.save(home, "SessionEnd")
    lazyre._new.clear()
    regex_programs.load(home, EVENT)
    assert lazyre._programs == {}
    regex_programs.load(home, "../x")  # never a path: no programs
    assert lazyre._programs == {}
    lazyre.compile_pattern(r"other \d+")
    with pytest.raises(ValueError):
        regex_programs.save(home, "../x")
