"""``pokayokay semantic``: the retired semantic recall (decision 0142).

Every ``pokayokay semantic ...`` command of the extra's time (``fetch``, ``refresh``,
``status``, with whatever options it was given) still runs: it prints one line saying the extra
was retired, why, and which files to delete to get the space back, and exits 0, so a script or
a habit that calls it learns what happened instead of meeting an argparse error.
``pokayokay semantic remove`` deletes exactly those files
(:func:`pokayokay.recall.semantic_leftovers.remove`) after printing each of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse
    from typing import Any

REMOVE = "remove"


def add_parser(sub: Any) -> None:
    """Register ``semantic`` on the CLI's subparsers: any words after it are taken as they are
    (``fetch --wheel FILE`` included)."""
    import argparse

    p = sub.add_parser(
        "semantic",
        help="retired (decision 0142): `semantic remove` deletes the files it left",
        description="Semantic recall was retired (decision 0142). `pokayokay semantic remove` "
        "deletes the model and the note vectors it left in pokayokay's state folder; any other "
        "action prints one line saying so.",
    )
    p.add_argument("words", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_semantic)


def cmd_semantic(ns: argparse.Namespace) -> int:
    from pokayokay.recall.semantic_leftovers import leftovers, retired_line

    found = leftovers()
    if REMOVE not in ns.words:  # wherever options put it: `semantic --project . remove`
        print(retired_line(found))
        return 0
    return remove_leftovers(found)


def remove_leftovers(found: list[Any]) -> int:
    """Print each leftover, delete exactly those, and say what was freed; a file that could not
    be deleted is a PokayokayError naming it (the others are deleted all the same)."""
    from pokayokay.errors import PokayokayError
    from pokayokay.recall.semantic_leftovers import remove, size_text

    if not found:
        print("semantic remove: nothing to remove (the retired semantic recall left no files)")
        return 0
    for item in found:
        print(f"removing {item.path} ({item.what}, {size_text(item.size)})")
    removed, failed = remove(found)
    freed = sum(item.size for item in removed)
    print(f"semantic remove: {len(removed)} removed, {size_text(freed)} freed")
    if failed:
        reasons = "; ".join(f"{item.path}: {why}" for item, why in failed)
        raise PokayokayError(f"semantic remove: could not remove {len(failed)}: {reasons}")
    return 0
