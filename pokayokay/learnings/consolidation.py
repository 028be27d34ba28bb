"""Consolidation of the learnings staging file (pure: no git, no file system, no model).

The steps, each a function here; :mod:`pokayokay.learnings.consolidate_apply` does the I/O around
them.

1. **Trigger** (:func:`should_trigger`): the file has more than 150 lines, or at least 14
   git-active days passed since the last consolidation. When history shows no consolidation at
   all, the file counts as stale once its oldest entry is at least 14 active days old (the
   entries have waited that long without one).
2. **Qualifying entries** (:func:`qualifying`): at least 7 active days old (an uncommitted entry
   is 0 days old); fewer than 3 of them and nothing happens.
3. **Routing** (:func:`route`): a ``Target:`` line in the entry wins
   (``Target: MEMORY.md#Key Decisions``, ``Target: .claude/rules/testing.md``,
   ``Target: docs/architecture.md`` — project-relative — or ``Target: memory:topic.md`` for a
   topic file in the memory folder). Otherwise a keyword router: decision words (decided, chose,
   agreed, policy, convention, from now on, …) → the Key Decisions section of MEMORY.md;
   architecture words (architecture, module, component, layer, service, structure, schema,
   pipeline, …) → Architecture Notes; a tie with both present → Key Decisions; nothing →
   the topic file ``learnings-archive.md`` in the memory folder. An entry routed to a MEMORY.md
   section becomes one bullet there (date, title, one-line summary, link) and its full text goes
   to ``learnings-archive.md``; curation then enforces the section's budget.
4. **Pre-checks** (:func:`plan_batch`), offline and conservative:

   * supersession: a newer entry on the same topic negates or replaces an older one (``no
     longer``, ``instead of``, ``don't``, ``deprecated``, ``avoid``, ``disable``, …, attached to
     words the older entry asserts) → the older is dropped; when the newer one is not old
     enough to be consolidated itself, the older is escalated instead;
   * contradiction: the entry and a passage of its target are on the same topic with opposite
     polarity → escalated, never dropped, the entry stays in the staging file;
   * redundancy: the entry's text is already in the target (normalised containment, or a
     passage covering at least 85% of its words) → dropped.

   Scores in the grey zone (same-topic score 0.3–0.5 with a polarity clash, or 65–85% coverage)
   are escalated. Dropped entries are not deleted: they go to ``learnings-dropped.md`` in the
   memory folder with the reason.
5. **Split** (:func:`split_file`): a target of 400 lines or more is split at H2 boundaries into
   files of 100–300 lines (``<stem>-part-2.md``, …), each part opening with a cross-reference
   line and the original keeping its preamble, an index of the parts and the first part.

Every line of the staging file ends up somewhere: in the staging file, a target, the archive or
the dropped file.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from datetime import date
from typing import Any

from pokayokay.learnings.ages import (
    EntryAge,
    LearningEntry,
    parse_entries,
)
from pokayokay.memory.document import count_lines, split_lines

# -- configuration -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ConsolidationConfig:
    """Thresholds and file names. ``from_settings`` reads ``Settings.consolidation_<name>``."""

    learnings_file: str = ".claude/learnings.md"
    size_trigger: int = 150  # more lines than this triggers
    staleness_trigger: int = 14  # at least this many active days since the last consolidation
    freshness: int = 7  # an entry qualifies at this age (active days)
    min_batch: int = 3
    split_at: int = 400
    part_min: int = 100
    part_max: int = 300
    archive: str = "learnings-archive.md"  # full texts, in the memory folder
    dropped: str = "learnings-dropped.md"  # superseded and redundant entries, memory folder
    session_end: bool = True  # SessionEnd checks whether consolidation is due

    @classmethod
    def from_settings(cls, settings: object) -> ConsolidationConfig:
        values: dict[str, Any] = {}
        for item in fields(cls):
            value = getattr(settings, f"consolidation_{item.name}", None)
            if value is not None:
                values[item.name] = value
        return cls(**values)


DEFAULT_CONFIG = ConsolidationConfig()

# Same-topic score (shared content words over the smaller side, at least two shared).
SAME_TOPIC = 0.5
GREY_TOPIC = 0.3
# Share of an entry's content words found in one passage of the target.
REDUNDANT = 0.85
GREY_REDUNDANT = 0.65
# Containment needs at least this many words, so "Use ruff." is not "already there" everywhere.
MIN_CONTAINED_WORDS = 4
# Longest one-line bullet added to a MEMORY.md section (Claude Code's index lines stay short).
BULLET_MAX = 150


# -- trigger -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Trigger:
    triggered: bool
    reasons: tuple[str, ...]  # why it triggered, or why not


def should_trigger(
    file_lines: int,
    staleness: int | None,
    entry_ages: Sequence[int],
    config: ConsolidationConfig = DEFAULT_CONFIG,
) -> Trigger:
    """Size OR staleness. Unknown staleness (no consolidation in history) counts as stale once
    the oldest entry is at least ``staleness_trigger`` active days old."""
    why: list[str] = []
    why_not: list[str] = []
    if file_lines > config.size_trigger:
        why.append(f"the file has {file_lines} lines (over {config.size_trigger})")
    else:
        why_not.append(f"the file has {file_lines} lines (at most {config.size_trigger})")
    if staleness is not None:
        text = f"{staleness} active days since the last consolidation"
        if staleness >= config.staleness_trigger:
            why.append(f"{text} (at least {config.staleness_trigger})")
        else:
            why_not.append(f"{text} (under {config.staleness_trigger})")
    else:
        oldest = max(entry_ages, default=0)
        text = (
            f"no consolidation in the file's history and its oldest entry is {oldest} "
            "active days old"
        )
        if entry_ages and oldest >= config.staleness_trigger:
            why.append(f"{text} (at least {config.staleness_trigger})")
        else:
            why_not.append(f"{text} (under {config.staleness_trigger})")
    return Trigger(bool(why), tuple(why or why_not))


def qualifying(ages: Sequence[EntryAge], config: ConsolidationConfig = DEFAULT_CONFIG) -> list[int]:
    """Indices of the entries old enough to consolidate, oldest first (file order on ties)."""
    picked = [
        i for i, age in enumerate(ages) if age.added is not None and age.age >= config.freshness
    ]
    return sorted(picked, key=lambda i: (-ages[i].age, i))


def batch_problem(count: int, config: ConsolidationConfig = DEFAULT_CONFIG) -> str | None:
    """Why a batch of ``count`` qualifying entries is not consolidated, or None when it is."""
    if count >= config.min_batch:
        return None
    return (
        f"only {count} entr{'y is' if count == 1 else 'ies are'} at least {config.freshness} "
        f"active days old; consolidation waits for {config.min_batch}"
    )


# -- text analysis -----------------------------------------------------------------------------


def _wordset(text: str) -> frozenset[str]:
    return frozenset(text.split())


_STOPWORDS = _wordset(
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
_NEGATORS = _wordset(
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
_SCOPE_STOPS = _wordset(
    """
    for in on at with when if because since as by from into after before during unless until
    so while where which that but however although though whereas except
    """
)
_CLAUSE_BREAK = frozenset(".,;:!?\n")
_TOKEN = re.compile(r"(?<![a-z0-9_])\.?[a-z0-9_]+(?:[.+/-][a-z0-9_]+)*|[.,;:!?\n]")
_CONTRACTION = re.compile(r"n['’]t\b")
_TARGET_LINE = re.compile(
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
        if not _TARGET_LINE.match(line.rstrip("\r\n")) and not _COMMENT.match(line)
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

    for line in split_lines(text):
        stripped = line.strip()
        if not stripped or _COMMENT.match(line):
            flush()
            continue
        if stripped.startswith("#"):
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


# -- routing -----------------------------------------------------------------------------------

MEMORY_FILE = "MEMORY.md"
DECISIONS_ID = "key_decisions"
ARCHITECTURE_ID = "architecture_notes"

_DECISION_WORDS = _wordset(
    """
    decide decided decides deciding decision decisions chose choose chosen choosing agreed agree
    agreement policy policies convention conventions standardize standardise standardized
    standardised adopt adopted settled mandate mandatory
    """
)
_DECISION_PHRASES = ("we will", "we'll", "from now on", "going forward", "settled on", "signed off")
_ARCHITECTURE_WORDS = _wordset(
    """
    architecture architectural module modules component components layer layers layering
    service services structure structured schema schemas entrypoint entrypoints pipeline
    pipelines boundary boundaries subsystem subsystems monorepo microservice microservices
    """
)
_ARCHITECTURE_PHRASES = (
    "entry point",
    "data flow",
    "call graph",
    "directory structure",
    "folder structure",
    "project layout",
    "repository layout",
)


@dataclass(frozen=True)
class Route:
    """Where an entry goes.

    ``kind``: ``section`` (a MEMORY.md managed section: bullet there, full text in the archive
    topic file), ``memory`` (a topic file in the memory folder, ``path`` is its name) or
    ``project`` (a file in the project, ``path`` relative to the project folder).
    """

    kind: str
    path: str
    section_id: str | None = None
    explicit: bool = False
    label: str = ""

    @property
    def key(self) -> tuple[str, str]:
        return (
            ("section", self.section_id or "") if self.kind == "section" else (self.kind, self.path)
        )


@dataclass(frozen=True)
class SectionInfo:
    """What routing needs to know about a managed section."""

    id: str
    title: str
    archive: str


def target_value(entry: LearningEntry) -> str | None:
    """The value of the entry's ``Target:`` line, if it has one."""
    for line in entry.body:
        match = _TARGET_LINE.match(line.rstrip("\r\n"))
        if match and match[1]:
            return match[1].strip().strip("`").strip()
    return None


