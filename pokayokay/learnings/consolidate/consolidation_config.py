"""Consolidation's thresholds and file names (ConsolidationConfig, read from settings) and the
similarity cut-offs it decides with."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any


@dataclass(frozen=True)
class ConsolidationConfig:
    """Thresholds and file names. ``from_settings`` reads ``Settings.consolidation_<name>``."""

    learnings_file: str = ".claude/learnings.md"
    size_trigger: int = 150  # more lines than this triggers
    staleness_trigger: int = 14  # at least this many active days since the last consolidation
    freshness: int = 7  # an entry qualifies at this age (active days)
    min_batch: int = 3
    keep_recent: int = 3  # the most recent entries stay in staging, however old (seed 004: 3-5)
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


# Longest one-line bullet added to a MEMORY.md section (Claude Code's index lines stay short).
BULLET_MAX = 150
