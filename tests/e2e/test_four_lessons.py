"""Four lessons over four sessions with the real client on a small real project (issue 24,
"Done when" bullet 3).

The project is the lesson corpus's ``pyproj`` (tests/data/lesson_corpus/lab/projects.tar.gz: the
``shopcart`` package, its tests and pyproject.toml), with a Makefile whose target is ``test``
and a project interpreter, ``.venv/bin/python``, that has the package on its path. Each of the
first three sessions makes the same four mistakes, as Claude would, and recovers from each:

* **the wrong interpreter**: ``python3 -m pytest`` cannot import shopcart; the project's
  ``.venv/bin/python -m pytest`` can;
* **a test fixed by a real edit**: ``parse_cents("3.5")`` is 305; an edit to
  src/shopcart/money.py makes ``tests/test_money.py`` pass;
* **a lint mistake in 3 files**: ``ruff`` finds an unused import in three modules; edits
  removing them make it pass;
* **a script-name correction**: ``make unit`` has no rule; ``make test`` passes.

Session 4 starts and reads the money module and one of the linted modules. Checked, as
properties (another change is rewriting the sentences' wording): the interpreter and make
corrections are in the first request with the exact commands in code spans; the lint rule's
text arrives next to the Read of cart.py and the money rule's next to the Read of money.py, not
before; and no request in any session carries tool output beyond the error line, outside the
session's own tool calls and results.
"""

from __future__ import annotations

import fnmatch
import json
import re
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

import pytest
from helpers.paths import DATA_DIR

from .conftest import E2E, RunResult
from .mock_api import RecordedRequest, Turn, text, tool_use
from .test_lessons import _without_own_calls, result_text

pytestmark = [pytest.mark.e2e, pytest.mark.slow]  # 35 s alone, over a minute on a busy machine

LAB = DATA_DIR / "lesson_corpus" / "lab" / "projects.tar.gz"
VENDORED = (
    ".gitignore",
    "pyproject.toml",
    "src/shopcart/__init__.py",
    "src/shopcart/cart.py",
    "src/shopcart/db.py",
    "src/shopcart/inventory.py",
    "src/shopcart/money.py",
    "tests/test_money.py",
)
LINTED = ("src/shopcart/cart.py", "src/shopcart/db.py", "src/shopcart/inventory.py")
MONEY = "src/shopcart/money.py"
MAKEFILE = "test:\n\t.venv/bin/python -m pytest -q tests/test_money.py\n"
VENV_PYTHON = """#!/bin/sh
here="$(cd "$(dirname "$0")/../.." && pwd)"
PYTHONPATH="$here/src${{PYTHONPATH:+:$PYTHONPATH}}" exec "{python}" "$@"
"""

WRONG = "python3 -m pytest -q tests/test_money.py"
RIGHT = ".venv/bin/python -m pytest -q tests/test_money.py"
LINT = ".venv/bin/python -m ruff check --select F401 " + " ".join(LINTED)
TYPO, TARGET = "make unit", "make test"
BUG = "int(rest or 0)"
FIX = "int((rest or '0').ljust(2, '0')[:2])"
# Lines of the tools' output that are not the error line: none may reach a request except as
# the session's own tool results.
OUTPUT_ONLY = (
    "short test summary info",
    "ImportError while importing test module",
    "Hint: make sure your test modules/packages have valid Python names.",
    "Interrupted: 1 error during collection",
    "Found 3 errors",
    "make: *** No rule to make target 'unit'.  Stop.",
    "1 failed, 1 passed",
)
SESSIONS = 3


def vendor(project: Path, env: dict[str, str]) -> dict[str, str]:
    """The lab project's files this test needs, committed, and the venv's interpreter."""
    files: dict[str, str] = {}
    with tarfile.open(LAB) as archive:
        for rel in VENDORED:
            member = archive.extractfile(f"projects/pyproj/{rel}")
            assert member is not None, rel
            files[rel] = member.read().decode("utf-8")
    files["Makefile"] = MAKEFILE
    files[".gitignore"] += ".pytest_cache/\n.ruff_cache/\n"
    for rel, content in files.items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(content, encoding="utf-8")
    python = project / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(VENV_PYTHON.format(python=sys.executable), encoding="utf-8")
    python.chmod(0o755)
    for args in (["add", *files], ["commit", "-q", "-m", "shopcart from the lesson lab"]):
        subprocess.run(["git", *args], cwd=project, env=env, check=True, capture_output=True)
    assert BUG in files[MONEY]
    return files


def bash(command: str) -> dict[str, Any]:
    return tool_use("Bash", {"command": command, "description": "check"})


def write(project: Path, rel: str, content: str) -> dict[str, Any]:
    return tool_use("Write", {"file_path": str(project / rel), "content": content})


def session_turns(project: Path, files: dict[str, str], label: str) -> list[Turn]:
    """The four mistakes and their recoveries (module doc). The files start clean; the session
    brings the money bug back and adds the unused imports, as a change in progress would."""
    money = str(project / MONEY)
    read = [tool_use("Read", {"file_path": str(project / rel)}) for rel in (MONEY, *LINTED)]
    return [
        read,  # the client lets a file be written only once it was read
        [write(project, MONEY, files[MONEY])],
        [write(project, rel, "import os\n" + files[rel]) for rel in LINTED],
        [bash(WRONG)],
        [bash(RIGHT)],
        [tool_use("Edit", {"file_path": money, "old_string": BUG, "new_string": FIX})],
        [bash(RIGHT)],
        [bash(LINT)],
        [write(project, rel, files[rel]) for rel in LINTED],
        [bash(LINT)],
        [bash(TYPO)],
        [bash(TARGET)],
        [text(f"{label}-DONE")],
    ]


