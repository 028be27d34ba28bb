"""Which words of a prompt are the person's: the one pasted-output detector, and the own words
skill suggestion scores (pure; decision 0134).

A person pastes what a tool printed — a traceback, a test run, compiler diagnostics, a log —
alone or under (or above) a request of their own, and quotes names in code spans. Recall and
skill suggestion both need to know which lines a program wrote: skill suggestion scores only
the person's own words (:func:`own_words`), and a turn with no words of the person's left at
all is pasted output and earns nothing (:func:`only_output`, read by
:func:`pokayokay.recall.turns.pasted_output`). Both read the lines set aside here
(:func:`set_aside`), so the two can never disagree again.

Everything is recognised by the *structure* of the text, never by a list of subject words:

* **fenced blocks** — from a line opening with three or more backticks or tildes to the line
  closing it (or the end of the prompt);
* **output-shaped lines** (:func:`~pokayokay.relevance.output_lines.is_output_line`) — a
  traceback and its frames (Python, Java, JavaScript), ``file:line[:col]`` and
  ``file(line,col)`` diagnostics, a compiler's ``error[E0308]:`` / ``note:`` lines, a log line
  opening on a timestamp or a bracketed level, Python logging's ``LEVEL:logger:``, an
  exception's type line, a caret under a column, a rule of ``=``/``-``/``_`` (titled or not), a
  code frame's numbered gutter (jest, tsc, rustc: ``>  7 |``), and the per-test, per-file and
  summary lines test runners print (pytest, jest, cargo test, go test: ``tests/a.py .F``,
  ``FAIL src/a.test.js``, ``● suite › case``, ``test a::b ... ok``, ``--- FAIL: TestAdd
  (0.00s)``, ``Tests: 2 failed, 4 total``, ``test result: FAILED.``), a shell prompt and its
  command;
* **lines under output** — an indented line below an output line belongs to it, across blank
  lines (a frame's source line; jest's ``expect(received)`` block under its ``●`` header);
* **lines between output** — at most :data:`MAX_BETWEEN` unindented lines whose nearest
  non-blank neighbours above and below are both output (pytest's ``client = <FlaskClient>``,
  cargo's ``failures:``, a panic's ``assertion `left == right` failed``).

A one-line prompt is a sentence: its line is never set aside (a question quoting an error is
still the person's question). A request above a paste, or below it after a blank line, stays
the person's words.

Skill suggestion's own words (:func:`own_words`) also set aside **code spans**: one token
between single or double backticks (```the `theme` prop```, ```make the `test` script```), a
name in code. A span holding several words is a command or a message the person quotes
(```kubectl get pods` shows 14 restarts``): it names the tool the task is about, and measured,
keeping it wins (decision 0121). The prompt itself is never rewritten: the own words are
*spans* of it, read in place, and what was set aside is kept as a fact of its own
(:attr:`OwnWords.pasted`: an error or output was pasted).
"""

from __future__ import annotations

from pokayokay.relevance.output_lines import is_output_line
from pokayokay.relevance.scan import code_spans

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

# At most this many unindented lines between two output lines are output too.
MAX_BETWEEN = 2

# An inline code span holding one token, single or double backticks, no white space inside, is
# found by :func:`pokayokay.relevance.scan.code_spans` (no ``re`` for a prompt quoting a flag).
# A fence opens a line: three or more backticks or tildes (:func:`fence_at`). Lines that read
# as a program's output: :func:`pokayokay.relevance.output_lines.is_output_line`.


def fence_at(prompt: str, start: int, end: int) -> str | None:
    """The fence opening ``prompt[start:end]`` (a line): ``[ \\t]*(`{3,}|~{3,})`` matched
    there, its group; None when the line opens none."""
    at = start
    while at < end and prompt[at] in " \t":
        at += 1
    mark = prompt[at] if at < end else ""
    if mark not in ("`", "~"):
        return None
    stop = at
    while stop < end and prompt[stop] == mark:
        stop += 1
    return prompt[at:stop] if stop - at >= 3 else None


def line_spans(prompt: str) -> list[tuple[int, int]]:
    """(start, end) of each line of ``prompt``, without its line break."""
    out = []
    start = 0
    for line in prompt.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        out.append((start, start + len(body)))
        start += len(line)
    return out


