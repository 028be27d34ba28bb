"""How often each rule loaded and whether its failure recurred after it loaded, read from the
project's failure store (only when the store exists: reading never creates it)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pokayokay.rules.effectiveness import DEFAULT_RETIRE_AFTER_SESSIONS, RuleEffectiveness
from pokayokay.rules.files import RuleFile

SHORT_ID_LENGTH = 12  # pokayokay.failures.signature.short_id


@dataclass(frozen=True)
class LoadStats:
    available: bool
    by_rule: dict[str, RuleEffectiveness]
    retire_after: int
    store_path: Path | None


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
            by_rule[rule.rel_path] = RuleEffectiveness(
                rule_path=store_rule_path(project_dir, rule),
                signatures=tuple(rule.signatures),
                **effect._asdict(),
            )
    return LoadStats(True, by_rule, retire_after, store.path)
