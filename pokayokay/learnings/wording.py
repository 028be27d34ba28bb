"""Words of a learning and how alike two learnings are (pure): folding, stop words, light stemming,
weighted word and character-gram profiles, and the near-duplicate test /remember reinforces
with."""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pokayokay.learnings.consolidate.similarity import Profile

NEAR_DUPLICATE_THRESHOLD = 0.70


POLARITY_PENALTY = 0.5


_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "ʼ": "'", "`": "'", "´": "'"})


_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)*")


_STOP_TEXT = """
    a an the and or but if then so as at by for from in into of on onto to with within via
    is are was were be been being am do does did doing done has have had having
    it its this that these those there here their them they we our ours you your yours i me my
    he she his her him what which who whom whose when where why how
    can could may might would will shall just also too very really quite
    some any all each every both either neither such own same other more most less
    than about over under again once only up down out off per
    s t ll re ve d m
"""


STOP_WORDS = frozenset(_STOP_TEXT.split())


# Negations: kept out of the content words and counted for the polarity of a text.
_NEGATION_TEXT = """
    not no never nor none nothing nobody without avoid avoids avoided avoiding
    dont doesnt didnt isnt arent wasnt werent shouldnt wouldnt couldnt cant cannot wont
    mustnt neednt hasnt havent hadnt
"""


_NEGATIONS = frozenset(_NEGATION_TEXT.split())


def fold(text: str) -> str:
    """Case folded, accents dropped, apostrophes unified."""
    text = unicodedata.normalize("NFKD", text.casefold().translate(_APOSTROPHES))
    return "".join(ch for ch in text if not unicodedata.combining(ch))


def words(text: str) -> list[str]:
    """The words of ``text`` (letters and digits), contractions joined: ``don't`` → ``dont``."""
    return [w.replace("'", "") for w in _WORD.findall(fold(text))]


def stem(word: str) -> str:
    """A light suffix stripper: enough to meet ``tests``/``test``/``testing`` and
    ``committing``/``commits``, no more. Both texts go through it, so a crude stem is fine."""
    if len(word) <= 3 or not word.isalpha():
        return word
    w = word
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("sses") or (w.endswith("es") and w[:-2].endswith(("ch", "sh", "x", "z"))):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    if w.endswith("ing") and len(w) >= 6:
        w = _undouble(w[:-3])
    elif w.endswith("ed") and len(w) >= 5:
        w = _undouble(w[:-2])
    elif w.endswith("ly") and len(w) >= 6:
        w = w[:-2]
    if w.endswith("e") and len(w) > 3:
        w = w[:-1]
    return w


def _undouble(w: str) -> str:
    """committ → commit, runn → run; but install, pass and buzz keep their double letter."""
    if len(w) > 2 and w[-1] == w[-2] and w[-1] not in "lsz":
        return w[:-1]
    return w


# Words that say how to work in general rather than what a learning is about: they weigh
# GENERIC_WEIGHT instead of 1, so "run the unit tests before committing" and "run the linter
# before committing" are told apart by "unit tests" and "linter", not joined by the rest.
_GENERIC_TEXT = """
always usually often sometimes first then every each again still already
run runs use uses used using make makes get gets set sets put keep keeps add adds try check
need needs want wants like likes prefer prefers preferred go goes going work works
before after while during until unless otherwise because since so instead rather only even
should must may might ought better best fine good bad right wrong ok okay
file files folder folders directory code command commands script scripts value values
thing things way ways time times new old one two change changes changed changing
fail fails failed failing failure error errors
project repo repository local locally here there user users people someone
"""


# What makes a text say what not to do, or set one thing against another ("X, not Y",
# "X instead of Y", "X rather than Y"): two texts only one of which has it rarely say the same.
_CONTRAST_TEXT = "instead rather over versus vs"


GENERIC_WEIGHT = 0.35


def _content(tokens: Iterable[str]) -> list[str]:
    return [stem(w) for w in tokens if w not in STOP_WORDS and w not in _NEGATIONS]


_GENERIC = frozenset(stem(w) for w in _GENERIC_TEXT.split())


