"""Which project files a failure involves: tool inputs, command words, tool output formats."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from pokayokay.failures.evidence_paths import MAX_PATHS, extract_paths, relative_path, root_aliases

ROOT = "/abs/project"

# (why, tool, tool_input, error, expected)
CASES: list[tuple[str, str, dict[str, Any], str, tuple[str, ...]]] = [
    (
        "pytest node id in the output and the command",
        "Bash",
        {"command": "pytest tests/test_cart.py::test_add -x"},
        "FAILED tests/test_cart.py::test_add - assert 1 == 2",
        ("tests/test_cart.py",),
    ),
    (
        "pytest node ids of several files, absolute and relative",
        "Bash",
        {"command": "pytest"},
        f"FAILED tests/test_a.py::test_x - boom\nERROR {ROOT}/tests/test_b.py::test_y - oops",
        ("tests/test_a.py", "tests/test_b.py"),
    ),
    (
        "Python traceback: project frames kept, stdlib and .venv frames dropped",
        "Bash",
        {"command": "python src/tool.py"},
        "Traceback (most recent call last):\n"
        f'  File "{ROOT}/src/tool.py", line 3, in <module>\n'
        '  File "/usr/lib/python3.11/json/__init__.py", line 346, in loads\n'
        f'  File "{ROOT}/.venv/lib/python3.11/site-packages/x/y.py", line 9, in f\n'
        f'  File "{ROOT}/src/util/parse.py", line 12, in parse\n'
        "ValueError: x",
        ("src/tool.py", "src/util/parse.py"),
    ),
    (
        "Node stack trace",
        "Bash",
        {"command": "node src/a.js"},
        "Error: boom\n"
        f"    at fn ({ROOT}/src/a.js:10:5)\n"
        f"    at Object.<anonymous> (file://{ROOT}/src/b.mjs:3:1)\n"
        f"    at {ROOT}/src/c.js:7:2\n"
        "    at Module._compile (node:internal/modules/cjs/loader:1105:14)\n"
        f"    at require ({ROOT}/node_modules/dep/index.js:1:1)",
        ("src/a.js", "src/b.mjs", "src/c.js"),
    ),
    (
        "gcc/clang diagnostics",
        "Bash",
        {"command": "make"},
        "src/a.c:12:5: error: expected ';' before '}' token\n"
        "include/a.h:3:1: note: declared here\nmake: *** [Makefile:3: all] Error 1",
        ("include/a.h", "src/a.c"),  # make's summary line names no file to fix
    ),
    (
        "tsc positions",
        "Bash",
        {"command": "npx tsc --noEmit"},
        "src/a.ts(3,4): error TS2322: Type 'string' is not assignable to type 'number'.\n"
        "src/components/App.tsx(10,1): error TS2304: Cannot find name 'x'.",
        ("src/a.ts", "src/components/App.tsx"),
    ),
    (
        "mypy and ruff locations",
        "Bash",
        {"command": "mypy src && ruff check ."},
        "src/a.py:3: error: Incompatible return value type  [return-value]\n"
        "src/b.py:3:1: F401 [*] `os` imported but unused",
        ("src/a.py", "src/b.py"),
    ),
    (
        "rustc arrows and panics",
        "Bash",
        {"command": "cargo test"},
        "error[E0308]: mismatched types\n  --> src/main.rs:3:5\n"
        "thread 'x' panicked at src/lib.rs:10:9:",
        ("src/lib.rs", "src/main.rs"),
    ),
    (
        "Jest FAIL lines",
        "Bash",
        {"command": "npx jest"},
        "FAIL src/cart.test.js\n  ● Cart › adds\nPASS src/ok.test.js",
        ("src/cart.test.js", "src/ok.test.js"),
    ),
    (
        "paths in the command",
        "Bash",
        {"command": "python src/tool.py --config setup.cfg"},
        "",
        ("setup.cfg", "src/tool.py"),
    ),
    (
        "command words that are not paths",
        "Bash",
        {"command": "git push origin main && npm run build -- --mode=prod 2>&1 | tail -n 20"},
        "",
        (),
    ),
    (
        "shell syntax and outside paths in the command",
        "Bash",
        {"command": "cat $HOME/x.txt /etc/passwd ../other/x.py src/*.py ~/notes.md docs/"},
        "",
        ("docs",),
    ),
    (
        "unbalanced quotes still give the words",
        "Bash",
        {"command": "python src/tool.py 'oops"},
        "",
        ("src/tool.py",),
    ),
    (
        "tool_input file_path",
        "Edit",
        {"file_path": f"{ROOT}/src/x.py", "old_string": "a", "new_string": "b"},
        "<tool_use_error>String to replace not found in file.</tool_use_error>",
        ("src/x.py",),
    ),
    (
        "tool_input notebook_path",
        "NotebookEdit",
        {"notebook_path": f"{ROOT}/nb/analysis.ipynb"},
        "Cell not found",
        ("nb/analysis.ipynb",),
    ),
    (
        "a file outside the project",
        "Edit",
        {"file_path": "/elsewhere/x.py"},
        "<tool_use_error>File has not been read yet.</tool_use_error>",
        (),
    ),
    (
        "a file inside a dependency folder that a tool was given explicitly",
        "Write",
        {"file_path": f"{ROOT}/node_modules/pkg/index.js"},
        "",
        ("node_modules/pkg/index.js",),
    ),
    (
        "any absolute path under the project in the output",
        "Bash",
        {"command": "./bin/run"},
        f"cannot open {ROOT}/data/input.csv: missing\nsee {ROOT}/README",
        ("README", "bin/run", "data/input.csv"),
    ),
    (
        "a sibling folder sharing the root's prefix is outside",
        "Bash",
        {"command": "make"},
        f'  File "{ROOT}2/src/x.py", line 3',
        (),
    ),
    (
        "URLs and versions are not paths",
        "Bash",
        {"command": "curl https://example.com/a.json"},
        "requests 2.31.0 at https://example.com/a.json:443 failed",
        (),
    ),
]


@pytest.mark.parametrize(
    ("why", "tool", "tool_input", "error", "expected"), CASES, ids=[c[0] for c in CASES]
)
def test_extract_paths(
    why: str, tool: str, tool_input: dict[str, Any], error: str, expected: tuple[str, ...]
) -> None:
    assert extract_paths(tool, tool_input, error, ROOT) == expected


def test_relative_paths_are_taken_relative_to_the_cwd() -> None:
    paths = extract_paths(
        "Bash",
        {"command": "pytest test_a.py"},
        "test_a.py:3: AssertionError\n../lib/util.py:9: in f",
        ROOT,
        cwd=f"{ROOT}/pkg",
    )
    assert paths == ("lib/util.py", "pkg/test_a.py")


def test_cd_out_of_the_project_drops_relative_paths() -> None:
    assert extract_paths("Bash", {"command": "cat a.txt"}, "", ROOT, cwd="/tmp") == ()


def test_paths_are_deduplicated_sorted_and_capped() -> None:
    error = "\n".join(f"src/m{n:03d}.py:1:1: F401 unused" for n in range(80, -1, -1))
    error += "\nsrc/m000.py:2:1: F401 unused"
    paths = extract_paths("Bash", {"command": "ruff check"}, error, ROOT)
    assert len(paths) == MAX_PATHS
    assert list(paths) == sorted(set(paths))
    assert paths[0] == "src/m000.py"


def test_missing_or_odd_tool_input_is_fine() -> None:
    assert extract_paths("Bash", None, "", ROOT) == ()
    assert extract_paths("Bash", {"command": 3, "file_path": None}, "", ROOT) == ()


@pytest.mark.parametrize(
    ("path", "cwd", "expected"),
    [
        (f"{ROOT}/src/a.py", None, "src/a.py"),
        ("src/a.py", None, "src/a.py"),
        ("./src/../src/a.py", None, "src/a.py"),
        ("a.py", f"{ROOT}/src", "src/a.py"),
        ("../../etc/passwd", f"{ROOT}/src", None),
        (ROOT, None, None),
        (f"{ROOT}/", None, None),
        (f"file://{ROOT}/src/a.js", None, "src/a.js"),
        ("/alias/project/src/a.py", None, "src/a.py"),
        ("", None, None),
        ("bad\0path", None, None),
    ],
)
def test_relative_path(path: str, cwd: str | None, expected: str | None) -> None:
    assert relative_path(path, ROOT, cwd=cwd, aliases=("/alias/project",)) == expected


def test_root_aliases_follow_symlinked_folders(tmp_path: Path) -> None:
    real = tmp_path / "real" / "project"
    (real / "sub").mkdir(parents=True)
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "real")
    root = os.path.realpath(real)
    aliases = root_aliases(root, [str(link / "project" / "sub"), str(link / "project"), root])
    assert aliases == (str(link / "project"),)
    error = f'File "{link}/project/sub/x.py", line 1'
    assert extract_paths("Bash", {}, error, root, aliases=aliases) == ("sub/x.py",)


def test_root_aliases_ignore_unrelated_and_relative_folders(tmp_path: Path) -> None:
    root = os.path.realpath(tmp_path)
    assert root_aliases(root, ["/", "relative/dir", "", str(tmp_path.parent)]) == ()


@pytest.mark.parametrize(
    ("why", "tool", "tool_input", "error", "expected"), CASES, ids=[c[0] for c in CASES]
)
def test_blank_lines_between_output_lines_change_nothing(
    why: str, tool: str, tool_input: dict[str, Any], error: str, expected: tuple[str, ...]
) -> None:
    spread = "\n\n\n".join(error.split("\n"))
    assert extract_paths(tool, tool_input, f"\n\n{spread}\n\n\n", ROOT) == expected, why
