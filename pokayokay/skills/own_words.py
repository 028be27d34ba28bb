"""Which parts of a prompt are the person's own words, for skill suggestion (pure).

A prompt often carries text the person did not write as a request: a fenced block of code or
output, an inline code span (```the `theme` prop```), a stack trace or a test runner's summary
pasted under a sentence. Those words say where the work is or what a program printed, not what
practice the task calls for: a jest summary's "passed" or a prop named ``theme`` names no skill.
Skill suggestion scores only the person's own words; the prompt itself is never rewritten (the
parts are *spans* of it, read in place), and what was set aside is kept as a fact of its own
(:attr:`OwnWords.pasted`: an error or output was pasted), evidence of a situation rather than
of a subject.

Everything is recognised by the *structure* of the text, never by a list of words:

* **fenced blocks** — from a line opening with three or more backticks or tildes to the line
  closing it (or the end of the prompt);
* **code spans** — one token between single or double backticks (```the `theme` prop```,
  ```make the `test` script```): a name in code. A span holding several words is a command or
  a message the person quotes (```kubectl get pods` shows 14 restarts``): it names the tool
  the task is about, and measured, keeping it wins (decision 0121);
* **output lines** — in a prompt of several lines, a line shaped like a program's output: a
  traceback and its frames, ``file:line[:col]`` diagnostics, a log line opening on a timestamp
  or a bracketed level, an exception's type line, a rule of ``=``/``-`` (with or without a
  title inside: pytest's ``=== test session starts ===``), a test runner's per-file or summary
  line (``PASS  src/a.test.ts``, ``Tests: 31 passed, 31 total``, ``collected 88 items``,
  ``tests/test_api.py ....``), a shell prompt and its command; an indented line right under an
  output line belongs to it (a frame's source line). A one-line prompt is a sentence: its line
  is never set aside (a question quoting an error is still the person's question).
"""

from __future__ import annotations

from pokayokay.infra.lazyre import Lazy

# A fence opens a line: three or more backticks or tildes.
_FENCE = Lazy(r"[ \t]*(`{3,}|~{3,})")
# An inline code span holding one token: single or double backticks, no white space inside.
_CODE_SPAN = Lazy(r"(``?)(?!`)([^`\s]+?)\1(?!`)")
# Lines that read as a program's output rather than a sentence.
_OUTPUT = Lazy(
    r"\s*(?:"
    r"Traceback \(most recent call last\):"
    r"|File \"[^\"]+\", line \d+"
    r"|at \S+(?: \(\S+:\d+(?::\d+)?\)|:\d+:\d+)\s*$"  # a JavaScript or Java frame
    r"|[\w./\\-]+[:(]\d+(?:[:,]\d+)?\)?(?::|\s+-\s)"  # file:line[:col]: a diagnostic
    r"|\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}"  # a log line's timestamp
    r"|\[?\d{2}:\d{2}:\d{2}"
    r"|\[[A-Z]{3,8}\]"  # a bracketed level
    r"|[A-Z]{4,8}:[\w.]+:"  # Python logging's LEVEL:logger:
    r"|[EF>]\s{2,}\S"  # pytest's E and > lines
    r"|[=_*-]{3,}.*[=_*-]{3,}\s*$"  # a rule, maybe titled
    r"|[=_*-]{5,}\s*$"
    r"|[\w.]*(?:Error|Exception|Warning)(?::\s|$)"  # an exception's type line
    r"|\^+\s*$"
    r"|(?:PASS|FAIL|PASSED|FAILED|ERROR|ok|not ok)\s+\S+\s*$"  # a runner's per-file verdict
    r"|(?:PASS|FAIL)\s{2,}\S"
    r"|[A-Z][\w ]{1,20}:\s+\d+(?:\.\d+)?\s*(?:m?s\b|\w+,|\w+\s*$)"  # "Tests:  31 passed, ..."
    r"|collected \d+ items?"
    r"|[\w./\\-]+\.\w+\s+[.FEsxX]+(?:\s+\[\s*\d+%\])?\s*$"  # pytest's progress line
    r"|(?:Found\s+)?\d+\s+(?:passed|failed|errors?|warnings?|problems?)\b"
    r"|\$ \S"  # a shell prompt and its command
    r")"
)


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


def _lines(prompt: str) -> list[tuple[int, int]]:
    """(start, end) of each line of ``prompt``, without its line break."""
    out = []
    start = 0
    for line in prompt.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        out.append((start, start + len(body)))
        start += len(line)
    return out


def _set_aside_lines(prompt: str, lines: list[tuple[int, int]]) -> list[bool]:
    """For each line, whether it is inside a fenced block or (in a prompt of several non-blank
    lines) shaped like output."""
    aside = [False] * len(lines)
    fence: str | None = None
    fenced = "```" in prompt or "~~~" in prompt  # a fence line holds one (most prompts: none)
    for i, (a, b) in enumerate(lines if fenced else ()):
        found = _FENCE.match(prompt, a, b)
        if fence is not None:
            aside[i] = True
            if found and found[1][0] == fence[0] and len(found[1]) >= len(fence):
                fence = None
            continue
        if found:
            aside[i] = True
            fence = found[1]
    if sum(1 for a, b in lines if prompt[a:b].strip()) < 2:
        return aside
    previous = False
    for i, (a, b) in enumerate(lines):
        if aside[i]:
            previous = False
            continue
        line = prompt[a:b]
        if not line.strip():
            previous = False
            continue
        shaped = _OUTPUT.match(line) is not None
        under = previous and line.startswith(("  ", "\t"))
        previous = shaped or under
        aside[i] = previous
    return aside


def own_words(prompt: str) -> OwnWords:
    """The person's own words of ``prompt`` (see the module docstring)."""
    lines = _lines(prompt)
    aside = _set_aside_lines(prompt, lines)
    spans: list[tuple[int, int]] = []
    code = False
    for (a, b), skipped in zip(lines, aside, strict=True):
        if skipped:
            continue
        start = a
        for found in _CODE_SPAN.finditer(prompt, a, b) if "`" in prompt else ():
            code = True
            if found.start() > start:
                spans.append((start, found.start()))
            start = found.end()
        if b > start:
            spans.append((start, b))
    spans = [(a, b) for a, b in spans if prompt[a:b].strip()]
    return OwnWords(prompt, spans, any(aside), code)
