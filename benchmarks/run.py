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

This is the project's one benchmark runner: hooks (session, capture, recall), curation,
graduation over a large failure store, and ``ages`` on a long git history. Fixtures that take a
few seconds to build (the failure stores, the 2,000 learnings, the 2,000-commit repository) are
built only when a benchmark that needs them is selected, untimed.

Standard library only, plus pokayokay itself.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import json
import os
import platform
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

if TYPE_CHECKING:
    from pokayokay.failures.model import Failure
    from pokayokay.failures.store import FailureStore
    from pokayokay.infra.locate import MemoryLocation

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


_T = TypeVar("_T")


class BenchmarkSkipped(Exception):
    """A benchmark cannot run on this machine (e.g. no git); reported, never a failure."""


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
    from pokayokay.memory.sections import DEFAULT_SECTIONS, END_MARKER, TOPIC_INDEX_ID

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


# The project folder of the machine the samples were recorded on.
RECORDED_PROJECT = "/home/dev/project"


def moved_payload(name: str, project: Path, **changes: Any) -> dict[str, Any]:
    """A recorded payload as Claude Code would send it from ``project``: every string naming
    the recording machine's project folder (``cwd``, file paths) names ``project`` instead.
    ``changes`` replace top-level keys."""

    def move(value: Any) -> Any:
        if isinstance(value, str):
            if value == RECORDED_PROJECT or value.startswith(RECORDED_PROJECT + "/"):
                return str(project) + value[len(RECORDED_PROJECT) :]
            return value
        if isinstance(value, list):
            return [move(v) for v in value]
        if isinstance(value, dict):
            return {k: move(v) for k, v in value.items()}
        return value

    payload = move(json.loads(sample_payload(name)))
    assert isinstance(payload, dict)
    payload.update(changes)
    return payload


