"""Retiring graduated rules: a rule whose failure stopped recurring while it loaded (or one retired
by hand) has its text moved to rules-archive.md in the memory folder, its file deleted and its
Active Patterns entry removed; nothing is lost."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from pokayokay.errors import PokayokayError
from pokayokay.names import RULES_ARCHIVE_FILE
from pokayokay.rules.effectiveness import (
    should_retire,
)
from pokayokay.rules.files import (
    RuleFile,
    discover,
    find_rule,
)
from pokayokay.rules.load_stats import rule_load_stats

if TYPE_CHECKING:
    from pokayokay.infra.locate import MemoryLocation
    from pokayokay.memory.sections import Settings


ARCHIVE_NAME = RULES_ARCHIVE_FILE


ARCHIVE_HEADER = (
    "# Retired rules\n\n"
    "Rules pokayokay retired from `.claude/rules/pokayokay/` because their failure stopped "
    "recurring. Kept here verbatim so nothing is lost; Claude Code does not load this file on "
    "its own.\n"
)


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


def archive_entry(
    rule: RuleFile,
    text: str,
    day: date,
    reason: str | None = None,
    *,
    at: datetime | None = None,
) -> str:
    """The markdown appended to ``rules-archive.md`` for a retired rule. ``at``: the moment of
    retirement, recorded to the second (without it, only ``day``)."""
    from pokayokay.rules.rule_text import retired_line

    heading = f"## {day.isoformat()} — retired `{rule.id}` ({rule.rel_path})"
    fence = _fence(text)
    parts = [heading, "", retired_line(rule.id, rule.signatures, at or day), ""]
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
    from pokayokay.infra.safe_write import file_lock, read_bytes, update
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
    # Retired now: the moment is recorded, so a failure later the same day brings the rule
    # back. A caller naming another day (a replay, a test) records that day only.
    now = datetime.now(timezone.utc)
    day = today or date.today()
    at = now if day == date.today() else None
    entry = archive_entry(rule, text, day, reason, at=at)
    location.memory_dir.mkdir(parents=True, exist_ok=True)
    target = checked_target(location, ARCHIVE_NAME)
    def append_entry(current: bytes | None) -> bytes:
        if current is None:
            return f"{ARCHIVE_HEADER}\n{entry}".encode("utf-8", "surrogateescape")
        old = current.decode("utf-8", "surrogateescape")
        sep = "" if old.endswith("\n\n") else "\n" if old.endswith("\n") else "\n\n"
        return f"{old}{sep}{entry}".encode("utf-8", "surrogateescape")

    with file_lock(lock_path(location), lock_timeout):
        update(target, append_entry)
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


def retire_one(
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
    stats = rule_load_stats(project, rules, retire_after, exact=False)
    if not stats.available:
        return []
    lines: list[str] = []
    for rule in rules:
        effect = stats.by_rule.get(rule.rel_path)
        if effect is None or not should_retire(effect, retire_after):
            continue
        first = datetime.fromtimestamp(effect.first_load or 0, timezone.utc).date()
        reason = (
            f"Loaded in {effect.sessions} session{'' if effect.sessions == 1 else 's'} since "
            f"{first.isoformat()}; the failure did "
            "not recur after the first load."
        )
        try:
            lines.append(retire_one(project, location, settings, rule, today=day, reason=reason))
        except PokayokayError as exc:
            lines.append(f"kept {rule.rel_path}: {exc}")
    return lines
