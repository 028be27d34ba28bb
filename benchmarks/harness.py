"""The measuring machinery: one subprocess or in-process case timed N times, the floor run first
and last around the chosen benchmarks, and the ratio maths.

Nothing here knows what a benchmark measures: the suites build :class:`Case` objects (hook rows
through ``suites.common.hook_case``) and this module times them. Standard library only, plus
pokayokay itself for the in-process curation rows.
"""

from __future__ import annotations

import datetime as dt
import gc
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarks.fixtures.lab import wait_for_code_builders

if TYPE_CHECKING:
    from benchmarks.fixtures.lab import Lab

DEFAULT_REPEAT = 21
QUICK_REPEAT = 3  # a smoke run of every row: three runs give a median, never a verdict
# Quick mode: a row with a cycle (its untimed set-up and waits included) longer than this gets
# one timed run, not QUICK_REPEAT (the row ends after its first timed run, or after the one
# that followed a slow warm-up), unless its Spec says ``trim_slow_cycles=False``. The rows cut
# are the seconds-long commands (curate 10k lines, the cold caches): two more of them buy a
# median a smoke run does not need; the row still runs, checks and all.
QUICK_SLOW_CYCLE_S = 1.0

FLOOR = "floor: python -c pass"
FLOOR_ISOLATED = "floor: python -I -S -c pass"


class BenchmarkSkipped(Exception):
    """A benchmark cannot run on this machine (e.g. no git); reported, never a failure."""


class BenchmarkFailed(Exception):
    """A benchmarked command failed or did not do its job (speed never fails a benchmark)."""

    def __init__(self, name: str, message: str, stderr: str = "") -> None:
        super().__init__(message)
        self.name = name
        self.message = message
        self.stderr = stderr


@dataclass
class Result:
    name: str
    kind: str  # "subprocess" or "in-process"
    times_ms: list[float]
    command: list[str] | None = None
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    cpu_ms: list[float] = field(default_factory=list)  # user + system CPU of each timed run
    # The floor (`python -c pass`) run right after each timed run, in the same conditions:
    floor_times_ms: list[float] = field(default_factory=list)
    floor_cpu_ms: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.times_ms)

    @property
    def cpu_median(self) -> float | None:
        return statistics.median(self.cpu_ms) if self.cpu_ms else None

    @property
    def floor_median(self) -> float | None:
        """The interleaved floor's median, when this row measured one."""
        return statistics.median(self.floor_times_ms) if self.floor_times_ms else None

    @property
    def floor_cpu_median(self) -> float | None:
        return statistics.median(self.floor_cpu_ms) if self.floor_cpu_ms else None


FLOOR_ARGV = [sys.executable, "-c", "pass"]


