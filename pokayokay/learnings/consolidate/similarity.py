"""How alike two learnings are (pure): word profiles with light stemming, topic overlap, clashes of
negation or replaced choices, coverage of one text by another, and the passages of a markdown
file they are compared against."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pokayokay.infra.markdown import fence_states
from pokayokay.learnings.aging.entries import LearningEntry, parse_entries
from pokayokay.memory.document import split_lines

# Containment needs at least this many words, so "Use ruff." is not "already there" everywhere.
MIN_CONTAINED_WORDS = 4


def wordset(text: str) -> frozenset[str]:
    """The set of a normalised text's words."""
    return frozenset(text.split())


_STOPWORDS = wordset(
    """
    a about above after again all also am an and any are as at be been before being below
    between both but by can could did do does doing done down during each else even ever every
    few for from further had has have having he her here hers him his how i if in into is it its
    itself just let lets like may me might more most much must my myself new now of off on once
    one only or other our ours out over own per same shall she should so some such than that the
    their theirs them then there these they this those through to too under until up upon us
    very was we were what when where which while who whom why will with would yet you your
    use used uses using run runs ran running make makes made making get gets got set sets via
    always also really please thing things way ways need needs needed want wants longer
    anymore
    """
)


_NEGATORS = wordset(
    """
    not no never nor without avoid avoids avoided avoiding stop stops stopped stopping disable
    disables disabled disabling forbid forbids forbidden ban banned skip skips skipped skipping
    deprecate deprecates deprecated obsolete instead rather drop dropped remove removed
    removing exclude excluded excluding none neither
    """
)


# Words that mean "the newer entry replaces something".
_REPLACEMENT = re.compile(
    r"\b(no longer|not anymore|any ?more|instead of|rather than|replaced|replaces|superseded|"
    r"supersedes|deprecated|obsolete|outdated|was wrong|switched|moved away from|"
    r"in favou?r of)\b"
)


# A negation covers at most this many content words after it, up to a clause break or one of
# these words (so "do not use unittest for tests" negates unittest, not tests).
_SCOPE = 6


_SCOPE_STOPS = wordset(
    """
    for in on at with when if because since as by from into after before during unless until
    so while where which that but however although though whereas except
    """
)


_CLAUSE_BREAK = frozenset(".,;:!?\n")


_TOKEN = re.compile(r"(?<![a-z0-9_])\.?[a-z0-9_]+(?:[.+/-][a-z0-9_]+)*|[.,;:!?\n]")


_CONTRACTION = re.compile(r"n['’]t\b")


TARGET_LINE = re.compile(
    r"^\s*(?:[-*+]\s+)?(?:\*\*|__)?target(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*(.*?)\s*$",
    re.IGNORECASE,
)


_COMMENT = re.compile(r"^\s*<!--.*-->\s*$")


def stem(word: str) -> str:
    """A light, consistent stem: ``tests``/``testing``/``tested`` → ``test``."""
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    if word.endswith("ing") and len(word) >= 6:
        word = word[:-3]
    elif word.endswith("ed") and len(word) >= 5 and not word.endswith("eed"):
        word = word[:-2]
    if len(word) >= 3 and word[-1] == word[-2] and word[-1] not in "aeiouyslz":
        word = word[:-1]
    if len(word) >= 4 and word.endswith("e"):
        word = word[:-1]
    return word


def _words(text: str) -> list[str]:
    text = _CONTRACTION.sub(" not", text.casefold().replace("cannot", "can not"))
    return _TOKEN.findall(text)


@dataclass(frozen=True)
class Profile:
    """What the checks know about a piece of text."""

    tokens: frozenset[str]  # content stems
    title: frozenset[str]
    neg: frozenset[str]  # stems negated (the head of a negation), never asserted
    pos: frozenset[str]  # stems asserted (outside every negation)
    replaces: bool
    normal: str  # the words of the text, for containment

    @property
    def size(self) -> int:
        return len(self.tokens)


