"""The text analyser of the relevance room (pure), used by recall and by skill suggestion:
tokenising with camelCase and snake_case split, stop words and weak words, light stemming, and
the bounded term counts of a prompt. Its vocabulary is data
(:mod:`pokayokay.relevance.vocabulary`)."""

from __future__ import annotations

from pokayokay.infra.spans import replace_spans
from pokayokay.relevance import vocabulary
from pokayokay.relevance.scan import camel_pieces, word_chunks
from pokayokay.relevance.scan_names import name_spans

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

# Work caps: only the start of a long prompt is read, and only this many distinct terms of it.
MAX_QUERY_CHARS = 4000
MAX_QUERY_TERMS = 300

# Function words and request filler, dropped by both analyses: recall's (:data:`STOPWORDS`)
# and the skills' (:data:`pokayokay.relevance.skill_terms.STOPWORDS`), each adding its own.
COMMON_STOPWORDS = frozenset(
    """
    a about above after again against all almost also always am an and another any anyone
    anything are around as at be because been before being below between both but by can
    cannot could did do does doing done dont down during each either else even ever every
    few for from further get gets got had has have having he her here hers him his how
    however i if in into is isnt it its itself just know let lets like ll me might more most
    much must my myself need needs no nor not now of off on once one only or other our ours
    out over own per please quite rather re really same seem seems she should so some
    something still such sure than thank thanks that thats the their theirs them then there
    these they this those though through thus to too under until up upon us use used uses
    using ve very via want wants was way we well were what whats when where whether which
    while who whom whose why will with within without wont would yes yet you your yours
    yourself hi hello hey ok okay can't don't i'm it's let's we're you're help able etc eg
    ie aren couldn didn doesn don hadn hasn haven isn mustn needn shouldn wasn weren wouldn
    """.split()  # noqa: SIM905 - a word list reads better as text
)
STOPWORDS = COMMON_STOPWORDS | frozenset(
    """
    getting go goes going last make makes making many may never see take thing things think
    try trying look looking new
    """.split()  # noqa: SIM905 - a word list reads better as text
)


# Words too generic to say much about a topic ("add", "test", "error"): they weigh
# WEAK_FACTOR of their IDF, so that sharing one of them with a note is weak evidence.
WEAK_FACTOR = 0.5


# The weak words and the synonyms are data: ``vocabulary/weak_words.tsv`` and
# ``vocabulary/synonyms.tsv`` (each entry with its provenance).
WEAK_WORDS: tuple[str, ...] = vocabulary.words("weak_words")


# Spellings and abbreviations folded onto one term (applied before stemming, on whole words).
SYNONYMS: dict[str, str] = vocabulary.mapping("synonyms")


# Names in a prompt: paths (a slash inside), file names (a dotted name ending in letters),
# snake_case, lower camelCase, dotted names and calls. PascalCase is often a subject or a
# proper name (TypeError, GraphQL, PowerPoint): it stays a word. Recall weighs the words inside
# names apart from the plain words (a path alone never speaks). The pattern, read by a plain
# scan (:func:`pokayokay.relevance.scan_names.name_spans`, property-tested against it):
# (?<![\w/.-])(?:[\w.@~-]*/[\w./@~-]*|[\w-]+(?:\.[\w-]+)*\.[A-Za-z][A-Za-z0-9]{0,5}(?![\w(])
#   |[A-Za-z0-9]+_[\w]*|[a-z][a-z0-9]*[A-Z]\w*|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))?
#   |[A-Za-z_]\w*\(\)?)


def split_names(text: str) -> tuple[str, list[str]]:
    """``text`` with its paths, file names and identifiers replaced by a comma, and those
    names, in order."""
    spans = name_spans(text)
    names = [text[start:end] for start, end in spans]
    return replace_spans(text, spans, " , "), names


# (suffix, replacement), tried in order: the first that matches is replaced (:func:`stem_with`).
SUFFIXES: tuple[tuple[str, str], ...] = (
    ("ational", "ate"),
    ("izations", "ize"),
    ("ization", "ize"),
    ("ations", "ate"),
    ("ation", "ate"),
    ("ments", ""),
    ("ment", ""),
    ("ings", ""),
    ("ing", ""),
    ("ies", "y"),
    ("ied", "y"),
    ("ers", ""),
    ("er", ""),
    ("ed", ""),
)


_ES_AFTER = ("ches", "shes", "sses", "xes", "zes")
_INFLECTIONS = ("ing", "ed")
# Derivational endings the suffix table strips, which an inflection can hide (comment-ing).
_DERIVED = ("ment", "ation", "ization", "ational")


def stem(word: str) -> str:
    """A light suffix stemmer: plural, -ing, -ed, -er, -ment, -ation; crude but predictable."""
    return stem_with(word, SUFFIXES)


