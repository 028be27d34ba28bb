"""Issue 24 item 4: the real mistake, read from the real output of many tools.

Each output here is a lesson-corpus case (tests/data/lesson_corpus/cases/, produced by running
the real tool); the keys, categories and manifests are what the tools' documented formats say.
Property tests check the format rules on generated names.
"""

from __future__ import annotations

from typing import Any

import pytest
from helpers.paths import DATA_DIR
from hypothesis import given
from hypothesis import strategies as st
from ruamel.yaml import YAML

from pokayokay.failures.classify import classify
from pokayokay.failures.manifests import manifest_names
from pokayokay.failures.missing_paths import meant, missing_paths, to_create
from pokayokay.failures.mistakes import find_mistakes

CASES = DATA_DIR / "lesson_corpus" / "cases"
ROOT = "/work/corpus_lab/proj"


def case(name: str) -> dict[str, Any]:
    data = YAML(typ="safe").load((CASES / f"{name}.yaml").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    data["output"] = data["output"].replace("{root}", ROOT)
    return data


def keys(name: str) -> list[str]:
    c = case(name)
    return [m.key for m in find_mistakes(c["output"], c["command"])]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("make-ld-undefined-reference", ["ld:undefined reference to `parse_config'"]),
        ("clang-make-cc-override", ["ld:undefined reference to `parse_config'"]),
        ("ld-multiple-definition", ["ld:multiple definition of `log_level'"]),
        ("mypy-pretty-arg-type", ["mypy:arg-type"]),
        ("mypy-pretty-return-value", ["mypy:return-value"]),
        ("ava-typeerror-and-assertion",
         ["test:describes an empty order", "test:describes a missing items list"]),
        ("pytest-missing-fixture", ["pytest:fixture 'db_session' not found"]),
        ("ruff-format-check", ["ruff:unformatted"]),
        ("npm-ci-lock-out-of-sync",
         ["npm:`npm ci` can only install packages when your package.json and package-lock.json"
          " or npm-shrinkwrap.json are in sync"]),
        ("eslint-no-undef", ["eslint:no-unused-vars", "eslint:no-undef"]),
    ],
)  # fmt: skip
def test_the_error_line_is_the_key(name: str, expected: list[str]) -> None:
    assert keys(name) == expected


def test_xo_rows_are_keyed_by_rule_in_output_order() -> None:
    found = keys("xo-lint-errors")
    assert found[:3] == [
        "xo:@stylistic/object-curly-spacing",
        "xo:unicorn/prefer-module",
        "xo:import-x/extensions",
    ]
    assert all(key.startswith("xo:") for key in found)


def test_jest_and_ava_failures_keep_their_own_report() -> None:
    c = case("ava-typeerror-and-assertion")
    first, second = find_mistakes(c["output"], c["command"])
    assert "atests/orders.js:5" in first.text and "lib/orders.js" not in first.text
    assert f"{ROOT}/lib/orders.js:4:29" in second.text
    c = case("npm-test-jest-failures")
    mistakes = find_mistakes(c["output"], c["command"])
    assert len(mistakes) > 1
    assert all(m.text.count("●") == 1 for m in mistakes)


@pytest.mark.parametrize(
    ("name", "category"),
    [
        ("npm-run-build-tsc-errors", "types"),
        ("cargo-build-e0308-mismatched-types", "types"),
        ("cargo-clippy-e0382-before-lints", "types"),
        ("cargo-build-e0432-e0425-unresolved", "build"),
        ("cargo-build-offline-missing-crate", "dependencies"),
        ("cd-missing-directory", "shell"),
        ("npm-missing-script-lint", "shell"),
        ("pnpm-missing-script-lint", "shell"),
        ("make-no-rule-tests-typo", "shell"),
        ("pytest-file-not-found", "shell"),
        ("unittest-module-not-found", "shell"),
        ("git-apply-patch-does-not-apply", "edit"),
        ("patch-hunk-failed", "edit"),
        ("sed-inplace-missing-file", "edit"),
        ("node-uncaught-typeerror", "testing"),
        ("xo-lint-errors", "lint"),
        ("mypy-import-untyped", "dependencies"),
    ],
)
def test_category_by_the_output_format(name: str, category: str) -> None:
    c = case(name)
    mistakes = find_mistakes(c["output"], c["command"])
    text = mistakes[0].text if len(mistakes) > 1 else c["output"]
    assert classify("Bash", c["command"], text) == category


@pytest.mark.parametrize(
    ("name", "manifests"),
    [
        ("npm-missing-script-lint", ["package.json"]),
        ("pnpm-missing-script-lint", ["package.json"]),
        ("npm-eresolve-peer-conflict", ["package.json"]),
        ("tsc-ts2307-cannot-find-module", ["package.json"]),
        ("cargo-build-offline-missing-crate", ["Cargo.toml"]),
        ("go-build-missing-module", ["go.mod"]),
        ("mypy-import-untyped", ["pyproject.toml"]),
        ("make-no-rule-tests-typo", ["Makefile"]),
        ("node-cannot-find-module", []),  # a relative module: a file of the project, no manifest
        ("make-ld-undefined-reference", []),
    ],
)
def test_the_manifest_a_fix_goes_in(name: str, manifests: list[str]) -> None:
    assert manifest_names(case(name)["output"]) == manifests


