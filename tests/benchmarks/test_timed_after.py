"""``run.py --timed-after FILE`` (CI, decision 0160): the shared fixtures are built at once, and
nothing is timed, the floor included, until FILE exists; CI builds them while its last test
tier runs and makes FILE when the machine is the benchmarks' own."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

import pytest

from benchmarks.fixtures.lab import Lab
from benchmarks.harness import FLOOR, Case, Spec, run_plan
from benchmarks.run import parse_args

# The benchmarks are a dev tool CI runs on its main Python only (decision 0155).
pytestmark = pytest.mark.one_python


def test_nothing_is_timed_before_the_file_exists_and_everything_after(tmp_path: Path) -> None:
    lab = Lab(tmp_path / "lab")
    go = tmp_path / "go"
    events: list[tuple[str, bool]] = []  # (what ran, whether the file existed then)
    built = threading.Event()

    def case(name: str) -> Case:
        def before() -> None:
            events.append((name, go.exists()))

        env = dict(os.environ, POKAYOKAY_HOME=str(tmp_path / "state"))
        argv = [sys.executable, "-c", "pass"]
        return Case(name, argv, 1, tmp_path, env, before_each=before, interleave_floor=False)

    def prepare(_lab: Lab) -> None:
        events.append(("prepare", go.exists()))
        built.set()

    def make_the_file_later() -> None:
        # after the fixtures, with time enough for a run that did not wait to start its floor
        built.wait(60)
        threading.Event().wait(0.3)
        go.touch()

    toucher = threading.Thread(target=make_the_file_later)
    toucher.start()
    floor = Spec(FLOOR, lambda _lab, _n: case(FLOOR))
    row = Spec("row", lambda _lab, _n: case("row"), prepare=prepare)
    try:
        outcome = run_plan(lab, [floor, row], [row], 1, timed_after=go)
    finally:
        built.set()
        toucher.join(60)
    # the fixtures before the file; then the warm-up and one timed run each: the floor, the
    # row, the floor again, all after it
    assert events == [("prepare", False), *[(name, True) for name in
                      (FLOOR, FLOOR, "row", "row", FLOOR, FLOOR)]]  # fmt: skip
    assert [r.name for r in outcome.results] == ["row"] and not outcome.failures


def test_the_option_names_the_file() -> None:
    assert parse_args(["--smoke", "--timed-after", "x/go"]).timed_after == Path("x/go")
    assert parse_args(["--smoke"]).timed_after is None
