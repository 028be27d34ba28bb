"""Rule graduation: recurring failures become path-scoped rules Claude Code loads (pure).

:func:`plan_graduation` reads the failure groups of the state store and the current pokayokay rule
files, and returns a :class:`GraduationPlan`: the text of every rule file to write, the Active
Patterns entries pointing at them, the ``recurring-failures.md`` topic file, and the failures one
session short of graduating. :func:`edit_memory` applies the plan's entries to MEMORY.md text and
:func:`check_memory_edit` verifies that edit; ``graduation_run`` does the I/O.

**Which groups graduate.** A group (one failure signature) graduates when it failed in at least
``threshold`` distinct sessions. Once listed in a rule it stays there (re-graduation keeps it up to
date even if the threshold is later raised) until the rule is retired.

**Which file.** One rule file per mistake family (:mod:`pokayokay.rules.families`: the same
tool and code, the same test module, the same exception class, or the same correction), named
from the family (``.claude/rules/pokayokay/ruff-f401-e36ad870.md``), so unrelated mistakes never
share a file; its ``paths:`` list the family's failure and fix files one by one
(:func:`pokayokay.rules.globs.listed_globs`). The rule id is the file stem and never changes: a
signature already listed in a rule's bookkeeping comment stays in that rule as long as the rule
keeps its family, so re-graduation updates files in place and never creates a duplicate. A rule
written before families (one per category, several families in one file) keeps its name and the
family of its strongest mistake; its other families move to their own files, and the user's
notes below its end line stay where they are. At most :data:`MAX_RULE_FILES` rule files: a
family beyond that stays in ``recurring-failures.md`` (said so there and in the plan's notes)
until a rule is retired. A file under ``.claude/rules/pokayokay/`` without pokayokay's
bookkeeping comment is never overwritten, and its name is not reused.

**What a rule says** (``templates/rule.md.j2``): YAML frontmatter with ``paths:`` (a list of
quoted root-anchored globs from :func:`pokayokay.rules.globs.derive_globs`), a title naming the
mistake (``ruff F401 in src/shop/``, ``Failing test tests/x.py::test_y``), then per mistake (at
most three, the rest named on one line): one sentence that teaches it
(:mod:`pokayokay.rules.teaching`: the corrected command or the file to change, in pokayokay's
words) and one evidence line (sessions, last day, the error line, the fixing edit), with the
fixing edit's ``was:``/``now:`` lines; where no fix was seen, one line of what is known. Never
the failing command as the remedy (:mod:`pokayokay.rules.evidence`). At most
:data:`MAX_RULE_LINES` lines: fewer mistakes and shorter excerpts are tried until it fits.

**Which evidence yields a rule.** Only evidence naming a file in the project; a group without one
stays in ``recurring-failures.md``. The exception is an *environment lesson* (the group's main
correction changes how the command is run: interpreter, virtual environment, runner, variable):
those form the ``environment`` rule, without ``paths:``, so it loads at the start of every
session, worded by pokayokay around the corrected command, and its Active Patterns entry carries
the first lesson itself.

The bookkeeping line ``<!-- pokayokay-rule: id=…; signatures=…; graduated=… -->`` lists the
signatures' short ids (:func:`pokayokay.failures.signature.short_id`); Claude Code strips HTML
comments before the model sees the rule. Lines a user adds below the closing
``<!-- pokayokay-rule-end … -->`` line are kept on every update. Everything quoted from tool
output, commands or edits is redacted and quoted exactly in code spans, or left out
(:mod:`pokayokay.safety`).

A rule's session count is the largest of its signatures' counts: a lower bound of the distinct
sessions, since the store counts sessions per signature.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime, time, timezone
from pathlib import PurePosixPath

from pokayokay.failures.model import FailureGroup
from pokayokay.failures.signature import short_id
from pokayokay.infra.templating import render
from pokayokay.names import RECURRING_FAILURES_FILE, RULES_ARCHIVE_FILE
from pokayokay.rules.evidence import (
    ENVIRONMENT,
    budgets,
    category_title,
    command_evidence,
    environment_lesson,
    environment_lines,
    failure_paths,
    group_order,
    label,
    lesson_of,
    mistake_section,
    rule_title,
    shown_folder,
    shown_path,
    shown_paths,
    utc_day,
    where_text,
)
from pokayokay.rules.families import Family, group_families
from pokayokay.rules.globs import derive_globs, listed_globs
from pokayokay.rules.rule_text import BOOKKEEPING_RE, RuleMeta, parse_bookkeeping, user_tail
from pokayokay.rules.team_view import TeamView
from pokayokay.safety.redact import redact

__all__ = [
    "ACTIVE_PATTERNS_ID",
    "DEFAULT_THRESHOLD",
    "RECURRING_FILE",
    "RULES_DIR",
    "GraduationPlan",
    "RuleFile",
    "plan_graduation",
]

RULES_DIR = ".claude/rules/pokayokay"
RECURRING_FILE = RECURRING_FAILURES_FILE
RULES_ARCHIVE = RULES_ARCHIVE_FILE  # retired rules, in the memory folder
ACTIVE_PATTERNS_ID = "active_patterns"
DEFAULT_THRESHOLD = 3
RECURRING_TOP = 50
MAX_PATHS_SHOWN = 5
MAX_RULE_FILES = 30  # pokayokay rule files in a project (see docs/decisions/0101)
MAX_RULE_LINES = 40  # a rule's text above its end marker, frontmatter included

TOPIC_LINK_LINE = (
    f"- [Recurring failures]({RECURRING_FILE}) — failures pokayokay saw in several sessions, "
    "with counts and fixes"
)
_ID_RE = re.compile(r"[a-z0-9][a-z0-9-]*")

# --------------------------------------------------------------------------------------------
# Values


@dataclass(frozen=True)
class RuleFile:
    """One rule file as it should be after graduation."""

    id: str
    path: str  # project-relative: .claude/rules/pokayokay/<id>.md
    category: str
    globs: tuple[str, ...]  # () when project-wide (no `paths:`)
    groups: tuple[FailureGroup, ...]
    signatures: tuple[str, ...]  # short ids, sorted
    sessions: int
    occurrences: int
    first_seen: date
    last_seen: date
    graduated: date
    text: str
    old_text: str | None  # the file's text the plan was made from; None for a new file
    entry: str  # its Active Patterns entry (one line, no line terminator)

    @property
    def changed(self) -> bool:
        return self.text != self.old_text


@dataclass(frozen=True)
class GraduationPlan:
    threshold: int
    today: date
    rules: tuple[RuleFile, ...]  # sorted by id
    recurring_failures: str  # the text of <memory>/recurring-failures.md
    near_threshold: tuple[FailureGroup, ...]  # sessions == threshold - 1, not in a rule yet
    untouched: tuple[str, ...] = ()  # existing pokayokay rules without current evidence
    notes: tuple[str, ...] = ()
    recorded: int = 0  # failure groups seen at all (no topic file while there are none)

    @property
    def active_patterns(self) -> tuple[str, ...]:
        """The Active Patterns entries, one per rule, in rule order (no line terminators)."""
        return tuple(rule.entry for rule in self.rules)

    def rule(self, rule_id: str) -> RuleFile | None:
        for rule in self.rules:
            if rule.id == rule_id:
                return rule
        return None


# --------------------------------------------------------------------------------------------
# Reading existing rules


# --------------------------------------------------------------------------------------------
# Formatting


# --------------------------------------------------------------------------------------------
# Planning


@dataclass
class _Rule:
    id: str
    category: str
    groups: list[FailureGroup] = field(default_factory=list)
    meta: RuleMeta | None = None
    old_text: str | None = None


def _common_folder(paths: Sequence[str]) -> str:
    """The deepest folder holding every path ("" when that is the project root)."""
    folders = [p.rpartition("/")[0].split("/") if "/" in p else [] for p in paths]
    if not folders or any(not f for f in folders):
        return ""
    common: list[str] = []
    for parts in zip(*folders, strict=False):
        if len(set(parts)) != 1:
            break
        common.append(parts[0])
    return "/".join(common)


_NO_META = RuleMeta("", (), None)


def _free_id(wanted: str, taken: set[str]) -> str:
    candidate = wanted
    n = 2
    while candidate in taken:
        candidate = f"{wanted}-{n}"
        n += 1
    taken.add(candidate)
    return candidate


def may_graduate(group: FailureGroup) -> bool:
    """Only evidence naming a project file yields a rule, or an environment lesson (which
    loads everywhere, in pokayokay's words around the corrected command). ``report`` asks the
    same question, so that it never calls "ready" what ``graduate`` leaves alone."""
    return group.category == ENVIRONMENT or environment_lesson(group) or bool(failure_paths(group))


class _Planner:
    def __init__(
        self,
        groups: Sequence[FailureGroup],
        threshold: int,
        project_files: Sequence[str],
        existing_rules: Mapping[str, str],
        today: date,
        retired: Mapping[str, date | datetime] | None = None,
        team: TeamView | None = None,
    ) -> None:
        self.team = team
        # An environment lesson (the mistake is how a command is run) is its own category.
        self.groups = sorted(
            (g._replace(category=ENVIRONMENT) if environment_lesson(g) else g for g in groups),
            key=lambda g: (g.category, g.signature),
        )
        self.retired = {sig: _retired_at(when) for sig, when in (retired or {}).items()}
        self.threshold = threshold
        self.project_files = project_files
        self.today = today
        self.notes: list[str] = []
        self.taken: set[str] = set()
        self.rules: dict[str, _Rule] = {}
        for path in sorted(existing_rules):
            stem = PurePosixPath(path.replace("\\", "/")).stem
            text = existing_rules[path]
            self.taken.add(stem)
            meta = parse_bookkeeping(text)
            if meta is None:
                self.notes.append(
                    f"{path} has no pokayokay bookkeeping line, so pokayokay leaves it alone"
                )
                continue
            if not _ID_RE.fullmatch(stem):
                self.notes.append(f"{path}: not a rule name pokayokay writes; left alone")
                continue
            self.rules[stem] = _Rule(stem, "", meta=meta, old_text=text)
        self.capped: set[str] = set()  # short ids of families beyond MAX_RULE_FILES
        self.owner: dict[str, str] = {}
        for rule_id in sorted(self.rules):
            meta = self.rules[rule_id].meta
            assert meta is not None
            for sid in meta.signatures:
                self.owner.setdefault(sid, rule_id)

    def assign(self) -> None:
        """Each family's qualifying groups (listed in a rule already, or failed in enough
        sessions and not retired) into the family's rule: an existing one, else a new file."""
        eligible = [g for g in self.groups if self.may_graduate(g)]
        families = []
        for family in group_families(eligible):
            qualifying = tuple(
                g
                for g in family.groups
                if (
                    short_id(g.signature) in self.owner
                    # a teammate's tombstone retires an existing rule too
                    and not (self.team is not None and self.is_retired(g))
                )
                or (
                    not self.is_retired(g)
                    and (
                        g.sessions >= self.threshold
                        or (self.team is not None and g.signature in self.team.graduating)
                    )
                )
            )
            if qualifying:
                families.append(Family(family.key, family.stem, qualifying))
        homes = self.homes(families)
        # New files in order of strength, while the count of rule files stays bounded.
        count = sum(1 for r in self.rules.values() if r.meta is not None)
        for family in sorted(families, key=lambda f: group_order(f.groups[0])):
            rule = homes.get(family.key)
            if rule is None:
                dormant = self.rules.get(family.stem)
                if dormant is not None and not dormant.groups:
                    rule = dormant
                elif count >= MAX_RULE_FILES and not any(
                    short_id(g.signature) in self.owner for g in family.groups
                ):  # a family graduated before (a migrated one) always keeps a rule
                    self.capped.update(short_id(g.signature) for g in family.groups)
                    continue
                else:
                    rule = _Rule(_free_id(family.stem, self.taken), family.groups[0].category)
                    self.rules[rule.id] = rule
                    count += 1
            rule.groups.extend(family.groups)
        if self.capped:
            self.notes.append(
                f"{len(self.capped)} mistake(s) wait in {RECURRING_FILE}: pokayokay keeps at "
                f"most {MAX_RULE_FILES} rule files (retiring one makes room)"
            )
        for rule in self.rules.values():
            if rule.groups:
                counts = Counter(g.category for g in rule.groups)
                rule.category = min(counts, key=lambda c: (-counts[c], c))

    def homes(self, families: Sequence[Family]) -> dict[str, _Rule]:
        """The existing rule each family stays in: every (rule, family it lists) pair, by the
        strength of the rule's strongest mistake of that family (then rule id), taken while
        neither is placed yet. So a rule keeps one family, that of its strongest mistake when
        no stronger listing claimed it first, else its next one; the environment rule holds
        environment lessons only, and only it."""
        family_of = {short_id(g.signature): f for f in families for g in f.groups}
        pairs: list[tuple[tuple[int, int, float, str], str, Family]] = []
        for rule_id in sorted(self.rules):
            meta = self.rules[rule_id].meta or _NO_META
            best: dict[str, tuple[tuple[int, int, float, str], Family]] = {}
            for sid in meta.signatures:
                family = family_of.get(sid)
                if family is None or (family.key == ENVIRONMENT) != rule_id.startswith(
                    ENVIRONMENT
                ):
                    continue
                strength = min(
                    group_order(g) for g in family.groups if short_id(g.signature) == sid
                )
                if family.key not in best or strength < best[family.key][0]:
                    best[family.key] = (strength, family)
            pairs.extend((strength, rule_id, family) for strength, family in best.values())
        homes: dict[str, _Rule] = {}
        placed: set[str] = set()
        for _, rule_id, family in sorted(pairs, key=lambda p: (p[0], p[1], p[2].key)):
            if rule_id not in placed and family.key not in homes:
                homes[family.key] = self.rules[rule_id]
                placed.add(rule_id)
        return homes

    @staticmethod
    def may_graduate(group: FailureGroup) -> bool:
        return may_graduate(group)

    def is_retired(self, group: FailureGroup) -> bool:
        """Its rule was retired at moment R and it has not failed after R (old evidence): a
        comparison of timestamps, so failures later on the very day of retirement count."""
        at = self.retired.get(short_id(group.signature), self.retired.get(group.signature))
        return at is not None and group.last_seen <= at

    def build(self, rule: _Rule) -> RuleFile:
        groups = sorted(rule.groups, key=group_order)
        environment = rule.category == ENVIRONMENT
        evidence = sorted({p for g in groups for p in failure_paths(g)})
        globs = () if environment or not evidence else _globs(evidence, self.project_files)
        sessions = max(g.sessions for g in groups)
        occurrences = sum(g.occurrences for g in groups)
        first = utc_day(min(g.first_seen for g in groups))
        last = utc_day(max(g.last_seen for g in groups))
        graduated = (rule.meta.graduated if rule.meta else None) or self.today
        teammates = 0
        if self.team is not None:  # the same evidence dates the rule the same on every clone
            graduated = last
            teammates = max(self.team.teammates.get(g.signature, 0) for g in groups)
        signatures = tuple(sorted({short_id(g.signature) for g in groups}))
        category = category_title(rule.category) or "recurring"
        folder = _common_folder(evidence) if globs else ""
        title = rule_title(groups, category, shown_folder(folder), environment)
        text = ""
        for shown, edit_lines in budgets(len(groups)):
            text = render(
                "rule.md.j2",
                id=rule.id,
                title=title,
                environment=environment,
                globs=globs,
                signatures=signatures,
                graduated=graduated.isoformat(),
                mistakes=[mistake_section(g, rule.category, edit_lines) for g in groups[:shown]],
                more=[label(g) for g in groups[shown:]][:5],
                more_count=max(0, len(groups) - shown),
                lessons=[line for g in groups for line in environment_lines(g)][:shown * 2],
                sessions=sessions,
                teammates=teammates,
                occurrences=occurrences,
                first=first.isoformat(),
                last=last.isoformat(),
                where=where_text(globs, 12),
            )
            if text.count("\n") <= MAX_RULE_LINES:
                break
        if rule.old_text is not None:
            text += user_tail(rule.old_text)
        path = f"{RULES_DIR}/{rule.id}.md"
        plural = "s" if sessions != 1 else ""
        if environment:
            # the teaching sentence itself, on one line (its evidence stays in the rule)
            sentence = next(
                (
                    line[2:].rstrip(".")
                    for g in groups
                    for line in environment_lines(g)
                    if line.startswith("- ")
                ),
                "How commands run here",
            )
            entry = (
                f"- {sentence}; see {path} "
                f"({sessions} session{plural}, since {first.isoformat()})"
            )
        else:
            entry = (
                f"- {title}: see {path} "
                f"({sessions} session{plural}, since {first.isoformat()})"
            )
        return RuleFile(
            id=rule.id,
            path=path,
            category=rule.category,
            globs=globs,
            groups=tuple(groups),
            signatures=signatures,
            sessions=sessions,
            occurrences=occurrences,
            first_seen=first,
            last_seen=last,
            graduated=graduated,
            text=text,
            old_text=rule.old_text,
            entry=entry,
        )

    def recurring(self, built: Sequence[RuleFile]) -> str:
        rule_of = {sid: rule.path for rule in built for sid in rule.signatures}
        ranked = sorted((g for g in self.groups if g.sessions > 0), key=group_order)
        blocks = []
        for group in ranked[:RECURRING_TOP]:
            sid = short_id(group.signature)
            if sid in rule_of:
                status = f"graduated into {rule_of[sid]}"
            elif sid in self.capped:
                status = f"waiting: pokayokay keeps at most {MAX_RULE_FILES} rule files"
            elif not self.may_graduate(group):
                status = "no rule: the evidence names no file in this project"
            elif group.sessions == self.threshold - 1:
                status = "one session short of graduating into a rule"
            else:
                status = f"{group.sessions} of {self.threshold} sessions needed for a rule"
            paths = _shown_paths(group.paths, MAX_PATHS_SHOWN)
            lesson = lesson_of(group)
            blocks.append(
                {
                    "category": category_title(group.category) or "recurring",
                    "sessions": group.sessions,
                    "occurrences": group.occurrences,
                    "first": utc_day(group.first_seen).isoformat(),
                    "last": utc_day(group.last_seen).isoformat(),
                    "mistake": label(group),
                    "command": command_evidence(group.sample_command)
                    if group.sample_command
                    else None,
                    "paths": paths,
                    "lesson": lesson.sentence,
                    "evidence": lesson.evidence,
                    "status": status,
                    "signature": sid,
                }
            )
        return render(
            "recurring-failures.md.j2",
            blocks=blocks,
            shown=len(blocks),
            total=len(ranked),
            threshold=self.threshold,
        )

    def plan(self) -> GraduationPlan:
        self.assign()
        # Secrets redacted in the finished texts (rules load into every session and are
        # committed): whatever the evidence or a hand-written note below the end marker held.
        built = [
            replace(rule, text=_redacted(rule.text), entry=redact(rule.entry))
            for rule in (self.build(r) for _, r in sorted(self.rules.items()) if r.groups)
        ]
        in_rules = {sid for rule in built for sid in rule.signatures}
        near = tuple(
            g
            for g in sorted(self.groups, key=group_order)
            if g.sessions == self.threshold - 1
            and self.may_graduate(g)
            and short_id(g.signature) not in in_rules
            and not self.is_retired(g)
        )
        untouched = tuple(sorted(rid for rid, r in self.rules.items() if not r.groups))
        return GraduationPlan(
            threshold=self.threshold,
            today=self.today,
            rules=tuple(built),
            recurring_failures=redact(self.recurring(built)),
            near_threshold=near,
            untouched=untouched,
            notes=tuple(self.notes),
            recorded=sum(1 for g in self.groups if g.sessions > 0),
        )


