"""The spool gate passes over a failure that makes a group recur in a category already shown
where the prompt points by a group of more sessions (decision 0165).

``recurring()`` shows one group per category, most sessions first. A failure of one session
joins a group of at most one session more than it has now, so when a group of its category
placed at the named paths has more sessions than that, the answer after the ingest is the one
before it, word for word (category, reason, skill), and the prompt need not ingest first. The
property holds the new verdict to that, over stores written through ``FailureStore``, against
the gate as it was before (kept here): wherever the two differ on a spooled failure, the
answers are equal. (With several failures at once another one may still move a count shown,
the lag the gate allowed before: ``test_spool_gate_property`` holds the categories shown.)
"""

from __future__ import annotations

import tempfile
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

import pytest
from helpers.failure_specs import Spec, failure_of, signals_of
from hypothesis import given, settings
from hypothesis import strategies as st

from pokayokay.failures.store import FailureStore
from pokayokay.hooks.spool_gate import can_change
from pokayokay.skills.failure_boost import (
    CATEGORY_WORDS,
    RECURRING_SESSIONS,
    FailureSignals,
    place,
    recurring,
    signals_from_data,
    signals_to_data,
)

SIGNATURES = (
    "test:tests/test_cart.py::test_total",
    "test:tests/test_cart.py::test_add",
    "ruff:E501",
    "ModuleNotFoundError: stripe",
)
CATEGORIES = ("testing", "lint", "edit")
SESSIONS = ("s-a", "s-b", "s-c", "s-d", "s-e")
PATHS = ("src/cart.py", "tests/test_cart.py", "README.md")
NAMED = ("src/cart.py", "tests/", "docs/guide.md")


def _command(spec: Spec) -> str:
    return "pytest" if spec[1] == "testing" else "ruff check"


FAILURE = st.tuples(
    st.sampled_from(SIGNATURES),
    st.sampled_from(CATEGORIES),
    st.sampled_from(SESSIONS),
    st.lists(st.sampled_from(PATHS), max_size=2, unique=True),
)


@st.composite
def _stores(draw: st.DrawFn, most: int) -> list[Spec]:
    """Failures that often make a store of the case: one group recurring in many sessions, a
    few groups of one session, in few categories."""
    stored = draw(st.lists(FAILURE, max_size=most))
    signature, category = draw(st.sampled_from(SIGNATURES)), draw(st.sampled_from(CATEGORIES))
    paths = draw(st.lists(st.sampled_from(PATHS), min_size=1, max_size=2, unique=True))
    sessions = draw(st.lists(st.sampled_from(SESSIONS), max_size=4, unique=True))
    return [*stored, *((signature, category, s, paths) for s in sessions)]


def _answer(signals: FailureSignals, named: list[str]) -> list[tuple[str, str, str | None]]:
    return [(r.category, r.reason, r.skill) for r in recurring(signals.groups, named, [])]


def _before(
    keys: Sequence[tuple[str, str]],
    sessions: Collection[str],
    resolved: Sequence[str],
    signals: FailureSignals,
) -> bool:
    """``can_change`` before decision 0165: a group joined in a used category by a second
    session (or recurring in another category) always counted as a change."""
    if not resolved:
        return False
    kept = {group.signature: group for group in signals.groups}
    near = {group.signature: group for group in signals.near}
    for signature, category in keys:
        group = kept.get(signature)
        if group is not None:
            if category != group.category or place(group, resolved) is None:
                return True
            continue
        other = near.get(signature)
        if other is None or category not in CATEGORY_WORDS:
            continue
        if other.sessions >= RECURRING_SESSIONS or other.owner not in sessions:
            return True
    return False


def _check(stored: list[Spec], spooled: list[Spec], session: str, named: list[str]) -> bool:
    """The verdicts on ``spooled`` (failures of ``session``); when the new one is no and the
    old one yes, the answers before and after storing them are equal. True: they differed."""
    with tempfile.TemporaryDirectory() as folder, FailureStore(Path(folder) / "f.db") as store:
        store.record_failures(failure_of(n, f, _command(f)) for n, f in enumerate(stored))
        key = ["stamp"]
        before = signals_from_data(signals_to_data(signals_of(store), key), key)
        assert before is not None
        keys = [(signature, category) for signature, category, _s, _p in spooled]
        new = can_change(keys, {session}, named, before)
        old = _before(keys, {session}, named, before)
        store.record_failures(
            failure_of(len(stored) + n, spec, _command(spec))
            for n, spec in enumerate((sig, cat, session, paths) for sig, cat, _s, paths in spooled)
        )
        after = signals_of(store)
    assert old or not new, "the new gate ingests where the old one did not"
    if old and not new:
        assert _answer(before, named) == _answer(after, named)
        return True
    return False


def _drawn(most: int, named_most: int) -> dict[str, st.SearchStrategy[Any]]:
    """The property's arguments: a store of at most ``most`` failures besides its recurring
    group, one spooled failure, its session, and up to ``named_most`` named paths."""
    return {
        "stored": _stores(most),
        "spooled": st.lists(FAILURE, min_size=1, max_size=1),
        "session": st.sampled_from(SESSIONS),
        "named": st.lists(st.sampled_from(NAMED), min_size=1, max_size=named_most, unique=True),
    }


@given(**_drawn(8, 2))
@settings(max_examples=20, deadline=None)
def test_a_first_recurrence_outranked_where_the_prompt_points_leaves_the_answer_as_it_is(
    stored: list[Spec], spooled: list[Spec], session: str, named: list[str]
) -> None:
    _check(stored, spooled, session, named)


@pytest.mark.slow
@given(**_drawn(16, 3))
@settings(max_examples=400, deadline=None)
def test_a_first_recurrence_outranked_where_the_prompt_points_leaves_the_answer_as_it_is_many(
    stored: list[Spec], spooled: list[Spec], session: str, named: list[str]
) -> None:
    _check(stored, spooled, session, named)


def test_the_benchmarks_first_recurrence_is_left_to_the_stop() -> None:
    """The budget project's case: a new test fails in a second session while the project's
    tests recur under tests/ in many sessions; storing it first changes nothing shown. The
    same failure in a category no group shows there yet is ingested first, as before."""
    big = "test:tests/test_cart.py::test_total"
    new = "test:tests/test_cart.py::test_add"
    stored: list[Spec] = [(big, "testing", s, ["tests/test_cart.py"]) for s in SESSIONS[:3]]
    stored.append((new, "testing", "s-d", ["tests/test_cart.py"]))
    stored.append(("ruff:E501", "lint", "s-d", ["src/cart.py"]))
    named = ["tests/"]
    assert _check(stored, [(new, "testing", "s-e", ["tests/test_cart.py"])], "s-e", named)
    # Two sessions for the shown group: the new one could tie it at two and be shown first.
    tied = stored[1:]
    with tempfile.TemporaryDirectory() as folder, FailureStore(Path(folder) / "f.db") as store:
        store.record_failures(failure_of(n, f, _command(f)) for n, f in enumerate(tied))
        signals = signals_of(store)
    assert can_change([(new, "testing")], {"s-e"}, named, signals)
    # A category nothing recurring shows at the named place: the second session counts.
    assert can_change([("ruff:E501", "lint")], {"s-e"}, ["src/cart.py"], signals)
    # The same session again: still one session, nothing to ingest first.
    assert not can_change([(new, "testing")], {"s-d"}, named, signals)
