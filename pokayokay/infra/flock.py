"""A lock file held by one process at a time, taken without blocking (I/O).

The spool's ingest, SessionStart's catch-up worker and the failure store's upgrade each let one
process do their work: the first takes an exclusive advisory lock (``flock``) on a lock file,
and the others either wait a bounded time or go away. Imports only :mod:`os` and :mod:`time`
(the prompt's ingest runs it; docs/decisions/0124).
"""

from __future__ import annotations

import os
import time


def try_lock(path: str, wait: float = 0.0) -> int | None:
    """The descriptor of ``path`` (created if missing, mode 0600) once this process holds its
    exclusive lock, retried every 20 ms for up to ``wait`` seconds; None when another process
    still holds it. Close the descriptor to let go. Without ``flock`` (Windows) the lock is
    assumed. A missing folder raises :class:`FileNotFoundError`."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        import fcntl
    except ImportError:  # no flock (Windows): one holder is assumed
        return fd
    give_up = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() >= give_up:
                os.close(fd)
                return None
            time.sleep(0.02)
