"""What a failing test said beyond its message: the two sides of a failed comparison (pure).

Test runners print them on the lines after the message: jest and vitest ``Expected: 400`` /
``Received: 399.6`` (``Expected substring: "price"``), Rust's ``left: 999`` / ``right: 1000``.
The capture keeps them in the stored excerpt right after the message
(:func:`pokayokay.failures.signature.whole_lines`), and the rule and the prompt show them beside
it. No imports: the prompt hook reads this module."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

VALUE_STARTS = ("Expected", "Received", "left:", "right:")
MAX_VALUES = 2  # sides kept
MAX_VALUE_CHARS = 120


def values_after(lines: Sequence[str], at: int, window: int = 5) -> list[str]:
    """The comparison's sides among the ``window`` stripped ``lines`` after ``lines[at]`` (its
    message), as written: at most :data:`MAX_VALUES`, each at most :data:`MAX_VALUE_CHARS`."""
    return [
        line
        for line in lines[at + 1 : at + 1 + window]
        if line.startswith(VALUE_STARTS) and ":" in line[:24] and len(line) <= MAX_VALUE_CHARS
    ][:MAX_VALUES]
