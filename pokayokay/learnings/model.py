"""Learnings as Claude Code memories (pure: text in, text out; no file system).

A learning is one topic file in the auto-memory folder, in the format Claude Code 2.1.330 tells
the model to use for its own memories (interfaces doc §2.4)::

    ---
    name: always-run-tests-before-committing
    description: "Always run the tests before committing."
    metadata:
      type: feedback
      category: patterns
      confidence: medium
      source: user
      observations: 1
      hash: "<sha256 of the normalised text>"
      created: "2026-11-22T10:00:00Z"
      last_seen: "2026-11-22T10:00:00Z"
    ---
    Always run the tests before committing.

``metadata.type`` is ``feedback``: Claude Code's memory prompt keeps ``feedback`` for guidance on
how to do the work (corrections, confirmed approaches, preferences about the way of working),
``reference`` for pointers to outside resources, ``user`` for facts about the person and
``project`` for facts about the project. A learning says how to work, so it is feedback; the
pokayokay fields sit beside ``type`` under ``metadata``, which Claude Code reads without acting
on the extra keys. The file is ``learning-<name>.md``; ``MEMORY.md`` links it from the Topic
Index with one line, ``- [<name>](learning-<name>.md) — <description>``.

Everything here is deterministic and needs no network and no model:

* :func:`normalise` / :func:`identity` — the identity of a learning is the SHA-256 of its text
  with whitespace collapsed and case folded;
* :func:`infer_category` — ``anti-patterns`` (what not to do), ``patterns`` (recommended
  approaches), else ``heuristics``; table-driven (:data:`ANTI_PATTERN_CUES`,
  :data:`PATTERN_CUES`);
* :func:`make_name` — a kebab-case slug of at most :data:`NAME_MAX` characters (40 when
  generated);
* :func:`similarity` / :func:`near_duplicate` — offline lexical similarity for near duplicates;
* :func:`render` / :func:`parse` — the topic file, with a small YAML writer that always quotes
  what could be misread and a fast reader for what it writes (anything else goes through
  ruamel.yaml).

Near-duplicate calibration
--------------------------
:func:`similarity` is the mean of two cosines: over light-stemmed content words, and over the
character 4-grams of those words (which meet inflections and compound spellings the stemmer
misses). Words that say how to work in general rather than what the learning is about ("always",
"run", "use", "before", "file", "commit"...) weigh :data:`GENERIC_WEIGHT`. When exactly one of the
two texts says what not to do or sets one thing against another ("never", "don't", "not",
"avoid", "instead", "rather than", "over"), the score is multiplied by :data:`POLARITY_PENALTY`:
"always enable WAL mode" and "never enable WAL mode on NFS" share nearly every word but not the
advice.

The threshold was calibrated on ``tests/data/learnings/paraphrases.json``: 100 labelled pairs,
50 true near-duplicates (rewordings, reorderings, negation spelled differently, added or dropped
context, a few hard paraphrases that share almost no words) and 50 near-misses (same topic and
often most of the same words, but different advice, a different tool or target, or the opposite
polarity). A false merge silently loses a learning (it only reinforces another one), while a
missed duplicate costs one more index line, so the threshold is the lowest one without a false
merge on the 40 ``calibration`` pairs (their best-scoring near-miss: 0.67), rounded up to the next
0.05 for a margin: **0.70**.

=============  =====  =========  ======
split          pairs  precision  recall
=============  =====  =========  ======
calibration     40      1.00      0.90
holdout         40      1.00      0.85
fresh           20      1.00      0.70
all            100      1.00      0.84
=============  =====  =========  ======

The features (generic words, contrast words) were chosen while looking at the calibration and
hold-out pairs, so those figures flatter the method; the 20 ``fresh`` pairs were written after
the measure and the threshold were frozen and never used to tune them, and are the honest
estimate. The misses are paraphrases that share few words ("run the tests before every commit" /
"never commit while the test suite is red"): a lexical method cannot see those, the optional
embedding method of the recall feature can. ``tests/test_learnings.py`` recomputes these figures
and fails if they drop below precision 1.00 / recall 0.80 on the whole set.
"""

