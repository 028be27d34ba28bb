"""The failure signals' category bounds (decision 0150): computed only when asked (Stop and the
catch-up worker ask; a prompt never does), kept in the cache, and a cache without them is
rebuilt for a caller that asks."""

from __future__ import annotations

from pathlib import Path

from pokayokay.failures.category_bound import bound_for_command
from pokayokay.failures.model import Failure
from pokayokay.failures.store import FailureStore
from pokayokay.infra import packed
from pokayokay.names import FAILURES_DB, LEGACY_SUGGEST_FAILURES_FILE, SUGGEST_FAILURES_FILE
from pokayokay.skills import advice


def _store(state: Path) -> None:
    failures = [
        Failure(
            ts=1_700_000_000.0 + n,
            session_id=session,
            tool="Bash",
            command="pytest tests/test_cart.py",
            signature="test:tests/test_cart.py::test_total",
            category="testing",
            paths=("tests/test_cart.py",),
            excerpt="E assert 1 == 2",
            exit_code=1,
        )
        for n, session in enumerate(("s-a", "s-b"))
    ]
    with FailureStore(state / FAILURES_DB) as store:
        store.record_failures(failures)


def test_bounds_are_computed_when_asked_and_kept_in_the_cache(tmp_path: Path) -> None:
    _store(tmp_path)
    plain = advice.cached_signals(str(tmp_path))  # the prompt's call
    assert plain.bounds is None
    cache = tmp_path / SUGGEST_FAILURES_FILE
    assert packed.load(cache)["bounds"] is None
    # another spelling of the folder: what another process reads (this one keeps a memo)
    asked = advice.cached_signals(f"{tmp_path}/.", bounds=True)  # Stop's refresh
    expected = bound_for_command("pytest tests/test_cart.py")
    assert expected is not None
    assert asked.bounds == {"pytest tests/test_cart.py": expected}
    again = advice.cached_signals(f"{tmp_path}/./.")  # the next prompt reads them from the cache
    assert again.bounds == asked.bounds


def test_writing_the_cache_removes_its_json_form_an_earlier_version_left(tmp_path: Path) -> None:
    _store(tmp_path)
    legacy = tmp_path / LEGACY_SUGGEST_FAILURES_FILE
    legacy.write_text('{"version": 5, "groups": []}', "utf-8")
    advice.cached_signals(str(tmp_path), write=False)  # a prompt that ingested: no write
    assert legacy.exists()
    advice.cached_signals(f"{tmp_path}/.", bounds=True)  # Stop's refresh writes the cache
    assert not legacy.exists() and (tmp_path / SUGGEST_FAILURES_FILE).exists()
