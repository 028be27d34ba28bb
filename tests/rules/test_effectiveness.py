"""Rule effectiveness: loads, distinct sessions, recurrence after the first load, retirement."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from pokayokay.failures.signature import short_id
from pokayokay.rules.effectiveness import (
    DEFAULT_RETIRE_AFTER_SESSIONS,
    assess,
    assess_all,
    should_retire,
)

RULE = ".claude/rules/pokayokay/testing.md"
OTHER = ".claude/rules/pokayokay/lint.md"
SIG = "FAILED tests/test_cart.py::test_total - AssertionError: assert <n> == <n>"


@dataclass(frozen=True)
class Load:
    ts: float
    session_id: str
    rule_path: str
    trigger_path: str | None = None


@dataclass(frozen=True)
class Fail:
    ts: float
    session_id: str
    signature: str


def loads_in_sessions(count: int, rule: str = RULE, start: float = 100.0) -> list[Load]:
    return [Load(start + i, f"s{i}", rule) for i in range(count)]


@pytest.mark.parametrize(("sessions", "retire"), [(9, False), (10, True), (11, True)])
def test_retire_boundary(sessions: int, retire: bool) -> None:
    effect = assess(RULE, [SIG], loads_in_sessions(sessions), [])
    assert effect.sessions == sessions
    assert should_retire(effect, 10) is retire


@pytest.mark.parametrize("threshold", [1, 3, 7])
def test_retire_boundary_follows_the_setting(threshold: int) -> None:
    below = assess(RULE, [SIG], loads_in_sessions(threshold - 1), [])
    at = assess(RULE, [SIG], loads_in_sessions(threshold), [])
    assert should_retire(below, threshold) is False
    assert should_retire(at, threshold) is True


def test_default_threshold_is_ten() -> None:
    assert DEFAULT_RETIRE_AFTER_SESSIONS == 10
    assert should_retire(assess(RULE, [SIG], loads_in_sessions(10), [])) is True


def test_loads_in_one_session_count_once() -> None:
    loads = [Load(100.0 + i, "same-session", RULE) for i in range(25)]
    effect = assess(RULE, [SIG], loads, [])
    assert (effect.loads, effect.sessions) == (25, 1)
    assert (effect.first_load, effect.last_load) == (100.0, 124.0)
    assert should_retire(effect, 2) is False


def test_recurrence_after_the_first_load_prevents_retirement() -> None:
    loads = loads_in_sessions(12)
    failures = [Fail(105.5, "s5", SIG)]
    effect = assess(RULE, [SIG], loads, failures)
    assert effect.recurred and effect.recurrences == 1 and effect.recurrence_sessions == 1
    assert effect.recurred_while_loaded == 1  # s5 had loaded the rule at 105.0
    assert effect.last_recurrence == 105.5
    assert should_retire(effect, 10) is False


def test_recurrence_in_a_session_without_a_load_still_counts() -> None:
    effect = assess(RULE, [SIG], loads_in_sessions(12), [Fail(500.0, "other", SIG)])
    assert effect.recurred and effect.recurred_while_loaded == 0
    assert should_retire(effect, 10) is False


def test_failures_before_the_first_load_are_the_evidence_not_a_recurrence() -> None:
    failures = [Fail(10.0, "old1", SIG), Fail(20.0, "old2", SIG), Fail(100.0, "s0", SIG)]
    effect = assess(RULE, [SIG], loads_in_sessions(10), failures)
    assert not effect.recurred  # at or before the first load (100.0)
    assert should_retire(effect, 10) is True


def test_failure_earlier_in_a_session_than_its_load_is_not_while_loaded() -> None:
    loads = [Load(100.0, "a", RULE), Load(300.0, "b", RULE)]
    effect = assess(RULE, [SIG], loads, [Fail(200.0, "b", SIG), Fail(301.0, "b", SIG)])
    assert effect.recurrences == 2 and effect.recurrence_sessions == 1
    assert effect.recurred_while_loaded == 1


def test_other_signatures_and_other_rules_do_not_count() -> None:
    loads = loads_in_sessions(10) + loads_in_sessions(3, OTHER, start=1000.0)
    failures = [Fail(500.0, "s1", "some other failure")]
    effect = assess(RULE, [SIG], loads, failures)
    assert effect.loads == 10 and not effect.recurred


def test_signatures_may_be_short_ids() -> None:
    effect = assess(RULE, [short_id(SIG)], loads_in_sessions(3), [Fail(500.0, "x", SIG)])
    assert effect.recurred


def test_a_rule_without_signatures_is_never_retired() -> None:
    effect = assess(RULE, [], loads_in_sessions(50), [])
    assert not effect.recurred
    assert should_retire(effect, 10) is False


def test_never_loaded() -> None:
    effect = assess(RULE, [SIG], [], [Fail(1.0, "s", SIG)])
    assert (effect.loads, effect.sessions, effect.first_load) == (0, 0, None)
    assert not effect.recurred  # no load, nothing to recur after
    assert should_retire(effect, 1) is False


def test_threshold_must_be_positive() -> None:
    with pytest.raises(ValueError):
        should_retire(assess(RULE, [SIG], [], []), 0)


def test_assess_all_and_as_dict() -> None:
    loads = loads_in_sessions(2) + loads_in_sessions(1, OTHER)
    result = assess_all({RULE: [SIG], OTHER: []}, iter(loads), iter([Fail(150.0, "z", SIG)]))
    assert result[RULE].sessions == 2 and result[RULE].recurred
    assert result[OTHER].sessions == 1 and not result[OTHER].recurred
    assert result[RULE].as_dict()["recurred"] is True


def test_accepts_the_store_and_failure_types() -> None:
    from pokayokay.failures.model import Failure
    from pokayokay.failures.store import RuleLoad

    loads = [RuleLoad(100.0, "s1", RULE, "src/cart.py"), RuleLoad(200.0, "s2", RULE, None)]
    failures = [Failure(250.0, "s2", "Bash", "pytest", SIG, "testing", (), "FAILED", 1)]
    effect = assess(RULE, [SIG], loads, failures)
    assert effect.sessions == 2 and effect.recurred_while_loaded == 1
