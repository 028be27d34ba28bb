"""Whether one line of a prompt reads as a program's output (pure; decision 0184).

:func:`is_output_line` answers exactly what ``OUTPUT_LINE.match(line) is not None`` answered
for a line without line breaks, the pattern below, kept in ``tests/helpers/output_oracle.py``
as the oracle of a hypothesis property and checked on every real tool output in
``tests/data/outputs``. It is a plain scan: a prompt with pasted output no longer imports
``re`` and compiles a pattern of forty alternatives (about one interpreter start in all).

The pattern is matched at the line's start after its white space, and each alternative is one
check below, in the pattern's order. Where an alternative's repeats could stop early, the
comment says why only the whole run can succeed, or the check tries each place it could stop.
``\\s`` is ``str.isspace``, ``\\d`` ``str.isdecimal``, ``\\w`` :func:`is_word_char`; ``[A-Z]``
is ASCII. The pattern, one alternative a line::

    \\s*(?:Traceback \\(most recent call last\\):
    |File \\"[^\\"]+\\", line \\d+
    |at \\S+(?: \\(\\S+:\\d+(?::\\d+)?\\)|:\\d+:\\d+)\\s*$
    |at [\\w$.<>/]+\\([\\w$.-]+:\\d+\\)\\s*$
    |[\\w./\\\\-]+[:(]\\d+(?:[:,]\\d+)?\\)?(?::|\\s+-\\s)
    |error(?:\\[\\w+\\])?: |warning\\[\\w+\\]:
    |= (?:note|help):
    |-->\\s+\\S+:\\d+
    |\\d{4}-\\d{2}-\\d{2}[ T]\\d{2}:\\d{2}
    |\\[?\\d{2}:\\d{2}:\\d{2}
    |\\[[A-Z]{3,8}\\]
    |[A-Z]{4,8}:[\\w.]+:
    |[EF>]\\s{2,}\\S
    |[=_*-]{3,}.*[=_*-]{3,}\\s*$
    |[=_*-]{5,}\\s*$
    |[\\w.]*(?:Error|Exception|Warning)(?::\\s|$)
    |\\^+\\s*$
    |>?\\s*\\d+\\s*(?:\\||[+-]\\s)
    |\\|\\s*(?:\\^|$)
    |[A-Z]{1,4}\\d{3,4}(?:\\s\\[\\*\\])?\\s\\S
    |\\[\\*\\]\\s\\d
    |(?:PASS|FAIL|PASSED|FAILED|ERROR|ok|not ok)\\s+\\S+\\s*$
    |(?:PASS|FAIL)\\s{2,}\\S
    |(?:PASSED|FAILED|ERROR)\\s+\\S+::\\S
    |(?:PASS|FAIL|ok|FAIL\\s+\\S+\\s+[\\d.]+s)\\s*$
    |(?:ok|FAIL)\\t\\S+\\t
    |--- (?:FAIL|PASS|SKIP): \\S+ \\(\\d
    |=== (?:RUN|PAUSE|CONT)\\s
    |[●✕✓×]\\s
    |test \\S+ \\.\\.\\. \\w+
    |test result:
    |running \\d+ tests?\\s*$
    |thread '[^']*'(?: \\(\\d+\\))? panicked at
    |(?:Compiling|Checking|Finished|Running|Doc-tests|Fresh)\\s+\\S
    |Ran all test suites\\b
    |[A-Z][\\w ]{1,20}:\\s+\\d+(?:\\.\\d+)?\\s*(?:m?s\\b|\\w+,|\\w+\\s*$)
    |collected \\d+ items?
    |(?:[\\w./\\\\-]+\\.\\w+\\s+)?[.FEsxX]+\\s+\\[\\s*\\d+%\\]\\s*$
    |[\\w./\\\\-]+\\.\\w+\\s+[.FEsxX]+\\s*$
    |(?:Found\\s+)?\\d+\\s+(?:passed|failed|errors?|warnings?|problems?)\\b
    |\\$ \\S)
"""

from __future__ import annotations

from pokayokay.relevance.scan import is_word_char
from pokayokay.relevance.scan_names import run_end, space_end

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

_UPPER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_RULE = frozenset("=_*-")
_PROGRESS = frozenset(".FEsxX")
_PATH_MARKS = "./\\-"  # beside \w, the path class [\w./\\-]
_SUMMARY_WORDS = frozenset(
    ("passed", "failed", "error", "errors", "warning", "warnings", "problem", "problems")
)
_PREFIXES = ("Traceback (most recent call last):", "error: ", "= note: ", "= help: ",
             "test result: ")  # fmt: skip
