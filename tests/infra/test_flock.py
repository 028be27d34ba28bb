"""infra/flock.try_lock: one holder at a time across processes, a bounded wait, no blocking."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pokayokay.infra.flock import try_lock

HOLD = """
import os, sys, time
from pokayokay.infra.flock import try_lock
fd = try_lock(sys.argv[1])
print("held" if fd is not None else "taken", flush=True)
time.sleep(float(sys.argv[2]))
"""


def holder(path: Path, seconds: float) -> subprocess.Popen[str]:
    """Another process holding the lock for ``seconds`` (once it printed "held")."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(path), str(seconds)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def test_the_lock_is_taken_and_the_file_made_private(tmp_path: Path) -> None:
    path = tmp_path / "x.lock"
    fd = try_lock(str(path))
    assert fd is not None
    assert path.exists() and (path.stat().st_mode & 0o777) == 0o600
    os.close(fd)
    again = try_lock(str(path))  # closing let it go
    assert again is not None
    os.close(again)


def test_another_process_holding_it_gives_none_at_once(tmp_path: Path) -> None:
    path = tmp_path / "x.lock"
    proc = holder(path, 5)
    try:
        started = time.monotonic()
        assert try_lock(str(path)) is None
        assert time.monotonic() - started < 1.0  # no blocking: the holder keeps it for 5 s
    finally:
        proc.kill()
        proc.communicate()


def test_a_bounded_wait_gets_it_once_the_holder_lets_go(tmp_path: Path) -> None:
    path = tmp_path / "x.lock"
    proc = holder(path, 0.3)
    try:
        fd = try_lock(str(path), wait=30.0)
        assert fd is not None  # the holder exited long before the wait ran out
        os.close(fd)
    finally:
        proc.communicate()


def test_a_missing_folder_is_said(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        try_lock(str(tmp_path / "gone" / "x.lock"))
