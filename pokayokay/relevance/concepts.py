"""Recall's concept table and features (pure): what lets "add styles for the settings page" meet
a note about CSS modules, and "let users upload a 2 GB video" one about presigned S3 uploads.

A note and a prompt rarely share their words; they share what the words are about. Each line
of the concept table (``pokayokay/relevance/vocabulary/concepts.tsv``) names a software
concept and the words and phrases that evoke it. A text's features are its terms
(``pokayokay.relevance.analyser``) plus:

* one ``~concept`` feature per word or phrase of the text that evokes a concept (words are
  looked up as written, lower-cased, then without a plural ``s``: the table lists the forms it
  means, so "generate" is not "generated"; a phrase's last word with or without a plural, a
  phrase listed under several concepts evokes each, and the words inside a phrase do not evoke
  its concept a second time; a literal such as a version "4.0" or a pin "checkout@v4" evokes
  its concept, :func:`evoked`);
* one ``a+b`` feature per pair of adjacent terms (bigrams): sharing "test suite" says more than
  sharing "test" and "suite" apart.

A word marked ``?`` in the table is ambiguous: "image" (also a Docker image), "total" (also a
count), "search" (also grep), "mobile", "flag", "deploy"-like words. It still evokes its concept,
but on its own it is no evidence (:func:`evoked` says it is *unsupported*; a prompt's piece of
evidence resting on it weighs :data:`AMBIGUOUS_EVIDENCE`); a second, different word of the same
concept backs it ("resize the image", "hide ... from all but beta testers"). In a prompt, the
words evoking one concept, the concept and those words matched as themselves are one piece of
evidence (:class:`Query`): the index asks for two pieces before a note scores in full.

The index weighs a concept feature :data:`CONCEPT_FACTOR` and a bigram :data:`BIGRAM_FACTOR` of
their IDF. The table is general software vocabulary (web, data, infra, testing, frontend,
payments, tooling), not one project's; ``tests/recall/test_recall_eval.py`` measures what it
buys on a labelled set and on prompts written after it was frozen.
"""

from __future__ import annotations

from pokayokay.relevance import vocabulary
from pokayokay.relevance.analyser import (
    MAX_QUERY_CHARS,
    MAX_QUERY_TERMS,
    WEAK_FACTOR,
    split_names,
    stem,
    tokenize,
)
from pokayokay.relevance.scan import concept_word_spans

CONCEPT_FACTOR = 1.0
# What a piece of evidence resting on one unsupported ambiguous word weighs (a plain one: 1).
AMBIGUOUS_EVIDENCE = 0.5
# ... and one holding a phrase of the table ("every night", "in one go", "browser test"): a
# phrase is as specific as two words, so it is enough on its own.
PHRASE_EVIDENCE = 2.0
BIGRAM_FACTOR = 0.5

CONCEPT_PREFIX = "~"
# Marks an ambiguous word in the table ("?image": also a Docker image, "?total": also a count).
AMBIGUOUS_MARK = "?"
BIGRAM_JOIN = "+"


# The words of the table and of a lowered prompt: ``[a-z0-9][a-z0-9_.+@:-]*[a-z0-9+]|[a-z0-9]``,
# read by a plain scan (:func:`pokayokay.relevance.scan.concept_word_spans`).


def _words(text: str) -> list[str]:
    return [text[start:end] for start, end in concept_word_spans(text)]


class _Table:
    __slots__ = ("words", "phrases", "longest")

    def __init__(
        self,
        words: dict[str, tuple[tuple[str, bool], ...]],
        phrases: dict[tuple[str, ...], tuple[str, ...]],
    ) -> None:
        self.words = words  # word -> (concept, ambiguous) pairs
        self.phrases = phrases  # phrase (last word without a plural s) -> concepts
        self.longest = max((len(p) for p in phrases), default=0)


_table: _Table | None = None


