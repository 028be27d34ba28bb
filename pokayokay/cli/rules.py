"""``pokayokay rules list | show RULE | match PATH | lint | retire RULE|--due``.

Each ``cmd_*`` returns ``(exit code, text to print)``; bad input (an unknown rule) raises
:class:`~pokayokay.errors.PokayokayError` like the other commands. Load counts come from the
project's failure store when it exists; listing never creates it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pokayokay.errors import EXIT_CHANGES_DUE, EXIT_OK, PokayokayError
from pokayokay.infra.git import list_project_files
from pokayokay.rules.effectiveness import (
    DEFAULT_RETIRE_AFTER_SESSIONS,
    RuleEffectiveness,
    assess_all,
    should_retire,
)
from pokayokay.rules.files import RuleFile, always_loaded, discover, match_rules, normalise_rel_path
from pokayokay.rules.lint import LintFinding, lint_rule

if TYPE_CHECKING:
    from pokayokay.infra.locate import MemoryLocation
    from pokayokay.memory.sections import Settings

ARCHIVE_NAME = "rules-archive.md"  # == graduation.RULES_ARCHIVE
ARCHIVE_HEADER = (
    "# Retired rules\n\n"
    "Rules pokayokay retired from `.claude/rules/pokayokay/` because their failure stopped "
    "recurring. Kept here verbatim so nothing is lost; Claude Code does not load this file on "
    "its own.\n"
)
_ATTEMPTS = 5


# ---------------------------------------------------------------------------------------------
# Load statistics (optional: only when the store exists)


@dataclass(frozen=True)
class _Stats:
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
    except Exception:
        return DEFAULT_RETIRE_AFTER_SESSIONS
    value = getattr(settings, "retire_after_sessions", DEFAULT_RETIRE_AFTER_SESSIONS)
    return value if isinstance(value, int) and value >= 1 else DEFAULT_RETIRE_AFTER_SESSIONS


def _stats(project_dir: Path, rules: Sequence[RuleFile], retire_after: int | None = None) -> _Stats:
    if retire_after is None:
        retire_after = _retire_after(project_dir)
    try:
        from pokayokay.failures.signature import short_id
        from pokayokay.failures.store import FailureStore
        from pokayokay.infra.locate import find_git_root
    except ImportError:
        return _Stats(False, {}, retire_after, None)
    key = find_git_root(project_dir) or Path(os.path.realpath(project_dir))
    store = FailureStore.for_project(key)
    if not store.path.exists():
        return _Stats(False, {}, retire_after, store.path)
    with store:
        loads = store.rule_loads()
        wanted = {sig for rule in rules for sig in rule.signatures}
        full: set[str] = set()
        if wanted:
            for group in store.failure_groups():
                if group.signature in wanted or short_id(group.signature) in wanted:
                    full.add(group.signature)
        failures = store.failures(signatures=sorted(full)) if full else []
    by_path = {store_rule_path(project_dir, rule): list(rule.signatures) for rule in rules}
    assessed = assess_all(by_path, loads, failures)
    by_rule = {rule.rel_path: assessed[store_rule_path(project_dir, rule)] for rule in rules}
    return _Stats(True, by_rule, retire_after, store.path)


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


def _rule_dict(rule: RuleFile, stats: _Stats) -> dict[str, Any]:
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
    return json.dumps(data, indent=2, ensure_ascii=False)


# ---------------------------------------------------------------------------------------------
# Commands


def cmd_rules_list(project_dir: Path | str, *, as_json: bool) -> tuple[int, str]:
    """Every rule: path, scope (its patterns, or "always loaded"), whether pokayokay manages it,
    and, when the failure store exists, how often and when Claude Code last loaded it."""
    project = Path(project_dir)
    rules = discover(project)
    stats = _stats(project, rules)
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


def find_rule(rules: Sequence[RuleFile], name: str) -> RuleFile:
    """The rule ``name`` designates: its id, its path under .claude/rules/ (with or without
    ``.md``), its project-relative path, or its file path."""
    wanted = name.replace(os.sep, "/").strip()
    candidates = [
        rule
        for rule in rules
        if wanted
        in (
            rule.id,
            rule.rule_path,
            rule.rule_path.removesuffix(".md"),
            rule.rel_path,
            str(rule.path),
        )
    ]
    if not candidates and os.path.exists(name):
        real = os.path.realpath(name)
        candidates = [rule for rule in rules if os.path.realpath(rule.path) == real]
    if len(candidates) > 1:
        exact = [rule for rule in candidates if wanted in (rule.rule_path, rule.rel_path)]
        candidates = exact or candidates
    if not candidates:
        known = ", ".join(rule.rule_path for rule in rules) or "none"
        raise PokayokayError(f"no rule {name!r} in .claude/rules/ (rules: {known})")
    if len(candidates) > 1:
        names = ", ".join(rule.rule_path for rule in candidates)
        raise PokayokayError(f"{name!r} names several rules ({names}); give its path")
    return candidates[0]


def cmd_rules_show(project_dir: Path | str, rule: str, *, as_json: bool) -> tuple[int, str]:
    """One rule in full: scope, bookkeeping, loads, lint findings and text."""
    project = Path(project_dir)
    rules = discover(project)
    found = find_rule(rules, rule)
    stats = _stats(project, [found])
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
    return EXIT_OK, "\n".join(lines)


def _jsonable(value: object) -> Any:
    return json.loads(json.dumps(value, default=str))


def _finding_dict(finding: LintFinding) -> dict[str, Any]:
    return {
        "rule": finding.rule,
        "code": finding.code,
        "severity": finding.severity,
        "message": finding.message,
        "pattern": finding.pattern,
    }


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


@dataclass(frozen=True)
class RetireResult:
    rule: str  # project-relative path of the deleted rule file
    archive: Path
    heading: str


def _fence(text: str) -> str:
    longest = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    return "`" * max(3, longest + 1)


def archive_entry(rule: RuleFile, text: str, day: date, reason: str | None = None) -> str:
    """The markdown appended to ``rules-archive.md`` for a retired rule."""
    from pokayokay.rules.rule_text import retired_line

    heading = f"## {day.isoformat()} — retired `{rule.id}` ({rule.rel_path})"
    fence = _fence(text)
    parts = [heading, "", retired_line(rule.id, rule.signatures, day), ""]
    if reason:
        parts += [reason, ""]
    body = text if text.endswith("\n") else text + "\n"
    parts += [f"{fence}markdown", body.rstrip("\n"), fence, ""]
    return "\n".join(parts)


def retire(
    project_dir: Path | str,
    location: MemoryLocation,
    rule_id: str,
    *,
    today: date | None = None,
    reason: str | None = None,
    lock_timeout: float = 10.0,
) -> RetireResult:
    """Move a pokayokay rule's text to ``<memory_dir>/rules-archive.md`` and delete the file.

    The archive is written first (atomically, under pokayokay's memory-folder lock, re-reading
    it if another writer changed it meanwhile) and checked; only then is the rule file removed,
    and only if it still holds the text that was archived.
    """
    from pokayokay.infra.safe_write import Conflict, file_lock, read_bytes, replace_if_unchanged
    from pokayokay.memory.apply import checked_target, lock_path

    project = Path(project_dir)
    rules = [rule for rule in discover(project) if rule.is_pokayokay]
    if not rules:
        raise PokayokayError("there is no pokayokay rule in .claude/rules/pokayokay/")
    rule = find_rule(rules, rule_id)
    data = read_bytes(rule.path)
    if data is None:
        raise PokayokayError(f"{rule.rel_path} vanished before it could be retired")
    text = data.decode("utf-8", "surrogateescape")
    entry = archive_entry(rule, text, today or date.today(), reason)
    location.memory_dir.mkdir(parents=True, exist_ok=True)
    target = checked_target(location, ARCHIVE_NAME)
    with file_lock(lock_path(location), lock_timeout):
        for _ in range(_ATTEMPTS):
            current = read_bytes(target)
            if current is None:
                new_text = f"{ARCHIVE_HEADER}\n{entry}"
            else:
                old = current.decode("utf-8", "surrogateescape")
                sep = "" if old.endswith("\n\n") else "\n" if old.endswith("\n") else "\n\n"
                new_text = f"{old}{sep}{entry}"
            try:
                replace_if_unchanged(target, current, new_text.encode("utf-8", "surrogateescape"))
                break
            except Conflict:
                continue
        else:
            raise PokayokayError(f"{target} kept changing; the rule was not retired")
        archived = read_bytes(target) or b""
        if entry.encode("utf-8", "surrogateescape") not in archived:
            raise PokayokayError(f"could not confirm the archive {target}; rule kept")
        if read_bytes(rule.path) != data:
            raise PokayokayError(
                f"{rule.rel_path} changed while it was being retired: its previous text is in "
                f"{target}, the file was kept"
            )
        rule.path.unlink()
    return RetireResult(rule.rel_path, target, entry.splitlines()[0])


def _rule_link_id(rule: RuleFile) -> str:
    """The id Active Patterns links: the stem of ``.claude/rules/pokayokay/<id>.md``."""
    return Path(rule.rel_path).stem


def drop_active_pattern(
    location: MemoryLocation,
    settings: Settings,
    link_id: str,
    *,
    today: date | None = None,
) -> bool:
    """Remove the Active Patterns entries that link only ``.claude/rules/pokayokay/<link_id>.md``
    from MEMORY.md (through curation's locked, invariant-checked write). True when one left."""
    from pokayokay.infra.safe_write import read_bytes
    from pokayokay.memory.apply import SectionEdit, checked_target, run_curation
    from pokayokay.memory.document import parse
    from pokayokay.rules.graduation import ACTIVE_PATTERNS_ID
    from pokayokay.rules.rule_text import rule_ids_in

    if settings.section(ACTIVE_PATTERNS_ID) is None:
        return False

    def owns(text: str) -> bool:
        return set(rule_ids_in(text)) == {link_id}

    data = read_bytes(checked_target(location))
    if data is None:
        return False
    section = parse(data.decode("utf-8", "surrogateescape"), settings.sections).section(
        ACTIVE_PATTERNS_ID
    )
    if section is None or not any(owns(entry.text) for entry in section.entries):
        return False
    edit = SectionEdit(ACTIVE_PATTERNS_ID, entries=(), owns=owns)
    outcome = run_curation(location, settings, write=True, today=today, evict=False, edit=edit)
    return outcome.written


def _retire_one(
    project: Path,
    location: MemoryLocation,
    settings: Settings,
    rule: RuleFile,
    *,
    today: date,
    reason: str | None,
) -> str:
    result = retire(project, location, rule.id, today=today, reason=reason)
    dropped = drop_active_pattern(location, settings, _rule_link_id(rule), today=today)
    line = f"retired {result.rule} (text kept in {result.archive})"
    return line + ("; its Active Patterns entry removed" if dropped else "")


def retire_due_rules(
    project_dir: Path | str,
    location: MemoryLocation,
    settings: Settings,
    *,
    today: date | None = None,
) -> list[str]:
    """Retire every pokayokay rule :func:`should_retire` says is due (loaded in at least
    ``settings.retire_after_sessions`` sessions, its failure not recurring since the first
    load — the statistics of ``rules list``): archive its text, delete the file, remove its
    Active Patterns entry. One line per rule retired (or kept because of an error)."""
    project = Path(project_dir)
    day = today or date.today()
    retire_after = max(1, int(settings.retire_after_sessions))
    rules = [rule for rule in discover(project) if rule.is_pokayokay]
    stats = _stats(project, rules, retire_after)
    if not stats.available:
        return []
    lines: list[str] = []
    for rule in rules:
        effect = stats.by_rule.get(rule.rel_path)
        if effect is None or not should_retire(effect, retire_after):
            continue
        first = datetime.fromtimestamp(effect.first_load or 0, timezone.utc).date()
        reason = (
            f"Loaded in {effect.sessions} sessions since {first.isoformat()}; the failure did "
            "not recur after the first load."
        )
        try:
            lines.append(_retire_one(project, location, settings, rule, today=day, reason=reason))
        except PokayokayError as exc:
            lines.append(f"kept {rule.rel_path}: {exc}")
    return lines


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
    return EXIT_OK, _retire_one(
        project, location, settings, found, today=day, reason="Retired by hand."
    )
