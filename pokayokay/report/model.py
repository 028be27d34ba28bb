"""The report's content, built from values (pure): MEMORY.md against its budgets, each rule with
its evidence and effect, failures per week, failures near the graduation threshold, learnings
added and reinforced over the period. Renderers (:mod:`pokayokay.report.text`,
:mod:`pokayokay.report.html`) only lay this out.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone

from pokayokay.errors import PokayokayError
from pokayokay.failures.model import Failure, FailureGroup
from pokayokay.failures.store_reads import RuleLoad
from pokayokay.learnings.model import Learning
from pokayokay.memory.measures import FileStat
from pokayokay.rules.graduation import may_graduate
from pokayokay.rules.rule_evidence import RuleEvidence, groups_of

DEFAULT_SINCE = "7d"
MIN_WEEKS, MAX_WEEKS = 8, 26
_SINCE = re.compile(r"^\s*(\d{1,4})\s*([hdw])\s*$", re.I)
_UNITS = {"h": ("hour", timedelta(hours=1)), "d": ("day", timedelta(days=1)),
          "w": ("week", timedelta(weeks=1))}


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 session``, ``2 sessions`` (``many``: an irregular plural)."""
    return f"{count} {word if count == 1 else many or word + 's'}"


def times(count: int) -> str:
    """``once``, ``twice``, ``3 times``."""
    return {1: "once", 2: "twice"}.get(count, f"{count} times")


@dataclass(frozen=True)
class Period:
    start: datetime
    end: datetime
    label: str  # "the last 7 days", "since 2026-11-01"


def parse_since(value: str, now: datetime) -> Period:
    """``7d``, ``12h``, ``2w`` or a date (``2026-11-01``) into the period ending ``now``."""
    found = _SINCE.match(value)
    if found:
        count, unit = int(found.group(1)), found.group(2).lower()
        if count < 1:
            raise PokayokayError(f"--since {value}: the period must be at least 1 {unit}")
        name, step = _UNITS[unit]
        label = f"the last {count} {name}s" if count != 1 else f"the last {name}"
        return Period(now - step * count, now, label)
    try:
        day = date.fromisoformat(value.strip())
    except ValueError:
        raise PokayokayError(
            f"--since {value}: give a period such as 7d, 12h or 2w, or a date (YYYY-MM-DD)"
        ) from None
    start = datetime(day.year, day.month, day.day, tzinfo=timezone.utc)
    if start > now:
        raise PokayokayError(f"--since {value}: that date is in the future")
    return Period(start, now, f"since {day.isoformat()}")


@dataclass(frozen=True)
class Budget:
    """One bar: ``used`` of ``limit`` (lines or bytes)."""

    label: str
    used: int
    limit: int
    unit: str
    note: str = ""

    @property
    def over(self) -> bool:
        return self.used > self.limit

    @property
    def ratio(self) -> float:
        return self.used / self.limit if self.limit > 0 else 0.0


@dataclass(frozen=True)
class RuleRow:
    evidence: RuleEvidence
    loads_in_period: int
    recurrences_in_period: int

    @property
    def where(self) -> str:
        paths = self.evidence.paths
        return ", ".join(paths) if paths else "every session"


@dataclass(frozen=True)
class Week:
    start: date
    failures: int
    sessions: int
    in_period: bool


@dataclass(frozen=True)
class NearRow:
    group: FailureGroup
    id: str
    threshold: int
    rule_possible: bool = True  # graduation.may_graduate: its evidence can make a rule

    @property
    def waiting(self) -> bool:
        """At or past the threshold but not graduated yet (`pokayokay graduate` would)."""
        return self.group.sessions >= self.threshold and self.rule_possible

    @property
    def state(self) -> str:
        """What ``pokayokay graduate`` would do with it, in the words of its own summary."""
        if not self.rule_possible:
            return "no rule: the evidence names no file in this project"
        return "ready: run `pokayokay graduate`" if self.waiting else "one session short"