def _singular(word: str) -> str:
    """A phrase's last word without a plural ``s`` ("db calls" and "db call" are one phrase)."""
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _load() -> _Table:
    """The table, parsed once per process: words to concepts, and phrases as tuples of words
    (looked up over the text's words, no regular expression to compile on the prompt path)."""
    global _table
    if _table is not None:
        return _table
    words: dict[str, list[tuple[str, bool]]] = {}
    phrases: dict[tuple[str, ...], list[str]] = {}
    current = ""
    for raw in vocabulary.table_text("concepts").splitlines():
        if not raw.strip():
            continue
        line = raw
        if not raw.startswith(" "):
            current, _, line = raw.partition(":")
            current = current.strip()
        for i, part in enumerate(line.split("|")):
            part = part.strip().lower()
            if not part:
                continue
            if i:  # after a "|": a phrase
                # "#" is any number ("page #"): read as a digit, which the words skip
                tokens = tuple(
                    "#" if t.isdigit() else t for t in _words(part.replace("#", "0"))
                )
                if len(tokens) > 1:
                    key = (*tokens[:-1], _singular(tokens[-1]))
                    listed = phrases.setdefault(key, [])
                    if current not in listed:  # a phrase may evoke several concepts
                        listed.append(current)
                    continue
                parts = list(tokens)
            else:  # before the first "|": words
                parts = part.split()
            for word in parts:
                ambiguous = word.startswith(AMBIGUOUS_MARK)
                word = word.removeprefix(AMBIGUOUS_MARK)
                found = words.setdefault(word, [])
                if all(c != current for c, _ in found):
                    found.append((current, ambiguous))
    _table = _Table(
        {w: tuple(c) for w, c in words.items()}, {p: tuple(c) for p, c in phrases.items()}
    )
    return _table


def table_data() -> tuple[
    str, dict[str, tuple[tuple[str, bool], ...]], dict[tuple[str, ...], tuple[str, ...]]
]:
    """The parsed table as plain values, with the stamp of the file it was parsed from
    (:func:`pokayokay.relevance.vocabulary.stamp`): what :func:`use_table_data` takes back (the
    recall index cache keeps it, so that a prompt does not read or parse the table again)."""
    table = _load()
    return vocabulary.stamp("concepts"), table.words, table.phrases


def use_table_data(data: object) -> bool:
    """Take the table :func:`table_data` gave, if it was parsed from the file as it is now
    (same stamp; else the table is parsed as usual when first needed); whether it was (the
    cache holding it is written again when not). Shape checked, not every item: the data
    comes from pokayokay's own private cache."""
    global _table
    if not (isinstance(data, (tuple, list)) and len(data) == 3):
        return False
    if not data[0] or data[0] != vocabulary.stamp("concepts"):
        return False
    _stamp, words, phrases = data
    if not (isinstance(words, dict) and isinstance(phrases, dict)):
        return False
    if _table is None:
        _table = _Table(words, phrases)
    return True


def concepts(text: str) -> list[tuple[str, str]]:
    """``(concept, evoking word or phrase)`` for every word or phrase of ``text`` that evokes a
    concept, in order (a word of several concepts once for each)."""
    return [(c, w) for c, w, _ in evoked(text)]


