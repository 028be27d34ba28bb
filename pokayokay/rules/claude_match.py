"""Which files a rule's ``paths:`` make Claude Code load it for — Claude Code's own semantics.

Pure: strings in, values out; standard library only (no pathspec), so it is cheap to import.

What Claude Code 2.1.330 does (read from its bundle, checked against it on random patterns):

1. **The ``paths:`` value** (:func:`normalise_patterns`). A falsy value (absent, ``null``, ``""``)
   means no ``paths``. A list is flattened recursively and every string item is processed like a
   single string; non-string items are dropped. A string is split at top-level commas (commas
   inside ``{…}`` stay), each piece is trimmed (JavaScript ``trim``) and empty pieces dropped.
   Quotes are *not* special: in ``other/**, "*.md"`` the second pattern is ``"*.md"`` with its
   quotes. Brace groups are then expanded (:func:`expand_braces`), within a budget of 1,000
   patterns and 4 MiB per rule; a pattern over budget is kept unexpanded. A trailing ``/**`` is
   stripped once (``src/**`` → ``src``, which also matches ``src`` at any depth), empty patterns
   dropped, and if no pattern is left or every pattern is ``**`` the rule is unconditional: it
   loads at session start. Here that is an empty list.

2. **Matching** (:func:`matches`). The file path is made relative to the folder that holds
   ``.claude/``; an empty path, a path starting with ``..`` (that includes a file named
   ``..foo`` at the top level) or an absolute one never matches. Patterns that cannot be compiled
   are dropped ("treated as matching nothing"), the others go to a gitignore matcher whose API and
   error messages are those of the npm ``ignore`` package, but which is Claude Code's own, smaller
   implementation:

   * gitignore rules: ``#`` comments, ``!`` negation, last matching pattern wins; a pattern with a
     slash at its start or middle is anchored at the base folder, one without matches at any
     depth; a trailing ``/`` matches folders only; ``*`` and ``?`` never cross ``/``; ``**/``,
     ``/**/`` and a trailing ``/**`` span folders; trailing spaces are dropped unless escaped;
   * a folder that matches makes everything under it match, and a negation cannot re-include a
     file below a matching folder (each parent folder is tested first, as ``dir/``);
   * matching is **case-insensitive** (``ignorecase`` defaults to true and Claude Code keeps the
     default). Case folding is JavaScript's non-Unicode ``/i``: a character matches another when
     their single-character upper-cases agree, never mapping a non-ASCII character to an ASCII
     one (so ``ſ`` does not match ``s``); strings are compared as UTF-16 code units, so ``?``
     does not match an emoji (two units);
   * bracket expressions: ``[abc]``, ``[a-z]``; **``!`` and ``^`` after ``[`` are literal
     characters**, not negation (git and npm ``ignore`` negate); a reversed range (``[z-a]``), an
     escaped ``]`` or a missing ``]`` make the pattern match nothing; POSIX classes
     (``[[:alpha:]]``) are not supported (taken literally);
   * backslash escapes follow Claude Code's translation, quirks included (``\\*`` at the very end
     of a pattern still acts as ``*``; a backslash before a letter turns into a regular-expression
     escape such as ``\\d``; a backslash before ``?`` or ``/**`` breaks the pattern).

   Implementation: each pattern is translated to the same JavaScript regular-expression source
   Claude Code builds, and that source is converted to an equivalent Python expression by a small
   parser of JavaScript's (non-Unicode, Annex B) regex syntax, so every corner — including the
   quirks above and which patterns fail to compile — comes out as Claude Code's.

How this differs from pathspec's ``gitwildmatch``/``GitIgnoreSpec`` (git semantics), which is why
this module does not use it: pathspec is case-sensitive; it negates ``[!…]``/``[^…]``; it
supports POSIX classes; it lets a later ``!pattern`` re-include a file whose folder matched
(``GitIgnoreSpec``) or evaluates every pattern against the full path only (``PathSpec``); it
discards a pattern with a bad range instead of keeping the rest; it has no ``..`` rule; and its
regular expressions match any descendant of a matching path by prefix, which changes the outcome
of ordered negations. See ``tests/test_rule_match.py`` for each case.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from pokayokay.rules.js_regex import UnsupportedPattern, canonical_units, python_regex
from pokayokay.rules.js_text import (
    BOM,
    JS_LINE_TERMINATORS,
    JS_NOT_LINE_TERMINATOR,
    JS_SPACE,
    PatternError,
    js_trim,
    js_trim_end,
    to_utf16_units,
    utf16_length,
)

# Brace-expansion budget per rule (Claude Code: 1,000 patterns, 4 MiB of pattern text).
BRACE_MAX_PATTERNS = 1000
BRACE_MAX_BYTES = 4 * 1024 * 1024


# ---------------------------------------------------------------------------------------------
# JavaScript string helpers


# ---------------------------------------------------------------------------------------------
# The `paths:` value


@dataclass
class BraceBudget:
    """What is left of one rule's brace-expansion budget (shared by all its patterns)."""

    patterns: int = BRACE_MAX_PATTERNS
    units: int = BRACE_MAX_BYTES
    exceeded: list[str] = field(default_factory=list)  # patterns kept unexpanded


