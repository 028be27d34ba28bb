"""Does a graduated rule work? Per rule: how often Claude Code loaded it, and whether the failure
it is about came back after it had been loaded. Pure: lists of loads and failures in, values out.

A load is an ``InstructionsLoaded`` event with ``load_reason: path_glob_match`` (Claude Code
read a file the rule's ``paths:`` match); a failure is one captured failure with its signature.
A rule names its failures in its bookkeeping comment (``signatures=`` full signatures or their
:func:`pokayokay.failures.signature.short_id`).

* ``sessions``: distinct sessions with at least one load (a rule loaded five times in one
  session counts once);
* ``recurred``: a failure with one of the rule's signatures happened after the rule's first
  load (in any session); ``recurred_while_loaded`` counts those that happened in a session
  after the rule had been loaded in that same session — the rule was in Claude's context and
  the mistake happened anyway;
* :func:`should_retire`: loaded in at least ``retire_after_sessions`` distinct sessions and no
  recurrence after the first load. A rule that names no signature is never retired: without
  them "did not recur" would be vacuously true.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

DEFAULT_RETIRE_AFTER_SESSIONS = 10


class SessionEvent(Protocol):
    """What every event measured here has: when it happened and in which session."""

    @property
    def ts(self) -> float: ...
    @property
    def session_id(self) -> str: ...


class LoadEvent(SessionEvent, Protocol):
    """What a rule load needs to have (``failure_store.RuleLoad`` has it)."""

    @property
    def rule_path(self) -> str: ...


class FailureEvent(SessionEvent, Protocol):
    """What a failure needs to have (``failures.Failure`` has it)."""

    @property
    def signature(self) -> str: ...


@dataclass(frozen=True)
class RuleEffectiveness:
    rule_path: str
    signatures: tuple[str, ...]
    loads: int
    sessions: int  # distinct sessions with a load
    first_load: float | None
    last_load: float | None
    recurrences: int  # failures of its signatures after the first load
    recurrence_sessions: int  # distinct sessions with such a failure
    recurred_while_loaded: int  # ... of which in a session where the rule was already loaded
    last_recurrence: float | None

    @property
    def recurred(self) -> bool:
        return self.recurrences > 0

    def as_dict(self) -> dict[str, object]:
        return {
            "rule_path": self.rule_path,
            "signatures": list(self.signatures),
            "loads": self.loads,
            "sessions": self.sessions,
            "first_load": self.first_load,
            "last_load": self.last_load,
            "recurred": self.recurred,
            "recurrences": self.recurrences,
            "recurrence_sessions": self.recurrence_sessions,
            "recurred_while_loaded": self.recurred_while_loaded,
            "last_recurrence": self.last_recurrence,
        }


def _short_id(signature: str) -> str:
    from pokayokay.failures.signature import short_id

    return short_id(signature)


def signature_matcher(signatures: Iterable[str]) -> set[str]:
    """The set a failure signature (or its short id) must be in to count for a rule."""
    return {s for s in signatures if s}


def _counts(signature: str, wanted: set[str], cache: dict[str, bool]) -> bool:
    hit = cache.get(signature)
    if hit is None:
        hit = signature in wanted or _short_id(signature) in wanted
        cache[signature] = hit
    return hit


def assess(
    rule_path: str,
    signatures: Sequence[str],
    loads: Iterable[LoadEvent],
    failures: Iterable[FailureEvent],
) -> RuleEffectiveness:
    """The effectiveness of the rule at ``rule_path`` (loads of other rules are ignored)."""
    mine = sorted((load for load in loads if load.rule_path == rule_path), key=lambda x: x.ts)
    first_load = mine[0].ts if mine else None
    first_in_session: dict[str, float] = {}
    for load in mine:
        first_in_session.setdefault(load.session_id, load.ts)
    wanted = signature_matcher(signatures)
    cache: dict[str, bool] = {}
    recurrences = while_loaded = 0
    recurrence_sessions: set[str] = set()
    last_recurrence: float | None = None
    if first_load is not None and wanted:
        for failure in failures:
            if failure.ts <= first_load or not _counts(failure.signature, wanted, cache):
                continue
            recurrences += 1
            recurrence_sessions.add(failure.session_id)
            if last_recurrence is None or failure.ts > last_recurrence:
                last_recurrence = failure.ts
            loaded_at = first_in_session.get(failure.session_id)
            if loaded_at is not None and loaded_at <= failure.ts:
                while_loaded += 1
    return RuleEffectiveness(
        rule_path=rule_path,
        signatures=tuple(signatures),
        loads=len(mine),
        sessions=len(first_in_session),
        first_load=first_load,
        last_load=mine[-1].ts if mine else None,
        recurrences=recurrences,
        recurrence_sessions=len(recurrence_sessions),
        recurred_while_loaded=while_loaded,
        last_recurrence=last_recurrence,
    )


def assess_all(
    rules: Mapping[str, Sequence[str]],
    loads: Iterable[LoadEvent],
    failures: Iterable[FailureEvent],
) -> dict[str, RuleEffectiveness]:
    """:func:`assess` for each ``rule_path → signatures`` of ``rules``."""
    load_list = list(loads)
    failure_list = list(failures)
    return {
        path: assess(path, signatures, load_list, failure_list)
        for path, signatures in rules.items()
    }


def should_retire(
    effectiveness: RuleEffectiveness,
    retire_after_sessions: int = DEFAULT_RETIRE_AFTER_SESSIONS,
) -> bool:
    """Retire when loaded in ≥ ``retire_after_sessions`` distinct sessions and the failure has
    not recurred since the first load (never for a rule naming no signature)."""
    if retire_after_sessions < 1:
        raise ValueError("retire_after_sessions must be at least 1")
    if not effectiveness.signatures:
        return False
    return effectiveness.sessions >= retire_after_sessions and not effectiveness.recurred