_CARGO = ("Compiling", "Checking", "Finished", "Running", "Doc-tests", "Fresh")


def _end(text: str, at: int, accepts: Callable[[str], bool]) -> int:
    """The end of the run from ``at`` of the characters ``accepts`` takes."""
    n = len(text)
    while at < n and accepts(text[at]):
        at += 1
    return at


def _digit_end(text: str, at: int) -> int:
    return _end(text, at, str.isdecimal)


def _word_end(text: str, at: int) -> int:
    return run_end(text, at, "")


def _token_end(text: str, at: int) -> int:
    """The end of the run of non-space characters (``\\S+``) from ``at``."""
    n = len(text)
    while at < n and not text[at].isspace():
        at += 1
    return at


def _blank_from(text: str, at: int) -> bool:
    """``\\s*$`` at ``at``."""
    return space_end(text, at) == len(text)


def _path_end(text: str, at: int) -> int:
    return run_end(text, at, _PATH_MARKS)


def _char(text: str, at: int) -> str:
    return text[at] if 0 <= at < len(text) else ""


def _js_frame(s: str, p: int) -> bool:
    """``at \\S+(?: \\(\\S+:\\d+(?::\\d+)?\\)|:\\d+:\\d+)\\s*$``. Nothing after the frame but
    white space, and the frame holds none but the one space before its bracket: so its text is
    one or two tokens, and the digits close each (``\\S+`` takes any ``:\\d+`` before them)."""
    if not s.startswith("at ", p):
        return False
    body = s[p + 3 :].rstrip()
    if not body or body[0].isspace():
        return False
    first = _token_end(body, 0)
    if first < len(body):  # "name (file:line[:col])"
        rest = body[first:]
        inner = rest[2:-1]
        return (
            rest.startswith(" (")
            and rest.endswith(")")
            and len(rest) > 3
            and _token_end(inner, 0) == len(inner)
            and _digits_after_colon(inner, len(inner)) > 0
        )
    # "file:line:col"
    colon = _digits_after_colon(body, len(body))
    return colon > 0 and _digits_after_colon(body, colon) > 0


def _digits_after_colon(text: str, end: int) -> int:
    """Where the ``:`` of a ``:\\d+`` ending at ``end`` stands, when something comes before it
    (``\\S+:\\d+``); 0 when there is none."""
    at = end
    while at > 0 and text[at - 1].isdecimal():
        at -= 1
    if at == end or at < 2 or text[at - 1] != ":":
        return 0
    return at - 1


def _java_frame(s: str, p: int) -> bool:
    """``at [\\w$.<>/]+\\([\\w$.-]+:\\d+\\)\\s*$``: each run stops at the character after it,
    which it cannot hold, so only the whole run can be followed by it."""
    if not s.startswith("at ", p):
        return False
    a = run_end(s, p + 3, "$.<>/")
    if a == p + 3 or _char(s, a) != "(":
        return False
    b = run_end(s, a + 1, "$.-")
    if b == a + 1 or _char(s, b) != ":":
        return False
    c = _digit_end(s, b + 1)
    return c > b + 1 and _char(s, c) == ")" and _blank_from(s, c + 1)


def _diagnostic(s: str, p: int) -> bool:
    """``[\\w./\\\\-]+[:(]\\d+(?:[:,]\\d+)?\\)?(?::|\\s+-\\s)``: the optional parts are tried
    with and without."""
    a = _path_end(s, p)
    if a == p or _char(s, a) not in (":", "("):
        return False
    b = _digit_end(s, a + 1)
    if b == a + 1:
        return False
    ends = [b]
    if _char(s, b) in (":", ",") and _char(s, b + 1).isdecimal():
        ends.append(_digit_end(s, b + 1))
    for q in ends:
        for r in ((q + 1, q) if _char(s, q) == ")" else (q,)):
            if _char(s, r) == ":":
                return True
            w = space_end(s, r)
            if w > r and _char(s, w) == "-" and _char(s, w + 1).isspace():
                return True
    return False


