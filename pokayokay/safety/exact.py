"""Quoting text exactly (pure): code spans, fenced blocks, and the escaping of the few sequences
that could break out of pokayokay's own structures.

Code and user text are never rewritten. What pokayokay writes or injects keeps every character
of what it quotes, except for exactly these escapes, each reversible (:func:`unescape`):

* **A tag that opens or closes one of pokayokay's fences** (``<pokayokay-recall>``,
  ``</pokayokay-lessons>`` …) or the ``<system-reminder>`` Claude Code wraps hook context in:
  ``<`` followed by any backslashes, white space, an optional ``/`` and the tag name (ASCII
  letters in any case) gets one more backslash right after the ``<``:
  ``</pokayokay-recall>`` is shown ``<\\/pokayokay-recall>``, ``<\\/pokayokay-recall>``
  ``<\\\\/pokayokay-recall>``. Reversing removes one backslash from every such sequence.
* **A marker comment** of MEMORY.md or a rule file (``<!-- pokayokay: … -->``,
  ``<!-- /pokayokay -->``, ``<!-- pokayokay-rule: … -->``): ``<!--`` followed by backslashes,
  white space, an optional ``/`` and ``pokayokay`` gets one more backslash after ``<!--``.

Frontmatter fences need no escape: pokayokay writes quoted YAML scalars inside frontmatter, and a
body's own ``---`` lines come after the closing fence, which readers find first.

:func:`code_span` builds a CommonMark code span (a backtick run longer than any run inside, a
space of padding when the text starts or ends with a backtick); :func:`fenced_block` a fenced
block whose fence is longer than any backtick run inside. Neither changes the text it quotes.

No regular expression: the prompt hook imports this module.
"""

from __future__ import annotations

__all__ = [
    "CONTEXT_WRAPPER",
    "code_span",
    "escape",
    "escape_markers",
    "escape_tags",
    "fenced_block",
    "quoted",
    "unescape",
    "unescape_markers",
    "unescape_tags",
]

# The tag Claude Code wraps a hook's additionalContext in (claude-code-interfaces.md).
CONTEXT_WRAPPER = "system-reminder"
MARKER_WORD = "pokayokay"
_COMMENT = "<!--"
_SPACE = " \t\n\r\f\v"
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _longest_run(text: str, ch: str) -> int:
    longest = run = 0
    for c in text:
        run = run + 1 if c == ch else 0
        longest = max(longest, run)
    return longest


def code_span(text: str) -> str:
    """``text`` as a CommonMark code span that shows it exactly.

    The delimiter is a backtick run one longer than the longest run inside; a space pads each
    side when the text starts or ends with a backtick, or starts and ends with a space (CommonMark
    strips one such space from each side, so the text comes back whole). ``text`` must be one
    line: a line break would end the list item or heading it stands in (:func:`fenced_block`
    quotes several lines).
    """
    if "\n" in text or "\r" in text:
        raise ValueError("a code span holds one line; quote several in a fenced block")
    fence = "`" * (_longest_run(text, "`") + 1)
    pad = (
        text.startswith("`")
        or text.endswith("`")
        or (len(text) > 1 and text.startswith(" ") and text.endswith(" ") and text.strip())
    )
    inner = f" {text} " if pad else text
    return f"{fence}{inner}{fence}"


def quoted(text: str) -> str:
    """``text`` in a code span for a file pokayokay keeps markers in (MEMORY.md, a rule, which
    Claude Code loads inside a ``<system-reminder>``): marker comments and that wrapper's tags
    escaped (:func:`escape`), every other character exact."""
    return code_span(escape(text, (CONTEXT_WRAPPER,)))


def fenced_block(text: str, info: str = "") -> str:
    """``text`` as a CommonMark fenced code block (no trailing newline): the fence is a run of
    backticks longer than any inside, at least three, so no line of ``text`` can close it."""
    fence = "`" * max(3, _longest_run(text, "`") + 1)
    body = text if text.endswith("\n") or not text else text + "\n"
    return f"{fence}{info}\n{body}{fence}"


def _tag_starts(text: str, lowered: str, name: str, opener: str) -> list[tuple[int, int]]:
    """Where ``opener`` + backslashes + white space + optional ``/`` + white space + ``name``
    stand in ``text``: (index just after ``opener``, number of backslashes) for each."""
    found: list[tuple[int, int]] = []
    at = lowered.find(name)
    while at >= 0:
        j = at
        while j > 0 and text[j - 1] in _SPACE:
            j -= 1
        if j > 0 and text[j - 1] == "/":
            j -= 1
            while j > 0 and text[j - 1] in _SPACE:
                j -= 1
        slashes = 0
        while j > 0 and text[j - 1] == "\\":
            j -= 1
            slashes += 1
        if j >= len(opener) and text[j - len(opener) : j] == opener:
            found.append((j, slashes))
        at = lowered.find(name, at + len(name))
    return found


def _shift(text: str, names: tuple[str, ...], opener: str, step: int) -> str:
    lowered = text.translate(_ASCII_LOWER)
    edits: list[tuple[int, int]] = []
    for name in names:
        if name.lower() in lowered:
            edits.extend(_tag_starts(text, lowered, name.lower(), opener))
    if not edits:
        return text
    pieces: list[str] = []
    last = 0
    for at, slashes in sorted(set(edits)):
        if step < 0 and slashes == 0:
            continue  # never escaped: nothing to take away
        pieces.append(text[last:at])
        if step > 0:
            pieces.append("\\")
            last = at
        else:
            last = at + 1
    pieces.append(text[last:])
    return "".join(pieces)


def escape_tags(text: str, names: tuple[str, ...]) -> str:
    """``text`` with every tag opening or closing one of ``names`` escaped (see the module)."""
    return _shift(text, names, "<", 1)


def unescape_tags(text: str, names: tuple[str, ...]) -> str:
    """The inverse of :func:`escape_tags` for the same ``names``."""
    return _shift(text, names, "<", -1)


def escape_markers(text: str) -> str:
    """``text`` with every comment that could pass for a pokayokay marker escaped."""
    return _shift(text, (MARKER_WORD,), _COMMENT, 1)


def unescape_markers(text: str) -> str:
    """The inverse of :func:`escape_markers`."""
    return _shift(text, (MARKER_WORD,), _COMMENT, -1)


def escape(text: str, names: tuple[str, ...]) -> str:
    """Both escapes: the tags ``names`` and pokayokay's marker comments."""
    return escape_markers(escape_tags(text, names))


def unescape(text: str, names: tuple[str, ...]) -> str:
    """The inverse of :func:`escape` for the same ``names``."""
    return unescape_tags(unescape_markers(text), names)
