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
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

from pokayokay.learnings.wording import STOP_WORDS, fold, words
from pokayokay.names import LEARNING_FILE_PREFIX
from pokayokay.relevance.asked import ASKED_CHARS, ASKED_MAX

__all__ = [
    "ANTI_PATTERN_CUES",
    "ASKED_CHARS",
    "ASKED_MAX",
    "CATEGORIES",
    "CONFIDENCES",
    "DESCRIPTION_MAX",
    "FILE_PREFIX",
    "INDEX_LINE_MAX",
    "MAX_CHARS",
    "MEMORY_TYPE",
    "MIN_CHARS",
    "NAME_MAX",
    "PATTERN_CUES",
    "SEVERITIES",
    "STRUCTURED_FIELDS",
    "STRUCTURED_MAX",
    "Learning",
    "LearningFormatError",
    "file_name_for",
    "identity",
    "index_line",
    "infer_category",
    "is_index_line",
    "make_name",
    "normalise",
    "unique_name",
]

# "decision" is never inferred: `remember --category decision` also records it in Key Decisions.
CATEGORIES: tuple[str, ...] = ("anti-patterns", "patterns", "heuristics", "decision")
CONFIDENCES: tuple[str, ...] = ("high", "medium", "low")
# Structured fields a learning may carry (seed 000's reflexion schema): what situation brings it
# up, the root cause, what to do, and how much it matters.
STRUCTURED_FIELDS: tuple[str, ...] = ("trigger", "insight", "action", "severity")
SEVERITIES: tuple[str, ...] = ("P1", "P2", "P3")
STRUCTURED_MAX = 200
# How a teammate might ask for a learning, in their own words (``remember --asked``, written by
# Claude when a learning is stored: decision 0175): matched by recall, never shown. At most
# ASKED_MAX phrases of at most ASKED_CHARS characters each (pokayokay.relevance.asked).
MEMORY_TYPE = "feedback"
FILE_PREFIX = LEARNING_FILE_PREFIX
MIN_CHARS = 20
MAX_CHARS = 2000
NAME_MAX = 60
DESCRIPTION_MAX = 150
# Claude Code's memory prompt asks for index lines under about 150 characters.
INDEX_LINE_MAX = 150
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
    # Structured fields ("" when not given): see STRUCTURED_FIELDS.
    trigger: str = ""
    insight: str = ""
    action: str = ""
    severity: str = ""
    # How a teammate might ask for it (see ASKED_MAX): matched, never shown.
    asked: tuple[str, ...] = ()

    @property
    def file_name(self) -> str:
        return file_name_for(self.name)

    @property
    def matched_fields(self) -> tuple[str, str, str]:
        """What recall matches besides the body and description: the name's words, and the
        structured trigger and insight (what a prompt about the learning would say)."""
        return (self.name.replace("-", " "), self.trigger, self.insight)

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
    folded = " ".join(fold(text).split())
    folded = folded.lstrip(" -*•>\"'(")
    anti = _first(_ANTI, folded)
    pattern = _first(_PATTERN, folded)
    if anti is None and pattern is None:
        return "heuristics"
    if pattern is None or (anti is not None and anti <= pattern):
        return "anti-patterns"
    return "patterns"


# --- names ------------------------------------------------------------------------------------

_NAME_STOP = STOP_WORDS - {"all", "no", "only", "more", "less", "up", "down", "out", "off"}


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
    from pokayokay.safety.exact import escape_markers
    from pokayokay.safety.sanitize import excerpt

    target = file_name or learning.file_name
    label = target.removeprefix(FILE_PREFIX).removesuffix(".md")
    head = f"- [{label}]({target}) — "
    room = max(30, limit - len(head))  # a name near 60 characters can still overrun
    shown = excerpt(learning.description, room) or excerpt(learning.text, room)
    return head + escape_markers(shown)  # exact but for a comment that could pass for a marker


def is_index_line(entry: str) -> bool:
    """Is this Topic Index entry one that :func:`index_line` wrote?"""
    match = _INDEX_LINE.match(entry)
    return match is not None and match[1] == match[2] and "\n" not in entry.strip()


# --- the topic file ---------------------------------------------------------------------------


# --- reading a topic file ---------------------------------------------------------------------


@dataclass(frozen=True)
class EntryAge:
    """How old one learning entry is, in git-active days (computed by learnings.aging.ages)."""

    title: str
    line: int
    age: int
    added: date | None  # None: not committed yet
    commit: str | None

    @property
    def added_label(self) -> str:
        return self.added.isoformat() if self.added is not None else "uncommitted"

    def to_dict(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "line": self.line,
            "age": self.age,
            "added": self.added_label,
            "commit": self.commit,
        }