def timed_run(
    argv: list[str], data: bytes, cwd: Path, env: dict[str, str]
) -> tuple[float, float, subprocess.CompletedProcess[bytes]]:
    """Run a command to its end: (wall ms, CPU ms of the child: user + system, the process).

    The CPU time is the difference of ``RUSAGE_CHILDREN`` around the run: this harness waits for
    one child at a time, so the difference is that child's (and its own waited-for children's)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, input=data, capture_output=True, cwd=cwd, env=env, check=False)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed * 1000, cpu * 1000, proc


Check = Callable[["subprocess.CompletedProcess[bytes]"], str | None]


@dataclass
class Case:
    """One subprocess benchmark. Hook rows are made by ``suites.common.hook_case``, which also
    fills ``hook_event``; every other row leaves it None."""

    name: str
    argv: list[str]
    n: int
    cwd: Path
    env: dict[str, str]
    stdin: bytes = b""
    stdin_each: Callable[[int], bytes] | None = None  # the payload of run i (warm-up is run 0)
    warmup: int = 1
    before_each: Callable[[], None] | None = None  # untimed, before every run
    # Untimed, after every run and before its interleaved floor: a row whose hook leaves
    # background work (a detached worker) waits for it here, so the floor is not run beside it.
    after_each: Callable[[], None] | None = None
    check_each: Check | None = None  # returns a problem, or None
    verify: Callable[[int], str | None] | None = None  # after the last run; gets the run count
    note: str = ""
    hook_event: str | None = None
    interleave_floor: bool = True  # run the floor after each timed run (off for the floors)
    # Quick mode (``run_plan`` sets it): a cycle slower than this many seconds (set-up, run and
    # waits) leaves one timed run, or ends the row after a timed one (QUICK_SLOW_CYCLE_S).
    # None: always ``n``.
    quick_after_s: float | None = None

    def payload(self, run: int) -> bytes:
        """What run ``run`` (0: the first, warm-up included) gets on stdin."""
        return self.stdin if self.stdin_each is None else self.stdin_each(run)

    def measure(self) -> Result:
        times: list[float] = []
        cpu: list[float] = []
        floor_times: list[float] = []
        floor_cpu: list[float] = []
        runs = self.warmup + self.n
        trimmed_from: int | None = None
        i = 0
        while i < runs:
            cycle_started = time.perf_counter()
            if self.before_each is not None:
                self.before_each()
            data = self.payload(i)
            elapsed_ms, cpu_ms, proc = timed_run(self.argv, data, self.cwd, self.env)
            if proc.returncode != 0:
                message = f"exit code {proc.returncode} from {' '.join(self.argv)}"
                raise BenchmarkFailed(self.name, message, self.stderr_and_log(proc))
            problem = self.check_each(proc) if self.check_each is not None else None
            if problem:
                raise BenchmarkFailed(self.name, problem, self.stderr_and_log(proc))
            if self.after_each is not None:
                self.after_each()
            if i < self.warmup:  # a warm-up that met a new path starts the code's builder
                wait_for_code_builders()
            if i >= self.warmup:
                times.append(elapsed_ms)
                cpu.append(cpu_ms)
                if self.interleave_floor:
                    floor_ms, floor_cpu_ms, _ = timed_run(FLOOR_ARGV, b"", self.cwd, self.env)
                    floor_times.append(floor_ms)
                    floor_cpu.append(floor_cpu_ms)
            if (
                self.quick_after_s is not None
                and i >= self.warmup - 1
                and runs > max(i + 1, self.warmup + 1)
                and time.perf_counter() - cycle_started > self.quick_after_s
            ):
                # A slow cycle: the warm-up's leaves one timed run, a timed run's ends the row
                # (a row whose waits begin with its first timed run: the settle of the folders
                # that run changed).
                trimmed_from, runs = self.n, max(i + 1, self.warmup + 1)
            i += 1
        problem = self.verify(runs) if self.verify is not None else None
        if problem:
            raise BenchmarkFailed(self.name, problem)
        extra: dict[str, Any] = {} if trimmed_from is None else {"quick_trimmed_from": trimmed_from}
        return Result(
            self.name, "subprocess", times, command=self.argv, note=self.note, cpu_ms=cpu,
            floor_times_ms=floor_times, floor_cpu_ms=floor_cpu, extra=extra,
        )  # fmt: skip

    def stderr_and_log(self, proc: subprocess.CompletedProcess[bytes]) -> str:
        """The command's stderr, plus the end of pokayokay's log (the lab folder is deleted)."""
        text = proc.stderr.decode("utf-8", "replace")
        log = Path(self.env["POKAYOKAY_HOME"]) / "logs" / "pokayokay.log"
        try:
            tail = log.read_text(encoding="utf-8", errors="replace").splitlines()[-40:]
        except OSError:
            return text
        return text + "\n--- end of pokayokay's log ---\n" + "\n".join(tail)


@dataclass
class InProcessCase:
    """``curation.curate`` + ``invariants.check`` on a text, in this process (no I/O)."""

    name: str
    text: str
    n: int
    project: Path
    of: str  # the subprocess benchmark on the same text
    note: str = ""
    warmup: int = 1  # untimed first runs (0 where one run takes seconds: its row's cap <= 3)

    def measure(self) -> Result:
        from pokayokay.config.settings import load_settings
        from pokayokay.memory import invariants
        from pokayokay.memory.curation import curate

        settings = load_settings(self.project)
        today = dt.date.today()
        total: list[float] = []
        curate_ms: list[float] = []
        check_ms: list[float] = []
        for i in range(self.warmup + self.n):  # the first ``warmup`` runs warm up
            gc.collect()
            t0 = time.perf_counter()
            result = curate(self.text, settings, {}, today)
            t1 = time.perf_counter()
            invariants.check(result, settings, {}, today)
            t2 = time.perf_counter()
            if not result.changed or not result.archives:
                raise BenchmarkFailed(self.name, "curation changed nothing; the text is wrong")
            if i >= self.warmup:
                total.append((t2 - t0) * 1000)
                curate_ms.append((t1 - t0) * 1000)
                check_ms.append((t2 - t1) * 1000)
        extra = {
            "of": self.of,
            "curate_median_ms": statistics.median(curate_ms),
            "check_median_ms": statistics.median(check_ms),
        }
        return Result(self.name, "in-process", total, note=self.note, extra=extra)


Measurable = Case | InProcessCase


@dataclass(frozen=True)
class Spec:
    """A named row; ``build(lab, repeat)`` makes its fixtures (untimed) and returns the case.

    ``prepare(lab)``, when given, builds the row's shared fixtures (``Lab.shared``) and nothing
    else: :func:`prebuild` runs the chosen rows' ``prepare`` in threads before anything is
    timed, so one fixture's waits (the settle sleeps, subprocesses) overlap another's work.
    ``build`` then finds them built.

    ``quick_runs``: the timed runs of the row in ``--quick`` mode, when fewer than the others'
    (the largest scaling points, whose every run takes seconds, run once there).

    ``trim_slow_cycles``: whether ``--quick`` may end the row after a slow cycle
    (:data:`QUICK_SLOW_CYCLE_S`). The budget rows say no: they are issue 26's table, read from
    CI's quick run, and a single run is whichever came first (the after-capture row's first was
    twice its median), although their cycles are the slowest (the folders' settle waits).

    ``in_smoke``: whether a ``--smoke`` run (CI) runs the row when no ``--only`` names it. The
    dense opinion's rows do not: their fixture encodes 2,000 learnings (about 45 CPU-s, beside
    CI's last test tiers); the slow tier drives the real service through the registered hook."""

    name: str
    build: Callable[[Lab, int], Measurable]
    prepare: Callable[[Lab], object] | None = None
    quick_runs: int | None = None
    trim_slow_cycles: bool = True
    in_smoke: bool = True

    def runs(self, repeat: int, quick: bool) -> int:
        """The ``n`` its ``build`` gets: ``repeat``, capped by ``quick_runs`` in quick mode."""
        if quick and self.quick_runs is not None:
            return min(repeat, self.quick_runs)
        return repeat


class UsageError(Exception):
    pass


def select(all_specs: Sequence[Spec], only: Sequence[str] | None) -> list[Spec]:
    """The benchmarks named exactly by ``only``, else containing it (case-insensitive)."""
    if not only:
        return list(all_specs)
    picked: list[str] = []
    for wanted in only:
        key = wanted.casefold()
        exact = [s.name for s in all_specs if s.name.casefold() == key]
        matches = exact or [s.name for s in all_specs if key in s.name.casefold()]
        if not matches:
            names = "\n  ".join(s.name for s in all_specs)
            raise UsageError(
                f"--only {wanted!r}: no benchmark by that name (the floors always run). "
                f"Benchmarks:\n  {names}"
            )
        picked += matches
    return [s for s in all_specs if s.name in picked]


def smoke_rows(chosen: Sequence[Spec]) -> tuple[list[Spec], list[str]]:
    """The rows of ``chosen`` a ``--smoke`` run without ``--only`` runs, and the names of those
    it leaves to full runs (:attr:`Spec.in_smoke`)."""
    return [s for s in chosen if s.in_smoke], [s.name for s in chosen if not s.in_smoke]


def half_rows(chosen: Sequence[Spec], half: int) -> tuple[list[Spec], list[str]]:
    """The rows of ``chosen`` in ``half`` (0 or 1, by a hash of each row's name, the same on
    every run), and the names of the others: CI's smoke run takes one half a run, drawn from its
    seed, so every row runs over two runs (decision 0186, addendum 3)."""
    import zlib

    def kept(spec: Spec) -> bool:
        return zlib.crc32(spec.name.encode("utf-8")) % 2 == half

    return [s for s in chosen if kept(s)], [s.name for s in chosen if not kept(s)]


@dataclass
class Outcome:
    floor_runs: list[Result] = field(default_factory=list)  # first and last
    results: list[Result] = field(default_factory=list)
    failures: list[BenchmarkFailed] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)


