"""The analysis of skill descriptions and prompts (pure, standard library only).

Skills have their own analysis, separate from recall's: a skill description is a short sales
text ("Use this skill when ...") full of boilerplate, trigger lists, file extensions and "Do NOT
use for" clauses, and matching it against a prompt needs different vocabulary than recalling a
note. Keeping it here also keeps suggestion quality stable when recall's analysis is tuned.

* Words are split at non-letters and camelCase; stop words (function words, request filler and
  skill-description boilerplate) are dropped; a light suffix stemmer folds ``tests`` /
  ``testing`` / ``tested`` and British/American ``-ise``/``-ize``.
* A small concept table folds spellings of the same thing onto one term, whole phrases first
  (``pull request`` and ``PR`` → ``pullrequest``; ``Excel``, ``spreadsheet`` → ``xlsx``;
  ``PowerPoint``, ``slides`` → ``pptx``; ``k8s`` → ``kubernetes``; ``a11y`` → ``accessibility``).
  It holds general software vocabulary, not the words of any one catalog.
* :data:`GENERIC` words ("add", "fix", "file", "function", "page" …) say little about which skill
  fits: they weigh :data:`GENERIC_FACTOR`.
"""

from __future__ import annotations

from itertools import pairwise

from pokayokay.infra.lazyre import Lazy
from pokayokay.infra.spans import replace_spans
from pokayokay.relevance import analyser, vocabulary
from pokayokay.relevance.analyser import COMMON_STOPWORDS, LazyTerms, cached_terms, stem_with
from pokayokay.relevance.scan import (
    camel_pieces,
    case_folded,
    lower_words,
    names_http_method,
    whole_word_spans,
    word_chunks,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_PROMPT_CHARS = 4000
GENERIC_FACTOR = 0.3


# The analyser's common stop words and this analysis' own: request filler and skill-description
# boilerplate ("Use when the task asks ...", "Triggers include ...").
STOPWORDS = COMMON_STOPWORDS | frozenset(
    """
    whenever ain wanted tell ask asks asked helps task tasks request requests trigger
    triggers triggered phrase phrases include includes including typical typically instead
    whatever whichever needed
    """.split()  # noqa: SIM905 - a word list reads better as text
)

# Words common to most coding prompts: evidence of little weight (vocabulary/skill_generic.tsv,
# read when first analysed: a warm prompt takes the analysed terms from the skills cache).
# ``GENERIC`` (the words as a set) and ``EVOKES`` (the table's text) are read when asked for:
# see :func:`__getattr__`.

# Names the stemmer would fold onto an everyday word ("Stripe" onto "strip accents").
UNSTEMMED = frozenset({"stripe"})


def _spelled(*parts: tuple[str, ...]) -> tuple[str, ...]:
    """Every spelling made of one choice of each part, in order."""
    out: tuple[str, ...] = ("",)
    for choices in parts:
        out = tuple(head + choice for head in out for choice in choices)
    return out


# Multi-word spellings folded onto one term before splitting into words: every spelling of each
# phrase (a short, finite list), found whole and ignoring case (scan.whole_word_spans).
_PHRASES: tuple[tuple[tuple[str, ...], str], ...] = (
    (_spelled(("pull", "merge"), (" ", "-"), ("request", "requests")), " pullrequest "),
    (_spelled(("end",), (" ", "-"), ("to",), (" ", "-"), ("end",)), " e2e "),
    (
        _spelled(("slide",), ("", " ", "-"), ("deck", "decks"))
        + _spelled(("pitch",), (" ", "-"), ("deck", "decks")),
        " pptx ",
    ),
    (_spelled(("word ",), ("doc", "docs", "document", "documents", "file", "files")), " docx "),
    (("google sheets",), " googlesheets "),
    (("google docs",), " googledocs "),
    (
        _spelled(("sign",), ("", "ing", "ed", "s"), ("", " ", "-"), ("in", "on"))
        + _spelled(("log",), ("", "ging", "ged", "s"), (" ", "-"), ("in",)),
        " login ",
    ),
    (_spelled(("sign",), ("", "ing", "ed", "s"), ("", " ", "-"), ("up",)), " signup "),
    (("github actions",), " githubactions "),
    (("core web vitals",), " webvitals "),
    (("model context protocol",), " mcp "),
    (_spelled(("n",), ("", " "), ("+",), ("", " "), ("1",)), " nplusone "),
    # "on my machine" is where, not machine learning
    (
        _spelled(
            ("on", "from"),
            (" ",),
            ("my", "your", "our", "a", "the"),
            (" ", " local "),
            ("machine", "machines"),
        ),
        " locally ",
    ),
    # JavaScript's most common error: its "properties" are no property-based tests
    (
        _spelled(
            ("cannot ",),
            ("read", "set"),
            (" ",),
            ("property", "properties"),
            (" of ",),
            ("undefined", "null"),
        ),
        " typeerror ",
    ),
)

# Single words folded onto one term (applied before stemming).
SYNONYMS: dict[str, str] = {
    "pr": "pullrequest",
    "prs": "pullrequest",
    "mr": "pullrequest",
    "excel": "xlsx",
    "spreadsheet": "xlsx",
    "spreadsheets": "xlsx",
    "workbook": "xlsx",
    "workbooks": "xlsx",
    "xls": "xlsx",
    "xlsm": "xlsx",
    "powerpoint": "pptx",
    "slides": "pptx",
    "slide": "pptx",
    "deck": "pptx",
    "decks": "pptx",
    "ppt": "pptx",
    "k8s": "kubernetes",
    "kube": "kubernetes",
    "a11y": "accessibility",
    "accessible": "accessibility",
    "i18n": "internationalize",
    "l10n": "localize",
    "postgresql": "postgres",
    "psql": "postgres",
    "db": "database",
    "dbs": "database",
    "js": "javascript",
    "ts": "typescript",
    "repo": "repository",
    "repos": "repository",
    "deps": "dependency",
    "dep": "dependency",
    "colour": "color",
    "colours": "color",
    "e2e": "e2e",
    "auth": "authentication",
    "authn": "authentication",
    "authz": "authorization",
    "perf": "performance",
    "docs": "documentation",
    "doc": "documentation",
    "dockerfile": "docker",
    "dockerfiles": "docker",
    "compose": "docker",
    "creds": "credential",
    "llm": "llm",
    "llms": "llm",
    "otel": "opentelemetry",
}

# The prompt analyser's table with the British -ise forms, and without its -er rows (skill
# matching never stemmed -er). The -ise rows go first: each ends in a row of that table (-isations
# in -ations, -ising in -ing, -ised in -ed) and the first row that matches wins.
_ISE_FORMS: tuple[tuple[str, str], ...] = (
    ("isations", "ize"),
    ("isation", "ize"),
    ("ising", "ize"),
    ("ised", "ize"),
    ("ises", "ize"),
    ("ise", "ize"),
)
SUFFIXES = _ISE_FORMS + tuple(row for row in analyser.SUFFIXES if row[0] not in ("ers", "er"))


def stem(word: str) -> str:
    """A light suffix stemmer: plurals, -ing, -ed, -er, -ment, -ation, -ise/-ize."""
    return stem_with(word, SUFFIXES)


def _term(word: str) -> str | None:
    lower = word.lower()
    if lower in STOPWORDS or len(lower) < 2 or lower.isdigit():
        return None
    if lower in UNSTEMMED:
        return lower
    return stem(SYNONYMS.get(lower, lower))


_GENERIC = LazyTerms(vocabulary.LazyWords("skill_generic"), _term)


def generic_terms() -> frozenset[str]:
    """The terms (after analysis) of ``GENERIC``."""
    return _GENERIC()


_CACHE: dict[str, tuple[str, ...]] = {}
_CACHE_MAX = 20_000


def _chunk_terms(chunk: str) -> tuple[str, ...]:
    lower = chunk.lower()
    if lower in SYNONYMS or lower in STOPWORDS or not chunk.isascii():
        term = _term(lower)
        return (term,) if term else ()
    if any(c.isdigit() for c in chunk) and len(chunk) <= 5 and not chunk.isdigit():
        return (lower,)  # s3, k8s, e2e, ec2, utf8
    out = []
    for part in camel_pieces(chunk):
        term = _term(part)
        if term:
            out.append(term)
    return tuple(out)


def fold_phrases(text: str) -> str:
    """``text`` with the multi-word spellings of :data:`_PHRASES` replaced by their term,
    each found whole, ignoring case, leftmost first (what ``re.sub`` of each phrase's
    ``\\b(?:…)\\b`` under ``IGNORECASE`` gives, tested against it)."""
    lower = case_folded(text)
    for spellings, term in _PHRASES:
        if not any(spelling in lower for spelling in spellings):
            continue
        spans = whole_word_spans(lower, spellings)
        if spans:
            text = replace_spans(text, spans, term)
            lower = replace_spans(lower, spans, term)
    return text


def tokenize(text: str) -> list[str]:
    """The terms of ``text`` in order (repeats kept)."""
    return cached_terms(word_chunks(fold_phrases(text)), _chunk_terms, _CACHE, _CACHE_MAX)


# Words and phrases of a prompt that evoke the words skill descriptions use for the same subject:
# "is this handler vulnerable" is a security question, "the app in French and German" a
# localisation one, "how many requests per second" a load one. One subject a line,
# "the words it adds: the words and | phrases that evoke it"; words are matched whole on the
# lower-cased prompt, phrases on it as written, ending at a word end ("since v" holds in
# "since v2.3", not in "since version"). The added terms only count for a skill that holds them
# and never add to a prompt's mass (see ``relevance.skill_match.Query``). General vocabulary, not
# one catalog's: ``tests/skills/test_suggest_eval.py`` measures it on prompts written after it.
# The table is vocabulary/skill_evokes.tsv (``EVOKES``, its text, read when first parsed).

# Upper-case HTTP methods name an endpoint ("PATCH or POST"); lower-case "post" and "put" do not
# (:func:`pokayokay.relevance.scan.names_http_method`). The prompt's words are read by
# :func:`pokayokay.relevance.scan.lower_words`.
_EVOKES_BLOCK = Lazy(r"\n(?=\S)")

_evokes: tuple[list[tuple[str, list[str]]], dict[str, list[str]]] | None = None


def _evoke_table() -> tuple[list[tuple[str, list[str]]], dict[str, list[str]]]:
    global _evokes
    if _evokes is None:
        words: dict[str, list[str]] = {}
        phrases: list[tuple[str, list[str]]] = []
        for block in _EVOKES_BLOCK.split(vocabulary.table_text("skill_evokes").strip()):
            head, _, body = block.partition(":")
            added = tokenize(head)
            spelled = body.split("|")
            for word in spelled[0].split():
                words.setdefault(word, []).extend(added)
            for phrase in spelled[1:]:
                phrase = " ".join(phrase.split())
                if phrase:
                    phrases.append((phrase, added))
        _evokes = (phrases, words)
    return _evokes


def _holds_phrase(lower: str, phrase: str) -> bool:
    """Whether ``phrase`` occurs in ``lower`` ending at a word end ("since v" in "since v2.3",
    not in "since version")."""
    start = lower.find(phrase)
    while start >= 0:
        end = start + len(phrase)
        if not phrase[-1].isalnum() or end == len(lower) or not lower[end].isalpha():
            return True
        start = lower.find(phrase, start + 1)
    return False


def table_data() -> tuple[str, Any, frozenset[str]]:
    """The parsed evoked-terms table and the generic terms, with the stamp of the files they
    were parsed from (:func:`stamp`): what :func:`use_table_data` takes back (the skills cache
    keeps them, so that a prompt does not read, parse or analyse them again)."""
    return stamp(), _evoke_table(), generic_terms()


def stamp() -> str:
    """The stamp of the two tables :func:`table_data` derives from (one ``stat`` each)."""
    return f"{vocabulary.stamp('skill_evokes')}|{vocabulary.stamp('skill_generic')}"


def use_table_data(data: object) -> bool:
    """Take what :func:`table_data` gave, if it was parsed from the files as they are now (same
    stamp; shape checked, not every item: the data comes from pokayokay's own private cache).
    False when ``data`` is not that (the cache holding it is then written again)."""
    global _evokes
    if not (isinstance(data, (tuple, list)) and len(data) == 3 and data[0] == stamp()):
        return False
    _stamp, table, generic = data
    if not (
        isinstance(table, (tuple, list))
        and len(table) == 2
        and isinstance(table[0], list)
        and isinstance(table[1], dict)
        and isinstance(generic, frozenset)
    ):
        return False
    if _evokes is None:
        _evokes = (table[0], table[1])
    _GENERIC.take(generic)
    return True


def __getattr__(name: str) -> Any:
    """``GENERIC`` (the generic words, a frozenset) and ``EVOKES`` (the evoked-terms table as
    text), read from the vocabulary when asked for, not at import (a warm prompt needs
    neither: the skills cache holds what is derived from them)."""
    if name == "GENERIC":
        return frozenset(vocabulary.words("skill_generic"))
    if name == "EVOKES":
        return vocabulary.table_text("skill_evokes")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def evoked_terms(text: str) -> set[str]:
    """The terms the evoked-terms table adds for ``text`` (a prompt), beyond its own words."""
    phrases, words = _evoke_table()
    lower = text.lower()
    out: set[str] = set()
    for word in lower_words(lower):
        out.update(words.get(word, ()))
    for phrase, added in phrases:
        if _holds_phrase(lower, phrase):
            out.update(added)
    if names_http_method(text):
        out.update(tokenize("http endpoint"))
    return out


def bigrams(terms: list[str]) -> set[str]:
    """Adjacent pairs of terms, as ``"a b"``."""
    return {f"{a} {b}" for a, b in pairwise(terms) if a != b}
