"""Archive de-duplication is for an interrupted run's own batch only (its batch id): the same
line archived on two different days, or again after a run that landed, is two entries."""

from __future__ import annotations

import dataclasses
from datetime import date

from pokayokay.memory import invariants
from pokayokay.memory.curation import curate
from pokayokay.memory.sections import DEFAULT_SECTIONS, END_MARKER, Settings

KEY = next(s for s in DEFAULT_SECTIONS if s.id == "key_decisions")
ARCHIVE = KEY.archive


def _memory(entries: list[str]) -> str:
    return "\n".join(
        ["# Memory", "", "## Key Decisions", KEY.marker_line, *entries, END_MARKER, ""]
    )


SETTINGS = Settings(sections=(dataclasses.replace(KEY, budget=3),))
REPEATED = "- decided to pin pytest to 8.3 until the plugin catches up"


def test_the_same_line_archived_on_two_days_is_two_entries() -> None:
    day1, day2 = date(2026, 11, 20), date(2026, 11, 21)
    first = curate(_memory([REPEATED, "- b", "- c", "- d"]), SETTINGS, {}, day1)
    invariants.check(first, SETTINGS, {}, day1)
    archives = dict(first.archives)
    assert archives[ARCHIVE].count(REPEATED) == 1
    # Claude writes the very same decision again the next day; it is over budget again.
    again = first.text.replace("- b\n", f"{REPEATED}\n- b\n").replace("- d\n", "- d\n- e\n")
    second = curate(again, SETTINGS, archives, day2)
    invariants.check(second, SETTINGS, archives, day2)
    assert second.archives[ARCHIVE].count(REPEATED) == 2
    assert "## Archived 2026-11-21 from Key Decisions" in second.archives[ARCHIVE]


def test_the_same_line_archived_twice_on_one_day_after_a_run_landed_is_two_entries() -> None:
    day = date(2026, 11, 20)
    first = curate(_memory([REPEATED, "- b", "- c", "- d"]), SETTINGS, {}, day)
    archives = dict(first.archives)
    again = first.text.replace("- b\n", f"{REPEATED}\n- b\n").replace("- d\n", "- d\n- e\n")
    second = curate(again, SETTINGS, archives, day)
    invariants.check(second, SETTINGS, archives, day)
    assert second.archives[ARCHIVE].count(REPEATED) == 2


def test_a_rerun_of_an_interrupted_run_does_not_archive_twice() -> None:
    """The archive was written, MEMORY.md was not (killed, or a compare-and-swap lost to
    Claude appending a note): the rerun reads the same section and skips what is there."""
    day = date(2026, 11, 20)
    text = _memory([REPEATED, "- b", "- c", "- d"])
    first = curate(text, SETTINGS, {}, day)
    archives = dict(first.archives)
    # Claude appended a note to its own text meanwhile; the section is unchanged.
    rerun = curate(text + "- a note Claude added\n", SETTINGS, archives, day)
    invariants.check(rerun, SETTINGS, archives, day)
    assert ARCHIVE not in rerun.archives  # nothing new to append
    assert REPEATED not in rerun.text
    assert rerun.text.endswith("- a note Claude added\n")
