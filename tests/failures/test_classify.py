"""The failure classifier: realistic (tool, command, error) triples and the category each gets."""

from __future__ import annotations

import pytest

from pokayokay.failures.classify import (
    BUILTIN_RULES,
    CATEGORIES,
    FALLBACK,
    Rule,
    classify,
    row,
    rules_from_settings,
)

PYTEST_FAIL = (
    "============ FAILURES ============\nE       assert 3 == 4\n"
    "FAILED tests/test_cart.py::test_add - assert 3 == 4\n=== 1 failed in 0.05s ==="
)

# (tool, command, error, category)
CASES = [
    # testing
    ("Bash", "pytest tests/test_cart.py", PYTEST_FAIL, "testing"),
    ("Bash", "uv run pytest -x -q", PYTEST_FAIL, "testing"),
    ("Bash", "python -m pytest", PYTEST_FAIL, "testing"),
    ("Bash", "npx jest src/cart.test.js", "FAIL src/cart.test.js\n  ● Cart › adds", "testing"),
    ("Bash", "npm test", "Tests:       1 failed, 4 passed, 5 total", "testing"),
    ("Bash", "go test ./...", "--- FAIL: TestAdd (0.00s)\nFAIL\texample.com/m\t0.002s", "testing"),
    ("Bash", "cargo test", "test result: FAILED. 0 passed; 1 failed", "testing"),
    ("Bash", "make test", "make: *** [Makefile:9: test] Error 1", "testing"),
    ("Bash", "./scripts/check.sh", PYTEST_FAIL, "testing"),
    # lint
    ("Bash", "ruff check .", "src/a.py:3:1: F401 [*] `os` imported but unused", "lint"),
    ("Bash", "npx eslint src", "/p/src/a.js\n  3:1  error  'x' is not defined  no-undef", "lint"),
    ("Bash", "flake8 src", "src/a.py:1:80: E501 line too long (88 > 79 characters)", "lint"),
    ("Bash", "ruff format --check .", "Would reformat: src/a.py", "lint"),
    ("Bash", "cargo clippy -- -D warnings", "error: this `if` has identical blocks", "lint"),
    ("Bash", "./lint.sh", "src/a.py:3:1: F401 `os` imported but unused\nFound 1 error.", "lint"),
    # types
    (
        "Bash",
        "mypy src",
        "src/a.py:3: error: Incompatible return value type  [return-value]",
        "types",
    ),
    ("Bash", "npx tsc --noEmit", "src/a.ts(3,4): error TS2322: Type 'string' is not", "types"),
    ("Bash", "pyright", "  /p/src/a.py:3:5 - error: Cannot access member", "types"),
    ("Bash", "npm run typecheck", "src/a.ts(3,4): error TS2322: Type 'string'", "types"),
    ("Bash", "./ci.sh", "src/a.ts(3,4): error TS2322: Type 'string' is not", "types"),
    # build
    ("Bash", "make", "src/a.c:12:5: error: expected ';' before '}' token", "build"),
    (
        "Bash",
        "cargo build --release",
        "error[E0308]: mismatched types\n --> src/main.rs:3:5",
        "types",  # a compiler's type error is types (decision 0080)
    ),
    (
        "Bash",
        "npx tsc --build",
        "error TS6305: Output file has not been built from source",
        "build",
    ),
    ("Bash", "gcc -o app main.c", "/usr/bin/ld: main.o: undefined reference to `foo'", "build"),
    ("Bash", "npm run build", "ERROR in ./src/index.js 3:0-20", "build"),
    ("Bash", "./build.sh", "collect2: error: ld returned 1 exit status", "build"),
    # dependencies
    (
        "Bash",
        "pip install requets",
        "ERROR: Could not find a version that satisfies the requirement requets",
        "dependencies",
    ),
    (
        "Bash",
        "npm install",
        "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve",
        "dependencies",
    ),
    (
        "Bash",
        "python src/tool.py",
        "ModuleNotFoundError: No module named 'requests'",
        "dependencies",
    ),
    ("Bash", "pytest", "E   ModuleNotFoundError: No module named 'httpx'", "dependencies"),
    ("Bash", "node src/a.js", "Error: Cannot find module 'express'", "dependencies"),
    ("Bash", "frobnicate --all", "sh: 1: frobnicate: not found", "dependencies"),
    (
        "Bash",
        "poetry add httpx",
        "Because demo depends on httpx (^9) which doesn't match",
        "dependencies",
    ),
    # git
    (
        "Bash",
        "git push",
        " ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs",
        "git",
    ),
    ("Bash", "git merge feature", "CONFLICT (content): Merge conflict in src/app.py", "git"),
    ("Bash", "git commit -m 'wip'", "ruff....Failed\n- hook id: ruff", "git"),
    (
        "Bash",
        "gh pr merge 12",
        "! [remote rejected] main -> main (protected branch hook declined)",
        "git",
    ),
    # edit
    (
        "Edit",
        None,
        "<tool_use_error>String to replace not found in file.\nString: zzz</tool_use_error>",
        "edit",
    ),
    (
        "Write",
        None,
        "<tool_use_error>File has not been read yet. Read it first.</tool_use_error>",
        "edit",
    ),
    ("NotebookEdit", None, "<tool_use_error>Cell not found</tool_use_error>", "edit"),
    # permissions
    ("Bash", "./deploy.sh", "bash: ./deploy.sh: Permission denied", "permissions"),
    (
        "Bash",
        "npm install -g typescript",
        "npm ERR! code EACCES\nnpm ERR! syscall mkdir",
        "permissions",
    ),
    (
        "Bash",
        "rm -rf build",
        "PreToolUse:Bash hook error: [rm -rf build]: use make clean",
        "permissions",
    ),
    ("Edit", None, "Permission to use Edit has been denied.", "permissions"),
    ("Bash", "pytest", "The user doesn't want to proceed with this tool use.", "permissions"),
    ("Write", None, "EACCES: permission denied, open '/etc/hosts'", "permissions"),
    # shell (fallback)
    ("Bash", "echo about-to-fail; exit 1", "about-to-fail", "shell"),
    ("Bash", "cat missing.txt", "cat: missing.txt: No such file or directory", "shell"),
    ("Bash", "curl -fsS http://localhost:8000/health", "curl: (7) Failed to connect", "shell"),
    ("mcp__db__query", None, 'relation "users" does not exist', "shell"),
]


