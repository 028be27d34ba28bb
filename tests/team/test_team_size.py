"""Team memory's folder size by simulation (benchmarks/team_size.py): writers append and compact
their own files through the real edge, so the folder grows with mistakes, not with sessions."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.team_size import LIMIT, simulate


def test_a_small_team_for_a_month_stays_small(tmp_path: Path) -> None:
    result = simulate(people=3, days=20, per_day=2, kinds=120, seed=1, root=tmp_path)
    assert result.sessions == 120
    assert 0 < result.final_bytes < LIMIT // 10
    # Compaction keeps a writer's lines near one per mistake, whatever the sessions.
    assert result.lines <= result.mistakes * 3 + 3 * 17


@pytest.mark.slow
def test_ten_people_for_a_year_stay_under_one_megabyte(tmp_path: Path) -> None:
    result = simulate(people=10, days=250, per_day=1, kinds=400, seed=28, root=tmp_path)
    assert result.sessions == 2500
    assert result.largest_bytes < LIMIT
