"""Team memory's folder size by simulation: a team of N over a year.

    .venv/bin/python benchmarks/team_size.py [--people 10] [--days 250] [--sessions-per-day 2]
                                             [--kinds 400] [--seed 28] [--json PATH]

Each teammate works ``days`` days with ``sessions-per-day`` sessions; a session hits 0-3
mistakes drawn from ``kinds`` mistake kinds with a long-tailed (Zipf-like) frequency — a few
mistakes everyone makes, many that one person makes once — each with its project paths, a
failing command and sometimes a correction. After every session the writer's SessionEnd step
runs for real (:func:`pokayokay.team.records.from_group` and
:func:`pokayokay.team.files.write_own`: append what changed, compact when superseded lines pile
up) on a real folder. At the end every writer's file is read as a clone's SessionStart would
(:func:`pokayokay.team.files.read_team` and :func:`pokayokay.team.aggregate.team_evidence`),
timed. Prints the folder's size at the end and its largest size during the year, the lines,
and the read time; exits 1 when the folder ends over 1 MB (the issue's limit). Not a test: the
simulation is the measurement; ``tests/team/test_team_size.py`` runs a small one and the
slow tier the full year.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pokayokay.failures.model import Correction, FailureGroup
from pokayokay.team.aggregate import team_evidence
from pokayokay.team.files import read_team, team_folder, write_own
from pokayokay.team.records import TeamRecord, from_group

LIMIT = 1 << 20
DAY = 86_400
START = 1_767_225_600  # 2026-01-01 UTC


@dataclass(frozen=True)
class Result:
    people: int
    sessions: int
    final_bytes: int
    largest_bytes: int
    lines: int
    mistakes: int
    read_seconds: float  # every file read and checked in full (a fresh clone)
    warm_read_seconds: float  # lines checked before only parsed (every later SessionStart)

    @property
    def under_limit(self) -> bool:
        return self.final_bytes < LIMIT


def _kind(n: int) -> tuple[str, str, tuple[str, ...], str, Correction | None]:
    folder = ["src/shop", "src/api", "src/auth", "tests", "web/app", "scripts"][n % 6]
    if n % 4 == 0:
        key, category = f"test:tests/test_mod{n}.py::test_case_{n}", "testing"
        paths: tuple[str, ...] = (f"tests/test_mod{n}.py", f"{folder}/mod{n}.py")
        command = f"pytest tests/test_mod{n}.py -q"
    elif n % 4 == 1:
        key, category = f"ruff:F{400 + n % 90}", "lint"
        paths, command = (f"{folder}/mod{n}.py",), f"ruff check {folder}"
    elif n % 4 == 2:
        key, category = f"mypy:arg-type:{folder}/mod{n}.py", "typing"
        paths, command = (f"{folder}/mod{n}.py",), f"mypy {folder}/mod{n}.py"
    else:
        key, category = f"module-not-found:pkg{n}", "environment"
        paths, command = (), f"python scripts/run{n}.py"
    fix = Correction(command, f".venv/bin/{command}", "environment", 1) if n % 5 == 0 else None
    return key, category, paths, command, fix


def simulate(people: int, days: int, per_day: int, kinds: int, seed: int, root: Path) -> Result:
    rng = random.Random(seed)
    project = root / "project"
    (project / ".claude").mkdir(parents=True)
    writers = [f"{rng.getrandbits(64):016x}" for _ in range(people)]
    weights = [1 / (n + 1) ** 1.1 for n in range(kinds)]
    state: list[dict[str, FailureGroup]] = [{} for _ in range(people)]
    # from_group is pure (a group in, its redacted record out), so a group unchanged since its
    # writer's last session keeps the record it got then: the simulation's shortcut, not the
    # hook's (redacting every unchanged group again was 55% of a year's simulation).
    known: dict[FailureGroup, TeamRecord | None] = {}

    def record_of(group: FailureGroup) -> TeamRecord | None:
        if group not in known:
            known[group] = from_group(group)
        return known[group]

    largest = sessions = 0
    for day in range(days):
        for person in range(people):
            for s in range(per_day):
                sessions += 1
                at = START + day * DAY + person * 600 + s * 3600
                groups = state[person]
                hits = set(rng.choices(range(kinds), weights, k=rng.choice((0, 0, 1, 1, 2, 3))))
                for n in hits:
                    key, category, paths, command, fix = _kind(n)
                    old = groups.get(key)
                    times = rng.randint(1, 3)
                    groups[key] = FailureGroup(
                        key, category, (old.sessions if old else 0) + 1,
                        (old.occurrences if old else 0) + times,
                        old.first_seen if old else at, at, paths, paths[:1], (),
                        command, "", (fix,) if fix else (), (),
                    )
                if hits:
                    records = tuple(r for r in map(record_of, groups.values()) if r)
                    write_own(project, writers[person], records, str(project))
                    if sessions % 97 == 0:  # as SessionStart reads (and keeps the digests)
                        largest = max(largest, _size(project))
                        read_team(project, str(project))
    final = _size(project)
    started = time.perf_counter()
    evidence = team_evidence(read_team(project).records)  # no digests: every line checked
    read = time.perf_counter() - started
    read_team(project, str(project))
    started = time.perf_counter()
    team_evidence(read_team(project, str(project)).records)
    warm = time.perf_counter() - started
    lines = sum(p.read_bytes().count(b"\n") for p in team_folder(project).glob("*.jsonl"))
    return Result(
        people, sessions, final, max(largest, final), lines, len(evidence.groups), read, warm
    )


def _size(project: Path) -> int:
    return sum(p.stat().st_size for p in team_folder(project).glob("*.jsonl"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--people", type=int, default=10)
    parser.add_argument("--days", type=int, default=250)
    parser.add_argument("--sessions-per-day", type=int, default=2)
    parser.add_argument("--kinds", type=int, default=400)
    parser.add_argument("--seed", type=int, default=28)
    parser.add_argument("--json", metavar="PATH")
    ns = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        # The readers keep their checked lines' digests in pokayokay's state folder: run by hand,
        # the simulation keeps them in its own throwaway folder, never in the user's real state.
        saved = os.environ.get("POKAYOKAY_HOME")
        os.environ["POKAYOKAY_HOME"] = str(Path(tmp) / "state")
        try:
            result = simulate(ns.people, ns.days, ns.sessions_per_day, ns.kinds, ns.seed, Path(tmp))
        finally:
            if saved is None:
                os.environ.pop("POKAYOKAY_HOME", None)
            else:
                os.environ["POKAYOKAY_HOME"] = saved
    print(
        f"{result.people} people, {result.sessions} sessions: team folder {result.final_bytes:,} B "
        f"at the end (largest {result.largest_bytes:,} B; limit {LIMIT:,} B), "
        f"{result.lines:,} lines, {result.mistakes} mistakes; reading it all took "
        f"{result.read_seconds * 1000:.0f} ms checked in full, "
        f"{result.warm_read_seconds * 1000:.0f} ms with the checked lines' digests"
    )
    if ns.json:
        Path(ns.json).write_text(json.dumps(result.__dict__, indent=2) + "\n")
    return 0 if result.under_limit else 1


if __name__ == "__main__":
    sys.exit(main())