def _compiler(s: str, p: int) -> bool:
    """``error(?:\\[\\w+\\])?: |warning\\[\\w+\\]: ``, ``-->\\s+\\S+:\\d+``."""
    for word in ("error[", "warning["):
        if s.startswith(word, p):
            a = p + len(word)
            b = _word_end(s, a)
            return b > a and s.startswith("]: ", b)
    if s.startswith("-->", p):
        a = space_end(s, p + 3)
        if a == p + 3:
            return False
        token = s[a : _token_end(s, a)]
        at = token.find(":", 1)
        while at != -1:
            if _char(token, at + 1).isdecimal():
                return True
            at = token.find(":", at + 1)
    return False


def _shape(s: str, p: int, shape: str) -> bool:
    """``s[p:]`` opens with ``shape``, where ``9`` is any decimal digit and ``T`` a space or T."""
    if len(s) - p < len(shape):
        return False
    for i, want in enumerate(shape):
        c = s[p + i]
        if want == "9":
            if not c.isdecimal():
                return False
        elif want == "T":
            if c not in " T":
                return False
        elif c != want:
            return False
    return True


def _log(s: str, p: int) -> bool:
    """A log line: a timestamp, a time, a bracketed level, ``LEVEL:logger:``."""
    if _shape(s, p, "9999-99-99T99:99"):
        return True
    if _shape(s, p + 1 if _char(s, p) == "[" else p, "99:99:99"):
        return True
    if _char(s, p) == "[":
        a = _end(s, p + 1, _UPPER.__contains__)
        if 3 <= a - p - 1 <= 8 and _char(s, a) == "]":
            return True
    a = _end(s, p, _UPPER.__contains__)
    if 4 <= a - p <= 8 and _char(s, a) == ":":
        b = run_end(s, a + 1, ".")
        return b > a + 1 and _char(s, b) == ":"
    return False


def _rules_and_marks(s: str, p: int, c: str) -> bool:
    """pytest's ``E``/``>`` lines, rules, an exception's type line, carets, gutters (``c``:
    the line's first character after its white space)."""
    if c in ("E", "F", ">"):
        a = space_end(s, p + 1)
        if a - p - 1 >= 2 and a < len(s):
            return True
    if c in _RULE:
        body = s[p:].rstrip()
        if len(body) >= 6 and set(body[:3]) <= _RULE and set(body[-3:]) <= _RULE:
            return True
        if len(body) >= 5 and set(body) <= _RULE:
            return True
    if ("Error" in s or "Exception" in s or "Warning" in s) and (c == "." or is_word_char(c)):
        a = run_end(s, p, ".")
        if s[p:a].endswith(("Error", "Exception", "Warning")) and (
            a == len(s) or (s[a] == ":" and _char(s, a + 1).isspace())
        ):
            return True
    if c == "^" and set(s[p:].rstrip()) == {"^"}:
        return True
    return (c in ">|" or c.isdecimal()) and _gutter(s, p)


def _gutter(s: str, p: int) -> bool:
    """``>?\\s*\\d+\\s*(?:\\||[+-]\\s)`` and ``\\|\\s*(?:\\^|$)``."""
    a = space_end(s, p + 1 if _char(s, p) == ">" else p)
    b = _digit_end(s, a)
    if b > a:
        c = space_end(s, b)
        if _char(s, c) == "|" or (_char(s, c) in ("+", "-") and _char(s, c + 1).isspace()):
            return True
    if _char(s, p) == "|":
        a = space_end(s, p + 1)
        return a == len(s) or s[a] == "^"
    return False


def _linter(s: str, p: int) -> bool:
    """``[A-Z]{1,4}\\d{3,4}(?:\\s\\[\\*\\])?\\s\\S`` and ``\\[\\*\\]\\s\\d``: the capitals are
    the whole run before the digits, and the digits their whole run (a fifth digit would have
    to be a space)."""
    if s.startswith("[*]", p) and _char(s, p + 3).isspace() and _char(s, p + 4).isdecimal():
        return True
    a = _end(s, p, _UPPER.__contains__)
    if not 1 <= a - p <= 4:
        return False
    b = _digit_end(s, a)
    if not 3 <= b - a <= 4:
        return False
    for q in (b + 4, b) if s.startswith("[*]", b + 1) and _char(s, b).isspace() else (b,):
        if _char(s, q).isspace() and _char(s, q + 1) != "" and not s[q + 1].isspace():
            return True
    return False


