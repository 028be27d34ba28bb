"""The pattern :func:`pokayokay.relevance.output_lines.is_output_line` replaced (its oracle),
and text made of the pieces its alternatives turn on."""

from __future__ import annotations

import re

from hypothesis import strategies as st

OUTPUT_LINE = re.compile(
    r"\s*(?:"
    r"Traceback \(most recent call last\):"
    r"|File \"[^\"]+\", line \d+"
    r"|at \S+(?: \(\S+:\d+(?::\d+)?\)|:\d+:\d+)\s*$"
    r"|at [\w$.<>/]+\([\w$.-]+:\d+\)\s*$"
    r"|[\w./\\-]+[:(]\d+(?:[:,]\d+)?\)?(?::|\s+-\s)"
    r"|error(?:\[\w+\])?: |warning\[\w+\]: "
    r"|= (?:note|help): "
    r"|-->\s+\S+:\d+"
    r"|\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}"
    r"|\[?\d{2}:\d{2}:\d{2}"
    r"|\[[A-Z]{3,8}\]"
    r"|[A-Z]{4,8}:[\w.]+:"
    r"|[EF>]\s{2,}\S"
    r"|[=_*-]{3,}.*[=_*-]{3,}\s*$"
    r"|[=_*-]{5,}\s*$"
    r"|[\w.]*(?:Error|Exception|Warning)(?::\s|$)"
    r"|\^+\s*$"
    r"|>?\s*\d+\s*(?:\||[+-]\s)"
    r"|\|\s*(?:\^|$)"
    r"|[A-Z]{1,4}\d{3,4}(?:\s\[\*\])?\s\S"
    r"|\[\*\]\s\d"
    r"|(?:PASS|FAIL|PASSED|FAILED|ERROR|ok|not ok)\s+\S+\s*$"
    r"|(?:PASS|FAIL)\s{2,}\S"
    r"|(?:PASSED|FAILED|ERROR)\s+\S+::\S"
    r"|(?:PASS|FAIL|ok|FAIL\s+\S+\s+[\d.]+s)\s*$"
    r"|(?:ok|FAIL)\t\S+\t"
    r"|--- (?:FAIL|PASS|SKIP): \S+ \(\d"
    r"|=== (?:RUN|PAUSE|CONT)\s"
    r"|[●✕✓×]\s"
    r"|test \S+ \.\.\. \w+"
    r"|test result: "
    r"|running \d+ tests?\s*$"
    r"|thread '[^']*'(?: \(\d+\))? panicked at "
    r"|(?:Compiling|Checking|Finished|Running|Doc-tests|Fresh)\s+\S"
    r"|Ran all test suites\b"
    r"|[A-Z][\w ]{1,20}:\s+\d+(?:\.\d+)?\s*(?:m?s\b|\w+,|\w+\s*$)"
    r"|collected \d+ items?"
    r"|(?:[\w./\\-]+\.\w+\s+)?[.FEsxX]+\s+\[\s*\d+%\]\s*$"
    r"|[\w./\\-]+\.\w+\s+[.FEsxX]+\s*$"
    r"|(?:Found\s+)?\d+\s+(?:passed|failed|errors?|warnings?|problems?)\b"
    r"|\$ \S"
    r")"
)

# The words, marks and shapes the alternatives turn on, their near misses, and unicode (digits,
# letters and spaces outside ASCII).
_PIECES = [
    "Traceback (most recent call last):", "File \"", "\"", ", line ", "at ", " (", ")", "(",
    ":", "::", ",", "-", " - ", "error", "error[E0308]: ", "warning[", "]", "[", "]: ", "= note: ",
    "= help: ", "-->", "2026-11-30", "T", "12:34", ":56", "[INFO]", "[DEBUG]", "ERROR:", "WARN",
    "E", "F", ">", "  ", " ", "\t", "===", "___", "***", "---", "-----", "Error", "Exception",
    "Warning", "ValueError: ", "^^^", "|", "+", "F401", "E501", "[*]", "PASS", "FAIL", "PASSED",
    "FAILED", "ok", "not ok", "--- FAIL: ", "SKIP: ", "=== RUN", "PAUSE", "●", "✕", "✓", "×",
    "test ", " ... ", "test result: ", "running ", " tests", " test", "thread '", "main",
    "' panicked at ", "Compiling", "Finished", "Doc-tests", "Ran all test suites", "Tests:",
    "Time:", "s", "ms", "m", "passed", "failed", "errors", "warnings", "problems", "Found ",
    "collected ", " items", "tests/a.py", "src/x.ts", "a.b", "./", "\\", ".F.", "sxX", "[ 50%]",
    "[100%]", "%", "$ ", "$", "1", "12", "123", "1234", "12345", "0.52", ".", "x", "ab", "_",
    "٣", "²", "é", "\u00a0", "\u3000", "$.<>/",
]  # fmt: skip
LINES = st.lists(
    st.one_of(st.sampled_from(_PIECES), st.characters(blacklist_categories=("Cs",))), max_size=14
).map("".join).map(lambda t: "".join(t.splitlines()))


# Lines of each shape, to be edited near their boundaries (below).
SEEDS = [
    "Traceback (most recent call last):", '  File "app.py", line 12, in <module>',
    "    at Object.<anonymous> (src/a.test.js:5:10)", "at a:1:2", "  at com.x.Y.run(Y.java:42)",
    "src/a.rs:10:5: error", "a.py(3,4): x", "a.c:3 - warn", "error[E0308]: x", "warning[W1]: x",
    " = note: x", "--> src/a.rs:1", "2026-11-30 12:34 boot", "[12:00:01] x", "[INFO] up",
    "WARN:root:x", "E       assert 1", "===== FAILURES =====", "-----", "a.ValueError: bad",
    "KeyError", "   ^^^", "> 7 | x", " 12 + a", "  |   ^", "F401 [*] `os` unused",
    "[*] 1 fixable", "PASS src/a.test.js", "FAIL  a b", "FAILED tests/a.py::test_x - assert",
    "ok", "FAIL a 0.01s", "ok\ta\t0.1s", "--- FAIL: TestAdd (0.00s)", "=== RUN   TestAdd",
    "● suite", "test a::b ... ok", "test result: FAILED.", "running 3 tests",
    "thread 'main' (12) panicked at src/a.rs", "   Compiling a v0.1", "Ran all test suites.",
    "Tests:       1 failed, 4 total", "Time:        1.5 s", "Time: 1234", "Snapshots: 12ms",
    "collected 3 items", "tests/a.py .F.. [ 50%]", "..F [100%]", "tests/a.py .F",
    "Found 3 errors.", "2 passed in 0.1s", "$ ls",
]  # fmt: skip
_EDIT_CHARS = [*"09aAsS.:,;-_=*[]()|^$ \t/>EeFIXxL'\"%٣é", "\u00a0", "ms", "::", "  ", "ED"]
_EDITS = st.lists(
    st.tuples(
        st.integers(0, 60), st.sampled_from(["insert", "delete", "replace"]),
        st.sampled_from(_EDIT_CHARS),
    ),
    min_size=1,
    max_size=4,
)  # fmt: skip


def _edited(seed: str, edits: list[tuple[int, str, str]]) -> str:
    text = seed
    for at, kind, piece in edits:
        at = min(at, len(text))
        if kind == "insert":
            text = text[:at] + piece + text[at:]
        elif kind == "delete":
            text = text[:at] + text[at + 1 :]
        else:
            text = text[:at] + piece + text[at + 1 :]
    return text


EDITED = st.builds(_edited, st.sampled_from(SEEDS), _EDITS)
