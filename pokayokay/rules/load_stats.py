"""How often each rule loaded and whether its failure recurred after it loaded, read from the
project's failure store (only when the store exists: reading never creates it)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pokayokay.rules.effectiveness import DEFAULT_RETIRE_AFTER_SESSIONS, RuleEffectiveness
from pokayokay.rules.files import RuleFile
from pokayokay.rules.staleness import Staleness, files_gone, literal_paths, staleness

SHORT_ID_LENGTH = 12  # pokayokay.failures.signature.short_id


@dataclass(frozen=True)
class LoadStats:
    available: bool
    by_rule: dict[str, RuleEffectiveness]
    retire_after: int
    store_path: Path | None
    streaks: dict[str, int] = field(default_factory=dict)  # rel_path -> rules.staleness


def _work_tree(project_dir: Path) -> Path:
    from pokayokay.infra.locate import find_git_toplevel

    return find_git_toplevel(project_dir) or Path(os.path.realpath(project_dir))


def store_rule_path(project_dir: Path, rule: RuleFile) -> str:
    """How the InstructionsLoaded hook names ``rule`` in the store (relative to the work tree)."""
    real = Path(os.path.realpath(project_dir)) / rule.rel_path
    return Path(os.path.relpath(real, _work_tree(project_dir))).as_posix()


def _retire_after(project_dir: Path) -> int:
    try:
        from pokayokay.config.settings import load_settings

        settings = load_settings(project_dir)
    except Exception as exc:
        from pokayokay.infra.logs import fail_open

        fail_open("reading retire_after_sessions (the default is used)", exc)
        return DEFAULT_RETIRE_AFTER_SESSIONS
    value = getattr(settings, "retire_after_sessions", DEFAULT_RETIRE_AFTER_SESSIONS)
    return value if isinstance(value, int) and value >= 1 else DEFAULT_RETIRE_AFTER_SESSIONS


class ProjectFiles:
    """The project's files, listed (``git ls-files``) at most once and only when a rule's
    literal ``paths:`` are not simply there on disk (the usual family rule lists its files)."""

    def __init__(self, project: Path) -> None:
        self.project = project
        self._files: list[str] | None = None

    def on_disk(self, rule: RuleFile) -> bool:
        files_or_folders, folders = literal_paths(rule.paths or ())
        # Casefolded names: exact on a case-insensitive file system; elsewhere a miss only
        # means the listing decides.
        return any((self.project / p).exists() for p in files_or_folders) or any(
            (self.project / p).is_dir() for p in folders
        )

    def listed(self) -> list[str]:
        if self._files is None:
            from pokayokay.infra.git import list_project_files

            self._files = list_project_files(self.project)
        return self._files

    def gone(self, rule: RuleFile) -> bool:
        if not rule.paths or self.on_disk(rule):
            return False
        return files_gone(rule.paths, self.listed())


def rule_staleness(
    rule: RuleFile, stats: LoadStats, stale_after: int, files: ProjectFiles
) -> Staleness | None:
    """Whether a pokayokay ``rule`` is stale (:mod:`pokayokay.rules.staleness`), judged on
    ``stats`` (its streak) and the project's files."""
    if not rule.is_pokayokay:
        return None
    return staleness(
        paths=rule.paths,
        signatures=rule.signatures,
        gone=files.gone(rule),
        streak=stats.streaks.get(rule.rel_path, 0),
        stale_after=stale_after,
    )


def stale_after_sessions(project_dir: Path) -> int:
    """``graduation.stale_after_sessions`` of the project's settings (the default when they
    cannot be read: logged, never raised)."""
    from pokayokay.rules.staleness import DEFAULT_STALE_AFTER_SESSIONS

    try:
        from pokayokay.config.settings import load_settings

        value = load_settings(project_dir).stale_after_sessions
    except Exception as exc:
        from pokayokay.infra.logs import fail_open

        fail_open("reading stale_after_sessions (the default is used)", exc)
        return DEFAULT_STALE_AFTER_SESSIONS
    return value if isinstance(value, int) and value >= 1 else DEFAULT_STALE_AFTER_SESSIONS


def rule_load_stats(
    project_dir: Path,
    rules: Sequence[RuleFile],
    retire_after: int | None = None,
    *,
    exact: bool = True,
) -> LoadStats:
    """Every rule's effectiveness; ``exact=False`` answers only whether each is due for
    retirement (see ``FailureStore.rule_effect``): SessionEnd's check over a full store."""
    if retire_after is None:
        retire_after = _retire_after(project_dir)
    try:
        from pokayokay.failures.signature import short_id
        from pokayokay.failures.store import FailureStore
        from pokayokay.infra.locate import find_git_root
    except ImportError:
        return LoadStats(False, {}, retire_after, None)
    key = find_git_root(project_dir) or Path(os.path.realpath(project_dir))
    store = FailureStore.for_project(key)
    if not store.path.exists():
        return LoadStats(False, {}, retire_after, store.path)
    by_rule: dict[str, RuleEffectiveness] = {}
    streaks: dict[str, int] = {}
    with store:
        # Rules name signatures in full or by short id: resolve both to the stored ones (one
        # column of the signatures table, hashed only when a rule names a short id).
        wanted = {sig for rule in rules for sig in rule.signatures}
        full: dict[str, str] = {}
        if wanted:
            short_wanted = any(len(sig) == SHORT_ID_LENGTH for sig in wanted)
            for signature in store.signatures():
                if signature in wanted:
                    full[signature] = signature
                elif short_wanted and (short := short_id(signature)) in wanted:
                    full[short] = signature
        for rule in rules:
            mine = sorted({full[sig] for sig in rule.signatures if sig in full})
            effect = store.rule_effect(
                store_rule_path(project_dir, rule), mine, exact=exact, min_sessions=retire_after
            )
            streaks[rule.rel_path] = store.clean_streak(store_rule_path(project_dir, rule), mine)
            by_rule[rule.rel_path] = RuleEffectiveness(
                rule_path=store_rule_path(project_dir, rule),
                signatures=tuple(rule.signatures),
                **effect._asdict(),
            )
    return LoadStats(True, by_rule, retire_after, store.path, streaks)