def _redacted(text: str) -> str:
    """``text`` redacted, except pokayokay's own bookkeeping line: its id is a family's stem
    (``[a-z0-9-]``, a slug and a hash suffix, which the high-entropy row would take for a
    token) and its signatures are short hex ids; nothing there is quoted from anywhere."""
    match = BOOKKEEPING_RE.search(text)
    if match is None:
        return redact(text)
    return redact(text[: match.start()]) + match[0] + redact(text[match.end() :])


def _globs(evidence: Sequence[str], project_files: Sequence[str]) -> tuple[str, ...]:
    """The family's files one by one; grouped (:func:`derive_globs`) when a file name could
    not be shown in the rule's text (it speaks to the reader: ``evidence.shown_path``)."""
    if all(shown_path(path) is not None for path in evidence):
        return listed_globs(evidence, project_files)
    return derive_globs(evidence, project_files)


def _shown_paths(paths: Sequence[str], limit: int) -> list[str]:
    return shown_paths(paths, limit)


def _retired_at(when: date | datetime) -> float:
    """A retirement moment as a Unix timestamp (a bare date: the end of that day, UTC)."""
    if isinstance(when, datetime):
        return (when if when.tzinfo else when.replace(tzinfo=timezone.utc)).timestamp()
    return datetime.combine(when, time.max, timezone.utc).timestamp()