def evoked(text: str) -> list[tuple[str, str, bool]]:
    """:func:`concepts` with, for each, whether it is *unsupported*: an ambiguous word of the
    table ("image", "total", "search") that no other word or phrase of the text backs with the
    same concept ("resize the image" backs it, "rename img to image" does not). A word inside
    an identifier, a file name or a path ("image_path", "mobile.css", "create_invoice",
    "billing/plans.py", "/api/payouts/") is a name, not a topic: it names where the work
    happens ("write a docstring for refund_order in billing/refunds.py" is about a docstring);
    it is always unsupported and backs nothing; so is any word of the table among the
    two after "this" or "these" ("format this SQL query", "explain this css snippet"): it names
    the object at hand, which a note about the project's conventions rarely is. Literals evoke
    their concept as an ambiguous word (:func:`_literal`: "4.0", "3.4.0"); a number in a
    phrase of the table is written ``#`` ("page #")."""
    table = _load()
    lowered = text.lower()
    spans = concept_word_spans(lowered)
    tokens = [lowered[start:end] for start, end in spans]
    in_path = {  # "billing" in "billing/plans.py", "payouts" in "/api/payouts/"
        at
        for at, (start, end) in enumerate(spans)
        if (start and lowered[start - 1] == "/") or lowered[end : end + 1] == "/"
    }
    found: list[tuple[str, str, bool]] = []
    where: list[int] = []  # the token each entry of found comes from
    names: set[int] = set()  # entries of found: words inside identifiers, file names, paths
    for at, word in enumerate(tokens):
        hit = table.words.get(word)
        if hit is None and len(word) > 3 and word.endswith("s"):
            hit = table.words.get(word[:-1])
        if hit is None and (word[0].isdigit() or word[1:2].isdigit() or "@" in word):
            hit = _literal(word)
        if hit is None and ("-" in word or "." in word or "_" in word):
            name = "_" in word or "." in word
            parts = word.split("-")
            if not name and 1 < len(parts) <= table.longest:  # "code-style": "code style"
                listed = table.phrases.get((*parts[:-1], _singular(parts[-1])))
                if listed:
                    found.extend((concept, word, False) for concept in listed)
                    where.extend(at for _ in listed)
                    continue
            for part in _parts(word):
                for c, a in table.words.get(part, ()):
                    if name:
                        names.add(len(found))
                    found.append((c, part, a or name))
                    where.append(at)
            continue
        if hit is not None:
            # a folder of a path names a place, as an identifier does; "this SQL query" is the
            # object at hand, not a topic
            if at in in_path or _at_hand(tokens, at):
                names.update(range(len(found), len(found) + len(hit)))
                hit = tuple((c, True) for c, _ in hit)
            found.extend((c, word, a) for c, a in hit)
            where.extend(at for _ in hit)
    # A phrase evokes its concept once: its own words do not evoke that concept again ("speed
    # up" is one mention of ~slow, not two, and its "speed" does not back itself).
    covered: set[tuple[str, int]] = set()
    if table.longest:
        phrases = table.phrases
        keys = ["#" if t.isdigit() else t for t in tokens]
        for i in range(len(keys) - 1):
            for n in range(2, min(table.longest, len(keys) - i) + 1):
                last = keys[i + n - 1]
                key = (*keys[i : i + n - 1], _singular(last))
                for concept in phrases.get(key, ()):
                    found.append((concept, " ".join(tokens[i : i + n]), False))
                    where.append(-1)
                    covered.update((concept, t) for t in range(i, i + n))
    for i in range(len(tokens) - 3):  # "from 5.1 to 5.2": moving to the next version
        old, to, new = tokens[i + 1 : i + 4]
        if tokens[i] == "from" and to == "to" and _next_version(old, new):
            found.append(("upgrade", " ".join(tokens[i : i + 4]), False))
            where.append(-1)
    kept = [e for e in range(len(found)) if (found[e][0], where[e]) not in covered]
    words: dict[str, set[str]] = {}
    for e in kept:  # "total" and "totals" are one word
        if e not in names:
            concept, word, _ambiguous = found[e]
            words.setdefault(concept, set()).add(stem(word))
    out = []
    for e in kept:
        c, w, ambiguous = found[e]
        out.append((c, w, ambiguous and (e in names or len(words.get(c, ())) < 2)))
    return out


# The literal words below are recognised by plain string tests, not regular expressions: a
# prompt naming a file or a number would otherwise compile four patterns to read one word.
# Each test answers exactly what ``re.fullmatch`` of the pattern in its comment does (the
# property tests in tests/relevance/test_concept_literals.py hold them equal).
_ASCII_DIGITS = frozenset("0123456789")


def _number(text: str) -> bool:
    """``[0-9]+`` (ASCII digits only, as the patterns mean)."""
    return bool(text) and text.isascii() and text.isdigit()


