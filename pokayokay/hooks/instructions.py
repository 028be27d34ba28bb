"""InstructionsLoaded: remember when Claude Code loaded a path-scoped rule of this project.

Only ``load_reason: path_glob_match`` counts (a rule whose ``paths:`` matched a file Claude
read); session-start, nested, include and compact loads are no-ops. The rule file must be a
``*.md`` under a ``.claude/rules/`` folder inside the project (the git work tree, else the
launch folder) — user, managed and other projects' rules are ignored. Claude Code reports a
symlinked rule by its resolved path; such a path is mapped back to the link under
``.claude/rules/``.

The load is recorded in the project's failure store (keyed by the canonical git root, like
Claude Code's memory) with the rule path, and the file that triggered it when inside the
project, relative to the work tree, POSIX. Hot path: standard
library only, imported lazily.
"""

from __future__ import annotations

import os
from typing import Any

from pokayokay.hooks.runtime import event_time, project_dir
from pokayokay.infra.state import real_payload_path

PATH_GLOB_MATCH = "path_glob_match"
_RULES_PARTS = (".claude", "rules")
_MAX_LINK_SCAN = 2000  # directory entries looked at when mapping a resolved path back


def _inside(path: str, root: str) -> str | None:
    """``path`` relative to ``root`` (POSIX), or None when it is not below it."""
    rel = os.path.relpath(path, root)
    if rel == "." or rel == ".." or rel.startswith(".." + os.sep) or os.path.isabs(rel):
        return None
    return rel.replace(os.sep, "/")


def _is_rule_path(rel: str) -> bool:
    parts = rel.split("/")
    if not rel.endswith(".md") or len(parts) < 3:
        return False
    return any(tuple(parts[index : index + 2]) == _RULES_PARTS for index in range(len(parts) - 2))


def _link_to(target: str, root: str) -> str | None:
    """A ``.claude/rules/`` entry under ``root`` whose resolved path is ``target``."""
    start = os.path.join(root, *_RULES_PARTS)
    seen: set[str] = set()
    stack = [start]
    scanned = 0
    while stack:
        folder = stack.pop()
        real = os.path.realpath(folder)
        if real in seen:
            continue
        seen.add(real)
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue  # unreadable folder: not searched
        for entry in entries:
            scanned += 1
            if scanned > _MAX_LINK_SCAN:
                return None
            try:
                if entry.is_dir():
                    stack.append(entry.path)
                elif entry.name.endswith(".md") and os.path.realpath(entry.path) == target:
                    return _inside(entry.path, root)
            except OSError:
                continue  # vanished entry: skipped
    return None


def rule_rel_path(file_path: str, root: str) -> str | None:
    """The project-relative path of the rule at ``file_path``, or None if it is not one of the
    project's ``.claude/rules/`` files."""
    if not os.path.isabs(file_path):
        return None
    rel = _inside(os.path.normpath(file_path), root)
    if rel is not None and _is_rule_path(rel):
        return rel
    real_root = os.path.realpath(root)
    real_file = real_payload_path(file_path)
    if real_file is None:
        return None  # too long to name a file: never resolved (quadratic)
    rel = _inside(real_file, real_root)
    if rel is not None and _is_rule_path(rel):
        return rel
    if rel is None or not file_path.endswith(".md"):
        return None
    return _link_to(real_file, root)


def instructions_loaded(payload: dict[str, Any], event: str) -> str:
    if payload.get("load_reason") != PATH_GLOB_MATCH:
        return ""
    file_path = payload.get("file_path")
    session_id = payload.get("session_id")
    if not isinstance(file_path, str) or not file_path:
        return ""
    if not isinstance(session_id, str) or not session_id:
        return ""
    from pathlib import Path

    from pokayokay.infra.locate import find_git_root, find_git_toplevel

    launch = Path(project_dir(payload))
    # Rule paths are relative to the work tree holding them (a linked worktree has its own);
    # the store is keyed like Claude Code's memory, by the canonical git root.
    root = str(find_git_toplevel(launch) or Path(os.path.realpath(launch)))
    key = find_git_root(launch) or root
    rule_path = rule_rel_path(file_path, root)
    if rule_path is None:
        return ""
    trigger = payload.get("trigger_file_path")
    trigger_path: str | None = None
    if isinstance(trigger, str) and trigger:
        inside = None
        if os.path.isabs(trigger):
            real_trigger = real_payload_path(trigger)
            inside = _inside(os.path.normpath(trigger), root) or (
                _inside(real_trigger, os.path.realpath(root)) if real_trigger else None
            )
        trigger_path = inside or trigger

    from pokayokay.failures.store import FailureStore

    with FailureStore.for_project(key) as store:
        store.record_rule_load(session_id, rule_path, trigger_path, event_time(payload))
    return ""
