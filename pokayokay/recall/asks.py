"""What a prompt asks for, beyond its subject (pure): whether the code, the text or the model
answers it rather than the team's notes or a skill.

Recall holds such a prompt to a clear match of its words (:func:`pokayokay.recall.index.recall`)
and skill suggestion stays out of it (:func:`pokayokay.skills.suggest.suggest`): every prompt of
this kind in the labelled sets of both calls for neither.
"""

from __future__ import annotations

from pokayokay.infra.lazyre import Lazy

# "write a docstring for …", "explain what … does", "what does … mean?", "the difference between
# … and …", "fix the typo …": a question about the code or text at hand, or general knowledge,
# which the code, the text or the model answers, not the team's notes.
_EXPLAINS = Lazy(
    r"\bdocstrings?\b|^\W*explain (?:what|the difference)\b|\bdifference between\b"
    r"|^\W*what (?:does|do) .{1,80}?\b(?:do|mean|contain|return|run|change|print|output)\b"
    r"|\bfix (?:the|a|this|that) typos?\b"
)


def explains_code(lowered: str) -> bool:
    """Whether a prompt (lower-cased) asks to explain or document the code at hand, asks a
    general question ("the difference between …") or fixes a typo."""
    return _EXPLAINS.search(lowered) is not None
