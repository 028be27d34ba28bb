"""Each rule with its evidence: the failures that made it (sessions, occurrences, first and last
seen) and what happened once Claude Code loaded it (loads, recurrences after loading).

:func:`rule_evidence` is pure (rules, failure groups and effectiveness in, values out);
:func:`read_store` is the one read of the project's failure store (it never creates the store)
and :func:`project_rule_evidence` puts the two together for ``status`` and ``report``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from pokayokay.failures.model import Failure, FailureGroup
from pokayokay.failures.store_reads import RuleLoad
from pokayokay.rules.effectiveness import RuleEffectiveness, assess_all
from pokayokay.rules.files import RuleFile
from pokayokay.rules.load_stats import ProjectFiles, stale_after_sessions
from pokayokay.rules.staleness import Staleness, clean_streak, staleness


class StoreSnapshot(NamedTuple):
    """What the failure store held when it was read (``available``: the store exists)."""

    available: bool
    groups: tuple[FailureGroup, ...]
    failures: tuple[Failure, ...]
    loads: tuple[RuleLoad, ...]


EMPTY_STORE = StoreSnapshot(False, (), (), ())


@dataclass(frozen=True)
class RuleEvidence:
    """One rule under ``.claude/rules/`` and the evidence behind it."""

    rel_path: str  # ".claude/rules/pokayokay/testing.md"
    id: str
    paths: tuple[str, ...] | None  # None: loaded at the start of every session
    is_pokayokay: bool
    graduated: str | None  # the date graduation wrote it
    signatures: tuple[str, ...]
    failure_sessions: int  # the most sessions any one of its failures was seen in
    occurrences: int  # every failure of its signatures, all sessions
    first_seen: float | None
    last_seen: float | None
    effect: RuleEffectiveness | None  # None: no store, or a rule loaded at every session start
    store_path: str = ""  # how the load log names it (relative to the work tree)
    stale: Staleness | None = None  # pokayokay.rules.staleness: its files gone, or check passed

    @property
    def loads(self) -> int:
        return self.effect.loads if self.effect else 0

    @property
    def recurrences(self) -> int:
        return self.effect.recurrences if self.effect else 0

    def verdict(self) -> str:
        """One word a reader can sort by: ``stale``, ``recurred``, ``holding``, ``not loaded
        yet``, ``always loaded`` or ``no evidence``."""
        if self.stale is not None:
            return "stale"
        if self.paths is None:
            return "always loaded"
        if not self.signatures:
            return "no evidence"
        if self.effect is None or self.effect.loads == 0:
            return "not loaded yet"
        return "recurred" if self.effect.recurred else "holding"

    def as_dict(self) -> dict[str, object]:
        return {
            "rule": self.rel_path,
            "id": self.id,
            "paths": list(self.paths) if self.paths is not None else None,
            "pokayokay": self.is_pokayokay,
            "graduated": self.graduated,
            "signatures": list(self.signatures),
            "failure_sessions": self.failure_sessions,
            "occurrences": self.occurrences,
            "first_seen": self.first_seen,
            "last_seen": self.last_seen,
            "loads": self.loads,
            "load_sessions": self.effect.sessions if self.effect else 0,
            "recurrences_after_loading": self.recurrences,
            "recurred_while_loaded": self.effect.recurred_while_loaded if self.effect else 0,
            "verdict": self.verdict(),
            "stale": self.stale.detail if self.stale else None,
            "stale_kind": self.stale.kind if self.stale else None,
        }


def groups_of(signatures: Sequence[str], groups: Sequence[FailureGroup]) -> list[FailureGroup]:
    """The failure groups a rule names (by full signature or short id)."""
    from pokayokay.failures.signature import short_id

    wanted = {s for s in signatures if s}
    return [g for g in groups if g.signature in wanted or short_id(g.signature) in wanted]


def rule_evidence(
    rules: Sequence[RuleFile],
    groups: Sequence[FailureGroup],
    effects: Mapping[str, RuleEffectiveness],
    store_paths: Mapping[str, str] | None = None,
    stale: Mapping[str, Staleness] | None = None,
) -> list[RuleEvidence]:
    """One :class:`RuleEvidence` per rule, in the order given (``effects``, ``store_paths``
    and ``stale`` by ``rel_path``)."""
    out: list[RuleEvidence] = []
    for rule in rules:
        mine = groups_of(rule.signatures, groups)
        graduated = rule.bookkeeping.graduated if rule.bookkeeping is not None else None
        out.append(
            RuleEvidence(
                rel_path=rule.rel_path,
                id=rule.id,
                paths=rule.paths,
                is_pokayokay=rule.is_pokayokay,
                graduated=graduated,
                signatures=rule.signatures,
                failure_sessions=max((g.sessions for g in mine), default=0),
                occurrences=sum(g.occurrences for g in mine),
                first_seen=min((g.first_seen for g in mine), default=None),
                last_seen=max((g.last_seen for g in mine), default=None),
                effect=effects.get(rule.rel_path) if rule.paths is not None else None,
                store_path=(store_paths or {}).get(rule.rel_path, rule.rel_path),
                stale=(stale or {}).get(rule.rel_path) if rule.is_pokayokay else None,
            )
        )
    return out


def read_store(project_key: Path) -> StoreSnapshot:
    """Groups, raw failures and rule loads of the project's store; :data:`EMPTY_STORE` when the
    store does not exist (reading never creates it)."""
    from pokayokay.failures.store import FailureStore

    store = FailureStore.for_project(project_key)
    if not store.path.exists():
        return EMPTY_STORE
    with store:
        return StoreSnapshot(
            True,
            tuple(store.failure_groups()),
            tuple(store.failures()),
            tuple(store.rule_loads()),
        )


def stale_rules(
    rules: Sequence[RuleFile],
    snapshot: StoreSnapshot,
    store_paths: Mapping[str, str],
    project_files: ProjectFiles,
    stale_after: int,
) -> dict[str, Staleness]:
    """The stale pokayokay rules among ``rules`` (by ``rel_path``), judged on ``snapshot``."""
    out: dict[str, Staleness] = {}
    for rule in rules:
        if not rule.is_pokayokay:
            continue
        store_path = store_paths.get(rule.rel_path, rule.rel_path)
        found = staleness(
            paths=rule.paths,
            signatures=rule.signatures,
            gone=project_files.gone(rule),
            streak=clean_streak(store_path, rule.signatures, snapshot.loads, snapshot.failures),
            stale_after=stale_after,
        )
        if found is not None:
            out[rule.rel_path] = found
    return out


def project_rule_evidence(
    project_dir: Path,
    project_key: Path | None = None,
    groups: Sequence[FailureGroup] | None = None,
) -> tuple[list[RuleEvidence], StoreSnapshot]:
    """Every rule of the project with its evidence (stale ones flagged), and the store
    snapshot it was read from. ``groups`` replaces the store's as the rules' failure evidence
    (team memory: the team's groups, :func:`pokayokay.team.plan.project_plan`)."""
    from pokayokay.infra.locate import find_git_root
    from pokayokay.rules.files import discover
    from pokayokay.rules.load_stats import store_rule_path

    rules = discover(project_dir)
    key = project_key or find_git_root(project_dir) or Path(os.path.realpath(project_dir))
    snapshot = read_store(key)
    by_store_path = {store_rule_path(project_dir, rule): rule for rule in rules}
    assessed = assess_all(
        {path: list(rule.signatures) for path, rule in by_store_path.items()},
        snapshot.loads,
        snapshot.failures,
    )
    effects = {rule.rel_path: assessed[path] for path, rule in by_store_path.items()}
    names = {rule.rel_path: path for path, rule in by_store_path.items()}
    files = ProjectFiles(Path(project_dir))
    stale = stale_rules(rules, snapshot, names, files, stale_after_sessions(project_dir))
    evidence = snapshot.groups if groups is None else groups
    found = rule_evidence(
        rules, evidence, effects if snapshot.available else {}, names, stale
    )
    return found, snapshot
