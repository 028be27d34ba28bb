"""Group keys: each failing output yields its real mistakes, one per rule code or test id, with
paths, line numbers and identifiers out of the key; summary lines are never a mistake.

Outputs are real (ruff and pytest runs saved under tests/data/outputs) or reproduce the exact
format of the tool named in the row."""

from __future__ import annotations

import re

import pytest
from helpers.paths import DATA_DIR
from hypothesis import given
from hypothesis import strategies as st
from ruamel.yaml import YAML

from pokayokay.failures.mistakes import MAX_MISTAKES, command_tool, find_mistakes
from pokayokay.failures.signature import normalise

OUTPUTS = DATA_DIR / "outputs"


def keys(output: str, command: str | None = None) -> list[str]:
    return [m.key for m in find_mistakes(output, command)]


CASES: list[tuple[str, str | None, str, list[str]]] = [
    (
        "ruff concise, three codes in two files",
        "ruff check --output-format concise src",
        "src/shop/cart.py:1:8: F401 [*] `os` imported but unused\n"
        "src/shop/cart.py:5:21: B006 Do not use mutable data structures for argument defaults\n"
        "src/shop/views.py:1:8: F401 [*] `json` imported but unused\n"
        "src/shop/cart.py:6:5: F841 Local variable `unused` is assigned to but never used\n"
        "Found 4 errors.\n[*] 2 fixable with the `--fix` option.\n",
        ["ruff:F401", "ruff:B006", "ruff:F841"],
    ),
    (
        "flake8",
        "flake8 src",
        "src/shop/views.py:41:80: E501 line too long (97 > 79 characters)\n"
        "src/shop/views.py:3:1: F401 'json' imported but unused\n",
        ["flake8:E501", "flake8:F401"],
    ),
    (
        "pylint",
        "pylint src/shop",
        "************* Module shop.views\n"
        "src/shop/views.py:1:0: C0114: Missing module docstring (missing-module-docstring)\n"
        "\n------------------------------------------------------------------\n"
        "Your code has been rated at 8.33/10\n",
        ["pylint:C0114"],
    ),
    (
        "mypy with error codes",
        "mypy src",
        'src/shop/views.py:5: error: Incompatible return value type (got "int", expected "str")'
        "  [return-value]\n"
        'src/shop/cart.py:12: error: Argument 1 to "add" has incompatible type "str"; '
        'expected "int"  [arg-type]\n'
        'src/shop/api.py:30: error: Argument 2 to "get" has incompatible type "None"; '
        'expected "str"  [arg-type]\n'
        "Found 3 errors in 3 files (checked 12 source files)\n",
        ["mypy:return-value", "mypy:arg-type"],
    ),
    (
        "pyright",
        "pyright",
        "/home/dev/shop/src/shop/views.py\n"
        '  /home/dev/shop/src/shop/views.py:12:16 - error: Cannot access attribute "totl" for '
        'class "Cart"\n    Attribute "totl" is unknown (reportAttributeAccessIssue)\n'
        '  /home/dev/shop/src/shop/views.py:20:5 - error: "x" is possibly unbound '
        "(reportPossiblyUnbound)\n"
        "2 errors, 0 warnings, 0 informations\n",
        ["pyright:reportAttributeAccessIssue", "pyright:reportPossiblyUnbound"],
    ),
    (
        "tsc, two files one code",
        "npx tsc --noEmit",
        "src/api/client.ts(14,7): error TS2322: Type 'string' is not assignable to type "
        "'number'.\n"
        "src/cart.ts(3,5): error TS2322: Type 'null' is not assignable to type 'Cart'.\n"
        "src/cart.ts(9,1): error TS2304: Cannot find name 'totl'.\n\n"
        "Found 3 errors in 2 files.\n",
        ["tsc:TS2322", "tsc:TS2304"],
    ),
    (
        "tsc pretty",
        "tsc",
        "src/cart.ts:3:5 - error TS2322: Type 'null' is not assignable to type 'Cart'.\n\n"
        "3 const c: Cart = null;\n      ~\n\nFound 1 error in src/cart.ts:3\n",
        ["tsc:TS2322"],
    ),
    (
        "eslint stylish",
        "npx eslint src",
        "\n/home/dev/web/src/app.tsx\n"
        "  3:10  error  'useMemo' is defined but never used  @typescript-eslint/no-unused-vars\n"
        "  9:3   error  React Hook useEffect has a missing dependency: 'id'  "
        "react-hooks/exhaustive-deps\n\n"
        "/home/dev/web/src/cart.ts\n"
        "  1:7  error  'x' is assigned a value but never used  no-unused-vars\n"
        "  2:1  warning  Unexpected console statement  no-console\n\n"
        "✖ 4 problems (3 errors, 1 warning)\n",
        [
            "eslint:@typescript-eslint/no-unused-vars",
            "eslint:react-hooks/exhaustive-deps",
            "eslint:no-unused-vars",
        ],
    ),
    (
        "rustc under cargo build",
        "cargo build",
        "   Compiling shop v0.1.0 (/home/dev/shop)\n"
        "error[E0308]: mismatched types\n --> src/cart.rs:12:20\n   |\n"
        "12 |     let total: u32 = price;\n   |                ---   ^^^^^ expected `u32`, "
        "found `f64`\n\n"
        "For more information about this error, try `rustc --explain E0308`.\n"
        'error: could not compile `shop` (bin "shop") due to 1 previous error\n',
        ["rustc:E0308"],
    ),
    (
        "compile error under cargo test is the compiler's, not a test id",
        "cargo test",
        "error[E0425]: cannot find value `totl` in this scope\n --> src/lib.rs:8:9\n"
        "error: could not compile `shop` (lib test) due to 1 previous error\n",
        ["rustc:E0425"],
    ),
    (
        "gcc with a warning flag",
        "make",
        "cc -Wall -Werror -c -o cart.o cart.c\n"
        "cart.c: In function 'total':\n"
        "cart.c:7:9: error: unused variable 'tmp' [-Werror=unused-variable]\n"
        "    7 |     int tmp = 0;\n      |         ^~~\n"
        "cc1: all warnings being treated as errors\n"
        "make: *** [<builtin>: cart.o] Error 1\n",
        ["cc:-Wunused-variable"],
    ),
    (
        "go build: identifiers out of the key",
        "go build ./...",
        "# example.com/shop/internal/billing\n"
        "internal/billing/invoice.go:14:2: undefined: totl\n"
        "internal/billing/tax.go:9:6: undefined: rate\n",
        ["go:undefined"],
    ),
    (
        "go vet",
        "go vet ./...",
        "# example.com/shop/internal/billing\n"
        "internal/billing/invoice.go:22:2: fmt.Printf format %d has arg name of wrong type "
        "string\n",
        ["go vet:fmt-printf-format-d-has-arg"],
    ),
    (
        "pytest: two failing tests, parameters dropped",
        "python -m pytest -q tests",
        (OUTPUTS / "pytest_two_failures.txt").read_text(encoding="utf-8"),
        [
            "test:tests/test_cart.py::test_normalise_keeps_trailing",
            "test:tests/test_cart.py::test_total",
        ],
    ),
    (
        "pytest collection error: the exception, not the file",
        "python -m pytest -q",
        "==================================== ERRORS ====================================\n"
        "______________________ ERROR collecting tests/test_cart.py ______________________\n"
        "ImportError while importing test module '/home/dev/shop/tests/test_cart.py'.\n"
        "Hint: make sure your test modules/packages have valid Python names.\n"
        "Traceback:\n"
        "tests/test_cart.py:1: in <module>\n    import attrs\n"
        "E   ModuleNotFoundError: No module named 'attrs'\n"
        "=========================== short test summary info ============================\n"
        "ERROR tests/test_cart.py\n"
        "!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!\n"
        "1 error in 0.06s\n",
        ["python:ModuleNotFoundError"],
    ),
    (
        "unittest",
        "python -m unittest",
        "F\n======================================================================\n"
        "FAIL: test_total (tests.test_cart.CartTest.test_total)\n"
        "----------------------------------------------------------------------\n"
        "Traceback (most recent call last):\n"
        '  File "/home/dev/shop/tests/test_cart.py", line 9, in test_total\n'
        "    self.assertEqual(total([(2, 3)]), 6)\nAssertionError: 5 != 6\n\n"
        "----------------------------------------------------------------------\n"
        "Ran 1 test in 0.001s\n\nFAILED (failures=1)\n",
        ["test:tests.test_cart.CartTest.test_total"],
    ),
    (
        "go test",
        "go test ./...",
        "--- FAIL: TestInvoiceTotal (0.00s)\n"
        "    invoice_test.go:42: got 5, want 6\n"
        "FAIL\nFAIL\texample.com/shop/internal/billing\t0.004s\nFAIL\n",
        ["test:TestInvoiceTotal"],
    ),
    (
        "cargo test",
        "cargo test",
        "running 2 tests\ntest cart::tests::adds ... ok\ntest cart::tests::total ... FAILED\n\n"
        "failures:\n\n---- cart::tests::total stdout ----\n"
        "thread 'cart::tests::total' panicked at src/cart.rs:30:9:\n"
        "assertion `left == right` failed\n  left: 5\n right: 6\n\n"
        "test result: FAILED. 1 passed; 1 failed; 0 ignored\n",
        ["test:cart::tests::total"],
    ),
    (
        "jest",
        "npx jest",
        "FAIL src/cart.test.ts\n  Cart\n    ✕ totals quantities (3 ms)\n\n"
        "  ● Cart › totals quantities\n\n    expect(received).toBe(expected) // Object.is "
        "equality\n\n    Expected: 6\n    Received: 5\n\n"
        "Tests:       1 failed, 3 passed, 4 total\n",
        ["test:src/cart.test.ts > Cart › totals quantities"],
    ),
    (
        "vitest",
        "npx vitest run",
        " FAIL  src/cart.test.ts > cart > totals quantities\n"
        "AssertionError: expected 5 to be 6 // Object.is equality\n"
        " Test Files  1 failed (1)\n      Tests  1 failed | 3 passed (4)\n",
        ["test:src/cart.test.ts > cart > totals quantities"],
    ),
    (
        "black",
        "black --check src",
        "would reformat src/shop/views.py\nwould reformat src/shop/cart.py\n\n"
        "Oh no! 💥 💔 💥\n2 files would be reformatted, 10 files would be left unchanged.\n",
        ["black:would-reformat"],
    ),
    (
        "prettier",
        "npx prettier --check .",
        "Checking formatting...\n[warn] src/api/client.ts\n[warn] src/cart.ts\n"
        "[warn] Code style issues found in 2 files. Run Prettier with --write to fix.\n",
        ["prettier:format"],
    ),
    (
        "npm ERESOLVE",
        "npm ci",
        "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree\n"
        "npm ERR! Found: react@18.2.0\n",
        ["npm:ERESOLVE"],
    ),
    (
        "git merge conflict",
        "git merge feature/cart",
        "Auto-merging src/shop/cart.py\n"
        "CONFLICT (content): Merge conflict in src/shop/cart.py\n"
        "Automatic merge failed; fix conflicts and then commit the result.\n",
        ["git:merge-conflict"],
    ),
    (
        "git push rejected",
        "git push origin main",
        "To github.com:acme/shop.git\n"
        " ! [rejected]        main -> main (non-fast-forward)\n"
        "error: failed to push some refs to 'github.com:acme/shop.git'\n",
        ["git:rejected-non-fast-forward"],
    ),
    (
        "a traceback outside tests",
        "python scripts/report.py",
        "Traceback (most recent call last):\n"
        '  File "/home/dev/shop/scripts/report.py", line 3, in <module>\n'
        "    import requests\nModuleNotFoundError: No module named 'requests'\n",
        ["python:ModuleNotFoundError"],
    ),
    (
        "mocha",
        "npx mocha test/orders.spec.js",
        "  Orders\n    1) totals a basket\n    ✔ lists orders\n\n\n  1 passing (12ms)\n"
        "  1 failing\n\n  1) Orders\n       totals a basket:\n\n"
        "      AssertionError [ERR_ASSERTION]: 29 == 30\n"
        "      at Context.<anonymous> (test/orders.spec.js:14:12)\n",
        ["test:Orders totals a basket"],
    ),
    (
        "rspec",
        "bundle exec rspec",
        "F\n\nFailures:\n\n  1) Basket#total adds tax\n"
        "     Failure/Error: expect(total).to eq(12)\n"
        "\n2 examples, 1 failure\n\nFailed examples:\n\n"
        "rspec ./spec/basket_spec.rb:7 # Basket#total adds tax\n",
        ["test:./spec/basket_spec.rb:7"],
    ),
    (
        "bun test",
        "bun test",
        "src/basket.test.ts:\n4 |   expect(total()).toBe(3);\n"
        "error: expect(received).toBe(expected)\n"
        "✗ basket > total [0.22ms]\n\n 0 pass\n 1 fail\n",
        ["test:src/basket.test.ts > basket > total"],
    ),
    (
        "a test file run directly",
        "python3 tests/api/test_orders.py",
        "Traceback (most recent call last):\n"
        '  File "/home/dev/shop/tests/api/test_orders.py", line 12, in <module>\n'
        "    assert order.total() == 30\nAssertionError\n",
        ["test:tests/api/test_orders.py"],
    ),
    (
        "clippy",
        "cargo clippy -- -D warnings",
        "error: using `clone` on type `u32` which implements the `Copy` trait\n"
        "  --> src/ledger.rs:8:17\n"
        "   = note: `-D clippy::clone-on-copy` implied by `-D warnings`\n",
        ["clippy:clone_on_copy"],
    ),
    (
        "shellcheck, two codes on one line",
        "shellcheck scripts/release.sh",
        "\nIn scripts/release.sh line 4:\ncp $SRC/* $DEST\n"
        "   ^--^ SC2086 (info): Double quote to prevent globbing and word splitting.\n"
        "           ^---^ SC2086 (info): Double quote to prevent globbing and word splitting.\n"
        "\nIn scripts/release.sh line 9:\ncd $DIR\n"
        "^-----^ SC2164 (warning): Use 'cd ... || exit'.\n",
        ["shellcheck:SC2086", "shellcheck:SC2164"],
    ),
    (
        "pnpm lockfile",
        "pnpm install --frozen-lockfile",
        " ERR_PNPM_OUTDATED_LOCKFILE  Cannot install with \"frozen-lockfile\" because "
        "pnpm-lock.yaml is not up to date with package.json\n",
        ["pnpm:ERR_PNPM_OUTDATED_LOCKFILE"],
    ),
    (
        "clang -Werror",
        "clang -Wall -Werror -c src/lexer.c",
        "src/lexer.c:30:7: error: unused variable 'len' [-Werror,-Wunused-variable]\n"
        "1 error generated.\n",
        ["clang:-Wunused-variable"],
    ),
    ("command not found: no key, the text decides", "pnpm test", "sh: 1: pnpm: not found\n", []),
    (
        "a JavaScript TypeError is not Python's",
        "node scripts/build.js",
        "/home/dev/web/scripts/build.js:4\n  const out = cfg.output.dir;\n"
        "TypeError: Cannot read properties of undefined (reading 'dir')\n"
        "    at Object.<anonymous> (/home/dev/web/scripts/build.js:4:26)\n",
        [],
    ),
]


