"""pokayokay's benchmarks: hook and curation wall times as ratios to a bare interpreter start.

Run with the interpreter pokayokay is installed in::

    .venv/bin/python benchmarks/run.py [--quick] [--repeat N] [--json PATH] [--only NAME...]

Every benchmark except the in-process rows is the wall time of a whole subprocess
(``time.perf_counter`` around ``subprocess.run``), so it includes interpreter start, imports,
reading stdin and writing files. The floor is ``<this interpreter> -c pass``, measured first and
last in the same run; ratios divide a benchmark's median by the lower of the two floor medians.

Benchmarks never fail on speed. The exit code is 1 only when a benchmarked command fails (exits
non-zero, prints something it should not, or does not do its job); its stderr is shown. Everything
runs in a throwaway folder: HOME, CLAUDE_CONFIG_DIR and POKAYOKAY_HOME all point into it.

Standard library only, plus pokayokay itself.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "tests" / "data" / "claude-code-samples"
PLUGIN_SHIM = REPO / "hooks" / "pokayokay-hook"
DEFAULT_JSON = Path(__file__).resolve().parent / "results" / "latest.json"

DEFAULT_REPEAT = 21
QUICK_REPEAT = 5

FLOOR = "floor: python -c pass"
FLOOR_ISOLATED = "floor: python -I -S -c pass"

# Environment variables that would point the hooks somewhere other than the throwaway folder.
SCRUBBED_ENV = (
    "CLAUDE_PROJECT_DIR",
    "CLAUDE_CODE_PROJECT_DIR_NAME",
    "CLAUDE_PLUGIN_ROOT",
    "POKAYOKAY_MEMORY_DIR",
    "XDG_STATE_HOME",
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONSTARTUP",
)

TOPICS = (
    "checkout retries",
    "invoice PDF export",
    "search indexing",
    "webhook signatures",
    "nightly backups",
    "API rate limiting",
    "session cookies",
    "tenant isolation",
)


class BenchmarkFailed(Exception):
    """A benchmarked command failed or did not do its job (speed never fails a benchmark)."""

    def __init__(self, name: str, message: str, stderr: str = "") -> None:
        super().__init__(message)
        self.name = name
        self.message = message
        self.stderr = stderr


# -- test material ---------------------------------------------------------------------------------
def memory_text(total_lines: int) -> str:
    """A MEMORY.md of exactly ``total_lines`` lines (for 50 or more): Claude's notes above and
    below, and pokayokay's six managed sections filled round-robin with dated entries (every
    fourth one two lines long), far over their budgets once the file is past ~150 lines."""
    from pokayokay.sections import DEFAULT_SECTIONS, END_MARKER, TOPIC_INDEX_ID

    head = ["# Memory\n", "\n"] + [
        f"- [{TOPICS[i % len(TOPICS)].capitalize()}](note-{i}.md) — Claude's own note, "
        f"kept verbatim by pokayokay\n"
        for i in range(8)
    ]
    tail = ["\n", "## Notes from Claude\n", "\n"] + [
        f"- [Flaky test {i}](flaky-{i}.md) — rerun once under load; "
        f"{TOPICS[(i + 3) % len(TOPICS)]} times out\n"
        for i in range(5)
    ]
    per_section = 4  # blank line, heading, marker, end marker
    room = total_lines - len(head) - len(tail) - per_section * len(DEFAULT_SECTIONS)
    if room < len(DEFAULT_SECTIONS):
        raise ValueError(f"memory_text needs at least 50 lines, not {total_lines}")
    bodies: dict[str, list[str]] = {spec.id: [] for spec in DEFAULT_SECTIONS}
    start = dt.date(2024, 1, 1)
    used = i = 0
    while used < room:
        spec = DEFAULT_SECTIONS[i % len(DEFAULT_SECTIONS)]
        day = (start + dt.timedelta(days=(i * 7) % 900)).isoformat()
        topic = TOPICS[i % len(TOPICS)]
        if spec.id == TOPIC_INDEX_ID:
            lines = [f"- [{topic.capitalize()} {i}](topic-{i}.md) — details as of {day}\n"]
        elif i % 4 == 3 and used + 2 <= room:
            lines = [
                f"- {day} decision {i}: {topic} goes through the job queue\n",
                f"  — affects {TOPICS[(i + 1) % len(TOPICS)]} and its tests\n",
            ]
        else:
            lines = [f"- {day} story-{i}: {topic} (done, reviewed)\n"]
        bodies[spec.id].extend(lines)
        used += len(lines)
        i += 1
    out = list(head)
    for spec in DEFAULT_SECTIONS:
        out += ["\n", f"## {spec.title}\n", f"{spec.marker_line}\n", *bodies[spec.id]]
        out.append(f"{END_MARKER}\n")
    out += tail
    text = "".join(out)
    assert text.count("\n") == total_lines, (text.count("\n"), total_lines)
    return text


def sample_payload(name: str) -> bytes:
    return (SAMPLES / name).read_bytes()


NOTIFICATION_PAYLOAD = json.dumps(
    {
        "session_id": "0ebb4b7c-7011-44b6-afdb-8302b6c943e8",
        "transcript_path": "/home/dev/.claude/projects/-home-dev-project/x.jsonl",
        "cwd": "/home/dev/project",
        "hook_event_name": "Notification",
        "message": "Claude needs your permission to use Bash",
    }
).encode()


def count_lines(path: Path) -> int:
    with open(path, "rb") as fh:
        return sum(1 for _ in fh)


# -- the throwaway environment -----------------------------------------------------------------
@dataclass
class Project:
    """A project folder with its own auto-memory folder inside the lab."""

    path: Path
    memory_dir: Path
    env: dict[str, str]

    @property
    def memory_file(self) -> Path:
        return self.memory_dir / "MEMORY.md"

    def restore(self, content: bytes) -> None:
        """MEMORY.md back to ``content``; archives (everything else in the folder) removed."""
        for entry in os.scandir(self.memory_dir):
            if entry.name != "MEMORY.md":
                os.unlink(entry.path)
        self.memory_file.write_bytes(content)

    def archives(self) -> list[Path]:
        return sorted(p for p in self.memory_dir.iterdir() if p.name.endswith("-archive.md"))

    def snapshot(self) -> dict[str, bytes]:
        return {p.name: p.read_bytes() for p in sorted(self.memory_dir.iterdir())}


class Lab:
    """HOME, CLAUDE_CONFIG_DIR and POKAYOKAY_HOME in one temporary folder."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.bin_dir = Path(sys.executable).parent
        env = {k: v for k, v in os.environ.items() if k not in SCRUBBED_ENV}
        env.update(
            HOME=str(root / "home"),
            CLAUDE_CONFIG_DIR=str(root / "home" / ".claude"),
            POKAYOKAY_HOME=str(root / "pokayokay-state"),
            PATH=os.pathsep.join([str(self.bin_dir), os.environ.get("PATH", "")]),
        )
        self.env = env
        self.state_home = root / "pokayokay-state"
        self.git = shutil.which("git")
        (root / "home" / ".claude").mkdir(parents=True)

    def project(self, slug: str) -> Project:
        from pokayokay.locate import resolve_memory_location

        path = self.root / "projects" / slug
        path.mkdir(parents=True)
        if self.git:
            subprocess.run(
                [self.git, "init", "-q", str(path)],
                env=self.env,
                check=True,
                capture_output=True,
            )
        location = resolve_memory_location(path, environ=self.env)
        location.memory_dir.mkdir(parents=True, exist_ok=True)
        env = dict(self.env, CLAUDE_PROJECT_DIR=str(path))
        return Project(path, location.memory_dir, env)

    def console_script(self) -> str:
        script = self.bin_dir / "pokayokay"
        if script.exists():
            return str(script)
        found = shutil.which("pokayokay", path=self.env["PATH"])
        if found is None:
            raise SystemExit(f"no `pokayokay` console script next to {sys.executable} or on PATH")
        return found