def _runner(s: str, p: int) -> bool:
    """Test runners' verdict, summary and status lines."""
    body = s[p:].rstrip()
    for verdict in ("PASS", "FAIL", "PASSED", "FAILED", "ERROR", "ok", "not ok"):
        if s.startswith(verdict, p):
            a = p + len(verdict)
            rest = body[len(verdict) :]
            b = space_end(s, a)
            if b > a and b < p + len(body) and _token_end(s, b) == p + len(body):
                return True  # verdict, one token
            if verdict in ("PASS", "FAIL") and b - a >= 2 and b < len(s):
                return True  # verdict, two spaces, anything
            if verdict in ("PASSED", "FAILED", "ERROR") and b > a:
                token = s[b : _token_end(s, b)]
                if 1 <= token.find("::", 1) <= len(token) - 3:
                    return True
            if not rest and verdict in ("PASS", "FAIL", "ok"):
                return True
            if verdict == "FAIL" and _go_fail(rest):
                return True
            if verdict in ("ok", "FAIL") and s.startswith("\t", a):
                c = _token_end(s, a + 1)
                if c > a + 1 and _char(s, c) == "\t":
                    return True
    return False


def _go_fail(rest: str) -> bool:
    """``\\s+\\S+\\s+[\\d.]+s`` as the whole of ``rest`` (after ``FAIL``, trailing space cut)."""
    a = space_end(rest, 0)
    if a == 0:
        return False
    b = _token_end(rest, a)
    c = space_end(rest, b)
    if b == a or c == b or _token_end(rest, c) != len(rest):
        return False
    last = rest[c:]
    return (
        len(last) >= 2
        and last.endswith("s")
        and all(ch == "." or ch.isdecimal() for ch in last[:-1])
    )


def _go_and_jest(s: str, p: int) -> bool:
    if s.startswith("--- ", p) and s.startswith(("FAIL: ", "PASS: ", "SKIP: "), p + 4):
        a = p + 10
        b = _token_end(s, a)
        return b > a and s.startswith(" (", b) and _char(s, b + 2).isdecimal()
    if s.startswith("=== ", p):
        for word in ("RUN", "PAUSE", "CONT"):
            if s.startswith(word, p + 4) and _char(s, p + 4 + len(word)).isspace():
                return True
        return False
    return _char(s, p) in ("●", "✕", "✓", "×") and _char(s, p + 1).isspace()


def _cargo(s: str, p: int) -> bool:
    """cargo test's lines, a Rust panic, cargo's status lines."""
    if s.startswith("test ", p):
        a = _token_end(s, p + 5)
        if a > p + 5 and s.startswith(" ... ", a) and is_word_char(_char(s, a + 5) or " "):
            return True
    if s.startswith("running ", p):
        a = _digit_end(s, p + 8)
        if a > p + 8 and s.startswith(" test", a):
            b = a + 6 if _char(s, a + 5) == "s" else a + 5
            if _blank_from(s, b) or (b == a + 6 and _blank_from(s, a + 5)):
                return True
    if s.startswith("thread '", p):
        a = s.find("'", p + 8)
        if a != -1:
            if s.startswith(" panicked at ", a + 1):
                return True
            if s.startswith(" (", a + 1):
                b = _digit_end(s, a + 3)
                if b > a + 3 and s.startswith(") panicked at ", b):
                    return True
    for word in _CARGO:
        if s.startswith(word, p):
            a = space_end(s, p + len(word))
            if a > p + len(word) and a < len(s):
                return True
    return False


def _counts(s: str, p: int) -> bool:
    """``Ran all test suites``, ``Tests:  31 passed, …``, ``collected 5 items``, summaries."""
    if s.startswith("Ran all test suites", p) and not is_word_char(_char(s, p + 19) or " "):
        return True
    if s.startswith("collected ", p):
        a = _digit_end(s, p + 10)
        if a > p + 10 and s.startswith(" item", a):
            return True
    if _char(s, p) in _UPPER:
        a = run_end(s, p + 1, " ")
        if 1 <= a - p - 1 <= 20 and _char(s, a) == ":":
            b = space_end(s, a + 1)
            if b > a + 1 and _number_then_unit(s, b):
                return True
    q = p
    if s.startswith("Found", p):
        a = space_end(s, p + 5)
        if a > p + 5:
            q = a
    a = _digit_end(s, q)
    if a > q:
        b = space_end(s, a)
        if b > a and s[b : _word_end(s, b)] in _SUMMARY_WORDS:
            return True
    return False


