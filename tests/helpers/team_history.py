"""A project with five weeks of pokayokay history, made through the real hooks and commands: tool
failures captured by the PostToolUseFailure hook in several sessions, a rule graduated from the
one that recurred, rule loads recorded by the InstructionsLoaded hook, a recurrence after the rule
loaded, learnings stored and reinforced with ``remember``. Only the clock is moved (each session
happens on its own day)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from pokayokay.hooks import runtime as hook

NOW = datetime(2026, 11, 25, 9, 30, tzinfo=timezone.utc)

PYTEST_IMPORT_ERROR = """Exit code 2
============================= test session starts ==============================
platform linux -- Python 3.11.9, pytest-8.3.3, pluggy-1.5.0
rootdir: {root}
collected 0 items / 1 error

==================================== ERRORS ====================================
____________________ ERROR collecting tests/test_checkout.py ____________________
ImportError while importing test module '{root}/tests/test_checkout.py'.
Hint: make sure your test modules/packages have valid Python names.
Traceback:
/usr/lib/python3.11/importlib/__init__.py:126: in import_module
    return _bootstrap._gcd_import(name[level:], package, level)
tests/test_checkout.py:3: in <module>
    from shop.cart.checkout import total_with_tax
E   ModuleNotFoundError: No module named 'shop'
=========================== short test summary info ============================
ERROR tests/test_checkout.py
!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!
=============================== 1 error in 0.11s ===============================
"""

MIGRATION_ERROR = """Exit code 1
Traceback (most recent call last):
  File "{root}/manage.py", line 22, in <module>
    main()
  File "{root}/shop/db/migrate.py", line 41, in apply
    conn.execute(step.sql)
sqlite3.OperationalError: no such table: orders_v2
"""

LINT_ERROR = """Exit code 1
shop/cart/checkout.py:14:5: F841 Local variable `discount` is assigned to but never used
shop/cart/checkout.py:27:1: E302 expected 2 blank lines, found 1
Found 2 errors.
"""


@dataclass(frozen=True)
class TeamProject:
    root: Path
    memory_dir: Path
    html: Path


def _payload(root: Path, session: str, command: str, error: str, n: int) -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": f"/tmp/{session}.jsonl",
        "cwd": str(root),
        "permission_mode": "default",
        "hook_event_name": "PostToolUseFailure",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "Run the tests"},
        "tool_use_id": f"toolu_{session[:8]}_{n:02d}",
        "error": error.format(root=root),
        "is_interrupt": False,
        "duration_ms": 840,
    }


def _load_payload(root: Path, session: str, rule: Path, trigger: str) -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": f"/tmp/{session}.jsonl",
        "cwd": str(root),
        "hook_event_name": "InstructionsLoaded",
        "file_path": str(rule),
        "memory_type": "Project",
        "load_reason": "path_glob_match",
        "globs": ["/tests/**"],
        "trigger_file_path": str(root / trigger),
    }


def _run(event: str, payload: dict[str, Any]) -> None:
    out, err = io.StringIO(), io.StringIO()
    code = hook.run(event, io.BytesIO(json.dumps(payload).encode()), out, err)
    assert code == 0, err.getvalue()


def _cli(root: Path, *args: str) -> str:
    from pokayokay.cli.main import main

    old = os.getcwd()
    os.chdir(root)
    try:
        buffer = io.StringIO()
        from contextlib import redirect_stdout

        with redirect_stdout(buffer):
            assert main(list(args)) == 0
        return buffer.getvalue()
    finally:
        os.chdir(old)


def build_team_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> TeamProject:
    """The project (the test modules wrap this in their ``team_project`` fixture)."""
    root = Path(os.path.realpath(tmp_path / "shop"))
    (root / "shop" / "cart").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "shop" / "cart" / "checkout.py").write_text("def total_with_tax(x):\n    return x\n")
    (root / "tests" / "test_checkout.py").write_text(
        "from shop.cart.checkout import total_with_tax\n"
    )
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    _cli(root, "init", "--local")

    clock = {"now": NOW.timestamp()}
    monkeypatch.setattr(time, "time", lambda: clock["now"])

    def at(days_ago: float) -> None:
        clock["now"] = (NOW - timedelta(days=days_ago)).timestamp()

    # Five weeks ago to last week: pytest without the package installed, in three sessions.
    history = [
        (33, "a1f0c2d4-0000-4000-8000-000000000001", "pytest tests/test_checkout.py",
         PYTEST_IMPORT_ERROR),
        (33.01, "a1f0c2d4-0000-4000-8000-000000000001", "ruff check shop", LINT_ERROR),
        (26, "b2e1d3c5-0000-4000-8000-000000000002", "pytest -q tests/test_checkout.py",
         PYTEST_IMPORT_ERROR),
        (19, "c3d2e4b6-0000-4000-8000-000000000003", "pytest tests/test_checkout.py",
         PYTEST_IMPORT_ERROR),
        (19.01, "c3d2e4b6-0000-4000-8000-000000000003", "python manage.py migrate",
         MIGRATION_ERROR),
        (5, "d4c3f5a7-0000-4000-8000-000000000004", "python manage.py migrate", MIGRATION_ERROR),
    ]
    for n, (days, session, command, error) in enumerate(history):
        at(days)
        _run("PostToolUseFailure", _payload(root, session, command, error, n))

    at(18)
    _cli(root, "graduate")
    rule = next((root / ".claude" / "rules" / "pokayokay").glob("*.md"))

    # Loaded in four later sessions; the failure came back once, in the last one.
    for days, session in ((12, "e5"), (8, "f6"), (3, "a7"), (1, "b8")):
        sid = f"{session}b4a6c8-0000-4000-8000-0000000000{days:02d}"
        at(days)
        _run("InstructionsLoaded", _load_payload(root, sid, rule, "tests/test_checkout.py"))
        if days == 1:
            at(0.9)
            _run("PostToolUseFailure",
                 _payload(root, sid, "pytest tests/test_checkout.py", PYTEST_IMPORT_ERROR, 40))
    at(0)

    from pokayokay.config.settings import load_settings
    from pokayokay.infra.locate import resolve_memory_location
    from pokayokay.learnings.capture.remember import remember

    location = resolve_memory_location(root)
    settings = load_settings(root)
    for days, text in (
        (20, "Run the test suite with `pip install -e .` done first: the tests import the shop "
             "package, not the source folder."),
        (2, "Database migrations are applied with `python manage.py migrate --plan` first; the "
            "orders_v2 table only exists after step 0042."),
        (1, "Run the test suite with `pip install -e .` done first: the tests import the shop "
            "package, not the source folder."),
        (1, "Checkout totals are computed in cents; never round a float price <script>."),
    ):
        result = remember(text, project_dir=root, location=location, settings=settings,
                          now=NOW - timedelta(days=days))
        assert result.saved, result
    return TeamProject(root, location.memory_dir, tmp_path / "report.html")