def keyword_route(entry: LearningEntry) -> str | None:
    """``key_decisions``, ``architecture_notes`` or None (the archive topic file)."""
    title = entry.title.casefold()
    body = entry_body(entry).casefold()

    def score(words: frozenset[str], phrases: tuple[str, ...]) -> int:
        total = 0
        for text, weight in ((title, 2), (body, 1)):
            tokens = re.findall(r"[a-z]+", text)
            total += weight * sum(1 for t in tokens if t in words)
            total += weight * sum(text.count(p) for p in phrases)
        return total

    decision = score(_DECISION_WORDS, _DECISION_PHRASES)
    architecture = score(_ARCHITECTURE_WORDS, _ARCHITECTURE_PHRASES)
    if decision == 0 and architecture == 0:
        return None
    return DECISIONS_ID if decision >= architecture else ARCHITECTURE_ID


def _normal_title(title: str) -> str:
    return " ".join(title.split()).casefold()


def route(
    entry: LearningEntry,
    sections: Sequence[SectionInfo],
    config: ConsolidationConfig = DEFAULT_CONFIG,
) -> Route | str:
    """The entry's route, or a one-line problem (the entry then stays in the staging file)."""
    by_key: dict[str, SectionInfo] = {}
    for info in sections:
        by_key[_normal_title(info.title)] = info
        by_key[info.id.casefold()] = info

    def to_section(sec: SectionInfo, explicit: bool) -> Route:
        return Route(
            "section",
            config.archive,
            sec.id,
            explicit,
            f"MEMORY.md § {sec.title} (full text in {config.archive})",
        )

    value = target_value(entry)
    if value is None:
        picked = keyword_route(entry)
        chosen = next((s for s in sections if s.id == picked), None)
        if chosen is not None:
            return to_section(chosen, False)
        return Route("memory", config.archive, None, False, f"{config.archive} (memory folder)")
    head, _, fragment = value.partition("#")
    if head.strip().casefold() in (MEMORY_FILE.casefold(), "memory"):
        if fragment.strip():
            found = by_key.get(_normal_title(fragment))
            if found is None:
                names = ", ".join(s.title for s in sections) or "none"
                return f"Target {value!r}: MEMORY.md has no managed section of that name ({names})"
            return to_section(found, True)
        picked = keyword_route(entry)
        chosen = next((s for s in sections if s.id == picked), None)
        if chosen is None:
            return f"Target {value!r}: name the section, e.g. 'Target: MEMORY.md#Key Decisions'"
        return to_section(chosen, True)
    if value.casefold().startswith("memory:"):
        name = value[len("memory:") :].strip()
        if (
            not name
            or "/" in name
            or "\\" in name
            or name.startswith(".")
            or not name.endswith(".md")
        ):
            return f"Target {value!r}: expected memory:<file name>.md (a topic file, no folders)"
        if name.casefold() == MEMORY_FILE.casefold():
            return f"Target {value!r}: use MEMORY.md#<section> to target MEMORY.md"
        return Route("memory", name, None, True, f"{name} (memory folder)")
    path = normalise_target_path(head.strip())
    if path is None:
        return (
            f"Target {value!r}: expected a markdown file inside the project "
            "(a relative path ending in .md)"
        )
    if posixpath.normcase(path) == posixpath.normcase(posixpath.normpath(config.learnings_file)):
        return f"Target {value!r} is the learnings file itself"
    return Route("project", path, None, True, path)