@pytest.mark.parametrize(
    ("why", "command", "output", "expected"), CASES, ids=[c[0] for c in CASES]
)
def test_each_output_yields_its_mistakes(
    why: str, command: str | None, output: str, expected: list[str]
) -> None:
    assert keys(output, command) == expected


def test_real_ruff_full_output_is_one_mistake_per_code_with_its_own_paths() -> None:
    output = (OUTPUTS / "ruff_full.txt").read_text(encoding="utf-8")
    found = find_mistakes(output, "ruff check src")
    assert [m.key for m in found] == ["ruff:F401", "ruff:B006", "ruff:F841"]
    f401 = found[0]
    assert f401.line == "F401 [*] `os` imported but unused"
    assert "src/shop/cart.py:1:8" in f401.text and "src/shop/views.py:1:8" in f401.text
    assert "src/shop/views.py" not in found[1].text  # B006 is only in cart.py
    assert all("Found" not in m.text for m in found)


def test_the_same_code_in_other_files_and_lines_keeps_its_key() -> None:
    first = "src/a.py:1:8: F401 [*] `os` imported but unused\nFound 1 error.\n"
    second = "lib/deep/b.py:44:12: F401 [*] `typing.List` imported but unused\nFound 1 error.\n"
    assert keys(first, "ruff check .") == keys(second, "ruff check lib") == ["ruff:F401"]


