"""The infrastructure layer; its ``__init__`` holds :class:`Value`, the base of the slotted value
classes of the hook paths, written without ``dataclasses`` (docs/decisions/0154).

A hook imports ``dataclasses`` at 6-9 ms of its start (decision 0126), so the value classes of
the modules a hook imports were written by hand: ``__slots__``, an ``__init__`` of
``self.x = x`` lines, and ``__eq__``/``__hash__``/``__repr__`` over the same fields. This module
writes that once. A subclass of :class:`Value` declares its fields as class annotations, in
order, a default after ``=`` as in a dataclass::

    class Spot(Value, eq=True):
        x: int
        label: str = ""

and gets ``__slots__`` (one a field), an ``__init__`` taking the fields positionally or by name
(by name only after a ``_: KW_ONLY`` line, ``KW_ONLY`` imported from ``dataclasses`` for the
type checker only), and a ``__repr__`` ``Spot(x=1, label='')``; with ``eq=True`` also
``__eq__`` and ``__hash__`` over the fields in order (a value of exactly the same class only).
A class may still write any of these methods itself; its own wins, and a ``__slots__`` of its
own holds what is not a field (a cache its methods fill). A value class extends :class:`Value`
itself, never another value class.

Type checkers read the class as a dataclass (``dataclass_transform``, PEP 681), so mypy checks
every constructor call (argument count, names and types) as it checked the hand-written
``__init__``. At run time it imports nothing, and the classes are built without ``exec``.

It lives in the ``infra`` package's ``__init__`` because every hook imports that package already:
a module of its own was measured at 0.3 M instructions more on each hook (a file found, read and
unmarshalled), about 0.5 % of PreToolUse's run (decision 0154).

Fields are read from the class body's ``__annotations__``: a module that declares a value class
has ``from __future__ import annotations`` (the annotations stay strings and are never
evaluated; a ``ClassVar[...]`` one is not a field). Defaults are stored by the class, never on
the instance's slot, so a mutable default would be shared: only immutable ones are used.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar

    from typing_extensions import dataclass_transform
else:

    def dataclass_transform(**_: object) -> object:
        return lambda cls: cls


_MISSING = object()


@dataclass_transform(eq_default=False)
class ValueMeta(type):
    """Builds a :class:`Value` subclass: its fields, slots and defaults (see the module)."""

    def __new__(
        mcs, name: str, bases: tuple[type, ...], namespace: dict[str, Any], *, eq: bool = False
    ) -> ValueMeta:
        annotations = namespace.get("__annotations__", {})
        if "__annotate__" in namespace and not annotations:
            raise TypeError(f"{name}: a value class needs `from __future__ import annotations`")
        if any(getattr(base, "_fields_", ()) for base in bases):
            raise TypeError(f"{name}: a value class extends Value itself, not another one")
        fields: list[str] = []
        positional = -1  # all, unless a ``_: KW_ONLY`` line makes the fields after it keywords
        defaults: dict[str, object] = {}
        for field, kind in annotations.items():
            kind = str(kind)
            if kind.startswith(("ClassVar", "typing.ClassVar")):
                continue
            if kind in ("KW_ONLY", "dataclasses.KW_ONLY"):
                positional = len(fields)
                continue
            if field in namespace:
                defaults[field] = namespace.pop(field)
            elif defaults and positional < 0:
                raise TypeError(f"{name}: field {field!r} without a default follows a default")
            fields.append(field)
        namespace["__slots__"] = (*namespace.get("__slots__", ()), *fields)
        namespace["_fields_"] = tuple(fields)
        namespace["_positional_"] = len(fields) if positional < 0 else positional
        namespace["_defaults_"] = defaults
        if eq:
            namespace.setdefault("__eq__", _eq)
            namespace.setdefault("__hash__", _hash)
        return super().__new__(mcs, name, bases, namespace)


def _eq(self: Value, other: object) -> object:  # (bool, or NotImplemented for another type)
    if type(other) is not type(self) or not isinstance(other, Value):
        return NotImplemented
    return self._values_() == other._values_()


def _hash(self: Value) -> int:
    return hash(self._values_())


class Value(metaclass=ValueMeta):
    """The base of a slotted value class (see the module)."""

    __slots__ = ()
    _fields_: ClassVar[tuple[str, ...]] = ()
    _positional_: ClassVar[int] = 0
    _defaults_: ClassVar[dict[str, object]] = {}

    def __init__(self, *args: object, **kwargs: object) -> None:
        fields = self._fields_
        if len(args) > self._positional_:
            given = f"{self._positional_} positional arguments, {len(args)} given"
            raise TypeError(f"{type(self).__name__} takes {given}")
        set_field = object.__setattr__
        for field, value in zip(fields, args, strict=False):
            set_field(self, field, value)
        for field in fields[len(args) :]:
            value = kwargs.pop(field, _MISSING)
            if value is _MISSING:
                value = self._defaults_.get(field, _MISSING)
                if value is _MISSING:
                    raise TypeError(f"{type(self).__name__} is missing the argument {field!r}")
            set_field(self, field, value)
        if kwargs:
            unknown = ", ".join(sorted(kwargs))
            raise TypeError(f"{type(self).__name__}: unexpected or repeated arguments {unknown}")

    def _values_(self) -> tuple[object, ...]:
        """The fields' values, in order."""
        return tuple([getattr(self, field) for field in self._fields_])

    def __repr__(self) -> str:
        shown = ", ".join(f"{field}={getattr(self, field)!r}" for field in self._fields_)
        return f"{type(self).__name__}({shown})"
