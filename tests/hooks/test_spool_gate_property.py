"""The spool gate's verdict against the real store (decision 0128).

``spool_gate.can_change`` says False only when storing the spooled failures cannot change
which categories a failure boost shows for the named paths. The property: for any store
(groups of a few signatures, categories, sessions and paths, written through ``FailureStore``)
and any spooled failure of one session, when the gate says False, answering from the signals
read before the ingest (through the cache's JSON form, as the prompt reads them) shows a boost
for exactly the categories that answering after the ingest shows.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers.failure_specs import failure_of, signals_of
from helpers.paths import DATA_DIR
from hypothesis import given, settings
from hypothesis import strategies as st

from pokayokay.failures.store import FailureStore
from pokayokay.hooks.spool_gate import can_change
from pokayokay.skills.failure_boost import (
    FailureSignals,
    recurring,
    signals_from_data,
    signals_from_groups,
    signals_to_data,
)

SIGNATURES = ("test:tests/test_cart.py::test_total", "ruff:E501", "ModuleNotFoundError: stripe")
# Two categories the suggestion uses, two it does not.
CATEGORIES = ("testing", "lint", "edit", "shell")
SESSIONS = ("s-a", "s-b", "s-c")
PATHS = ("src/cart.py", "src/app/checkout.py", "tests/test_cart.py", "README.md")
NAMED = ("src/cart.py", "src/app/checkout.py", "tests/", "docs/guide.md")

FAILURE = st.tuples(
    st.sampled_from(SIGNATURES),
    st.sampled_from(CATEGORIES),
    st.sampled_from(SESSIONS),
    st.lists(st.sampled_from(PATHS), max_size=2, unique=True),
)


def _shown(signals: FailureSignals, named: list[str]) -> frozenset[str]:
    return frozenset(r.category for r in recurring(signals.groups, named, []))


def _check(
    stored: list[tuple[str, str, str, list[str]]],
    spooled: tuple[str, str, str, list[str]],
    named: list[str],
) -> None:
    with tempfile.TemporaryDirectory() as folder, FailureStore(Path(folder) / "f.db") as store:
        store.record_failures(failure_of(n, f) for n, f in enumerate(stored))
        signals = signals_of(store)
        key = ["stamp"]
        before = signals_from_data(signals_to_data(signals, key), key)  # as the prompt reads it
        assert before is not None
        signature, category, session, _paths = spooled
        verdict = can_change([(signature, category)], {session}, named, before)
        store.record_failures([failure_of(len(stored), spooled)])
        after = signals_of(store)
    if not verdict:
        assert _shown(before, named) == _shown(after, named)


@given(
    stored=st.lists(FAILURE, max_size=8),
    spooled=FAILURE,
    named=st.lists(st.sampled_from(NAMED), min_size=1, max_size=2, unique=True),
)
@settings(max_examples=60, deadline=None)
def test_a_failure_the_gate_leaves_in_the_spool_cannot_change_a_boost(
    stored: list[tuple[str, str, str, list[str]]],
    spooled: tuple[str, str, str, list[str]],
    named: list[str],
) -> None:
    _check(stored, spooled, named)


@pytest.mark.slow
@given(
    stored=st.lists(FAILURE, max_size=14),
    spooled=FAILURE,
    named=st.lists(st.sampled_from(NAMED), min_size=1, max_size=3, unique=True),
)
@settings(max_examples=750, deadline=None)
def test_a_failure_the_gate_leaves_in_the_spool_cannot_change_a_boost_many(
    stored: list[tuple[str, str, str, list[str]]],
    spooled: tuple[str, str, str, list[str]],
    named: list[str],
) -> None:
    _check(stored, spooled, named)


def test_the_gate_leaves_a_failure_of_a_group_shown_there_already() -> None:
    """The benchmark's case: the capture's group recurs in its category where the prompt
    points; storing it changes a count, not whether the boost shows."""
    test = "test:tests/test_cart.py::test_total"
    stored = [(test, "testing", s, ["tests/test_cart.py"]) for s in ("s-a", "s-b")]
    stored.append(("ruff:E501", "edit", "s-a", ["src/cart.py"]))
    stored.append(("ruff:E501", "edit", "s-b", ["src/cart.py"]))
    with tempfile.TemporaryDirectory() as folder, FailureStore(Path(folder) / "f.db") as store:
        store.record_failures(failure_of(n, f) for n, f in enumerate(stored))
        signals = signals_of(store)
    named = ["src/cart.py", "tests/test_cart.py"]
    assert not can_change([(test, "testing")], {"s-c"}, named, signals)
    # The same failure classified in another category, or one turning the recurring edit
    # group into a category the suggestion uses, can change it: ingested first.
    assert can_change([(test, "lint")], {"s-c"}, named, signals)
    assert can_change([("ruff:E501", "lint")], {"s-c"}, named, signals)
    assert not can_change([("ruff:E501", "edit")], {"s-c"}, named, signals)


def test_a_recurring_group_not_placed_yet_is_ingested_first() -> None:
    """Its paths may grow to the named place (the gate before decision 0128 let it lag)."""
    stored = [("ruff:E501", "lint", s, ["web/app.ts"]) for s in ("s-a", "s-b")]
    with tempfile.TemporaryDirectory() as folder, FailureStore(Path(folder) / "f.db") as store:
        store.record_failures(failure_of(n, f) for n, f in enumerate(stored))
        signals = signals_of(store)
        assert not _shown(signals, ["src/cart.py"])
        assert can_change([("ruff:E501", "lint")], {"s-c"}, ["src/cart.py"], signals)
        store.record_failures([failure_of(9, ("ruff:E501", "lint", "s-c", ["src/cart.py"]))])
        assert _shown(signals_of(store), ["src/cart.py"]) == {"lint"}


def _tool(case: dict[str, Any]) -> str:
    return str(case.get("tool", "Bash"))


def _spooled_corpus(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[int, dict[str, Any], Path, dict[str, Any]]]:
    """Each PostToolUseFailure of the labelled corpus as the spool holds it, in a project of its
    own (``CLAUDE_PROJECT_DIR`` set to it): its index, case, project and spooled payload."""
    from helpers.corpus import payload, project
    from ruamel.yaml import YAML

    from pokayokay.hooks.runtime import SPOOLED_PROJECT_KEY

    corpus = YAML(typ="safe").load((DATA_DIR / "failure_corpus.yaml").read_text("utf-8"))
    for n, case in enumerate(corpus):
        if case.get("event") == "PostToolBatch":
            continue
        root = project(tmp_path, case)
        _event, data = payload(case, root, n, _tool(case))
        monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(root))
        yield n, case, root, {**data, SPOOLED_PROJECT_KEY: str(root)}


def test_the_gate_keys_are_what_the_ingest_stores_for_the_failure_corpus(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``capture.failure_keys`` (the gate's parse of a spooled call) gives, for every
    PostToolUseFailure of the labelled corpus, the (signature, category) pairs the real hook
    then stores: the verdict is about the groups the ingest actually touches."""
    from helpers.corpus import captured

    from pokayokay.hooks.capture import failure_keys

    checked = 0
    for n, case, root, spooled in _spooled_corpus(tmp_path, monkeypatch):
        keys = failure_keys(spooled)
        stored = [(f.signature, f.category) for f in captured(case, root, n, _tool(case))]
        assert sorted(set(keys)) == sorted(set(stored)), case["id"]
        checked += 1
    assert checked >= 50