def normalise_target_path(value: str) -> str | None:
    """A project-relative POSIX path ending in ``.md`` that stays in the project, else None."""
    text = value.replace("\\", "/").strip()
    if not text or text.startswith("/") or re.match(r"^[A-Za-z]:", text) or "\0" in text:
        return None
    path = posixpath.normpath(text)
    if path == ".." or path.startswith("../") or path == "." or not path.endswith(".md"):
        return None
    if path.split("/")[0] == ".git":
        return None
    return path


# -- text that goes into targets ---------------------------------------------------------------


def anchor(title: str) -> str:
    """GitHub-style heading anchor."""
    text = re.sub(r"[^\w\- ]", "", title.casefold())
    return text.strip().replace(" ", "-")


def summary_line(entry: LearningEntry) -> str:
    """The entry's first line of text (markdown markers and links flattened)."""
    for line in split_lines(entry_body(entry)):
        text = line.strip()
        if not text or text.startswith(("```", "~~~", "#")):
            continue
        text = re.sub(r"^([-*+]|\d+[.)])\s+", "", text)
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
        return " ".join(text.split())
    return ""


def section_bullet(entry: LearningEntry, archive: str, today: date) -> str:
    """One line for a MEMORY.md section: date, title, summary and a link to the full text."""
    title = " ".join(entry.title.split())
    fragment = anchor(entry.title)
    link = (
        f" ([full text]({archive}#{fragment}))"
        if len(fragment) <= 60
        else f" ([full text]({archive}))"
    )
    head = f"- {today.isoformat()} {title}"
    room = BULLET_MAX - len(head) - len(link)
    if room < 0:
        head = head[: max(20, BULLET_MAX - len(link) - 1)].rstrip() + "…"
        return head + link
    summary = summary_line(entry)
    if summary and room > 8:
        text = f" — {summary}"
        if len(text) > room:
            text = text[: room - 1].rstrip() + "…"
        head += text
    return head + link


