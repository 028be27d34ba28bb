"""Running git for pokayokay: one Git wrapper with a fixed, predictable environment (C locale, no
pager, no prompts, literal pathspecs, no optional locks), a timeout and clear errors; and the
project's file list (git ls-files, else a walk)."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from collections.abc import Generator, Mapping, Sequence
from pathlib import Path

from pokayokay.errors import PokayokayError
from pokayokay.infra.git_quiet import NO_REPO_PROGRAMS, git_output

GIT_TIMEOUT = 60.0


class Git:
    """Runs git in one folder with a fixed, predictable environment."""

    def __init__(
        self, cwd: Path, *, timeout: float = GIT_TIMEOUT, environ: Mapping[str, str] | None = None
    ) -> None:
        env = dict(os.environ if environ is None else environ)
        exe = shutil.which("git", path=env.get("PATH", os.defpath))
        if exe is None:
            raise PokayokayError(
                "git is not on PATH: ages are computed from git history, so pokayokay needs git"
            )
        env.update(
            LC_ALL="C",
            LANGUAGE="C",
            GIT_OPTIONAL_LOCKS="0",
            GIT_TERMINAL_PROMPT="0",
            GIT_LITERAL_PATHSPECS="1",
            GIT_PAGER="cat",
        )
        for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_NAMESPACE"):
            env.pop(name, None)
        self.exe = exe
        self.cwd = cwd
        self.timeout = timeout
        self.env = env

    def argv(self, args: Sequence[str]) -> list[str]:
        return [
            self.exe,
            *NO_REPO_PROGRAMS,
            "-c",
            "core.quotepath=off",
            "-c",
            "log.showSignature=false",
            "-c",
            "color.ui=never",
            *args,
        ]

    def run(self, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
        try:
            return subprocess.run(
                self.argv(args),
                cwd=self.cwd,
                env=self.env,
                input=stdin,
                stdin=None if stdin is not None else subprocess.DEVNULL,
                capture_output=True,
                timeout=self.timeout,
                check=False,
            )
        except FileNotFoundError:
            raise PokayokayError(f"cannot run git ({self.exe}): not found") from None
        except subprocess.TimeoutExpired:
            raise PokayokayError(
                f"git {args[0]} took longer than {self.timeout:g} s in {self.cwd}; gave up"
            ) from None

    def output(self, *args: str, stdin: bytes | None = None) -> str:
        done = self.run(*args, stdin=stdin)
        if done.returncode != 0:
            raise PokayokayError(f"git {args[0]} failed in {self.cwd}: {first_line(done.stderr)}")
        return done.stdout.decode("utf-8", "surrogateescape")

    def stream(self, *args: str) -> Generator[str, None, None]:
        """Output lines as they come; the process is killed when the caller stops early or the
        timeout passes."""
        try:
            proc = subprocess.Popen(
                self.argv(args),
                cwd=self.cwd,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        except FileNotFoundError:
            raise PokayokayError(f"cannot run git ({self.exe}): not found") from None
        expired = threading.Event()

        def kill() -> None:
            expired.set()
            proc.kill()

        timer = threading.Timer(self.timeout, kill)
        timer.daemon = True
        timer.start()
        finished = False
        try:
            assert proc.stdout is not None
            for raw in proc.stdout:
                yield raw.decode("utf-8", "surrogateescape")
            finished = True
        finally:
            timer.cancel()
            if not finished:
                proc.kill()
            assert proc.stdout is not None and proc.stderr is not None
            proc.stdout.close()
            err = proc.stderr.read()
            proc.stderr.close()
            code = proc.wait()
        if expired.is_set():
            raise PokayokayError(f"git {args[0]} took longer than {self.timeout:g} s; gave up")
        if code != 0:
            raise PokayokayError(f"git {args[0]} failed in {self.cwd}: {first_line(err)}")


def first_line(data: bytes) -> str:
    """The first non-blank line of a git command's output ("no message" when there is none)."""
    text = data.decode("utf-8", "replace").strip()
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[0] if lines else "no message"


# --- the project's files ------------------------------------------------------------------------

PROJECT_FILES_CAP = 200_000
# Folders a walk skips when the project is not a git work tree: VCS, dependencies, caches, builds.
SKIPPED_DIRS = frozenset(
    {".git", "node_modules", ".venv", "venv", "__pycache__", ".tox", ".mypy_cache",
     ".pytest_cache", ".ruff_cache", "dist", "build", ".hg", ".svn"}
)  # fmt: skip


def list_project_files(project_dir: Path | str) -> list[str]:
    """The project's files, relative, POSIX and sorted: ``git ls-files`` (tracked and untracked,
    not ignored) inside a git work tree, else a walk that skips :data:`SKIPPED_DIRS`. At most
    :data:`PROJECT_FILES_CAP` names."""
    project = Path(project_dir)
    listed = git_output(
        project, "ls-files", "-z", "--cached", "--others", "--exclude-standard", timeout=30
    )
    if listed is not None:
        names = listed.decode("utf-8", "surrogateescape").split("\0")
        return sorted({name for name in names if name})[:PROJECT_FILES_CAP]
    out: list[str] = []
    for root, dirs, files in os.walk(project):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
        rel_root = os.path.relpath(root, project)
        for name in files:
            rel = name if rel_root == "." else f"{rel_root}/{name}"
            out.append(rel.replace(os.sep, "/"))
            if len(out) >= PROJECT_FILES_CAP:
                return sorted(out)
    return sorted(out)