def _is_version(word: str) -> bool:
    """``v?[0-9]+(?:\\.[0-9]+){2}|(?:[2-9]|[1-9][0-9]+)\\.0|v[0-9]+\\.[0-9]+``: x.y.z, vX.Y,
    or a major X.0 from 2.0 on ("1.0" and "0.5" are as often rates as versions)."""
    bare = word[1:] if word.startswith("v") else word
    parts = bare.split(".")
    if len(parts) == 3 and all(_number(p) for p in parts):
        return True
    if len(parts) != 2 or not all(_number(p) for p in parts):
        return False
    if bare is not word:  # vX.Y
        return True
    major = parts[0]
    return parts[1] == "0" and (major[0] != "0" and (len(major) > 1 or major != "1"))


_PIN_NAME = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_.-")


def _is_pin(word: str) -> bool:
    """``[a-z0-9][a-z0-9_.-]*@v?[0-9][0-9.]*``: a dependency pinned by a version tag
    ("actions/checkout@v4" reads "checkout@v4", "lodash@4.17")."""
    name, at, tag = word.partition("@")
    if not (at and name and name[0] not in "_.-" and all(c in _PIN_NAME for c in name)):
        return False
    tag = tag[1:] if tag.startswith("v") else tag
    if not tag or tag[0] not in _ASCII_DIGITS:
        return False
    return all(c in _ASCII_DIGITS or c == "." for c in tag)


_SIZE_UNITS = frozenset({"kb", "mb", "gb", "tb", "kib", "mib", "gib", "tib"})


def _is_size(word: str) -> bool:
    """``[0-9]+(?:\\.[0-9]+)?(?:kb|mb|gb|tb|kib|mib|gib|tib)``: a size written as one word
    ("4GB", "500mb"), as "4 GB" is two words of the table."""
    cut = len(word) - (3 if word[-2:-1] == "i" else 2)
    if word[cut:] not in _SIZE_UNITS:
        return False
    whole, dot, fraction = word[:cut].partition(".")
    return _number(whole) and (not dot or _number(fraction))


def _is_time_of_day(word: str) -> bool:
    """``(?:1[0-2]|0?[0-9])(?::[0-5][0-9])?(?:am|pm)``: a time of day written as one word
    ("3am", "11pm", "7:30am")."""
    if word[-2:] not in ("am", "pm"):
        return False
    hour, colon, minutes = word[:-2].partition(":")
    if colon and not (len(minutes) == 2 and minutes[0] in "012345" and _number(minutes[1])):
        return False
    if len(hour) == 1:
        return _number(hour)
    if len(hour) != 2:
        return False
    return hour in ("10", "11", "12") or (hour[0] == "0" and _number(hour))


_LITERALS = (
    (_is_version, (("release", True),)),
    (_is_pin, (("pin", False),)),
    (_is_size, (("large", False),)),
    (_is_time_of_day, (("schedule", False),)),
)


def _literal(word: str) -> tuple[tuple[str, bool], ...] | None:
    """The concepts a literal word evokes (it starts with a digit, or a letter and a digit, or
    holds an ``@``), if it is one. What it evokes, as an ambiguous word for a version: a
    version ("3.4.0", "2.0") a release, a pin, a size, a time of day. (A date does not: "parse
    the date string 2025-03-01" is no topic; nor a quantity: "10k rows" in a note about
    exports only blurred its topic.)"""
    for test, evokes in _LITERALS:
        if test(word):
            return evokes
    return None


def _next_version(old: str, new: str) -> bool:
    """Whether ``old`` to ``new`` reads as a move to the next version: "5.1" to "5.2" or "6.0",
    "v3.11" to "v3.12"; "16" to "18.2" does not, nor "0.5" to "1.5" (a rate, as often)."""
    a, b = old.removeprefix("v").split("."), new.removeprefix("v").split(".")
    if len(a) < 2 or len(b) < 2 or not all(p.isdigit() for p in (*a, *b)):
        return False
    return a != b and int(a[0]) > 0 and int(b[0]) in (int(a[0]), int(a[0]) + 1)


def _parts(word: str) -> list[str]:
    """``re.split(r"[-._]", word)``: the pieces between each "-", "." and "_" (empty ones
    too), without a pattern compiled for it."""
    return word.replace("-", ".").replace("_", ".").split(".")


_AT_HAND = frozenset({"this", "these"})


