"""Failure signatures: the same failure from different runs normalises equal, different failures
do not. Table-driven: each row is a realistic pair of tool outputs."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pokayokay.failures.signature import (
    MAX_SIGNATURE,
    command_key,
    key_lines,
    normalise,
    short_id,
)

ROOT = "/home/dev/project"

PYTEST_RUN = """\
============================= test session starts ==============================
platform linux -- Python 3.11.7, pytest-8.0.{patch}, pluggy-1.4.0
rootdir: {root}
collected {collected} items

tests/test_cart.py .F.                                                   [100%]

=================================== FAILURES ===================================
___________________________________ test_add ___________________________________

    def test_add():
>       assert add({a}, 2) == 4
E       assert {total} == 4
E        +  where {total} = add({a}, 2)

tests/test_cart.py:{line}: AssertionError
=========================== short test summary info ============================
FAILED tests/test_cart.py::test_add - assert {total} == 4
========================= 1 failed, {passed} passed in {secs}s =========================
"""


def pytest_run(**overrides: object) -> str:
    values: dict[str, object] = dict(
        patch=0, root=ROOT, collected=3, a=1, total=3, line=5, passed=2, secs="0.05"
    )
    values.update(overrides)
    return PYTEST_RUN.format(**values)


TRACEBACK = """\
Traceback (most recent call last):
  File "{root}/src/tool.py", line {line}, in <module>
    main()
  File "{root}/src/tool.py", line 2, in main
    raise ValueError(f"bad value {{x}} at {{hex(id(x))}}")
