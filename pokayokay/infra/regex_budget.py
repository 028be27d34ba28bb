"""A user's pattern (settings ``failure_categories:``) run with a time budget per match.

Python's ``re`` has no timeout. :mod:`pokayokay.infra.regex_safety` refuses the shapes that
backtrack without end before a pattern is ever used; what is left can still be quadratic on a
long enough text (``x+y`` over 64 KiB of ``x``). So user patterns run on the ``regex`` package
(``re``'s syntax and results, ``VERSION0``), whose matches take a ``timeout``: a match that runs
past :data:`BUDGET` seconds counts as no match, is reported once (``on_timeout``, which the edge
that loads the patterns sets to a log line: this module is pure), and the pattern is not run
again in this process. Built-in patterns are pokayokay's own, reviewed, and stay on ``re``.
Decision 0060.
"""

from __future__ import annotations

TYPE_CHECKING = False  # no typing import at run time: capture imports this module
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["BUDGET", "Budgeted"]

BUDGET = 0.05  # seconds per match


class Budgeted:
    """One compiled user pattern; ``search``/``fullmatch`` as ``re.Pattern``'s, within
    :data:`BUDGET`. Compiling raises ``ValueError`` for a pattern ``regex`` refuses."""

    __slots__ = ("_compiled", "gave_up", "on_timeout", "pattern")

    def __init__(self, pattern: str) -> None:
        import regex

        self.pattern = pattern
        self.gave_up = False
        # Called once, with the pattern and the text's length, when a match runs out of time.
        self.on_timeout: Callable[[str, int], None] | None = None
        try:
            self._compiled: Any = regex.compile(pattern, flags=regex.VERSION0)
        except regex.error as exc:
            raise ValueError(f"invalid regex {pattern!r} ({exc})") from None

    def search(self, text: str) -> Any:
        return self._run(self._compiled.search, text)

    def fullmatch(self, text: str) -> Any:
        return self._run(self._compiled.fullmatch, text)

    def _run(self, how: Any, text: str) -> Any:
        if self.gave_up:
            return None
        try:
            return how(text, timeout=BUDGET)
        except TimeoutError:
            self.gave_up = True
            if self.on_timeout is not None:
                self.on_timeout(self.pattern, len(text))
            return None
