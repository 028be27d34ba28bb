"""infra.Value: the slotted value classes the hook paths use instead of dataclasses
(docs/decisions/0154), checked on the classes the package declares with it."""

from __future__ import annotations

import pytest

from pokayokay.failures.classify import Rule
from pokayokay.hooks.events import HOOKED_EVENTS, HookSpec
from pokayokay.infra import Value
from pokayokay.learnings.outcomes.chain_entries import SessionOutcome
from pokayokay.skills.failure_boost import GroupSignal, NearGroup
from pokayokay.skills.suggest import Signals


def _outcome(**changed: object) -> SessionOutcome:
    fields: dict[str, object] = dict(
        day="2025-03-02", session_id="1f0c2a9e", task="fix the tests", skills=("pytest",),
        failures=2, categories=(("testing", 2),), files=("tests/test_app.py",), result="clean",
    )  # fmt: skip
    fields.update(changed)
    return SessionOutcome(**fields)  # type: ignore[arg-type]


def test_fields_are_slots_in_declared_order_with_defaults() -> None:
    outcome = _outcome()
    assert SessionOutcome._fields_ == (
        "day", "session_id", "task", "skills", "failures", "categories", "files", "result",
        "result_note",
    )  # fmt: skip
    assert outcome.result_note == ""
    assert not hasattr(outcome, "__dict__")
    with pytest.raises(AttributeError):
        outcome.elsewhere = 1  # type: ignore[attr-defined]
    positional = SessionOutcome(
        "2025-03-02", "1f0c2a9e", "fix the tests", ("pytest",), 2, (("testing", 2),),
        ("tests/test_app.py",), "clean",
    )  # fmt: skip
    assert positional == outcome


def test_eq_true_compares_and_hashes_every_field_of_the_same_class_only() -> None:
    assert _outcome() == _outcome() and hash(_outcome()) == hash(_outcome())
    assert _outcome() != _outcome(result_note="pytest passed after the fix")
    assert len({_outcome(), _outcome(), _outcome(failures=3)}) == 2
    assert _outcome() != ("2025-03-02", "1f0c2a9e")  # type: ignore[comparison-overlap]
    near = NearGroup("abc123", "testing", 1, "s1", ("src/app.py",))
    assert near == NearGroup("abc123", "testing", 1, "s1", ("src/app.py",))
    assert near != NearGroup("abc123", "testing", 1, "s2", ("src/app.py",))


def test_without_eq_a_value_is_equal_only_to_itself() -> None:
    one = GroupSignal("testing", 2, 1.0, ("src/app.py",), None)
    assert one == one and one != GroupSignal("testing", 2, 1.0, ("src/app.py",), None)
    assert Signals() != Signals()


def test_repr_is_the_fields_by_name_unless_the_class_writes_its_own() -> None:
    assert repr(_outcome(files=())) == (
        "SessionOutcome(day='2025-03-02', session_id='1f0c2a9e', task='fix the tests', "
        "skills=('pytest',), failures=2, categories=(('testing', 2),), files=(), "
        "result='clean', result_note='')"
    )
    assert repr(GroupSignal("testing", 2, 1.0, ("a.py",), None)) == (
        "GroupSignal('testing', 2, ('a.py',))"
    )
    assert Rule("testing", note="x") == Rule("testing", note="x")  # its own _key


def test_wrong_calls_fail_as_a_function_call_would() -> None:
    with pytest.raises(TypeError, match="missing the argument 'result'"):
        SessionOutcome("d", "s", "t", (), 0, (), ())  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="takes 5 positional arguments, 6 given"):
        NearGroup("a", "b", 1, "c", (), 9)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="unexpected or repeated arguments signature"):
        NearGroup("a", "b", 1, "c", (), signature="x")  # type: ignore[misc]
    with pytest.raises(TypeError, match="unexpected or repeated arguments colour"):
        Signals(colour="red")  # type: ignore[call-arg]


def test_a_field_without_default_after_one_with_a_default_is_refused() -> None:
    with pytest.raises(TypeError, match="'b' without a default follows a default"):

        class Bad(Value):
            a: int = 0
            b: int  # type: ignore[misc]


def test_fields_after_kw_only_are_keywords() -> None:
    spec = HookSpec("Stop", None, 10, "stop:stop", background=True)
    assert spec.background and HookSpec("Stop", None, 10, "stop:stop").background is False
    assert spec == HookSpec("Stop", None, 10, "stop:stop", background=True)
    assert spec != HookSpec("Stop", None, 10, "stop:stop")
    assert len(set(HOOKED_EVENTS)) == len(HOOKED_EVENTS)
    with pytest.raises(TypeError, match="takes 4 positional arguments, 5 given"):
        HookSpec("Stop", None, 10, "stop:stop", True)  # type: ignore[call-arg]


def test_a_value_class_extends_value_itself() -> None:
    with pytest.raises(TypeError, match="extends Value itself"):

        class Wider(NearGroup):
            extra: int = 0


def test_a_slot_of_its_own_holds_what_is_not_a_field() -> None:
    from pokayokay.safety.redact import Shape

    slots = ("_compiled", "kind", "pattern", "hints", "check", "kind_from_key", "gate")
    assert Shape.__dict__["__slots__"] == slots
    shape = Shape("token", r"tok_[a-z]{4}", ("tok_",), kind_from_key=True)
    assert repr(shape) == "Shape('token', 'tok_[a-z]{4}')" and shape.gate is None
    assert shape.regex is shape.regex and shape.regex.fullmatch("tok_abcd")
    assert not hasattr(shape, "__dict__")
