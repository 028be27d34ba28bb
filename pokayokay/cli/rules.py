"""``pokayokay rules list | show RULE | match PATH | lint | retire RULE|--due``.

Each ``cmd_*`` returns ``(exit code, text to print)``; bad input (an unknown rule) raises
:class:`~pokayokay.errors.PokayokayError` like the other commands. Load counts come from the
project's failure store when it exists; listing never creates it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import asdict
from datetime import date, datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pokayokay.errors import EXIT_CHANGES_DUE, EXIT_OK, PokayokayError
from pokayokay.infra.git import list_project_files
from pokayokay.rules.effectiveness import (
    should_retire,
)
from pokayokay.rules.files import (
    RuleFile,
    always_loaded,
    discover,
    find_rule,
    match_rules,
    normalise_rel_path,
)
from pokayokay.rules.lint import LintFinding, lint_rule
from pokayokay.rules.load_stats import LoadStats, rule_load_stats
from pokayokay.rules.retirement import retire_due_rules, retire_one

if TYPE_CHECKING:
    from pokayokay.infra.locate import MemoryLocation
    from pokayokay.memory.sections import Settings


# ---------------------------------------------------------------------------------------------
# Load statistics (optional: only when the store exists)


# ---------------------------------------------------------------------------------------------
# Rendering helpers


def _when(ts: float | None) -> str:
    if ts is None:
        return "-"
    return datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M")


def _iso(ts: float | None) -> str | None:
    if ts is None:
        return None
    return datetime.fromtimestamp(ts, timezone.utc).isoformat(timespec="seconds")


def _scope(rule: RuleFile) -> str:
    if rule.skipped is not None:
        return "not loaded"
    if rule.paths is None:
        return "always loaded"
    return ", ".join(rule.paths)


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    lines = []
    for row in [header, *rows]:
        cells = [str(cell).ljust(width) for cell, width in zip(row, widths, strict=True)]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def _rule_dict(rule: RuleFile, stats: LoadStats) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": rule.id,
        "path": rule.rel_path,
        "rule_path": rule.rule_path,
        "scope": "not loaded" if rule.skipped else "paths" if rule.paths else "always",
        "paths": list(rule.paths) if rule.paths else None,
        "managed": rule.is_pokayokay,
        "skipped": rule.skipped,
        "errors": [f.code for f in _errors(rule)],
    }
    if rule.bookkeeping is not None:
        data["signatures"] = list(rule.bookkeeping.signatures)
        data["graduated"] = rule.bookkeeping.graduated
    effect = stats.by_rule.get(rule.rel_path)
    if stats.available and effect is not None:
        data.update(
            loads=effect.loads,
            sessions=effect.sessions,
            first_load=_iso(effect.first_load),
            last_load=_iso(effect.last_load),
            recurred=effect.recurred if rule.signatures else None,
            recurrences=effect.recurrences,
            retire_due=rule.is_pokayokay and should_retire(effect, stats.retire_after),
        )
    return data


def _dump(data: object) -> str:
    from pokayokay.safety.redact import redact_tree

    return json.dumps(redact_tree(data), indent=2, ensure_ascii=False)


# ---------------------------------------------------------------------------------------------
# Commands


def cmd_rules_list(project_dir: Path | str, *, as_json: bool) -> tuple[int, str]:
    """Every rule: path, scope (its patterns, or "always loaded"), whether pokayokay manages it,
    and, when the failure store exists, how often and when Claude Code last loaded it."""
    project = Path(project_dir)
    rules = discover(project)
    stats = rule_load_stats(project, rules)
    if as_json:
        return EXIT_OK, _dump(
            {
                "rules_dir": str(project / ".claude" / "rules"),
                "load_counts": stats.available,
                "retire_after_sessions": stats.retire_after,
                "rules": [_rule_dict(rule, stats) for rule in rules],
            }
        )
    if not rules:
        return EXIT_OK, "No rules in .claude/rules/."
    header = ["RULE", "SCOPE", "MANAGED"]
    if stats.available:
        header += ["LOADS", "SESSIONS", "LAST LOAD"]
    rows = []
    for rule in rules:
        row = [rule.rule_path, _scope(rule), "pokayokay" if rule.is_pokayokay else "-"]
        effect = stats.by_rule.get(rule.rel_path)
        if stats.available and effect is not None:
            if rule.paths is None:
                row += ["-", "-", "-"]  # session-start loads are not recorded
            else:
                row += [str(effect.loads), str(effect.sessions), _when(effect.last_load)]
        rows.append(row)
    managed = sum(rule.is_pokayokay for rule in rules)
    lines = [
        f"{len(rules)} rule{'s' if len(rules) != 1 else ''} in .claude/rules/ "
        f"({managed} managed by pokayokay)",
        "",
        _table(header, rows),
    ]
    misloaded = [rule.rule_path for rule in rules if _errors(rule)]
    if misloaded:
        lines += [
            "",
            f"Loaded other than intended: {', '.join(misloaded)} (see `pokayokay rules lint`)",
        ]
    if not stats.available:
        lines += ["", "(no load counts yet: the InstructionsLoaded hook has recorded nothing)"]
    return EXIT_OK, "\n".join(lines)


def _errors(rule: RuleFile) -> list[LintFinding]:
    return [f for f in lint_rule(rule, None) if f.severity == "error"]


def cmd_rules_show(project_dir: Path | str, rule: str, *, as_json: bool) -> tuple[int, str]:
    """One rule in full: scope, bookkeeping, loads, lint findings and text."""
    project = Path(project_dir)
    rules = discover(project)
    found = find_rule(rules, rule)
    stats = rule_load_stats(project, [found])
    findings = lint_rule(found, None)
    if as_json:
        data = _rule_dict(found, stats)
        data.update(
            paths_as_written=_jsonable(found.frontmatter.get("paths")),
            frontmatter=_jsonable(dict(found.frontmatter)),
            findings=[_finding_dict(f) for f in findings],
            body=found.body,
        )
        return EXIT_OK, _dump(data)
    lines = [f"{found.rule_path}  ({found.rel_path})"]
    lines.append(f"id: {found.id}" + ("  ·  managed by pokayokay" if found.is_pokayokay else ""))
    if found.skipped is not None:
        lines.append(f"not loaded by Claude Code: {found.skipped}")
    elif found.paths is None:
        lines.append("scope: always loaded (at the start of every session)")
    else:
        lines.append("scope: loaded when Claude reads a file matching")
        lines += [f"  {pattern}" for pattern in found.paths]
        written = found.frontmatter.get("paths")
        if written != list(found.paths):
            lines.append(f"  (as written: paths: {json.dumps(_jsonable(written))})")
    if found.bookkeeping is not None:
        book = found.bookkeeping
        if book.graduated:
            lines.append(f"graduated: {book.graduated}")
        if book.signatures:
            lines.append(f"signatures: {', '.join(book.signatures)}")
    effect = stats.by_rule.get(found.rel_path)
    if stats.available and effect is not None and found.paths is not None:
        lines.append(
            f"loads: {effect.loads} in {effect.sessions} session"
            f"{'s' if effect.sessions != 1 else ''}; first {_when(effect.first_load)}, "
            f"last {_when(effect.last_load)}"
        )
        if found.signatures:
            if effect.recurred:
                lines.append(
                    f"failure recurred after the first load: {effect.recurrences} time"
                    f"{'s' if effect.recurrences != 1 else ''} in {effect.recurrence_sessions} "
                    f"session{'s' if effect.recurrence_sessions != 1 else ''}, last "
                    f"{_when(effect.last_recurrence)}"
                )
            else:
                lines.append("failure recurred after the first load: no")
            if found.is_pokayokay and should_retire(effect, stats.retire_after):
                lines.append(
                    f"retire: due (loaded in ≥ {stats.retire_after} sessions, no recurrence)"
                )
    if findings:
        lines.append("problems:")
        lines += [f"  {f.severity}: {f.message}" for f in findings]
    lines += ["", found.body.rstrip("\n")]
    from pokayokay.safety.redact import redact

    return EXIT_OK, redact("\n".join(lines))


def _jsonable(value: object) -> Any:
    return json.loads(json.dumps(value, default=str))


def _finding_dict(finding: LintFinding) -> dict[str, Any]:
    return asdict(finding)  # rule, code, severity, message, pattern: the --json keys


def cmd_rules_match(project_dir: Path | str, path: str, *, as_json: bool) -> tuple[int, str]:
    """Which rules Claude Code loads when Claude reads ``path`` (absolute, relative to the
    current folder when that is inside the project, else relative to the project)."""
    project = Path(project_dir)
    rel = _project_relative(project, path)
    rules = discover(project)
    matched = match_rules(rules, rel)
    always = always_loaded(rules)
    if as_json:
        return EXIT_OK, _dump(
            {
                "path": rel,
                "matched": [
                    {"path": rule.rel_path, "rule_path": rule.rule_path, "id": rule.id,
                     "pattern": pattern}
                    for rule, pattern in matched
                ],
                "always_loaded": [
                    {"path": rule.rel_path, "rule_path": rule.rule_path, "id": rule.id}
                    for rule in always
                ],
            }
        )  # fmt: skip
    lines = []
    if rel == "" or rel.startswith("..") or os.path.isabs(rel):
        lines.append(f"{path} is outside the project: no path-scoped rule can match it.")
    elif matched:
        lines.append(f"Reading {rel} makes Claude Code load:")
        width = max(len(rule.rule_path) for rule, _ in matched)
        lines += [
            f"  {rule.rule_path.ljust(width)}  (pattern {pattern})" for rule, pattern in matched
        ]
    else:
        lines.append(f"No path-scoped rule matches {rel}.")
    if always:
        lines.append("Always loaded (session start): " + ", ".join(r.rule_path for r in always))
    return EXIT_OK, "\n".join(lines)


def _project_relative(project: Path, path: str) -> str:
    if os.path.isabs(path):
        return normalise_rel_path(project, path)
    cwd = os.getcwd()
    cwd_rel = normalise_rel_path(project, cwd)
    if cwd_rel and not cwd_rel.startswith(".."):  # run from a subfolder of the project
        return normalise_rel_path(project, os.path.join(cwd, path))
    return normalise_rel_path(project, path)


def cmd_rules_lint(
    project_dir: Path | str,
    *,
    as_json: bool,
    files: Sequence[str] | None = None,
) -> tuple[int, str]:
    """Every frontmatter problem that makes Claude Code load a rule other than intended.
    Exit 1 when there is any finding."""
    project = Path(project_dir)
    rules = discover(project)
    listed = list_project_files(project) if files is None else files
    findings = [finding for rule in rules for finding in lint_rule(rule, listed)]
    code = EXIT_CHANGES_DUE if findings else EXIT_OK
    if as_json:
        return code, _dump({"rules": len(rules), "findings": [_finding_dict(f) for f in findings]})
    if not findings:
        return code, f"{len(rules)} rule{'s' if len(rules) != 1 else ''} checked: no problems."
    lines = []
    for finding in findings:
        lines.append(f"{finding.rule}: {finding.severity}: [{finding.code}] {finding.message}")
    errors = sum(f.severity == "error" for f in findings)
    lines.append(
        f"{len(findings)} problem{'s' if len(findings) != 1 else ''} "
        f"({errors} error{'s' if errors != 1 else ''}) in {len(rules)} rules"
    )
    return code, "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Retiring a rule


def cmd_rules_retire(
    project_dir: Path | str,
    location: MemoryLocation,
    settings: Settings,
    rule: str | None,
    *,
    due: bool,
    today: date | None = None,
) -> tuple[int, str]:
    """``pokayokay rules retire RULE`` (one pokayokay rule, due or not) or ``--due`` (every
    rule due for retirement)."""
    if due == (rule is not None):
        raise PokayokayError("give either a rule to retire or --due, not both")
    project = Path(project_dir)
    day = today or date.today()
    if rule is None:
        lines = retire_due_rules(project, location, settings, today=day)
        if not lines:
            return EXIT_OK, (
                "No rule is due for retirement (due: loaded in at least "
                f"{settings.retire_after_sessions} sessions with no recurrence of its failure)."
            )
        return EXIT_OK, "\n".join(lines)
    managed = [found for found in discover(project) if found.is_pokayokay]
    if not managed:
        raise PokayokayError("there is no pokayokay rule in .claude/rules/pokayokay/")
    found = find_rule(managed, rule)
    return EXIT_OK, retire_one(
        project, location, settings, found, today=day, reason="Retired by hand."
    )
