"""Fixtures for the end-to-end tests: the real Claude Code CLI, a scripted mock of the Messages
API, and a throwaway git project with every home/config/state/temp folder inside the test's
``tmp_path``.

    def test_x(e2e):
        project = e2e.project
        e2e.init_pokayokay(project)
        run = e2e.run_claude(project, "do it", [[text("done")]])
        assert run.exit_code == 0
        assert "something" in run.first_request.full_text

Run with ``.venv/bin/python -m pytest -m e2e``. The pinned CLI is installed on first use into
``$POKAYOKAY_E2E_CACHE`` (default ``~/.cache/pokayokay-e2e/claude-code-<version>``). If that
install fails the tests are skipped with npm's output as the reason, unless ``CI`` is set: then
they fail. Each run leaves its stdout, stderr and (with ``debug=True``) the CLI's debug log in
``<tmp_path>/runs/NN/``.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from .claude_cli import PINNED_VERSION, ClaudeCliUnavailable, ensure_claude
from .mock_api import MockMessagesAPI, RecordedRequest, Turn

# The venv that runs the tests is the one the hooks must use: `pokayokay` resolves there.
VENV_BIN = Path(sys.executable).parent

DEFAULT_RUN_TIMEOUT_S = 120.0
ALLOWED_TOOLS = ["Bash", "Read", "Edit", "Write", "Glob", "Grep"]
PROXY_VARS = {"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "FTP_PROXY"}
# Inherited variables that could reach a real account or change what the CLI or the hooks do.
SCRUBBED_PREFIXES = ("ANTHROPIC_", "CLAUDE", "POKAYOKAY_", "OTEL_", "XDG_", "GIT_", "AWS_",
                     "GOOGLE_", "VERTEX_", "MCP_", "DISABLE_")


def slugify(path: str) -> str:
    """Claude Code's project-folder name for a path (interfaces doc §2.4).

    pokayokay's own implementation is used when it exists, so the tests follow the product; the
    fallback covers the short paths of these tests (no over-200-character hash suffix).
    """
    try:
        from pokayokay.infra.locate import slugify as product_slugify
    except ImportError:
        return re.sub(r"[^A-Za-z0-9]", "-", path)
    return str(product_slugify(path))


@dataclass
class RunResult:
    """One `claude -p` run: what the CLI printed and what the mock API received meanwhile."""

    exit_code: int
    timed_out: bool
    events: list[dict[str, Any]]
    stdout: str
    stderr: str
    requests: list[RecordedRequest]
    wall_seconds: float
    debug_log: Path | None = None

    @property
    def main_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.kind == "main"]

    @property
    def first_request(self) -> RecordedRequest:
        """The first request of the run's conversation: what the model saw at session start."""
        main = self.main_requests
        assert main, f"the mock received no conversation request; stderr:\n{self.stderr}"
        return main[0]

    @property
    def result_event(self) -> dict[str, Any]:
        results = [e for e in self.events if e.get("type") == "result"]
        assert results, (
            f"no stream-json result event; stdout:\n{self.stdout}\nstderr:\n{self.stderr}"
        )
        return results[-1]

    @property
    def session_id(self) -> str:
        return str(self.result_event.get("session_id"))

    def describe(self) -> str:
        return (f"exit={self.exit_code} timed_out={self.timed_out} "
                f"wall={self.wall_seconds:.2f}s requests={[r.kind for r in self.requests]}\n"
                f"--- stderr ---\n{self.stderr[-4000:]}\n"
                f"--- stdout tail ---\n{self.stdout[-4000:]}")


@contextmanager
def scripted_on(e2e: E2E, monkeypatch: pytest.MonkeyPatch, key: str) -> Iterator[None]:
    """While inside, ``run_claude`` scripts the mock on ``key`` instead of the literal prompt
    (an expanded slash command no longer holds its prompt verbatim)."""
    original = e2e.mock.script

    def script(prompt: str, turns: list[Turn]) -> None:
        original(key, turns)

    with monkeypatch.context() as patch:
        patch.setattr(e2e.mock, "script", script)
        yield