_CONTRAST = frozenset(_CONTRAST_TEXT.split())


def _negated(tokens: Sequence[str]) -> bool:
    return any(w in _NEGATIONS or w in _CONTRAST for w in tokens)


def _cosine(a: Mapping[str, float], b: Mapping[str, float]) -> float:
    if not a or not b:
        return 0.0
    small, large = (a, b) if len(a) <= len(b) else (b, a)
    dot = sum(weight * large[key] for key, weight in small.items() if key in large)
    if not dot:
        return 0.0
    norm = math.sqrt(sum(w * w for w in a.values())) * math.sqrt(sum(w * w for w in b.values()))
    return dot / norm


def _char_grams(weights: Mapping[str, float], n: int = 4) -> dict[str, float]:
    grams: dict[str, float] = {}
    for token, weight in weights.items():
        padded = f" {token} "
        if len(padded) <= n:
            grams[padded] = grams.get(padded, 0.0) + weight
            continue
        for i in range(len(padded) - n + 1):
            gram = padded[i : i + n]
            grams[gram] = grams.get(gram, 0.0) + weight
    return grams


@dataclass(frozen=True)
class _Profile:
    words: Mapping[str, float]
    grams: Mapping[str, float]
    negated: bool


def _profile(text: str) -> _Profile:
    tokens = words(text)
    weights: dict[str, float] = {}
    for word in _content(tokens):
        weights[word] = weights.get(word, 0.0) + (GENERIC_WEIGHT if word in _GENERIC else 1.0)
    return _Profile(weights, _char_grams(weights), _negated(tokens))


def similarity(a: str, b: str) -> float:
    """Lexical similarity of two learnings, from 0 (nothing shared) to 1 (the same words).

    See the module docstring for what it measures and how its threshold was calibrated.
    """
    return _similarity(_profile(a), _profile(b))


def _similarity(pa: _Profile, pb: _Profile) -> float:
    score = (_cosine(pa.words, pb.words) + _cosine(pa.grams, pb.grams)) / 2
    if pa.negated != pb.negated:
        score *= POLARITY_PENALTY
    return min(1.0, score)


def near_duplicate(
    text: str,
    candidates: Iterable[tuple[str, str]],
    threshold: float = NEAR_DUPLICATE_THRESHOLD,
) -> tuple[str, float] | None:
    """The key of the candidate ``(key, text)`` that ``text`` rewords near-verbatim, with its
    score: the most similar candidate scoring ``threshold`` or more for which
    :func:`distinct_because` finds no difference. None when there is none. Ties go to the first
    candidate."""
    target = _profile(text)
    best: tuple[str, float] | None = None
    for key, other in candidates:
        score = _similarity(target, _profile(other))
        if score < threshold or (best is not None and score <= best[1]):
            continue
        if distinct_because(text, other) is None:
            best = (key, score)
    return best


# -- what keeps two similar learnings apart -----------------------------------------------------

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


# Identifiers, commands and file names: words joined by - . _ / or : (``make migrate-all``,
# ``auth.toml``, ``src/index.css``), compared whole.
_NAME = re.compile(r"[A-Za-z0-9]+(?:[-._/:][A-Za-z0-9]+)+")


def _unmatched_names(a: str, b: str) -> set[str]:
    """Names of ``a`` that ``b`` lacks, whole or as separate words (``force-push`` is matched by
    "force push", ``migrate-all`` is not by "migrate")."""
    names_b = {n.casefold() for n in _NAME.findall(b)}
    words_b = set(words(b))
    out = set()
    for name in _NAME.findall(a):
        name = name.casefold()
        if name in names_b:
            continue
        if not all(part in words_b for part in re.split(r"[-._/:]", name) if part):
            out.add(name)
    return out


# Words that name the kind of thing without saying which ("the test suite", "the main branch"):
# one text having them and the other not is still a rewording.
_KIND_WORDS = frozenset(
    stem(w) for w in ["suite", "branch", "folder", "directory", "codebase", "whole", "entire"]
)