def test_one_pytest_failure_keeps_the_whole_output_for_its_paths() -> None:
    output = (
        "F\n___ test_total ___\n\n"
        '  File "/home/dev/shop/src/cart.py", line 3, in total\n'
        "E   assert 5 == 6\n"
        "FAILED tests/test_cart.py::test_total - assert 5 == 6\n1 failed in 0.01s\n"
    )
    [mistake] = find_mistakes(output, "pytest")
    assert mistake.text == output


def test_summary_lines_are_never_a_signature() -> None:
    for summary in (
        "Found 1 error.\n[*] 1 fixable with the `--fix` option.",
        "Found 3 errors in 2 files (checked 9 source files)",
        "✖ 4 problems (3 errors, 1 warning)",
        "=== 2 failed, 1 passed in 0.31s ===",
        "Tests:       1 failed, 3 passed, 4 total",
        "error: could not compile `shop` (bin \"shop\") due to 2 previous errors",
    ):
        assert normalise(summary) == "", summary


def test_the_number_of_mistakes_is_bounded() -> None:
    output = "".join(f"src/m{i}.py:1:1: E{100 + i} message\n" for i in range(50))
    assert len(find_mistakes(output, "flake8")) == MAX_MISTAKES


def test_command_tool_names_the_linter_in_a_command() -> None:
    assert command_tool("cd web && npx eslint src") == "eslint"
    assert command_tool(".venv/bin/ruff check src") == "ruff"
    assert command_tool("go vet ./...") == "go vet"
    assert command_tool("pytest") is None