def _ensure_eol(lines: Iterable[str]) -> list[str]:
    out = list(lines)
    if out and not out[-1].endswith("\n"):
        out[-1] += "\n"
    return out


def moved_block(entry: LearningEntry, note: str) -> str:
    """The entry's lines, unchanged, then a note line saying where it came from."""
    lines = _ensure_eol(entry.lines)
    while lines and not lines[-1].strip():
        lines.pop()
    return "".join(lines) + f"<!-- {note} -->\n"


def append_blocks(text: str, blocks: Sequence[str], header: str) -> str:
    """``text`` (or ``header`` for a new file) with ``blocks`` appended, a blank line between
    blocks; a block whose lines are already there verbatim is not appended twice."""
    out = text if text else header
    for block in blocks:
        core = block.rstrip("\n")
        if core and core in out:
            continue
        if out and not out.endswith("\n"):
            out += "\n"
        if out and not out.endswith("\n\n"):
            out += "\n"
        out += block if block.endswith("\n") else block + "\n"
    return out


def remove_entries(text: str, blocks: Sequence[str]) -> tuple[str, list[str]]:
    """``text`` without the entries whose text is in ``blocks`` (each removed once); also the
    blocks that were not found (someone changed them meanwhile)."""
    wanted: dict[str, int] = {}
    for block in blocks:
        wanted[_block_key(block)] = wanted.get(_block_key(block), 0) + 1
    preamble, entries = parse_entries(text)
    kept = list(preamble)
    for entry in entries:
        key = _block_key(entry.text)
        if wanted.get(key, 0) > 0:
            wanted[key] -= 1
            continue
        kept.extend(entry.lines)
    missing = [block for block in blocks if wanted.get(_block_key(block), 0) > 0]
    for block in missing:
        wanted[_block_key(block)] -= 1
    return "".join(kept), missing