def _key_words(text: str) -> list[str]:
    """Content stems that carry the advice, in order: stop words, negations, generic words and
    kind words out."""
    return [w for w in _content(words(text)) if w not in _GENERIC and w not in _KIND_WORDS]


def key_signature(text: str) -> str:
    """The advice words of ``text`` as one sorted string: two texts :func:`distinct_because`
    can call a rewording of each other always have the same signature (else "different
    words"), so an index of signatures finds every near-duplicate candidate at once."""
    return " ".join(sorted(set(_key_words(text))))


def distinct_because(a: str, b: str) -> str | None:
    """Why two similar texts are two learnings, or None when ``b`` rewords ``a`` near-verbatim.

    Near-verbatim: the same advice words (stems, any order, generic and stop words aside), the
    same numbers, the same polarity, and no word that one text negates and the other asserts
    (``use httpx, never requests`` / ``use requests, never httpx``). When either text sets
    things against each other (``instead``, ``over``, ``not``…), the advice words must also come
    in the same order (``prefer X over Y`` / ``prefer Y over X``).
    """
    from pokayokay.learnings.consolidate.similarity import clash, profile

    ka, kb = _key_words(a), _key_words(b)
    only_a, only_b = set(ka) - set(kb), set(kb) - set(ka)
    if only_a or only_b:
        shown = ", ".join(sorted(only_a | only_b)[:4])
        return f"different words ({shown})"
    if sorted(_NUMBER.findall(a)) != sorted(_NUMBER.findall(b)):
        return "different numbers"
    differing = _unmatched_names(a, b) | _unmatched_names(b, a)
    if differing:
        return f"different names ({', '.join(sorted(differing)[:4])})"
    clashing = clash(profile(a), profile(b))
    if clashing:
        return f"contradiction ({', '.join(sorted(clashing)[:4])})"
    ta, tb = words(a), words(b)
    if _negated(ta) != _negated(tb):
        return "opposite polarity"
    if _negated(ta) and list(dict.fromkeys(ka)) != list(dict.fromkeys(kb)):
        return "swapped choices"
    return None


def contradiction(a: str, b: str) -> frozenset[str]:
    """Words one text negates and the other asserts, when the two are on the same topic (at
    least half of the smaller one's content words shared); empty otherwise."""
    from pokayokay.learnings.consolidate.similarity import profile

    return profile_contradiction(profile(a), profile(b))


def profile_contradiction(pa: Profile, pb: Profile) -> frozenset[str]:
    """:func:`contradiction` of two texts given their profiles (only their content words and
    polarity are read)."""
    from pokayokay.learnings.consolidate.similarity import clash, topic_score

    words_clashing = clash(pa, pb)
    if not words_clashing or topic_score(pa, pb) < CONTRADICTION_TOPIC:
        return frozenset()
    return words_clashing


# Same-topic score (pokayokay.learnings.consolidate.similarity.topic_score) from which a clash
# of polarity is reported as a contradiction between two stored learnings.
CONTRADICTION_TOPIC = 0.5


def contradictions(items: Sequence[tuple[str, str]]) -> list[tuple[str, str, frozenset[str]]]:
    """``(key a, key b, clashing words)`` for every pair of ``(key, text)`` items that contradict
    each other (:func:`contradiction`), in input order.

    Each text is profiled once, and only pairs where one negates a word the other asserts are
    compared (an index by word): a clash is needed for a contradiction, so the result is the
    same as comparing every pair, at a cost that grows with the clashes, not with n².
    """
    from pokayokay.learnings.consolidate.similarity import profile

    profiles = [profile(text) for _key, text in items]
    asserting: dict[str, list[int]] = {}
    for i, prof in enumerate(profiles):
        for word in prof.pos:
            asserting.setdefault(word, []).append(i)
    candidates: set[tuple[int, int]] = set()
    for i, prof in enumerate(profiles):
        for word in prof.neg:
            for j in asserting.get(word, ()):
                if j != i:
                    candidates.add((min(i, j), max(i, j)))
    out = []
    for i, j in sorted(candidates):
        found = profile_contradiction(profiles[i], profiles[j])
        if found:
            out.append((items[i][0], items[j][0], found))
    return out
