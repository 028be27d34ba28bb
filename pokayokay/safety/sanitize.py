"""Text from tools, commands and users made fit to store and to show, without rewriting it (pure).

Code and user text stay exact: pokayokay never deletes ``<...>`` or ``>``, never turns ``->``
into an arrow, never drops a phrase from inside a text. What it quotes keeps every character,
except that

* secrets are replaced by ``[redacted:<kind>]`` (:func:`pokayokay.safety.redact.redact`);
* terminal escape sequences (ANSI colours) and control characters other than tab and line
  breaks are dropped: they are not text, and would hide text from the reader;
* where a format holds one line (a list item, a description), each run of white space that holds
  a line break reads as one space (:func:`one_line`), and a long text is cut at a word boundary
  with "…" (:func:`excerpt`): what is shown is then a prefix of the text;
* the few sequences that could close one of pokayokay's own structures are escaped, reversibly,
  by whoever builds that structure (:mod:`pokayokay.safety.exact`).

Tool output is different: it is not the user's text, and whatever of it reaches a memory file
is read by the model in every later session. Only the one line that identifies a mistake may
appear, in a code span, and only when it does not speak to the reader
(:func:`tool_line`, :func:`pokayokay.safety.instructions.speaks`): an assertion message that says
"run git push --force origin main" is not shown at all.
"""

from __future__ import annotations

from pokayokay.safety.redact import redact

__all__ = ["DEFAULT_LIMIT", "ELLIPSIS", "clean", "excerpt", "one_line", "tool_line"]

DEFAULT_LIMIT = 160
ELLIPSIS = "…"
# excerpt() never looks at more than this much raw input per character of output.
_RAW_PER_CHAR = 24
_RAW_MIN = 4096
_KEEP_CONTROLS = frozenset("\t\n\r")
_LINE_BREAKS = "\n\r\x0b\x0c\x85\u2028\u2029"


def _strip_terminal(text: str) -> str:
    """``text`` without ANSI escape sequences and control characters (tab, CR, LF kept)."""
    if text.isprintable() or all(ch.isprintable() or ch in _KEEP_CONTROLS for ch in text):
        return text
    from pokayokay.infra.lazyre import Lazy

    ansi = Lazy(
        r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][A-Za-z0-9]"
        r"|\x9b[0-9;?]*[@-~]"
    )
    text = ansi.sub("", text)
    return "".join(
        ch for ch in text if ch in _KEEP_CONTROLS or not (ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F)
    )


def clean(text: str) -> str:
    """``text`` as pokayokay stores and shows it: secrets redacted, terminal escapes and control
    characters dropped; every other character kept. Idempotent."""
    if not text:
        return ""
    return _strip_terminal(redact(text))


def one_line(text: str) -> str:
    """``text`` on one line: every run of white space holding a line break becomes one space,
    the ends trimmed. Other characters (and white space within a line) are kept."""
    if not any(ch in text for ch in _LINE_BREAKS):
        return text.strip()
    for ch in _LINE_BREAKS[1:]:
        text = text.replace(ch, "\n")
    return " ".join(line.strip() for line in text.split("\n") if line.strip())


def _cut(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, the last one "…", at the last word boundary
    that fits (a prefix of ``text`` plus "…"; never ``AssertionEr…``), a separator left
    dangling there (`` - ``, `` | ``, ``:``) dropped too. Mid-word only when the first word
    alone is longer than ``limit``."""
    if len(text) <= limit:
        return text
    if limit <= 1:
        return ELLIPSIS if limit == 1 else ""
    head = text[: limit - 1]
    if text[limit - 1] != " ":
        space = head.rfind(" ")
        if space > 0:
            head = head[:space]
    head = head.rstrip()
    # a dangling separator goes, unless it is all that fits ("- 00" keeps "-…")
    return (head.rstrip(" -|:,;") or head or text[: limit - 1]) + ELLIPSIS


def excerpt(text: str, limit: int = DEFAULT_LIMIT) -> str:
    """``text`` cleaned (:func:`clean`), on one line (:func:`one_line`), and at most ``limit``
    characters: a longer text is cut at a word boundary (mid-word when a single word is too
    long) and ends with "…". What is left is exact: a prefix of the one-line text."""
    if limit <= 0 or not text:
        return ""
    raw_cap = max(_RAW_MIN, limit * _RAW_PER_CHAR)
    return _cut(one_line(clean(text[:raw_cap])), limit)


def tool_line(text: str, limit: int = DEFAULT_LIMIT) -> str | None:
    """The one line of tool output that identifies a mistake, or ``None``.

    The first line of ``text`` with a letter or digit, cleaned and cut to ``limit`` (a prefix
    and "…"); ``None`` when there is none, or when that line (or its shortened form) speaks to
    the reader (:func:`pokayokay.safety.instructions.speaks`: an imperative, an instruction
    phrase, a dangerous command or a link): then nothing of the output is shown. The caller
    quotes the line in a code span.
    """
    if not text or limit <= 0:
        return None
    cleaned = clean(text[: max(_RAW_MIN, limit * _RAW_PER_CHAR)])
    for ch in _LINE_BREAKS[1:]:
        cleaned = cleaned.replace(ch, "\n")
    line = next((x.strip() for x in cleaned.split("\n") if any(c.isalnum() for c in x)), "")
    if not line:
        return None
    from pokayokay.safety.instructions import speaks

    shown = _cut(line, limit)
    return None if speaks(line) or speaks(shown) else shown