# -- measuring ------------------------------------------------------------------------------
@dataclass
class Result:
    name: str
    kind: str  # "subprocess" or "in-process"
    times_ms: list[float]
    command: list[str] | None = None
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def median(self) -> float:
        return statistics.median(self.times_ms)


Check = Callable[["subprocess.CompletedProcess[bytes]"], str | None]


@dataclass
class Case:
    """One subprocess benchmark."""

    name: str
    argv: list[str]
    n: int
    cwd: Path
    env: dict[str, str]
    stdin: bytes = b""
    warmup: int = 1
    before_each: Callable[[], None] | None = None  # untimed, before every run
    check_each: Check | None = None  # returns a problem, or None
    verify: Callable[[int], str | None] | None = None  # after the last run; gets the run count
    note: str = ""

    def measure(self) -> Result:
        times: list[float] = []
        runs = self.warmup + self.n
        for i in range(runs):
            if self.before_each is not None:
                self.before_each()
            start = time.perf_counter()
            proc = subprocess.run(
                self.argv,
                input=self.stdin,
                capture_output=True,
                cwd=self.cwd,
                env=self.env,
                check=False,
            )
            elapsed = time.perf_counter() - start
            if proc.returncode != 0:
                message = f"exit code {proc.returncode} from {' '.join(self.argv)}"
                raise BenchmarkFailed(self.name, message, self.stderr_and_log(proc))
            problem = self.check_each(proc) if self.check_each is not None else None
            if problem:
                raise BenchmarkFailed(self.name, problem, self.stderr_and_log(proc))
            if i >= self.warmup:
                times.append(elapsed * 1000)
        problem = self.verify(runs) if self.verify is not None else None
        if problem:
            raise BenchmarkFailed(self.name, problem)
        return Result(self.name, "subprocess", times, command=self.argv, note=self.note)

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

    def measure(self) -> Result:
        from pokayokay import invariants
        from pokayokay.curation import curate
        from pokayokay.settings import load_settings

        settings = load_settings(self.project)
        today = dt.date.today()
        total: list[float] = []
        curate_ms: list[float] = []
        check_ms: list[float] = []
        for i in range(self.n + 1):  # the first run warms up
            gc.collect()
            t0 = time.perf_counter()
            result = curate(self.text, settings, {}, today)
            t1 = time.perf_counter()
            invariants.check(result, settings, {}, today)
            t2 = time.perf_counter()
            if not result.changed or not result.archives:
                raise BenchmarkFailed(self.name, "curation changed nothing; the text is wrong")
            if i:
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


