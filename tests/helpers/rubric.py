"""The lesson rubric (issue 24 item 3): what every lesson pokayokay writes must satisfy, checked
on the text as written (a rule file, ``recurring-failures.md``, a hook text).

A lesson is its teaching sentence and, when a fix was seen, its evidence line. It passes when:

* **code is exact**: every code span's content (a cut one without its final "…") appears
  verbatim in the source material (the tool output, the commands, the file names, the edits);
* **no free text**: every word outside code spans is pokayokay's own (:func:`vocabulary`: the
  words of the string literals of the modules that word lessons), and at most one code span
  holds text with a space that is in no command and no file name (the one error line);
* **an imperative first**: where a fix was seen, the sentence opens with one of pokayokay's
  verbs and names the corrected command or a file in a code span; where none was, the one line
  says what is known (it opens with a code span or "It failed") — never "no fix observed";
* **no identical was/now pair** among the fixing edit's lines.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pokayokay.rules.lessons as lessons_module
import pokayokay.rules.mistake_kinds as kinds_module
import pokayokay.rules.teaching as teaching_module
from pokayokay.failures.said import VALUE_STARTS
from pokayokay.rules.mistake_kinds import KINDS
from pokayokay.rules.teaching import ADVICE, GENERIC, GENERIC_BARE, GENERIC_PLAIN

_BACKTICKS = re.compile(r"`+")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


def code_spans(text: str) -> tuple[list[str], str]:
    """(the contents of the CommonMark code spans of ``text``, the text outside them)."""
    spans: list[str] = []
    outside: list[str] = []
    pos = 0
    while True:
        opening = _BACKTICKS.search(text, pos)
        if opening is None:
            outside.append(text[pos:])
            break
        run = opening.group()
        closing = None
        for candidate in _BACKTICKS.finditer(text, opening.end()):
            if candidate.group() == run:
                closing = candidate
                break
        if closing is None:
            outside.append(text[pos:])
            break
        outside.append(text[pos : opening.start()])
        content = text[opening.end() : closing.start()]
        if len(content) > 2 and content.startswith(" ") and content.endswith(" "):
            content = content[1:-1]
        spans.append(content)
        pos = closing.end()
    return spans, " ".join(outside)


def _literal_words(module: object) -> set[str]:
    source = Path(str(getattr(module, "__file__", ""))).read_text(encoding="utf-8")
    words: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            words.update(w.lower() for w in _WORD.findall(node.value))
    return words


@functools.cache
def vocabulary() -> frozenset[str]:
    """Every word pokayokay's lesson texts may use outside code spans."""
    words = _literal_words(teaching_module) | _literal_words(kinds_module)
    return frozenset(words | _literal_words(lessons_module) | {"s"})


def _verbs() -> set[str]:
    templates = [k.template for k in KINDS] + [k.bare for k in KINDS if k.bare]
    templates += [k.manifest for k in KINDS if k.manifest]
    templates += [*ADVICE.values(), GENERIC, GENERIC_PLAIN, GENERIC_BARE, "Run", "Use"]
    return {t.split()[0] for t in templates}


VERBS = frozenset(_verbs())


_MYPY_HEAD = re.compile(r"^\S.*?:\d+(?::\d+)?: error: ")
_MYPY_END = re.compile(r"\s\[[a-z][a-z0-9-]*\]$")


def mypy_messages(output: str) -> list[str]:
    """mypy's own one-line messages where ``--pretty`` wrapped them: a ``file:N: error:`` line
    and the lines up to the one ending in ``[code]``, joined with one space (mypy wraps only at
    a space; its plain output is exactly this line — decision 0117)."""
    lines = output.split("\n")
    found = []
    for i, line in enumerate(lines):
        if _MYPY_HEAD.match(line) and not _MYPY_END.search(line.rstrip()):
            for j in range(i + 1, min(i + 5, len(lines))):
                if not lines[j].strip() or _MYPY_HEAD.match(lines[j]):
                    break
                if _MYPY_END.search(lines[j].rstrip()):
                    found.append(" ".join(x.strip() for x in lines[i : j + 1]))
                    break
    return found