@dataclass
class Report:
    project: str
    generated: datetime
    period: Period
    threshold: int
    memory_file: str
    budgets: list[Budget] = field(default_factory=list)
    memory_over: bool = False
    # What the headline says of an over-limit MEMORY.md: `curate` only when it would fix it.
    memory_advice: str = ""
    rules: list[RuleRow] = field(default_factory=list)
    weeks: list[Week] = field(default_factory=list)
    near: list[NearRow] = field(default_factory=list)
    # the learnings themselves, as rules and near rows hold their evidence and group
    added: list[Learning] = field(default_factory=list)
    reinforced: list[Learning] = field(default_factory=list)
    learnings_total: int = 0
    failures_in_period: int = 0
    failure_sessions_in_period: int = 0
    loads_in_period: int = 0
    store_available: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def graduated_rules(self) -> list[RuleRow]:
        return [row for row in self.rules if row.evidence.is_pokayokay]

    def verdict_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for row in self.graduated_rules:
            verdict = row.evidence.verdict()
            counts[verdict] = counts.get(verdict, 0) + 1
        return counts

    def headline(self) -> list[str]:
        """Three or four sentences a team lead reads first."""
        out: list[str] = []
        rules = self.graduated_rules
        if rules:
            counts = self.verdict_counts()
            parts = [f"{counts[k]} {k}" for k in
                     ("holding", "recurred", "stale", "not loaded yet", "always loaded",
                      "no evidence")
                     if counts.get(k)]
            out.append(f"{plural(len(rules), 'graduated rule')}: " + ", ".join(parts) + ".")
            recurred = [row.evidence.id for row in rules if row.evidence.verdict() == "recurred"]
            if recurred:
                shown = ", ".join(f"`pokayokay rules show {rid}`" for rid in recurred[:3])
                why = ("its failure came back after Claude Code loaded it" if len(recurred) == 1
                       else "their failures came back after Claude Code loaded them")
                out.append(f"Worth a look: {shown} ({why}).")
            stale = [row.evidence for row in rules if row.evidence.stale is not None]
            if stale:
                named = "; ".join(f"{ev.id}: {ev.stale.detail}" for ev in stale[:3] if ev.stale)
                out.append(
                    f"Stale: {named}. The retirement policy retires "
                    f"{'it' if len(stale) == 1 else 'them'} at the next session end "
                    "(`pokayokay rules retire --due` does it now)."
                )
        else:
            out.append("No rule graduated yet: a failure becomes a rule once it recurs in "
                       f"{plural(self.threshold, 'session')}.")
        out.append(
            f"{plural(self.failures_in_period, 'failure')} recorded in "
            f"{plural(self.failure_sessions_in_period, 'session')} over {self.period.label}; "
            f"rules loaded {times(self.loads_in_period)}."
        )
        near = [row for row in self.near if not row.waiting and row.rule_possible]
        waiting = [row for row in self.near if row.waiting]
        if waiting:
            out.append(f"{plural(len(waiting), 'failure')} reached the threshold and await "
                       "`pokayokay graduate`.")
        if near:
            out.append(f"{plural(len(near), 'failure')} one session short of becoming a rule.")
        out.append(
            f"{plural(len(self.added), 'learning')} added and "
            f"{plural(len(self.reinforced), 'learning')} reinforced "
            f"({self.learnings_total} stored)."
        )
        if self.memory_over and self.memory_advice:
            out.append(self.memory_advice)
        return out


def memory_advice(memory: FileStat | None, curated: FileStat | None) -> str:
    """One sentence on an over-limit MEMORY.md; `curate` is advised only when it would bring
    the file under the limit (``curated``: the measures after it, None when it changes
    nothing)."""
    if memory is None or not memory.over:
        return ""
    if memory.notes_over:
        return (
            "MEMORY.md is past Claude Code's load limit because of Claude's own notes "
            f"({plural(memory.fixed_lines, 'line')} outside pokayokay's entries): `pokayokay "
            "curate` cannot fix that; moving detail into topic files linked from MEMORY.md does."
        )
    if curated is not None and not curated.over:
        return "MEMORY.md is past Claude Code's load limit: `pokayokay curate` fixes it."
    return (
        "MEMORY.md is past Claude Code's load limit and `pokayokay curate` cannot bring it "
        "under: `pokayokay status` shows what holds it there."
    )


def _ts(value: datetime) -> float:
    return value.timestamp()


def _budgets(stat: FileStat | None) -> tuple[list[Budget], bool]:
    if stat is None:
        return [], False
    out = [
        Budget("Whole file (lines)", stat.lines, stat.max_lines, "lines",
               "Claude Code loads no more than this"),
        Budget("Whole file (bytes)", stat.bytes, stat.max_bytes, "bytes",
               "Claude Code loads no more than this"),
    ]
    for section in stat.sections:
        if not section.present:
            out.append(Budget(section.title, 0, section.budget, "lines", "missing"))
            continue
        note = ""
        if section.max_entries is not None:
            note = f"{section.entries} of {plural(section.max_entries, 'entry', 'entries')}"
        out.append(Budget(section.title, section.size, section.budget, "lines", note))
    return out, stat.over