_BRACE_GROUP = re.compile(r"([^{]*)\{([^}]+)\}(" + JS_NOT_LINE_TERMINATOR + r"*)")


def expand_braces(pattern: str, budget: BraceBudget | None = None) -> list[str]:
    """Expand the brace groups of one pattern the way Claude Code does.

    The first ``{…}`` group (no nesting: it ends at the first ``}``) is replaced by each of its
    comma-separated, trimmed alternatives, repeatedly. ``{a}`` becomes ``a``; ``{}`` and a group
    followed by a line break stay as they are. A pattern whose expansion would exceed the budget
    is returned unexpanded (and recorded in ``budget.exceeded``).
    """
    if "{" not in pattern:
        return [pattern]
    if budget is None:
        budget = BraceBudget()
    length = utf16_length(pattern)
    done: list[str] = []
    stack = [pattern]
    while stack:
        current = stack.pop()
        found = _BRACE_GROUP.fullmatch(current)
        if found is None:
            done.append(current)
            continue
        head, body, tail = found.groups()
        alternatives = [js_trim(part) for part in body.split(",")]
        budget.units -= utf16_length(current)
        total = len(done) + len(stack) + len(alternatives)
        if budget.units < 0 or total > budget.patterns or total * length > budget.units:
            budget.exceeded.append(pattern)
            return [pattern]
        for alternative in reversed(alternatives):
            stack.append(head + alternative + tail)
    budget.patterns -= len(done)
    budget.units -= len(done) * length
    return done


def split_paths_value(value: object, budget: BraceBudget | None = None) -> list[str]:
    """The patterns of a ``paths:`` value before the ``/**`` clean-up (see module docstring)."""
    if budget is None:
        budget = BraceBudget()
    if isinstance(value, list):
        out: list[str] = []
        for item in value:
            out.extend(split_paths_value(item, budget))
        return out
    if not isinstance(value, str):
        return []
    pieces: list[str] = []
    current: list[str] = []
    depth = 0
    for char in value:
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == "," and depth == 0:
            piece = js_trim("".join(current))
            if piece:
                pieces.append(piece)
            current = []
            continue
        current.append(char)
    last = js_trim("".join(current))
    if last:
        pieces.append(last)
    expanded: list[str] = []
    for piece in pieces:
        expanded.extend(expand_braces(piece, budget))
    return expanded


def js_truthy(value: object) -> bool:
    """JavaScript truthiness of a YAML value (``[]``/``{}`` are truthy, ``0``/``""`` are not)."""
    if value is None or value is False:
        return False
    if isinstance(value, bool):
        return True
    if isinstance(value, (int, float)):
        return value != 0 and value == value  # NaN is falsy
    if isinstance(value, str):
        return value != ""
    return True


def normalise_patterns(paths_value: object, budget: BraceBudget | None = None) -> list[str]:
    """The patterns Claude Code matches for a rule whose frontmatter has ``paths: paths_value``.

    An empty list means the rule is unconditional (loads at session start): no usable
    ``paths``, or every pattern is ``**``.
    """
    if not js_truthy(paths_value):
        return []
    patterns = [
        pattern[:-3] if pattern.endswith("/**") else pattern
        for pattern in split_paths_value(paths_value, budget)
    ]
    patterns = [pattern for pattern in patterns if pattern]
    if all(pattern == "**" for pattern in patterns):
        return []
    return patterns


# ---------------------------------------------------------------------------------------------
# One pattern → the JavaScript regular expression Claude Code builds for it


_REGEX_SPECIALS = ".$()+^{|*"
_MAX_STAR_RUN = 1_000_000


def _is_word_char(char: str) -> bool:
    return char.isascii() and (char.isalnum() or char == "_")


