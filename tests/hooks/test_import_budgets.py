"""What each hook imports, on the state of a real project: a budget of modules per event, and no
YAML library on the paths that run on every prompt, session start or subagent (issue 26).

The project has what a project in use has: settings, a graduated rule, learnings, a MEMORY.md,
skills and a failure store. Each hook runs as registered (``python -m pokayokay hook <Event>``)
twice to warm the caches, then once under ``-X importtime``. A budget is the count measured when
it was set plus a little room; a change that needs more says why, in the budget's comment.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.paths import FIXTURE_SAMPLES_DIR

# Modules a hook imports beyond what `python -c pass` imports (the interpreter's own start-up
# differs between versions). Measured on Python 3.11, 2026-11-28, in brackets, with the lab's
# files settled as a project's are.
BUDGETS = {
    # (44: strings, no pathlib/re/enum/json, recall's modules only on a topic branch, decision
    # 0124; 75 before, with the full freshness checks SessionEnd's, decision 0105; 49 with the
    # dense opinion's start, decision 0181: its package and client, a few stats without the
    # extra, no socket or json)
    "SessionStart": 50,
    # (111: the ingester is imported only when something is spooled; 115 with relevance.scan and
    # relevance.scan_names, the plain scans that replace the prompt's patterns, decision 0137:
    # the registered command then imports no re, tests/architecture/test_prompt_imports_no_re;
    # this lab's prompt still does, through learnings.outcomes.chain, read for its chain file)
    "UserPromptSubmit": 116,
    "SubagentStart": 52,  # (48: its block is kept by the stat of its files)
    "PreToolUse": 32,  # (28)
    "Stop": 38,  # (35)
    # (151: SessionStart's full freshness checks are SessionEnd's now; 147 on 2026-11-28 with
    # decision 0118's Key Decisions scan)
    "SessionEnd": 152,
}
NEVER = ("ruamel", "jinja2", "watchdog", "numpy", "markdown_it")
# SessionEnd curates MEMORY.md and may write rules: it may need a parser the others must not.
NEVER_EXCEPT = {"SessionEnd": ("markdown_it",)}
# SessionStart on a project in use (no spool left, nothing to graduate, on ``main``, a session
# already noted) works on strings: pathlib, re (and enum behind it) and json are the bulk of
# the cost a session start had over the floor (decision 0124).
NOT_ON = {"SessionStart": ("pathlib", "re", "enum", "json", "dataclasses", "typing")}

RULE = """---
paths:
  - "src/**/*.py"
  - "tests/test_app.py"
---

<!-- pokayokay:rule id=testing; signatures=abc123; graduated=2026-11-20 -->
# Testing

- Run the tests with `.venv/bin/python -m pytest`: the dependencies live in .venv.
"""

SETTINGS = """---
memory:
  max_lines: 180
graduation:
  threshold: 3
---

Project settings for pokayokay.
"""

SKILL = """---
name: python-testing
description: Write and fix pytest tests, fixtures and parametrised cases for Python projects.
---

