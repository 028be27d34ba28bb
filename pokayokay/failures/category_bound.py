"""The category a failing command is bound to, and the strings that would unbind it (decision 0150).

The prompt's spool gate (:mod:`pokayokay.hooks.spool_gate`) needs a spooled failure's category
only when its signature is a group that already recurs where the prompt points: the boost
changes only if the category moved. For a shell command the classifier's first matching row is
often decided by the command alone (``pytest …`` is ``testing`` unless an error row before the
test-runner row matches the output), so the category of any failure of that command is known
once the rows before it are ruled out by their required literals
(:func:`pokayokay.failures.classify.command_bound`).

:func:`bound_for_command` is computed where the failure signals are rebuilt after a store write
(Stop, the catch-up worker: processes that have the capture pipeline loaded), and kept with each
recurring group's sample command in the signals' cache. The gate then settles a spooled failure
of the same raw command with one ``in`` per witness on its cut output, importing neither ``re``
nor the pipeline (:func:`pokayokay.failures.reach.bound_holds`).

What makes "no witness in the raw output" imply "the rows before the bound row do not match the
texts the classifier reads":

* the command the classifier reads is ``command_key(redact(cut_text(raw)))``; the bound is kept
  only for a sample command that is its own such form, so a raw command equal to it reads the
  same;
* the classifier reads the redacted output (after ``cut_text``, and the first mistake's lines,
  which are lines of it cut and right-stripped): a literal with no line break found there but
  not in the cut raw output must overlap a redaction marker, and every such overlap leaves a
  part of the literal (its piece outside the markers) in the raw output. Those pieces are the
  literal's witnesses; a literal a marker could hold whole, or with a line break, unbinds.

User rows (settings ``failure_categories:``) come before the built-in table: the gate uses a
bound only when the project has none.
"""

from __future__ import annotations

from pokayokay.failures.classify import command_bound
from pokayokay.failures.reach import COMMAND_TOOLS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

# Kinds redaction writes besides its table's (its key-position kinds, PEM blocks, password
# flags, an input cut for length); tests/failures/test_category_bound.py holds the list to
# what redaction writes.
EXTRA_KINDS = (
    "password", "secret", "token", "credential", "api-key", "private-key", "unscanned",
)  # fmt: skip


def markers() -> tuple[str, ...]:
    """Every marker redaction writes (``[redacted:<kind>]``)."""
    from pokayokay.safety.redact import MARK, SHAPES

    kinds = dict.fromkeys([*(shape.kind for shape in SHAPES), *EXTRA_KINDS])
    return tuple(MARK.format(kind) for kind in kinds)


def witnesses(literal: str, marks: Iterable[str]) -> tuple[str, ...] | None:
    """Strings one of which the raw (cut) output holds whenever the redacted output holds
    ``literal``: the literal itself and its pieces outside any marker it may overlap; None when
    no such string exists (a marker may hold it whole, it holds a line break, or its outside
    pieces are empty)."""
    if "\n" in literal or "\r" in literal or not literal:
        return None
    marks = tuple(marks)
    if any(literal in mark or "[redacted:" in literal for mark in marks):
        return None
    size = len(literal)
    # k: the literal's first k characters may be a marker's end; j: its last j a marker's start
    starts = [0, *(k for k in range(1, size + 1) if any(m.endswith(literal[:k]) for m in marks))]
    ends = [0, *(j for j in range(1, size + 1) if any(m.startswith(literal[-j:]) for m in marks))]
    found: list[str] = []
    for k in starts:
        for j in ends:
            if k + j >= size:
                return None  # the literal may be made of marker pieces only
            found.append(literal[k : size - j])
    return tuple(dict.fromkeys(found))


def bound_for_command(command: str) -> tuple[str, tuple[str, ...]] | None:
    """``(category, witnesses)``: the category every failure of a shell tool running ``command``
    is classified in (by the built-in table) when its cut raw output holds none of
    ``witnesses``; None when no such bound exists."""
    from pokayokay.failures.signature import command_key
    from pokayokay.infra.spool import cut_text
    from pokayokay.safety.redact import redact

    if not command or command_key(redact(cut_text(command))) != command:
        return None  # the classifier would read another command than the raw one
    bounds = {command_bound(tool, command) for tool in sorted(COMMAND_TOOLS)}
    if len(bounds) != 1:
        return None
    (bound,) = bounds
    if bound is None:
        return None
    category, literals = bound
    marks = markers()
    found: list[str] = []
    for literal in literals:
        some = witnesses(literal, marks)
        if some is None:
            return None
        found.extend(some)
    return category, tuple(dict.fromkeys(found))