def _fenced(prompt: str, lines: Sequence[tuple[int, int]]) -> list[bool]:
    inside = [False] * len(lines)
    fence: str | None = None
    fenced = "```" in prompt or "~~~" in prompt  # a fence line holds one (most prompts: none)
    for i, (a, b) in enumerate(lines if fenced else ()):
        found = fence_at(prompt, a, b)
        if fence is not None:
            inside[i] = True
            if found and found[0] == fence[0] and len(found) >= len(fence):
                fence = None
            continue
        if found:
            inside[i] = True
            fence = found
    return inside


def _indented(line: str) -> bool:
    return line.startswith((" ", "\t"))


def set_aside(prompt: str, lines: Sequence[tuple[int, int]] | None = None) -> list[bool]:
    """For each line of ``prompt`` (``lines``: its :func:`line_spans`, when the caller has
    them), whether a program wrote it: inside a fenced block, or — in a prompt of several
    non-blank lines — output-shaped, under output or between output (module docstring)."""
    if lines is None:
        lines = line_spans(prompt)
    aside = _fenced(prompt, lines)
    texts = [prompt[a:b] for a, b in lines]
    filled = [i for i, text in enumerate(texts) if text.strip()]
    if len(filled) < 2:
        return aside
    fenced = list(aside)
    for i in filled:
        if not fenced[i] and is_output_line(texts[i]):
            aside[i] = True
    # between output: a short run of unindented lines whose neighbours are both output
    run: list[int] = []
    previous: bool | None = None  # whether the last non-blank line before the run is output
    for i in filled:
        if fenced[i]:
            run, previous = [], None
            continue
        if aside[i]:
            unindented = sum(1 for j in run if not _indented(texts[j]))
            if previous and run and unindented <= MAX_BETWEEN:
                for j in run:
                    aside[j] = True
            run, previous = [], True
            continue
        run.append(i)
    # under output: an indented line below an output line, blank lines between
    above = False
    for i in filled:
        if fenced[i]:
            above = False
        elif aside[i]:
            above = True
        elif above and _indented(texts[i]):
            aside[i] = True
        else:
            above = False
    return aside


# The last prompt :func:`only_output` read and its answer: a prompt hook asks it of one prompt
# from several places (recall's turn checks, skill suggestion's).
_LAST: list[tuple[str, bool]] = []


def only_output(prompt: str) -> bool:
    """Whether nothing of ``prompt`` is the person's: it has several non-blank lines and every
    line holding a letter or a digit is set aside (:func:`set_aside`)."""
    if "\n" not in prompt.strip():
        return False
    if _LAST and _LAST[0][0] == prompt:
        return _LAST[0][1]
    lines = line_spans(prompt)
    aside = set_aside(prompt, lines)
    answer = not any(
        not skipped and any(c.isalnum() for c in prompt[a:b])
        for (a, b), skipped in zip(lines, aside, strict=True)
    )
    _LAST[:] = [(prompt, answer)]
    return answer


class OwnWords:
    """The person's own words of a prompt: ``spans`` (start, end) into it, in order and
    disjoint; ``pasted``: whether output lines or a fenced block were set aside; ``code``:
    whether one-token code spans were."""

    __slots__ = ("code", "pasted", "prompt", "spans")

    def __init__(self, prompt: str, spans: list[tuple[int, int]], pasted: bool, code: bool) -> None:
        self.prompt = prompt
        self.spans = spans
        self.pasted = pasted
        self.code = code

    @property
    def text(self) -> str:
        """The own words, each span as written, spans joined by a line break (a boundary no
        phrase or word pair crosses)."""
        return "\n".join(self.prompt[a:b] for a, b in self.spans)

    @property
    def aside(self) -> str:
        """The rest of the prompt: what was set aside, each piece as written, joined by line
        breaks (its words say where the work is, not what practice it calls for)."""
        out = []
        start = 0
        for a, b in self.spans:
            if self.prompt[start:a].strip():
                out.append(self.prompt[start:a])
            start = b
        if self.prompt[start:].strip():
            out.append(self.prompt[start:])
        return "\n".join(out)


def own_words(prompt: str) -> OwnWords:
    """The person's own words of ``prompt`` (see the module docstring)."""
    lines = line_spans(prompt)
    aside = set_aside(prompt, lines)
    spans: list[tuple[int, int]] = []
    code = False
    for (a, b), skipped in zip(lines, aside, strict=True):
        if skipped:
            continue
        start = a
        for opened, closed in code_spans(prompt, a, b):
            code = True
            if opened > start:
                spans.append((start, opened))
            start = closed
        if b > start:
            spans.append((start, b))
    spans = [(a, b) for a, b in spans if prompt[a:b].strip()]
    return OwnWords(prompt, spans, any(aside), code)
