"""Classification edges from the field: test files run directly, compile errors under a test
runner, pokayokay's own documented exits, and the user's ``failure_categories:`` rows applied at
capture from their compiled JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers.hooks import run_hook

from pokayokay.config.settings import load_settings
from pokayokay.errors import SettingsError
from pokayokay.failures import user_categories
from pokayokay.failures.classify import classify, own_answer
from pokayokay.failures.store import FailureStore
from pokayokay.infra.state import project_state_dir
from pokayokay.learnings.outcomes.chain import read_transcript
from pokayokay.names import FAILURE_CATEGORIES_CACHE

USERS_TRACEBACK = """Traceback (most recent call last):
  File "/home/dev/api/tests/api/test_users.py", line 41, in <module>
    test_create_user_rejects_duplicate_email()
  File "/home/dev/api/tests/api/test_users.py", line 33, in test_create_user_rejects_duplicate_email
    resp = client.post("/users", json=payload)
KeyError: 'email'
"""

CARGO_E0308 = """   Compiling billing v0.3.1 (/home/dev/billing)
error[E0308]: mismatched types
  --> src/invoice.rs:42:24
   |
42 |         let total: u64 = line.amount * qty;
   |                    ---   ^^^^^^^^^^^^^^^^^ expected `u64`, found `f64`
   |                    |
   |                    expected due to this

For more information about this error, try `rustc --explain E0308`.
error: could not compile `billing` (lib test) due to 1 previous error
"""

GO_BUILD_FAILED = """# github.com/acme/billing/internal/invoice [acme/billing/internal/invoice.test]
internal/invoice/invoice_test.go:18:9: undefined: NewLedger
FAIL\tgithub.com/acme/billing/internal/invoice [build failed]
FAIL
"""

CARGO_ASSERT = """running 3 tests
test invoice::tests::totals_round_half_up ... FAILED

failures:

---- invoice::tests::totals_round_half_up stdout ----
thread 'invoice::tests::totals_round_half_up' panicked at src/invoice.rs:88:9:
assertion `left == right` failed
  left: 1049
 right: 1050

test result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out
"""


@pytest.mark.parametrize(
    "command",
    [
        "python3 tests/api/test_users.py",
        "python tests/test_cart.py -v",
        ".venv/bin/python tests/api/test_users.py",
        "cd api && python3 -X dev tests/api/users_test.py",
        "node src/cart/cart.test.js",
        "npx tsx src/api/client.spec.ts",
    ],
)
def test_a_test_file_run_directly_is_testing(command: str) -> None:
    assert classify("Bash", command, USERS_TRACEBACK) == "testing"


def test_a_script_that_is_not_a_test_stays_shell() -> None:
    assert classify("Bash", "python3 scripts/seed_users.py", USERS_TRACEBACK) == "shell"
    assert classify("Bash", "python3 contest.py", USERS_TRACEBACK) == "shell"


@pytest.mark.parametrize(
    ("command", "output", "category"),
    [
        # rustc's type errors are types whatever ran them (decision 0080)
        ("cargo test", CARGO_E0308, "types"),
        ("cargo test --package billing invoice", CARGO_E0308, "types"),
        ("go test ./internal/...", GO_BUILD_FAILED, "build"),
        ("cargo test", CARGO_ASSERT, "testing"),
        ("cargo build", CARGO_E0308, "types"),
    ],
)
def test_compile_errors_under_a_test_runner_are_build(
    command: str, output: str, category: str
) -> None:
    assert classify("Bash", command, output) == category


@pytest.mark.parametrize(
    ("command", "code", "answer"),
    [
        ('pokayokay remember "Use uv run pytest, not pytest" --mode model', 5, True),
        ('pokayokay remember "Use uv run pytest, not pytest" --mode model', 6, True),
        ('cd /home/dev/api && pokayokay remember "x y z" --mode model', 5, True),
        ('/home/dev/.local/bin/pokayokay remember "x y z" --mode model', 5, True),
        ('python -m pokayokay remember "x y z" --mode model', 5, True),
        ("pokayokay curate --check", 1, True),
        ('pokayokay remember "too short"', 2, False),  # bad input is a real failure
        ("pokayokay curate", 3, False),
        ("pokayokay doctor", 1, False),
        ('pokayokay remember "x y z" --mode model | tee out.txt', 5, False),
        ("pytest tests/test_pokayokay_remember.py", 5, False),
        ("make remember", 5, False),
    ],
)
def test_own_answers(command: str, code: int, answer: bool) -> None:
    assert own_answer(command, code) is answer


def _bash_failure(project: Path, command: str, error: str, n: int = 1) -> dict[str, Any]:
    return {
        "session_id": "9d3f0a51-6b1e-4d0c-a7d4-2f6f2d1e0b11",
        "transcript_path": str(project / "t.jsonl"),
        "cwd": str(project),
        "permission_mode": "default",
        "hook_event_name": "PostToolUseFailure",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "run"},
        "tool_use_id": f"toolu_01Edge{n:04d}",
        "error": error,
        "is_interrupt": False,
    }


def _recorded(project: Path) -> list[tuple[str, str | None]]:
    store = FailureStore.for_project(str(project))
    if not store.path.exists():
        return []
    with store:
        return [(f.category, f.command) for f in store.failures()]


def test_pokayokays_ask_first_answer_is_not_recorded(project: Path) -> None:
    command = 'pokayokay remember "Prefer the venv interpreter for the API tests" --mode model'
    answer = (
        "Exit code 5\nNot stored: model-initiated capture is ask-first (capture_mode), so this "
        "learning waits for the user's approval."
    )
    code, _, err = run_hook("PostToolUseFailure", _bash_failure(project, command, answer))
    assert (code, err) == (0, "")
    assert _recorded(project) == []
    # A real failure of the same program is recorded.
    bad = "Exit code 2\npokayokay: error: --category: expected one of anti-patterns, patterns"
    run_hook("PostToolUseFailure", _bash_failure(project, command + " --category x", bad, 2))
    assert [c for c, _ in _recorded(project)] == ["shell"]


def test_pokayokays_answer_does_not_mark_the_session_failed() -> None:
    command = 'pokayokay remember "Run the API tests with uv run pytest" --mode model'
    lines = [
        json.dumps({"type": "user", "message": {"content": "add the users endpoint"}}),
        json.dumps(
            {
                "type": "assistant",
                "message": {
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "toolu_a",
                            "name": "Bash",
                            "input": {"command": command},
                        },
                    ]
                },
            }
        ),
        json.dumps(
            {
                "type": "user",
                "message": {
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "toolu_a",
                            "is_error": True,
                            "content": "Exit code 5\nNot stored: model-initiated capture is "
                            "ask-first (capture_mode)",
                        }
                    ]
                },
            }
        ),
    ]
    assert read_transcript(lines, "/home/dev/api").last_command_failed is False
    failed = [*lines[:2], lines[2].replace("Exit code 5", "Exit code 2")]
    assert read_transcript(failed, "/home/dev/api").last_command_failed is True


SETTINGS = """---
failure_categories:
  - category: migrations
    command: 'alembic|manage\\.py migrate'
  - category: flaky-network
    error: '(?i)connection reset by peer|ECONNRESET'
