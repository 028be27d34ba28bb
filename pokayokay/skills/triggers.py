"""A skill's trigger clauses and how well a prompt's situation fits one (pure; decision 0134).

Process skills describe the *situation* they are for, not a subject: "Use when encountering any
bug, test failure, or unexpected behavior, before proposing fixes"; "Use when you have a spec
or requirements for a multi-step task, before touching code". A prompt in that situation says
so in its own words ("test_checkout_total fails intermittently in CI, figure out why") and
shares no rare word with the whole description, so the description-wide score
(:mod:`pokayokay.skills.match`) leaves it below the floor. Read clause by clause, the same
words weigh differently: "fail" is common over whole descriptions but rare over *clauses*, and
it covers half of the clause "test failure".

* **Clauses** (:func:`clauses`, when a profile is built): in the description's positive text
  (negative clauses already removed), each stretch that opens on a trigger word — ``when``,
  ``whenever``, ``before``, ``after``, ``once``, ``while``, ``if`` — up to the next trigger
  word or the end of its sentence, is split into its listed items (at commas, semicolons and
  ``or``): "encountering any bug", "test failure", "unexpected behavior", "proposing fixes".
  Each item is its terms (the skill analyser's, :func:`pokayokay.relevance.skill_terms.tokenize`).
* **Clause IDF** (:class:`ClauseStats`): over every item of every skill of the catalog.
* **Fit** (:func:`fit`): for each item, the share of its clause-IDF mass that the prompt's
  plain words cover (a word found only in code, a path or an identifier never counts; a prompt
  term and an item term match when equal or when one is a prefix of the other of at least
  :data:`MIN_PREFIX` letters, the light stemmer's "fail" / "failur"); a skill's fit is its best
  item's share, counted only when the item shares at least :data:`MIN_SHARED` words with the
  prompt or one rare over the clauses. No word list, no skill named: the clauses are the
  descriptions' own.

A skill whose fit reaches :data:`CANDIDATE` joins the candidates the gate judges even when its
description-wide score is under the floor; the gate's ``trigger`` feature says where its
evidence came from (:mod:`pokayokay.relevance.gate`).
"""

from __future__ import annotations

import math

from pokayokay.infra.lazyre import IGNORECASE, Lazy
from pokayokay.relevance.skill_terms import tokenize

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

# An item needs this many shared words, or one rare over the clauses, to count.
MIN_SHARED = 2
# Whether one word rare over the clauses is enough on its own (else MIN_SHARED words).
RARE_ALONE = False
# A prefix of this many letters or more makes two terms one ("fail" / "failur").
MIN_PREFIX = 4
# A skill whose best item is covered this much is a candidate (chosen on the train split).
CANDIDATE = 0.5
# A description described by its situation names it this early ("Use when ...", "You MUST use
# this before ..."); one that opens on its subject ("Guide for creating MCP servers") is scored
# on its subject words alone.
OPENING = 40
# At most this many items per skill (a long description lists many; bounded work per prompt).
MAX_ITEMS = 24

_TRIGGER = Lazy(r"\b(?:when(?:ever)?|before|after|once|while|if)\b", IGNORECASE)
_SENTENCE = Lazy(r"[.!?:](?:\s|$)|\s[-–—]\s|\(|\)")
_ITEM = Lazy(r"[,;]|\bor\b|\band/or\b", IGNORECASE)


def clauses(text: str) -> list[list[str]]:
    """The trigger clauses' items of a description's positive text, each as its terms (items
    with no term left out; repeats kept once, in order); none when the description does not
    open on its situation (a trigger word within its first :data:`OPENING` characters)."""
    out: list[list[str]] = []
    first = _TRIGGER.search(text, 0, OPENING)
    if first is None:
        return out
    for sentence in _SENTENCE.split(text):
        marks = list(_TRIGGER.finditer(sentence))
        for i, mark in enumerate(marks):
            end = marks[i + 1].start() if i + 1 < len(marks) else len(sentence)
            for item in _ITEM.split(sentence[mark.end() : end]):
                terms = list(dict.fromkeys(tokenize(item)))
                if terms and terms not in out:
                    out.append(terms)
                if len(out) >= MAX_ITEMS:
                    return out
    return out


class ClauseStats:
    """How many items of the catalog's skills hold each term (``df``), over ``n`` items, and
    the IDF at or above which a term is rare over them (the median item term's IDF)."""

    __slots__ = ("df", "n", "rare")

    def __init__(self, n: int, df: dict[str, int]) -> None:
        self.n = n
        self.df = df
        idfs = sorted(self.idf(t) for t in df)
        self.rare = idfs[len(idfs) // 2] if idfs else math.inf

    @classmethod
    def of(cls, items: Iterable[Sequence[str]]) -> ClauseStats:
        df: dict[str, int] = {}
        n = 0
        for item in items:
            n += 1
            for term in set(item):
                df[term] = df.get(term, 0) + 1
        return cls(n, df)

    def idf(self, term: str) -> float:
        return math.log((self.n + 1) / (self.df.get(term, 0) + 1)) + 1.0


class Words:
    """A prompt's plain terms, ready for prefix matching: ``exact`` the terms, ``prefixes``
    each prefix of :data:`MIN_PREFIX` letters or more of a term, to the term."""

    __slots__ = ("exact", "prefixes")

    def __init__(self, terms: Iterable[str]) -> None:
        self.exact = frozenset(terms)
        self.prefixes: dict[str, str] = {}
        for term in sorted(self.exact):
            for end in range(MIN_PREFIX, len(term)):
                self.prefixes.setdefault(term[:end], term)

    def cover(self, term: str) -> str | None:
        """The prompt term that ``term`` (an item's) is, or is a prefix of, or that is a prefix
        of it; None when there is none."""
        if term in self.exact:
            return term
        found = self.prefixes.get(term)
        if found is not None:
            return found
        for end in range(MIN_PREFIX, len(term)):
            if term[:end] in self.exact:
                return term[:end]
        return None


def fit(
    words: Words, items: Sequence[Sequence[str]], stats: ClauseStats
) -> tuple[float, frozenset[str]]:
    """The share of the best-covered item's clause-IDF mass that ``words`` (the prompt's plain
    terms) cover, and the prompt terms that covered it; 0 when no item shares
    :data:`MIN_SHARED` words or one rare word."""
    best = 0.0
    best_terms: frozenset[str] = frozenset()
    for item in items:
        total = covered = 0.0
        terms: list[str] = []
        rare = False
        for term in item:
            weight = stats.idf(term)
            total += weight
            found = words.cover(term)
            if found is not None:
                covered += weight
                terms.append(found)
                rare = rare or (RARE_ALONE and weight >= stats.rare)
        if total and (len(terms) >= MIN_SHARED or rare) and covered / total > best:
            best, best_terms = covered / total, frozenset(terms)
    return best, best_terms