# Python testing
"""


def _env(root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "POKAYOKAY"))}
    env.update(
        HOME=str(root / "home"),
        CLAUDE_CONFIG_DIR=str(root / "home" / ".claude"),
        POKAYOKAY_HOME=str(root / "home" / "state"),
        CLAUDE_PROJECT_DIR=str(root / "project"),
        POKAYOKAY_DENSE="0",  # the resident model's start is SessionStart's one spawn (0181)
    )
    return env


def _pokayokay(env: dict[str, str], cwd: Path, *args: str, stdin: bytes = b"") -> bytes:
    proc = subprocess.run(
        [sys.executable, "-m", "pokayokay", *args], input=stdin, capture_output=True, env=env,
        cwd=cwd, timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    return proc.stderr


def _payload(name: str, project: Path, **fields: object) -> bytes:
    data = json.loads((FIXTURE_SAMPLES_DIR / name).read_text("utf-8"))
    data.update(cwd=str(project), **fields)
    return json.dumps(data).encode("utf-8")


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("imports")
    project = root / "project"
    (project / "src").mkdir(parents=True)
    (project / "tests").mkdir()
    (project / "src" / "app.py").write_text("def main():\n    return 1\n", "utf-8")
    (project / "tests" / "test_app.py").write_text("def test_main():\n    pass\n", "utf-8")
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    env = _env(root)
    (root / "home").mkdir()
    _pokayokay(env, project, "init")
    claude = project / ".claude"
    (claude / "pokayokay.md").write_text(SETTINGS, "utf-8")
    (claude / "rules" / "pokayokay").mkdir(parents=True, exist_ok=True)
    (claude / "rules" / "pokayokay" / "testing.md").write_text(RULE, "utf-8")
    (claude / "skills" / "python-testing").mkdir(parents=True, exist_ok=True)
    (claude / "skills" / "python-testing" / "SKILL.md").write_text(SKILL, "utf-8")
    for text in (
        "Run the test suite with `.venv/bin/python -m pytest`, never the system pytest.",
        "Never log and return the same error: wrap it with context and return it.",
        "Migrations run with `make migrate`; never edit an applied migration file.",
    ):
        _pokayokay(env, project, "remember", text)
    for n, session in enumerate(("s1", "s2", "s3")):
        failure = _payload(
            "PostToolUseFailure.Bash.json", project, session_id=session,
            tool_use_id=f"toolu_{n}",
        )  # fmt: skip
        _pokayokay(env, project, "hook", "PostToolUseFailure", stdin=failure)
        end = _payload("SessionEnd.other.json", project, session_id=session)
        _pokayokay(env, project, "hook", "SessionEnd", stdin=end)
    stores = list((root / "home" / "state").rglob("failures.db"))
    assert stores and stores[0].stat().st_size > 0, "the lab has no failure store"
    # A project in use: its files were written minutes ago, not in the last two seconds (the
    # caches keyed by size and mtime keep nothing that may not have settled).
    for folder in (project, root / "home"):
        for path in [folder, *folder.rglob("*")]:
            if not path.is_symlink():
                when = path.stat().st_mtime - 300
                os.utime(path, (when, when))
    return project, env


def _modules(argv: list[str], payload: bytes, env: dict[str, str], cwd: Path) -> set[str]:
    stderr = subprocess.run(
        [sys.executable, "-X", "importtime", *argv], input=payload, capture_output=True, env=env,
        cwd=cwd, timeout=120, check=True,
    ).stderr.decode(errors="replace")  # fmt: skip
    return {
        line.rsplit("|", 1)[-1].strip()
        for line in stderr.splitlines()
        if line.startswith("import time:") and "|" in line and "imported package" not in line
    }


def _imports(lab: tuple[Path, dict[str, str]], event: str, payload: bytes) -> set[str]:
    """The modules the hook imports beyond a bare interpreter's."""
    project, env = lab
    for _ in range(2):
        _pokayokay(env, project, "hook", event, stdin=payload)
    floor = _modules(["-c", "pass"], b"", env, project)
    return _modules(["-m", "pokayokay", "hook", event], payload, env, project) - floor


CASES = {
    "SessionStart": ("SessionStart.startup.json", {}),
    "UserPromptSubmit": (
        "UserPromptSubmit.json",
        {"prompt": "the tests in tests/test_app.py fail after I changed src/app.py, fix them"},
    ),
    "SubagentStart": ("SubagentStart.json", {}),
    "PreToolUse": ("PreToolUse.Bash.json", {}),
    "Stop": ("Stop.json", {}),
    "SessionEnd": ("SessionEnd.other.json", {"session_id": "s-last"}),
}


@pytest.mark.parametrize("event", sorted(CASES))
def test_a_hook_imports_within_its_budget(lab: tuple[Path, dict[str, str]], event: str) -> None:
    name, fields = CASES[event]
    modules = _imports(lab, event, _payload(name, lab[0], **fields))
    allowed = NEVER_EXCEPT.get(event, ())
    banned = sorted(
        m for m in modules
        if m.split(".")[0] in NEVER and m.split(".")[0] not in allowed
    )  # fmt: skip
    assert not banned, f"{event} imports {banned}"
    heavy = sorted(modules & set(NOT_ON.get(event, ())))
    assert not heavy, f"{event} imports {heavy}"
    assert len(modules) <= BUDGETS[event], (event, len(modules))
