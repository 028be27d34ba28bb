"""How a hook's process ends (``pokayokay.hooks.site_on_demand.leave``, decision 0169): without
the interpreter's finalization when nothing waits for it, its output flushed and its exit code
kept; as usual when a module that leaves work for the exit (an ``atexit`` callback, a thread)
was imported, so that work still runs."""

from __future__ import annotations

import subprocess
import sys

from helpers.paths import REPO_ROOT


def _run(body: str) -> subprocess.CompletedProcess[bytes]:
    code = (
        f"import sys\nsys.path.insert(0, {str(REPO_ROOT)!r})\n"
        "from pokayokay.hooks.site_on_demand import leave\n" + body
    )
    return subprocess.run(
        [sys.executable, "-S", "-E", "-c", code], capture_output=True, timeout=60, check=False
    )


def test_the_process_ends_with_its_code_and_its_buffered_output() -> None:
    # Both streams still buffered (a pipe): leave() flushes them before ending the process.
    proc = _run(
        "sys.stdout.write('context')\nsys.stderr.write('note')\n"
        "leave(3)\nsys.stdout.write(' after')\n"
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (3, b"context", b"note")


def test_an_atexit_callback_still_runs() -> None:
    proc = _run(
        "import atexit\natexit.register(lambda: sys.stdout.write(' at exit'))\n"
        "sys.stdout.write('context')\nleave(0)\nsys.stdout.write(' returned')\nsys.exit(4)\n"
    )
    assert (proc.returncode, proc.stdout) == (4, b"context returned at exit")


def test_a_thread_is_still_waited_for() -> None:
    proc = _run(
        "import threading, time\n"
        "t = threading.Thread(target=lambda: (time.sleep(0.05), sys.stdout.write(' thread')))\n"
        "t.start()\nleave(0)\nsys.exit(5)\n"
    )
    assert (proc.returncode, proc.stdout) == (5, b" thread")


def test_logging_imported_keeps_the_usual_exit() -> None:
    # logging flushes its handlers at exit (through atexit, which it imports)
    proc = _run("import logging\nleave(0)\nsys.exit(6)\n")
    assert proc.returncode == 6
