"""Regular expressions compiled on first use (pure).

A module on the prompt's hot path compiles at import only the patterns every prompt runs; the
ones a prompt seldom or never needs (skill-description analysis, rare phrase folding) are
:class:`Lazy`: the same pattern and flags, compiled the first time a method is called. The
capture pipeline's pattern tables (signatures, mistakes, evidence paths, categories) are Lazy
too, so that an ingest compiles only the patterns its output reaches.

After the first call a Lazy's methods are the compiled pattern's own (bound as attributes of
the instance), so a pattern run on every line of an output costs what a compiled one does.

**Compiled programs** (:func:`install_programs`, :func:`new_programs`): ``import re`` costs a hook
about 6 ms (``enum``, ``functools`` and the regex parser and compiler, all pure Python), more
than the rest of a warm prompt's imports. The regex engine itself, ``_sre``, is built into the
interpreter and needs none of it: given the program ``re`` compiled for a pattern once, it makes
the same pattern object directly. The hook runtime hands this module the programs it saved for
this interpreter (``pokayokay.infra.regex_programs``); a pattern without one is compiled by
``re`` as usual, and its program is kept for the next run only when the pattern object rebuilt
from it equals what ``re`` made (same pattern, flags and program), so a saved program can only
give exactly ``re.compile``'s pattern.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Callable, Iterator
    from typing import Any

# re's flag values (tests hold them equal), so that modules need not import re for a flag.
IGNORECASE = 2
MULTILINE = 8
DOTALL = 16
VERBOSE = 64
ASCII = 256

# A program: (flags, code, groups, groupindex, indexgroup), the arguments re gives _sre.compile.
Program = tuple[int, list[int], int, dict[str, int], tuple["str | None", ...]]
_programs: dict[tuple[str, int], Program] | None = None
_new: dict[tuple[str, int], Program] = {}


def install_programs(programs: dict[tuple[str, int], Program]) -> None:
    """Use these saved programs (from an earlier run of this interpreter) and keep the programs
    of patterns compiled from now on (:func:`new_programs`)."""
    global _programs
    _programs = programs


def new_programs() -> dict[tuple[str, int], Program]:
    """Programs of the patterns compiled by ``re`` since :func:`install_programs`."""
    return dict(_new)


def compile_pattern(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, from a saved program when there is one (no ``re``
    import)."""
    flags = int(flags)  # a RegexFlag is an int, but marshal keeps only plain ones
    key = (pattern, flags)
    if _programs is not None:
        saved = _programs.get(key)
        if saved is not None:
            try:
                return _from_program(pattern, saved)
            except Exception:
                pass
    import re

    regex = re.compile(pattern, flags)
    if _programs is not None:
        program = _program(pattern, flags)
        if program is not None and _same(regex, pattern, program):
            _new[key] = program
    return regex


def _from_program(pattern: str, program: Program) -> re.Pattern[str]:
    _sre: Any = __import__("_sre")  # built into the interpreter: costs nothing

    final, code, groups, groupindex, indexgroup = program
    regex: re.Pattern[str] = _sre.compile(
        pattern, final, list(code), groups, dict(groupindex), tuple(indexgroup)
    )
    return regex


def _program(pattern: str, flags: int) -> Program | None:
    """The arguments ``re.compile`` gives ``_sre.compile`` for this pattern, or None where this
    interpreter's re works otherwise."""
    try:
        import re

        compiler: Any = getattr(re, "_compiler", None) or __import__("sre_compile")  # 3.10
        parser: Any = getattr(re, "_parser", None) or __import__("sre_parse")
        parsed = parser.parse(pattern, flags)
        code = [int(op) for op in compiler._code(parsed, flags)]
        groupindex = {str(k): int(v) for k, v in parsed.state.groupdict.items()}
        indexgroup: list[str | None] = [None] * parsed.state.groups
        for name, index in groupindex.items():
            indexgroup[index] = name
        return (int(flags | parsed.state.flags), code, int(parsed.state.groups - 1), groupindex,
                tuple(indexgroup))  # fmt: skip
    except Exception:
        return None


def _same(regex: re.Pattern[str], pattern: str, program: Program) -> bool:
    try:
        rebuilt = _from_program(pattern, program)
    except Exception:
        return False
    return bool(rebuilt == regex and rebuilt.groupindex == regex.groupindex)

_MAX = 1 << 62
_METHODS = ("search", "match", "fullmatch", "finditer", "findall", "split", "sub", "subn")


class Lazy:
    """``re.compile(pattern, flags)``, done on first use."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._args = (pattern, flags)
        self._regex: re.Pattern[str] | None = None

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

    def search(self, text: str, pos: int = 0, endpos: int = _MAX) -> re.Match[str] | None:
        return self.regex.search(text, pos, endpos)

    def match(self, text: str, pos: int = 0, endpos: int = _MAX) -> re.Match[str] | None:
        return self.regex.match(text, pos, endpos)

    def fullmatch(self, text: str, pos: int = 0, endpos: int = _MAX) -> re.Match[str] | None:
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
