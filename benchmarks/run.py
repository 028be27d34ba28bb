"""pokayokay's benchmarks: hook and curation wall times as ratios to a bare interpreter start.

Run with the interpreter pokayokay is installed in::

    .venv/bin/python benchmarks/run.py [--quick] [--repeat N] [--json PATH] [--only NAME...]
    .venv/bin/python benchmarks/run.py --list

Every benchmark except the in-process rows is the wall time of a whole subprocess
(``time.perf_counter`` around ``subprocess.run``), so it includes interpreter start, imports,
reading stdin and writing files. The floor is ``<this interpreter> -c pass``, measured first and
last in the same run; ratios divide a benchmark's median by the lower of the two floor medians.

Benchmarks never fail on speed. The exit code is 1 only when a benchmarked command fails (exits
non-zero, prints something it should not, or does not do its job); its stderr is shown. Everything
runs in a throwaway folder: HOME, CLAUDE_CONFIG_DIR and POKAYOKAY_HOME all point into it.

This file is the command line only. The pieces live next to it: ``harness.py`` (timing, the
floor first and last, ratios), ``fixtures/`` (the lab and the realistic state: memory files,
failure stores, learnings, skills, the ``ages`` repository), ``suites/`` (the rows by area, every
hook row built by ``suites.common.hook_case``) and ``report.py`` (table and JSON).

Standard library only, plus pokayokay itself.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the `benchmarks` package importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import report
from benchmarks.fixtures.lab import Lab
from benchmarks.harness import (
    DEFAULT_REPEAT,
    FLOOR,
    QUICK_REPEAT,
    UsageError,
    compile_package,
    fewer_runs,
    half_rows,
    pick_floor,
    quick_note,
    run_plan,
    select,
    smoke_rows,
    trimmed_note,
)
from benchmarks.suites import all_specs

DEFAULT_JSON = Path(__file__).resolve().parent / "results" / "latest.json"


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="pokayokay benchmarks: wall times as ratios to `python -c pass`."
    )
    parser.add_argument(
        "--quick", action="store_true", help=f"{QUICK_REPEAT} runs each (CI smoke runs)"
    )
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="with --quick: every row (the budget rows too) ends after its warm-up and one "
        "timed run (CI: checks that each row runs; read the figures from a --repeat run)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        metavar="N",
        default=None,
        help=f"runs per benchmark (default {DEFAULT_REPEAT}; the big curate ones stay capped)",
    )
    parser.add_argument(
        "--json",
        type=Path,
        metavar="PATH",
        default=DEFAULT_JSON,
        help="where to write the results (default benchmarks/results/latest.json)",
    )
    parser.add_argument(
        "--only",
        nargs="+",
        metavar="NAME",
        help="run the benchmarks whose name contains NAME (the floors always run)",
    )
    parser.add_argument(
        "--init-absolute",
        action="store_true",
        help="the projects' hooks registered by `init --absolute` (the interpreter by path, "
        "started with -S -E) instead of the scripts on PATH",
    )
    parser.add_argument(
        "--timed-after",
        type=Path,
        metavar="FILE",
        default=None,
        help="build the fixtures, then wait until FILE exists before the first timed run (CI "
        "builds them while its last test tier runs; nothing timed runs beside the tier)",
    )
    parser.add_argument(
        "--half",
        type=int,
        choices=(0, 1),
        default=None,
        help="with --smoke: only the rows of this half (by a hash of each row's name; CI runs "
        "the half drawn from its seed, so every row runs over two runs)",
    )
    parser.add_argument("--list", action="store_true", help="list the benchmark names and exit")
    ns = parser.parse_args(argv)
    if ns.repeat is not None and ns.repeat < 1:
        parser.error("--repeat must be at least 1")
    if ns.half is not None and not ns.smoke:
        parser.error("--half goes with --smoke")
    return ns


def main(argv: Sequence[str] | None = None) -> int:
    ns = parse_args(argv)
    ns.quick = ns.quick or ns.smoke  # a smoke run is a quick run, shorter
    repeat = ns.repeat or (QUICK_REPEAT if ns.quick else DEFAULT_REPEAT)
    if not ns.list:
        compile_package()
    started = dt.datetime.now(dt.timezone.utc)
    load_start = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    root = Path(tempfile.mkdtemp(prefix="pokayokay-bench-"))
    try:
        lab = Lab(root, init_args=("--absolute",) if ns.init_absolute else ())
        specs = all_specs(lab)
        if ns.list:
            print("\n".join(s.name for s in specs))
            return 0
        try:
            chosen = select([s for s in specs if s.name != FLOOR], ns.only)
        except UsageError as exc:
            print(f"run.py: error: {exc}", file=sys.stderr)
            return 2
        if ns.smoke:
            chosen, left = (chosen, []) if ns.only else smoke_rows(chosen)
            if left:
                print(f"smoke run: {len(left)} rows run in full runs only: {'; '.join(left)}",
                      file=sys.stderr)  # fmt: skip
            if ns.half is not None:
                chosen, other = half_rows(chosen, ns.half)
                print(f"smoke run: half {ns.half} of the rows, {len(chosen)}; the other "
                      f"{len(other)} run in the other half's", file=sys.stderr)  # fmt: skip
            print(
                "smoke run: every row ends after its warm-up and one timed run; its ratios are "
                "single runs (the budget table: a --repeat 5 run)",
                file=sys.stderr,
            )
        outcome = run_plan(
            lab, specs, chosen, repeat, quick=ns.quick, smoke=ns.smoke, timed_after=ns.timed_after
        )
    finally:
        shutil.rmtree(root, ignore_errors=True)

    finished = dt.datetime.now(dt.timezone.utc)
    if not outcome.floor_runs:
        print("the floor could not be measured; no ratios", file=sys.stderr)
        return 1
    floor = pick_floor(outcome.floor_runs)
    info = report.machine_info()
    if ns.init_absolute:
        info["init"] = "--absolute"
    if load_start is not None:
        info["loadavg_start"] = load_start
        info["loadavg_end"] = list(os.getloadavg())
    report.print_report(outcome, floor, info, started, finished)
    once = fewer_runs(chosen, repeat, ns.quick)
    if once:
        print("\n" + quick_note(once))
    trimmed = trimmed_note(outcome.results)
    if trimmed:
        print("\n" + trimmed)

    data = report.document(
        outcome, floor, info, started, finished, repeat=repeat, quick=ns.quick, only=ns.only
    )
    ns.json.parent.mkdir(parents=True, exist_ok=True)
    ns.json.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    print(f"\nresults written to {ns.json}")
    if outcome.failures:
        names = ", ".join(f.name for f in outcome.failures)
        print(f"\n{len(outcome.failures)} benchmark(s) failed: {names}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
