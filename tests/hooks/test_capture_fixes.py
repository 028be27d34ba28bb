"""The fix that worked, captured through the real hook entry point with Claude Code's payload
shapes (tests/data/claude-code-samples): corrections, fixing-edit excerpts, one failure per
mistake, per-session dedup, redaction at capture, and old stores re-keyed."""

from __future__ import annotations

import io
import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from helpers.hooks import edit_payload, sample_payload
from helpers.paths import DATA_DIR

from pokayokay.failures import schema
from pokayokay.failures.model import FailureGroup
from pokayokay.failures.store import FailureStore
from pokayokay.hooks import runtime as hook
from pokayokay.infra.state import project_state_dir

OUTPUTS = DATA_DIR / "outputs"

COLLECTION_ERROR = (
    "Exit code 2\n"
    "==================================== ERRORS ====================================\n"
    "______________________ ERROR collecting tests/test_cart.py ______________________\n"
    "ImportError while importing test module '{root}/tests/test_cart.py'.\n"
    "Traceback:\n"
    "tests/test_cart.py:1: in <module>\n    import attrs\n"
    "E   ModuleNotFoundError: No module named 'attrs'\n"
    "=========================== short test summary info ============================\n"
    "ERROR tests/test_cart.py\n"
    "!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!\n"
    "1 error in 0.06s\n"
)
ASSERTION = (
    "Exit code 1\n"
    "F                                                                        [100%]\n"
    "___________________________________ test_code ___________________________________\n"
    "E       AssertionError: assert 'AB' == ' AB'\n"
    "FAILED tests/test_codes.py::test_code - AssertionError: assert 'AB' == ' AB'\n"
    "1 failed in 0.02s\n"
)


@pytest.fixture(autouse=True)
def capture_handlers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(hook.HANDLERS, "PostToolUseFailure", "capture:post_tool_use_failure")
    monkeypatch.setitem(hook.HANDLERS, "PostToolUse", "capture:post_tool_use")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "tests" / "test_cart.py").write_text("import attrs\n")
    (root / "src").mkdir()
    (root / "src" / "codes.py").write_text("def norm(code):\n    return code.strip()\n")
    return Path(os.path.realpath(root))


def sample(name: str, project: Path, session: str, **changes: Any) -> dict[str, Any]:
    return sample_payload(name, project, session_id=session, **changes)


def send(event: str, payload: dict[str, Any]) -> None:
    out, err = io.StringIO(), io.StringIO()
    code = hook.run(event, io.BytesIO(json.dumps(payload).encode()), out, err)
    assert (code, out.getvalue(), err.getvalue()) == (0, "", "")


def fail(project: Path, session: str, command: str, error: str, use_id: str = "toolu_1") -> None:
    payload = sample("PostToolUseFailure.Bash.json", project, session, tool_use_id=use_id)
    payload["tool_input"] = {"command": command, "description": "run the tests"}
    payload["error"] = error.format(root=project)
    send("PostToolUseFailure", payload)


def succeed(project: Path, session: str, command: str) -> None:
    payload = sample("PostToolUse.Bash.json", project, session)
    payload["tool_input"] = {"command": command, "description": "run the tests"}
    send("PostToolUse", payload)


def edit(project: Path, session: str, rel: str, old: str, new: str) -> None:
    send("PostToolUse", edit_payload(project, rel, old, new, session_id=session))


def groups(project: Path) -> dict[str, FailureGroup]:
    with FailureStore.for_project(project) as store:
        return {g.signature: g for g in store.failure_groups()}


def test_a_variant_that_passes_is_recorded_as_an_environment_correction(project: Path) -> None:
    for n in range(3):
        session = f"s{n}"
        fail(project, session, "python -m pytest -q tests/test_cart.py", COLLECTION_ERROR)
        succeed(project, session, ".venv/bin/python -m pytest -q tests/test_cart.py")
    group = groups(project)["python:ModuleNotFoundError"]
    assert group.sessions == 3
    [correction] = group.corrections
    assert correction.failing == "python -m pytest -q tests/test_cart.py"
    assert correction.corrected == ".venv/bin/python -m pytest -q tests/test_cart.py"
    assert (correction.kind, correction.times) == ("environment", 3)
    with FailureStore.for_project(project) as store:
        assert store.open_episodes("s0") == []  # the correction closed the episode