def plan_graduation(
    groups: Sequence[FailureGroup],
    *,
    threshold: int = DEFAULT_THRESHOLD,
    project_files: Sequence[str],
    existing_rules: Mapping[str, str],
    today: date,
    retired: Mapping[str, date | datetime] | None = None,
    team: TeamView | None = None,
) -> GraduationPlan:
    """Plan the rule files, Active Patterns entries and topic file for ``groups``.

    ``existing_rules`` maps the path of each file under ``.claude/rules/pokayokay/`` to its text;
    ``project_files`` lists the project's files (project-relative, e.g. ``git ls-files``);
    ``today`` dates newly graduated rules. ``retired`` maps signatures (short ids) of retired
    rules to the moment they were retired (:func:`parse_retired`; a bare date counts as the
    end of that day): such a signature graduates again only when it failed after that moment,
    so old evidence never resurrects a retired rule; a signature an existing rule lists stays
    in it regardless. ``team`` (team memory) adds the team's graduation rule, the teammates
    in the evidence line, and dates taken from the evidence. Pure and deterministic.
    """
    if threshold < 1:
        raise ValueError("the graduation threshold must be at least 1")
    return _Planner(
        groups, threshold, project_files, existing_rules, today, retired, team
    ).plan()


# --------------------------------------------------------------------------------------------
# MEMORY.md: the Active Patterns entries (and the topic file's link)