def encode_payload(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, ensure_ascii=False).encode("utf-8")


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
    location: MemoryLocation

    @property
    def state_dir(self) -> Path:
        """pokayokay's state folder for this project (failure store, recall cache)."""
        from pokayokay.infra.state import project_state_dir

        return project_state_dir(str(self.location.project_key), self.env)

    def store(self) -> FailureStore:
        """The project's failure store, where the hooks write it (open it in a ``with``)."""
        from pokayokay.failures.store import FailureStore

        return FailureStore.for_project(self.location.project_key, self.env)

    def stored_failures(self) -> int:
        """Rows in the failure store, read through ``FailureStore.failures()`` (0: no store)."""
        store = self.store()
        if not store.path.exists():
            return 0
        with store:
            return len(store.failures())

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
        self._shared: dict[str, object] = {}
        (root / "home" / ".claude").mkdir(parents=True)

    def project(self, slug: str, *, init: Callable[[Path], None] | None = None) -> Project:
        """A new project folder, ``git init``-ed (or made by ``init``, given the empty folder)."""
        from pokayokay.infra.locate import resolve_memory_location

        path = self.root / "projects" / slug
        path.mkdir(parents=True)
        if init is not None:
            init(path)
        elif self.git:
            subprocess.run(
                [self.git, "init", "-q", str(path)],
                env=self.env,
                check=True,
                capture_output=True,
            )
        location = resolve_memory_location(path, environ=self.env)
        location.memory_dir.mkdir(parents=True, exist_ok=True)
        env = dict(self.env, CLAUDE_PROJECT_DIR=str(path))
        return Project(path, location.memory_dir, env, location)

    def shared(self, key: str, make: Callable[[], _T]) -> _T:
        """A fixture several benchmarks use, built (untimed) by the first one that needs it."""
        if key not in self._shared:
            started = time.perf_counter()
            self._shared[key] = make()
            elapsed = time.perf_counter() - started
            print(f"      (built {key} in {elapsed:.1f} s, untimed)", file=sys.stderr, flush=True)
        return cast(_T, self._shared[key])

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
    stdin_each: Callable[[int], bytes] | None = None  # the payload of run i (warm-up is run 0)
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
            data = self.stdin if self.stdin_each is None else self.stdin_each(i)
            start = time.perf_counter()
            proc = subprocess.run(
                self.argv,
                input=data,
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
        from pokayokay.config.settings import load_settings
        from pokayokay.memory import invariants
        from pokayokay.memory.curation import curate

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


# -- failure store fixtures -------------------------------------------------------------------
@dataclass(frozen=True)
class FailureKind:
    """One recurring mistake: what ran, what it printed, the files involved, the file a fix
    edits (None: never fixed in a session)."""

    tool: str
    command: str | None
    error: str
    paths: tuple[str, ...]
    fix: str | None = None


PY_MODULES = ("billing", "checkout", "search", "users", "webhooks", "reports")
TS_MODULES = ("cart", "login", "dashboard")


def failure_kinds() -> list[FailureKind]:
    """Thirty failure kinds of a small Python + TypeScript project, ten families of three,
    written as the tools print them (one distinct signature each)."""
    kinds: list[FailureKind] = []
    for i, m in enumerate(PY_MODULES[:3]):
        kinds.append(
            FailureKind(
                "Bash",
                f"pytest tests/test_{m}.py -q",
                "============================= test session starts ==============================\n"
                "collected 12 items\n\n"
                f"tests/test_{m}.py ..F.........\n\n"
                "=================================== FAILURES ===================================\n"
                f"_____________________________ test_{m}_totals _____________________________\n\n"
                f"    def test_{m}_totals():\n"
                f">       assert {m}.total([1, 2]) == 3\n"
                "E       assert 4 == 3\n\n"
                f"tests/test_{m}.py:{20 + i}: AssertionError\n"
                "=========================== short test summary info ============================\n"
                f"FAILED tests/test_{m}.py::test_{m}_totals - assert 4 == 3\n"
                "========================= 1 failed, 11 passed in 0.42s =========================",
                (f"src/app/{m}.py", f"tests/test_{m}.py"),
                f"src/app/{m}.py",
            )
        )
    for i, m in enumerate(PY_MODULES[3:]):
        kinds.append(
            FailureKind(
                "Bash",
                "mypy src",
                f'src/app/{m}.py:{40 + i}: error: Incompatible return value type (got "str | '
                f'None", expected "str")  [return-value]\n'
                "Found 1 error in 1 file (checked 14 source files)",
                (f"src/app/{m}.py",),
                f"src/app/{m}.py",
            )
        )
    for i, m in enumerate(("billing", "users", "reports")):
        kinds.append(
            FailureKind(
                "Bash",
                "ruff check .",
                f"src/app/{m}.py:{60 + i}:89: E501 Line too long (97 > 88)\nFound 1 error.",
                (f"src/app/{m}.py",),
                f"src/app/{m}.py",
            )
        )
    for m, package in (("billing", "stripe"), ("search", "elasticsearch"), ("webhooks", "redis")):
        kinds.append(
            FailureKind(
                "Bash",
                f"python -m app.{m}",
                "Traceback (most recent call last):\n"
                f'  File "src/app/{m}.py", line 3, in <module>\n'
                f"    import {package}\n"
                f"ModuleNotFoundError: No module named '{package}'",
                (f"src/app/{m}.py",),
                "pyproject.toml",
            )
        )
    for m in TS_MODULES:
        kinds.append(
            FailureKind(
                "Bash",
                f"npm test -- {m}",
                f"FAIL web/src/{m}.test.ts\n"
                f"  ● {m} › renders the total\n\n"
                "    expect(received).toBe(expected)\n\n"
                "    Expected: 3\n    Received: 4\n\n"
                "Tests:       1 failed, 8 passed, 9 total",
                (f"web/src/{m}.test.ts", f"web/src/{m}.ts"),
                f"web/src/{m}.ts",
            )
        )
    for i, m in enumerate(TS_MODULES):
        kinds.append(
            FailureKind(
                "Bash",
                "npx tsc --noEmit",
                f"web/src/{m}.ts({12 + i},7): error TS2322: Type 'string' is not assignable to "
                "type 'number'.",
                (f"web/src/{m}.ts",),
                f"web/src/{m}.ts",
            )
        )
    kinds += [
        FailureKind(
            "Bash",
            "git push",
            "To github.com:acme/shop.git\n ! [rejected]        main -> main (fetch first)\n"
            "error: failed to push some refs to 'github.com:acme/shop.git'",
            (),
        ),
        FailureKind(
            "Bash",
            "git rebase origin/main",
            "Auto-merging src/app/checkout.py\n"
            "CONFLICT (content): Merge conflict in src/app/checkout.py\n"
            "error: could not apply 3f2a9c1... checkout: retry payment",
            ("src/app/checkout.py",),
            "src/app/checkout.py",
        ),
        FailureKind(
            "Bash",
            "git checkout release",
            "error: pathspec 'release' did not match any file(s) known to git",
            (),
        ),
    ]
    kinds += [
        FailureKind(
            "Edit",
            None,
            "<tool_use_error>String to replace not found in file.\n"
            "String: def checkout_total(items):</tool_use_error>",
            ("src/app/checkout.py",),
        ),
        FailureKind(
            "Edit",
            None,
            "<tool_use_error>Found 2 matches of the string to replace, but replace_all is false. "
            "To replace all occurrences, set replace_all to true. To replace only one occurrence, "
            "please provide more context to uniquely identify the instance.\n"
            "String: return total</tool_use_error>",
            ("src/app/search.py",),
        ),
        FailureKind(
            "Write",
            None,
            "<tool_use_error>File has not been read yet. Read it first before writing to it."
            "</tool_use_error>",
            ("src/app/users.py",),
        ),
    ]
    for i, m in enumerate(("hashing", "resize", "parse")):
        kinds.append(
            FailureKind(
                "Bash",
                "make build",
                f"src/native/{m}.c:{30 + i}:5: error: implicit declaration of function "
                f"'{m}_fast' [-Werror=implicit-function-declaration]\n"
                "make: *** [Makefile:12: build] Error 1",
                (f"src/native/{m}.c",),
                f"src/native/{m}.c",
            )
        )
    kinds += [
        FailureKind(
            "Bash",
            "./scripts/deploy.sh staging",
            "bash: ./scripts/deploy.sh: Permission denied",
            ("scripts/deploy.sh",),
        ),
        FailureKind(
            "Bash",
            "psql -f db/seed.sql",
            'psql: error: connection to server on socket "/var/run/postgresql/.s.PGSQL.5432" '
            "failed: No such file or directory",
            ("db/seed.sql",),
        ),
        FailureKind(
            "Bash",
            "cat config/local.toml",
            "cat: config/local.toml: No such file or directory",
            ("config/local.toml",),
            "config/local.toml",
        ),
    ]
    assert len(kinds) == 30, len(kinds)
    return kinds


def write_project_files(root: Path, kinds: Sequence[FailureKind]) -> None:
    """The small project the failures point into (untracked files: ``git ls-files --others``
    lists them as graduation does)."""
    files = {p for kind in kinds for p in (*kind.paths, kind.fix) if p}
    files.update(("README.md", "Makefile", "package.json", "web/src/index.ts", "docs/guide.md"))
    files.update(f"src/app/{m}.py" for m in PY_MODULES)
    files.update(f"tests/test_{m}.py" for m in PY_MODULES)
    files.add("src/app/__init__.py")
    for rel in sorted(files):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# {rel}\n", encoding="utf-8")


def failure_of(kind: FailureKind, root: Path) -> Failure:
    """``kind`` captured as the PostToolUseFailure hook would: the same signature, category
    and excerpt pipeline (``ts`` and ``session_id`` are filled in per event)."""
    from pokayokay.failures.classify import classify
    from pokayokay.failures.model import Failure
    from pokayokay.failures.signature import command_key, key_lines, normalise
    from pokayokay.safety.sanitize import excerpt

    roots = (str(root),)
    command = command_key(kind.command) if kind.command else None
    lines = key_lines(kind.error, project_roots=roots)
    return Failure(
        ts=0.0,
        session_id="",
        tool=kind.tool,
        command=command,
        signature=normalise(kind.error, project_roots=roots),
        category=classify(kind.tool, command, kind.error),
        paths=tuple(sorted(set(kind.paths))),
        excerpt=excerpt(" | ".join(lines) if lines else kind.error),
        exit_code=1 if kind.tool == "Bash" else None,
    )


def fill_store(
    store: FailureStore,
    root: Path,
    events: int,
    *,
    sessions: int = 200,
    days: float = 60.0,
    seed: int = 11,
) -> int:
    """Record ``events`` failures over ``sessions`` sessions in the last ``days`` days, through
    ``FailureStore.record_failures`` (one transaction per session). A few kinds are common, most
    are rare (weights 1/rank); each session hits three to seven kinds, in a retry loop. About
    half the sessions then fix one of their command failures: an edit of the fixed file and a
    success of the command close the fix episode, as PostToolUse does. Returns the number of
    distinct signatures."""

    rng = random.Random(seed)
    kinds = failure_kinds()
    templates = [failure_of(kind, root) for kind in kinds]
    weights = [1 / (rank + 1) for rank in range(len(kinds))]
    start = time.time() - days * 86400
    step = days * 86400 / sessions
    for s in range(sessions):
        session = str(uuid.UUID(int=rng.getrandbits(128)))
        picked = sorted(set(rng.choices(range(len(kinds)), weights, k=rng.randint(3, 7))))
        count = events // sessions + (1 if s < events % sessions else 0)
        ts = start + s * step
        batch: list[Failure | tuple[Failure, str | None]] = []
        for e in range(count):
            k = rng.choice(picked)
            ts += rng.uniform(2, 20)
            failure = templates[k]._replace(ts=ts, session_id=session)
            batch.append((failure, f"toolu_fill_{s:03d}_{e:05d}"))
        store.record_failures(batch)
        fixable = [k for k in picked if kinds[k].command and kinds[k].fix]
        if fixable and s % 2 == 0:
            kind = kinds[rng.choice(fixable)]
            assert kind.command is not None and kind.fix is not None
            store.record_edit(session, kind.fix, ts + 30)
            store.record_success(session, "Bash", kind.command, ts + 60)
    return len({t.signature for t in templates})


@dataclass
class StoreProject:
    project: Project
    events: int
    signatures: int


def store_project(lab: Lab, events: int, label: str) -> StoreProject:
    """A project with ``events`` stored failures, its files and an 80-line MEMORY.md."""
    project = lab.project(f"failure-store-{label}")
    write_project_files(project.path, failure_kinds())
    project.restore(memory_text(80).encode())
    with project.store() as store:
        signatures = fill_store(store, project.path, events)
    return StoreProject(project, events, signatures)


# -- recall fixtures --------------------------------------------------------------------------
RECALL_LEARNINGS = 2000
RECALL_RELATED = "how do I run the alembic migrations against the staging database?"
RECALL_UNRELATED = "write a haiku about autumn leaves"
RECALL_NEEDLE = (
    "Never run alembic upgrade head directly against the staging database; use make migrate "
    "ENV=staging, which takes the advisory lock and snapshots the schema first."
)
RECALL_AREAS = (
    "checkout", "invoice export", "search indexing", "webhook delivery", "nightly backup",
    "rate limiter", "session cookies", "tenant isolation", "billing worker", "email renderer",
    "feature flags", "audit log", "image uploads", "report builder", "notification service",
    "payment gateway", "CSV importer", "GraphQL gateway", "admin dashboard", "mobile API",
)  # fmt: skip
RECALL_TOOLS = (
    "pytest", "mypy", "ruff", "docker compose", "helm", "terraform", "celery", "redis", "nginx",
    "webpack", "vite", "playwright", "pnpm", "poetry", "gunicorn", "sentry", "grafana", "kafka",
    "elasticsearch", "sqlalchemy",
)  # fmt: skip
RECALL_PROBLEMS = (
    "times out under load", "leaks connections", "double-sends messages", "caches stale data",
    "drops the tenant filter", "fails on daylight saving changes", "breaks with unicode names",
    "needs the fixtures rebuilt", "ignores the retry policy", "loses the request id",
    "blocks writes during the index build", "reads the wrong environment file",
)  # fmt: skip
RECALL_ADVICE = (
    "pin the version in the lock file", "run it with the --no-cache flag",
    "set the timeout explicitly", "use the shared helper instead of a local copy",
    "add a regression test before the fix", "restart the worker after changing settings",
    "check the dashboard before paging anyone", "keep the migration separate from the backfill",
    "clear the build folder first", "document the flag in the runbook",
)  # fmt: skip
RECALL_TEMPLATES = (
    "Never touch the {area} {tool} setup without a review: it {problem}; {advice}.",
    "The {area} {problem} when {tool} is upgraded; {advice}.",
    "Always {advice} for the {area}, because {tool} {problem}.",
    "When {tool} {problem} in the {area}, {advice} and tell the on-call engineer.",
    "The {area} uses {tool}; it {problem} unless you {advice}.",
)


def generate_learnings(n: int, seed: int = 7) -> list[tuple[str, str]]:
    """``n`` distinct learnings (text, category), one of them the needle the related prompt
    finds."""
    rng = random.Random(seed)
    out: dict[str, str] = {RECALL_NEEDLE: "anti-patterns"}
    while len(out) < n:
        text = rng.choice(RECALL_TEMPLATES).format(
            area=rng.choice(RECALL_AREAS),
            tool=rng.choice(RECALL_TOOLS),
            problem=rng.choice(RECALL_PROBLEMS),
            advice=rng.choice(RECALL_ADVICE),
        )
        text = text[0].upper() + text[1:]
        if len(out) % 7 == 0:
            text += f" Seen in ticket OPS-{rng.randint(100, 9999)}."
        out.setdefault(text, rng.choice(("patterns", "heuristics", "anti-patterns")))
    return list(out.items())


def write_learnings(memory: Path, notes: Sequence[tuple[str, str]]) -> list[Path]:
    """Learning topic files as ``pokayokay remember`` writes them, and a MEMORY.md with a Key
    Decisions section."""
    from pokayokay.learnings import model as learnings
    from pokayokay.learnings import topic_file
    from pokayokay.safety.sanitize import excerpt

    memory.mkdir(parents=True, exist_ok=True)
    paths = []
    taken: set[str] = set()
    for i, (text, category) in enumerate(notes):
        name = learnings.unique_name(learnings.make_name(text), taken)
        taken.add(name)
        learning = learnings.Learning(
            name=name,
            description=excerpt(text, learnings.DESCRIPTION_MAX),
            text=text,
            category=category,
            confidence=("high", "medium", "low")[i % 3],
            observations=1 + i % 4,
            hash=learnings.identity(text),
            created="2026-01-01T00:00:00Z",
            last_seen="2026-01-01T00:00:00Z",
        )
        path = memory / learnings.file_name_for(name)
        path.write_text(topic_file.render(learning), encoding="utf-8")
        paths.append(path)
    (memory / "MEMORY.md").write_text(
        "# Memory\n\n## Key Decisions\n<!-- pokayokay: promoted from session handoffs -->\n"
        "- 2025-11-04: Chose Celery with Redis over RQ for background jobs.\n"
        "- 2026-01-12: Invoices are immutable once sent; corrections are credit notes.\n"
        "<!-- /pokayokay -->\n",
        encoding="utf-8",
    )
    return paths


@dataclass
class RecallProject:
    project: Project
    learning_files: list[Path]

    def settle(self) -> None:
        """A complete recall cache, built untimed with no parse budget (the hook has one, so
        a cold cache over thousands of files takes it several prompts)."""
        from pokayokay.recall.sources import load_index

        location = self.project.location
        load_index(
            location.memory_dir, location.project_dir, self.project.state_dir, budget=float("inf")
        )


def recall_project(lab: Lab) -> RecallProject:
    project = lab.project("recall-2000-learnings")
    files = write_learnings(project.memory_dir, generate_learnings(RECALL_LEARNINGS))
    recall = RecallProject(project, files)
    recall.settle()
    return recall


# -- ages fixture -------------------------------------------------------------------------------
AGES_ENTRIES = 500
AGES_COMMITS = 2000
AGES_REMOVED = 20  # by the consolidation commit
AGES_FILE = ".claude/learnings.md"


def _fast_import_data(payload: bytes) -> bytes:
    return b"data %d\n" % len(payload) + payload + b"\n"


def _learnings_file(titles: Sequence[int]) -> bytes:
    out = ["# Learnings\n\nStaging file: new entries at the bottom.\n\n"]
    for n in titles:
        out.append(
            f"## Learning {n}: retry policy for service {n % 37}\n"
            f"Service {n % 37} needs {n % 5 + 1} retries with jitter; seen in incident {n}.\n\n"
        )
    return "".join(out).encode()


def ages_stream() -> bytes:
    """A ``git fast-import`` stream: 2,000 commits over about 700 days with controlled dates,
    520 of which add an entry to the learnings file, one early commit that removes 20 entries
    (a consolidation, so the staleness walk has history to cover), the rest touching other
    files. The final file has 500 entries."""
    wanted = AGES_ENTRIES + AGES_REMOVED
    adds = set(sorted(range(0, AGES_COMMITS, AGES_COMMITS // wanted))[:wanted])
    consolidation_at = 400
    parts: list[bytes] = []
    titles: list[int] = []
    next_title = 0
    day = dt.date(2024, 1, 1)
    learnings_path = AGES_FILE.encode()
    for k in range(AGES_COMMITS):
        # about three commits a day, with a quiet day now and then
        if k % 3 == 0 and k:
            day += dt.timedelta(days=2 if k % 21 == 0 else 1)
        moment = dt.datetime(day.year, day.month, day.day, 9 + k % 3, tzinfo=dt.timezone.utc)
        stamp = int(moment.timestamp())
        parts.append(b"commit refs/heads/main\n")
        parts.append(b"mark :%d\n" % (k + 1))
        parts.append(b"author t <t@e> %d +0000\n" % stamp)
        parts.append(b"committer t <t@e> %d +0000\n" % stamp)
        parts.append(_fast_import_data(f"commit {k}\n".encode()))
        if k:
            parts.append(b"from :%d\n" % k)
        if k == consolidation_at or k in adds:
            if k == consolidation_at:
                titles = titles[AGES_REMOVED:]
            else:
                titles.append(next_title)
                next_title += 1
            parts.append(b"M 100644 inline " + learnings_path + b"\n")
            parts.append(_fast_import_data(_learnings_file(titles)))
        else:
            parts.append(b"M 100644 inline src/file_%d.txt\n" % (k % 50))
            parts.append(_fast_import_data(f"change {k}\n".encode() * 3))
    parts.append(b"done\n")
    assert len(titles) == AGES_ENTRIES, len(titles)
    return b"".join(parts)


def build_ages_repo(git: str, env: dict[str, str]) -> Callable[[Path], None]:
    """Builds the ages repository (a few seconds) in the folder it is given."""
    git_env = dict(env, GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")

    def build(root: Path) -> None:
        def git_run(*args: str, data: bytes | None = None) -> None:
            subprocess.run(
                [git, *args], cwd=root, input=data, env=git_env, check=True, capture_output=True
            )

        git_run("init", "-q", "-b", "main", str(root))
        git_run("fast-import", "--quiet", "--done", data=ages_stream())
        git_run("reset", "-q", "--hard", "main")

    return build


# -- the benchmarks -----------------------------------------------------------------------------
def no_output(proc: subprocess.CompletedProcess[bytes]) -> str | None:
    if proc.stdout.strip():
        return f"expected no output, got: {proc.stdout[:300]!r}"
    return None


def session_start_note(proc: subprocess.CompletedProcess[bytes]) -> str | None:
    try:
        note = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    except (ValueError, KeyError, TypeError):
        return None
    return note if isinstance(note, str) else None


def tip_only(proc: subprocess.CompletedProcess[bytes]) -> str | None:
    """SessionStart within limits prints the /remember tip and never the overflow note."""
    from pokayokay.learnings.remember import session_start_tip

    note = session_start_note(proc)
    if note is None:
        return f"expected the SessionStart /remember tip, got: {proc.stdout[:300]!r}"
    if session_start_tip() not in note:
        return f"the /remember tip is missing from the SessionStart note: {note[:300]!r}"
    if "MEMORY.md is " in note:
        return f"overflow note printed although MEMORY.md is within limits: {note[:300]!r}"
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
        floor(
            "import pokayokay.cli.main",
            [py, "-c", "import pokayokay.cli.main"],
            "import cost of the CLI",
        )
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
                check_each=tip_only,
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

    out += capture_specs(pokayokay)
    out += recall_specs(pokayokay)
    out.append(suggest_spec(pokayokay))

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
    out += graduation_specs(pokayokay)
    out.append(ages_spec(pokayokay))
    return out


CAPTURE_HISTORY = 2_000  # failures already in the store of every capture benchmark
FIX_COMMAND = "cat src/a.py setup.cfg"  # the command of PostToolUse.Bash.json


def capture_project(lab: Lab, name: str) -> Project:
    """A project whose failure store already holds some history, with the files the
    PostToolUse samples name (``src/a.py``, ``setup.cfg``)."""
    project = lab.project(slug(name))
    project.restore(memory_text(80).encode())
    write_project_files(project.path, failure_kinds())
    for rel in ("src/a.py", "setup.cfg"):
        (project.path / rel).parent.mkdir(parents=True, exist_ok=True)
        (project.path / rel).write_text("x = 1\n", encoding="utf-8")
    with project.store() as store:
        fill_store(store, project.path, CAPTURE_HISTORY, sessions=40)
    return project


def open_fix_episode(project: Project, session_id: str, *, edit: str | None = None) -> None:
    """What an earlier PostToolUseFailure (and Edit) of the session left: ``FIX_COMMAND``
    failed, so the session has an open fix episode."""
    kind = FailureKind("Bash", FIX_COMMAND, "cat: setup.cfg: No such file or directory", ())
    failure = failure_of(kind, project.path)._replace(ts=time.time() - 5, session_id=session_id)
    with project.store() as store:
        store.record_failure(failure)
        if edit is not None:
            store.record_edit(session_id, edit, time.time() - 2)


def capture_specs(pokayokay: str) -> list[Spec]:
    out: list[Spec] = []

    def failure(lab: Lab, n: int) -> Measurable:
        name = "hook PostToolUseFailure (capture)"
        project = capture_project(lab, name)
        sample = moved_payload("PostToolUseFailure.Bash.json", project.path)
        before = project.stored_failures()

        def payload(i: int) -> bytes:
            # A new tool call every run: the store keeps one row per tool_use_id.
            return encode_payload({**sample, "tool_use_id": f"toolu_bench_{i:05d}"})

        def verify(runs: int) -> str | None:
            added = project.stored_failures() - before
            if added != runs:
                return f"{runs} failures sent, {added} new rows in failures.db"
            return None

        return Case(
            name,
            [pokayokay, "hook", "PostToolUseFailure"],
            n,
            project.path,
            project.env,
            stdin_each=payload,
            check_each=no_output,
            verify=verify,
            note=f"a new tool_use_id each run: one row (one transaction) in a store of "
            f"{CAPTURE_HISTORY:,} failures",
        )

    out.append(Spec("hook PostToolUseFailure (capture)", failure))

    def bash_success(lab: Lab, n: int) -> Measurable:
        name = "hook PostToolUse (Bash success, capture)"
        project = capture_project(lab, name)
        with project.store() as store:
            before = (store.failures(), store.failure_groups())

        def verify(runs: int) -> str | None:
            with project.store() as store:
                if (store.failures(), store.failure_groups()) != before:
                    return "a success with no open fix episode changed the failure store"
            return None

        return Case(
            name,
            [pokayokay, "hook", "PostToolUse"],
            n,
            project.path,
            project.env,
            stdin=encode_payload(moved_payload("PostToolUse.Bash.json", project.path)),
            check_each=no_output,
            verify=verify,
            note="no open fix episode for the command (the common case): one indexed read",
        )

    out.append(Spec("hook PostToolUse (Bash success, capture)", bash_success))

    def bash_closing(lab: Lab, n: int) -> Measurable:
        name = "hook PostToolUse (Bash success closing a fix episode)"
        project = capture_project(lab, name)
        payload = moved_payload("PostToolUse.Bash.json", project.path)
        session = str(payload["session_id"])

        def closed(proc: subprocess.CompletedProcess[bytes]) -> str | None:
            problem = no_output(proc)
            if problem:
                return problem
            with project.store() as store:
                if store.record_success(session, "Bash", FIX_COMMAND) != 0:
                    return "the hook did not close the session's fix episode"
            return None

        def verify(runs: int) -> str | None:
            with project.store() as store:
                groups = [g for g in store.failure_groups() if FIX_COMMAND in g.fix_commands]
            if not groups or "setup.cfg" not in groups[0].fix_paths:
                return f"no failure group got {FIX_COMMAND!r} and setup.cfg as its fix"
            return None

        return Case(
            name,
            [pokayokay, "hook", "PostToolUse"],
            n,
            project.path,
            project.env,
            stdin=encode_payload(payload),
            before_each=lambda: open_fix_episode(project, session, edit="setup.cfg"),
            check_each=closed,
            verify=verify,
            note="before each run (untimed) the command failed and setup.cfg was edited: "
            "the hook closes the episode (one write transaction)",
        )

    out.append(Spec("hook PostToolUse (Bash success closing a fix episode)", bash_closing))

    def edit(lab: Lab, n: int) -> Measurable:
        name = "hook PostToolUse (Edit, capture)"
        project = capture_project(lab, name)
        payload = moved_payload("PostToolUse.Edit.json", project.path)
        session = str(payload["session_id"])
        open_fix_episode(project, session)

        def edits() -> int:
            """Rows of the store's ``edits`` table (FailureStore has no reader for them)."""
            conn = sqlite3.connect(f"file:{project.store().path}?mode=ro", uri=True)
            try:
                row = conn.execute(
                    "SELECT count(*) FROM edits WHERE session_id = ? AND path = 'setup.cfg'",
                    (session,),
                ).fetchone()
            finally:
                conn.close()
            return int(row[0])

        def verify(runs: int) -> str | None:
            recorded = edits()
            if recorded != runs:
                return f"{runs} edits of setup.cfg sent, {recorded} recorded"
            with project.store() as store:
                store.record_success(session, "Bash", FIX_COMMAND)
                groups = [g for g in store.failure_groups() if FIX_COMMAND in g.fix_commands]
            if not groups or groups[0].fix_paths != ("setup.cfg",):
                return "closing the episode did not make setup.cfg its fix"
            return None

        return Case(
            name,
            [pokayokay, "hook", "PostToolUse"],
            n,
            project.path,
            project.env,
            stdin=encode_payload(payload),
            check_each=no_output,
            verify=verify,
            note="the session has an open fix episode: each edit is one row (one transaction)",
        )

    out.append(Spec("hook PostToolUse (Edit, capture)", edit))

    def batch(lab: Lab, n: int) -> Measurable:
        name = "hook PostToolBatch (nothing to record)"
        project = capture_project(lab, name)
        before = project.stored_failures()

        def verify(runs: int) -> str | None:
            if project.stored_failures() != before:
                return "a batch with nothing to record changed the failure store"
            return None

        return Case(
            name,
            [pokayokay, "hook", "PostToolBatch"],
            n,
            project.path,
            project.env,
            stdin=encode_payload(moved_payload("PostToolBatch.json", project.path)),
            check_each=no_output,
            verify=verify,
            note="one `Exit code 1` result, left to PostToolUseFailure: the store is not opened",
        )

    out.append(Spec("hook PostToolBatch (nothing to record)", batch))
    return out


RECALL = f"hook UserPromptSubmit (recall over {RECALL_LEARNINGS:,} learnings"
RECALL_COLD_CAP = 5


def recall_specs(pokayokay: str) -> list[Spec]:
    def spec(
        what: str,
        prompt: str,
        note: str,
        *,
        related: bool,
        change_one: bool = False,
        cold: bool = False,
    ) -> Spec:
        name = f"{RECALL}: {what})"

        def build(lab: Lab, n: int) -> Measurable:
            from pokayokay.recall.sources import ENTRIES_FILE, INDEX_FILE

            recall = lab.shared(f"{RECALL_LEARNINGS:,} learnings", lambda: recall_project(lab))
            project = recall.project
            recall.settle()  # warm: whatever an earlier row changed is in the cache again
            payload = moved_payload("UserPromptSubmit.json", project.path, prompt=prompt)
            touched = [0]
            cache = [project.state_dir / file for file in (INDEX_FILE, ENTRIES_FILE)]

            def drop_cache() -> None:
                for path in cache:
                    path.unlink(missing_ok=True)

            def complete() -> bool:
                """Whether the hook's parse budget covered every file (else the next prompt
                resumes, and a block is not guaranteed)."""
                index = json.loads(cache[0].read_text("utf-8"))
                return not str(index["fingerprint"]).startswith("incomplete")

            def touch_one() -> None:
                """Rewrite one learning file, as /remember reinforcing it does."""
                touched[0] += 1
                path = recall.learning_files[touched[0] * 7 % len(recall.learning_files)]
                text = path.read_text("utf-8")
                path.write_text(text.replace("observations: ", "observations: 1", 1), "utf-8")

            def check(proc: subprocess.CompletedProcess[bytes]) -> str | None:
                if cold and not complete():
                    return None
                if related and b"<pokayokay-recall>" not in proc.stdout:
                    return f"expected the recall block, got: {proc.stdout[:300]!r}"
                return None if related else no_output(proc)

            return Case(
                name,
                [pokayokay, "hook", "UserPromptSubmit"],
                min(n, RECALL_COLD_CAP) if cold else n,
                project.path,
                project.env,
                stdin=encode_payload(payload),
                before_each=touch_one if change_one else drop_cache if cold else None,
                check_each=check,
                note=note,
            )

        return Spec(name, build)

    return [
        spec(
            "warm, related prompt",
            RECALL_RELATED,
            "cache current; the prompt matches a learning: prints the fenced block",
            related=True,
        ),
        spec(
            "warm, unrelated prompt",
            RECALL_UNRELATED,
            "cache current; nothing clears the similarity floor: prints nothing",
            related=False,
        ),
        spec(
            "one learning changed",
            RECALL_RELATED,
            "one learning file rewritten (untimed) before each run, as /remember does: "
            "re-read, index rebuilt from the cached entries",
            related=True,
            change_one=True,
        ),
        spec(
            "cold, no cache",
            RECALL_RELATED,
            "cache files deleted (untimed) before each run: every file parsed, within the "
            "hook's parse budget (handlers.recall.PARSE_BUDGET)",
            related=True,
            cold=True,
        ),
    ]


STORE_SIZES = ((10_000, "10k", 9), (100_000, "100k", 5))

SUGGEST_SKILLS = 200
SUGGEST_NAME = (
    f"hook UserPromptSubmit (suggestion over {SUGGEST_SKILLS} skills, 10k stored failures)"
)


def write_skills(project: Path, count: int) -> None:
    """``count`` SKILL.md files with distinct, realistic descriptions."""
    verbs = ("Write", "Debug", "Review", "Profile", "Migrate", "Document", "Release", "Secure")
    for i in range(count):
        area = RECALL_AREAS[i % len(RECALL_AREAS)]
        tool = RECALL_TOOLS[(i // len(RECALL_AREAS)) % len(RECALL_TOOLS)]
        verb = verbs[i % len(verbs)]
        folder = project / ".claude" / "skills" / f"skill-{i:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: skill-{i:03d}\ndescription: {verb} the {area} with {tool}; "
            f"use when working on {area} code or its {tool} setup\n---\nSteps for {area}.\n",
            "utf-8",
        )


def suggest_spec(pokayokay: str) -> Spec:
    """Issue 5's goal: the UserPromptSubmit hook with 200 skills and 10k stored failure events
    (recall and suggestion both run; the prompt names a file with recorded failures)."""

    def build(lab: Lab, n: int) -> Measurable:
        g = store_fixture(lab, 10_000, "10k")
        project = g.project
        if not (project.path / ".claude" / "skills").exists():
            write_skills(project.path, SUGGEST_SKILLS)
        prompt = "profile the search indexing with elasticsearch, it times out under load"
        payload = moved_payload("UserPromptSubmit.json", project.path, prompt=prompt)

        def check(proc: subprocess.CompletedProcess[bytes]) -> str | None:
            if b"skills that fit this prompt" not in proc.stdout:
                return f"expected a skill suggestion, got: {proc.stdout[:300]!r}"
            return None

        return Case(
            SUGGEST_NAME,
            [pokayokay, "hook", "UserPromptSubmit"],
            n,
            project.path,
            project.env,
            stdin=encode_payload(payload),
            check_each=check,
            note="catalog cached after the warm-up run; recall finds nothing, a skill fits",
        )

    return Spec(SUGGEST_NAME, build)


def store_fixture(lab: Lab, events: int, label: str) -> StoreProject:
    return lab.shared(f"the store of {label} failures", lambda: store_project(lab, events, label))


def graduate_spec(pokayokay: str, events: int, label: str, cap: int) -> Spec:
    name = f"graduate with {label} stored events"

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
                pokayokay,
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

    return Spec(name, build)


FAILURES_CAP = 5


def failures_spec(pokayokay: str, events: int, label: str) -> Spec:
    name = f"pokayokay failures ({label} stored events)"

    def build(lab: Lab, n: int) -> Measurable:
        g = store_fixture(lab, events, label)
        project = g.project
        expected = f"{g.signatures} recurring failure signatures".encode()

        def check(proc: subprocess.CompletedProcess[bytes]) -> str | None:
            if expected not in proc.stdout:
                return f"expected {expected!r}, got: {proc.stdout[:300]!r}"
            return None

        return Case(
            name,
            [
                pokayokay,
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

    return Spec(name, build)


def graduation_specs(pokayokay: str) -> list[Spec]:
    out = [graduate_spec(pokayokay, events, label, cap) for events, label, cap in STORE_SIZES]
    events, label, _ = STORE_SIZES[-1]
    out.append(failures_spec(pokayokay, events, label))
    return out


AGES = f"ages on a {AGES_ENTRIES}-entry file with {AGES_COMMITS:,} commits"
AGES_CAP = 9


def ages_spec(pokayokay: str) -> Spec:
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
            [pokayokay, "ages", str(file), "--project", str(project.path)],
            min(n, AGES_CAP),
            project.path,
            project.env,
            check_each=check,
            note="repository built (untimed) with git fast-import: 520 entry commits, one "
            "consolidation removing 20, ~700 days",
        )

    return Spec(AGES, build)


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
        skipped: list[tuple[str, str]] = []
        for index, spec in enumerate(plan):
            label = spec.name + (" (again, last)" if spec.name == FLOOR and index else "")
            print(f"[{index + 1}/{len(plan)}] {label} ...", file=sys.stderr, flush=True)
            try:
                result = spec.build(lab, repeat).measure()
            except BenchmarkSkipped as exc:
                skipped.append((spec.name, str(exc)))
                print(f"SKIPPED: {spec.name}: {exc}", file=sys.stderr)
                continue
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
    for name, reason in skipped:
        print(f"skipped: {name} ({reason})")
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
        "skipped": [{"name": name, "reason": reason} for name, reason in skipped],
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
