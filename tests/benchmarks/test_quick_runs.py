"""Quick mode's run counts: a row with a slow cycle (its untimed set-up and waits included)
gets one timed run, every other row its N; the row still runs, its checks included,
and the report names the rows that were cut. Full runs never cut."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from benchmarks.harness import Case, trimmed_note

# The benchmarks are a dev tool CI runs on its main Python only (decision 0155).
pytestmark = pytest.mark.one_python


def _case(tmp_path: Path, *, pause: float, runs: list[int], quick_after: float | None) -> Case:
    def before() -> None:  # the untimed set-up of each run; a slow one stands for a settle wait
        runs.append(len(runs))
        time.sleep(pause)

    env = dict(os.environ, POKAYOKAY_HOME=str(tmp_path / "state"))
    return Case(
        "row",
        [sys.executable, "-c", "pass"],
        3,
        tmp_path,
        env,
        before_each=before,
        quick_after_s=quick_after,
        interleave_floor=False,
    )


def test_a_slow_warm_up_cycle_leaves_one_timed_run_in_quick_mode(tmp_path: Path) -> None:
    runs: list[int] = []
    result = _case(tmp_path, pause=0.2, runs=runs, quick_after=0.1).measure()
    assert len(runs) == 2  # the warm-up, then one timed run
    assert len(result.times_ms) == 1
    assert result.extra == {"quick_trimmed_from": 3}
    note = trimmed_note([result])
    assert note is not None and "row" in note


def test_a_row_whose_waits_begin_with_its_first_timed_run_ends_after_it(tmp_path: Path) -> None:
    """The budget rows' case: the warm-up finds the folders settled, the first timed run's
    set-up waits for what the warm-up changed."""
    runs: list[int] = []
    case = _case(tmp_path, pause=0.0, runs=runs, quick_after=0.1)

    def before() -> None:
        runs.append(len(runs))
        time.sleep(0.2 if len(runs) > 1 else 0.0)

    case.before_each = before
    result = case.measure()
    assert len(runs) == 2  # the fast warm-up, the slow first timed run, and no more
    assert len(result.times_ms) == 1
    assert result.extra == {"quick_trimmed_from": 3}


def test_a_fast_warm_up_cycle_keeps_every_run(tmp_path: Path) -> None:
    runs: list[int] = []
    result = _case(tmp_path, pause=0.0, runs=runs, quick_after=5.0).measure()
    assert len(runs) == 4
    assert len(result.times_ms) == 3
    assert "quick_trimmed_from" not in result.extra
    assert trimmed_note([result]) is None


def test_without_quick_mode_a_slow_cycle_keeps_every_run(tmp_path: Path) -> None:
    runs: list[int] = []
    result = _case(tmp_path, pause=0.2, runs=runs, quick_after=None).measure()
    assert len(runs) == 4
    assert len(result.times_ms) == 3


def test_the_checks_of_the_kept_run_still_run(tmp_path: Path) -> None:
    seen: list[int] = []

    def verify(count: int) -> str | None:
        seen.append(count)
        return None

    case = _case(tmp_path, pause=0.2, runs=[], quick_after=0.1)
    case.verify = verify
    case.measure()
    assert seen == [2]  # verify is told the runs that really happened


def test_the_budget_rows_keep_their_runs_in_quick_mode() -> None:
    """Issue 26's table is read from CI's quick run: none of its rows is cut to one run after a
    slow cycle (the folders' settle waits make theirs the slowest), every other row may be."""
    from benchmarks.suites import budgets, startup

    table = budgets.specs()
    assert table and all(not spec.trim_slow_cycles for spec in table)
    assert all(spec.name.startswith("budget: ") for spec in table)
    assert all(spec.trim_slow_cycles for spec in startup.specs())


def test_a_smoke_run_gives_every_row_one_timed_run(tmp_path: Path) -> None:
    """``--smoke`` (CI) bounds every row's cycle at 0 s, the budget rows' too: the warm-up and
    one timed run, whatever the cycle took (decision 0158)."""
    runs: list[int] = []
    result = _case(tmp_path, pause=0.0, runs=runs, quick_after=0.0).measure()
    assert len(runs) == 2  # the warm-up and one timed run
    assert len(result.times_ms) == 1
    assert result.extra == {"quick_trimmed_from": 3}


def test_a_smoke_run_leaves_the_dense_rows_to_full_runs() -> None:
    """CI's smoke run skips the rows whose fixture encodes 2,000 learnings with the dense model
    (about 45 CPU-s beside the last test tiers); naming them with ``--only`` still runs them."""
    from benchmarks.harness import smoke_rows
    from benchmarks.suites import budgets
    from benchmarks.suites.budgets import dense_rows

    dense = dense_rows()
    table = budgets.specs()
    kept, left = smoke_rows(table)
    assert dense and left == [spec.name for spec in dense]
    assert [spec.name for spec in kept] == [s.name for s in table if s.name not in left]


def test_the_two_halves_of_a_smoke_run_are_every_row_once() -> None:
    """CI's smoke run takes one half of the rows, drawn from its seed (decision 0186, addendum
    3): the halves split the rows between them, each row in one, and neither half is empty.
    A row stays in its half from one process to the next (another ``PYTHONHASHSEED``, as each
    CI run has), so two runs that draw both halves run every row."""
    import subprocess

    from benchmarks.harness import half_rows
    from benchmarks.suites import budgets

    table = budgets.specs()
    first, second = half_rows(table, 0), half_rows(table, 1)
    assert first[0] and second[0]
    assert sorted(s.name for s in first[0] + second[0]) == sorted(s.name for s in table)
    assert first[1] == [s.name for s in second[0]] and second[1] == [s.name for s in first[0]]
    child = (
        "from benchmarks.harness import half_rows\n"
        "from benchmarks.suites import budgets\n"
        "print('\\n'.join(s.name for s in half_rows(budgets.specs(), 0)[0]))"
    )
    root = Path(__file__).resolve().parents[2]
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run(
            [sys.executable, "-c", child],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert out.splitlines() == [s.name for s in first[0]]