from __future__ import annotations

import hashlib
import math
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

__all__ = [
    "ANTI_PATTERN_CUES",
    "CATEGORIES",
    "CONFIDENCES",
    "DESCRIPTION_MAX",
    "FILE_PREFIX",
    "INDEX_LINE_MAX",
    "MAX_CHARS",
    "MEMORY_TYPE",
    "MIN_CHARS",
    "NAME_MAX",
    "NEAR_DUPLICATE_THRESHOLD",
    "PATTERN_CUES",
    "Learning",
    "LearningFormatError",
    "file_name_for",
    "identity",
    "index_line",
    "infer_category",
    "is_index_line",
    "make_name",
    "near_duplicate",
    "normalise",
    "parse",
    "quote",
    "render",
    "similarity",
    "split_frontmatter",
    "unique_name",
    "words",
]

CATEGORIES: tuple[str, ...] = ("anti-patterns", "patterns", "heuristics")
CONFIDENCES: tuple[str, ...] = ("high", "medium", "low")
MEMORY_TYPE = "feedback"
FILE_PREFIX = "learning-"
MIN_CHARS = 20
MAX_CHARS = 2000
NAME_MAX = 60
DESCRIPTION_MAX = 150
# Claude Code's memory prompt asks for index lines under about 150 characters.
INDEX_LINE_MAX = 150
NEAR_DUPLICATE_THRESHOLD = 0.70
POLARITY_PENALTY = 0.5
# A generated name stops at this many words or this many characters, whichever comes first
# (NAME_MAX is the hard limit): the name is repeated in the file name and the index line.
NAME_WORDS = 6
NAME_TARGET = 40


class LearningFormatError(ValueError):
    """A learning file that is not one (no frontmatter, or frontmatter that is not a mapping)."""


# --- the model --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Learning:
    """One learning: the body text and the frontmatter fields pokayokay reads and writes.

    ``extra`` keeps the frontmatter keys pokayokay does not know (Claude Code stamps a
    ``modified`` timestamp into files it edits) and ``extra_metadata`` the unknown keys under
    ``metadata``, so a reinforcement writes them back unchanged.
    """

    name: str
    description: str
    text: str
    category: str = "heuristics"
    confidence: str = "medium"
    source: str = "user"
    observations: int = 1
    hash: str = ""
    created: str = ""
    last_seen: str = ""
    memory_type: str = MEMORY_TYPE
    extra: Mapping[str, object] = field(default_factory=dict)
    extra_metadata: Mapping[str, object] = field(default_factory=dict)

    @property
    def file_name(self) -> str:
        return file_name_for(self.name)

    def reinforced(self, when: str, confidence: str | None = None) -> Learning:
        """Seen once more at ``when``; ``confidence`` raises (never lowers) the confidence."""
        level = self.confidence
        if confidence in CONFIDENCES and (
            level not in CONFIDENCES or CONFIDENCES.index(confidence) < CONFIDENCES.index(level)
        ):
            level = confidence
        return replace(self, observations=self.observations + 1, last_seen=when, confidence=level)


def file_name_for(name: str) -> str:
    return f"{FILE_PREFIX}{name}.md"


# --- normalisation and identity ---------------------------------------------------------------


def normalise(text: str) -> str:
    """``text`` with every run of whitespace made one space, trimmed, and case folded."""
    return " ".join(text.split()).casefold()


def identity(text: str) -> str:
    """The identity of a learning: SHA-256 (hex) of its normalised text."""
    return hashlib.sha256(normalise(text).encode("utf-8", "surrogatepass")).hexdigest()


