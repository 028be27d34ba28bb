"""Whether a prompt speaks of a past fix's symptom (pure).

An automatic past fix is one failure and what resolved it: "error TS2339: Property
'durationSeconds' does not exist on type 'CourseOut' (typecheck failure, 2 sessions). Resolved
by `npm run gen:api` after edits to src/pages/Course.tsx." It helps when the prompt is about that
failure again, in its words or in others ("ts says property doesnt exist on type after i changed
the api"). Sharing only the files it touched, the project's subject words or the kind of check
("typescript says 'Object is possibly undefined' on course.sections[0].title in Outline.tsx",
"refactor billing/utils.py") says the prompt is near the fix's files, not that it meets the
same failure: such a fix is not recalled. A learning is not held to this: its whole text is
its subject.

The symptom is the text before the " (<category> failure, N sessions)" that
:func:`pokayokay.recall.readers.fix_text` writes after the failure's excerpt; the prompt must
share :data:`MIN_SYMPTOM_EVIDENCE` pieces of evidence with it, counted as the index counts them
(a concept with the words evoking it is one piece, a weak word or a bigram none, a piece resting
on an unsupported ambiguous word half of one).
"""

from __future__ import annotations

from pokayokay.relevance.analyser import weak_terms
from pokayokay.relevance.concepts import BIGRAM_JOIN, Query, features

MIN_SYMPTOM_EVIDENCE = 2.0
_MARK = " failure, "


def symptom(text: str) -> str:
    """The failure a fix document's text names: the part before its ``(<category> failure, N
    sessions)``, out of its code span; the whole text when it has none."""
    at = text.find(_MARK)
    if at < 0:
        return text
    opening = text.rfind(" (", 0, at)
    if opening < 0:
        return text
    part = text[:opening]
    run = len(part) - len(part.lstrip("`"))
    if run and part.endswith("`" * run) and len(part) > 2 * run:
        inner = part[run:-run]
        padded = inner.startswith(" ") and inner.endswith(" ") and inner.strip()
        return inner[1:-1] if padded else inner
    return part


def symptom_evidence(text: str, query: Query) -> float:
    """How many pieces of the prompt's evidence the fix document's symptom shares."""
    weak = weak_terms()
    pieces: dict[str, float] = {}
    for term in features(symptom(text)):
        if term not in query.counts or term in weak or BIGRAM_JOIN in term:
            continue
        piece = query.groups.get(term, term)
        pieces[piece] = max(pieces.get(piece, 0.0), query.strength.get(piece, 1.0))
    return sum(pieces.values())


def speaks_of(text: str, query: Query) -> bool:
    """Whether the prompt (its :class:`~pokayokay.relevance.concepts.Query`) speaks of the failure
    the fix document ``text`` resolved."""
    return symptom_evidence(text, query) >= MIN_SYMPTOM_EVIDENCE