def _block_key(text: str) -> str:
    return "\n".join(line.rstrip("\r\n") for line in split_lines(text)).rstrip()


# -- planning ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Decision:
    """What happens to one qualifying entry.

    ``action``: ``consolidate`` (moved to its target), ``drop`` (moved to the dropped file),
    ``escalate`` (left in the staging file, a human decides) or ``keep`` (left in the staging
    file because its target cannot take it).
    """

    title: str
    line: int
    age: int
    added: str
    action: str
    kind: str  # consolidated | superseded | redundant | contradiction | possibly-superseded |
    # possibly-redundant | possible-contradiction | superseded-by-younger | bad-target
    reason: str
    target: str | None = None
    related: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "line": self.line,
            "age": self.age,
            "added": self.added,
            "action": self.action,
            "kind": self.kind,
            "reason": self.reason,
            "target": self.target,
            "related": self.related,
        }


@dataclass
class Plan:
    decisions: list[Decision] = field(default_factory=list)
    # (kind, path) → blocks to append; kind "memory" (memory folder) or "project".
    blocks: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    # section id → bullets to add to that MEMORY.md section.
    bullets: dict[str, list[str]] = field(default_factory=dict)
    # entry texts leaving the staging file (consolidated and dropped), with the decision index.
    removed: list[tuple[int, str]] = field(default_factory=list)
    # for each consolidated/dropped decision index: the files it is written to.
    writes: dict[int, list[tuple[str, str]]] = field(default_factory=dict)

    def by_action(self, action: str) -> list[Decision]:
        return [d for d in self.decisions if d.action == action]


def _newer(ages: Sequence[EntryAge], i: int, j: int) -> bool:
    """Is entry j newer than entry i? By added date (uncommitted is newest), then position."""

    def key(k: int) -> tuple[date, int]:
        added = ages[k].added
        return (added if added is not None else date.max, ages[k].line)

    return key(j) > key(i)


