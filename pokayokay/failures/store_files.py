"""The failure store's file on disk: telling a busy database from a foreign or corrupt file,
moving a corrupt one aside (``failures.db.unreadable-<unix time>``, its WAL beside it: nothing is
deleted) so that capture goes on into a fresh store, and finding the stores moved aside.

A store is corrupt when SQLite says so ("database disk image is malformed", "file is not a
database": a truncated file, a torn page, a file that is not SQLite at all) about a file that
holds a complete SQLite header or none: a file shorter than the header that starts like one may
be another process's database being created, and is left alone."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import sys
import time
from collections.abc import Callable

from pokayokay.infra.regular import folder_names

TYPE_CHECKING = False
if TYPE_CHECKING:  # names for type checkers alone: no typing import at run time (decision 0159)
    from pathlib import Path
    from typing import TypeVar

    _T = TypeVar("_T")

__all__ = [
    "ASIDE_INFIX",
    "SQLITE_HEADER",
    "create_private",
    "file_identity",
    "incremental_vacuum",
    "is_busy",
    "is_corrupt",
    "is_foreign_file",
    "mark_changed",
    "move_aside",
    "moved_aside",
    "retry_busy",
    "retry_fresh",
]


def is_busy(exc: sqlite3.OperationalError) -> bool:
    """A lock another connection holds (``SQLITE_BUSY``/``LOCKED``, or WAL's rare
    ``SQLITE_PROTOCOL`` race while a WAL index is being rebuilt): worth retrying."""
    text = str(exc).lower()
    return "locked" in text or "busy" in text or "locking protocol" in text


def retry_busy(action: Callable[[], object], attempts: int) -> None:
    """Run ``action``, retrying ``attempts * 10`` times at most on a lock the busy handler did
    not wait out."""
    for attempt in range(attempts * 10):
        try:
            action()
            return
        except sqlite3.OperationalError as exc:
            if not is_busy(exc) or attempt == attempts * 10 - 1:
                raise
            time.sleep(0.02 + 0.01 * attempt)


SQLITE_HEADER = b"SQLite format 3\x00"


def is_foreign_file(path: Path) -> bool:
    """True when ``path`` holds bytes that are not an SQLite database (never a file that is
    empty or starts like one: those may be another process's database being created)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(SQLITE_HEADER))
    except OSError:
        return False
    return bool(head) and head != SQLITE_HEADER[: len(head)]


HEADER_BYTES = 100  # SQLite's database header


def is_corrupt(
    exc: sqlite3.DatabaseError, path: Path, opened: tuple[int, int] | None = None
) -> bool:
    """Whether ``exc`` says the file at ``path`` cannot be used as a database: SQLite reports it
    malformed or not a database, and the file is not a header still being written. ``opened``:
    the identity of the file the failing connection opened; when ``path`` is another file by
    now, another process moved it aside meanwhile (its WAL too, hence errors such as "disk I/O
    error"): start afresh as well, whatever the error."""
    if opened is not None and file_identity(path) != opened:
        return True
    text = str(exc).lower()
    if "malformed" not in text and "not a database" not in text:
        return False
    if is_foreign_file(path):
        return True
    try:
        with open(path, "rb") as handle:
            head = handle.read(HEADER_BYTES)
    except OSError:
        return False
    return len(head) == HEADER_BYTES and head.startswith(SQLITE_HEADER)


def file_identity(path: str | os.PathLike[str]) -> tuple[int, int] | None:
    """The (device, inode) of ``path``; None when it does not exist."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def move_aside(path: Path, identity: tuple[int, int] | None, why: str) -> Path | None:
    """Move the corrupt store ``path`` (and its ``-wal``/``-shm``) aside to
    ``<name>.unreadable-<unix time>``, say so loudly (the log and one stderr line) and return
    where it went. ``identity``: the file found corrupt; when ``path`` is another file by now
    (another process moved it aside first and started afresh), nothing is moved: None."""
    from pokayokay.infra import logs
    from pokayokay.infra.safe_write import file_lock

    with file_lock(_aside_lock(path), timeout=5.0):
        if identity is None or file_identity(path) != identity:
            return None
        stamp = int(time.time())
        while True:
            aside = path.with_name(f"{path.name}{ASIDE_INFIX}{stamp}")
            if not os.path.lexists(aside):
                break
            stamp += 1
        # The database, then its WAL and index: a fresh store is only created under this same
        # lock (create_private), so the -wal/-shm moved here are never the fresh store's.
        os.replace(path, aside)
        for suffix in ("-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):  # no WAL: nothing to move
                os.replace(f"{path}{suffix}", f"{aside}{suffix}")
    message = (
        f"THE FAILURE STORE WAS CORRUPT ({why}): {path} was moved aside to {aside} and a fresh "
        "store started; the failures recorded before are only in that file"
    )
    log = logs.log(message)
    with contextlib.suppress(OSError, ValueError):  # no stderr: the log has it
        sys.stderr.write(f"pokayokay: {message} (details: {log})\n")
        sys.stderr.flush()
    return aside


def _aside_lock(path: Path) -> Path:
    return path.with_name(path.name + ".aside.lock")


def create_private(path: Path) -> None:
    """Create the store's file, mode 0600 (excerpts of tool output can hold anything), in a
    0700 folder; waits for a move aside in progress (:func:`move_aside`) to finish first."""
    from pokayokay.infra.safe_write import file_lock
    from pokayokay.infra.state import private_folder

    private_folder(path.parent)
    with file_lock(_aside_lock(path), timeout=5.0):
        os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))


def mark_changed(store: str) -> None:
    """Touch ``failures.db.changed`` beside the store file ``store``: readers that cache what
    they read (recall) compare its mtime, because the database file's own mtime also moves when
    a reader closes it."""
    from pokayokay.names import FAILURES_CHANGED

    marker = os.path.join(os.path.dirname(store), FAILURES_CHANGED)
    try:
        os.close(os.open(marker, os.O_WRONLY | os.O_CREAT, 0o600))
        os.utime(marker)
    except OSError:
        pass  # a cache that misses a change rebuilds from the store's own mtime next time


def incremental_vacuum(conn: sqlite3.Connection, store: str, pages: int) -> None:
    """Hand freed pages of the store file ``store`` back to the file system, at most ``pages``
    (a no-op on a store made before auto-vacuum). Run as a script: Python's sqlite3 steps a
    plain execute of this pragma once, which frees a single page."""
    try:
        conn.executescript(f"PRAGMA incremental_vacuum({pages});")
    except sqlite3.OperationalError as exc:  # busy: the next maintenance tries again
        from pokayokay.infra import logs

        logs.log(f"failure store {store}: incremental vacuum skipped ({exc})")


def retry_fresh(action: Callable[[], _T], reset: Callable[[], None], attempts: int = 5) -> _T:
    """``action`` on the fresh store after a move aside: while another process is still moving
    the same corrupt file (and its WAL) aside, the first tries can fail; each failure closes
    the connection (``reset``) and tries again a little later. The last error is raised."""
    for attempt in range(1, attempts + 1):
        try:
            return action()
        except sqlite3.DatabaseError:
            reset()
            if attempt == attempts:
                raise
            time.sleep(0.05 * attempt)
    raise AssertionError("unreachable")  # pragma: no cover


ASIDE_INFIX = ".unreadable-"  # failures.db.unreadable-<unix time>: a corrupt store moved aside


def moved_aside(path: Path) -> list[Path]:
    """The corrupt stores moved aside next to ``path``, oldest first."""
    names = folder_names(path.parent)
    prefix = path.name + ASIDE_INFIX
    # <name>.unreadable-<unix time>, not its -wal and -shm beside it.
    return sorted(
        path.parent / n for n in names if n.startswith(prefix) and n[len(prefix) :].isdigit()
    )