SYMBOL = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,30}", fullmatch=True)
OBJECT = st.from_regex(r"[a-z]{1,12}", fullmatch=True)


@given(symbols=st.lists(SYMBOL, min_size=1, max_size=5, unique=True), obj=OBJECT,
       status=st.integers(1, 255))  # fmt: skip
def test_ld_keys_each_symbol_never_the_summary(symbols: list[str], obj: str, status: int) -> None:
    lines = [f"/usr/bin/ld: build/{obj}.o: in function `main':"]
    lines += [
        f"{obj}.c:(.text+0x{i:x}): undefined reference to `{s}'" for i, s in enumerate(symbols)
    ]
    lines.append(f"collect2: error: ld returned {status} exit status")
    found = [m.key for m in find_mistakes("\n".join(lines), "make")]
    assert found == [f"ld:undefined reference to `{s}'" for s in symbols]


@given(
    fixture=SYMBOL, test=SYMBOL.map(lambda s: "test_" + s), other=SYMBOL.map(lambda s: "test_x" + s)
)
def test_a_missing_fixture_and_an_assertion_are_two_mistakes(
    fixture: str, test: str, other: str
) -> None:
    output = "\n".join([
        "==================================== ERRORS ====================================",
        f"_______________ ERROR at setup of {test} _______________",
        "file /p/tests/test_db.py, line 4",
        f"  def {test}({fixture}):",
        f"E       fixture '{fixture}' not found",
        "=================================== FAILURES ===================================",
        f"_______________ {other} _______________",
        "E       assert 1 == 2",
        "=========================== short test summary info ============================",
        f"FAILED tests/test_db.py::{other} - assert 1 == 2",
        f"ERROR tests/test_db.py::{test}",
        "========================= 1 failed, 1 error in 0.06s ==========================",
    ])  # fmt: skip
    found = [m.key for m in find_mistakes(output, "pytest tests/test_db.py")]
    assert found == [f"test:tests/test_db.py::{other}", f"pytest:fixture '{fixture}' not found"]


@given(
    code=st.sampled_from(["arg-type", "return-value", "attr-defined", "union-attr"]),
    words=st.lists(st.from_regex(r"[a-z\"]{1,8}", fullmatch=True), min_size=2, max_size=30),
)
def test_mypy_pretty_finds_the_code_on_a_wrapped_line(code: str, words: list[str]) -> None:
    message = " ".join(words)
    head, tail = message[: len(message) // 2], message[len(message) // 2 :]
    output = f"src/a.py:6: error: {head}\n{tail}  [{code}]\n        x = f(y)\n            ^\n"
    assert [m.key for m in find_mistakes(output, "mypy --pretty src")] == [f"mypy:{code}"]


@pytest.mark.parametrize(
    ("name", "missing"),
    [
        ("sed-inplace-missing-file", ["src/setings.py"]),
        ("pytest-file-not-found", ["tests/test_carts.py"]),
        ("unittest-module-not-found", ["tests/test_mony.py"]),
        ("make-no-rule-tests-typo", []),
    ],
)
def test_the_path_a_message_says_is_missing(name: str, missing: list[str]) -> None:
    assert missing_paths(case(name)["output"]) == missing


def test_the_file_a_fix_creates() -> None:
    assert to_create(case("node-cannot-find-module")["output"]) == [f"{ROOT}/lib/config.js"]
    assert to_create(case("pytest-missing-fixture")["output"]) == [f"{ROOT}/tests/conftest.py"]
    assert to_create(case("node-uncaught-typeerror")["output"]) == []


NAME = st.from_regex(r"[a-z]{4,12}", fullmatch=True)


@given(name=st.from_regex(r"[a-z]{5,12}", fullmatch=True), data=st.data())
def test_meant_is_the_one_name_a_typo_away(name: str, data: st.DataObject) -> None:
    """One character dropped from a name of 5+ characters plus ``.py`` is meant as that name,
    unless another name is as close; an exact name is never "meant" (it exists)."""
    i = data.draw(st.integers(0, len(name) - 1))
    typo = name[:i] + name[i + 1 :] + ".py"
    others = data.draw(st.lists(NAME.map(lambda n: n + ".txt"), max_size=5))
    names = [name + ".py", *others]
    if typo in names:
        return
    assert meant("src/" + typo, names) == name + ".py"
    assert meant("src/" + name + ".py", names) is None


def test_meant_refuses_a_tie_and_a_stranger() -> None:
    assert meant("src/cart.py", ["totally_different.py"]) is None
    assert meant("a/ab.py", ["abc.py", "abd.py"]) is None


@pytest.mark.parametrize(
    ("output", "category"),
    [
        ("error: patch failed: a.py:1\nerror: a.py: patch does not apply\nerror: b.py: done\n",
         "edit"),
        ("a.py:1: error: Library stubs not installed for \"yaml\"  [import-untyped]\n"
         "a.py:1: note: Hint: \"python3 -m pip install types-PyYAML\"\nFound 1 error\n",
         "dependencies"),
        ("  --> src/a.rs:3:5\nerror[E0382]: borrow of moved value: `v`\nmore\n", "types"),
    ],
)  # fmt: skip
def test_a_row_matches_mid_output(output: str, category: str) -> None:
    """A row's message anywhere in the output, not only on its last line."""
    assert classify("Bash", "./ci.sh", output) == category
