"""The strings every match of a regular expression contains, read from its text (pure).

A pattern that is searched once per text and rarely matches (a row of the failure classifier,
tried in order until one matches) costs its compile even when the text cannot hold a match:
``ModuleNotFoundError|No module named |…`` cannot match a pytest report that holds none of those
words. :func:`required_literals` reads such a pattern's text and gives strings one of which
every match contains, so :class:`pokayokay.infra.lazyre.Lazy` (with ``literals=True``) answers
"no match" for a text holding none of them without compiling the pattern.

The reader is deliberately small and conservative: it follows alternations, groups (capturing,
non-capturing, with ``m``/``s``/``a`` flags), character classes, escapes, quantifiers and
look-arounds, and takes from each alternative the most selective of its mandatory runs of literal
characters and its mandatory groups' requirements (the one whose shortest string is longest: a
row whose first run is ``:`` is skipped by a longer word later in it). Anything else
(case-insensitive or verbose patterns, code-point escapes, conditionals, nested sets, a brace
that is not a repeat) gives None: the pattern is then compiled as usual. A group reference or an
octal escape is read as some text (``Failed to import test module: (\\w+)…\\1`` needs its
words). ``tests/infra/test_literals.py`` checks against :mod:`re` that a text holding none of the
strings is never matched.
"""

from __future__ import annotations

# re.IGNORECASE, re.LOCALE, re.VERBOSE: literals are not read for these (lazyre holds the
# values equal to re's).
_UNREAD_FLAGS = 2 | 4 | 64
_SPECIAL = frozenset(".^$*+?{}[]\\|()")
_ESCAPED = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v"}
_UNREAD_ESCAPES = frozenset("xuUNgpP")


class _Unread(Exception):
    """A construct this reader does not follow."""


def required_literals(pattern: str, flags: int = 0) -> tuple[str, ...] | None:
    """Strings one of which every match of ``pattern`` (compiled with ``flags``) contains, in
    the pattern's order; None when the pattern is not one this reader follows."""
    if flags & _UNREAD_FLAGS:
        return None
    try:
        found, end = _alternatives(pattern, 0)
    except _Unread:
        return None
    if end != len(pattern) or not found:
        return None
    return tuple(dict.fromkeys(found))


def _alternatives(p: str, at: int) -> tuple[list[str] | None, int]:
    """The requirement of the alternation starting at ``at`` (up to an unmatched ``)`` or the
    end): every alternative's strings joined, None when one alternative has none."""
    out: list[str] | None = []
    while True:
        need, at = _sequence(p, at)
        if need is None:
            out = None
        elif out is not None:
            out.extend(need)
        if at < len(p) and p[at] == "|":
            at += 1
            continue
        return out, at


def _sequence(p: str, at: int) -> tuple[list[str] | None, int]:
    """The requirement of one alternative: of its mandatory runs of literal characters and the
    requirements of its mandatory groups (each is in every match), the most selective one: the
    longest shortest string, the first on a tie (None: none of them)."""
    best: list[str] | None = None
    run = ""
    n = len(p)
    while at < n and p[at] not in "|)":
        plain = _plain_end(p, at)
        if plain < n and p[plain] in "*+?{":
            plain -= 1  # the quantifier applies to the last character: read it one by one
        if plain > at:  # plain characters, none quantified: taken at once
            run += p[at:plain]
            at = plain
            continue
        literal, group, at = _item(p, at)
        low, at, quantified = _quantifier(p, at)
        if literal is not None and low >= 1:
            run += literal
            if quantified:  # "ab+c" holds "ab", not always "abc"
                best, run = _better(best, [run]), ""
            continue
        if run:
            best, run = _better(best, [run]), ""
        if group is not None and low >= 1:
            best = _better(best, group)
    return (_better(best, [run]) if run else best), at