def fewer_runs(chosen: Sequence[Spec], repeat: int, quick: bool) -> list[str]:
    """The rows that run fewer times than ``repeat`` here (``Spec.quick_runs``)."""
    return [spec.name for spec in chosen if spec.runs(repeat, quick) < repeat]


def quick_note(names: Sequence[str]) -> str:
    return (
        f"quick mode: the largest scaling points run once ({len(names)} rows; a full run gives "
        f"them {DEFAULT_REPEAT} runs or their cap): " + "; ".join(names)
    )


def trimmed_note(results: Sequence[Result]) -> str | None:
    """The rows quick mode gave one timed run because a cycle of theirs was slow
    (``QUICK_SLOW_CYCLE_S``), or None."""
    names = [r.name for r in results if "quick_trimmed_from" in r.extra]
    if not names:
        return None
    return (
        f"quick mode: one timed run for the rows with a cycle (set-up and waits included) "
        f"over {QUICK_SLOW_CYCLE_S:g} s ({len(names)} rows): " + "; ".join(names)
    )


# Fixtures mostly wait (settle sleeps, subprocesses), and rows sharing a fixture wait for the
# one building it: with four, three long fills held three threads and the nine budget
# projects were built one after another on the fourth.
PREBUILD_THREADS = 12


def prebuild(lab: Lab, chosen: Sequence[Spec], threads: int = PREBUILD_THREADS) -> float:
    """Build the shared fixtures of ``chosen`` (their ``prepare``) in ``threads`` threads,
    untimed, before the first timed run; returns the seconds it took. A fixture that cannot be
    built here (no git, say) is left to its row, which reports it as before."""
    jobs = [spec for spec in chosen if spec.prepare is not None]
    if not jobs:
        return 0.0
    print(f"building the shared fixtures of {len(jobs)} rows, {threads} at a time (untimed) ...",
          file=sys.stderr, flush=True)  # fmt: skip
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="prebuild") as pool:
        # The table's last rows first: the largest fixtures (the 200k store, the budget
        # projects) are there, and the longest chain should start first.
        futures = [pool.submit(s.prepare, lab) for s in reversed(jobs) if s.prepare is not None]
        for future in futures:
            try:
                future.result()
            except BenchmarkSkipped:
                continue
    elapsed = time.perf_counter() - started
    print(f"      (shared fixtures built in {elapsed:.1f} s)", file=sys.stderr, flush=True)
    return elapsed