# --- words ------------------------------------------------------------------------------------

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
_STOP_WORDS = frozenset(_STOP_TEXT.split())
# Negations: kept out of the content words and counted for the polarity of a text.
_NEGATION_TEXT = """
    not no never nor none nothing nobody without avoid avoids avoided avoiding
    dont doesnt didnt isnt arent wasnt werent shouldnt wouldnt couldnt cant cannot wont
    mustnt neednt hasnt havent hadnt
"""
_NEGATIONS = frozenset(_NEGATION_TEXT.split())


def _fold(text: str) -> str:
    """Case folded, accents dropped, apostrophes unified."""
    text = unicodedata.normalize("NFKD", text.casefold().translate(_APOSTROPHES))
    return "".join(ch for ch in text if not unicodedata.combining(ch))


def words(text: str) -> list[str]:
    """The words of ``text`` (letters and digits), contractions joined: ``don't`` → ``dont``."""
    return [w.replace("'", "") for w in _WORD.findall(_fold(text))]


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
    return [stem(w) for w in tokens if w not in _STOP_WORDS and w not in _NEGATIONS]


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
    """The key of the candidate ``(key, text)`` most similar to ``text``, with its score, when
    that score reaches ``threshold``; else None. Ties go to the first candidate."""
    target = _profile(text)
    best: tuple[str, float] | None = None
    for key, other in candidates:
        score = _similarity(target, _profile(other))
        if score >= threshold and (best is None or score > best[1]):
            best = (key, score)
    return best


# --- category ---------------------------------------------------------------------------------

# Each cue is a regular expression over the case-folded text with apostrophes unified. The
# earliest cue in the text decides; a text with no cue is a heuristic.
ANTI_PATTERN_CUES: tuple[str, ...] = (
    r"\bnever\b",
    r"\bdon'?t\b",
    r"\bdo not\b",
    r"\bavoid\b",
    r"^stop\b",
    r"\brefrain\b",
    r"\bshould(?:n'?t| not| never)\b",
    r"\bmust(?:n'?t| not| never)\b",
    r"\bought not\b",
    r"\bnot to\b",
    r"\b(?:is|was) a (?:mistake|bad idea)\b",
)
PATTERN_CUES: tuple[str, ...] = (
    # "always" directly before a what-not-to-do verb is left to the anti-pattern cues.
    r"\balways\b(?! (?:avoid|stop|refrain)\b)",
    r"\bprefer(?:s|red|ring|ably)?\b",
    r"\binstead\b",
    r"\brather than\b",
    r"\bshould\b",
    r"\bmust\b",
    r"\bmake sure\b",
    r"\bensure\b",
    r"\bremember to\b",
    r"\b(?:it'?s |is )?(?:best|better) to\b",
    r"\brecommended\b",
    r"\bbest practice\b",
    r"\bneeds? to\b",
    # A text that opens with an imperative verb recommends something.
    r"^(?:please )?(?:use|run|keep|check|call|pass|set|put|write|add|pin|wrap|quote|prefer|"
    r"test|verify|validate|commit|start|create|follow|read|document|squash|rebase|"
    r"install|update|restart|clear|reset|split|name)\b",
)
_ANTI = tuple(re.compile(p) for p in ANTI_PATTERN_CUES)
_PATTERN = tuple(re.compile(p) for p in PATTERN_CUES)


def _first(patterns: Iterable[re.Pattern[str]], text: str) -> int | None:
    found = [m.start() for p in patterns if (m := p.search(text))]
    return min(found) if found else None


def infer_category(text: str) -> str:
    """``anti-patterns`` for what not to do, ``patterns`` for a recommended approach, else
    ``heuristics``; the earliest cue wins ("never X; use Y instead" is an anti-pattern)."""
    folded = " ".join(_fold(text).split())
    folded = folded.lstrip(" -*•>\"'(")
    anti = _first(_ANTI, folded)
    pattern = _first(_PATTERN, folded)
    if anti is None and pattern is None:
        return "heuristics"
    if pattern is None or (anti is not None and anti <= pattern):
        return "anti-patterns"
    return "patterns"


# --- names ------------------------------------------------------------------------------------

