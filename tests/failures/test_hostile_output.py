"""Hostile tool output: the capture path bounds the error before any regex work and every
pattern it runs is linear (no whitespace run that can cross lines after ``^``). Speed itself is
measured in benchmarks/; these tests pin what is kept and the shape of the patterns."""

from __future__ import annotations

import re

from pokayokay.failures import classify as classify_module
from pokayokay.failures.classify import classify
from pokayokay.failures.evidence_paths import _patterns, extract_paths
from pokayokay.infra.lazyre import Lazy
from pokayokay.infra.spool import FIELD_MAX, cut_text


def compiled(value: object) -> list[re.Pattern[str]]:
    """The patterns in ``value``: a pattern, a lazy one (compiled here), or a tuple of them."""
    if isinstance(value, tuple):
        return [p for item in value for p in compiled(item)]
    if isinstance(value, Lazy):
        return [value.regex]
    return [value] if isinstance(value, re.Pattern) else []


def multiline_patterns() -> list[re.Pattern[str]]:
    found = [p for value in vars(_patterns()).values() for p in compiled(value)]
    for value in vars(classify_module).values():
        found.extend(compiled(value))
    for rule in classify_module.BUILTIN_RULES:
        found.extend(p for look in (rule.tool, rule.command, rule.error) for p in compiled(look))
    return [p for p in found if p.flags & re.MULTILINE]


def test_no_line_start_is_followed_by_a_run_that_crosses_lines() -> None:
    patterns = multiline_patterns()
    assert len(patterns) >= 5
    for pattern in patterns:
        assert not re.search(r"\^\\s[*+]", pattern.pattern), pattern.pattern


def test_a_jest_failure_after_40000_blank_lines_is_still_found(tmp_path: object) -> None:
    error = "\n" * 40_000 + " FAIL  src/cart.test.js\n  ● cart › adds items\n"
    assert "src/cart.test.js" in extract_paths("Bash", {"command": "npx jest"}, error, "/p")
    assert classify("Bash", "npx jest", error) == "testing"


def test_a_15_mib_error_keeps_its_head_and_tail() -> None:
    head = "FAILED tests/test_cart.py::test_add - assert 3 == 4\n"
    tail = "=========== 1 failed, 11 passed in 0.41s ===========\n"
    error = head + ("E   noise line of a huge log\n" * (15 * 2**20 // 29)) + tail
    cut = cut_text(error)
    assert len(cut) < FIELD_MAX + 100
    assert cut.startswith(head) and cut.endswith(tail)
    assert "characters cut" in cut
    assert classify("Bash", "pytest", cut) == "testing"
