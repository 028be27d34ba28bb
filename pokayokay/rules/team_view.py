"""What team memory adds to a graduation plan (pure value; :mod:`pokayokay.team` builds it).

Kept apart from :mod:`pokayokay.rules.graduation` so the planner takes one more optional
argument and nothing else changes for a project without team memory.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["TeamView"]


@dataclass(frozen=True)
class TeamView:
    """The mistakes the team rule graduates whatever their session count (``k`` teammates hit
    them: docs/decisions/0112), how many teammates hit each mistake (a rule's evidence line
    says "2 teammates, 4 sessions"). With a view, a rule is dated by its evidence (its last
    failure), never by the local clock, so every clone writes the same bytes (0113)."""

    graduating: frozenset[str] = frozenset()
    teammates: Mapping[str, int] = field(default_factory=dict)