@given(st.text(max_size=2000))
def test_any_text_gives_bounded_well_formed_keys(text: str) -> None:
    found = find_mistakes(text, "ruff check .")
    assert len(found) <= MAX_MISTAKES
    assert len({m.key for m in found}) == len(found)
    for m in found:
        assert m.key and len(m.key) <= 200 and "\n" not in m.key


def _corpus() -> list[dict[str, object]]:
    cases = YAML(typ="safe").load((DATA_DIR / "failure_corpus.yaml").read_text(encoding="utf-8"))
    assert isinstance(cases, list) and len(cases) >= 40
    return cases


def test_the_labelled_corpus_gets_its_group_keys() -> None:
    """Every corpus case labelled with a group key (tests/data/failure_corpus.yaml) gets
    exactly those keys; a case labelled null may still name a well-formed mistake."""
    labelled = wrong = 0
    misses = []
    for case in _corpus():
        output = str(case.get("output") or "").replace("{root}", "/home/dev/project")
        tool_input = case.get("tool_input")
        command = case.get("command") or (
            tool_input.get("command") if isinstance(tool_input, dict) else None
        )
        found = [m.key for m in find_mistakes(output, str(command) if command else None)]
        want = case.get("group")
        if want is None:
            assert all(re.fullmatch(r"[a-z][\w-]*(?: [a-z]+)?:\S.*", k) for k in found), found
            continue
        labelled += 1
        expected = [want] if isinstance(want, str) else list(want)  # type: ignore[call-overload]
        if sorted(found) != sorted(expected):
            wrong += 1
            misses.append(f"{case['id']}: {found} (expected {expected})")
    print(f"\ngroup keys: {labelled - wrong}/{labelled} labelled cases right")
    assert labelled >= 30 and not misses, misses


def test_a_real_finding_outranks_formatting_past_the_bound() -> None:
    """Real xo 2.0.2 output (tests/data/lesson_corpus): nine rules, eight of them before the
    undefined variable; the bug is kept and one @stylistic rule gives way."""
    from ruamel.yaml import YAML

    case = YAML(typ="safe").load(
        (DATA_DIR / "lesson_corpus" / "cases" / "xo-lint-errors.yaml").read_text("utf-8")
    )
    keys = [m.key for m in find_mistakes(case["output"], case["command"])]
    assert len(keys) == MAX_MISTAKES
    assert "xo:no-undef" in keys and "xo:no-unused-vars" in keys
    assert keys[0] == "xo:@stylistic/object-curly-spacing"  # output order is kept
    # only formatting gave way: every non-stylistic rule xo reported is kept
    reported = {f"xo:{line.split()[-1]}" for line in case["output"].splitlines() if "✖" in line}
    assert {k for k in reported if "@stylistic/" not in k} <= set(keys)
