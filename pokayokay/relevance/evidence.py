"""When a prompt's words are evidence enough to speak (one rule for recall and skills), and
what recall shows of what spoke (pure).

A note (recall) or a skill (suggestion) reaches the model only on evidence from the prompt's
*plain* words, the ones a person writes about the task, not the names of where it happens:

* at least :data:`MIN_PLAIN` independent plain words (recall counts a concept and the words
  that evoke it as one), or
* one *rare* word: its IDF over the index itself (the notes, or the skill catalog), scaled to
  0-1 by the IDF of a word no entry holds, is at least :data:`RARE_IDF`. No hand list: a word
  rare in one project is common in another.

A word is not plain when it occurs only inside a path, a file name or an identifier of code
(``apps/web/src/state/cart.ts``, ``refund_order``, ``useCartStore``, ``client.send()``;
not PascalCase, which often names a subject: ``TypeError``, ``GraphQL``): such
names say where the work is, not what it is, so a path alone, or a path and one word many
notes share ("CI", "e2e"), never speaks. Generic words never count (recall's weak words,
skills' generic words).

Show less, better (:func:`show_less`): one note by default; a second only when it scores
:data:`SECOND_SHARE` of the first and holds a plain piece of the prompt the first does not
(about something else); an automatic past fix never on one piece.
"""

from __future__ import annotations

import math

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from pokayokay.relevance.note_documents import Hit

# Independent plain words a note or a skill needs, unless one of them is rare.
MIN_PLAIN = 2
# A second note shows only when it scores this share of the first (and is about something else).
SECOND_SHARE = 0.85
# A word is rare when its IDF is at least this share of the IDF of a word no entry holds.
RARE_IDF = 0.7

def idf(n: int, df: int) -> float:
    """The IDF both rooms use: ``ln((n + 1) / (df + 1)) + 1``."""
    return math.log((n + 1) / (df + 1)) + 1.0


def rare(n: int, df: int) -> bool:
    """Whether a word held by ``df`` of ``n`` entries is rare there (see the module)."""
    return n > 0 and idf(n, df) >= RARE_IDF * idf(n, 0)


def speaks(plain: float, any_rare: bool) -> bool:
    """Whether ``plain`` independent plain words (recall weighs an ambiguous word alone half,
    a phrase two), one of them rare or not, are evidence enough."""
    return plain >= MIN_PLAIN or (plain >= 1 and any_rare)


def show_less(
    hits: Sequence[Hit], masks: Sequence[int], k: int = 2, fix_pieces: int = MIN_PLAIN
) -> list[Hit]:
    """What is shown of ``hits`` (best first; ``masks``: each one's plain pieces of the prompt,
    a bit each): the first, then another only when it scores :data:`SECOND_SHARE` of the first
    (of the best note, for a note: a fix never sets the bar for the user's notes) and holds a
    piece none shown holds (about something else), at most ``k``. An automatic past fix needs
    ``fix_pieces`` plain pieces to show at all: never on one word."""
    out: list[Hit] = []
    covered = 0
    # an automatic fix's score never sets the bar for the user's notes
    best_note = max((h.score for h in hits if h.doc.kind != "fix"), default=0.0)
    for hit, mask in zip(hits, masks, strict=True):
        if len(out) >= k:
            break
        if hit.doc.kind == "fix" and mask.bit_count() < fix_pieces:
            continue
        if out:
            best = out[0].score if hit.doc.kind == "fix" else min(out[0].score, best_note)
            if hit.score < SECOND_SHARE * best or not mask & ~covered:
                continue
        out.append(hit)
        covered |= mask
    return out