def plan_batch(
    entries: Sequence[LearningEntry],
    ages: Sequence[EntryAge],
    batch: Sequence[int],
    routes: Mapping[int, Route | str],
    target_texts: Mapping[tuple[str, str], str],
    *,
    today: date,
    source: str,
    config: ConsolidationConfig = DEFAULT_CONFIG,
) -> Plan:
    """Decide for every entry of ``batch`` (indices into ``entries``/``ages``).

    ``routes`` has the route (or a problem) of each batch entry; ``target_texts`` maps each
    route's ``key`` to the text entries are checked against (for a section: the section's
    body, its archive and the archive topic file). ``source`` names the staging file in notes.
    """
    plan = Plan()
    profiles = {i: entry_profile(entries[i]) for i in range(len(entries))}
    in_batch = set(batch)
    texts = {key: passages(text, _label(key)) for key, text in target_texts.items()}
    normals = {key: profile(text).normal for key, text in target_texts.items()}

    for i in batch:
        entry, age = entries[i], ages[i]

        def decide(
            action: str,
            kind: str,
            reason: str,
            target: str | None = None,
            related: str | None = None,
            entry: LearningEntry = entry,
            age: EntryAge = age,
        ) -> Decision:
            made = Decision(
                entry.title,
                entry.line,
                age.age,
                age.added_label,
                action,
                kind,
                reason,
                target,
                related,
            )
            plan.decisions.append(made)
            return made

        # 1. supersession by a newer entry of the staging file
        superseded = _supersession(i, entries, ages, profiles, in_batch)
        if superseded is not None:
            kind, j, score = superseded
            other = entries[j].title
            if kind == "superseded":
                decide(
                    "drop",
                    kind,
                    f"superseded by the newer entry {other!r} (same topic, score {score:.2f})",
                    related=other,
                )
                _drop(
                    plan,
                    entry,
                    len(plan.decisions) - 1,
                    today,
                    source,
                    f"superseded by {other!r}",
                    config,
                )
            elif kind == "superseded-by-younger":
                decide(
                    "escalate",
                    kind,
                    f"the newer entry {other!r} says otherwise but is under {config.freshness} "
                    "active days old: decide which one holds",
                    related=other,
                )
            else:
                decide(
                    "escalate",
                    kind,
                    f"may be superseded by the newer entry {other!r} (same-topic score "
                    f"{score:.2f}, in the grey zone)",
                    related=other,
                )
            continue

        # 2. a target it can go to
        found = routes.get(i)
        if found is None or isinstance(found, str):
            decide("keep", "bad-target", found or "no route")
            continue
        key = found.key
        prof = profiles[i]

        # 3. contradiction with the target (never dropped)
        best: tuple[float, Passage] | None = None
        for passage in texts.get(key, []):
            if not clash(prof, passage.profile):
                continue
            score = topic_score(prof, passage.profile)
            if best is None or score > best[0]:
                best = (score, passage)
        if best is not None and best[0] >= GREY_TOPIC:
            sure = best[0] >= SAME_TOPIC
            words = ", ".join(sorted(clash(prof, best[1].profile)))
            decide(
                "escalate",
                "contradiction" if sure else "possible-contradiction",
                f"{'contradicts' if sure else 'may contradict'} {found.label}: "
                f"{quote(best[1].text)!r} (opposite on: {words}; score {best[0]:.2f})",
                target=found.label,
                related=quote(best[1].text),
            )
            continue

        # 4. redundancy with the target
        cover: tuple[float, Passage] | None = None
        for passage in texts.get(key, []):
            share = coverage(prof, passage.profile)
            if cover is None or share > cover[0]:
                cover = (share, passage)
        if contained(prof, normals.get(key, "")) or (
            cover is not None and prof.size >= 3 and cover[0] >= REDUNDANT
        ):
            where = quote(cover[1].text) if cover is not None else ""
            decide(
                "drop",
                "redundant",
                f"already in {found.label}" + (f": {where!r}" if where else ""),
                target=found.label,
                related=where or None,
            )
            _drop(
                plan,
                entry,
                len(plan.decisions) - 1,
                today,
                source,
                f"redundant with {found.label}",
                config,
            )
            continue
        if cover is not None and prof.size >= 3 and cover[0] >= GREY_REDUNDANT:
            decide(
                "escalate",
                "possibly-redundant",
                f"{found.label} may already say this ({cover[0]:.0%} of its words in "
                f"{quote(cover[1].text)!r}); consolidate or delete it by hand",
                target=found.label,
                related=quote(cover[1].text),
            )
            continue

        # 5. consolidate
        decide("consolidate", "consolidated", f"moved to {found.label}", target=found.label)
        index = len(plan.decisions) - 1
        note = (
            f"consolidated by pokayokay on {today.isoformat()} from {source}"
            f" (added {age.added_label})"
        )
        block = moved_block(entry, note)
        file_key = (
            ("memory", config.archive) if found.kind == "section" else (found.kind, found.path)
        )
        plan.blocks.setdefault(file_key, []).append(block)
        plan.writes[index] = [file_key]
        if found.kind == "section" and found.section_id is not None:
            bullet = section_bullet(entry, config.archive, today)
            plan.bullets.setdefault(found.section_id, []).append(bullet)
            plan.writes[index].append(("section", found.section_id))
        plan.removed.append((index, entry.text))
        # later entries of the batch are checked against this one too: under its own route,
        # and, when its full text lands in the archive, under every route checked against it
        archive_key = ("memory", config.archive)
        related = {key}
        if file_key == archive_key:
            related |= {k for k in texts if k[0] == "section" or k == archive_key}
        added = passages(entry.text, found.label)
        normal = profile(entry.text).normal
        for linked in related:
            texts.setdefault(linked, []).extend(added)
            normals[linked] = normals.get(linked, "") + " " + normal
    return plan