# -- the benchmarks -----------------------------------------------------------------------------
def no_output(proc: subprocess.CompletedProcess[bytes]) -> str | None:
    if proc.stdout.strip():
        return f"expected no output, got: {proc.stdout[:300]!r}"
    return None


def context_note(lines: int) -> Check:
    def check(proc: subprocess.CompletedProcess[bytes]) -> str | None:
        try:
            note = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
        except (ValueError, KeyError, TypeError):
            return f"expected the SessionStart context note, got: {proc.stdout[:300]!r}"
        if f"MEMORY.md is {lines} lines" not in note:
            return f"unexpected context note: {note[:300]!r}"
        return None

    return check


def curated(project: Project, before_lines: int) -> Callable[[int], str | None]:
    def verify(runs: int) -> str | None:
        after = count_lines(project.memory_file)
        if after >= before_lines:
            return f"MEMORY.md was not curated: {after} lines, was {before_lines}"
        if not project.archives():
            return "MEMORY.md was curated but no archive file exists"
        return None

    return verify


def unchanged(project: Project) -> Callable[[int], str | None]:
    before = project.snapshot()

    def verify(runs: int) -> str | None:
        if project.snapshot() != before:
            return "the memory folder changed although there was nothing to do"
        return None

    return verify


@dataclass(frozen=True)
class Spec:
    name: str
    build: Callable[[Lab, int], Measurable]


