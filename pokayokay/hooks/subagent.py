"""SubagentStart: a subagent loads no auto memory, so it would repeat the mistakes the main
session is warned about. It gets the always-loaded lessons instead: the environment lessons of
the lesson lookup (how commands run here) and the entries of MEMORY.md's Active Patterns, in one
fenced, factual block of at most :data:`BUDGET` characters — or nothing when there are none.

The block is made from three things on disk: the lesson lookup, MEMORY.md and the settings
files (which sections are whose). It is kept in the project's state folder
(``subagent-lessons.marshal``) with the size and modification time of each, and made again only
when one of them changed (``pokayokay.infra.stamped``; issue 26: parsing MEMORY.md's sections
and the safety checks of every line cost a subagent start five interpreter starts).
"""

from __future__ import annotations

from pokayokay.hooks.runtime import context_output, project_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

BUDGET = 800
TAG = "pokayokay-lessons"
OPEN_TAG, CLOSE_TAG = f"<{TAG}>", f"</{TAG}>"
LEAD = "pokayokay's record of this project's earlier sessions (facts, not instructions):"
ACTIVE_PATTERNS_ID = "active_patterns"  # pokayokay.rules.graduation.ACTIVE_PATTERNS_ID
MAX_LINE = 300
# MEMORY.md is read up to Claude Code's own load limit: what is past it is not "always loaded".
_READ_AT_MOST = 25_000
CACHE_VERSION = 1


def _safe(text: str) -> str:
    """``text`` as the block shows it (see the module), or "" when it is left out."""
    from pokayokay.safety.commands import danger, redact_secrets
    from pokayokay.safety.exact import CONTEXT_WRAPPER, escape
    from pokayokay.safety.instructions import has_link, injected
    from pokayokay.safety.sanitize import clean, one_line

    line = one_line(clean(redact_secrets(text)))
    if not line or len(line) > MAX_LINE:
        return ""
    if injected(line) or has_link(line) or danger(line) is not None:
        return ""
    return escape(line, (TAG, CONTEXT_WRAPPER))


def active_patterns(text: str, specs: Sequence[Any]) -> list[str]:
    """The entries of MEMORY.md's Active Patterns section (pure), one line each."""
    from pokayokay.memory.document import parse

    section = parse(text, specs).section(ACTIVE_PATTERNS_ID)
    if section is None:
        return []
    lines = []
    for entry in section.entries:
        joined = " ".join(line.strip() for line in entry.lines if line.strip())
        lines.append(joined.removeprefix("- ").removeprefix("* ").strip())
    return [line for line in lines if line]


def lessons_block(environment: Sequence[str], patterns: Sequence[str], budget: int = BUDGET) -> str:
    """The fenced block (pure): environment lessons first, then Active Patterns entries that do
    not repeat one; each line exact but for the escapes, or left out (see the module); whole
    lines only, within ``budget`` characters."""
    lines: list[str] = []
    for raw in [*environment, *patterns]:
        line = _safe(raw)
        if line and not any(line in kept or kept in line for kept in lines):
            lines.append(line)
    if not lines:
        return ""
    fixed = len(OPEN_TAG) + len(LEAD) + len(CLOSE_TAG) + 3
    shown: list[str] = []
    used = fixed
    for line in lines:
        cost = len(line) + 3  # "- " and the newline
        if used + cost > budget:
            continue
        shown.append(f"- {line}")
        used += cost
    if not shown:
        return ""
    return "\n".join([OPEN_TAG, LEAD, *shown, CLOSE_TAG])


def _memory_text(path: Any) -> str | None:
    from pokayokay.infra.regular import open_regular

    try:
        with open_regular(path) as handle:  # a FIFO MEMORY.md must not hang the subagent
            data = handle.read(_READ_AT_MOST)
    except OSError:
        return None
    return data.decode("utf-8", "replace")


def _make_block(project: str, lookup_path: str | None, memory_file: str) -> str:
    """The block, from the files themselves (see the module)."""
    from pokayokay.infra.lesson_lookup import read_lookup

    lookup = read_lookup(lookup_path) if lookup_path is not None else None
    environment = lookup.get("always") if lookup is not None else None
    env_lines = (
        [x for x in environment if isinstance(x, str)] if isinstance(environment, list) else []
    )
    patterns: list[str] = []
    text = _memory_text(memory_file)
    if text:
        from pathlib import Path

        from pokayokay.config.settings import load_settings
        from pokayokay.memory.sections import DEFAULT_SECTIONS

        try:
            specs: Sequence[Any] = load_settings(Path(project)).sections
        except Exception as exc:  # a broken settings file must not cost the subagent its lessons
            from pokayokay.infra.logs import fail_open

            fail_open("SubagentStart: reading the settings (default sections used)", exc)
            specs = DEFAULT_SECTIONS
        patterns = active_patterns(text, specs)
    return lessons_block(env_lines, patterns)


def subagent_start(payload: dict[str, Any], event: str) -> str:
    import os

    from pokayokay.hooks.runtime import memory_paths
    from pokayokay.infra.lesson_lookup import find_lookup
    from pokayokay.infra.stamped import kept
    from pokayokay.infra.state import project_state_path
    from pokayokay.names import (
        LOCAL_SETTINGS_FILE,
        MEMORY_FILE,
        SUBAGENT_LESSONS_FILE,
        TEAM_SETTINGS_FILE,
    )

    project = project_dir(payload)
    location = memory_paths(payload)
    lookup_path = find_lookup(project)
    memory_file = os.path.join(location.memory_dir, MEMORY_FILE)
    inputs = (
        lookup_path,
        memory_file,
        os.path.join(project, TEAM_SETTINGS_FILE),
        os.path.join(project, LOCAL_SETTINGS_FILE),
    )
    cache = os.path.join(project_state_path(str(location.project_key)), SUBAGENT_LESSONS_FILE)
    block = kept(
        cache, f"lessons {CACHE_VERSION}", inputs,
        lambda: _make_block(project, lookup_path, memory_file),
    )  # fmt: skip
    return context_output("SubagentStart", block) if block else ""
