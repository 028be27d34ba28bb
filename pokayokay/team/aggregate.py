"""Every writer's records read as one team's evidence (pure).

* :func:`latest` — a writer's file compacted: the last record of each mistake (evidence and
  tombstone apart), in mistake order. A writer only ever rewrites its own file this way.
* :func:`team_evidence` — all writers together: one :class:`~pokayokay.failures.model.FailureGroup`
  per mistake (sessions and failures summed: writers' sessions are disjoint), the number of
  teammates who hit it, and the latest tombstone of each mistake.
* :func:`graduating` — the team graduation rule (docs/decisions/0112): a mistake graduates when
  its sessions across the team reach the threshold, or when ``k`` distinct teammates hit it.

Every result is a function of the records' values alone, sorted, with no clock: the same files
give the same evidence on every clone (docs/decisions/0113).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from pokayokay.failures.model import Correction, FailureGroup
from pokayokay.team.records import EVIDENCE, TOMBSTONE, TeamRecord

__all__ = ["DEFAULT_TEAMMATES", "TeamEvidence", "graduating", "latest", "team_evidence"]

DEFAULT_TEAMMATES = 2
MAX_PATHS = 12


def latest(records: Iterable[TeamRecord]) -> tuple[TeamRecord, ...]:
    """One writer's records compacted: per (kind, mistake) the last one, sorted."""
    last: dict[tuple[str, str], TeamRecord] = {}
    for record in records:
        last[(record.kind, record.mistake)] = record
    return tuple(last[key] for key in sorted(last, key=lambda k: (k[1], k[0])))


@dataclass(frozen=True)
class TeamEvidence:
    groups: tuple[FailureGroup, ...]  # one per mistake with evidence, sorted by key
    teammates: Mapping[str, int]  # mistake → writers who hit it
    writers: Mapping[str, Mapping[str, int]]  # mistake → writer → sessions
    retired: Mapping[str, int]  # mistake → the latest tombstone (Unix seconds)


def _merge_corrections(records: Sequence[TeamRecord]) -> tuple[Correction, ...]:
    times: Counter[tuple[str, str, str]] = Counter()
    for record in records:
        for c in record.corrections:
            times[(c.failing, c.corrected, c.kind)] += c.times
    ranked = sorted(times.items(), key=lambda item: (-item[1], item[0]))
    return tuple(Correction(f, c, k, n) for (f, c, k), n in ranked[:3])


def _group(mistake: str, by_writer: Sequence[tuple[str, TeamRecord]]) -> FailureGroup:
    records = [r for _, r in by_writer]
    weight: Counter[str] = Counter()
    for record in records:
        weight[record.category] += max(1, record.sessions)
    category = min(weight, key=lambda c: (-weight[c], c))
    sample = min(
        (pair for pair in by_writer if pair[1].command),
        key=lambda pair: (-pair[1].sessions, pair[0]),
        default=None,
    )
    fixed = max(
        ((r.last, r.fix_commit) for r in records if r.fix_commit), default=(0, None)
    )[1]  # the latest fix any writer committed; the same on every clone
    return FailureGroup(
        signature=mistake,
        category=category,
        sessions=sum(r.sessions for r in records),
        occurrences=sum(r.occurrences for r in records),
        first_seen=float(min(r.first for r in records)),
        last_seen=float(max(r.last for r in records)),
        paths=tuple(sorted({p for r in records for p in r.paths}))[:MAX_PATHS],
        fix_paths=tuple(sorted({p for r in records for p in r.fix_paths}))[:MAX_PATHS],
        fix_commands=(),
        sample_command=None if sample is None else sample[1].command,
        excerpt="",
        corrections=_merge_corrections(records),
        fix_edits=(),
        fix_commit=fixed,
    )


def team_evidence(files: Mapping[str, Iterable[TeamRecord]]) -> TeamEvidence:
    """Writer id → that writer's records (file order) read as the team's evidence."""
    evidence: dict[str, list[tuple[str, TeamRecord]]] = {}
    retired: dict[str, int] = {}
    for writer in sorted(files):
        for record in latest(files[writer]):
            if record.kind == TOMBSTONE:
                retired[record.mistake] = max(retired.get(record.mistake, 0), record.last)
            elif record.kind == EVIDENCE and record.sessions > 0:
                evidence.setdefault(record.mistake, []).append((writer, record))
    groups = tuple(_group(m, evidence[m]) for m in sorted(evidence))
    return TeamEvidence(
        groups=groups,
        teammates={m: len(pairs) for m, pairs in sorted(evidence.items())},
        writers={m: {w: r.sessions for w, r in pairs} for m, pairs in sorted(evidence.items())},
        retired=dict(sorted(retired.items())),
    )


def graduating(evidence: TeamEvidence, threshold: int, teammates: int) -> frozenset[str]:
    """The mistakes the team rule graduates: ``threshold`` sessions across the team, or
    ``teammates`` distinct writers."""
    return frozenset(
        g.signature
        for g in evidence.groups
        if g.sessions >= threshold or evidence.teammates.get(g.signature, 0) >= teammates
    )
