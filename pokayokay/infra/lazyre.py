"""Regular expressions compiled on first use (pure).

A module on the prompt's hot path compiles at import only the patterns every prompt runs; the
ones a prompt seldom or never needs (skill-description analysis, rare phrase folding) are
:class:`Lazy`: the same pattern and flags, compiled the first time a method is called.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator


class Lazy:
    """``re.compile(pattern, flags)``, done on first use."""

    __slots__ = ("_args", "_regex")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._args = (pattern, flags)
        self._regex: re.Pattern[str] | None = None

    @property
    def pattern(self) -> str:
        return self._args[0]

    @property
    def regex(self) -> re.Pattern[str]:
        if self._regex is None:
            self._regex = re.compile(*self._args)
        return self._regex

    def search(self, text: str) -> re.Match[str] | None:
        return self.regex.search(text)

    def match(self, text: str) -> re.Match[str] | None:
        return self.regex.match(text)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return self.regex.finditer(text)

    def findall(self, text: str) -> list[str]:
        return self.regex.findall(text)

    def split(self, text: str, maxsplit: int = 0) -> list[str]:
        return self.regex.split(text, maxsplit)

    def sub(self, repl: str | Callable[[re.Match[str]], str], text: str) -> str:
        return self.regex.sub(repl, text)
