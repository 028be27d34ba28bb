"""Rows whose untimed set-up ends in a wait wake the CPUs before their timed run (decision
0188): on the machines the benchmarks run on, a CPU left idle for seconds made the next
process start take twice a bare start, a cost of the machine that the floor (run warm, just
after the row's run) never carries."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from benchmarks.fixtures import lab

# The benchmarks are a dev tool CI runs on its main Python only (decision 0155).
pytestmark = pytest.mark.one_python


def test_every_cpu_is_kept_busy_until_the_wake_ends() -> None:
    started = time.perf_counter()
    lab.wake_cpus()
    elapsed = time.perf_counter() - started
    # each spinner spins WAKE_SECONDS of its own clock after its interpreter started
    assert elapsed >= lab.WAKE_SECONDS


def test_one_spinner_a_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[list[str]] = []

    class Spinner:
        def __init__(self, argv: list[str]) -> None:
            started.append(argv)

        def wait(self) -> int:
            return 0

    monkeypatch.setattr(lab.subprocess, "Popen", Spinner)
    lab.wake_cpus()
    assert len(started) == (os.cpu_count() or 1)
    assert all(argv[1:3] == ["-S", "-c"] for argv in started)


def test_a_settle_wakes_the_cpus_after_its_wait(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    monkeypatch.setattr(lab.time, "sleep", lambda s: calls.append(f"sleep {s > 0}"))
    monkeypatch.setattr(lab, "wake_cpus", lambda: calls.append("wake"))
    monkeypatch.setattr(lab, "wait_for_code_builders", lambda: None)  # other tests' hooks
    written = tmp_path / "memory"
    written.mkdir()  # just written: the settle waits, then wakes
    lab.wait_until_settled(written)
    assert calls == ["sleep True", "wake"]