def _label(key: tuple[str, str]) -> str:
    kind, path = key
    return f"MEMORY.md § {path}" if kind == "section" else path


def _drop(
    plan: Plan,
    entry: LearningEntry,
    index: int,
    today: date,
    source: str,
    why: str,
    config: ConsolidationConfig,
) -> None:
    note = f"dropped by pokayokay on {today.isoformat()} from {source}: {why}"
    key = ("memory", config.dropped)
    plan.blocks.setdefault(key, []).append(moved_block(entry, note))
    plan.writes[index] = [key]
    plan.removed.append((index, entry.text))


def _supersession(
    i: int,
    entries: Sequence[LearningEntry],
    ages: Sequence[EntryAge],
    profiles: Mapping[int, Profile],
    in_batch: set[int],
) -> tuple[str, int, float] | None:
    """The strongest newer entry that negates or replaces entry ``i``, as (kind, index, score)."""
    best: tuple[str, int, float] | None = None
    mine = profiles[i]
    for j in range(len(entries)):
        if j == i or not _newer(ages, i, j):
            continue
        theirs = profiles[j]
        conflict = bool(clash(mine, theirs)) or (theirs.replaces and not mine.replaces)
        if not conflict:
            continue
        score = topic_score(mine, theirs)
        if score < GREY_TOPIC:
            continue
        if score >= SAME_TOPIC:
            kind = "superseded" if j in in_batch else "superseded-by-younger"
        else:
            kind = "possibly-superseded"
        rank = {"superseded": 2, "superseded-by-younger": 2, "possibly-superseded": 1}
        if best is None or (rank[kind], score) > (rank[best[0]], best[2]):
            best = (kind, j, score)
    return best


# -- split -------------------------------------------------------------------------------------

INDEX_START = "<!-- pokayokay parts -->"
INDEX_END = "<!-- /pokayokay parts -->"
_PART_NAME = re.compile(r"^(?P<stem>.+)-part-(?P<n>\d+)\.md$")


@dataclass(frozen=True)
class SplitResult:
    original: str
    parts: tuple[tuple[str, str], ...]  # (file name, text), in order

    def line_counts(self) -> dict[str, int]:
        return {name: count_lines(text) for name, text in self.parts}


def part_name(name: str, number: int) -> str:
    stem = name[:-3] if name.endswith(".md") else name
    return f"{stem}-part-{number}.md"


def part_numbers(name: str, siblings: Iterable[str]) -> list[int]:
    """Numbers of the existing parts of ``name`` among the file names ``siblings``."""
    stem = name[:-3] if name.endswith(".md") else name
    out = []
    for sibling in siblings:
        match = _PART_NAME.match(sibling)
        if match and match["stem"] == stem:
            out.append(int(match["n"]))
    return sorted(out)


def _frontmatter(preamble: Sequence[str]) -> list[str]:
    if not preamble or preamble[0].strip() != "---":
        return []
    for k in range(1, len(preamble)):
        if preamble[k].strip() == "---":
            return list(preamble[: k + 1])
    return []


def _group_cost(size: int, low: int, high: int) -> float:
    middle = (low + high) / 2
    if low <= size <= high:
        return (size - middle) ** 2
    miss = low - size if size < low else size - high
    return 1e9 + miss * 1e6