SIZES = ((1_000, "1k", None), (10_000, "10k", 9), (100_000, "100k", 3))


def specs(lab: Lab) -> list[Spec]:
    py = sys.executable
    pokayokay = lab.console_script()
    out: list[Spec] = []

    def floor(name: str, argv: list[str], note: str) -> Spec:
        return Spec(name, lambda lab, n: Case(name, argv, n, lab.root, lab.env, note=note))

    out.append(floor(FLOOR, [py, "-c", "pass"], "the baseline: interpreter start, site, exit"))
    out.append(floor(FLOOR_ISOLATED, [py, "-I", "-S", "-c", "pass"], "no site: the start-up core"))
    out.append(
        floor("import pokayokay.cli", [py, "-c", "import pokayokay.cli"], "import cost of the CLI")
    )

    def session_start(name: str, argv: list[str], note: str) -> Spec:
        def build(lab: Lab, n: int) -> Measurable:
            project = lab.project(slug(name))
            project.restore(memory_text(80).encode())
            return Case(
                name,
                argv,
                n,
                project.path,
                project.env,
                stdin=sample_payload("SessionStart.startup.json"),
                check_each=no_output,
                verify=unchanged(project),
                note=note,
            )

        return Spec(name, build)

    out.append(
        session_start(
            "hook SessionStart (nothing to do)",
            [pokayokay, "hook", "SessionStart"],
            "console script; 80-line MEMORY.md within limits: the common case",
        )
    )
    out.append(
        session_start(
            "hook SessionStart (nothing to do) via python -m pokayokay",
            [py, "-m", "pokayokay", "hook", "SessionStart"],
            "same work, started through runpy",
        )
    )
    out.append(
        session_start(
            "hook SessionStart (nothing to do) via plugin shim",
            [str(PLUGIN_SHIM), "SessionStart"],
            "hooks/pokayokay-hook: /bin/sh finds pokayokay on PATH, then exec",
        )
    )

    def over_limit(lab: Lab, n: int) -> Measurable:
        name = "hook SessionStart (MEMORY.md over limit)"
        project = lab.project("session-start-over")
        project.restore(memory_text(260).encode())
        return Case(
            name,
            [pokayokay, "hook", "SessionStart"],
            n,
            project.path,
            project.env,
            stdin=sample_payload("SessionStart.startup.json"),
            check_each=context_note(260),
            verify=unchanged(project),
            note="260 lines: parses the file and prints the context note",
        )

    out.append(Spec("hook SessionStart (MEMORY.md over limit)", over_limit))

    def session_end_curating(lab: Lab, n: int) -> Measurable:
        name = "hook SessionEnd (curating a 300-line file)"
        project = lab.project("session-end-curating")
        content = memory_text(300).encode()
        return Case(
            name,
            [pokayokay, "hook", "SessionEnd"],
            n,
            project.path,
            project.env,
            stdin=sample_payload("SessionEnd.other.json"),
            before_each=lambda: project.restore(content),
            check_each=no_output,
            verify=curated(project, 300),
            note="file restored (untimed) before each run; archives, backup, lock included",
        )

    out.append(Spec("hook SessionEnd (curating a 300-line file)", session_end_curating))

    def session_end_idle(lab: Lab, n: int) -> Measurable:
        name = "hook SessionEnd (nothing to do)"
        project = lab.project("session-end-idle")
        project.restore(memory_text(300).encode())
        subprocess.run(
            [pokayokay, "curate", "--quiet", "--project", str(project.path)],
            env=project.env,
            cwd=project.path,
            check=True,
            capture_output=True,
        )
        return Case(
            name,
            [pokayokay, "hook", "SessionEnd"],
            n,
            project.path,
            project.env,
            stdin=sample_payload("SessionEnd.other.json"),
            check_each=no_output,
            verify=unchanged(project),
            note="already curated: parse, curate, check, write nothing",
        )

    out.append(Spec("hook SessionEnd (nothing to do)", session_end_idle))

    def capture(lab: Lab, n: int) -> Measurable:
        name = "hook PostToolUseFailure (capture)"
        project = lab.project("capture")
        project.restore(memory_text(80).encode())

        def records() -> int:
            files = (lab.state_home / "projects").glob("*/failures.jsonl")
            return sum(count_lines(path) for path in files)

        before = records()

        def verify(runs: int) -> str | None:
            added = records() - before
            if added != runs:
                return f"{runs} failures sent, {added} recorded in failures.jsonl"
            return None

        return Case(
            name,
            [pokayokay, "hook", "PostToolUseFailure"],
            n,
            project.path,
            project.env,
            stdin=sample_payload("PostToolUseFailure.Bash.json"),
            check_each=no_output,
            verify=verify,
            note="appends one JSON line to the state folder",
        )

    out.append(Spec("hook PostToolUseFailure (capture)", capture))

    def unknown(lab: Lab, n: int) -> Measurable:
        name = "hook Notification (unknown event)"
        project = lab.project("unknown-event")
        project.restore(memory_text(80).encode())
        return Case(
            name,
            [pokayokay, "hook", "Notification"],
            n,
            project.path,
            project.env,
            stdin=NOTIFICATION_PAYLOAD,
            check_each=no_output,
            verify=unchanged(project),
            note="an event pokayokay ignores: the no-op path",
        )

    out.append(Spec("hook Notification (unknown event)", unknown))

    for lines, label, cap in SIZES:
        out += curate_specs(pokayokay, lines, label, cap)
    return out


