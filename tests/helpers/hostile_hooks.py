"""Every registered hook command run as Claude Code runs it, in a scratch project, with the checks
a hostile payload must pass (tests/hooks/test_hostile_*.py).

:func:`make_scratch` registers pokayokay's hooks the way a user's project gets them (``init
--absolute`` writes them into ``.claude/settings.json``); :func:`drive` runs the commands found
there with ``/bin/sh -c`` and checks each: exit 0 (never 2, which would block Claude), at most
one stderr line, within the event's registered timeout (in CPU time), no traceback, stdout empty
or one JSON answer of the shape Claude Code reads for that event, and nothing written outside
the project's ``.claude/``, the memory folder and pokayokay's state folder (the scratch HOME,
the project and a private TMPDIR compared before and after; git's own index refresh aside).
"""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from helpers.gitrepo import git
from helpers.hooks import SAMPLE_ROOT
from helpers.paths import FIXTURE_SAMPLES_DIR
from pokayokay.hooks.events import HOOKED_EVENTS
from pokayokay.hooks.runtime import MAX_PAYLOAD
from pokayokay.install.wiring import init

# Each registered event and the real payloads Claude Code sent for it. FileChanged has no
# capture: its payload is SessionEnd's common fields with FileChanged's two (the interface doc).
SAMPLES: dict[str, tuple[str, ...]] = {
    "SessionStart": ("SessionStart.startup.json", "SessionStart.resume.json",
                     "SessionStart.compact.json"),
    "UserPromptSubmit": ("UserPromptSubmit.json", "UserPromptSubmit.task-notification.json"),
    "PreCompact": ("PreCompact.manual.json",),
    "SessionEnd": ("SessionEnd.other.json",),
    "Stop": ("Stop.json", "Stop.stop_hook_active.json"),
    "PostToolUseFailure": ("PostToolUseFailure.Bash.json",),
    "PostToolBatch": ("PostToolBatch.json",),
    "PostToolUse": ("PostToolUse.Bash.json", "PostToolUse.Edit.json", "PostToolUse.Write.json"),
    "InstructionsLoaded": ("InstructionsLoaded.path_glob_match.json",),
    "PreToolUse": ("PreToolUse.Bash.json",),
    "SubagentStart": ("SubagentStart.json",),
    "FileChanged": ("SessionEnd.other.json",),
}  # fmt: skip
TIMEOUTS = {spec.event: spec.timeout for spec in HOOKED_EVENTS}
# Nesting near or past what json's reader (and the walks after it) take: the runtime may refuse.
DEEP = b"[" * 800
SPOOLED = ("PostToolUseFailure", "PostToolBatch", "PostToolUse", "InstructionsLoaded")

# The keys Claude Code reads in a command hook's JSON answer (claude-code-interfaces.md 1.6),
# and those of hookSpecificOutput per event pokayokay answers.
TOP_KEYS = {"continue", "stopReason", "suppressOutput", "systemMessage", "decision", "reason",
            "hookSpecificOutput"}  # fmt: skip
SPECIFIC_KEYS: dict[str, set[str]] = {
    "SessionStart": {"additionalContext", "watchPaths"},
    "UserPromptSubmit": {"additionalContext"},
    "PostToolUseFailure": {"additionalContext"},
    "PostToolUse": {"additionalContext"},
    "PreToolUse": {"additionalContext", "permissionDecision", "permissionDecisionReason"},
    "SubagentStart": {"additionalContext"},
}


@dataclass(frozen=True)
class Scratch:
    """A project with pokayokay's hooks registered, and the places it may write."""

    project: Path
    home: Path
    tmp: Path
    state: Path
    memory: Path
    commands: dict[str, str]
    oddities: dict[str, str]  # a FIFO, a device, a symlink loop, a folder: paths to name

    def allowed(self, path: str) -> bool:
        places = (self.project / ".claude", self.memory, self.state)
        return any(path == str(p) or path.startswith(str(p) + os.sep) for p in places)


def memory_dir(project: Path) -> Path:
    slug = re.sub(r"[^A-Za-z0-9]", "-", str(project))
    return Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / slug / "memory"