def _partition(
    sizes: Sequence[int], first_extra: int, extra: int, low: int, high: int
) -> list[int]:
    """Start indices of contiguous groups of ``sizes`` (at least two groups) minimising how far
    each group's size (plus its overhead) is from the middle of [low, high]. Deterministic."""
    n = len(sizes)
    prefix = [0]
    for size in sizes:
        prefix.append(prefix[-1] + size)
    inf = float("inf")
    # single[j]: sizes[0:j] as the first group alone; multi[j]: sizes[0:j] as two or more groups.
    single = [inf] + [_group_cost(first_extra + prefix[j], low, high) for j in range(1, n + 1)]
    multi = [inf] * (n + 1)
    back: list[tuple[int, bool]] = [(0, False)] * (n + 1)
    for j in range(2, n + 1):
        for i in range(j - 1, 0, -1):
            span = extra + prefix[j] - prefix[i]
            cost = _group_cost(span, low, high)
            for before, is_multi in ((single[i], False), (multi[i], True)):
                if before + cost < multi[j]:
                    multi[j], back[j] = before + cost, (i, is_multi)
            if span > high * 4:
                break
    starts = []
    j = n
    while True:
        i, is_multi = back[j]
        starts.append(i)
        if not is_multi:
            starts.append(0)
            break
        j = i
    return sorted(starts)


def split_file(
    text: str,
    name: str,
    *,
    existing_parts: Iterable[int] = (),
    config: ConsolidationConfig = DEFAULT_CONFIG,
    copy_frontmatter: bool = False,
) -> SplitResult | None:
    """Split ``text`` (the file ``name``) at H2 boundaries when it has ``split_at`` lines or
    more; None when it is shorter or has fewer than two H2 sections.

    The original keeps its preamble, gains (or extends) an index of the parts and keeps the
    first group of sections; the other groups go to ``<stem>-part-N.md`` (N after the highest
    existing part), each opening with a cross-reference line. With ``copy_frontmatter`` (rule
    files, whose ``paths:`` must keep applying) each part repeats the original's frontmatter.
    Every line of ``text`` is in the result; the same input always gives the same output.
    """
    if count_lines(text) < config.split_at:
        return None
    if not text.endswith("\n"):
        text += "\n"
    preamble, sections = parse_entries(text)
    if len(sections) < 2:
        return None
    front = _frontmatter(preamble) if copy_frontmatter else []
    sizes = [len(s.lines) for s in sections]
    total = sum(sizes) + len(preamble)
    guess = max(1, round(total / ((config.part_min + config.part_max) / 2)) - 1)
    has_index = any(line.strip() == INDEX_START for line in preamble)
    first_extra = len(preamble) + guess + (0 if has_index else 5)
    extra = len(front) + 2
    starts = _partition(sizes, first_extra, extra, config.part_min, config.part_max)
    if len(starts) < 2:
        return None
    groups = [sections[a:b] for a, b in zip(starts, [*starts[1:], len(sections)], strict=True)]
    first = max([1, *existing_parts]) + 1
    newline = "\r\n" if text.count("\r\n") * 2 >= text.count("\n") > 0 else "\n"
    parts: list[tuple[str, str]] = []
    index_lines: list[str] = []
    for offset, group in enumerate(groups[1:]):
        part = part_name(name, first + offset)
        xref = (
            f"> Part {first + offset} of [{name}]({name}), split by pokayokay at H2 boundaries; "
            f"the list of parts is at the top of {name}.{newline}"
        )
        lines = [*front, xref, newline]
        for section in group:
            lines.extend(section.lines)
        parts.append((part, "".join(lines)))
        titles = f"{group[0].title} … {group[-1].title}" if len(group) > 1 else group[0].title
        index_lines.append(f"- [{part}]({part}): {titles} ({len(group)} entries){newline}")
    head = list(preamble)
    if has_index:
        end = next(
            (k for k, line in enumerate(head) if line.strip() == INDEX_END),
            len(head),
        )
        head[end:end] = index_lines
    else:
        while head and not head[-1].strip():
            head.pop()
        if head:
            if not head[-1].endswith("\n"):
                head[-1] += newline
            head.append(newline)
        head += [
            f"{INDEX_START}{newline}",
            f"This file is split into parts (every line kept; newest parts last):{newline}",
            *index_lines,
            f"{INDEX_END}{newline}",
            newline,
        ]
    for section in groups[0]:
        head.extend(section.lines)
    return SplitResult("".join(head), tuple(parts))