@pytest.mark.parametrize(
    ("tool", "command", "error", "category"),
    CASES,
    ids=[f"{c[3]}:{c[1] or c[0]}" for c in CASES],
)
def test_builtin_table(tool: str, command: str | None, error: str, category: str) -> None:
    assert classify(tool, command, error) == category


def test_the_table_is_big_enough_and_covers_every_category() -> None:
    assert len(CASES) >= 25
    assert {case[3] for case in CASES} == set(CATEGORIES)
    assert FALLBACK == "shell"


def test_every_builtin_row_is_documented_and_uses_a_known_category() -> None:
    for rule in BUILTIN_RULES:
        assert rule.category in CATEGORIES
        assert rule.note
        assert rule.tool or rule.command or rule.error


def test_user_rows_come_first() -> None:
    rows = [{"category": "flaky", "error": r"Connection reset by peer"}]
    error = "FAILED tests/test_api.py::test_get - ConnectionResetError: Connection reset by peer"
    assert classify("Bash", "pytest", error) == "testing"
    assert classify("Bash", "pytest", error, extra_rules=rows) == "flaky"


def test_user_rows_can_match_on_command_and_tool() -> None:
    rows = rules_from_settings(
        [
            {"category": "testing", "command": r"\bhatch test\b"},
            {"category": "docs", "tool": "Bash", "command": r"mkdocs", "error": r"(?i)warning"},
        ]
    )
    assert classify("Bash", "hatch test", "1 session failed") == "shell"
    assert classify("Bash", "hatch test", "1 session failed", extra_rules=rows) == "testing"
    assert classify("Bash", "mkdocs build --strict", "WARNING - Doc file", extra_rules=rows) == (
        "docs"
    )
    # A row with a command never matches a tool call without one.
    assert classify("Edit", None, "mkdocs WARNING", extra_rules=rows) == "edit"


def test_a_row_needs_every_pattern_it_has_to_match() -> None:
    rule = row("docs", command="mkdocs", error="WARNING")
    assert isinstance(rule, Rule)
    assert rule.matches("Bash", "mkdocs build", "WARNING x")
    assert not rule.matches("Bash", "mkdocs build", "error x")
    assert not rule.matches("Bash", "make", "WARNING x")


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([{"category": "testing"}], "at least one of tool, command, error"),
        ([{"command": "x"}], "failure_categories[0].category: missing"),
        ([{"category": "Bad Name", "error": "x"}], "must be 1-40 characters"),
        ([{"category": "x", "error": "("}], "error: invalid regex"),
        ([{"category": "x", "error": 3}], "expected a string"),
        ([{"category": "x", "error": "y", "colour": "red"}], "unknown key(s) colour"),
        (["testing"], "expected a mapping"),
    ],
)
def test_bad_user_rows_name_the_row(rows: list[object], message: str) -> None:
    with pytest.raises(ValueError, match="failure_categories") as info:
        rules_from_settings(rows)  # type: ignore[arg-type]
    assert message in str(info.value)
