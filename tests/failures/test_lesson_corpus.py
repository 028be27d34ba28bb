"""The lesson corpus (tests/data/lesson_corpus/: real failing outputs of many tools, labelled)
through the real capture hook, as Claude Code sends a failed Bash call, in a git repository
holding the case's files. Category, mistake key and paths must each be right for >= 95% of the
cases (issue 24 item 4).

What "right" means:

* **category**: the category the store records for the call equals the label.
* **paths**: the set of paths the store records for the call equals the labelled ``paths``.
* **key**: one of the mistakes the store records for the call (pokayokay records one failure
  per mistake, in output order; its ``signature`` is the group key) identifies the labelled
  key. The label is the first mistake the tool reported; where several are recorded, the table
  also shows how often the *first* recorded one is the label's (column ``first``):

  - a test key ``test:<id>`` identifies a label that is its id, that its id contains (the jest,
    vitest and ava title without or with its file) or that contains its id (unittest's
    ``name (module.Class.name)`` line);
  - a diagnostic key ``<tool>:<code>`` identifies a label that contains the code verbatim
    (``[arg-type]`` and ``mypy:arg-type``, ``F401`` and ``ruff:F401``, ``error[E0308]: …`` and
    ``rustc:E0308``), or whose slug (lower case, quoted names and numbers dropped, other
    characters as ``-``) holds every word of the code: ``cc:use-of-undeclared-identifier`` for
    ``error: use of undeclared identifier 'HASH_SIZE'``;
  - any other key is a normalised signature and identifies a label whose normalised form
    (:func:`pokayokay.failures.signature.normalise` with the same project root) it contains:
    the key is built from the error line itself;
  - whatever the key, the mistake is the labelled one when the line it was built from (the
    failure's excerpt) holds the label: eslint's ``11:10 error 'totl' is not defined no-undef``
    recorded as ``eslint:no-undef`` is the mistake labelled ``'totl' is not defined``.

  A key built from a summary line (``collect2: error: ld returned 1 exit status``, ``2 tests
  failed``) never contains the error line's code or text, so it is wrong.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from helpers.corpus import captured, fill, project
from helpers.paths import DATA_DIR
from ruamel.yaml import YAML

from pokayokay.failures.classify import CATEGORIES
from pokayokay.failures.signature import normalise

CORPUS = DATA_DIR / "lesson_corpus" / "cases"
REQUIRED = {"category": 0.98, "key": 0.98, "paths": 0.95}
# category and key: 90/90 (decision 0117: `command not found` is dependencies; a real finding
# outranks @stylistic ones when a run reports more than MAX_MISTAKES rules).
# paths: 86/90. The four misses need the code, not the output: the source a jest assertion's bug
# is in when the test file's name does not say (totals.test.js testing lib/orders.js), the
# header declaring a symbol the linker cannot find or finds twice.
_DIAGNOSTIC = re.compile(r"\A([a-z][\w -]{0,20}):(\S.*)\Z")


def load_corpus() -> list[dict[str, Any]]:
    cases = []
    for path in sorted(CORPUS.glob("*.yaml")):
        case = YAML(typ="safe").load(path.read_text(encoding="utf-8"))
        assert isinstance(case, dict), path
        cases.append(case)
    return cases


def slug(text: str) -> str:
    text = re.sub(r"(['\"‘’`])[^'\"‘’`]{1,80}\1|‘[^’]{1,80}’", " ", text.lower())
    text = re.sub(r"\b\d+(?:\.\d+)*\b", " ", text)
    return re.sub(r"[^a-z0-9]+", "-", text).strip("-")


def identifies(key: str, label: str, root: Path, excerpt: str = "") -> bool:
    """Whether the stored group ``key`` (recorded with ``excerpt``) names the labelled mistake."""
    if " ".join(label.split()) in excerpt:
        return True
    if key.startswith("test:"):
        test_id = key.removeprefix("test:")
        return bool(test_id) and (label in test_id or test_id in label)
    diagnostic = _DIAGNOSTIC.match(key)
    if diagnostic and " " not in diagnostic[2]:
        code = diagnostic[2]
        words = set(slug(label).split("-"))
        return code in label or (len(code) > 3 and set(code.lower().split("-")) <= words)
    wanted = normalise(label, project_roots=(str(root),))
    return bool(wanted) and wanted in key


def test_identifies_is_strict() -> None:
    root = Path("/work/project")
    assert identifies("mypy:arg-type", "[arg-type]", root)
    assert identifies("rustc:E0308", "error[E0308]: mismatched types", root)
    assert identifies("test:tests/a.test.js > suite › case", "suite › case", root)
    assert identifies("test:tests.test_money.T.test_x", "test_x (tests.test_money.T.test_x)", root)
    assert identifies(
        "cc:use-of-undeclared-identifier", "error: use of undeclared identifier 'X'", root
    )
    assert identifies(
        "main.c:(.text+0x<hex>): undefined reference to `parse_config'",
        "undefined reference to `parse_config'",
        root,
    )
    assert not identifies(
        "collect2: error: ld returned <n> exit status",
        "undefined reference to `parse_config'",
        root,
    )
    assert not identifies("test:tests/test_a.py::test_b", "tests/test_a.py::test_c", root)
    assert not identifies("mypy:return-value", "[arg-type]", root)
    assert not identifies("npm:ERR", 'Missing script: "lint"', root)


def test_the_corpus_is_broad_and_well_formed() -> None:
    cases = load_corpus()
    assert len(cases) >= 80
    assert len({case["id"] for case in cases}) == len(cases)
    for case in cases:
        assert case["category"] in CATEGORIES, case["id"]
        assert case["key"] and case["key"] in case["output"], case["id"]
        assert isinstance(case["paths"], list), case["id"]
        assert case["lesson"].strip(), case["id"]
    tools = {case["tool"] for case in cases}
    for tool in ("xo", "ava", "eslint", "prettier", "tsc", "jest", "vitest", "node", "mypy",
                 "go", "cargo", "gcc", "clang", "ld", "shellcheck", "make", "npm"):  # fmt: skip
        assert tool in tools, tool


def _score(tmp_path: Path) -> tuple[int, dict[str, list[str]], dict[str, Counter[str]]]:
    cases = load_corpus()
    misses: dict[str, list[str]] = {"category": [], "key": [], "paths": [], "first": []}
    per_tool: dict[str, Counter[str]] = defaultdict(Counter)
    for n, case in enumerate(cases):
        root = project(tmp_path, case)
        failures = captured(case, root, n)
        category = Counter(f.category for f in failures).most_common(1)[0][0] if failures else None
        paths = {p for f in failures for p in f.paths}
        label = fill(case["key"], root)
        found = [identifies(f.signature, label, root, f.excerpt) for f in failures]
        right = {
            "category": category == case["category"],
            "key": any(found),
            "first": bool(found) and found[0],
            "paths": paths == set(case["paths"]),
        }
        tally = per_tool[case["tool"]]
        tally["cases"] += 1
        for what, ok in right.items():
            tally[what] += ok
        if not right["category"]:
            misses["category"].append(f"{case['id']}: {category} (expected {case['category']})")
        if not right["key"]:
            misses["key"].append(
                f"{case['id']}: {[f.signature for f in failures]} (expected {case['key']!r})"
            )
        if not right["first"]:
            misses["first"].append(f"{case['id']}: {[f.signature for f in failures]}")
        if not right["paths"]:
            misses["paths"].append(f"{case['id']}: {sorted(paths)} (expected {case['paths']})")
    return len(cases), misses, per_tool


def test_category_key_and_paths_are_right_for_95_percent(tmp_path: Path) -> None:
    total, misses, per_tool = _score(tmp_path)
    print(f"\nlesson corpus: {total} cases")
    print(f"  {'tool':<12}{'cases':>6}{'category':>10}{'key':>6}{'first':>7}{'paths':>7}")
    for tool, tally in sorted(per_tool.items()):
        print(
            f"  {tool:<12}{tally['cases']:>6}{tally['category']:>10}{tally['key']:>6}"
            f"{tally['first']:>7}{tally['paths']:>7}"
        )
    rates = {what: (total - len(wrong)) / total for what, wrong in misses.items()}
    print("  " + "; ".join(f"{what} {total - len(misses[what])}/{total} ({rate:.1%})"
                           for what, rate in rates.items()))  # fmt: skip
    for what, wrong in misses.items():
        for line in wrong:
            print(f"  miss {what}:", line)
    for what, required in REQUIRED.items():  # "first" is shown, not required (module doc)
        assert rates[what] >= required, (what, misses[what])


def _case(case_id: str) -> dict[str, Any]:
    return next(case for case in load_corpus() if case["id"] == case_id)


def _lines(case: dict[str, Any], root: Path) -> set[str]:
    return {line.strip() for line in fill(case["output"], root).split("\n")}


def test_the_stored_error_line_is_a_line_the_tool_printed(tmp_path: Path) -> None:
    """Through the capture hook, on real outputs (decision 0117): the stored line that names the
    mistake is a line of the output as printed, with only the project root cut where the tool
    printed it; make's ``Entering directory`` is progress, never the error line; the wrong
    interpreter's line is the ``ModuleNotFoundError``, not pytest's ``ERROR <file>`` summary."""
    expected = {
        "make-missing-separator": "Makefile:6: *** missing separator.  Stop.",
        "pytest-wrong-interpreter-python3-m": "E   ModuleNotFoundError: No module named 'shopcart'",
        "pyright-argument-type": (
            'src/shopcart/checkout.py:6:19 - error: Argument of type "str" cannot be assigned'
            ' to parameter "price_cents" of type "int" in function "add"'
        ),
    }
    for n, (case_id, line) in enumerate(expected.items()):
        case = _case(case_id)
        root = project(tmp_path, case)
        first = captured(case, root, n)[0]
        assert first.excerpt.split(" | ")[0] == line, case_id
        printed = _lines(case, root)
        assert line in printed or f"{root}/{line}" in printed, case_id
        assert str(root) not in first.excerpt, case_id


def test_mypy_pretty_is_stored_as_mypy_prints_it_plain(tmp_path: Path) -> None:
    """The same mistake run with and without ``--pretty`` (real mypy 2.4.1 outputs) stores the
    same line: the wrapped message joined where mypy broke it, exactly the plain line."""
    for n, (pretty, plain) in enumerate([("mypy-pretty-arg-type", "mypy-plain-arg-type")]):
        got = []
        for m, case_id in enumerate((pretty, plain)):
            case = _case(case_id)
            root = project(tmp_path / case_id, case)
            got.append(captured(case, root, n * 2 + m)[0].excerpt)
        assert got[0] == got[1]
        assert got[1] in _lines(_case(plain), tmp_path)
    case = _case("mypy-pretty-return-value")
    root = project(tmp_path, case)
    assert captured(case, root, 9)[0].excerpt == (
        'src/shopcart/money.py:3: error: Incompatible return value type (got "str", expected'
        ' "int")  [return-value]'
    )