def outcomes(run: RunResult) -> list[tuple[bool, str]]:
    """(failed, text) of each Bash result, in order."""
    results = [r.tool_results() for r in run.main_requests if r.tool_results()]
    last = [batch[-1] for batch in results]
    return [(bool(r.get("is_error")), result_text(r)) for r in last]


def leaked(request: RecordedRequest) -> list[str]:
    dumped = json.dumps(_without_own_calls(request.body), ensure_ascii=False)
    return [line for line in OUTPUT_ONLY if line in dumped]


def matches(rule: Path, rel: str) -> bool:
    """Whether the rule's ``paths:`` globs (project-anchored, ``/src/x/*.py``) match ``rel``."""
    content = rule.read_text("utf-8")
    head = content.split("\n---", 1)[0] if content.startswith("---") else ""
    globs = [line.strip()[2:].strip('"').lstrip("/") for line in head.splitlines()[2:]]
    return any(fnmatch.fnmatchcase(rel, glob) for glob in globs if glob)


def rule_naming(project: Path, words: str) -> Path:
    """The one path-scoped rule whose text holds ``words``."""
    rules = sorted((project / ".claude" / "rules").rglob("*.md"))
    found = [
        r for r in rules if r.read_text("utf-8").startswith("---") and words in r.read_text("utf-8")
    ]
    assert len(found) == 1, (words, {r.name: r.read_text("utf-8") for r in rules})
    return found[0]


def diagnosis(e2e: E2E) -> str:
    listed = e2e.pokayokay("failures", "--json", "--project", str(e2e.project), check=False)
    rules = sorted((e2e.project / ".claude" / "rules").rglob("*.md"))
    return listed.stdout + "\n".join(f"{p}:\n{p.read_text()}" for p in rules)


def test_four_mistakes_reach_session_four_as_lessons_loaded_when_they_matter(e2e: E2E) -> None:
    project = e2e.project
    files = vendor(project, e2e.env)
    e2e.init_pokayokay()
    runs: list[RunResult] = []
    for number in range(1, SESSIONS + 1):
        label = f"FOUR{number}"
        run = e2e.run_claude(
            project, f"session {number}: fix the money parser", session_turns(project, files, label)
        )
        assert run.exit_code == 0 and run.result_event.get("result") == f"{label}-DONE", (
            run.describe()
        )
        seen = outcomes(run)
        failed = [ok for ok, _ in seen]
        # reads, write, 3 writes, red, red, edit, green, red, 3 writes, green, red, green
        assert failed == [False] * 3 + [
            True,
            True,
            False,
            False,
            True,
            False,
            False,
            True,
            False,
        ], [t[-300:] for _, t in seen]
        assert "No module named 'shopcart'" in seen[3][1]
        assert "305" in seen[4][1]
        assert "F401" in seen[7][1] and "No rule to make target 'unit'" in seen[10][1]
        runs.append(run)

    money_rule, lint_rule = (
        rule_naming(project, "test_single_decimal"),
        rule_naming(project, "F401"),
    )
    assert money_rule != lint_rule
    assert matches(money_rule, MONEY) and matches(money_rule, "tests/test_money.py")
    assert all(matches(lint_rule, rel) for rel in LINTED)
    assert not matches(lint_rule, "tests/test_money.py") and not matches(money_rule, LINTED[0])
    money_text = money_rule.read_text("utf-8")
    # the fixing edit, byte-exact, in a code span
    assert re.search(f"`[^`\n]*{re.escape(FIX)}[^`\n]*`", money_text), money_text

    fourth = e2e.run_claude(
        project,
        "session 4: look at the money parser and the cart",
        [
            [tool_use("Read", {"file_path": str(project / LINTED[0])})],
            [tool_use("Read", {"file_path": str(project / MONEY)})],
            [text("FOUR4-DONE")],
        ],
    )
    assert fourth.exit_code == 0, fourth.describe()
    runs.append(fourth)
    first = fourth.main_requests[0].full_text
    # The corrections, always loaded: the exact commands, in code spans.
    for command in (RIGHT, TARGET):
        assert f"`{command}`" in first, (command, first[-4000:], diagnosis(e2e))
    # The path-scoped rules: not at the start, each next to the Read of its file.
    for rule in (money_rule, lint_rule):
        assert f"Contents of {rule.resolve()}" not in first
    # (the lint rule covers src/shopcart/*.py: it comes with the first module read)
    after_cart = json.dumps(fourth.main_requests[1].messages[-1], ensure_ascii=False)
    after_money = json.dumps(fourth.main_requests[2].messages[-1], ensure_ascii=False)
    assert f"Contents of {lint_rule.resolve()}" in after_cart, after_cart[-3000:]
    assert f"Contents of {money_rule.resolve()}" not in after_cart
    assert f"Contents of {money_rule.resolve()}" in after_money, after_money[-3000:]

    # the lines looked for are the tools' real output (so the check below can fail)
    said = "\n".join(text for run in runs[:SESSIONS] for _, text in outcomes(run))
    assert [line for line in OUTPUT_ONLY if line not in said] == []
    for run in runs:
        for request in run.requests:
            assert not leaked(request), (leaked(request), request.kind, request.seq)
