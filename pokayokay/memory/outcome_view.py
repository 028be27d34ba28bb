"""What `curate` prints about a curation (and `status` reuses): the outcome as data for
``--json``, as short lines, as a report and as a unified diff."""

from __future__ import annotations

import difflib
from typing import Any

from pokayokay.memory.apply import CurationOutcome
from pokayokay.memory.measures import FileStat


def stat_dict(stat: FileStat) -> dict[str, Any]:
    return {
        "lines": stat.lines,
        "bytes": stat.bytes,
        "max_lines": stat.max_lines,
        "max_bytes": stat.max_bytes,
        "over": stat.over,
        "unmanaged_lines": stat.unmanaged_lines,
        "fixed_lines": stat.fixed_lines,
        "fixed_bytes": stat.fixed_bytes,
        "notes_over": stat.notes_over,
        "sections": [
            {
                "id": s.id,
                "title": s.title,
                "present": s.present,
                "lines": s.size,
                "budget": s.budget,
                "entries": s.entries,
                "max_entries": s.max_entries,
                "over": s.over,
            }
            for s in stat.sections
        ],
    }


def curation_summary(outcome: CurationOutcome) -> dict[str, Any]:
    result = outcome.result
    data: dict[str, Any] = {
        "memory_file": str(outcome.location.memory_file),
        "exists": result is not None,
        "changed": outcome.changed,
        "written": outcome.written,
        "attempts": outcome.attempts,
        "backup": str(outcome.backup) if outcome.backup else None,
    }
    if result is not None:
        data.update(
            before=stat_dict(result.before),
            after=stat_dict(result.after),
            moves=[
                {
                    "section": m.section_title,
                    "archive": m.archive,
                    "entries": len(m.entries),
                    "lines": m.lines,
                    "reason": m.reason,
                }
                for m in result.moves
            ],
            added_sections=result.added_sections,
            merged_duplicates=result.merged_duplicates,
            closed_sections=result.closed_sections,
            added_links=result.added_links,
            notes=result.notes,
        )
    return data


_REASONS = {
    "budget": "over its line budget",
    "entry cap": "over its entry cap",
    "whole file": "to keep the whole file within Claude Code's load limit",
}


def curation_lines(outcome: CurationOutcome) -> list[str]:
    result = outcome.result
    if result is None:
        return [f"no MEMORY.md at {outcome.location.memory_file}; `pokayokay init` creates one"]
    lines = []
    for move in result.moves:
        lines.append(
            f"moved {len(move.entries)} entr{'y' if len(move.entries) == 1 else 'ies'} "
            f"({move.lines} lines) from {move.section_title} to {move.archive} "
            f"({_REASONS.get(move.reason, move.reason)})"
        )
    if result.added_sections:
        lines.append("added missing sections: " + ", ".join(result.added_sections))
    if result.merged_duplicates:
        lines.append("merged duplicate sections: " + ", ".join(result.merged_duplicates))
    if result.closed_sections:
        lines.append("added end markers to: " + ", ".join(result.closed_sections))
    for name in result.added_links:
        lines.append(f"linked {name} from the Topic Index")
    return lines


def render_curation(outcome: CurationOutcome, *, applied: bool) -> str:
    result = outcome.result
    head = f"MEMORY.md: {outcome.location.memory_file}"
    if result is None:
        return head + "\n  " + curation_lines(outcome)[0]
    b, a = result.before, result.after
    head += (
        f"\n  {b.lines} -> {a.lines} lines (limit {a.max_lines}), "
        f"{b.bytes:,} -> {a.bytes:,} bytes (limit {a.max_bytes:,})"
    )
    out = [head]
    changes = curation_lines(outcome)
    if not changes:
        why = "archiving cannot fix it" if a.over else "every managed section is within its budget"
        out.append(f"  nothing to do: {why}")
    out.extend(f"  {line}" for line in changes)
    out.extend(f"  note: {note}" for note in result.notes)
    if changes:
        if applied:
            out.append(
                f"  done (previous version saved to {outcome.backup})"
                if outcome.backup
                else "  done"
            )
        else:
            out.append("  (not written: run `pokayokay curate` to apply)")
    return "\n".join(out)


def curation_diff(outcome: CurationOutcome) -> str:
    result = outcome.result
    if result is None:
        return ""
    folder = outcome.location.memory_dir
    chunks = [
        "".join(
            difflib.unified_diff(
                result.original.splitlines(keepends=True),
                result.text.splitlines(keepends=True),
                str(folder / "MEMORY.md"),
                str(folder / "MEMORY.md") + " (curated)",
            )
        )
    ]
    for name, new in result.archives.items():
        old = result.archive_before.get(name, "")
        chunks.append(
            "".join(
                difflib.unified_diff(
                    old.splitlines(keepends=True),
                    new.splitlines(keepends=True),
                    str(folder / name) if old else "/dev/null",
                    str(folder / name),
                )
            )
        )
    text = "".join(chunk if chunk.endswith("\n") or not chunk else chunk + "\n" for chunk in chunks)
    return text


# -- status ---------------------------------------------------------------------------------------