def _tokens(text: str) -> Iterable[tuple[str | None, str, str, int, int]]:
    """Claude Code's tokeniser: ``(stars, backslashes, token, start, end)`` tuples.

    ``stars`` is a run of ``*`` followed by another character (``token`` then empty), otherwise
    ``backslashes`` is a (possibly empty) run of ``\\`` and ``token`` one of: ``/**`` (followed by
    ``/`` or the end), a run of ASCII word characters, any single character, or ``""`` at the
    end. The end always yields one last empty token.
    """
    size = len(text)
    pos = 0
    while pos < size:
        if text[pos] == "*":
            run_end = pos
            while run_end < size and text[run_end] == "*":
                run_end += 1
            if run_end < size and text[run_end] not in JS_LINE_TERMINATORS:
                stars_end = run_end
            else:
                stars_end = run_end - 1  # the last star is the character that follows
            if stars_end > pos:
                yield text[pos:stars_end], "", "", pos, stars_end
                pos = stars_end
                continue
        start = pos
        while pos < size and text[pos] == "\\":
            pos += 1
        backslashes = text[start:pos]
        if text.startswith("/**", pos) and (pos + 3 == size or text[pos + 3] == "/"):
            token = "/**"
        elif pos < size and _is_word_char(text[pos]):
            word_end = pos
            while word_end < size and _is_word_char(text[word_end]):
                word_end += 1
            token = text[pos:word_end]
        else:
            token = text[pos : pos + 1]  # one character, or "" after trailing backslashes
        pos += len(token)
        yield None, backslashes, token, start, pos
    # JavaScript's global `replace` also matches the empty string at the very end.
    yield None, "", "", size, size


_REVERSED_RANGE = re.compile(r"[0-z]-[0-z]")


def _drop_reversed_ranges(text: str) -> str:
    return _REVERSED_RANGE.sub(lambda m: "" if m.group()[0] > m.group()[2] else m.group(), text)


def claude_regex_source(expression: str) -> str:
    """The JavaScript regex source Claude Code compiles for one pattern body.

    ``expression`` is the pattern after :func:`_split_negation` (no leading ``!``), in UTF-16
    code units. The result is JavaScript syntax; :func:`_JsRegex` turns it into Python's.
    """
    raw = expression[1:] if expression.startswith(BOM) else expression
    trimmed = js_trim_end(raw)
    if not trimmed:
        return ""
    lead = re.match(r"/?(\*\*/)?", trimmed)
    assert lead is not None
    lead_text = lead.group(0)
    if lead.group(1):
        out = r"^(?:.*\/)?"
    elif lead_text or re.search(r"/[\s\S]", raw):
        out = "^"
    else:
        out = r"(?:^|\/)"
    body = trimmed[len(lead_text) :]
    if trimmed != raw and trimmed.endswith("\\"):
        body += " "  # an escaped trailing space survives the trim
    in_bracket = False
    saved = ""  # the expression before an open `[` (plus its backslashes)
    bracket_escaped = ""  # the backslashes before that `[`
    previous = ""
    for stars, slashes, token, _start, end in _tokens(body):
        if stars is not None and len(stars) > _MAX_STAR_RUN:
            raise PatternError("regular expression too large")
        at_end = end == len(body)
        kept = slashes[len(slashes) % 2 :]  # escaped backslashes, as pairs
        if in_bracket and stars is None and token in ("]", ""):
            if bracket_escaped:
                out = f"{saved}[{out}{kept}{token}"
            elif token and kept == slashes:
                out = f"{saved}[{_drop_reversed_ranges(out)}{slashes}]"
            else:
                out = f"{saved}[]"
            in_bracket, saved = False, ""
        elif not in_bracket and stars is None and token == "[":
            saved, bracket_escaped, out, in_bracket = out + slashes, slashes, "", True
        elif stars is not None or token == "?" or token.startswith("/"):
            opened = f"{saved}[" if in_bracket else ""
            if token == "/**" and not at_end:
                tail = (slashes[1:] or slashes) + r"(?:\/[^\/]+)*"
            elif stars is not None:
                tail = r"[^\/]*"
            elif token == "?":
                tail = slashes + r"[^\/]"
            elif token == "/":
                tail = slashes + r"\/"
            else:
                tail = slashes + r"\/.+"
            out = opened + out + tail
            in_bracket, saved = False, ""
        elif token == "*" and at_end:
            out += slashes[1:] + "[^/]" + ("+" if previous == "/" and len(slashes) < 2 else "*")
        elif slashes and len(token) == 1 and token in JS_SPACE:
            out += slashes if at_end and kept == slashes else kept + " "
        else:
            escape = "\\" if token and token in _REGEX_SPECIALS else ""
            out += (slashes or escape) + token
        previous = "" if stars is not None else token
    return out + ("$" if body.endswith("/") else r"(?=$|\/$)")


# ---------------------------------------------------------------------------------------------
# JavaScript regex source (non-Unicode, Annex B, flag `i`) → Python regex


# ---------------------------------------------------------------------------------------------
# Patterns and the matcher