def registered_commands(project: Path) -> dict[str, str]:
    data = json.loads((project / ".claude" / "settings.json").read_text("utf-8"))
    commands: dict[str, str] = {}
    for event, groups in data["hooks"].items():
        [group] = groups
        [handler] = group["hooks"]
        assert handler["timeout"] == TIMEOUTS[event]
        commands[event] = handler["command"]
    return commands


def make_scratch(home: Path, root: Path) -> Scratch:
    project = root / "project"
    project.mkdir(parents=True)
    git(project, "init", "-q", "-b", "main")
    project = Path(os.path.realpath(project))
    (project / "tests").mkdir()
    (project / "tests" / "test_cart.py").write_text("def test_total():\n    assert 3 == 4\n")
    (project / "src").mkdir()
    (project / "src" / "app.py").write_text("import os\n")
    init(project, absolute=True)
    commands = registered_commands(project)
    assert set(commands) == set(SAMPLES)
    odd = root / "odd"
    odd.mkdir()
    os.mkfifo(odd / "fifo.jsonl")
    os.symlink(odd / "loop-b", odd / "loop-a")
    os.symlink(odd / "loop-a", odd / "loop-b")
    oddities = {
        "fifo": str(odd / "fifo.jsonl"),
        "zero": "/dev/zero",
        "loop": str(odd / "loop-a"),
        "folder": str(odd),
        "missing": str(odd / "missing" / "x.jsonl"),
        "nul": str(odd / "a\x00b.jsonl"),  # JSON carries it (\u0000); no file can be named so
    }
    tmp = home / "tmp"
    tmp.mkdir()
    return Scratch(project, home, tmp, Path(os.environ["POKAYOKAY_HOME"]), memory_dir(project),
                   commands, oddities)  # fmt: skip


@dataclass(frozen=True, repr=False)
class Step:
    event: str
    data: bytes  # the payload as sent

    def __repr__(self) -> str:  # a failing example stays readable when a field is 16 MiB
        head = self.data if len(self.data) <= 600 else self.data[:600] + b"..."
        return f"Step({self.event!r}, {len(self.data)} bytes: {head!r})"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # Hypothesis's printer
        printer.text(repr(self))


def snapshot(scratch: Scratch) -> dict[str, tuple[int, int, int]]:
    """Every entry under the scratch HOME and the project: its mode, size and mtime."""
    seen: dict[str, tuple[int, int, int]] = {}
    for top in (scratch.home, scratch.project):
        for folder, dirs, files in os.walk(top):
            for name in dirs + files:
                path = os.path.join(folder, name)
                st_ = os.lstat(path)
                seen[path] = (st_.st_mode, st_.st_size, st_.st_mtime_ns)
    return seen