@dataclass
class E2E:
    """A sandbox for one test: folders, environment, the mock API and the CLI binary."""

    root: Path
    claude: Path
    mock: MockMessagesAPI
    project: Path
    home: Path
    config_dir: Path
    pokayokay_home: Path
    tmpdir: Path
    env: dict[str, str]
    runs: list[RunResult] = field(default_factory=list)

    # -- paths -------------------------------------------------------------------------------
    def git_root(self, project: Path | None = None) -> Path:
        out = subprocess.run(
            ["git", "rev-parse", "--show-toplevel"], cwd=project or self.project, env=self.env,
            capture_output=True, text=True, check=True,
        )
        return Path(out.stdout.strip()).resolve()

    def slug(self, project: Path | None = None) -> str:
        return slugify(str(self.git_root(project)))

    def memory_dir(self, project: Path | None = None) -> Path:
        """Where Claude Code keeps this project's auto memory (keyed by the git root)."""
        return self.config_dir / "projects" / self.slug(project) / "memory"

    def memory_file(self, project: Path | None = None) -> Path:
        return self.memory_dir(project) / "MEMORY.md"

    def state_dir(self, project: Path | None = None) -> Path:
        """pokayokay's per-project state folder."""
        return self.pokayokay_home / "projects" / self.slug(project)

    def write_memory(self, content: str, project: Path | None = None) -> Path:
        path = self.memory_file(project)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
        return path

    # -- pokayokay -----------------------------------------------------------------------------
    def pokayokay(self, *args: str, cwd: Path | None = None, check: bool = True,
                  env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        binary = VENV_BIN / "pokayokay"
        if not binary.exists():
            pytest.fail(f"{binary} does not exist: pokayokay/cli.py has not landed yet",
                        pytrace=False)
        proc = subprocess.run(
            [str(binary), *args], cwd=cwd or self.project, env=env or self.env,
            capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL, check=False,
        )
        if check and proc.returncode != 0:
            pytest.fail(f"`pokayokay {' '.join(args)}` exited {proc.returncode}\n"
                        f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}", pytrace=False)
        return proc

    def init_pokayokay(self, project: Path | None = None) -> subprocess.CompletedProcess[str]:
        project = project or self.project
        return self.pokayokay("init", "--project", str(project), cwd=project)

    def project_settings(self, project: Path | None = None) -> dict[str, Any]:
        path = (project or self.project) / ".claude" / "settings.json"
        return json.loads(path.read_text(encoding="utf-8"))

    def write_project_settings(self, settings: dict[str, Any],
                               project: Path | None = None) -> None:
        path = (project or self.project) / ".claude" / "settings.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")

    # -- the CLI ---------------------------------------------------------------------------------
    def run_claude(self, project: Path | None, prompt: str, turns: list[Turn], *,
                   extra_args: Sequence[str] = (), env: dict[str, str] | None = None,
                   timeout: float = DEFAULT_RUN_TIMEOUT_S, debug: bool = False) -> RunResult:
        """Run `claude -p PROMPT` in PROJECT, the mock answering TURNS; each run is one session."""
        project = project or self.project
        number = len(self.runs) + 1
        run_dir = self.root / "runs" / f"{number:02d}"
        run_dir.mkdir(parents=True)
        debug_log = run_dir / "claude-debug.log" if debug else None
        cmd = [str(self.claude), "-p", prompt, "--output-format", "stream-json", "--verbose"]
        if debug_log is not None:
            cmd += ["--debug-file", str(debug_log)]
        cmd += list(extra_args)
        self.mock.script(prompt, turns)
        mark = self.mock.mark()
        stdout_path, stderr_path = run_dir / "stdout.jsonl", run_dir / "stderr.txt"
        timed_out = False
        started = time.monotonic()
        with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
            proc = subprocess.Popen(
                cmd, cwd=project, env=env or self.env, stdin=subprocess.DEVNULL, stdout=out,
                stderr=err, start_new_session=True,
            )
            try:
                exit_code = proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
                os.killpg(proc.pid, signal.SIGKILL)  # the process group this call started
                exit_code = proc.wait()
        wall = time.monotonic() - started
        stdout = stdout_path.read_text(encoding="utf-8", errors="replace")
        events = []
        for line in stdout.splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict):
                events.append(event)
        result = RunResult(
            exit_code=exit_code, timed_out=timed_out, events=events, stdout=stdout,
            stderr=stderr_path.read_text(encoding="utf-8", errors="replace"),
            requests=self.mock.requests_since(mark), wall_seconds=wall, debug_log=debug_log,
        )
        self.runs.append(result)
        return result


def pokayokay_log(e2e: E2E) -> str:
    path = e2e.pokayokay_home / "logs" / "pokayokay.log"
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return ""


