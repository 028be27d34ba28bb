"""The failure store's file on disk: telling a busy database from a foreign or corrupt file, and
finding the corrupt stores moved aside (``failures.db.unreadable-<unix time>``)."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

__all__ = ["ASIDE_INFIX", "SQLITE_HEADER", "is_busy", "is_foreign_file", "moved_aside"]


def is_busy(exc: sqlite3.OperationalError) -> bool:
    """A lock another connection holds (``SQLITE_BUSY``/``LOCKED``, or WAL's rare
    ``SQLITE_PROTOCOL`` race while a WAL index is being rebuilt): worth retrying."""
    text = str(exc).lower()
    return "locked" in text or "busy" in text or "locking protocol" in text


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


ASIDE_INFIX = ".unreadable-"  # failures.db.unreadable-<unix time>: a corrupt store moved aside


def moved_aside(path: Path) -> list[Path]:
    """The corrupt stores moved aside next to ``path``, oldest first."""
    try:
        names = os.listdir(path.parent)
    except OSError:
        return []
    prefix = path.name + ASIDE_INFIX
    return sorted(path.parent / n for n in names if n.startswith(prefix))
