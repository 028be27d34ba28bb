"""The managed sections of MEMORY.md and the settings that shape curation (pure data)."""

from __future__ import annotations

from dataclasses import dataclass, field

# Claude Code 2.1.330 loads only this much of MEMORY.md (interfaces doc §2.4).
CLAUDE_MAX_LINES = 200
CLAUDE_MAX_BYTES = 25_000

END_MARKER = "<!-- /pokayokay -->"


@dataclass(frozen=True)
class SectionSpec:
    """One managed section: its heading, marker text, line budget and archive file."""

    id: str
    title: str
    marker: str
    budget: int
    archive: str
    max_entries: int | None = None

    @property
    def marker_line(self) -> str:
        return f"<!-- pokayokay: {self.marker} -->"


DEFAULT_SECTIONS: tuple[SectionSpec, ...] = (
    SectionSpec(
        "completed_work",
        "Completed Work",
        "managed by session hooks",
        20,
        "completed-work-archive.md",
    ),
    SectionSpec(
        "key_decisions",
        "Key Decisions",
        "promoted from session handoffs",
        40,
        "decisions-archive.md",
    ),
    SectionSpec(
        "architecture_notes",
        "Architecture Notes",
        "stable project structure",
        30,
        "architecture-archive.md",
    ),
    SectionSpec(
        "active_patterns",
        "Active Patterns",
        "graduated to .claude/rules/ when confirmed",
        15,
        "patterns-archive.md",
    ),
    SectionSpec(
        "recent_bug_fixes",
        "Recent Bug Fixes",
        "rotated, max 5 entries",
        15,
        "bugfixes-archive.md",
        max_entries=5,
    ),
    SectionSpec(
        "topic_index",
        "Topic Index",
        "links to detail files",
        10,
        "topic-index-archive.md",
    ),
)

TOPIC_INDEX_ID = "topic_index"


@dataclass(frozen=True)
class Settings:
    """Everything curation and the hooks need to know, merged from defaults and settings files."""

    sections: tuple[SectionSpec, ...] = DEFAULT_SECTIONS
    max_lines: int = CLAUDE_MAX_LINES
    max_bytes: int = CLAUDE_MAX_BYTES
    # Write managed sections that have no entry (headings, markers)? Off: a section appears in
    # MEMORY.md with its first entry; empty headings cost lines and tokens in every session.
    empty_sections: bool = False
    # Rule graduation (pokayokay.rules.graduation) and rule retirement
    # (pokayokay.rules.effectiveness).
    graduation_threshold: int = 3
    retire_after_sessions: int = 10
    # A rule whose mistake did not happen in this many loaded sessions in a row is stale
    # (pokayokay.rules.staleness): flagged in status and report, retired at SessionEnd.
    stale_after_sessions: int = 10
    # Team memory (pokayokay.team): evidence shared through .claude/pokayokay/team/, and the
    # number of distinct teammates whose hits graduate a mistake whatever its session count.
    team: bool = False
    graduation_teammates: int = 2
    # Learning capture (pokayokay.learnings.capture.remember).
    capture_mode: str = "ask-first"
    silent_capture_budget: int = 5
    # Learnings consolidation (pokayokay.learnings.consolidate.consolidation); None means the
    # module's default.
    consolidation_learnings_file: str | None = None
    consolidation_size_trigger: int | None = None
    consolidation_staleness_trigger: int | None = None
    consolidation_freshness: int | None = None
    consolidation_min_batch: int | None = None
    consolidation_keep_recent: int | None = None
    consolidation_split_at: int | None = None
    consolidation_part_min: int | None = None
    consolidation_part_max: int | None = None
    consolidation_archive: str | None = None
    consolidation_dropped: str | None = None
    consolidation_session_end: bool = True
    # User rows of the failure classifier (pokayokay.failures.classify): plain mappings of
    # category/tool/command/error, checked by the settings loader.
    failure_categories: tuple[dict[str, str], ...] = ()
    # Before a command that failed in graduation_threshold sessions and has a known correction
    # (pokayokay.hooks.guard): "hint" (additionalContext), "block" (deny with the reason), "off".
    guard: str = "hint"
    # Where each value came from ("default", or a settings file path), for doctor/status.
    sources: dict[str, str] = field(default_factory=dict)
    # Warnings collected while loading (unknown keys and the like), shown by the CLI.
    warnings: tuple[str, ...] = ()

    def section(self, section_id: str) -> SectionSpec | None:
        for spec in self.sections:
            if spec.id == section_id:
                return spec
        return None