def stem_with(word: str, suffixes: tuple[tuple[str, str], ...]) -> str:
    """The light stemmer with its own suffix table (skill matching adds -ise/-ize forms): the
    first matching suffix is replaced, else a plural ``s``/``es`` goes; a doubled consonant and a
    final ``e`` are dropped."""
    if len(word) <= 3 or not word.isascii() or not word.isalpha():
        return word
    # An inflected word's stem is its base form's: ``commenting`` and ``comment`` both end as
    # ``com`` (-ing, then -ment), never ``comment`` and ``com``.
    for suffix in _INFLECTIONS:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            base = word[: -len(suffix)]
            if suffix in ("ed", "ing") and len(base) >= 4 and base.endswith(_DERIVED):
                word = base
            break
    for suffix, replacement in suffixes:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            if suffix in ("er", "ed") and word[-3] == "e":
                continue  # speed, career
            word = word[: -len(suffix)] + replacement
            break
    else:
        if word.endswith(_ES_AFTER) and len(word) > 5:
            word = word[:-2]
        elif word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
            word = word[:-1]
    if len(word) >= 4 and word[-1] == word[-2] and word[-1] not in "lsz":
        word = word[:-1]
    if len(word) >= 4 and word.endswith("e"):
        word = word[:-1]
    return word


def _term(word: str) -> str | None:
    lower = word.lower()
    if lower in STOPWORDS or len(lower) < 2 or lower.isdigit():
        return None
    lower = SYNONYMS.get(lower, lower)
    return stem(lower)


def _chunk_terms(chunk: str) -> tuple[str, ...]:
    """The terms of one word-like chunk of text (letters and digits)."""
    lower = chunk.lower()
    if lower in SYNONYMS or lower in STOPWORDS:
        term = _term(lower)
        return (term,) if term else ()
    if not chunk.isascii():
        return (lower,) if len(lower) >= 2 else ()
    has_digit = any(c.isdigit() for c in chunk)
    if has_digit and len(chunk) <= 5 and not chunk.isdigit():
        return (lower,)  # s3, k8s, e2e, ec2, i18n, utf8
    parts = camel_pieces(chunk)
    terms = [lower] if len(parts) > 1 and not has_digit and len(lower) <= 40 else []
    for part in parts:  # besides the identifier as a whole, its words
        term = _term(part)
        if term:
            terms.append(term)
    return tuple(terms)


# Chunk → terms, memoised: vocabulary repeats, and analysis dominates a cold index build.
_CHUNK_CACHE: dict[str, tuple[str, ...]] = {}


_CHUNK_CACHE_MAX = 50_000


def tokenize(text: str) -> list[str]:
    """The terms of ``text``, in order, repeats kept."""
    return cached_terms(word_chunks(text), _chunk_terms, _CHUNK_CACHE, _CHUNK_CACHE_MAX)


def cached_terms(
    chunks: Iterable[str],
    analyse: Callable[[str], tuple[str, ...]],
    cache: dict[str, tuple[str, ...]],
    most: int,
) -> list[str]:
    """The terms of ``chunks``, in order, repeats kept, each distinct chunk analysed once by
    ``analyse``: ``cache`` keeps chunk → terms across calls and is emptied when it holds
    ``most`` (recall's and the skills' tokenisers each keep their own)."""
    terms: list[str] = []
    for chunk in chunks:
        found = cache.get(chunk)
        if found is None:
            found = analyse(chunk)
            if len(cache) >= most:
                cache.clear()
            cache[chunk] = found
        terms.extend(found)
    return terms


class LazyTerms:
    """The terms of a fixed list of words, analysed on the first call and kept after it, so no
    module pays the analysis at import. ``term`` gives a word's term, or None for a word the
    analysis drops (recall's weak words, the skills' generic words)."""

    __slots__ = ("_term", "_terms", "_words")

    def __init__(self, words: Iterable[str], term: Callable[[str], str | None]) -> None:
        self._words = words
        self._term = term
        self._terms: frozenset[str] | None = None

    def __call__(self) -> frozenset[str]:
        if self._terms is None:
            self._terms = frozenset(t for t in map(self._term, self._words) if t)
        return self._terms

    def known(self) -> frozenset[str] | None:
        """The terms if they are analysed (or taken) already, else None; analyses nothing."""
        return self._terms

    def take(self, terms: frozenset[str]) -> None:
        """Keep ``terms`` as the analysis (a cache's copy of it) unless there is one already."""
        if self._terms is None:
            self._terms = terms


_WEAK = LazyTerms(WEAK_WORDS, _term)


def weak_terms() -> frozenset[str]:
    """The terms (after analysis) of :data:`WEAK_WORDS`."""
    return _WEAK()


def term_counts(text: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for term in tokenize(text):
        counts[term] = counts.get(term, 0) + 1
    return counts


def query_terms(prompt: str) -> dict[str, int]:
    """The terms of a prompt, within the work caps."""
    counts = term_counts(prompt[:MAX_QUERY_CHARS])
    if len(counts) > MAX_QUERY_TERMS:
        counts = dict(list(counts.items())[:MAX_QUERY_TERMS])
    return counts