def test_edits_are_not_the_fix_of_a_mistake_an_environment_correction_fixed(
    project: Path,
) -> None:
    fail(project, "s", "python -m pytest -q tests/test_cart.py", COLLECTION_ERROR)
    fail(project, "s", ".venv/bin/python -m pytest -q tests/test_cart.py", ASSERTION, "toolu_2")
    edit(project, "s", "src/codes.py", "    return code.strip()", "    return code.lstrip()")
    succeed(project, "s", ".venv/bin/python -m pytest -q tests/test_cart.py")
    found = groups(project)
    environment = found["python:ModuleNotFoundError"]
    assert environment.corrections and environment.fix_edits == ()
    assert environment.fix_paths == ()
    assert found["test:tests/test_codes.py::test_code"].fix_paths == ("src/codes.py",)


def test_an_unrelated_success_neither_corrects_nor_closes(project: Path) -> None:
    fail(project, "s", "python -m pytest -q tests/test_cart.py", COLLECTION_ERROR)
    succeed(project, "s", "git status")
    succeed(project, "s", "python -m pytest -q tests/test_other.py")
    assert groups(project)["python:ModuleNotFoundError"].corrections == ()
    with FailureStore.for_project(project) as store:
        assert len(store.open_episodes("s")) == 1


def test_a_force_push_that_worked_is_never_a_correction(project: Path) -> None:
    rejected = (
        "Exit code 1\nTo github.com:acme/shop.git\n"
        " ! [rejected]        main -> main (non-fast-forward)\n"
    )
    fail(project, "s", "git push origin main", rejected)
    succeed(project, "s", "git push --force origin main")
    assert groups(project)["git:rejected-non-fast-forward"].corrections == ()


def test_the_edit_between_failure_and_success_is_kept_as_a_short_excerpt(project: Path) -> None:
    fail(project, "s", "pytest tests/test_codes.py", ASSERTION)
    edit(project, "s", "src/codes.py", "    return code.strip()", "    return code.lstrip()")
    succeed(project, "s", "pytest tests/test_codes.py")
    group = groups(project)["test:tests/test_codes.py::test_code"]
    [fix] = group.fix_edits
    assert fix.path == "src/codes.py"
    assert fix.excerpt == "- return code.strip()\n+ return code.lstrip()"
    assert group.fix_paths == ("src/codes.py",)