def _at_hand(tokens: list[str], at: int) -> bool:
    """Whether the word at ``at`` is one of the two after "this" or "these"."""
    return (at > 0 and tokens[at - 1] in _AT_HAND) or (at > 1 and tokens[at - 2] in _AT_HAND)


def features(text: str) -> dict[str, int]:
    """Terms, bigrams of adjacent terms and concepts of ``text``, with their counts."""
    counts: dict[str, int] = {}
    previous = ""
    for term in tokenize(text):
        counts[term] = counts.get(term, 0) + 1
        if previous and previous != term:
            pair = previous + BIGRAM_JOIN + term
            counts[pair] = counts.get(pair, 0) + 1
        previous = term
    for concept, _word in concepts(text):
        key = CONCEPT_PREFIX + concept
        counts[key] = counts.get(key, 0) + 1
    return counts


class Query:
    """A prompt's features, and the piece of evidence each feature stands for: the words that
    evoke one concept, the concept itself and the same words matched as terms are one piece
    (``groups``: feature -> its piece), so that "resize the image" is one topic, not three; a
    piece resting on one ambiguous word alone weighs :data:`AMBIGUOUS_EVIDENCE`, one holding a
    phrase of the table :data:`PHRASE_EVIDENCE` (``strength``). ``names``: the terms found only
    in the prompt's paths, file names and identifiers (:mod:`pokayokay.relevance.evidence`), which
    are no plain evidence."""

    __slots__ = ("counts", "groups", "names", "strength")

    def __init__(
        self,
        counts: dict[str, int],
        groups: dict[str, str],
        strength: dict[str, float],
        names: frozenset[str] = frozenset(),
    ) -> None:
        self.counts = counts
        self.groups = groups
        self.strength = strength
        self.names = names


def query_features(prompt: str) -> Query:
    """:func:`features` of a prompt, within the work caps, with its pieces of evidence."""
    text = prompt[:MAX_QUERY_CHARS]
    counts = features(text)
    if len(counts) > MAX_QUERY_TERMS:
        counts = dict(list(counts.items())[:MAX_QUERY_TERMS])
    parent: dict[str, str] = {}

    def find(key: str) -> str:
        while parent.get(key, key) != key:
            key = parent[key]
        return key

    found = evoked(text)
    for concept, word, _ in found:
        terms = tokenize(word)
        # a word counts as its term (the same word matched as itself is no more evidence);
        # a phrase as one piece of evidence
        evoker = terms[0] if len(terms) == 1 else f"{CONCEPT_PREFIX}{word}"
        a, b = find(CONCEPT_PREFIX + concept), find(evoker)
        if a != b:
            parent[b] = a
    groups = {key: find(key) for key in parent}
    pieces = [(groups.get(CONCEPT_PREFIX + c, CONCEPT_PREFIX + c), weak) for c, _, weak in found]
    strong = {piece for piece, weak in pieces if not weak}
    strength = {piece: AMBIGUOUS_EVIDENCE for piece, weak in pieces if piece not in strong}
    for concept, word, weak in found:  # a phrase of the table says its concept plainly
        if not weak and " " in word:
            piece = groups.get(CONCEPT_PREFIX + concept, CONCEPT_PREFIX + concept)
            strength[piece] = max(strength.get(piece, 1.0), PHRASE_EVIDENCE)
    plain, found_names = split_names(text)
    names = frozenset(tokenize(" ".join(found_names))).difference(tokenize(plain))
    return Query(counts, groups, strength, names)


def factor(term: str) -> float:
    """How much of its IDF a feature weighs (before the weak-word factor)."""
    if term.startswith(CONCEPT_PREFIX):
        return CONCEPT_FACTOR
    if BIGRAM_JOIN in term and not term.startswith(BIGRAM_JOIN):
        return BIGRAM_FACTOR
    return 1.0


def term_weight(term: str, weak: frozenset[str]) -> float:
    """How much of its IDF a feature weighs: :func:`factor`, times
    :data:`~pokayokay.relevance.analyser.WEAK_FACTOR` for a weak word (``weak``)."""
    return (WEAK_FACTOR if term in weak else 1.0) * factor(term)