def _skipped(pattern: str) -> str | None:
    """Why Claude Code's matcher ignores ``pattern`` outright, or None."""
    if pattern.startswith("#"):
        return "a comment (starts with #)"
    if not any(char not in JS_SPACE for char in pattern):
        return "blank"
    if pattern.endswith("\\") and not pattern.endswith("\\\\"):
        return "ends with a single backslash"
    return None


def _split_negation(pattern: str) -> tuple[bool, str]:
    negative = pattern.startswith("!")
    body = pattern[1:] if negative else pattern
    if body[:1] == "\\" and body[1:2] in ("!", "#"):
        body = body[1:]
    return negative, body


@dataclass(frozen=True)
class CompiledPattern:
    """One pattern as Claude Code's matcher holds it."""

    pattern: str
    negative: bool
    regex: re.Pattern[str] | None  # None: skipped or failed to compile
    skipped: str | None = None  # why the matcher ignores it (comment, blank, trailing "\")
    error: str | None = None  # why it does not compile (Claude Code drops it)
    js_source: str | None = None

    @property
    def usable(self) -> bool:
        return self.regex is not None


@lru_cache(maxsize=4096)
def compile_pattern(pattern: str) -> CompiledPattern:
    """Compile one pattern of a rule's (normalised) ``paths`` list."""
    skipped = _skipped(pattern)
    negative, body = _split_negation(pattern)
    if skipped is not None:
        return CompiledPattern(pattern, negative, None, skipped=skipped)
    try:
        source = claude_regex_source(to_utf16_units(body))
        regex = python_regex(source)
    except UnsupportedPattern as exc:
        return CompiledPattern(pattern, negative, None, error=f"not supported by pokayokay: {exc}")
    except PatternError as exc:
        return CompiledPattern(pattern, negative, None, error=str(exc))
    return CompiledPattern(pattern, negative, regex, js_source=source)


def pattern_problem(pattern: str) -> str | None:
    """Why ``pattern`` has no effect in Claude Code (None when it is usable)."""
    compiled = compile_pattern(pattern)
    if compiled.skipped:
        return f"ignored: {compiled.skipped}"
    if compiled.error:
        return f"cannot be compiled ({compiled.error}); Claude Code treats it as matching nothing"
    return None


def _is_outside(rel_path: str) -> bool:
    """Paths Claude Code never matches (or on which its matcher would throw)."""
    if not rel_path or rel_path.startswith("..") or rel_path.startswith("/"):
        return True
    return rel_path == "." or rel_path.startswith("./")


class Matcher:
    """A rule's compiled patterns; :meth:`matches` answers like Claude Code for a relative path.

    Folder verdicts are cached, so testing many files of one project is cheap.
    """

    def __init__(self, patterns: Sequence[str]) -> None:
        self.patterns = tuple(patterns)
        self.compiled = tuple(c for c in map(compile_pattern, self.patterns) if c.usable)
        self._cache: dict[str, CompiledPattern | None] = {}

    def _verdict(self, candidate: str) -> CompiledPattern | None:
        """The positive pattern that leaves ``candidate`` matched, or None (last match wins)."""
        subject = canonical_units(candidate)
        decided: CompiledPattern | None = None
        for compiled in self.compiled:
            if compiled.negative != (decided is not None):
                continue
            assert compiled.regex is not None
            if compiled.regex.search(subject):
                decided = None if compiled.negative else compiled
        return decided

    def deciding_pattern(self, rel_path: str) -> str | None:
        """The pattern that makes Claude Code load the rule for ``rel_path``, or None."""
        if not self.compiled or _is_outside(rel_path):
            return None
        collapsed = re.sub("/+", "/", rel_path) if "//" in rel_path else rel_path
        folders = []
        index = len(collapsed) - 1
        while True:
            index = collapsed.rfind("/", 0, index)
            if index <= 0:
                break
            folders.append(collapsed[: index + 1])
        decided: CompiledPattern | None = None
        for folder in reversed(folders):
            if decided is None:
                decided = self._cache[folder] if folder in self._cache else self._verdict(folder)
            self._cache[folder] = decided
        if decided is None:
            decided = self._verdict(rel_path)
        return None if decided is None else decided.pattern

    def matches(self, rel_path: str) -> bool:
        return self.deciding_pattern(rel_path) is not None


def matches(patterns: Sequence[str], rel_path: str) -> bool:
    """Would Claude Code load a rule with these (normalised) patterns when ``rel_path`` is read?

    ``rel_path`` is relative to the folder holding ``.claude/``, with ``/`` separators.
    """
    if not patterns:
        return False
    return Matcher(patterns).matches(rel_path)


def paths_match(paths_value: object, rel_path: str) -> bool:
    """:func:`matches` for a raw frontmatter ``paths:`` value (False when unconditional)."""
    return matches(normalise_patterns(paths_value), rel_path)
