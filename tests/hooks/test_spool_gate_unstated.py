"""The spool gate passes over a first recurrence in a category the suggestion would not state
where the prompt points (issue 26): no skill of the catalog may address the category, and at
least ``MAX_UNADDRESSED`` other categories no skill addresses recur there in more sessions, so
they are stated before it. The property holds that verdict to what the suggestion says, over
stores written through ``FailureStore`` and catalogs of real skill descriptions: wherever the
gate without the catalog ingests first and the gate with it does not, the recurring failures the
suggestion states (boosted skills with their reasons, the first unaddressed ones) are the same
before and after the failure is stored."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

from helpers.failure_specs import Spec, failure_of, signals_of
from hypothesis import given, settings
from hypothesis import strategies as st

from pokayokay.failures.store import FailureStore
from pokayokay.hooks.spool_gate import can_change, stated_after
from pokayokay.skills.catalog import Skill, analysed, skill_from_text
from pokayokay.skills.failure_boost import (
    FailureSignals,
    recurring,
    signals_from_data,
    signals_to_data,
)
from pokayokay.skills.suggest import MAX_UNADDRESSED

COMMANDS = {
    "testing": "pytest -q",
    "lint": "ruff check .",
    "types": "mypy src",
    "build": "make build",
    "dependencies": "pip install -e .",
    "git": "git push",
}
CATEGORIES = tuple(COMMANDS)
SIGNATURES = tuple(f"sig-{n}" for n in range(5))
NEAR = "sig-near"  # the group of one session a spooled failure makes recur
SESSIONS = tuple(f"s-{n}" for n in range(6))
PATHS = ("src/cart.py", "tests/test_cart.py", "Makefile")
NAMED = ("src/cart.py", "tests/", "Makefile")


def _skill(name: str, description: str) -> Skill:
    text = f"---\nname: {name}\ndescription: {description}\n---\n"
    return analysed(skill_from_text(text, name, f"/skills/{name}/SKILL.md", "project"))


# Descriptions as real catalogs word them (anthropics/skills, obra/superpowers).
CATALOG = (
    _skill("python-testing", "Write and run pytest suites: fixtures, parametrize, coverage."),
    _skill("pdf", "Extract text and tables from PDF files, fill forms, merge documents."),
    _skill("brand-guidelines", "Apply the company's colours and typography to artifacts."),
    _skill("git-workflow", "Branching, rebasing and resolving merge conflicts with git."),
)
CATALOGS = st.sampled_from([(), CATALOG[1:3], CATALOG, CATALOG[:1]])
FAILURE = st.tuples(
    st.sampled_from(SIGNATURES),
    st.sampled_from(CATEGORIES),
    st.sampled_from(SESSIONS),
    st.lists(st.sampled_from(PATHS), min_size=1, max_size=2, unique=True),
)


@st.composite
def _stores(draw: st.DrawFn) -> list[Spec]:
    """A few categories recurring in several sessions around the named paths, a few failures
    anywhere, and a group of one session (``NEAR``): the case the gate decides."""
    stored = draw(st.lists(FAILURE, max_size=4))
    for signature in draw(
        st.lists(st.sampled_from(SIGNATURES), min_size=2, max_size=3, unique=True)
    ):
        category = draw(st.sampled_from(CATEGORIES))
        paths = draw(st.lists(st.sampled_from(PATHS), min_size=1, max_size=2, unique=True))
        for session in draw(
            st.lists(st.sampled_from(SESSIONS), min_size=3, max_size=5, unique=True)
        ):
            stored.append((signature, category, session, paths))
    near = draw(st.sampled_from(CATEGORIES))
    stored.append((NEAR, near, SESSIONS[0], draw(st.lists(st.sampled_from(PATHS), max_size=1))))
    return stored


def _said(
    signals: FailureSignals, named: Sequence[str], skills: Sequence[Skill]
) -> tuple[list[tuple[str, str]], list[str]]:
    """What the suggestion states of recurring failures (``skills.suggest``): each boosted
    skill with its reason, in order, and the first unaddressed failures."""
    found = recurring(signals.groups, named, skills)
    boosted = [(r.skill, r.reason) for r in found if r.skill is not None]
    unaddressed = [r.reason for r in found if r.skill is None][:MAX_UNADDRESSED]
    return boosted, unaddressed


def _check(
    stored: list[Spec],
    spooled: Spec,
    named: list[str],
    skills: Sequence[Skill],
    commands: bool = True,
) -> bool:
    """True when only the catalog made the gate pass over ``spooled`` (then what is said is
    checked equal before and after storing it)."""
    session = spooled[2]
    with tempfile.TemporaryDirectory() as folder, FailureStore(Path(folder) / "f.db") as store:
        store.record_failures(failure_of(n, f, COMMANDS[f[1]]) for n, f in enumerate(stored))
        key = ["stamp"]
        before = signals_from_data(signals_to_data(signals_of(store), key), key)
        assert before is not None
        keys = [(spooled[0], spooled[1])]
        without = can_change(keys, {session}, named, before)
        read: list[int] = []

        def catalog() -> Sequence[Skill]:
            read.append(1)
            return skills

        ran = [COMMANDS[spooled[1]]] if commands else None
        with_catalog = can_change(keys, {session}, named, before, catalog, ran)
        assert len(read) <= 1  # read once, and only when the question comes up
        store.record_failures([failure_of(len(stored), spooled, COMMANDS[spooled[1]])])
        after = signals_of(store)
    assert without or not with_catalog, "the catalog made the gate ingest where it did not"
    if without and not with_catalog:
        # the suggestion weighs the usable skills, less a spike's: any subset
        for subset in (skills, skills[1:], ()):
            assert _said(before, named, subset) == _said(after, named, subset)
        return True
    return False


SPOOLED = st.tuples(
    st.sampled_from((NEAR, NEAR, NEAR, *SIGNATURES)),
    st.sampled_from(CATEGORIES),
    st.sampled_from(SESSIONS[1:]),
    st.lists(st.sampled_from(PATHS), min_size=1, max_size=2, unique=True),
)


@given(
    stored=_stores(),
    spooled=SPOOLED,
    named=st.lists(st.sampled_from(NAMED), min_size=1, max_size=2, unique=True),
    skills=CATALOGS,
    commands=st.booleans(),
)
@settings(max_examples=60, deadline=None)
def test_a_first_recurrence_the_suggestion_would_not_state_is_left_to_stop(
    stored: list[Spec], spooled: Spec, named: list[str], skills: Sequence[Skill], commands: bool
) -> None:
    _check(stored, spooled, named, skills, commands)


def test_the_benchmarks_build_failure_is_left_to_stop_unless_a_skill_may_address_it() -> None:
    """The budget project's case (a first recurrence of a make build failure, decision 0170):
    two categories no skill addresses recur where the prompt points in more sessions."""
    named = ["src/cart.py"]
    stored: list[Spec] = []
    for n, session in enumerate(SESSIONS):
        stored.append(("sig-0", "dependencies", session, ["src/cart.py"]))
        if n < 4:
            stored.append(("sig-1", "git", session, ["src/cart.py"]))
    stored.append(("sig-2", "build", "s-0", ["src/native/x.c"]))
    spooled: Spec = ("sig-2", "build", "s-5", ["src/cart.py"])
    assert _check(stored, spooled, named, CATALOG[1:3])
    # A skill that may address the category: the boost may show, the prompt ingests first.
    make = _skill("make-builds", "Fix failing make and webpack builds, read compiler errors.")
    with tempfile.TemporaryDirectory() as folder, FailureStore(Path(folder) / "f.db") as store:
        store.record_failures(failure_of(n, f, COMMANDS[f[1]]) for n, f in enumerate(stored))
        signals = signals_of(store)
    keys = [("sig-2", "build")]
    ran = ["make build"]
    assert not can_change(keys, {"s-5"}, named, signals, lambda: CATALOG[1:3], ran)
    assert can_change(keys, {"s-5"}, named, signals, lambda: [*CATALOG[1:3], make], ran)
    assert stated_after("build", 2, named, signals, [make], ran)
    # A skill about another build tool addresses make's failures only when the group's tool
    # is unknown (a failure with no command keeps the sample the signals do not hold).
    webpack = _skill("webpack-config", "Configure webpack bundles, loaders and code splitting.")
    assert not stated_after("build", 2, named, signals, [webpack], ran)
    assert stated_after("build", 2, named, signals, [webpack], None)
    # One unaddressed category ahead only: the new one would be stated second.
    fewer = [spec for spec in stored if spec[0] != "sig-1"]
    with tempfile.TemporaryDirectory() as folder, FailureStore(Path(folder) / "f.db") as store:
        store.record_failures(failure_of(n, f, COMMANDS[f[1]]) for n, f in enumerate(fewer))
        signals = signals_of(store)
    assert can_change(keys, {"s-5"}, named, signals, lambda: CATALOG[1:3])


def test_a_tie_in_sessions_goes_to_the_newer_group() -> None:
    """``recurring()`` orders groups by sessions, then the latest failure: a group that
    reaches as many sessions as an unaddressed one ahead of it comes first, and is stated."""
    named = ["src/cart.py"]
    stored: list[Spec] = [("sig-0", "dependencies", s, ["src/cart.py"]) for s in SESSIONS[:4]]
    stored += [("sig-1", "git", s, ["src/cart.py"]) for s in SESSIONS[:2]]
    stored.append((NEAR, "build", SESSIONS[0], []))
    assert not _check(stored, (NEAR, "build", SESSIONS[5], ["src/cart.py"]), named, ())
    with tempfile.TemporaryDirectory() as folder, FailureStore(Path(folder) / "f.db") as store:
        store.record_failures(failure_of(n, f, COMMANDS[f[1]]) for n, f in enumerate(stored))
        signals = signals_of(store)
    assert stated_after("build", 2, named, signals, ())
    assert not stated_after("build", 1, named, signals, ())
