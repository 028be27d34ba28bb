"""Team graduation (pure): the evidence line names teammates and sessions, the same records give
the same bytes whatever the local clock, and a tombstone retires a mistake for every clone until
a record shows a failure after it."""

from __future__ import annotations

from datetime import date, datetime, timezone

from helpers.graduation import DAY, FILES, T0

from pokayokay.failures.signature import short_id
from pokayokay.rules.graduation import plan_graduation
from pokayokay.rules.team_view import TeamView
from pokayokay.team.aggregate import TeamEvidence, graduating, team_evidence
from pokayokay.team.records import EVIDENCE, TeamRecord, tombstone

MISTAKE = "test:tests/test_cart.py::test_total"


def rec(sessions: int, last: float, mistake: str = MISTAKE) -> TeamRecord:
    return TeamRecord(EVIDENCE, mistake, "testing", sessions, sessions * 2, int(T0), int(last),
                      ("tests/test_cart.py",), ("src/cart/models.py",), "pytest tests/test_cart.py")


def plan(evidence: TeamEvidence, today: date, existing: dict[str, str] | None = None) -> object:
    return plan_graduation(
        list(evidence.groups),
        threshold=3,
        project_files=FILES,
        existing_rules=existing or {},
        today=today,
        retired={k: datetime.fromtimestamp(v, timezone.utc) for k, v in evidence.retired.items()},
        team=TeamView(graduating(evidence, 3, 2), evidence.teammates),
    )


def test_two_teammates_graduate_with_the_evidence_line_saying_so() -> None:
    evidence = team_evidence({"aaaa": [rec(1, T0 + DAY)], "bbbb": [rec(3, T0 + 2 * DAY)]})
    result = plan(evidence, date(2030, 1, 1))
    (rule,) = result.rules  # type: ignore[attr-defined]
    assert "2 teammates, 4 sessions" in rule.text
    # One teammate with two sessions: below both the threshold and k.
    assert plan(team_evidence({"aaaa": [rec(2, T0)]}), date(2030, 1, 1)).rules == ()  # type: ignore[attr-defined]


def test_the_same_records_give_the_same_bytes_whatever_the_clock() -> None:
    files = {"aaaa": [rec(1, T0 + DAY)], "bbbb": [rec(1, T0 + 3 * DAY)]}
    first = plan(team_evidence(files), date(2026, 1, 1))
    later = plan(team_evidence(dict(reversed(list(files.items())))), date(2031, 6, 30))
    assert [r.text for r in first.rules] == [r.text for r in later.rules]  # type: ignore[attr-defined]
    assert first.recurring_failures == later.recurring_failures  # type: ignore[attr-defined]
    # A clone that graduated earlier (its rule file on disk, dated then) converges too.
    early = plan(team_evidence({"aaaa": [rec(1, T0 + DAY)], "bbbb": [rec(1, T0 + DAY)]}),
                 date(2026, 1, 1))
    existing = {r.path: r.text for r in early.rules}  # type: ignore[attr-defined]
    again = plan(team_evidence(files), date(2027, 1, 1), existing)
    assert [r.text for r in again.rules] == [r.text for r in first.rules]  # type: ignore[attr-defined]


def test_a_tombstone_retires_for_everyone_and_only_new_evidence_revives() -> None:
    retired_at = T0 + 10 * DAY
    old = {"aaaa": [rec(2, T0 + 5 * DAY), tombstone(MISTAKE, retired_at)],
           "bbbb": [rec(2, T0 + 9 * DAY)]}
    assert plan(team_evidence(old), date(2030, 1, 1)).rules == ()  # type: ignore[attr-defined]
    # A teammate pushing its old records again (same last failure) changes nothing.
    old["cccc"] = [rec(1, T0 + 8 * DAY)]
    assert plan(team_evidence(old), date(2030, 1, 1)).rules == ()  # type: ignore[attr-defined]
    # A failure after the retirement, from any teammate, brings the rule back.
    old["cccc"] = [rec(2, retired_at + DAY)]
    assert len(plan(team_evidence(old), date(2030, 1, 1)).rules) == 1  # type: ignore[attr-defined]


def test_a_teammates_tombstone_empties_an_existing_rule() -> None:
    files: dict[str, list[TeamRecord]] = {
        "aaaa": [rec(2, T0 + 5 * DAY)], "bbbb": [rec(2, T0 + 6 * DAY)]
    }
    (rule,) = plan(team_evidence(files), date(2030, 1, 1)).rules  # type: ignore[attr-defined]
    files["aaaa"].append(tombstone(short_id(MISTAKE), T0 + 7 * DAY))
    after = plan(team_evidence(files), date(2030, 1, 1), {rule.path: rule.text})
    assert after.rules == ()  # type: ignore[attr-defined]
    assert after.untouched == (rule.id,)  # type: ignore[attr-defined]