def _known(signals: FailureSignals) -> set[str]:
    """The signatures the gate asks the capture's parse for (``spool_gate.could_change``)."""
    return {g.signature for g in signals.groups} | {g.signature for g in signals.near}


KEYS = st.lists(
    st.tuples(st.sampled_from((*SIGNATURES, "python:KeyError")), st.sampled_from(CATEGORIES)),
    min_size=1,
    max_size=3,
)


@given(
    stored=st.lists(FAILURE, max_size=8),
    keys=KEYS,
    session=st.sampled_from(SESSIONS),
    named=st.lists(st.sampled_from(NAMED), min_size=1, max_size=2, unique=True),
)
@settings(max_examples=80, deadline=None)
def test_the_verdict_is_the_same_without_the_keys_of_signatures_the_signals_lack(
    stored: list[tuple[str, str, str, list[str]]],
    keys: list[tuple[str, str]],
    session: str,
    named: list[str],
) -> None:
    """The gate classifies only an output whose signature the signals hold: the keys of any
    other signature, whatever their category, never change its verdict."""
    with tempfile.TemporaryDirectory() as folder, FailureStore(Path(folder) / "f.db") as store:
        store.record_failures(failure_of(n, f) for n, f in enumerate(stored))
        key = ["stamp"]
        signals = signals_from_data(signals_to_data(signals_of(store), key), key)
    assert signals is not None
    known = _known(signals)
    kept = [k for k in keys if k[0] in known]
    assert can_change(kept, {session}, named, signals) == can_change(
        keys, {session}, named, signals
    )


