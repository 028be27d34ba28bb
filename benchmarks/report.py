"""Reporting: the machine, the table printed to stdout, the curation cost split and the JSON
document written to ``--json``."""

from __future__ import annotations

import datetime as dt
import os
import platform
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.fixtures.lab import REPO
from benchmarks.harness import FLOOR, Outcome, Result, cpu_ratio, ratio


def machine_info() -> dict[str, Any]:
    import pokayokay

    info: dict[str, Any] = {
        "python": sys.version.split()[0],
        "python_full": sys.version,
        "implementation": platform.python_implementation(),
        "executable": sys.executable,
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "pokayokay": pokayokay.__version__,
    }
    if hasattr(os, "sched_getaffinity"):
        info["cpus_usable"] = len(os.sched_getaffinity(0))
    try:
        head = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=False,
        )
        if head.returncode == 0:
            info["git_commit"] = head.stdout.strip()
    except OSError:
        pass
    return info


def fmt_ms(value: float) -> str:
    return f"{value:.1f}" if value < 1000 else f"{value:,.0f}"


def table(results: Sequence[Result], floor: Result) -> str:
    columns = (
        "benchmark", "median ms", "min ms", "max ms", "N", "floor ms", "ratio", "CPU ratio",
        "+ms over floor",
    )  # fmt: skip
    rows: list[tuple[str, ...]] = []
    for r in results:
        r_ratio = ratio(r, floor.median)
        r_cpu = cpu_ratio(r, floor)
        own_floor = r.floor_median or floor.median
        rows.append(
            (
                r.name,
                fmt_ms(r.median),
                fmt_ms(min(r.times_ms)),
                fmt_ms(max(r.times_ms)),
                str(len(r.times_ms)),
                "n/a" if r.kind == "in-process" else fmt_ms(own_floor),
                "n/a" if r_ratio is None else f"{r_ratio:.2f}x",
                "n/a" if r_cpu is None else f"{r_cpu:.2f}x",
                "n/a" if r_ratio is None else f"{r.median - own_floor:+.1f}",
            )
        )
    widths = [max(len(row[i]) for row in [columns, *rows]) for i in range(len(columns))]
    lines = []
    for row in [columns, *rows]:
        cells = [row[0].ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)
        ]
        lines.append("  ".join(cells))
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def cost_split(results: Sequence[Result]) -> list[str]:
    by_name = {r.name: r for r in results}
    out = []
    for r in results:
        if r.kind != "in-process":
            continue
        sub = by_name.get(str(r.extra.get("of")))
        line = (
            f"  {r.extra.get('of')}: pure curate {fmt_ms(r.extra['curate_median_ms'])} ms + "
            f"check {fmt_ms(r.extra['check_median_ms'])} ms = {fmt_ms(r.median)} ms"
        )
        if sub is not None:
            line += (
                f" of the {fmt_ms(sub.median)} ms command "
                f"({100 * r.median / sub.median:.0f}%; the rest is start-up, imports and I/O)"
            )
        out.append(line)
    return out


def header(
    first: Result,
    last: Result,
    floor_ms: float,
    info: dict[str, Any],
    started: dt.datetime,
    finished: dt.datetime,
) -> str:
    return (
        "Wall time of whole subprocesses (perf_counter around subprocess.run), in ms. "
        "ratio = median / floor,\n"
        f"the floor being `{Path(sys.executable).name} -c pass` on this same interpreter, run "
        "right after every timed run of a row\n(its median is the row's 'floor ms'); CPU ratio "
        "= the row's median user+system CPU time over its floor's.\nThe floor rows themselves: "
        f"first {fmt_ms(first.median)} ms, last {fmt_ms(last.median)} ms "
        f"(-> {fmt_ms(floor_ms)} ms). In-process rows have no subprocess: ratio n/a.\n"
        f"Python {info['python']} on {info['platform']}, {info['cpu_count']} CPUs, "
        f"{started:%Y-%m-%d %H:%M:%S} UTC, {(finished - started).total_seconds():.0f} s.\n"
    )


def print_report(
    outcome: Outcome,
    floor: Result,
    info: dict[str, Any],
    started: dt.datetime,
    finished: dt.datetime,
) -> None:
    """The header, the table (floor first), skipped rows and the curation cost split."""
    first, last = outcome.floor_runs[0], outcome.floor_runs[-1]
    print()
    print(header(first, last, floor.median, info, started, finished))
    print(table([floor, *outcome.results], floor))
    for name, reason in outcome.skipped:
        print(f"skipped: {name} ({reason})")
    split = cost_split(outcome.results)
    if split:
        print("\nCost split of curation (in-process medians):")
        print("\n".join(split))


def document(
    outcome: Outcome,
    floor: Result,
    info: dict[str, Any],
    started: dt.datetime,
    finished: dt.datetime,
    *,
    repeat: int,
    quick: bool,
    only: Sequence[str] | None,
) -> dict[str, Any]:
    """The JSON results (the shape README.md documents)."""
    first, last = outcome.floor_runs[0], outcome.floor_runs[-1]
    floor_ms = floor.median
    return {
        "timestamp": started.isoformat(timespec="seconds"),
        "duration_s": round((finished - started).total_seconds(), 1),
        "machine": info,
        "repeat": repeat,
        "quick": quick,
        "only": only,
        "ratio": "median_ms / floor_median_ms (the floor run after each timed run of the row; "
        "floor.used_ms where a row has none); null for in-process rows, which start no "
        "interpreter",
        "cpu_ratio": "cpu_median_ms / floor_cpu_median_ms (user + system CPU time)",
        "floor": {
            "name": FLOOR,
            "median_ms_first": first.median,
            "median_ms_last": last.median,
            "used_ms": floor_ms,
            "used": "first" if floor is first else "last",
            "times_ms_first": first.times_ms,
            "times_ms_last": last.times_ms,
        },
        "benchmarks": [
            {
                "name": r.name,
                "kind": r.kind,
                "median_ms": r.median,
                "min_ms": min(r.times_ms),
                "max_ms": max(r.times_ms),
                "n": len(r.times_ms),
                "ratio_to_floor": ratio(r, floor_ms),
                "cpu_median_ms": r.cpu_median,
                "cpu_ratio_to_floor": cpu_ratio(r, floor),
                "floor_median_ms": r.floor_median,
                "floor_cpu_median_ms": r.floor_cpu_median,
                "times_ms": r.times_ms,
                "command": r.command,
                "note": r.note,
                **r.extra,
            }
            for r in [floor, *outcome.results]
        ],
        "failures": [
            {"name": f.name, "message": f.message, "stderr": f.stderr} for f in outcome.failures
        ],
        "skipped": [{"name": name, "reason": reason} for name, reason in outcome.skipped],
    }
