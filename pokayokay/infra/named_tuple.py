"""``typing.NamedTuple``'s class syntax without importing :mod:`typing` (pure; standard library).

``import typing`` costs a hook 18 M instructions, about half of a bare interpreter's start
(callgrind, after ``re`` and ``sqlite3``), and the ingest inside a prompt needed it only to
build the failure store's named tuples and ``Protocol``/``TypeVar`` names read by type checkers
alone (decision 0159). A module writes::

    TYPE_CHECKING = False
    if TYPE_CHECKING:
        from typing import NamedTuple
    else:
        from pokayokay.infra.named_tuple import NamedTuple

and ``class Failure(NamedTuple): ...`` then builds what typing's class does: a
:func:`collections.namedtuple` with the fields the class body annotates, in order, the defaults
it assigns (a field without one after a field with one is refused), its docstring, methods and
other attributes, and the annotations as written (strings under ``from __future__ import
annotations``, which such a module keeps: the annotations are never evaluated here). A class body
whose annotations the compiler defers (Python 3.14 without that import) is handed to typing's own
``NamedTuple``, so the result is the same either way.
"""

from __future__ import annotations

import collections

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# As typing's NamedTupleMeta: names a class body may not set, and names it sets that are not
# copied onto the built class.
_PROHIBITED = frozenset(
    {
        "__new__", "__init__", "__slots__", "__getnewargs__", "_fields", "_field_defaults",
        "_make", "_replace", "_asdict", "_source",
    }
)  # fmt: skip
_SPECIAL = frozenset({"__module__", "__name__", "__annotations__"})


class _NamedTupleMeta(type):
    def __new__(mcs, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> Any:
        if "__annotations__" not in namespace:
            return _typed(name, namespace)
        fields: dict[str, Any] = dict(namespace["__annotations__"])
        defaulted: list[str] = []
        for field in fields:
            if field in namespace:
                defaulted.append(field)
            elif defaulted:
                raise TypeError(
                    f"Non-default namedtuple field {field} cannot follow default field"
                    f"{'s' if len(defaulted) > 1 else ''} {', '.join(defaulted)}"
                )
        defaults = [namespace[field] for field in defaulted]
        make: Any = collections.namedtuple  # defaults read from the class body, not a literal
        built = make(name, list(fields), defaults=defaults, module=namespace["__module__"])
        built.__annotations__ = built.__new__.__annotations__ = fields
        for key, value in namespace.items():
            if key in _PROHIBITED:
                raise AttributeError(f"Cannot overwrite NamedTuple attribute {key}")
            if key not in _SPECIAL and key not in built._fields:
                setattr(built, key, value)
        return built


def _typed(name: str, namespace: dict[str, Any]) -> Any:
    """The class built by typing's own NamedTuple from the same body."""
    import types
    from typing import NamedTuple as Typed

    return types.new_class(name, (Typed,), exec_body=lambda ns: ns.update(namespace))


NamedTuple: Any = type.__new__(_NamedTupleMeta, "NamedTuple", (), {})