---
Team settings.
"""


def test_user_rows_apply_at_capture_from_compiled_json(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / ".claude").mkdir()
    settings_file = project / ".claude" / "pokayokay.md"
    settings_file.write_text(SETTINGS, encoding="utf-8")
    error = "Exit code 1\nsqlalchemy.exc.OperationalError: no such table: users"
    run_hook("PostToolUseFailure", _bash_failure(project, "alembic upgrade head", error, 1))
    cache = project_state_dir(str(project)) / FAILURE_CATEGORIES_CACHE
    compiled = json.loads(cache.read_text(encoding="utf-8"))
    assert [row["category"] for row in compiled["rows"]] == ["migrations", "flaky-network"]

    # While the settings are unchanged, capture never parses YAML again.
    def no_yaml(root: str) -> Any:
        raise AssertionError("settings parsed on the hot path")

    net = "Exit code 1\nrequests.exceptions.ConnectionError: ECONNRESET"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(user_categories, "_compile", no_yaml)
        run_hook("PostToolUseFailure", _bash_failure(project, "python3 scripts/sync.py", net, 2))
    assert [c for c, _ in _recorded(project)] == ["migrations", "flaky-network"]

    # A changed settings file is compiled again.
    settings_file.write_text(SETTINGS.replace("flaky-network", "network"), encoding="utf-8")
    run_hook("PostToolUseFailure", _bash_failure(project, "python3 scripts/sync.py", net, 3))
    assert [c for c, _ in _recorded(project)][-1] == "network"


def test_a_broken_settings_file_still_records_with_the_built_in_table(project: Path) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "pokayokay.md").write_text(
        "---\nfailure_categories:\n  - category: Bad Name\n    error: x\n---\n", encoding="utf-8"
    )
    error = "Exit code 1\nFAILED tests/test_cart.py::test_add - assert 3 == 4"
    run_hook("PostToolUseFailure", _bash_failure(project, "pytest tests/test_cart.py", error))
    assert [c for c, _ in _recorded(project)] == ["testing"]


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ("  - category: db\n", "needs at least one of tool, command, error"),
        ("  - category: Bad Name\n    error: x\n", "row 1.category"),
        ("  - category: db\n    error: '(unclosed'\n", "row 1.error: invalid regex"),
        ("  - category: db\n    when: x\n", "unknown key(s) when"),
        ("  - just a string\n", "row 1: expected a mapping"),
    ],
)
def test_settings_accept_failure_categories_and_name_bad_rows(
    tmp_path: Path, rows: str, message: str
) -> None:
    (tmp_path / ".claude").mkdir()
    path = tmp_path / ".claude" / "pokayokay.md"
    path.write_text(SETTINGS, encoding="utf-8")
    settings = load_settings(tmp_path)
    assert settings.failure_categories[0] == {
        "category": "migrations",
        "command": "alembic|manage\\.py migrate",
    }
    assert settings.warnings == ()
    path.write_text(f"---\nfailure_categories:\n{rows}---\n", encoding="utf-8")
    with pytest.raises(SettingsError, match="failure_categories") as raised:
        load_settings(tmp_path)
    assert message in raised.value.message