def week_start(day: date) -> date:
    return day - timedelta(days=day.weekday())


def _weeks(failures: Sequence[Failure], period: Period) -> list[Week]:
    last = week_start(period.end.astimezone(timezone.utc).date())
    span = math.ceil((period.end - period.start) / timedelta(weeks=1)) + 1
    count = max(MIN_WEEKS, min(MAX_WEEKS, span))
    starts = [last - timedelta(weeks=i) for i in reversed(range(count))]
    failures_by: dict[date, int] = dict.fromkeys(starts, 0)
    sessions_by: dict[date, set[str]] = {start: set() for start in starts}
    for failure in failures:
        day = datetime.fromtimestamp(failure.ts, timezone.utc).date()
        key = week_start(day)
        if key in failures_by:
            failures_by[key] += 1
            sessions_by[key].add(failure.session_id)
    first = period.start.astimezone(timezone.utc).date()
    return [
        Week(start, failures_by[start], len(sessions_by[start]), start + timedelta(days=7) > first)
        for start in starts
    ]


def _parse_when(value: str) -> datetime | None:
    try:
        parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


def build_report(
    *,
    project: str,
    now: datetime,
    period: Period,
    threshold: int,
    memory_file: str,
    memory: FileStat | None,
    rules: Sequence[RuleEvidence],
    groups: Sequence[FailureGroup],
    failures: Sequence[Failure],
    loads: Sequence[RuleLoad],
    learnings: Sequence[Learning],
    store_available: bool,
    curated: FileStat | None = None,
) -> Report:
    """The report for ``period`` (pure). ``curated``: MEMORY.md's measures after what
    `pokayokay curate` would do (None: it would change nothing)."""
    from pokayokay.failures.signature import short_id

    start, end = _ts(period.start), _ts(period.end)
    in_period = [f for f in failures if start <= f.ts <= end]
    loads_in = [load for load in loads if start <= load.ts <= end]
    report = Report(project=project, generated=now, period=period, threshold=threshold,
                    memory_file=memory_file, store_available=store_available)
    report.budgets, report.memory_over = _budgets(memory)
    report.memory_advice = memory_advice(memory, curated)
    for evidence in rules:
        store_name = evidence.store_path or evidence.rel_path
        mine = {g.signature for g in groups_of(evidence.signatures, groups)}
        first_load = evidence.effect.first_load if evidence.effect else None
        recurred = sum(
            1 for f in in_period
            if f.signature in mine and first_load is not None and f.ts > first_load
        )
        report.rules.append(RuleRow(
            evidence,
            loads_in_period=sum(1 for load in loads_in if load.rule_path == store_name),
            recurrences_in_period=recurred,
        ))
    report.rules.sort(key=lambda r: (not r.evidence.is_pokayokay, -r.evidence.recurrences,
                                     -r.evidence.loads, r.evidence.rel_path))
    report.weeks = _weeks(failures, period)
    report.failures_in_period = len(in_period)
    report.failure_sessions_in_period = len({f.session_id for f in in_period})
    report.loads_in_period = len(loads_in)
    graduated = {sig for row in report.rules for sig in row.evidence.signatures}
    for group in groups:
        sid = short_id(group.signature)
        if group.signature in graduated or sid in graduated:
            continue
        if group.sessions >= max(1, threshold - 1) and threshold > 1:
            report.near.append(NearRow(group, sid, threshold, may_graduate(group)))
    report.near.sort(key=lambda r: (-r.group.sessions, -r.group.last_seen, r.id))
    report.learnings_total = len(learnings)
    for learning in sorted(learnings, key=lambda item: item.last_seen or item.created,
                           reverse=True):
        created, seen = _parse_when(learning.created), _parse_when(learning.last_seen)
        if created is not None and period.start <= created <= period.end:
            report.added.append(learning)
        elif (seen is not None and period.start <= seen <= period.end
              and learning.observations > 1):
            report.reinforced.append(learning)
    if not store_available:
        report.notes.append(
            "No failure store yet: the hooks record failures once Claude Code runs with "
            "pokayokay installed."
        )
    return report