def outside(scratch: Scratch, before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    changed = {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}
    # git refreshes its own index when pokayokay asks it for the status: git's file, not ours
    git_own = {str(scratch.project / ".git"), str(scratch.project / ".git" / "index")}
    return sorted(p for p in changed if not scratch.allowed(p) and p not in git_own)


def check_answer(event: str, stdout: str) -> None:
    assert "Traceback" not in stdout
    if not stdout.strip():
        return
    answer = json.loads(stdout)
    assert isinstance(answer, dict) and set(answer) <= TOP_KEYS, answer
    specific = answer.get("hookSpecificOutput")
    if specific is not None:
        assert specific.pop("hookEventName") == event
        assert set(specific) <= SPECIFIC_KEYS[event], specific
        for key in ("additionalContext", "permissionDecisionReason"):
            assert isinstance(specific.get(key, ""), str)
        assert specific.get("permissionDecision", "deny") in ("allow", "deny", "ask")
        assert all(isinstance(p, str) for p in specific.get("watchPaths", []))


def run_step(scratch: Scratch, step: Step) -> str:
    """``step`` through its registered command, checked; what it printed on stdout."""
    env = dict(os.environ, CLAUDE_PROJECT_DIR=str(scratch.project), TMPDIR=str(scratch.tmp))
    limit = TIMEOUTS[step.event]
    # The work is bounded by the CPU time the command and its children spent, not wall time: on
    # a loaded machine (CI's two cores, xdist) wall time says more about the neighbours than
    # about the hook. A hang spends no CPU: run's own timeout catches it.
    began = _children_cpu()
    result = subprocess.run(["/bin/sh", "-c", scratch.commands[step.event]], input=step.data,
                            capture_output=True, cwd=scratch.project, env=env,
                            timeout=limit + 30)  # fmt: skip
    took = _children_cpu() - began
    stderr = result.stderr.decode("utf-8", "replace")
    where = f"{step.event} ({len(step.data)} bytes): {stderr[:2000]}"
    assert took < limit, f"{where} spent {took:.1f} s of CPU, over its {limit} s timeout"
    assert len(stderr.splitlines()) <= 1, where
    if result.returncode == 1:
        # the runtime's documented refusals (the spool cuts and keeps instead): fail open, one
        # line; a payload over 16 MiB, or nested deeper than json's reader goes (about 1,000)
        assert step.event not in SPOOLED, where
        oversized = len(step.data) > MAX_PAYLOAD and "larger than" in stderr
        assert oversized or (DEEP in step.data and "nested deeper" in stderr), where
    else:
        assert result.returncode == 0, where
    answer = result.stdout.decode("utf-8")
    check_answer(step.event, answer)
    return answer


def _children_cpu() -> float:
    """User and system CPU seconds of this process's waited-for children so far."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def settle(scratch: Scratch, limit: float = 60.0) -> None:
    """Until SessionStart's detached catch-up worker (if one started) has finished: no
    ``catch-up.running`` mark left in the state folder but one naming a process that is gone
    (a worker done before SessionStart wrote its mark leaves one: pokayokay.hooks.catch_up)."""
    give_up = time.monotonic() + limit
    while time.monotonic() < give_up:
        if not [mark for mark in scratch.state.glob("spool/*/catch-up.running") if _running(mark)]:
            return
        time.sleep(0.05)
    raise AssertionError("the detached catch-up did not finish")


def _running(mark: Path) -> bool:
    try:
        pid = int(mark.read_text("ascii").strip() or 0)
    except (OSError, ValueError):
        return False  # gone, or being written
    if pid <= 0:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def traceback_free_log(scratch: Scratch) -> None:
    """No traceback in pokayokay's log but a spooled record's the ingester could not read and
    kept in the quarantine (a payload nested past json's reader: decision 0152)."""
    log = scratch.state / "logs" / "pokayokay.log"
    text = log.read_text("utf-8", "replace") if log.exists() else ""
    entries = re.split(r"\n(?=\d{4}-\d\d-\d\dT)", text)
    unexpected = [e for e in entries if "Traceback" in e and "quarantined" not in e.split("\n")[0]]
    assert not unexpected, unexpected[-1][-4000:]


def drive(scratch: Scratch, steps: list[Step]) -> None:
    before = snapshot(scratch)
    for step in steps:
        run_step(scratch, step)
    settle(scratch)
    assert outside(scratch, before, snapshot(scratch)) == []
    assert os.listdir(scratch.tmp) == []
    traceback_free_log(scratch)


def sample(scratch: Scratch, name: str, **changes: Any) -> dict[str, Any]:
    """The real payload ``name`` moved into the scratch project, with ``changes``."""
    text = (FIXTURE_SAMPLES_DIR / name).read_text("utf-8")
    payload: dict[str, Any] = json.loads(text.replace(SAMPLE_ROOT, str(scratch.project)))
    payload.update(changes)
    return payload


def with_bad_bytes(payload: dict[str, Any], field: str, raw: bytes) -> bytes:
    """``payload`` as JSON, its string ``field`` holding ``raw`` (bytes that are not UTF-8)."""
    data = json.dumps(payload).encode()
    mark = json.dumps(payload[field]).encode()
    assert data.count(mark) == 1
    return data.replace(mark, mark[:-1] + raw + b'"')
