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

* **code spans** — one token between single or double backticks (```the `theme` prop```,
  ```make the `test` script```): a name in code. A span holding several words is a command or
  a message the person quotes (```kubectl get pods` shows 14 restarts``): it names the tool
  the task is about, and measured, keeping it wins (decision 0121);
* **pasted output** — fenced blocks and the lines a program wrote, as the one pasted-output
  detector sets them aside (:func:`pokayokay.relevance.pasted.set_aside`: traces, frames,
  diagnostics, log lines, rules, test runners' per-test, per-file and summary lines, the
  indented block under an output line, a short run between two output lines). A one-line
  prompt is a sentence: its line is never set aside (a question quoting an error is still the
  person's question).
"""

from __future__ import annotations

from pokayokay.infra.lazyre import Lazy
from pokayokay.relevance.pasted import line_spans, set_aside

# An inline code span holding one token: single or double backticks, no white space inside.
_CODE_SPAN = Lazy(r"(``?)(?!`)([^`\s]+?)\1(?!`)")


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
        for found in _CODE_SPAN.finditer(prompt, a, b):
            code = True
            if found.start() > start:
                spans.append((start, found.start()))
            start = found.end()
        if b > start:
            spans.append((start, b))
    spans = [(a, b) for a, b in spans if prompt[a:b].strip()]
    return OwnWords(prompt, spans, any(aside), code)
