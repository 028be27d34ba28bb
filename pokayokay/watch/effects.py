"""What pokayokay watch does when the dispatcher says so: curate MEMORY.md, lint one rule file,
fingerprint files and folders."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from pokayokay.infra.git import list_project_files
from pokayokay.infra.locate import MemoryLocation
from pokayokay.infra.regular import read_regular
from pokayokay.memory.sections import Settings
from pokayokay.rules import lint
from pokayokay.watch.dispatcher import (
    LOCK_TIMEOUT,
    CurateReport,
    Effects,
    RuleLinter,
)


def file_digest(path: Path) -> str | None:
    try:
        data = read_regular(path)
    except OSError:
        return None
    return hashlib.sha256(data).hexdigest()


def dir_identity(path: Path) -> object | None:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISDIR(st.st_mode) else None


def list_rule_files(rules_dir: Path) -> list[Path]:
    try:
        return sorted(p for p in rules_dir.rglob("*.md") if p.is_file())
    except OSError:
        return []


def curate_memory(location: MemoryLocation, settings: Settings) -> CurateReport:
    """Curate for real, and say in one line what happened."""
    from pokayokay.infra.safe_write import encode_text
    from pokayokay.memory.apply import run_curation
    from pokayokay.memory.outcome_view import curation_lines

    outcome = run_curation(location, settings, write=True, lock_timeout=LOCK_TIMEOUT)
    result = outcome.result
    if result is None:
        return CurateReport(f"no MEMORY.md at {location.memory_file}", None)
    notes = "".join(f"; note: {note}" for note in result.notes)
    if outcome.written:
        changes = "; ".join(curation_lines(outcome)) or "archives brought up to date"
        message = f"curated MEMORY.md: {changes}{notes}"
        return CurateReport(message, hashlib.sha256(encode_text(result.text)).hexdigest())
    settled = hashlib.sha256(encode_text(result.original)).hexdigest()
    return CurateReport(f"MEMORY.md within budget{notes}", settled)


def lint_rule_file(project_dir: Path, rule_file: Path) -> list[str]:
    """:mod:`pokayokay.rules.files`' lint of one rule file, as ``"<severity>: <message>"`` lines."""
    from pokayokay.rules import files as rules

    rule_path = rule_file.relative_to(rules.rules_dir(project_dir)).as_posix()
    rule = rules.read_rule(project_dir, rule_file, rule_path)
    findings = lint.lint_rule(rule, list_project_files(project_dir))
    return [f"{finding.severity}: {finding.message}" for finding in findings]


def real_effects(
    location: MemoryLocation, project_dir: Path, lint_rules: RuleLinter = lint_rule_file
) -> Effects:
    from pokayokay.config.settings import load_settings

    return Effects(
        curate=lambda settings: curate_memory(location, settings),
        lint=lambda path: lint_rules(project_dir, path),
        load_settings=lambda: load_settings(project_dir),
        digest=file_digest,
        dir_id=dir_identity,
        rule_files=list_rule_files,
    )