_NAME_STOP = _STOP_WORDS - {"all", "no", "only", "more", "less", "up", "down", "out", "off"}


def make_name(text: str, limit: int = NAME_TARGET) -> str:
    """A kebab-case slug for ``text``: its first words without filler, at most ``limit``
    characters (never more than :data:`NAME_MAX`), cut at a word boundary. Text with no Latin
    letters or digits gets ``note-<hash>``."""
    limit = min(limit, NAME_MAX)
    tokens = words(text)
    kept = [w for w in tokens if w not in _NAME_STOP] or tokens
    parts: list[str] = []
    length = 0
    for word in kept[:NAME_WORDS]:
        extra = len(word) + (1 if parts else 0)
        if length + extra > limit:
            if not parts:
                parts.append(word[:limit])
            break
        parts.append(word)
        length += extra
    name = "-".join(parts).strip("-")
    return name or f"note-{identity(text)[:10]}"


def unique_name(base: str, taken: Iterable[str], limit: int = NAME_MAX) -> str:
    """``base``, or ``base-2``, ``base-3``… (shortened to fit ``limit``) if it is taken."""
    used = set(taken)
    if base not in used:
        return base
    n = 2
    while True:
        suffix = f"-{n}"
        candidate = base[: limit - len(suffix)].rstrip("-") + suffix
        if candidate not in used:
            return candidate
        n += 1


# --- the index line ---------------------------------------------------------------------------

_INDEX_LINE = re.compile(r"^\s*[-*+] \[([a-z0-9-]+)\]\(learning-([a-z0-9-]+)\.md\) — ")


def index_line(
    learning: Learning, file_name: str | None = None, limit: int = INDEX_LINE_MAX
) -> str:
    """The Topic Index line for ``learning`` stored in ``file_name`` (default: the file its name
    gives): ``- [name](learning-name.md) — description``, the description shortened so the line
    stays within ``limit`` characters where it can."""
    from pokayokay.safety.sanitize import excerpt

    target = file_name or learning.file_name
    label = target.removeprefix(FILE_PREFIX).removesuffix(".md")
    head = f"- [{label}]({target}) — "
    room = max(30, limit - len(head))  # a name near 60 characters can still overrun
    return head + (excerpt(learning.description, room) or excerpt(learning.text, room))


def is_index_line(entry: str) -> bool:
    """Is this Topic Index entry one that :func:`index_line` wrote?"""
    match = _INDEX_LINE.match(entry)
    return match is not None and match[1] == match[2] and "\n" not in entry.strip()


# --- the topic file ---------------------------------------------------------------------------

_PLAIN_SAFE = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
# Plain words some YAML parsers read as something other than a string.
_YAML_WORDS = frozenset({"true", "false", "yes", "no", "on", "off", "y", "n", "null", "nan", "inf"})
_ESCAPES = {
    "\\": "\\\\",
    '"': '\\"',
    "\0": "\\0",
    "\a": "\\a",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\v": "\\v",
    "\f": "\\f",
    "\r": "\\r",
    "\x1b": "\\e",
    "\x85": "\\N",
    "\xa0": "\\_",
    "\u2028": "\\L",
    "\u2029": "\\P",
}


def _yaml_printable(ch: str) -> bool:
    point = ord(ch)
    return (
        0x20 <= point <= 0x7E
        or 0xA0 <= point <= 0xD7FF
        or 0xE000 <= point <= 0xFFFD
        or 0x10000 <= point <= 0x10FFFF
    ) and point != 0xFEFF


def quote(value: str) -> str:
    """``value`` as a one-line YAML scalar: plain when it is an unambiguous slug, else double
    quoted with every character outside YAML's printable set escaped."""
    if _PLAIN_SAFE.fullmatch(value) and value not in _YAML_WORDS:
        return value
    out = ['"']
    for ch in value:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif _yaml_printable(ch):
            out.append(ch)
        elif ord(ch) <= 0xFF:
            out.append(f"\\x{ord(ch):02x}")
        elif ord(ch) <= 0xFFFF:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    out.append('"')
    return "".join(out)