@dataclass(frozen=True)
class Source:
    """What a lesson may quote: the tool output, the commands, the file names, the edits."""

    output: str
    commands: tuple[str, ...]
    files: tuple[str, ...]
    edits: tuple[str, ...] = ()
    keys: tuple[str, ...] = ()  # the mistakes' keys: a test id or a code is no free text
    root: str = ""  # the project root: quoted lines cut it where the tool printed it (0117)

    def holds(self, text: str) -> bool:
        outputs = [self.output, *mypy_messages(self.output)]
        if self.root:
            outputs += [o.replace(self.root.rstrip("/") + "/", "") for o in outputs]
        parts = (*outputs, *self.commands, *self.files, *self.edits)
        return any(text in part for part in parts)

    def identifier(self, text: str) -> bool:
        return (
            self.named(text)
            or any(text in e for e in self.edits)
            or any(text in k for k in self.keys)
        )

    def named(self, text: str) -> bool:
        """A command, or a file (or folder) name: what a sentence may name."""
        return any(text == c or text in c for c in self.commands) or any(
            text == f or f.startswith(text.rstrip("/") + "/") for f in self.files
        )


def check(
    sentence: str,
    evidence: str,
    source: Source,
    *,
    fixed: bool,
    edits: Sequence[tuple[str, str]] = (),
) -> list[str]:
    """The rubric's complaints about one lesson ([] when it passes)."""
    problems: list[str] = []
    words = vocabulary()
    free_spans = 0
    for part in (sentence, evidence):
        spans, outside = code_spans(part)
        for content in spans:
            exact = content[:-1] if content.endswith("…") else content
            if not source.holds(exact):
                problems.append(f"code not exact: {content!r}")
            # the sides of a failed comparison the runner printed after its message (jest's
            # Expected/Received, Rust's left/right; at most two) belong to the error line
            sides = exact.startswith(VALUE_STARTS)
            if " " in exact.strip() and not source.identifier(exact) and not sides:
                free_spans += 1
        strange = sorted({w for w in _WORD.findall(outside) if w.lower() not in words})
        if strange:
            problems.append(f"free text {strange} in {part!r}")
    if free_spans > 1:
        problems.append(f"{free_spans} quoted output lines (at most the one error line)")
    if "no fix" in f"{sentence} {evidence}".lower():
        problems.append("says no fix was observed")
    first = sentence.split()[0] if sentence.split() else ""
    spans, _ = code_spans(sentence)
    if fixed:
        if first not in VERBS:
            problems.append(f"no imperative first: {sentence!r}")
        elif not any(source.named(s) for s in spans) and first not in ("Check",):
            problems.append(f"names neither the corrected command nor a file: {sentence!r}")
    elif not (sentence.startswith("`") or sentence.startswith("It failed") or first in VERBS):
        problems.append(f"not a line of what is known: {sentence!r}")
    for was, now in edits:
        if was == now:
            problems.append(f"identical was/now pair {was!r}")
    return problems


@dataclass(frozen=True)
class Written:
    """One lesson as a file or a hook text holds it."""

    where: str
    sentence: str
    evidence: str
    edits: tuple[tuple[str, str], ...] = ()


def _pairs(lines: Iterable[str]) -> tuple[tuple[str, str], ...]:
    was = [ln.split("was: ", 1)[1] for ln in lines if ln.strip().startswith("- was: ")]
    now = [ln.split("now: ", 1)[1] for ln in lines if ln.strip().startswith("- now: ")]
    return tuple(zip(was, now, strict=False))


def in_markdown(where: str, text: str) -> list[Written]:
    """The lessons of a rule file or ``recurring-failures.md``: the line under each ``## ``
    heading and its evidence item; in the environment rule, each ``- Run``/``- Use`` item and
    its evidence sub-item."""
    body = text.split("<!-- pokayokay-rule-end", 1)[0]
    lines = body.split("\n")
    out: list[Written] = []
    for i, line in enumerate(lines):
        if line.startswith("## ") and i + 1 < len(lines):
            sentence = lines[i + 1]
            rest = lines[i + 2 :]
            end = next((n for n, ln in enumerate(rest) if ln.startswith("## ") or not ln), None)
            block = rest[:end]
            evidence = block[0][2:] if block and block[0].startswith("- Failed") else ""
            out.append(Written(where, sentence, evidence, _pairs(block)))
        elif line.startswith(("- Run ", "- Use ")):
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            evidence = nxt[4:] if nxt.startswith("  - ") else ""
            out.append(Written(where, line[2:], evidence))
    return out


def in_hook_text(where: str, text: str) -> Written:
    """A hook text: ``pokayokay: <sentence> <evidence>`` (the first sentence ends at ". ")."""
    body = re.sub(r"\Apokayokay(?: guard)?: ", "", text)
    sentence, _, evidence = body.partition(". ")
    return Written(where, sentence + ".", evidence)