def _number_then_unit(s: str, at: int) -> bool:
    """``\\d+(?:\\.\\d+)?\\s*(?:m?s\\b|\\w+,|\\w+\\s*$)`` at ``at``."""
    if not _char(s, at).isdecimal():
        return False
    if _unit_after(s, at):
        return True
    a = _digit_end(s, at)
    return _char(s, a) == "." and _char(s, a + 1).isdecimal() and _unit_after(s, a + 1)


def _unit_after(s: str, at: int) -> bool:
    """``\\d+\\s*(?:m?s\\b|\\w+,|\\w+\\s*$)`` at ``at`` (a digit). Straight after the digits,
    ``\\w+`` may take the last of them: the word run from the second digit on, followed by a
    comma or by nothing but white space, matches; after white space, the next word does."""
    digits = _digit_end(s, at)
    run = _word_end(s, at)
    if run - at >= 2 and (_char(s, run) == "," or _blank_from(s, run)):
        return True
    return any(_unit_at(s, q) for q in (digits, space_end(s, digits)))


def _unit_at(s: str, q: int) -> bool:
    """``m?s\\b|\\w+,|\\w+\\s*$`` at ``q``."""
    for unit in ("ms", "s"):
        if s.startswith(unit, q) and not is_word_char(_char(s, q + len(unit)) or " "):
            return True
    run = _word_end(s, q)
    return run > q and (_char(s, run) == "," or _blank_from(s, run))


def _pytest_progress(s: str, p: int) -> bool:
    """``(?:[\\w./\\\\-]+\\.\\w+\\s+)?[.FEsxX]+\\s+\\[\\s*\\d+%\\]\\s*$`` and
    ``[\\w./\\\\-]+\\.\\w+\\s+[.FEsxX]+\\s*$``: a file's name is the whole path run, its
    extension what follows its last dot; the progress marks are tried after it and at the
    line's start (a run of marks is a path run too)."""
    starts = [p]
    named = _file_then_space(s, p)
    if named > 0:
        starts.append(named)
        rest = s[named:].rstrip()
        if rest and set(rest) <= _PROGRESS:
            return True
    for q in starts:
        a = _end(s, q, _PROGRESS.__contains__)
        b = space_end(s, a)
        if a == q or b == a or _char(s, b) != "[":
            continue
        c = space_end(s, b + 1)
        d = _digit_end(s, c)
        if d > c and s.startswith("%]", d) and _blank_from(s, d + 2):
            return True
    return False


def _file_then_space(s: str, p: int) -> int:
    """After ``[\\w./\\\\-]+\\.\\w+\\s+`` at ``p``: where its white space ends, or 0."""
    a = _path_end(s, p)
    dot = s.rfind(".", p, a)
    if dot <= p or dot + 1 == a or _word_end(s, dot + 1) != a:
        return 0
    b = space_end(s, a)
    return b if b > a else 0


def is_output_line(line: str) -> bool:
    """Whether ``line`` (no line break in it) reads as a program's output (the module's
    pattern, matched at its start)."""
    p = space_end(line, 0)
    if p == len(line):
        return False
    s = line
    if s.startswith(_PREFIXES, p):
        return True
    if s.startswith("$ ", p) and _char(s, p + 2) != "" and not s[p + 2].isspace():
        return True
    if s.startswith('File "', p):
        a = s.find('"', p + 6)
        if a > p + 6 and s.startswith('", line ', a) and _char(s, a + 8).isdecimal():
            return True
    c = s[p]
    # Each group is tried only where it could match: its first character, or a character it
    # needs somewhere (a plain line of prose is turned down by a few look-ups).
    last = s.rstrip()[-1]
    return (
        (c == "a" and (_js_frame(s, p) or _java_frame(s, p)))
        or ((":" in s or "(" in s) and _diagnostic(s, p))
        or (c in "ew-" and _compiler(s, p))
        or ((c == "[" or c in _UPPER or c.isdecimal()) and _log(s, p))
        or _rules_and_marks(s, p, c)
        or ((c == "[" or c in _UPPER) and _linter(s, p))
        or (c in "PFEon" and _runner(s, p))
        or (c in "-=●✕✓×" and _go_and_jest(s, p))
        or (c in "tCFRDr" and _cargo(s, p))
        or ((c in "Rc" or c in _UPPER or c.isdecimal()) and _counts(s, p))
        or ((last == "]" or last in _PROGRESS) and _pytest_progress(s, p))
    )
