"""The commands that work on large inputs: curate (1k, 10k and 100k lines, as a command and
in-process), graduate over 10k and 100k stored failures, `pokayokay failures`, and `ages` on a
2,000-commit history."""

from __future__ import annotations

import shutil
import subprocess

from benchmarks.fixtures.ages import AGES_COMMITS, AGES_ENTRIES, AGES_FILE, build_ages_repo
from benchmarks.fixtures.failures import store_fixture
from benchmarks.fixtures.lab import Lab, slug
from benchmarks.fixtures.memory import memory_text
from benchmarks.harness import BenchmarkSkipped, Case, InProcessCase, Measurable, Spec
from benchmarks.suites.common import curated

SIZES = ((1_000, "1k", None), (10_000, "10k", 9), (100_000, "100k", 3))

STORE_SIZES = ((10_000, "10k", 9), (100_000, "100k", 5))
LARGEST = 100_000  # curate lines, stored events: in quick mode these rows run once


def graduate_spec(events: int, label: str, cap: int) -> Spec:
    name = f"graduate with {label} stored events"

    def prepare(lab: Lab) -> object:
        return store_fixture(lab, events, label)

    def build(lab: Lab, n: int) -> Measurable:
        g = store_fixture(lab, events, label)
        project = g.project
        memory = memory_text(80).encode()
        rules = project.path / ".claude" / "rules" / "pokayokay"

        def reset() -> None:
            project.restore(memory)  # also removes recurring-failures.md
            shutil.rmtree(rules, ignore_errors=True)

        def check(proc: subprocess.CompletedProcess[bytes]) -> str | None:
            if b"created .claude/rules/pokayokay/" not in proc.stdout:
                return f"no rule file created: {proc.stdout[:300]!r}"
            return None

        def verify(runs: int) -> str | None:
            if not list(rules.glob("*.md")):
                return f"no rule file in {rules}"
            if not (project.memory_dir / "recurring-failures.md").exists():
                return "recurring-failures.md was not written"
            return None

        return Case(
            name,
            [
                lab.console_script(),
                "graduate",
                "--project",
                str(project.path),
                "--memory-dir",
                str(project.memory_dir),
            ],
            min(n, cap),
            project.path,
            project.env,
            before_each=reset,
            check_each=check,
            verify=verify,
            note=f"{events:,} failures, {g.signatures} signatures, 200 sessions; rule files, "
            "topic file and MEMORY.md reset (untimed) before each run",
        )

    return Spec(name, build, prepare=prepare, quick_runs=1 if events >= LARGEST else None)


FAILURES_CAP = 5


def failures_spec(events: int, label: str) -> Spec:
    name = f"pokayokay failures ({label} stored events)"

    def prepare(lab: Lab) -> object:
        return store_fixture(lab, events, label)

    def build(lab: Lab, n: int) -> Measurable:
        g = store_fixture(lab, events, label)
        project = g.project
        expected = f"{g.signatures} failure signatures recorded, {g.signatures} recurring".encode()

        def check(proc: subprocess.CompletedProcess[bytes]) -> str | None:
            if expected not in proc.stdout:
                return f"expected {expected!r}, got: {proc.stdout[:300]!r}"
            return None

        return Case(
            name,
            [
                lab.console_script(),
                "failures",
                "--project",
                str(project.path),
                "--memory-dir",
                str(project.memory_dir),
            ],
            min(n, FAILURES_CAP),
            project.path,
            project.env,
            check_each=check,
            note=f"lists the {g.signatures} signatures of the {events:,}-failure store",
        )

    return Spec(name, build, prepare=prepare, quick_runs=1)  # the 100k store only


def graduation_specs() -> list[Spec]:
    out = [graduate_spec(events, label, cap) for events, label, cap in STORE_SIZES]
    events, label, _ = STORE_SIZES[-1]
    out.append(failures_spec(events, label))
    return out


AGES = f"ages on a {AGES_ENTRIES}-entry file with {AGES_COMMITS:,} commits"
AGES_CAP = 9


def ages_spec() -> Spec:
    def build(lab: Lab, n: int) -> Measurable:
        if lab.git is None:
            raise BenchmarkSkipped("git is not on PATH")
        project = lab.project(slug(AGES), init=build_ages_repo(lab.git, lab.env))
        file = project.path / AGES_FILE
        expected = f"**Total entries:** {AGES_ENTRIES}".encode()

        def check(proc: subprocess.CompletedProcess[bytes]) -> str | None:
            if expected not in proc.stdout:
                return f"expected {expected!r} in the output, got: {proc.stdout[:300]!r}"
            return None

        return Case(
            AGES,
            [lab.console_script(), "ages", str(file), "--project", str(project.path)],
            min(n, AGES_CAP),
            project.path,
            project.env,
            check_each=check,
            note="repository built (untimed) with git fast-import: 520 entry commits, one "
            "consolidation removing 20, ~700 days",
        )

    return Spec(AGES, build)


def curate_specs(lines: int, label: str, cap: int | None) -> list[Spec]:
    name = f"curate {label} lines"
    in_process = f"{name} (in-process curate+check)"
    text = memory_text(lines)  # ~43 bytes a line: 100k lines is ~4.3 MB
    content = text.encode()

    def sub(lab: Lab, n: int) -> Measurable:
        project = lab.project(slug(name))
        return Case(
            name,
            [
                lab.console_script(),
                "curate",
                "--memory-dir",
                str(project.memory_dir),
                "--project",
                str(project.path),
            ],
            min(n, cap) if cap else n,
            project.path,
            project.env,
            warmup=0 if cap is not None and cap <= 3 else 1,
            before_each=lambda: project.restore(content),
            verify=curated(project, lines),
            note=f"{len(content):,} bytes; restored (untimed) before each run",
        )

    def inproc(lab: Lab, n: int) -> Measurable:
        project = lab.root / "projects" / slug(in_process)
        project.mkdir(parents=True)
        return InProcessCase(
            in_process,
            text,
            min(n, cap) if cap else n,
            project,
            of=name,
            note="pure curate() + invariants.check(), no subprocess, no I/O",
            warmup=0 if cap is not None and cap <= 3 else 1,  # as its command's row
        )

    once = 1 if lines >= LARGEST else None  # quick mode: the largest size runs once
    return [Spec(name, sub, quick_runs=once), Spec(in_process, inproc, quick_runs=once)]


def specs() -> list[Spec]:
    """Curation at three sizes, graduation and `failures` over big stores, then `ages`."""
    out: list[Spec] = []
    for lines, label, cap in SIZES:
        out += curate_specs(lines, label, cap)
    out += graduation_specs()
    out.append(ages_spec())
    return out