ValueError: bad value {value} at {addr}
"""

# (why, first, second): the same failure seen in two runs.
EQUAL = [
    (
        "pytest: durations, counts, values and line numbers differ",
        pytest_run(),
        pytest_run(patch=2, collected=4, a=2, total=4, line=7, passed=3, secs="1.27"),
    ),
    (
        "pytest run from a different checkout of the project",
        pytest_run(),
        pytest_run(root="/home/dev/project"),
    ),
    (
        "Python traceback: numbers and memory addresses",
        TRACEBACK.format(root=ROOT, line=3, value=41, addr="0x7f3a2b1c90d0"),
        TRACEBACK.format(root=ROOT, line=9, value=7, addr="0x7ff01e2d4a60"),
    ),
    (
        "the Bash 'Exit code N' header is not part of the signature",
        'Exit code 1\nerror: could not compile `demo` (bin "demo") due to 2 previous errors',
        'Exit code 101\nerror: could not compile `demo` (bin "demo") due to 5 previous errors',
    ),
    (
        "pytest temporary folders",
        "E   FileNotFoundError: [Errno 2] No such file or directory: "
        "'/tmp/pytest-of-dev/pytest-12/test_load0/data.json'",
        "E   FileNotFoundError: [Errno 2] No such file or directory: "
        "'/tmp/pytest-of-dev/pytest-13/test_load1/data.json'",
    ),
    (
        "macOS temporary folders",
        "OSError: cannot write /var/folders/xy/abc123_def/T/tmpk2j3/out.bin",
        "OSError: cannot write /private/var/folders/qq/zz9_x/T/tmp8812/out.bin",
    ),
    (
        "a $TMPDIR outside /tmp, given as temp_dirs",
        "RuntimeError: lock held: /home/dev/run/tmp/claude-0/job-3/lock",
        "RuntimeError: lock held: /home/dev/run/tmp/claude-0/job-17/lock",
    ),
    (
        "UUIDs",
        "KeyError: 'session 0ebb4b7c-7011-44b6-afdb-8302b6c943e8 not found'",
        "KeyError: 'session 229350d4-f174-4123-a6e3-9f30f0b76b75 not found'",
    ),
    (
        "ISO timestamps and clock times",
        "2026-11-22T04:14:19.123Z ERROR worker crashed at 04:14:19",
        "2026-11-23T18:02:55.004Z ERROR worker crashed at 18:02:55",
    ),
    (
        "git hashes",
        "fatal: bad object 3f2a9c1d0b7e",
        "fatal: bad object a81b00c9d2f4",
    ),
    (
        "durations written out",
        "Error: Timeout of 2000ms exceeded after 2.51 seconds",
        "Error: Timeout of 5000ms exceeded after 5.02 seconds",
    ),
    (
        "ruff: line and column numbers",
        "src/a.py:3:1: F401 [*] `os` imported but unused",
        "src/a.py:12:5: F401 [*] `os` imported but unused",
    ),
    (
        "absolute project path versus relative path",
        f"{ROOT}/src/a.c:12:5: error: expected ';' before '}}' token",
        "src/a.c:40:1: error: expected ';' before '}' token",
    ),
    (
        "tsc positions",
        "src/a.ts(3,4): error TS2322: Type 'string' is not assignable to type 'number'.",
        "src/a.ts(30,14): error TS2322: Type 'string' is not assignable to type 'number'.",
    ),
    (
        "ANSI colours and carriage returns",
        "\x1b[31mFAILED\x1b[0m tests/test_x.py::test_y - assert 1 == 2\r\n",
        "FAILED tests/test_x.py::test_y - assert 5 == 2\n",
    ),
    (
        "npm: the debug log path carries a timestamp",
        "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree\n"
        "npm ERR! A complete log of this run can be found in:\n"
        "npm ERR!     /home/dev/.npm/_logs/2026-11-22T04_14_19_345Z-debug-0.log",
        "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree\n"
        "npm ERR! A complete log of this run can be found in:\n"
        "npm ERR!     /home/dev/.npm/_logs/2026-11-23T09_00_01_002Z-debug-0.log",
    ),
    (
        "Go test: durations",
        "--- FAIL: TestAdd (0.00s)\n    add_test.go:9: got 3 want 4\nFAIL\n"
        "FAIL\texample.com/m\t0.002s",
        "--- FAIL: TestAdd (0.01s)\n    add_test.go:9: got 5 want 4\nFAIL\n"
        "FAIL\texample.com/m\t0.013s",
    ),
    (
        "Rust panic locations",
        "thread 'tests::it_works' panicked at src/lib.rs:10:9:\n"
        "error: test failed, to rerun pass `--lib`",
        "thread 'tests::it_works' panicked at src/lib.rs:12:5:\n"
        "error: test failed, to rerun pass `--lib`",
    ),
    (
        "Edit validation error: the quoted old string varies",
        "<tool_use_error>String to replace not found in file.\nString: zzz</tool_use_error>",
        "<tool_use_error>String to replace not found in file.\nString: def main():"
        "</tool_use_error>",
    ),
    (
        "PreToolUse hook denial: the denied command varies",
        "PreToolUse:Bash hook error: [pytest -x]: Use `uv run pytest` here",
        "PreToolUse:Bash hook error: [pytest tests/test_cart.py]: Use `uv run pytest` here",
    ),
    (
        "permission rule denial: the command varies",
        "Permission to use Bash with command rm -rf build has been denied.",
        "Permission to use Bash with command rm -rf dist has been denied.",
    ),
    (
        "site-packages of different virtual environments",
        'E   File "/home/a/.venv/lib/python3.11/site-packages/requests/api.py", line 3\n'
        "E   requests.exceptions.ConnectionError: refused",
        'E   File "/opt/venvs/x/lib/python3.12/site-packages/requests/api.py", line 9\n'
        "E   requests.exceptions.ConnectionError: refused",
    ),
]

# (why, first, second): different failures.
DIFFERENT = [
    (
        "different exception types",
        "ValueError: bad input",
        "TypeError: bad input",
    ),
    (
        "different failing tests",
        "FAILED tests/test_cart.py::test_add - assert 3 == 4",
        "FAILED tests/test_cart.py::test_remove - assert 3 == 4",
    ),
    (
        "different test files",
        "FAILED tests/test_cart.py::test_add - assert 3 == 4",
        "FAILED tests/test_order.py::test_add - assert 3 == 4",
    ),
    (
        "different TypeScript errors",
        "src/a.ts(3,4): error TS2322: Type 'string' is not assignable to type 'number'.",
        "src/a.ts(3,4): error TS2345: Argument of type 'string' is not assignable.",
    ),
    (
        "different ruff codes",
        "src/a.py:3:1: F401 [*] `os` imported but unused",
        "src/a.py:3:1: E501 Line too long (120 > 100)",
    ),
    (
        "different missing modules",
        "ModuleNotFoundError: No module named 'requests'",
        "ModuleNotFoundError: No module named 'httpx'",
    ),
    (
        "different npm error codes",
        "npm ERR! code ERESOLVE",
        "npm ERR! code E404",
    ),
    (
        "a missing file versus a permission problem",
        "cat: setup.cfg: No such file or directory",
        "cat: setup.cfg: Permission denied",
    ),
    (
        "different Edit validation errors",
        "<tool_use_error>String to replace not found in file.\nString: x</tool_use_error>",
        "<tool_use_error>File has not been read yet. Read it first before writing to it."
        "</tool_use_error>",
    ),
    (
        "a git rejection versus a merge conflict",
        " ! [rejected]        main -> main (fetch first)",
        "CONFLICT (content): Merge conflict in src/app.py",
    ),
    (
        "different hook messages",
        "PreToolUse:Bash hook error: [pytest]: Use `uv run pytest` here",
        "PreToolUse:Bash hook error: [pip install x]: Use `uv add` here",
    ),
    (
        "same error, different source files",
        "src/a.c:12:5: error: expected ';'",
        "src/b.c:12:5: error: expected ';'",
    ),
]


def sig(text: str) -> str:
    return normalise(text, project_roots=[ROOT], temp_dirs=["/home/dev/run/tmp"])


@pytest.mark.parametrize(("why", "first", "second"), EQUAL, ids=[row[0] for row in EQUAL])
def test_same_failure_in_different_runs_normalises_equal(why: str, first: str, second: str) -> None:
    assert sig(first) == sig(second) != ""


@pytest.mark.parametrize(("why", "first", "second"), DIFFERENT, ids=[row[0] for row in DIFFERENT])
def test_different_failures_normalise_differently(why: str, first: str, second: str) -> None:
    assert sig(first) != sig(second)
    assert sig(first) and sig(second)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (pytest_run(), "FAILED tests/test_cart.py::test_add - assert <n> == <n>"),
        (
            TRACEBACK.format(root=ROOT, line=3, value=41, addr="0x7f3a2b1c"),
            "ValueError: bad value <n> at 0x<hex>",
        ),
        (
            "<tool_use_error>String to replace not found in file.\nString: zzz</tool_use_error>",
            "String to replace not found in file.",
        ),
        (
            "PreToolUse:Bash hook error: [rm -rf build]: Use make clean",
            "PreToolUse:Bash hook error: [<command>]: Use make clean",
        ),
        (
            "Permission to use Bash with command rm -rf / has been denied.",
            "Permission to use Bash has been denied",
        ),
        (
            "The user doesn't want to proceed with this tool use. The tool use was rejected.",
            "The user doesn't want to proceed with this tool use.",
        ),
        ("Exit code 1\nabout-to-fail", "about-to-fail"),
        (
            "E   assert {'a': 1} == {'a': 2}\nE     Differing items:",
            "E assert {'a': <n>} == {'a': <n>} | E Differing items:",
        ),
        ("sh: 1: frobnicate: not found", "sh: <n>: frobnicate: not found"),
        (
            f"{ROOT}/src/a.py:3: error: Incompatible return value type  [return-value]\n"
            "Found 1 error in 1 file (checked 3 source files)",
            "src/a.py:<n>: error: Incompatible return value type [return-value]",
        ),
        ("", ""),
        ("\n\n   \n", ""),
        ("=========\n---------", ""),
    ],
)
def test_signature_keeps_the_meaningful_lines(text: str, expected: str) -> None:
    assert sig(text) == expected


def test_meaningful_lines_are_picked_by_tier_and_capped() -> None:
    # Tier 0 lines win over pytest's E lines; at most three distinct lines are kept.
    text = "\n".join(
        ["E   assert 1 == 2"] + [f"FAILED tests/test_{n}.py::test_x - boom" for n in "abcde"]
    )
    result = sig(text)
    assert result.split(" | ") == [
        "FAILED tests/test_a.py::test_x - boom",
        "FAILED tests/test_b.py::test_x - boom",
        "FAILED tests/test_c.py::test_x - boom",
    ]


def test_duplicate_lines_after_normalisation_count_once() -> None:
    text = "\n".join(f"FAILED tests/test_p.py::test_x[{n}] - assert {n} > 9" for n in range(5))
    assert sig(text) == "FAILED tests/test_p.py::test_x[<n>] - assert <n> > <n>"


def test_signature_is_one_bounded_line() -> None:
    text = "ValueError: " + "x" * 5000 + "\n" + "KeyError: " + "y" * 5000
    result = sig(text)
    assert "\n" not in result
    assert len(result) <= MAX_SIGNATURE


def test_digits_glued_to_words_are_kept() -> None:
    assert sig("src/a.ts(1,2): error TS2322: bad") == "src/a.ts(<n>): error TS2322: bad".replace(
        "(<n>)", "(<n>,<n>)"
    )
    assert sig("E501 python3 test_2 x86_64 failed") == "E501 python3 test_2 x86_64 failed"


def test_paths_outside_the_project_under_home_become_tilde() -> None:
    assert sig("Error: cannot read /home/someone/.config/tool.json") == (
        "Error: cannot read ~/.config/tool.json"
    )


def test_project_root_prefix_does_not_eat_a_sibling_folder() -> None:
    assert sig(f"Error: cannot read {ROOT}2/x.py") == "Error: cannot read ~/project2/x.py"
    assert sig(f"Error: cannot read {ROOT}") == "Error: cannot read ."


def test_key_lines_keep_the_real_values_for_excerpts() -> None:
    assert key_lines(pytest_run(), project_roots=[ROOT]) == [
        "FAILED tests/test_cart.py::test_add - assert 3 == 4"
    ]
    assert key_lines(f"ValueError: bad {ROOT}/src/a.py 42", project_roots=[ROOT]) == [
        "ValueError: bad src/a.py 42"
    ]


@pytest.mark.parametrize(
    ("command", "key"),
    [
        ("pytest  tests/test_cart.py", "pytest tests/test_cart.py"),
        ("  npm\ttest\n", "npm test"),
        ("pytest | tail -5", "pytest | tail -5"),
        ("", ""),
    ],
)
def test_command_key_collapses_whitespace_only(command: str, key: str) -> None:
    assert command_key(command) == key
    assert command_key(key) == key


def test_short_id_is_stable_and_short() -> None:
    assert short_id("FAILED x") == short_id("FAILED x")
    assert short_id("FAILED x") != short_id("FAILED y")
    assert re.fullmatch(r"[0-9a-f]{12}", short_id("anything"))


@given(
    st.lists(st.integers(min_value=0, max_value=10**9), min_size=4, max_size=4),
    st.lists(st.integers(min_value=0, max_value=10**9), min_size=4, max_size=4),
)
def test_numbers_never_change_a_signature(a: list[int], b: list[int]) -> None:
    template = (
        "Exit code {0}\ntests/test_x.py:{1}: in test_y\n"
        "E   AssertionError: expected {2} items, got {3}\n"
        "FAILED tests/test_x.py::test_y - AssertionError: expected {2} items, got {3}"
    )
    assert normalise(template.format(*a)) == normalise(template.format(*b))


@given(st.text(max_size=2000))
def test_any_text_gives_one_bounded_line(text: str) -> None:
    result = normalise(text, project_roots=[ROOT])
    assert "\n" not in result and "\r" not in result
    assert len(result) <= MAX_SIGNATURE
    assert result == result.strip()
