"""Seed 002's capture measures (pure): SC-4, the share of session captures among the learnings
recall draws from (at most 40% is the goal), and SC-5, session captures in the last 7 days (at
least 3 a week in active use is the goal)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta, timezone
from typing import Any

from pokayokay.learnings.model import Learning

SESSION_CAPTURE_SOURCE = "session-capture"  # as pokayokay.learnings.capture.remember stores it
SHARE_GOAL = 40.0  # SC-4: at most this percentage
WEEKLY_GOAL = 3  # SC-5: at least this many a week
WEEK = timedelta(days=7)


def _when(stamp: str) -> datetime | None:
    try:
        value = datetime.fromisoformat(stamp.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return value if value.tzinfo is not None else value.replace(tzinfo=timezone.utc)


def capture_metrics(learnings: Iterable[Learning], now: datetime) -> dict[str, Any]:
    """``learnings``, ``session_captures``, ``capture_share`` (percent, one decimal; None with
    no learnings) and ``captures_last_7_days``, with the seed's goals and whether they are met."""
    total = captures = weekly = 0
    for learning in learnings:
        total += 1
        if learning.source != SESSION_CAPTURE_SOURCE:
            continue
        captures += 1
        created = _when(learning.created)
        if created is not None and now - WEEK < created <= now:
            weekly += 1
    share = round(100.0 * captures / total, 1) if total else None
    return {
        "learnings": total,
        "session_captures": captures,
        "capture_share": share,
        "capture_share_goal": SHARE_GOAL,
        "capture_share_ok": share is None or share <= SHARE_GOAL,
        "captures_last_7_days": weekly,
        "captures_weekly_goal": WEEKLY_GOAL,
        "captures_weekly_ok": weekly >= WEEKLY_GOAL,
    }