def curate_specs(pokayokay: str, lines: int, label: str, cap: int | None) -> list[Spec]:
    name = f"curate {label} lines"
    in_process = f"{name} (in-process curate+check)"
    text = memory_text(lines)  # ~43 bytes a line: 100k lines is ~4.3 MB
    content = text.encode()

    def sub(lab: Lab, n: int) -> Measurable:
        project = lab.project(slug(name))
        return Case(
            name,
            [
                pokayokay,
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
        )

    return [Spec(name, sub), Spec(in_process, inproc)]


def slug(name: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in name.lower()).strip("-")[:60]


# -- reporting ----------------------------------------------------------------------------------
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


def table(results: Sequence[Result], floor_ms: float) -> str:
    header = ("benchmark", "median ms", "min ms", "max ms", "N", "ratio", "+ms over floor")
    rows: list[tuple[str, ...]] = []
    for r in results:
        in_process = r.kind == "in-process"
        rows.append(
            (
                r.name,
                fmt_ms(r.median),
                fmt_ms(min(r.times_ms)),
                fmt_ms(max(r.times_ms)),
                str(len(r.times_ms)),
                "n/a" if in_process else f"{r.median / floor_ms:.2f}x",
                "n/a" if in_process else f"{r.median - floor_ms:+.1f}",
            )
        )
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = []
    for row in [header, *rows]:
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


class UsageError(Exception):
    pass


def select(all_specs: list[Spec], only: Sequence[str] | None) -> list[Spec]:
    """The benchmarks named exactly by ``only``, else containing it (case-insensitive)."""
    if not only:
        return all_specs
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


# -- main -----------------------------------------------------------------------------------
def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="pokayokay benchmarks: wall times as ratios to `python -c pass`."
    )
    parser.add_argument(
        "--quick", action="store_true", help=f"{QUICK_REPEAT} runs each (CI smoke runs)"
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
    parser.add_argument("--list", action="store_true", help="list the benchmark names and exit")
    ns = parser.parse_args(argv)
    if ns.repeat is not None and ns.repeat < 1:
        parser.error("--repeat must be at least 1")
    return ns


def compile_package() -> None:
    """Byte-compile pokayokay first, as `pip install` does for a wheel.

    With PYTHONDONTWRITEBYTECODE set (it is on some machines), an editable install would
    otherwise recompile every module on every run and the timings would measure the compiler.
    """
    import compileall

    import pokayokay

    compileall.compile_dir(str(Path(pokayokay.__file__).parent), quiet=1)


def main(argv: Sequence[str] | None = None) -> int:
    ns = parse_args(argv)
    repeat = ns.repeat or (QUICK_REPEAT if ns.quick else DEFAULT_REPEAT)
    compile_package()
    started = dt.datetime.now(dt.timezone.utc)
    load_start = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    root = Path(tempfile.mkdtemp(prefix="pokayokay-bench-"))
    try:
        lab = Lab(root)
        all_specs = specs(lab)
        if ns.list:
            print("\n".join(s.name for s in all_specs))
            return 0
        floors = [s for s in all_specs if s.name == FLOOR]
        try:
            chosen = select([s for s in all_specs if s.name != FLOOR], ns.only)
        except UsageError as exc:
            print(f"run.py: error: {exc}", file=sys.stderr)
            return 2
        plan = [*floors, *chosen, *floors]  # the floor first and last
        results: list[Result] = []
        floor_runs: list[Result] = []
        failures: list[BenchmarkFailed] = []
        for index, spec in enumerate(plan):
            label = spec.name + (" (again, last)" if spec.name == FLOOR and index else "")
            print(f"[{index + 1}/{len(plan)}] {label} ...", file=sys.stderr, flush=True)
            try:
                result = spec.build(lab, repeat).measure()
            except BenchmarkFailed as exc:
                failures.append(exc)
                print(f"FAILED: {exc.name}: {exc.message}", file=sys.stderr)
                if exc.stderr:
                    print(exc.stderr.rstrip(), file=sys.stderr)
                continue
            if spec.name == FLOOR:
                floor_runs.append(result)
            else:
                results.append(result)
    finally:
        shutil.rmtree(root, ignore_errors=True)

    finished = dt.datetime.now(dt.timezone.utc)
    if not floor_runs:
        print("the floor could not be measured; no ratios", file=sys.stderr)
        return 1
    floor = min(floor_runs, key=lambda r: r.median)
    floor_ms = floor.median
    report = [floor, *results]

    info = machine_info()
    if load_start is not None:
        info["loadavg_start"] = load_start
        info["loadavg_end"] = list(os.getloadavg())
    first, last = floor_runs[0], floor_runs[-1]
    print()
    print(
        "Wall time of whole subprocesses (perf_counter around subprocess.run), in ms. "
        "ratio = median / floor,\n"
        f"the floor being `{Path(sys.executable).name} -c pass` on this same interpreter, "
        "measured first and last in this run;\nthe lower of the two medians is used "
        f"(first {fmt_ms(first.median)} ms, last {fmt_ms(last.median)} ms "
        f"-> floor {fmt_ms(floor_ms)} ms). In-process rows have no subprocess: ratio n/a.\n"
        f"Python {info['python']} on {info['platform']}, {info['cpu_count']} CPUs, "
        f"{started:%Y-%m-%d %H:%M:%S} UTC, {(finished - started).total_seconds():.0f} s.\n"
    )
    print(table(report, floor_ms))
    split = cost_split(results)
    if split:
        print("\nCost split of curation (in-process medians):")
        print("\n".join(split))

    data = {
        "timestamp": started.isoformat(timespec="seconds"),
        "duration_s": round((finished - started).total_seconds(), 1),
        "machine": info,
        "repeat": repeat,
        "quick": ns.quick,
        "only": ns.only,
        "ratio": "median_ms / floor.used_ms (the lower of the two floor medians); "
        "null for in-process rows, which start no interpreter",
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
                "ratio_to_floor": None if r.kind == "in-process" else r.median / floor_ms,
                "times_ms": r.times_ms,
                "command": r.command,
                "note": r.note,
                **r.extra,
            }
            for r in report
        ],
        "failures": [{"name": f.name, "message": f.message, "stderr": f.stderr} for f in failures],
    }
    ns.json.parent.mkdir(parents=True, exist_ok=True)
    ns.json.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    print(f"\nresults written to {ns.json}")
    if failures:
        names = ", ".join(f.name for f in failures)
        print(f"\n{len(failures)} benchmark(s) failed: {names}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
