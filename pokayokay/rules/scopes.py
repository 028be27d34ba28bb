"""The ``paths:`` of pokayokay's conditional rules, for a prompt that names files: each rule file
is parsed again only when its size or modification time changed since the prompt that cached it
(``rule-scopes.marshal`` in the project's state folder), so a prompt in a project with a hundred
rules costs a walk and a stat per rule, not a hundred parses.

An entry is cached only when its file's modification time is two seconds old or more: a file
rewritten with the same size within the file system's timestamp resolution could otherwise keep
its old scope (the "racy" case git guards against the same way).

Which rules load for a path the prompt names is cached in the same file (:func:`rules_for_paths`),
for as long as no rule file changed: Claude Code's matcher (``rules.claude_match``, which
translates each pattern to a regular expression) and the rule parser are imported only when a
rule changed or a path is named for the first time (issue 26: they were a floor of every prompt
naming a file).
"""

from __future__ import annotations

import os
import time

from pokayokay.infra import packed
from pokayokay.rules.walk import walk_rule_paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from pokayokay.rules.files import RuleFile

VERSION = 2
RACY_SECONDS = 2.0
MAX_CACHED_PATHS = 256  # named paths whose loading rules are kept (the oldest go first)
RULES_PREFIX = ".claude/rules/"  # pokayokay.rules.files.RULES_DIR, as the posix text it is

Scope = tuple[str, tuple[str, ...]]  # (the rule's project-relative path, its patterns)


def read_rule(project_dir: Path, path: Path, rule_path: str) -> RuleFile:
    """:func:`pokayokay.rules.files.read_rule`, imported only for a rule file that changed."""
    from pokayokay.rules.files import read_rule as read

    return read(project_dir, path, rule_path)


def _scope_of(project: str, path: str, rule_path: str) -> list[str] | None:
    from pathlib import Path

    rule = read_rule(Path(project), Path(path), rule_path)
    if rule.is_pokayokay and rule.conditional and rule.paths:
        return list(rule.paths)
    return None


class _Scan:
    """One walk of the rules folder against the cache: the scopes, and whether the cache's
    answers for named paths still hold (no rule file added, removed or changed)."""

    def __init__(self, project_dir: Path | str, cache_path: str | None) -> None:
        project = os.path.abspath(project_dir)
        cached = packed.load(cache_path) if cache_path else None
        known: dict[str, list[object]] = {}
        loads: dict[str, list[str]] = {}
        if isinstance(cached, dict) and cached.get("version") == VERSION:
            files = cached.get("files")
            known = files if isinstance(files, dict) else {}
            found = cached.get("loads")
            loads = found if isinstance(found, dict) else {}
        fresh: dict[str, list[object]] = {}
        now = time.time()
        settled = True
        self.scopes: list[Scope] = []
        for path, rule_path in walk_rule_paths(os.path.join(project, ".claude", "rules")):
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
            else:
                settled = False
            if isinstance(patterns, list) and patterns:
                self.scopes.append((RULES_PREFIX + rule_path, tuple(str(p) for p in patterns)))
        self.cache_path = cache_path
        self.known, self.fresh = known, fresh
        # Answers for named paths hold only while every rule file is the one they were found
        # for, and is settled (a racy file may still change under the same size and time).
        self.loads: dict[str, list[str]] = loads if settled and fresh == known else {}
        self.settled = settled
        self.loads_changed = False

    def loading(self, path: str) -> list[str]:
        """The rules (``.claude/rules/…``) that load when Claude reads ``path``."""
        found = self.loads.get(path)
        if isinstance(found, list):
            return found
        from pokayokay.rules.claude_match import matches

        found = [rule for rule, patterns in self.scopes if patterns and matches(patterns, path)]
        if self.settled:
            self.loads[path] = found
            while len(self.loads) > MAX_CACHED_PATHS:
                del self.loads[next(iter(self.loads))]
            self.loads_changed = True
        return found

    def save(self) -> None:
        if self.cache_path and (self.fresh != self.known or self.loads_changed):
            packed.save(
                self.cache_path, {"version": VERSION, "files": self.fresh, "loads": self.loads}
            )


def conditional_scopes(project_dir: Path | str, cache_path: str | None) -> list[Scope]:
    """(rel_path, patterns) of every pokayokay rule that loads by path, in path order, as
    :func:`pokayokay.rules.files.discover` reads them; ``cache_path`` None reads every file."""
    scan = _Scan(project_dir, cache_path)
    scan.save()
    return scan.scopes


def rules_for_paths(
    project_dir: Path | str, cache_path: str | None, paths: Sequence[str]
) -> tuple[list[Scope], list[tuple[str, str]]]:
    """The scopes (:func:`conditional_scopes`) and, for each of them in order, the first of
    ``paths`` it loads for (a folder ``src/api/`` is matched as ``src/api``): (rule, path)
    pairs, as ``skills.suggest`` names them."""
    scan = _Scan(project_dir, cache_path)
    pairs: list[tuple[str, str]] = []
    if scan.scopes and paths:
        loading = {path: set(scan.loading(path.rstrip("/"))) for path in dict.fromkeys(paths)}
        for rule, _patterns in scan.scopes:
            for path in paths:
                if rule in loading[path]:
                    pairs.append((rule, path))
                    break
    scan.save()
    return scan.scopes, pairs


def refresh(project_dir: Path | str, cache_path: str) -> float:
    """Bring the cache up to date for the rule files as they are now: changed ones parsed
    again, and the named paths it answered before answered again, so that the next prompt
    naming them parses and matches nothing (SessionStart's catch-up worker runs this after
    graduation rewrote rules). Returns 0.0 when everything is cached, else the seconds until
    the newest rule file is settled (a racy file is never cached: call again then)."""
    cached = packed.load(cache_path)
    named: list[str] = []
    if isinstance(cached, dict) and cached.get("version") == VERSION:
        found = cached.get("loads")
        named = [p for p in found if isinstance(p, str)] if isinstance(found, dict) else []
    scan = _Scan(project_dir, cache_path)
    if scan.settled:
        for path in named:
            scan.loading(path)
        scan.save()
        return 0.0
    # Not saved: the paths the cache answered are kept for the call once the files settle.
    newest = 0.0
    for path, _rule_path in walk_rule_paths(
        os.path.join(os.path.abspath(project_dir), ".claude", "rules")
    ):
        try:
            newest = max(newest, os.stat(path).st_mtime)
        except OSError:
            continue  # vanished: nothing to wait for
    return max(0.0, newest + RACY_SECONDS - time.time())
