"""The ``*.md`` files under a rules folder as Claude Code finds them (any depth, symlinks
followed, a symlink loop walked once, names in sorted order), over plain strings: the prompt
hook walks the rules folder on every prompt naming a file, and needs neither pathlib nor the
rule parser for it (issue 26)."""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:  # collections.abc at run time imports collections: 1.5 ms of a path prompt
    from collections.abc import Iterator


def walk_rule_paths(
    folder: str, prefix: str = "", seen: set[str] | None = None
) -> Iterator[tuple[str, str]]:
    """(path, path relative to ``folder`` with ``/``) of every ``*.md`` file under ``folder``,
    depth first in name order; an unreadable folder or entry is skipped."""
    if seen is None:
        seen = set()
    try:
        real = os.path.realpath(folder)
        if real in seen:
            return  # a symlink loop
        seen.add(real)
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError:
        return  # unreadable folder: no rules
    for entry in entries:
        rel = f"{prefix}{entry.name}"
        try:
            is_dir = entry.is_dir()
            is_file = entry.is_file()
        except OSError:
            continue  # vanished entry: skipped
        if is_dir:
            yield from walk_rule_paths(entry.path, rel + "/", seen)
        elif is_file and entry.name.endswith(".md"):
            yield entry.path, rel
