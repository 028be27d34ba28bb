"""Graduation's edit of MEMORY.md (pure): the Active Patterns entries of graduated rules and the
Topic Index link to recurring-failures.md, and the check that the edit touched nothing else."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pokayokay.errors import InvariantViolation
from pokayokay.memory.curation import archive_link_re
from pokayokay.memory.document import (
    Document,
    Entry,
    Prose,
    Section,
    Unit,
    is_blank,
    parse,
    same_unmanaged,
    strip_eol,
    units_lines,
)
from pokayokay.memory.sections import TOPIC_INDEX_ID, Settings
from pokayokay.rules.graduation import (
    ACTIVE_PATTERNS_ID,
    RECURRING_FILE,
    RULES_DIR,
    TOPIC_LINK_LINE,
    GraduationPlan,
)
from pokayokay.rules.rule_text import rule_ids_in


@dataclass(frozen=True)
class MemoryEdit:
    original: str
    text: str
    replaced: tuple[str, ...] = ()  # rule ids whose entry was rewritten in place
    added: tuple[str, ...] = ()  # rule ids whose entry was appended
    skipped: tuple[str, ...] = ()  # rule ids left out: no room in the section's budget
    linked_topic: bool = False
    notes: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        return self.text != self.original


def _rule_entry_id(entry: Entry) -> str | None:
    """The rule an entry points at, when it is one of pokayokay's rule entries."""
    ids = set(rule_ids_in(entry.text))
    return ids.pop() if len(ids) == 1 else None


def _append(section: Section, entries: Sequence[str], newline: str) -> None:
    """Append entries after the last non-blank unit of ``section``."""
    units = section.units
    cut = len(units)
    while (
        cut and isinstance(units[cut - 1], Prose) and all(is_blank(x) for x in units[cut - 1].lines)
    ):
        cut -= 1
    if cut and not units[cut - 1].lines[-1].endswith("\n"):
        units[cut - 1].lines[-1] += newline
    new = [Entry([f"{text}{newline}"]) for text in entries]
    section.units = [*units[:cut], *new, *units[cut:]]


def _room(section: Section, settings: Settings, section_id: str) -> int:
    spec = settings.section(section_id)
    if spec is None:
        return 0
    room = spec.budget - units_lines(section.units)
    if spec.max_entries is not None:
        room = min(room, spec.max_entries - len(section.entries))
    return max(0, room)


def edit_memory(text: str, plan: GraduationPlan, settings: Settings) -> MemoryEdit:
    """MEMORY.md ``text`` with the plan's Active Patterns entries in place (pure).

    Only units of the Active Patterns section change: an entry linking a rule of the plan is
    rewritten in place (a second entry for the same rule is dropped), rules without an entry get
    one appended while the section's line budget has room (the others are reported as skipped,
    so curation never has to evict what graduation just wrote), and everything else — Claude's
    entries, entries of rules the plan does not cover — stays byte for byte. The Topic Index gets
    a link to ``recurring-failures.md`` when it has none and has room.
    """
    doc = parse(text, settings.sections)
    notes: list[str] = []
    section = doc.section(ACTIVE_PATTERNS_ID)
    if settings.section(ACTIVE_PATTERNS_ID) is None or section is None:
        notes.append(
            "MEMORY.md has no managed Active Patterns section, so no entry points at the rules"
        )
        return MemoryEdit(text, text, notes=tuple(notes))
    newline = doc.newline
    entries = {rule.id: rule.entry for rule in plan.rules}
    seen: set[str] = set()
    replaced: list[str] = []
    units: list[Unit] = []
    for unit in section.units:
        rule_id = _rule_entry_id(unit) if isinstance(unit, Entry) else None
        if rule_id is None or rule_id not in entries:
            units.append(unit)
            continue
        if rule_id in seen:
            continue  # a second entry for the same rule
        seen.add(rule_id)
        ending = newline if unit.lines[-1].endswith("\n") else ""
        units.append(Entry([entries[rule_id] + ending]))
        replaced.append(rule_id)
    section.units = units
    missing = sorted(
        (rule for rule in plan.rules if rule.id not in seen),
        key=lambda r: (-r.sessions, r.id),
    )
    room = _room(section, settings, ACTIVE_PATTERNS_ID)
    added = [rule.id for rule in missing[:room]]
    skipped = tuple(rule.id for rule in missing[room:])
    if added:
        _append(section, [entries[rule_id] for rule_id in added], newline)
    if skipped:
        notes.append(
            "Active Patterns is at its line budget: no entry for "
            + ", ".join(f"{RULES_DIR}/{rule_id}.md" for rule_id in skipped)
            + " (the rule files load anyway)"
        )
    linked = _link_topic(doc, settings, newline, notes) if plan.recorded else False
    return MemoryEdit(
        original=text,
        text=doc.render(),
        replaced=tuple(replaced),
        added=tuple(added),
        skipped=skipped,
        linked_topic=linked,
        notes=tuple(notes),
    )


