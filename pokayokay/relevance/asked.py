"""How someone might ask for a note or a skill, in their own words: the phrases Claude writes
for a stored learning (``pokayokay remember --asked``, decision 0175) and for an installed skill
(``pokayokay skills --asked``, decision 0176). They are matched, never shown: they bridge the
words a prompt uses and the words the note or the description uses.

Pure: text in, values out. Each phrase is made one line of single spaces, cut to
:data:`ASKED_CHARS` characters and redacted of secrets before anything is kept; the newest come
first, repeats (case ignored) are dropped, at most :data:`ASKED_MAX` are kept.

A learning's phrases are also analysed one by one when it is indexed (:func:`phrase_terms`), so
that recall's gate can ask how much of a prompt one phrase says
(:func:`pokayokay.relevance.gate.asked_share`, decision 0177).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

__all__ = [
    "ASKED_CHARS", "ASKED_ENOUGH", "ASKED_MAX", "MAX_BATCH_CHARS", "by_name", "merged",
    "phrase_terms", "phrases",
]  # fmt: skip

ASKED_MAX = 8
# /remember asks for 6 to 8 phrases a learning (decision 0191): one with fewer is listed by
# ``remember --unasked`` (/learning-phrases) with the ones it has, to be topped up.
ASKED_ENOUGH = 6
ASKED_CHARS = 160
MAX_BATCH_CHARS = 1 << 20  # one batch of ``--asked-from``: far more than 20 skills' phrases


def phrase_terms(asked: Iterable[str], analyse: Callable[[str], Iterable[str]]) -> str:
    """Each phrase's terms as ``analyse`` finds them (a room's own analyser), without bigrams,
    once each, separated by spaces, a line a phrase: what
    :func:`~pokayokay.relevance.gate.asked_share` reads. "" without phrases."""
    from pokayokay.relevance.concepts import BIGRAM_JOIN

    lines = []
    for phrase in asked:
        terms = [t for t in dict.fromkeys(analyse(phrase)) if BIGRAM_JOIN not in t]
        if terms:
            lines.append(" ".join(terms))
    return "\n".join(lines)


def phrases(text: str) -> tuple[list[str], list[str]]:
    """The phrases of ``text`` (one a line; each made one line of single spaces, cut to
    :data:`ASKED_CHARS`, secrets redacted; empty ones dropped: :func:`merged` drops repeats)
    and the kinds of secret redacted."""
    from pokayokay.safety.redact import redact, redacted_kinds

    out: list[str] = []
    kinds: list[str] = []
    for line in text.splitlines():
        kinds.extend(k for k in redacted_kinds(line) if k not in kinds)
        phrase = " ".join(redact(line).split())[:ASKED_CHARS].strip()
        if phrase:
            out.append(phrase)
    return out, kinds


def merged(new: Iterable[str], old: Iterable[str]) -> tuple[str, ...]:
    """The newest phrases first, then the older ones not repeated (case ignored), at most
    :data:`ASKED_MAX`."""
    out: list[str] = []
    seen: set[str] = set()
    for phrase in (*new, *old):
        key = phrase.casefold()
        if key not in seen:
            seen.add(key)
            out.append(phrase)
    return tuple(out[:ASKED_MAX])


def by_name(text: str) -> dict[str, str]:
    """The phrases of each name in a batch (a ``## NAME`` line before each one's phrases, one a
    line) as ``{name: "phrase\\nphrase"}``; ValueError when a phrase comes before any name, no
    name is given, or the text is over :data:`MAX_BATCH_CHARS`. A plain text and not JSON:
    Claude Code refuses a Bash command whose heredoc holds a brace beside a quote (it reads as
    expansion obfuscation), which Claude's batch is (``pokayokay skills --asked-from -``,
    ``pokayokay remember --asked-from -``)."""
    if len(text) > MAX_BATCH_CHARS:
        raise ValueError(f"more than {MAX_BATCH_CHARS} characters")
    out: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        stripped = line.strip()
        if stripped == "##" or stripped.startswith("## "):
            name = stripped[2:].strip()
            if not name:
                raise ValueError("a '## ' line without a name")
            current = out.setdefault(name, [])
        elif stripped:
            if current is None:
                raise ValueError("a phrase came before any '## NAME' line")
            current.append(stripped)
    if not out:
        raise ValueError("no '## NAME' line: nothing says whose phrases they are")
    return {name: "\n".join(lines) for name, lines in out.items()}