# How often wait_for_file looks; a tenth of a second late is nothing against a smoke run.
WAIT_POLL_S = 0.1


def wait_for_file(path: Path) -> float:
    """Sleep until ``path`` exists; returns the seconds waited. CI builds the fixtures (untimed,
    mostly settle sleeps and subprocesses) while its last test tier runs, and creates ``path``
    when the machine is its own again: no timed run or floor shares it (decision 0160)."""
    print(f"fixtures built; the timed runs wait for {path} ...", file=sys.stderr, flush=True)
    started = time.perf_counter()
    while not path.exists():
        time.sleep(WAIT_POLL_S)
    waited = time.perf_counter() - started
    print(f"      (waited {waited:.1f} s for it)", file=sys.stderr, flush=True)
    return waited


def run_plan(
    lab: Lab,
    all_specs: Sequence[Spec],
    chosen: Sequence[Spec],
    repeat: int,
    quick: bool = False,
    smoke: bool = False,
    timed_after: Path | None = None,
) -> Outcome:
    """Measure ``chosen`` between two runs of the floor (first and last), in this order, their
    shared fixtures built first (:func:`prebuild`). ``smoke`` (CI, with ``quick``): every row,
    the budget rows too, ends after its warm-up and one timed run: the run checks that each row
    still builds, runs and passes its checks, in CI's time; its ratios are single runs, and the
    budget table is read from a ``--repeat`` run (decision 0158). ``timed_after``: once the
    fixtures are built, nothing runs until that file exists (:func:`wait_for_file`)."""
    once = fewer_runs(chosen, repeat, quick)
    if once:
        print(quick_note(once), file=sys.stderr, flush=True)
    prebuild(lab, chosen)
    if timed_after is not None:
        wait_for_file(timed_after)
    floors = [s for s in all_specs if s.name == FLOOR]
    plan = [*floors, *chosen, *floors]
    out = Outcome()
    for index, spec in enumerate(plan):
        label = spec.name + (" (again, last)" if spec.name == FLOOR and index else "")
        print(f"[{index + 1}/{len(plan)}] {label} ...", file=sys.stderr, flush=True)
        row_started = time.perf_counter()
        try:
            case = spec.build(lab, spec.runs(repeat, quick))
            if quick and isinstance(case, Case) and (spec.trim_slow_cycles or smoke):
                case.quick_after_s = 0.0 if smoke else QUICK_SLOW_CYCLE_S
            result = case.measure()
        except BenchmarkSkipped as exc:
            out.skipped.append((spec.name, str(exc)))
            print(f"SKIPPED: {spec.name}: {exc}", file=sys.stderr)
            continue
        except BenchmarkFailed as exc:
            out.failures.append(exc)
            print(f"FAILED: {exc.name}: {exc.message}", file=sys.stderr)
            if exc.stderr:
                print(exc.stderr.rstrip(), file=sys.stderr)
            continue
        (out.floor_runs if spec.name == FLOOR else out.results).append(result)
        # What the row cost the run (its build, untimed set-up and waits included), so a slow
        # run says which row it spent its time on.
        elapsed = time.perf_counter() - row_started
        print(f"      ({elapsed:.1f} s, set-up and waits included)", file=sys.stderr, flush=True)
    return out


def pick_floor(floor_runs: Sequence[Result]) -> Result:
    """The floor the ratios use: the run with the lower median (a busy machine inflates one)."""
    return min(floor_runs, key=lambda r: r.median)


def ratio(result: Result, floor_ms: float) -> float | None:
    """A row's median over the floor run interleaved with it (the run's floor when it has
    none); None for in-process rows, which start no interpreter."""
    if result.kind == "in-process":
        return None
    return result.median / (result.floor_median or floor_ms)


def cpu_ratio(result: Result, floor: Result) -> float | None:
    """A row's median CPU time (user + system) over the interleaved floor's (the run's floor
    when it has none); None where either was not measured."""
    cpu = result.cpu_median
    floor_cpu = result.floor_cpu_median or floor.cpu_median
    if result.kind == "in-process" or cpu is None or not floor_cpu:
        return None
    return cpu / floor_cpu


def compile_package() -> None:
    """Byte-compile pokayokay first, as `pip install` does for a wheel.

    With PYTHONDONTWRITEBYTECODE set (it is on some machines), an editable install would
    otherwise recompile every module on every run and the timings would measure the compiler.
    """
    import compileall

    import pokayokay

    compileall.compile_dir(str(Path(pokayokay.__file__).parent), quiet=1)
