"""The defensive reads of ``infra/regular``: the listing of a folder whose absence is no error."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pokayokay.failures.store_files import ASIDE_INFIX, moved_aside
from pokayokay.infra.regular import folder_names
from pokayokay.infra.safe_write import remove_stale_temps

NAMES = st.sets(st.text(alphabet="abcxyz019_-.", min_size=1, max_size=12), max_size=8)


@settings(max_examples=30, deadline=None)
@given(NAMES)
def test_a_folder_lists_its_names(
    tmp_path_factory: pytest.TempPathFactory, names: set[str]
) -> None:
    folder = tmp_path_factory.mktemp("listed")
    kept = {n for n in names if n not in (".", "..")}
    for name in kept:
        (folder / name).write_bytes(b"")
    assert sorted(folder_names(folder)) == sorted(kept)
    assert sorted(folder_names(str(folder))) == sorted(kept)


def test_what_cannot_be_listed_lists_nothing(tmp_path: Path) -> None:
    (tmp_path / "a file").write_text("x", encoding="utf-8")
    assert folder_names(tmp_path / "missing") == []
    assert folder_names(tmp_path / "a file") == []
    if os.geteuid() != 0:  # root lists any folder
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o000)
        try:
            assert folder_names(locked) == []
        finally:
            locked.chmod(0o700)


def test_its_callers_find_nothing_in_a_missing_folder(tmp_path: Path) -> None:
    """The temp sweep and a store's moved-aside copies: no folder, nothing found, no error."""
    assert remove_stale_temps(tmp_path / "missing") == []
    assert moved_aside(tmp_path / "missing" / "failures.db") == []
    (tmp_path / f"failures.db{ASIDE_INFIX}17").write_bytes(b"")
    assert moved_aside(tmp_path / "failures.db") == [tmp_path / f"failures.db{ASIDE_INFIX}17"]


def _probe_until(path: Path, stop: Any) -> None:
    """Another pokayokay writer: safe_write's open-elsewhere check, a write lease taken and
    dropped, over and over."""
    from pokayokay.infra.safe_write import _open_elsewhere

    while not stop.is_set():
        _open_elsewhere(path)


def test_opens_and_appends_wait_out_another_writers_lease(tmp_path: Path) -> None:
    """A chain-learnings append or a read meeting the instant lease of a concurrent
    compare-and-swap writer used to fail with EAGAIN: the entry was lost (2 of 50 simultaneous
    SessionEnds in CI). Measured before the fix: 139 of 3,000 appends failed."""
    import multiprocessing

    from pokayokay.infra.regular import read_regular
    from pokayokay.learnings.outcomes.chain import append_entry

    target = tmp_path / "chain-learnings.md"
    target.write_text("# Chain learnings\n", encoding="utf-8")
    stop = multiprocessing.Event()
    prober = multiprocessing.Process(target=_probe_until, args=(target, stop))
    prober.start()
    try:
        for n in range(1500):
            append_entry(target, f"## entry-{n}")
            read_regular(target, 16)
    finally:
        stop.set()
        prober.join(timeout=10)
    text = target.read_text(encoding="utf-8")
    assert [line for line in text.splitlines() if line.startswith("## ")] == [
        f"## entry-{n}" for n in range(1500)
    ]