def test_an_output_whose_signature_the_signals_lack_is_not_classified(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``failure_keys(payload, wanted)``: the corpus's keys restricted to ``wanted``, and the
    classifier never runs when no signature is wanted (the gate's common case: a new
    failure)."""
    from pokayokay.failures import classify
    from pokayokay.hooks.capture import failure_keys

    checked = 0
    for _n, case, _root, spooled in _spooled_corpus(tmp_path, monkeypatch):
        keys = failure_keys(spooled)
        if not keys:
            continue
        first = keys[0][0]
        assert failure_keys(spooled, {first}) == [k for k in keys if k[0] == first], case["id"]
        with monkeypatch.context() as patched:

            def refuse(*args: object) -> str:
                raise AssertionError("classified an output no wanted signature names")

            patched.setattr(classify, "classify", refuse)
            assert failure_keys(spooled, {"no such signature"}) == [], case["id"]
        checked += 1
    assert checked >= 50


def test_a_store_with_no_group_a_failure_can_join_needs_no_parse(tmp_path: Path) -> None:
    """With no kept or near group in the signals, every key is passed over: the gate answers
    without parsing the record (one that does not parse, which is otherwise ingested first)."""
    from pokayokay.hooks.spool_gate import could_change

    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "cart.py").write_text("x = 1\n", "utf-8")
    unparsed = [("s-a", b"{not json", str(tmp_path))]
    empty = signals_from_groups([], {})
    assert not could_change(unparsed, str(tmp_path), ["src/cart.py"], empty)
    stored = [("ruff:E501", "lint", "s-b", ["src/cart.py"])]
    with tempfile.TemporaryDirectory() as folder, FailureStore(Path(folder) / "f.db") as store:
        store.record_failures(failure_of(n, f) for n, f in enumerate(stored))
        one = signals_of(store)
    assert could_change(unparsed, str(tmp_path), ["src/cart.py"], one)


def test_the_ingest_reuses_the_gates_parse_and_stores_what_a_parse_of_its_own_stores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The prompt's gate parses a spooled failure (``failure_keys``) and, when it can change the
    boost, ingests that record in the same process: the ingest takes the gate's parse instead
    of parsing again (decision 0159; no mistake scan runs), and records exactly the failures
    it records when it parses the record itself, over the labelled corpus."""
    from pokayokay.failures import mistakes
    from pokayokay.hooks.capture import failure_keys, post_tool_use_failure
    from pokayokay.hooks.runtime import SPOOLED_TIME_KEY

    recorded: list[list[object]] = []

    def record(store: FailureStore, failures: Any) -> int:
        recorded.append(list(failures))
        return 0

    monkeypatch.setattr(FailureStore, "record_failures", record)
    scans = [0]
    scan = mistakes.find_mistakes

    def counted(*args: Any, **kwargs: Any) -> Any:
        scans[0] += 1
        return scan(*args, **kwargs)

    monkeypatch.setattr(mistakes, "find_mistakes", counted)
    checked = 0
    for _n, case, _root, spooled in _spooled_corpus(tmp_path, monkeypatch):
        spooled[SPOOLED_TIME_KEY] = 1_700_000_000.5
        recorded.clear()
        post_tool_use_failure(dict(spooled), "PostToolUseFailure")  # parses on its own
        if not failure_keys(spooled):
            continue  # records nothing (an interrupt, pokayokay's own answer)
        scans[0] = 0
        post_tool_use_failure(dict(spooled), "PostToolUseFailure")  # the gate's parse, taken
        assert scans[0] == 0, case["id"]
        assert len(recorded) == 2 and recorded[0] == recorded[1], case["id"]
        scans[0] = 0
        post_tool_use_failure(dict(spooled), "PostToolUseFailure")  # taken once: parses again
        assert scans[0] == 1, case["id"]
        checked += 1
    assert checked >= 50
