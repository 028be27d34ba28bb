"""The one code-fence scanner every part of pokayokay uses to read markdown (pure). MEMORY.md's
section boundaries use it; the entries inside a section are CommonMark's list items, read by a
parser (``memory/commonmark``, decision 0040).

CommonMark's rules, kept deliberately small:

* a fence opens on a line indented by at most three *spaces* (a tab is four columns: a tab-indented
  run is an indented code block, not a fence) holding a run of three or more backticks or tildes;
  a backtick run's info string may not hold a backtick (```` ```a`b ```` is inline code);
* it closes on a line, indented by at most three spaces, holding only a run of the same character
  at least as long as the opening one (trailing spaces or tabs allowed);
* an unclosed fence runs to the end of the text — unless the caller names *structure lines*
  (``resets``): such a line is never inside a fence and closes any fence open above it. MEMORY.md
  uses this for its section markers and column-0 ``## `` headings, so an unclosed fence in one
  entry can never hide the end of its section or swallow the next one.
"""

from __future__ import annotations

from pokayokay.infra.lazyre import Lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

# Compiled on the first line that could be a fence (:func:`fence_opening` tries the cheap test
# first): reading a MEMORY.md with no code fence imports no ``re``.
_OPEN_RE = Lazy(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_CLOSE_RE = Lazy(r"^ {0,3}(`{3,}|~{3,})[ \t]*$")


def _body(line: str) -> str:
    if line.endswith("\r\n"):
        return line[:-2]
    if line.endswith(("\n", "\r")):
        return line[:-1]
    return line


def fence_opening(line: str) -> str | None:
    """The fence run (``\\`\\`\\``, ``~~~~``…) this line opens, or None."""
    if line[:4].lstrip(" ")[:1] not in ("`", "~"):
        return None  # what the pattern needs first: at most 3 spaces, then a fence character
    match = _OPEN_RE.match(_body(line))
    if match is None:
        return None
    run, info = match[1], match[2]
    if run[0] == "`" and "`" in info:
        return None
    return run


def closes(line: str, run: str) -> bool:
    """Does ``line`` close a fence opened with ``run``?"""
    match = _CLOSE_RE.match(_body(line))
    return match is not None and match[1][0] == run[0] and len(match[1]) >= len(run)


def fence_states(lines: Iterable[str], resets: Callable[[str], bool] | None = None) -> list[bool]:
    """For each line: is it part of a fenced code block (its opening and closing lines included)?

    A line for which ``resets`` is true is structure: never fenced, and it ends any open fence.
    """
    states: list[bool] = []
    run: str | None = None
    for line in lines:
        if resets is not None and resets(line):
            run = None
            states.append(False)
            continue
        if run is None:
            run = fence_opening(line)
            states.append(run is not None)
        else:
            states.append(True)
            if closes(line, run):
                run = None
    return states


def open_fence_at_end(lines: Iterable[str]) -> str | None:
    """The opening line's indentation and run of a fence still open after the last line (the
    closing line that would end it, without a terminator), or None when every fence closes."""
    opener: str | None = None
    run: str | None = None
    for line in lines:
        if run is None:
            run = fence_opening(line)
            if run is not None:
                body = _body(line)
                opener = body[: len(body) - len(body.lstrip(" "))] + run
        elif closes(line, run):
            run = None
    return opener if run is not None else None


def outside_fences(lines: Iterable[str], resets: Callable[[str], bool] | None = None) -> list[str]:
    """The lines that are not part of a fenced code block, in order."""
    items = list(lines)
    return [
        line for line, fenced in zip(items, fence_states(items, resets), strict=False) if not fenced
    ]
