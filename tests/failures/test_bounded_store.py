"""The failure store is bounded by count and by age, keeps its aggregates exact, and gives
freed pages back to the file system (incremental auto-vacuum)."""

from __future__ import annotations

import os
from pathlib import Path

from pokayokay.failures.model import Failure
from pokayokay.failures.store import FailureStore

NOW = 1_760_000_000.0
DAY = 86400.0


def failure(n: int, ts: float, signature: str) -> tuple[Failure, str]:
    excerpt = f"FAILED tests/test_orders.py::test_total_{n % 7} - assert {n} == {n + 1}"
    return (
        Failure(ts, f"session-{n // 50}", "Bash", "pytest tests/test_orders.py", signature,
                "testing", ("tests/test_orders.py", f"src/orders/total_{n % 13}.py"), excerpt, 1),
        f"toolu_{n:06d}",
    )


def size(db: Path) -> int:
    return sum(os.path.getsize(f) for f in (db, Path(f"{db}-wal")) if f.exists())


def test_old_rows_age_out_the_aggregates_stay_and_the_file_shrinks(tmp_path: Path) -> None:
    db = tmp_path / "failures.db"
    signature = "FAILED tests/test_orders.py::test_total_<n> - assert <n> == <n>"
    with FailureStore(db, max_events=50_000, max_age_days=180) as store:
        assert store._connection().execute("PRAGMA auto_vacuum").fetchone()[0] == 2
        store.record_failures(
            [failure(n, NOW - 300 * DAY + n, signature) for n in range(6000)]
        )
        store.record_failures([failure(n, NOW - DAY + n, signature) for n in range(6000, 6100)])
        store._connection().execute("PRAGMA wal_checkpoint(TRUNCATE)")
        before = size(db)
        store.maintain(NOW)
        store._connection().execute("PRAGMA wal_checkpoint(TRUNCATE)")
        after = size(db)
        assert len(store.failures()) == 100
        [group] = store.failure_groups()
        assert group.occurrences == 6100  # counts stay exact after the rows aged out
    assert after < before / 4, (before, after)


def test_the_count_cap_keeps_the_newest_rows(tmp_path: Path) -> None:
    with FailureStore(tmp_path / "failures.db", max_events=500) as store:
        signature = "error TS2322: Type 'string' is not assignable to type 'number'."
        store.record_failures([failure(n, NOW + n, signature) for n in range(1200)])
        kept = store.failures()
        assert len(kept) == 500 and kept[0].ts == NOW + 700
        assert store.failure_groups()[0].occurrences == 1200


def test_rule_loads_are_bounded_too(tmp_path: Path) -> None:
    with FailureStore(tmp_path / "failures.db", max_events=100, max_age_days=180) as store:
        for n in range(300):
            store.record_rule_load(f"s{n}", ".claude/rules/pokayokay/orders.md", "src/o.py",
                                   NOW - 400 * DAY + n if n < 50 else NOW + n)
        store.maintain(NOW + 1000)
        loads = store.rule_loads()
        assert len(loads) == 100 and min(load.ts for load in loads) == NOW + 200