def explain(run: RunResult, e2e: E2E) -> str:
    return f"{run.describe()}\n--- pokayokay.log ---\n{pokayokay_log(e2e) or '(none)'}"


def failing_bash_sessions(e2e: E2E, command: str, task: str, said: str, sessions: int) -> None:
    """``sessions`` sessions of the real client in which the model runs ``command`` through the
    Bash tool (the prompt: ``session N: <task>``) and it fails for real, printing ``said``; each
    session's exit, reply and tool result asserted."""
    from .mock_api import text, tool_use

    for number in range(1, sessions + 1):
        reply = f"SESSION-{number}"
        run = e2e.run_claude(
            e2e.project,
            f"session {number}: {task}",
            [[tool_use("Bash", {"command": command, "description": task})], [text(reply)]],
        )
        assert run.exit_code == 0 and run.result_event.get("result") == reply, explain(run, e2e)
        results = run.main_requests[1].tool_results()
        assert results and results[0].get("is_error") is True, explain(run, e2e)
        assert said in json.dumps(results[0].get("content")), explain(run, e2e)


def _git(cwd: Path, env: dict[str, str], *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True)


def make_git_project(path: Path, env: dict[str, str]) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    _git(path, env, "init", "-q", "-b", "main")
    (path / "README.md").write_text("# e2e fixture project\n", encoding="utf-8")
    (path / "app.py").write_text("print('hello')\n", encoding="utf-8")
    _git(path, env, "add", "README.md", "app.py")
    _git(path, env, "commit", "-q", "-m", "initial commit")
    return path.resolve()


def build_env(root: Path, mock: MockMessagesAPI) -> dict[str, str]:
    home = root / "home"
    tmpdir = root / "tmp"
    runtime = root / "run"
    for folder in (home, tmpdir, runtime):
        folder.mkdir(parents=True, exist_ok=True)
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(SCRUBBED_PREFIXES) and k.upper() not in PROXY_VARS
    }
    env.update({
        "HOME": str(home),
        "TMPDIR": str(tmpdir),
        "CLAUDE_CODE_TMPDIR": str(tmpdir),
        # The CLI puts a messaging socket under $XDG_RUNTIME_DIR/cc-socks/ (interfaces doc).
        "XDG_RUNTIME_DIR": str(runtime),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "POKAYOKAY_HOME": str(root / "pokayokay-home"),
        # no resident dense model (decision 0181) unless a test asks for one
        "POKAYOKAY_DENSE": "0",
        "PATH": os.pathsep.join([str(VENV_BIN), os.environ.get("PATH", os.defpath)]),
        "ANTHROPIC_BASE_URL": mock.base_url,
        "ANTHROPIC_API_KEY": "sk-ant-e2e-dummy-not-a-real-key",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "GIT_AUTHOR_NAME": "e2e",
        "GIT_AUTHOR_EMAIL": "e2e@example.invalid",
        "GIT_COMMITTER_NAME": "e2e",
        "GIT_COMMITTER_EMAIL": "e2e@example.invalid",
        "GIT_CONFIG_NOSYSTEM": "1",
    })
    return env


@pytest.fixture(scope="session")
def claude_bin() -> Path:
    """The pinned CLI. In CI a failed install fails the tests loudly; elsewhere it skips them."""
    try:
        return ensure_claude()
    except ClaudeCliUnavailable as exc:
        message = f"Claude Code CLI {PINNED_VERSION} is unavailable:\n{exc}"
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)


@pytest.fixture
def e2e(tmp_path: Path, claude_bin: Path) -> Iterator[E2E]:
    root = tmp_path.resolve()
    with MockMessagesAPI() as mock:
        env = build_env(root, mock)
        config_dir = Path(env["CLAUDE_CONFIG_DIR"])
        config_dir.mkdir(parents=True)
        # `-p` cannot answer permission prompts, and as root --dangerously-skip-permissions is
        # refused, so the scripted tools are allowed in the user settings.
        (config_dir / "settings.json").write_text(
            json.dumps({"permissions": {"allow": ALLOWED_TOOLS}}, indent=2) + "\n",
            encoding="utf-8",
        )
        project = make_git_project(root / "project", env)
        yield E2E(
            root=root, claude=claude_bin, mock=mock, project=project, home=Path(env["HOME"]),
            config_dir=config_dir, pokayokay_home=Path(env["POKAYOKAY_HOME"]),
            tmpdir=Path(env["TMPDIR"]), env=env,
        )