def _link_topic(doc: Document, settings: Settings, newline: str, notes: list[str]) -> bool:
    index = doc.section(TOPIC_INDEX_ID)
    if index is None:
        return False
    pattern = archive_link_re(RECURRING_FILE)
    if any(pattern.search(entry.text) for entry in index.entries):
        return False
    if _room(index, settings, TOPIC_INDEX_ID) < 1:
        notes.append(f"the Topic Index is full: {RECURRING_FILE} is not linked from MEMORY.md")
        return False
    _append(index, [TOPIC_LINK_LINE], newline)
    return True


def _section_texts(doc: Document) -> list[tuple[str, str]]:
    return [(s.spec.id, s.render()) for s in doc.sections()]


def _non_rule_lines(section: Section | None) -> list[str]:
    if section is None:
        return []
    out: list[str] = []
    for unit in section.units:
        if isinstance(unit, Entry) and _rule_entry_id(unit) is not None:
            continue
        out.extend(strip_eol(line) for line in unit.lines if not is_blank(line))
    return out


def check_memory_edit(original: str, new: str, plan: GraduationPlan, settings: Settings) -> None:
    """Raise InvariantViolation unless ``new`` is ``original`` with only pokayokay's own edits.

    1. Text outside managed sections is unchanged (byte for byte).
    2. Managed sections other than Active Patterns and the Topic Index render identically.
    3. Active Patterns keeps every line that is not a pokayokay rule entry, in order, and its
       heading and markers; the Topic Index only gains the link to ``recurring-failures.md``.
    4. Editing again changes nothing.
    """
    before, after = parse(original, settings.sections), parse(new, settings.sections)
    if not same_unmanaged(before, after):
        raise InvariantViolation("graduation would change text outside managed sections")
    mine = {ACTIVE_PATTERNS_ID, TOPIC_INDEX_ID}
    old_other = [item for item in _section_texts(before) if item[0] not in mine]
    new_other = [item for item in _section_texts(after) if item[0] not in mine]
    if old_other != new_other:
        raise InvariantViolation("graduation would change a managed section it does not own")
    for section_id in sorted(mine):
        old_sec, new_sec = before.section(section_id), after.section(section_id)
        if (old_sec is None) != (new_sec is None):
            raise InvariantViolation(f"graduation would add or remove the section {section_id}")
        if old_sec is None or new_sec is None:
            continue
        if (old_sec.heading, old_sec.marker, old_sec.end) != (
            new_sec.heading,
            new_sec.marker,
            new_sec.end,
        ):
            raise InvariantViolation(f"graduation would change the structure of {section_id}")
    old_ap = _non_rule_lines(before.section(ACTIVE_PATTERNS_ID))
    new_ap = _non_rule_lines(after.section(ACTIVE_PATTERNS_ID))
    if old_ap != new_ap:
        raise InvariantViolation("graduation would change an Active Patterns entry it does not own")
    old_index, new_index = before.section(TOPIC_INDEX_ID), after.section(TOPIC_INDEX_ID)
    if old_index is not None and new_index is not None:
        old_lines = [strip_eol(x) for x in old_index.body_lines if not is_blank(x)]
        new_lines = [strip_eol(x) for x in new_index.body_lines if not is_blank(x)]
        if new_lines != old_lines and new_lines != [*old_lines, TOPIC_LINK_LINE]:
            raise InvariantViolation("graduation would change the Topic Index beyond its link")
    again = edit_memory(new, plan, settings)
    if again.changed:
        raise InvariantViolation("graduating again would change MEMORY.md once more")