def _better(best: list[str] | None, need: list[str]) -> list[str]:
    """Of two requirements, the one whose shortest string is longer (``best`` on a tie): a
    colon or a dot is in almost any output, `` hook error`` is not."""
    if best is None or min(map(len, need)) > min(map(len, best)):
        return need
    return best


def _item(p: str, at: int) -> tuple[str | None, list[str] | None, int]:
    """(its literal character, its group's requirement, the index after it) of the item at
    ``at`` (an escape, a class, a group or one character)."""
    c = p[at]
    if c == "\\":
        if at + 1 >= len(p) or p[at + 1] in _UNREAD_ESCAPES:
            raise _Unread
        e = p[at + 1]
        if e.isdigit():  # a group reference or an octal escape: some text, none read
            end = at + 2
            while end < len(p) and end < at + 4 and p[end].isdigit():
                end += 1
            return None, None, end
        if e in _ESCAPED:
            return _ESCAPED[e], None, at + 2
        if e.isascii() and not e.isalnum():
            return e, None, at + 2
        return None, None, at + 2  # \b \d \w \s \A \Z ...: no literal
    if c == "[":
        return None, None, _class_end(p, at)
    if c == "(":
        end, need = _group(p, at)
        return None, need, end
    if c in "{}*+?":
        raise _Unread  # a brace that is not a repeat, or a quantifier of nothing
    return (None if c in _SPECIAL else c), None, at + 1


def _quantifier(p: str, at: int) -> tuple[int, int, bool]:
    """(the least repeat, the index after the quantifier, whether there is one) at ``at``."""
    if at >= len(p) or p[at] not in "*+?{":
        return 1, at, False
    if p[at] == "{":
        close = p.find("}", at)
        least = p[at + 1 : close].split(",", 1)[0] if close > 0 else ""
        if not least.isdigit():
            raise _Unread
        low, at = int(least), close + 1
    else:
        low, at = (1 if p[at] == "+" else 0), at + 1
    if at < len(p) and p[at] in "?+":
        at += 1  # lazy or possessive
    return low, at, True


def _plain_end(p: str, at: int) -> int:
    """The index after the plain characters (no special character, no escape) from ``at``:
    a pattern is mostly words, and one step per run instead of two calls per character is
    most of the reader's time on the classifier's long alternations."""
    n = len(p)
    while at < n and p[at] not in _SPECIAL:
        at += 1
    return at


def _class_end(p: str, at: int) -> int:
    """The index after the character class starting at ``at``."""
    i = at + 1
    if i < len(p) and p[i] == "^":
        i += 1
    if i < len(p) and p[i] == "]":
        i += 1
    while i < len(p):
        if p[i] == "\\":
            i += 2
        elif p[i] == "[":
            raise _Unread  # a nested set: not read here
        elif p[i] == "]":
            return i + 1
        else:
            i += 1
    raise _Unread


def _group(p: str, at: int) -> tuple[int, list[str] | None]:
    """(the index after the group starting at ``at``, its requirement: None for a look-around,
    flags alone, or a group without one)."""
    i = at + 1
    look = False
    if p.startswith("?", i):
        i += 1
        if p.startswith(":", i):
            i += 1
        elif p.startswith(("=", "!"), i):
            look, i = True, i + 1
        elif p.startswith(("<=", "<!"), i):
            look, i = True, i + 2
        elif p.startswith("P<", i):
            close = p.find(">", i)
            if close < 0:
                raise _Unread
            i = close + 1
        else:  # inline flags: (?m) (?s) (?a), alone or scoping a group
            j = i
            while j < len(p) and p[j].isalpha():
                j += 1
            if i == j or set(p[i:j]) - set("msa") or j >= len(p) or p[j] not in ":)":
                raise _Unread
            if p[j] == ")":
                return j + 1, None
            i = j + 1
    need, end = _alternatives(p, i)
    if end >= len(p) or p[end] != ")":
        raise _Unread
    return end + 1, (None if look else need)