def test_no_excerpt_is_computed_while_no_failure_is_open(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pokayokay.failures import fix_edits

    def boom(*args: object) -> str:
        raise AssertionError("edit_excerpt ran on the hot path")

    monkeypatch.setattr(fix_edits, "edit_excerpt", boom)
    edit(project, "quiet", "src/codes.py", "a", "b")
    with FailureStore.for_project(project) as store:
        assert store.failure_groups() == []


def test_secrets_in_a_fixing_edit_are_redacted(project: Path) -> None:
    fail(project, "s", "pytest tests/test_codes.py", ASSERTION)
    key = "sk-ant-api03-Zx9fQ2mX7vB1nL8pR3sT6w"
    edit(project, "s", "src/codes.py", "load_codes()", f'load_codes("{key}")')
    succeed(project, "s", "pytest tests/test_codes.py")
    [fix] = groups(project)["test:tests/test_codes.py::test_code"].fix_edits
    assert "Zx9f" not in fix.excerpt and "[redacted:" in fix.excerpt
    assert fix.excerpt.split("\n")[0] == "- load_codes()"  # exact, in a was/now pair


def test_a_change_that_reads_the_same_once_redacted_is_no_pair(project: Path) -> None:
    """No was/now pair is identical after processing: one key replaced by another both read
    ``API_KEY = "[redacted:…]"``, so the edit shows no lines at all."""
    fail(project, "s", "pytest tests/test_codes.py", ASSERTION)
    old, new = "sk-ant-api03-Zx9fQ2mX7vB1nL8pR3", "sk-ant-api03-Qw4eR5tY6uI7oP8aS9"
    edit(project, "s", "src/codes.py", f'API_KEY = "{old}"', f'API_KEY = "{new}"')
    succeed(project, "s", "pytest tests/test_codes.py")
    group = groups(project)["test:tests/test_codes.py::test_code"]
    assert all(fix.excerpt == "" for fix in group.fix_edits)


def test_a_key_set_where_there_was_none_shows_only_redacted(project: Path) -> None:
    """An empty value is no secret: the pair shows the key was set, never the key."""
    fail(project, "s", "pytest tests/test_codes.py", ASSERTION)
    key = "sk-ant-api03-Zx9fQ2mX7vB1nL8pR3"
    edit(project, "s", "src/codes.py", 'API_KEY = ""', f'API_KEY = "{key}"')
    succeed(project, "s", "pytest tests/test_codes.py")
    group = groups(project)["test:tests/test_codes.py::test_code"]
    excerpts = [fix.excerpt for fix in group.fix_edits]
    assert excerpts and all(key not in text and "[redacted:" in text for text in excerpts)


def test_one_output_with_three_codes_is_three_failures_counted_once(project: Path) -> None:
    ruff = "Exit code 1\n" + (OUTPUTS / "ruff_full.txt").read_text(encoding="utf-8")
    for _ in range(2):  # the same tool call reported twice counts once
        fail(project, "s", "ruff check src", ruff, use_id="toolu_ruff")
    found = groups(project)
    assert sorted(found) == ["ruff:B006", "ruff:F401", "ruff:F841"]
    assert all(g.occurrences == 1 for g in found.values())
    # A later session reusing the id (a replay, a resumed session) is not lost.
    fail(project, "other", "ruff check src", ruff, use_id="toolu_ruff")
    assert groups(project)["ruff:F401"].sessions == 2


def test_secrets_never_reach_the_store(project: Path) -> None:
    secret = "sk-proj-4fJ9kQ2mX7vB1nL8pR3sT6wY0zA5cE9hG2"
    fail(
        project, "s", f"OPENAI_API_KEY={secret} python scripts/sync.py",
        f"Exit code 1\nopenai.AuthenticationError: Incorrect API key provided: {secret}\n",
    )
    folder = project_state_dir(str(project))
    raw = b"".join(p.read_bytes() for p in folder.glob("failures.db*"))
    assert raw
    assert b"4fJ9kQ2m" not in raw
    [group] = groups(project).values()
    assert "[redacted:" in (group.sample_command or "") and "[redacted:" in group.excerpt


def test_an_old_store_is_rekeyed_and_merged(tmp_path: Path) -> None:
    path = tmp_path / "failures.db"
    conn = sqlite3.connect(path, isolation_level=None)
    for statement in schema.MIGRATIONS[0]:
        assert isinstance(statement, str)
        conn.execute(statement)
    conn.execute("PRAGMA user_version=1")
    old = [
        ("src/a.py:1:8: F401 [*] `os` imported but unused", "s1", "src/a.py"),
        ("src/b.py:2:8: F401 [*] `sys` imported but unused", "s2", "src/b.py"),
        ("lib/c.py:3:8: F401 [*] `re` imported but unused", "s3", "lib/c.py"),
    ]
    for i, (excerpt, session, rel) in enumerate(old):
        signature = excerpt.replace(rel, "<p>")
        conn.execute(
            "INSERT INTO failures (ts, session_id, tool, command, signature, category, paths,"
            " excerpt) VALUES (?, ?, 'Bash', 'ruff check .', ?, 'lint', ?, ?)",
            (100.0 + i, session, signature, json.dumps([rel]), excerpt),
        )
        conn.execute(
            "INSERT INTO signatures VALUES (?, 'lint', 1, 1, ?, ?, 'ruff check .', ?)",
            (signature, 100.0 + i, 100.0 + i, excerpt),
        )
        conn.execute("INSERT INTO group_sessions VALUES (?, ?, ?)", (signature, session, 100.0))
        conn.execute("INSERT INTO group_paths VALUES (?, 'fail', ?, 1)", (signature, rel))
    conn.close()
    with FailureStore(path) as store:
        [group] = store.failure_groups()
        assert group.signature == "ruff:F401"
        assert (group.sessions, group.occurrences) == (3, 3)
        assert group.paths == ("lib/c.py", "src/a.py", "src/b.py")
        assert {f.signature for f in store.failures()} == {"ruff:F401"}