def _scalar(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if value is None:
        return "null"
    return quote(str(value))


def _extra_lines(mapping: Mapping[str, object], indent: str) -> list[str]:
    lines: list[str] = []
    for key, value in mapping.items():
        if isinstance(value, (str, int, bool)) or value is None:
            lines.append(f"{indent}{quote(str(key))}: {_scalar(value)}")
        else:
            # Nested values Claude (or a person) added: written back in flow style.
            lines.append(f"{indent}{quote(str(key))}: {_flow(value)}")
    return lines


def _flow(value: object) -> str:
    if isinstance(value, Mapping):
        inner = ", ".join(f"{quote(str(k))}: {_flow(v)}" for k, v in value.items())
        return "{" + inner + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    if isinstance(value, (str, int, bool)) or value is None:
        return _scalar(value)
    return quote(str(value))


def render(learning: Learning) -> str:
    """The topic file for ``learning`` (frontmatter, then the body, ending with a newline)."""
    lines = [
        "---",
        f"name: {quote(learning.name)}",
        f"description: {quote(learning.description)}",
        *_extra_lines(learning.extra, ""),
        "metadata:",
        f"  type: {quote(learning.memory_type)}",
        f"  category: {quote(learning.category)}",
        f"  confidence: {quote(learning.confidence)}",
        f"  source: {quote(learning.source)}",
        f"  observations: {int(learning.observations)}",
        f'  hash: "{learning.hash}"',
        f"  created: {quote(learning.created)}",
        f"  last_seen: {quote(learning.last_seen)}",
        *_extra_lines(learning.extra_metadata, "  "),
        "---",
    ]
    body = learning.text.rstrip("\n")
    return "\n".join(lines) + "\n" + body + "\n"


# --- reading a topic file ---------------------------------------------------------------------

_KNOWN_TOP = ("name", "description", "metadata")
_KNOWN_META = (
    "type",
    "category",
    "confidence",
    "source",
    "observations",
    "hash",
    "created",
    "last_seen",
)
_LINE = re.compile(r"^( {0,2})([A-Za-z_][A-Za-z0-9_-]*):(?: (.*))?$")
_INT = re.compile(r"[-+]?[0-9]+")
_UNESCAPE = {
    "0": "\0",
    "a": "\a",
    "b": "\b",
    "t": "\t",
    "\t": "\t",
    "n": "\n",
    "v": "\v",
    "f": "\f",
    "r": "\r",
    "e": "\x1b",
    " ": " ",
    '"': '"',
    "/": "/",
    "\\": "\\",
    "N": "\x85",
    "_": "\xa0",
    "L": "\u2028",
    "P": "\u2029",
}


class _Unsupported(Exception):
    """The fast reader does not handle this frontmatter: ruamel.yaml reads it."""


_ESCAPE = re.compile(r"\\(x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)", re.DOTALL)


def _unescape(match: re.Match[str]) -> str:
    code = match[1]
    if len(code) > 1:
        return chr(int(code[1:], 16))
    if code in _UNESCAPE:
        return _UNESCAPE[code]
    raise _Unsupported


def _double_quoted(raw: str) -> str:
    if len(raw) < 2 or not raw.endswith('"'):
        raise _Unsupported
    body = raw[1:-1]
    if "\\" not in body:
        if '"' in body:
            raise _Unsupported  # a quote inside: not one scalar (or a trailing comment)
        return body
    rest = _ESCAPE.sub("", body)
    if '"' in rest or "\\" in rest:
        raise _Unsupported
    try:
        return _ESCAPE.sub(_unescape, body)
    except ValueError:  # chr() of a code point out of range
        raise _Unsupported from None


def _value(raw: str) -> object:
    raw = raw.strip()
    if raw.startswith('"'):
        return _double_quoted(raw)
    if _INT.fullmatch(raw):
        return int(raw)
    if _PLAIN_SAFE.fullmatch(raw) and raw not in _YAML_WORDS:
        return raw
    raise _Unsupported


def _fast_frontmatter(block: str) -> dict[str, object]:
    top: dict[str, object] = {}
    nested: dict[str, object] | None = None
    for line in block.split("\n"):
        if not line.strip():
            continue
        match = _LINE.match(line)
        if match is None:
            raise _Unsupported
        indent, key, raw = match[1], match[2], match[3]
        if indent:
            if nested is None or len(indent) != 2:
                raise _Unsupported
            if key in nested:
                raise _Unsupported
            nested[key] = _value(raw or "")
            continue
        if key in top:
            raise _Unsupported
        if raw is None or not raw.strip():
            nested = {}
            top[key] = nested
        else:
            nested = None
            top[key] = _value(raw)
    # "key:" with nothing under it is null, as in YAML.
    return {key: (None if value == {} else value) for key, value in top.items()}


def _slow_frontmatter(block: str) -> object:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        return YAML(typ="safe", pure=True).load(block)
    except YAMLError as exc:
        raise LearningFormatError(f"invalid YAML frontmatter ({exc})") from None


def split_frontmatter(text: str) -> tuple[str, str] | None:
    """The frontmatter block and the body of a markdown file, or None without frontmatter."""
    text = text.removeprefix("\ufeff")
    if not text.startswith("---"):
        return None
    lines = text.split("\n")
    if lines[0].rstrip("\r").rstrip() != "---":
        return None
    for index in range(1, len(lines)):
        if lines[index].rstrip("\r").rstrip() == "---":
            block = "\n".join(line.rstrip("\r") for line in lines[1:index])
            body = "\n".join(lines[index + 1 :])
            return block, body
    return None


def _text(value: object) -> str:
    if value is None:
        return ""
    if hasattr(value, "isoformat"):
        return str(value.isoformat())
    return str(value)


def parse(text: str) -> Learning:
    """The learning in a topic file. Raises :class:`LearningFormatError` when the file has no
    frontmatter mapping or no body; fields pokayokay did not write get defaults (the hash is
    computed from the body when the file has none)."""
    parts = split_frontmatter(text)
    if parts is None:
        raise LearningFormatError("no frontmatter (the file does not start with a '---' block)")
    block, body = parts
    data: object
    try:
        data = _fast_frontmatter(block)
    except _Unsupported:
        data = _slow_frontmatter(block)
    if not isinstance(data, Mapping):
        raise LearningFormatError("the frontmatter is not a mapping")
    meta_raw = data.get("metadata")
    meta: Mapping[object, object] = meta_raw if isinstance(meta_raw, Mapping) else {}
    body_text = body.strip("\r\n")
    if not body_text.strip():
        raise LearningFormatError("the file has no body text")
    observations = meta.get("observations")
    count = observations if isinstance(observations, int) and observations > 0 else 1
    digest = _text(meta.get("hash")).strip().lower()
    if not re.fullmatch(r"[0-9a-f]{64}", digest):
        digest = identity(body_text)
    name = _text(data.get("name")).strip()
    category = _text(meta.get("category")).strip()
    confidence = _text(meta.get("confidence")).strip()
    return Learning(
        name=name,
        description=" ".join(_text(data.get("description")).split()),
        text=body_text,
        category=category if category in CATEGORIES else infer_category(body_text),
        confidence=confidence if confidence in CONFIDENCES else "medium",
        source=_text(meta.get("source")).strip() or "user",
        observations=count,
        hash=digest,
        created=_text(meta.get("created")).strip(),
        last_seen=_text(meta.get("last_seen")).strip(),
        memory_type=_text(meta.get("type")).strip() or MEMORY_TYPE,
        extra={str(k): v for k, v in data.items() if k not in _KNOWN_TOP},
        extra_metadata={str(k): v for k, v in meta.items() if k not in _KNOWN_META},
    )
