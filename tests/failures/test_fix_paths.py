"""Where the fix goes (pokayokay.failures.fix_paths), on real tool output shapes in a real
project folder (``WorkTree``): summary lines name nothing, a mistake of the command keeps no
file, a file outside eslint's configuration is fixed in the configuration, and a failing test
that names only its test file brings the module it tests, by each ecosystem's convention."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pokayokay.failures.evidence_paths import WorkTree, extract_paths
from pokayokay.failures.fix_paths import (
    fixed_by_the_command,
    modules_under_test,
    without_summaries,
)


def make(root: Path, *names: str) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n", encoding="utf-8")


def paths(root: Path, command: str, error: str, *, test_run: bool = False) -> tuple[str, ...]:
    return extract_paths(
        "Bash",
        {"command": command},
        error,
        str(root),
        cwd=str(root),
        files=WorkTree(str(root)),
        test_run=test_run,
    )


_LINE = st.text(st.characters(blacklist_characters="\n\r"), max_size=60)


@given(st.lists(_LINE, max_size=8), st.integers(0, 3), st.integers(1, 200))
def test_only_summary_lines_are_blanked_and_lengths_are_kept(
    lines: list[str], depth: int, line_no: int
) -> None:
    make_name = "make" if depth == 0 else f"make[{depth}]"
    summary = f"{make_name}: *** [Makefile:{line_no}: build/app] Error 2"
    output = "\n".join([*lines, summary, *lines])
    blanked = without_summaries(output)
    assert len(blanked) == len(output)
    assert "Makefile" not in blanked.split("\n")[len(lines)]
    for before, after in zip(output.split("\n"), blanked.split("\n"), strict=True):
        if not after.strip() and before.strip():
            assert before.startswith(("make: ***", "make[")) or "*** [" in before
        else:
            assert after == before


def test_makes_summary_names_no_file_but_the_compiler_lines_do(project: Path) -> None:
    make(project, "Makefile", "src/ring.c", "include/ring.h")
    error = (
        "Exit code 2\ncc -Wall -Iinclude -c src/ring.c -o build/ring.o\n"
        "src/ring.c:14:5: error: 'count' undeclared (first use in this function)\n"
        "make: *** [Makefile:9: build/ring.o] Error 1"
    )
    assert paths(project, "make", error) == ("src/ring.c",)
    # a Makefile that is itself wrong is still named (its own error line, not the summary)
    broken = "Makefile:3: *** missing separator.  Stop."
    assert paths(project, "make", broken) == ("Makefile",)


@pytest.mark.parametrize(
    ("command", "output"),
    [
        (  # pytest from an interpreter without the project installed
            "python3 -m pytest tests/test_report.py",
            "ImportError while importing test module '{root}/tests/test_report.py'.\n"
            "tests/test_report.py:3: in <module>\n    from shopcart import Cart\n"
            "E   ModuleNotFoundError: No module named 'shopcart'\nERROR tests/test_report.py",
        ),
        (
            "/usr/bin/python3 -m pytest tests/test_report.py",
            "/usr/bin/python3: No module named pytest",
        ),
        (
            "clang -Wall -Iinclude -c src/util.c -o build/util.o",
            "error: unable to open output file 'build/util.o': 'No such file or directory'\n"
            "1 error generated.",
        ),
    ],
)
def test_a_mistake_of_the_command_keeps_no_file(project: Path, command: str, output: str) -> None:
    make(project, "src/shopcart/__init__.py", "tests/test_report.py", "src/util.c")
    output = output.replace("{root}", str(project))
    assert paths(project, command, output) == ()


def test_a_missing_third_party_module_or_submodule_is_not_the_command(project: Path) -> None:
    make(project, "src/shopcart/__init__.py", "tests/test_report.py")
    files = WorkTree(str(project))
    assert fixed_by_the_command("ModuleNotFoundError: No module named 'shopcart'", files)
    assert not fixed_by_the_command("ModuleNotFoundError: No module named 'requests'", files)
    # a typo'd submodule is fixed in the file importing it
    assert not fixed_by_the_command("ModuleNotFoundError: No module named 'shopcart.carts'", files)
    error = (
        "tests/test_report.py:3: in <module>\nE   ModuleNotFoundError: No module named 'requests'"
    )
    assert paths(project, "pytest tests/test_report.py", error) == ("tests/test_report.py",)


def test_a_file_eslint_ignores_is_fixed_in_its_config(project: Path) -> None:
    make(project, "eslint.config.mjs", "src/totals.ts")
    error = (
        f"\n{project}/src/totals.ts\n"
        "  0:0  warning  File ignored because no matching configuration was supplied\n\n"
        "✖ 1 problem (0 errors, 1 warning)\n"
    )
    assert paths(project, "npx eslint src/totals.ts", error) == ("eslint.config.mjs",)


@pytest.mark.parametrize(
    ("test_file", "source"),
    [
        ("tests/test_cart.py", "src/shop/cart.py"),
        ("tests/cart_test.py", "src/shop/cart.py"),
        ("vtests/format.test.js", "lib/format.js"),
        ("src/cart/cart.spec.ts", "src/cart/cart.ts"),
        ("stock/stock_test.go", "stock/stock.go"),
    ],
)
def test_a_failing_test_brings_the_module_it_tests(
    project: Path, test_file: str, source: str
) -> None:
    make(project, test_file, source, "README.md")
    error = f"FAILED {test_file}::test_x - AssertionError: assert 1 == 2\n{test_file}:14: Error"
    assert paths(project, "run the tests", error, test_run=True) == tuple(
        sorted((test_file, source))
    )
    # a lint finding in the same test file is the test file's alone
    lint = f"{test_file}:1:1: F401 `os` imported but unused"
    assert paths(project, "ruff check", lint) == (test_file,)


def test_no_module_when_a_frame_reached_the_source_or_the_name_is_ambiguous(
    project: Path,
) -> None:
    make(project, "tests/test_cart.py", "src/shop/cart.py", "src/legacy/cart.py", "lib/orders.js")
    files = WorkTree(str(project))
    assert modules_under_test(["tests/test_cart.py"], files) == set()  # two cart.py
    make(project, "tests/totals.test.js", "lib/totals.js")
    # the stack reached lib/orders.js: the fix is there, not in a file found by name
    assert modules_under_test(["lib/orders.js", "tests/totals.test.js"], files) == set()
    assert modules_under_test(["tests/totals.test.js"], files) == {"lib/totals.js"}
    # a Go test's module is in its own folder only
    make(project, "audit/sums_test.go", "report/sums.go")
    assert modules_under_test(["audit/sums_test.go"], files) == set()
