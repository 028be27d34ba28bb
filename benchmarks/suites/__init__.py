"""The benchmark rows, grouped by area. ``all_specs`` lists them in the table's order; every
hook row is built by ``suites.common.hook_case``."""

from __future__ import annotations

from benchmarks.fixtures.lab import Lab
from benchmarks.harness import Spec
from benchmarks.suites import (
    budgets,
    capture,
    commands,
    learnings,
    lessons,
    realistic,
    recall,
    session,
    startup,
)


def all_specs(lab: Lab) -> list[Spec]:
    """Every row, in the table's order. Fails early (SystemExit) when the `pokayokay` console
    script cannot be found, before any fixture is built."""
    lab.console_script()
    return [
        *startup.specs(),
        *session.specs(),
        *capture.specs(),
        *lessons.specs(),
        *recall.specs(),
        recall.suggest_spec(),
        recall.suggest_failing_spec(),
        *session.notification_specs(),
        *commands.specs(),
        *learnings.specs(),
        *realistic.specs(),
        *budgets.specs(),
    ]
