"""The pinned Claude Code CLI for the end-to-end tests: installed once into a cache folder.

``ensure_claude()`` returns the path of the ``claude`` binary of
``@anthropic-ai/claude-code@PINNED_VERSION``, running ``npm install --prefix <cache>`` on first
use. The install runs under an exclusive file lock, so parallel test processes wait for one
another instead of racing on the same ``node_modules``.

The cache folder is ``$POKAYOKAY_E2E_CACHE`` or ``~/.cache/pokayokay-e2e/claude-code-<version>``
where ``~`` is the REAL home of the user, captured at import time from the password database:
every test runs with ``HOME`` pointed at a temporary folder (see ``tests/conftest.py``), and a
380 MB download per test is not what anyone wants.
"""

from __future__ import annotations

import fcntl
import os
import pwd
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

PACKAGE = "@anthropic-ai/claude-code"
PINNED_VERSION = "2.1.330"
CACHE_ENV = "POKAYOKAY_E2E_CACHE"

# Captured at import, before any fixture moves HOME.
REAL_HOME = Path(pwd.getpwuid(os.getuid()).pw_dir)

NPM_TIMEOUT_S = 900
VERSION_TIMEOUT_S = 60


class ClaudeCliUnavailable(RuntimeError):
    """The pinned CLI could not be installed or does not run; the message carries the details."""


def cache_dir() -> Path:
    explicit = os.environ.get(CACHE_ENV)
    if explicit:
        return Path(explicit).expanduser().resolve()
    return REAL_HOME / ".cache" / "pokayokay-e2e" / f"claude-code-{PINNED_VERSION}"


def _candidates(prefix: Path) -> list[Path]:
    """Where the native binary lands. 2.1.330 ships it in a per-platform optional dependency;
    the wrapper package's postinstall also links/copies it to bin/claude.exe, and npm adds a
    ``node_modules/.bin/claude`` link."""
    node_modules = prefix / "node_modules"
    found = [node_modules / ".bin" / "claude"]
    found += sorted((node_modules / "@anthropic-ai").glob("claude-code-*/claude"))
    found.append(node_modules / "@anthropic-ai" / "claude-code" / "bin" / "claude.exe")
    found.append(node_modules / "@anthropic-ai" / "claude-code" / "cli.js")
    return found


def _scrubbed_env(scratch_home: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("ANTHROPIC_", "CLAUDE"))
    }
    env["HOME"] = str(scratch_home)
    env["DISABLE_AUTOUPDATER"] = "1"
    env["DISABLE_TELEMETRY"] = "1"
    env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] = "1"
    return env


def _version_of(binary: Path, prefix: Path) -> tuple[str, str]:
    """(stdout, stderr) of ``claude --version``, run with a scratch HOME inside the cache."""
    scratch = prefix / ".version-home"
    scratch.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        [str(binary), "--version"],
        capture_output=True,
        text=True,
        timeout=VERSION_TIMEOUT_S,
        stdin=subprocess.DEVNULL,
        env=_scrubbed_env(scratch),
        check=False,
    )
    return proc.stdout.strip(), proc.stderr.strip()


def _find_working(prefix: Path) -> Path | None:
    for candidate in _candidates(prefix):
        if not (candidate.is_file() and os.access(candidate, os.X_OK)):
            continue
        try:
            out, _ = _version_of(candidate, prefix)
        except (OSError, subprocess.SubprocessError):
            continue
        if out.split()[:1] == [PINNED_VERSION]:
            return candidate
    return None


@contextmanager
def _install_lock(prefix: Path) -> Iterator[None]:
    prefix.parent.mkdir(parents=True, exist_ok=True)
    lock_path = prefix.parent / f".{prefix.name}.lock"
    with open(lock_path, "a+") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _npm_install(prefix: Path) -> None:
    npm = shutil.which("npm")
    if npm is None:
        raise ClaudeCliUnavailable("npm is not on PATH: install Node.js (>= 22) and npm")
    prefix.mkdir(parents=True, exist_ok=True)
    package_json = prefix / "package.json"
    if not package_json.exists():
        package_json.write_text('{"name": "pokayokay-e2e-cli-cache", "private": true}\n')
    npm_cache = prefix / ".npm-cache"
    # The real home, so the user's ~/.npmrc (registry mirror, proxy) applies; npm's cache and
    # logs go inside the CLI cache folder instead of ~/.npm.
    env = _scrubbed_env(REAL_HOME)
    env["npm_config_cache"] = str(npm_cache)
    env["npm_config_update_notifier"] = "false"
    cmd = [npm, "install", "--no-audit", "--no-fund", "--prefix", str(prefix),
           f"{PACKAGE}@{PINNED_VERSION}"]
    try:
        proc = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            timeout=NPM_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise ClaudeCliUnavailable(
            f"`{' '.join(cmd)}` did not finish within {NPM_TIMEOUT_S}s\n"
            f"--- stdout ---\n{exc.stdout or ''}\n--- stderr ---\n{exc.stderr or ''}"
        ) from exc
    if proc.returncode != 0:
        raise ClaudeCliUnavailable(
            f"`{' '.join(cmd)}` exited with {proc.returncode}\n"
            f"--- stdout ---\n{proc.stdout}\n--- stderr ---\n{proc.stderr}"
        )
    # The downloaded tarballs are not needed once node_modules is populated.
    shutil.rmtree(npm_cache, ignore_errors=True)


def ensure_claude() -> Path:
    """Path of a working ``claude`` binary of the pinned version; installs it when missing.

    Raises ClaudeCliUnavailable with npm's output when the install or the version check fails.
    """
    prefix = cache_dir()
    found = _find_working(prefix)
    if found is not None:
        return found
    with _install_lock(prefix):
        found = _find_working(prefix)  # another process may have installed it meanwhile
        if found is not None:
            return found
        _npm_install(prefix)
        found = _find_working(prefix)
        if found is not None:
            return found
        details = []
        for candidate in _candidates(prefix):
            if candidate.exists():
                try:
                    out, err = _version_of(candidate, prefix)
                except (OSError, subprocess.SubprocessError) as exc:
                    out, err = "", repr(exc)
                details.append(f"{candidate}: --version printed {out!r} {err!r}")
        raise ClaudeCliUnavailable(
            f"npm installed {PACKAGE}@{PINNED_VERSION} into {prefix}, but no binary there "
            f"reports version {PINNED_VERSION}:\n" + ("\n".join(details) or "no binary found")
        )
