"""Whether a user's regular expression (settings ``failure_categories:``) can backtrack without
end, decided from its text alone (pure, standard library only).

Python's ``re`` backtracks, and has no time limit: ``(a+)+$`` against 30 ``a``\\ s and a ``!``
takes seconds, 40 take hours (a committed pattern made SessionEnd run past 60 s). The patterns
that do this have a shape that can be seen in the text, and this module refuses them:

* a repeated group holding something that varies in length or an alternation: ``(a+)+``,
  ``(a|ab)*``, ``(\\w+\\s?)*`` — the exponential class;
* two unbounded repeats with nothing required between them: ``.*.*``, ``\\s*\\s+``,
  ``\\d+\\w*`` — the polynomial class (each one more multiplies the work by the text's length);
* backreferences and conditionals, which no linear-time engine can run;
* a pattern longer than :data:`MAX_PATTERN`.

Everything else is accepted: repeats of single characters, classes and fixed groups, bounded
repeats, ``a.*b.*c``, alternations that are not repeated. What this static check cannot bound
(a single ``x+y`` is still quadratic on a long run of ``x``) is bounded at run time:
user patterns run with a time budget (:mod:`pokayokay.failures.classify`). Decision 0060.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["MAX_PATTERN", "unsafe_reason"]

MAX_PATTERN = 1000  # characters


@dataclass
class _Group:
    """A parenthesised group (or the whole pattern): its alternatives, each a list of items."""

    alternatives: list[list[_Item]] = field(default_factory=lambda: [[]])

    @property
    def varies(self) -> bool:
        """Whether the group can match texts of different shapes: an alternation or a repeat
        of varying count anywhere inside."""
        if len(self.alternatives) > 1:
            return True
        return any(item.varies for alt in self.alternatives for item in alt)


@dataclass
class _Item:
    """One atom (a character, class, escape or group) and how often it may repeat."""

    group: _Group | None
    low: int = 1
    high: int | None = 1  # None: unbounded
    zero_width: bool = False  # ^ $ \b \B \A \Z and lookarounds: they consume nothing

    @property
    def unbounded(self) -> bool:
        return self.high is None

    @property
    def varies(self) -> bool:
        return self.low != self.high or (self.group is not None and self.group.varies)


class _Refused(Exception):
    pass


def unsafe_reason(pattern: str) -> str | None:
    """Why ``pattern`` may backtrack catastrophically, or None when it is in the safe subset.
    ``pattern`` must already compile with ``re`` (its syntax errors are ``re``'s to report)."""
    if len(pattern) > MAX_PATTERN:
        return f"longer than {MAX_PATTERN} characters"
    try:
        top, _ = _parse(pattern, 0)
        _check(top)
    except _Refused as exc:
        return str(exc)
    return None


def _parse(text: str, i: int) -> tuple[_Group, int]:
    """The group from ``text[i:]`` up to its closing parenthesis (or the end)."""
    group = _Group()
    while i < len(text):
        char = text[i]
        if char == ")":
            return group, i + 1
        if char == "|":
            group.alternatives.append([])
            i += 1
            continue
        inner: _Group | None = None
        zero_width = char in "^$"
        if char == "\\":
            nxt = text[i + 1 : i + 2]
            if nxt.isdigit() and nxt != "0":
                raise _Refused(f"a backreference (\\{nxt}) has no linear-time form")
            zero_width = nxt in ("b", "B", "A", "Z")
            i += 2
        elif char == "[":
            i = _skip_class(text, i)
        elif char == "(":
            zero_width = text.startswith(("(?=", "(?!", "(?<=", "(?<!"), i)
            inner, i = _open_group(text, i)
            if inner is None:
                continue  # a comment or an inline flag: matches nothing
        else:
            i += 1
        item = _Item(inner, zero_width=zero_width)
        i = _quantifier(text, i, item)
        group.alternatives[-1].append(item)
    return group, i


def _open_group(text: str, i: int) -> tuple[_Group | None, int]:
    if text.startswith("(?P=", i):
        raise _Refused("a backreference ((?P=name)) has no linear-time form")
    if text.startswith("(?(", i):
        raise _Refused("a conditional group ((?(...)...)) has no linear-time form")
    if text.startswith("(?#", i):
        return None, text.index(")", i) + 1
    j = i + 1
    if text.startswith("?", j):
        j += 1
        named = text.startswith("<", j) and text[j + 1 : j + 2] not in ("=", "!")
        if text.startswith("P<", j) or named:
            j = text.index(">", j) + 1
        elif text.startswith(("<=", "<!"), j):
            j += 2
        elif text[j : j + 1] in (":", "=", "!", ">"):
            j += 1
        else:  # inline flags: (?i) alone, or (?i:...) scoped
            end = j
            while end < len(text) and text[end] not in ":)":
                end += 1
            if text[end : end + 1] == ")":
                return None, end + 1
            j = end + 1
    return _parse(text, j)


def _skip_class(text: str, i: int) -> int:
    """The index after the character class opening at ``text[i]``."""
    j = i + 1
    if text[j : j + 1] == "^":
        j += 1
    if text[j : j + 1] == "]":
        j += 1
    while j < len(text) and text[j] != "]":
        j += 2 if text[j] == "\\" else 1
    return j + 1


def _quantifier(text: str, i: int, item: _Item) -> int:
    """Read a quantifier (and its lazy ``?`` or possessive ``+``) after an atom."""
    char = text[i : i + 1]
    if char == "*":
        item.low, item.high, i = 0, None, i + 1
    elif char == "+":
        item.low, item.high, i = 1, None, i + 1
    elif char == "?":
        item.low, item.high, i = 0, 1, i + 1
    elif char == "{":
        close = text.find("}", i)
        body = text[i + 1 : close] if close != -1 else ""
        low, comma, high = body.partition(",")
        if close == -1 or not (low.isdigit() or (comma and not low)):
            return i  # a literal brace
        if not (high.isdigit() or not high):
            return i
        item.low = int(low) if low else 0
        item.high = (int(high) if high else None) if comma else item.low
        i = close + 1
    else:
        return i
    if text[i : i + 1] in ("?", "+"):
        i += 1
    return i


def _check(group: _Group) -> None:
    for alternative in group.alternatives:
        _check_sequence(alternative)


def _check_sequence(items: list[_Item]) -> None:
    pending_unbounded = False  # an unbounded repeat with nothing required after it yet
    for item in _flatten(items):
        if item.group is not None:
            if (item.high is None or item.high > 1) and item.group.varies:
                raise _Refused(
                    "a repeated group that varies in length or holds an alternation, e.g. "
                    "(a+)+ or (a|ab)*: nested repeats backtrack exponentially (repeat once: "
                    "a+ rather than (a+)+, [ab]+ rather than (a|b)+)"
                )
            _check(item.group)
        if item.unbounded:
            if pending_unbounded:
                raise _Refused(
                    "two unbounded repeats with nothing required between them, e.g. .*.* or "
                    "\\s*\\s+: the work grows with a power of the text's length (keep one, or "
                    "put a required character between them)"
                )
            pending_unbounded = True
        elif item.low > 0 and not item.zero_width:
            pending_unbounded = False


def _flatten(items: list[_Item]) -> list[_Item]:
    """``items`` with each unrepeated single-alternative group replaced by its own items: the
    group ``(?:a*)`` next to ``b*`` is the same sequence as ``a*b*``."""
    out: list[_Item] = []
    for item in items:
        group = item.group
        single = group is not None and len(group.alternatives) == 1
        if group is not None and single and item.low == item.high == 1 and not item.zero_width:
            out.extend(_flatten(group.alternatives[0]))
        else:
            out.append(item)
    return out
