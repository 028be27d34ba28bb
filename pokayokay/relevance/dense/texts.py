"""What the dense opinion reads and says (decision 0181): pure, standard library only.

Shared by the resident process (:mod:`pokayokay.skills.dense_service`), the prompt hook's
client (:mod:`pokayokay.relevance.dense.client`) and the gate's fitting script, so that the
opinion fitted on is the opinion served.

* A skill stands for its texts (:func:`skill_texts`): ``"<name>: <description>"`` and each way a
  user might ask for it (``/skill-phrases``, decision 0176). Its cosine with a prompt is the best
  over them.
* The gate reads three features of a candidate (:func:`opinion_features`): its cosine, its
  lead over the best cosine of any other, and whether it ranks first.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

PROTOCOL = 1
# The prompt read by the model (what the scorers read is capped likewise).
MAX_PROMPT_CHARS = 4000


def skill_texts(name: str, description: str, asked: Sequence[str] = ()) -> list[str]:
    """The texts a skill stands for: its name and description, then each phrase."""
    return [f"{name}: {description}", *asked]


def note_texts(text: str, asked: Sequence[str] = ()) -> list[str]:
    """The texts a note stands for: what recall shows of it, then each way a teammate might
    ask for it (decision 0175)."""
    return [text, *asked]


def top_of(cosines: Mapping[str, float]) -> str | None:
    """The candidate ranked first (the lowest name on a tie), None without any."""
    best: tuple[float, str] | None = None
    for name, value in cosines.items():
        if best is None or value > best[0] or (value == best[0] and name < best[1]):
            best = (value, name)
    return None if best is None else best[1]


def opinion_features(
    cosines: Mapping[str, float], name: str, ranked: Ranked | None = None
) -> tuple[float, float, float]:
    """``(cosine, lead over the best other, 1.0 when ranked first)`` of ``name`` (a cosine of
    0 for a name the opinion does not know); ``ranked``: :func:`ranking` of ``cosines``, when
    the caller judges several names (one pass over thousands of notes, not one a name)."""
    top, best, second = ranked if ranked is not None else ranking(cosines)
    own = cosines.get(name, 0.0)
    other = second if name == top else best
    return (own, own - other, 1.0 if top == name else 0.0)


Ranked = tuple["str | None", float, float]


def ranking(cosines: Mapping[str, float]) -> Ranked:
    """The candidate ranked first (:func:`top_of`), its cosine, and the best cosine of any
    other (0 without one), in one pass."""
    top = top_of(cosines)
    if top is None:
        return None, 0.0, 0.0
    best = cosines[top]
    second = max((v for k, v in cosines.items() if k != top), default=0.0)
    return top, best, second
