"""The plain scan of output-shaped lines answers exactly as the pattern it replaced
(``tests/helpers/output_oracle.py``): on every line of the real tool outputs and prompts in
tests/data, on generated lines made of the pieces its alternatives turn on, unicode included.
The quick run is unmarked; the slow one tries many more."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings

from pokayokay.relevance.output_lines import is_output_line
from tests.helpers import scan_oracle
from tests.helpers.output_oracle import EDITED, LINES, OUTPUT_LINE

EXAMPLES = [
    "Traceback (most recent call last):", '  File "app.py", line 12, in <module>',
    "    at Object.<anonymous> (src/a.test.js:5:10)", "at foo (a:1)", "at a:1:2", "at a:1",
    "  at com.x.Y.run(Y.java:42)", "src/a.rs:10:5: error", "a.py(3): x", "a.c:3 - warn",
    "error: cannot", "error[E0308]: mismatched", "warning[W1]: x", " = note: x", "--> src/a.rs:1",
    "2026-11-30 12:34 boot", "[12:00:01] x", "[INFO] up", "WARN:root:x", "E       assert 1",
    "===== FAILURES =====", "-----", "ValueError: bad", "KeyError", "   ^^^", "> 7 | x", " 12 + a",
    "  |   ^", "F401 [*] `os` unused", "[*] 1 fixable", "PASS src/a.test.js", "FAIL  a b",
    "FAILED tests/a.py::test_x - assert", "ok", "FAIL a 0.01s", "ok\ta\t0.1s",
    "--- FAIL: TestAdd (0.00s)", "=== RUN   TestAdd", "● suite › case", "test a::b ... ok",
    "test result: FAILED.", "running 3 tests", "thread 'main' panicked at src/a.rs",
    "thread 'x' (12) panicked at y", "   Compiling a v0.1", "Ran all test suites.",
    "Tests:       1 failed, 4 total", "Time:        1.5 s", "Time: 1234", "collected 3 items",
    "tests/a.py .F.. [ 50%]", "..F [100%]", "tests/a.py .F", "Found 3 errors.", "2 passed in 0.1s",
    "$ ls", "the checkout fails again", "", "   ", "at", "File", "1. do this", "Note: 3 things",
    # each alternative's boundaries: one character short, long or off
    "FAIL x s", "FAIL x .s", ".py .F", "a.py .F", "PASSED  ", "PASS  ", "ok  ", "not ok x",
    "[ABCDEFGHI]", "[ABCDEFGH]", "[AB]", "[ABC]", "F  x", "F x", "ABCDEFGHI:x:", "ABCD:x:",
    "ABC:x:", "--- FAIL: x (a", "--- FAIL: x (1", "ABCDE123 x", "ABCD1234 x", "AB12345 x",
    "Time: 1", "Time: 12", "Time: 1.5", "Time: 1 s", "Time: 1 ms,", "Abcdefghijklmnopqrstu: 1s",
    "Abcdefghijklmnopqrst: 1s", "Abcdefghijklmnopqrstuv: 1s", "running 1 testss",
    "running 1 test ", "at a (b:1) ",
    "at a (b:1)x", "at a  (b:1)", "at a:1:", "at :1:2", "a.py(3)) x", "a.py:3,x:", "^ ^",
    "| x", "|", "> 7", "E  ", "error[]: x", "--> a:", "--> :1", "1 errorsx", "Found 1 error",
    "Foundx 1 error", "collected 1 item", "test a ... ", "thread 'x' (1) panicked at",
    "thread 'x' () panicked at ", "ok\ta\t", "ok\t\t", "=== RUNx", "●x", "Ran all test suitesx",
]  # fmt: skip


def _agrees(line: str) -> None:
    assert is_output_line(line) is (OUTPUT_LINE.match(line) is not None), repr(line)


def test_examples() -> None:
    for line in EXAMPLES:
        _agrees(line)
    assert sum(is_output_line(line) for line in EXAMPLES) >= 50  # most are output


def test_every_real_line() -> None:
    lines = {
        line for text in scan_oracle.real_texts() for line in text.splitlines()
    }  # fmt: skip
    assert len(lines) > 3000
    for line in lines:
        _agrees(line)


@settings(max_examples=1_500, deadline=None)
@given(LINES)
@example("Time: 1234")
@example("at a:1:2")
def test_generated_lines(line: str) -> None:
    _agrees(line)


@settings(max_examples=1_500, deadline=None)
@given(EDITED)
def test_lines_of_each_shape_edited_near_their_boundaries(line: str) -> None:
    _agrees(line)


@pytest.mark.slow
@settings(max_examples=5_000, deadline=None)
@given(LINES | EDITED)
def test_many_generated_lines(line: str) -> None:
    _agrees(line)
