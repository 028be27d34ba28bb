"""``pokayokay.infra.named_tuple.NamedTuple`` builds what ``typing.NamedTuple`` builds from the same
class body (decision 0159), and the store's named tuples built with it behave as tuples do."""

from __future__ import annotations

import pickle
import typing
from typing import Any

import pytest

from pokayokay.failures.model import Correction, Failure, FailureGroup
from pokayokay.infra.named_tuple import NamedTuple

BODY = '''
from __future__ import annotations

class Point(Base):
    """A point, with defaults, a method and a property."""

    x: int
    label: str | None  # a comment
    tags: tuple[str, ...] = ()
    weight: float = 1.5

    def moved(self, dx: int) -> Point:
        return self._replace(x=self.x + dx)

    @property
    def heavy(self) -> bool:
        return self.weight > 1
'''


def _built(base: Any, body: str = BODY, name: str = "Point") -> Any:
    space: dict[str, Any] = {"Base": base, "__name__": "tests.infra.sample"}
    exec(body, space)
    return space[name]


def test_the_class_is_the_one_typing_builds_from_the_same_body() -> None:
    ours, theirs = _built(NamedTuple), _built(typing.NamedTuple)
    for kind in (ours, theirs):
        assert kind.__mro__[1:] == (tuple, object)
    for attribute in ("__name__", "__qualname__", "__module__", "__doc__", "_fields"):
        assert getattr(ours, attribute) == getattr(theirs, attribute), attribute
    assert ours._field_defaults == theirs._field_defaults == {"tags": (), "weight": 1.5}
    assert ours.__new__.__defaults__ == theirs.__new__.__defaults__
    assert typing.get_type_hints(ours) == typing.get_type_hints(theirs)
    a, b = ours(1, "a"), theirs(1, "a")
    assert repr(a) == repr(b) == "Point(x=1, label='a', tags=(), weight=1.5)"
    assert tuple(a) == tuple(b) and a == b  # tuples, equal as tuples
    assert a.moved(2) == b.moved(2) == (3, "a", (), 1.5)
    assert a.heavy == b.heavy is True
    assert a._asdict() == b._asdict()
    assert ours._make([1, None, (), 2.0]) == theirs._make([1, None, (), 2.0])


def test_the_same_bodies_are_refused() -> None:
    late = "class Late(Base):\n    a: int = 1\n    b: int\n"
    reserved = "class Reserved(Base):\n    a: int\n    def _replace(self): ...\n"
    for base in (NamedTuple, typing.NamedTuple):
        with pytest.raises(TypeError, match="Non-default namedtuple field b cannot follow"):
            _built(base, late, "Late")
        with pytest.raises(AttributeError, match="Cannot overwrite NamedTuple attribute"):
            _built(base, reserved, "Reserved")


def test_the_store_values_pickle_compare_and_replace_as_tuples() -> None:
    failure = Failure(1.0, "s", "Bash", "pytest", "test:t", "testing", ("a.py",), "x", 1)
    assert pickle.loads(pickle.dumps(failure)) == failure
    assert failure._replace(category="lint").category == "lint"
    group = FailureGroup("sig", "testing", 2, 3, 1.0, 2.0, (), (), (), None, "x")
    assert (group.corrections, group.fix_edits, group.fix_commit) == ((), (), None)
    assert Correction._fields == ("failing", "corrected", "kind", "times")
    assert typing.get_type_hints(Failure)["command"] == (str | None)


def test_a_body_without_annotations_is_built_by_typing_itself() -> None:
    """A class body with no ``__annotations__`` in its namespace (no field, or annotations the
    compiler defers, as Python 3.14 does without the ``__future__`` import) goes to typing's own
    NamedTuple: the same class either way."""
    body = (
        'class Empty(Base):\n    """No fields."""\n\n'
        "    def size(self) -> int:\n        return 0\n"
    )
    ours, theirs = _built(NamedTuple, body, "Empty"), _built(typing.NamedTuple, body, "Empty")
    for attribute in ("__name__", "__doc__", "_fields", "_field_defaults"):
        assert getattr(ours, attribute) == getattr(theirs, attribute), attribute
    assert ours._fields == () and ours().size() == 0 and ours() == ()
    assert ours.__mro__[1:] == theirs.__mro__[1:] == (tuple, object)
