"""The ``paths:`` of pokayokay's conditional rules, for a prompt that names files: each rule file
is parsed again only when its size or modification time changed since the prompt that cached it
(``rule-scopes.marshal`` in the project's state folder), so a prompt in a project with a hundred
rules costs a walk and a stat per rule, not a hundred parses.

An entry is cached only when its file's modification time is two seconds old or more: a file
rewritten with the same size within the file system's timestamp resolution could otherwise keep
its old scope (the "racy" case git guards against the same way).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from pokayokay.infra import packed
from pokayokay.rules.files import RULES_DIR, read_rule, rules_dir, walk_rule_files

VERSION = 1
RACY_SECONDS = 2.0

Scope = tuple[str, tuple[str, ...]]  # (the rule's project-relative path, its patterns)


def _scope_of(project: Path, path: Path, rule_path: str) -> list[str] | None:
    rule = read_rule(project, path, rule_path)
    if rule.is_pokayokay and rule.conditional and rule.paths:
        return list(rule.paths)
    return None


def conditional_scopes(project_dir: Path | str, cache_path: str | None) -> list[Scope]:
    """(rel_path, patterns) of every pokayokay rule that loads by path, in path order, as
    :func:`pokayokay.rules.files.discover` reads them; ``cache_path`` None reads every file."""
    project = Path(os.path.abspath(project_dir))
    cached = packed.load(cache_path) if cache_path else None
    known: dict[str, list[object]] = {}
    if isinstance(cached, dict) and cached.get("version") == VERSION:
        files = cached.get("files")
        known = files if isinstance(files, dict) else {}
    fresh: dict[str, list[object]] = {}
    now = time.time()
    out: list[Scope] = []
    for path, rule_path in walk_rule_files(rules_dir(project), "", set()):
        try:
            st = os.stat(path)
        except OSError:
            continue  # vanished: no scope
        entry = known.get(rule_path)
        if isinstance(entry, list) and entry[:2] == [st.st_size, st.st_mtime_ns]:
            patterns = entry[2]
        else:
            patterns = _scope_of(project, path, rule_path)
        if now - st.st_mtime >= RACY_SECONDS:
            fresh[rule_path] = [st.st_size, st.st_mtime_ns, patterns]
        if isinstance(patterns, list) and patterns:
            out.append(((RULES_DIR / rule_path).as_posix(), tuple(str(p) for p in patterns)))
    if cache_path and fresh != known:
        packed.save(cache_path, {"version": VERSION, "files": fresh})
    return out
