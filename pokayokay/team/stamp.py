"""The team folder's place and its cheap stamp (standard library only: SessionStart imports
this on every start of a project with a team folder, before it knows whether to read it)."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["TEAM_DIR", "folder_stamp"]

TEAM_DIR = ".claude/pokayokay/team"


def folder_stamp(project: Path) -> str:
    """A stamp of the team folder (names, sizes, mtimes: one directory scan, no file read): it
    moves when a pull or a writer changes a file. "" when there is no folder."""
    parts: list[str] = []
    try:
        with os.scandir(project / TEAM_DIR) as entries:
            for entry in entries:
                if entry.name.endswith(".jsonl"):
                    st = entry.stat(follow_symlinks=False)
                    parts.append(f"{entry.name}:{st.st_size}:{st.st_mtime_ns}")
    except OSError:
        return ""
    return "team " + ";".join(sorted(parts))
