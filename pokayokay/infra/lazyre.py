"""Regular expressions compiled on first use (pure).

A module on the prompt's hot path compiles at import only the patterns every prompt runs; the
ones a prompt seldom or never needs (skill-description analysis, rare phrase folding) are
:class:`Lazy`: the same pattern and flags, compiled the first time a method is called. The
capture pipeline's pattern tables (signatures, mistakes, evidence paths, categories) are Lazy
too, so that an ingest compiles only the patterns its output reaches.

After the first call a Lazy's methods are the compiled pattern's own (bound as attributes of
the instance), so a pattern run on every line of an output costs what a compiled one does.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Callable, Iterator
    from typing import TypeVar

    T = TypeVar("T")

# re's flag values (tests hold them equal), so that modules need not import re for a flag.
IGNORECASE = 2
MULTILINE = 8
DOTALL = 16
VERBOSE = 64
ASCII = 256


def compile_pattern(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``: ``re`` is imported on the first pattern compiled."""
    import re

    return re.compile(pattern, flags)


_MAX = 1 << 62
_METHODS = ("search", "match", "fullmatch", "finditer", "findall", "split", "sub", "subn")


class Lazy:
    """``re.compile(pattern, flags)``, done on first use. With ``literals``, ``search``,
    ``match`` and ``fullmatch`` answer None without compiling for a text that holds none of
    the strings every match contains (:func:`pokayokay.infra.literals.required_literals`, read
    from the pattern on its first use, or given: the tuple that function returns for it, read
    ahead, ``()`` for none): for a pattern tried on many texts that seldom match."""

    def __init__(
        self, pattern: str, flags: int = 0, *, literals: bool | tuple[str, ...] = False
    ) -> None:
        self._args = (pattern, flags)
        self._regex: re.Pattern[str] | None = None
        # None: not read yet; (): no strings to look for (or not asked to)
        self._needs: tuple[str, ...] | None = (
            literals if isinstance(literals, tuple) else None if literals else ()
        )

    def __repr__(self) -> str:
        return f"Lazy({self._args[0]!r}, {self._args[1]!r})"

    @property
    def pattern(self) -> str:
        return self._args[0]

    @property
    def flags(self) -> int:
        return self.regex.flags

    @property
    def groupindex(self) -> dict[str, int]:
        return dict(self.regex.groupindex)

    @property
    def regex(self) -> re.Pattern[str]:
        if self._regex is None:
            regex = compile_pattern(*self._args)
            for name in _METHODS:  # later calls go straight to the compiled pattern
                setattr(self, name, getattr(regex, name))
            self._regex = regex
        return self._regex

    def _cannot_match(self, text: str, pos: int, endpos: int) -> bool:
        """Whether ``text[pos:endpos]`` holds none of the strings every match contains."""
        needs = self._needs
        if needs is None:
            from pokayokay.infra.literals import required_literals

            needs = self._needs = required_literals(*self._args) or ()
        if not needs:
            return False
        pos = max(pos, 0)
        if pos or endpos < len(text):
            text = text[pos:endpos]
        return not any(need in text for need in needs)

    def search(self, text: str, pos: int = 0, endpos: int = _MAX) -> re.Match[str] | None:
        if self._needs != () and self._cannot_match(text, pos, endpos):
            return None
        return self.regex.search(text, pos, endpos)

    def match(self, text: str, pos: int = 0, endpos: int = _MAX) -> re.Match[str] | None:
        if self._needs != () and self._cannot_match(text, pos, endpos):
            return None
        return self.regex.match(text, pos, endpos)

    def fullmatch(self, text: str, pos: int = 0, endpos: int = _MAX) -> re.Match[str] | None:
        if self._needs != () and self._cannot_match(text, pos, endpos):
            return None
        return self.regex.fullmatch(text, pos, endpos)

    def finditer(self, text: str, pos: int = 0, endpos: int = _MAX) -> Iterator[re.Match[str]]:
        return self.regex.finditer(text, pos, endpos)

    def findall(self, text: str, pos: int = 0, endpos: int = _MAX) -> list[str]:
        return self.regex.findall(text, pos, endpos)

    def split(self, text: str, maxsplit: int = 0) -> list[str]:
        return self.regex.split(text, maxsplit)

    def sub(
        self, repl: str | Callable[[re.Match[str]], str], text: str, count: int = 0
    ) -> str:
        return self.regex.sub(repl, text, count)

    def subn(
        self, repl: str | Callable[[re.Match[str]], str], text: str, count: int = 0
    ) -> tuple[str, int]:
        return self.regex.subn(repl, text, count)


def built_once(make: Callable[[], T]) -> Callable[[], T]:
    """A function that returns ``make()``, called on its first call and kept for every later
    one: a module's table of :class:`Lazy` patterns (the capture pipeline's) is then built when
    an output first needs it, never at import."""
    made: list[T] = []

    def get() -> T:
        if not made:
            made.append(make())
        return made[0]

    return get
