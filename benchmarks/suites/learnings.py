"""`pokayokay remember` as the learnings grow: the same command over 50 and 2,000 stored
learnings, each run storing a new, distinct learning (so every run does the full work: the
exact-repeat and near-duplicate lookups, the contradiction check, the new topic file and the
Topic Index write). Then the readers of every learning, `status` and `consolidate --dry-run`,
over 2,000 learnings: both list the contradictions among all stored learnings."""

from __future__ import annotations

import subprocess

from benchmarks.fixtures.lab import Lab
from benchmarks.fixtures.learnings import generate_learnings, write_learnings
from benchmarks.harness import Case, Measurable, Spec

REMEMBER_SIZES = ((50, "50"), (2000, "2,000"))
REMEMBER_AREAS = (
    "ledger reconciliation", "partner sandbox", "edge cache", "translation pipeline",
    "load balancer", "schema registry", "print queue", "geo lookup",
)  # fmt: skip
REMEMBER_FIXES = (
    "rebuild the wheel cache first", "pass --frozen-lockfile to the installer",
    "export the region before the deploy", "warm the cache with the seed script",
)  # fmt: skip


def remember_text(run: int) -> bytes:
    """A learning no other run (and no stored learning) says: the run number is in it, and a
    number keeps two learnings apart."""
    area = REMEMBER_AREAS[run % len(REMEMBER_AREAS)]
    fix = REMEMBER_FIXES[run % len(REMEMBER_FIXES)]
    return f"When the {area} job {run} stalls after a release, {fix}.".encode()


def remember_spec(count: int, label: str) -> Spec:
    name = f"pokayokay remember ({label} learnings)"

    def build(lab: Lab, n: int) -> Measurable:
        project = lab.project(f"remember-{count}")
        write_learnings(project.memory_dir, generate_learnings(count, seed=11))

        def check(proc: subprocess.CompletedProcess[bytes]) -> str | None:
            if not proc.stdout.startswith(b"Stored: "):
                return f"expected a new learning stored, got: {proc.stdout[:300]!r}"
            return None

        def verify(runs: int) -> str | None:
            stored = len(list(project.memory_dir.glob("learning-*.md")))
            if stored != count + runs:
                return f"expected {count + runs} learning files, found {stored}"
            return None

        return Case(
            name,
            [
                lab.console_script(),
                "remember",
                "--stdin",
                "--project",
                str(project.path),
                "--memory-dir",
                str(project.memory_dir),
            ],
            n,
            project.path,
            project.env,
            stdin_each=remember_text,
            check_each=check,
            verify=verify,
            note=f"{count:,} learning files and a Topic Index in MEMORY.md; each run stores a "
            "new, distinct learning",
        )

    return Spec(name, build)


def reader_spec(command: tuple[str, ...], count: int, label: str) -> Spec:
    """A command that reads every stored learning (``status``, ``consolidate --dry-run``)."""
    name = f"pokayokay {' '.join(command)} ({label} learnings)"

    def build(lab: Lab, n: int) -> Measurable:
        project = lab.project(f"reader-{command[0]}-{count}")
        write_learnings(project.memory_dir, generate_learnings(count, seed=11))

        def check(proc: subprocess.CompletedProcess[bytes]) -> str | None:
            if proc.returncode != 0:
                return f"exit {proc.returncode}: {proc.stderr[:300]!r}"
            return None

        return Case(
            name,
            [lab.console_script(), *command, "--project", str(project.path),
             "--memory-dir", str(project.memory_dir)],
            n,
            project.path,
            project.env,
            check_each=check,
            note=f"{count:,} learning files; lists the contradictions among them",
        )

    return Spec(name, build)


def specs() -> list[Spec]:
    return [remember_spec(count, label) for count, label in REMEMBER_SIZES] + [
        reader_spec(("status",), 2000, "2,000"),
        reader_spec(("consolidate", "--dry-run"), 2000, "2,000"),
    ]