def profile(text: str, title: str = "") -> Profile:
    """Content words, and their polarity: a negation (``not``, ``never``, ``avoid``, ``instead
    of``, …) negates the first content word after it (its head: ``never mock the database``
    negates ``mock``); words outside any negation are asserted. Polarity comes from ``text``
    only: a title names a topic, it asserts nothing."""
    heads: set[str] = set()
    scoped: set[str] = set()
    outside: set[str] = set()
    tokens: set[str] = set()
    plain: list[str] = []
    for source, polar in ((title, False), (text, True)):
        scope, head = 0, False
        for word in _words(source):
            if word in _CLAUSE_BREAK or word in _SCOPE_STOPS:
                scope, head = 0, False
                if word not in _CLAUSE_BREAK:
                    plain.append(word)
                continue
            plain.append(word)
            if word in _NEGATORS:
                scope, head = _SCOPE, True
                continue
            if word in _STOPWORDS:
                continue
            term = stem(word)
            tokens.add(term)
            if not polar:
                continue
            if scope:
                scoped.add(term)
                scope -= 1
                if head:
                    heads.add(term)
                    head = False
            else:
                outside.add(term)
    title_tokens = {stem(w) for w in _words(title) if w not in _STOPWORDS and w not in _NEGATORS}
    title_tokens -= set(_CLAUSE_BREAK)
    return Profile(
        tokens=frozenset(tokens),
        title=frozenset(title_tokens),
        neg=frozenset(heads - outside),
        pos=frozenset(outside - scoped),
        replaces=_REPLACEMENT.search(" ".join(plain)) is not None,
        normal=" ".join(w for w in _words(text) if w not in _CLAUSE_BREAK),
    )


def topic_score(a: Profile, b: Profile) -> float:
    """How much two texts are about the same thing: shared content words over the smaller
    side (0 unless at least two are shared); titles alone can also make it."""
    score = 0.0
    shared = a.tokens & b.tokens
    if len(shared) >= 2:
        score = len(shared) / min(a.size, b.size)
    titles = a.title & b.title
    if len(titles) >= 2:
        score = max(score, len(titles) / min(len(a.title), len(b.title)))
    return score


def clash(a: Profile, b: Profile) -> frozenset[str]:
    """Words one text negates and the other asserts."""
    return (a.neg & b.pos) | (a.pos & b.neg)


def coverage(entry: Profile, passage: Profile) -> float:
    """Share of the entry's content words found in the passage."""
    if not entry.tokens:
        return 0.0
    return len(entry.tokens & passage.tokens) / entry.size


def contained(entry: Profile, target_normal: str) -> bool:
    words = entry.normal.split()
    if len(words) < MIN_CONTAINED_WORDS:
        return False
    return f" {entry.normal} " in f" {target_normal} "


def entry_body(entry: LearningEntry) -> str:
    """The entry's own words: body lines without the ``Target:`` line and HTML comments."""
    keep = [
        line
        for line in entry.body
        if not TARGET_LINE.match(line.rstrip("\r\n")) and not _COMMENT.match(line)
    ]
    return "".join(keep)


def entry_profile(entry: LearningEntry) -> Profile:
    body = entry_body(entry)
    return profile(body or entry.title, entry.title)


@dataclass(frozen=True)
class Passage:
    """A piece of a target to compare entries with: a paragraph, a bullet or a short section."""

    label: str
    text: str
    profile: Profile


_SECTION_TOKENS_MAX = 80


def passages(text: str, label: str) -> list[Passage]:
    """Paragraphs and top-level bullets of ``text`` (with the heading above them), and whole
    H2 sections that are short enough to be one learning."""
    out: list[Passage] = []
    block: list[str] = []
    heading = ""

    def flush() -> None:
        if any(line.strip() for line in block):
            body = "".join(block)
            out.append(Passage(label, body, profile(body, heading)))
        block.clear()

    lines = split_lines(text)
    for line, fenced in zip(lines, fence_states(lines), strict=True):
        stripped = line.strip()
        if not stripped or _COMMENT.match(line):
            flush()
            continue
        if not fenced and stripped.startswith("#"):
            flush()
            heading = stripped.lstrip("#").strip()
            continue
        if re.match(r"^[-*+] ", line) or re.match(r"^\d+[.)] ", line):
            flush()
        block.append(line)
    flush()
    _, sections = parse_entries(text)
    for section in sections:
        body = "".join(section.body)
        prof = profile(body, section.title)
        if prof.size <= _SECTION_TOKENS_MAX:
            out.append(Passage(label, section.text, prof))
    return out


def quote(text: str, limit: int = 100) -> str:
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 1].rstrip() + "…"
