"""Spool records the ingester could not take in, kept instead of lost.

:mod:`pokayokay.hooks.ingest` moves its cursor past a record that fails (a payload that does not
parse, a handler error), runs over its time budget, or was being handled when two ingesters in
a row died, and past bytes that are no record (a torn write). So that one poison record never
stops capture and yet nothing is silently dropped, those bytes are kept here, raw, in
``<state>/spool/<key>/quarantine/`` (files 0600), and ``pokayokay doctor`` lists them.

A file is named ``<segment>@<offset>.<reason>.rec`` (the claimed segment and the byte offset
the bytes came from): keeping the same bytes again after a crash writes the same file. Bounded:
at most :data:`ITEM_MAX` bytes of one item (its head; the cut is logged), and at most
:data:`MAX_FILES` files and :data:`MAX_BYTES` bytes per spool (the oldest go first, logged).
"""

from __future__ import annotations

import os

from pokayokay.infra import spool
from pokayokay.infra.regular import folder_names

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NamedTuple
else:  # typing's class syntax without importing typing (decision 0159)
    from pokayokay.infra.named_tuple import NamedTuple

FOLDER = "quarantine"
ITEM_MAX = 1 << 20
MAX_FILES = 200
MAX_BYTES = 16 << 20
SUFFIX = ".rec"
# Why an item is here (the middle of its file name).
TORN = "torn"  # bytes that are no whole record: a short write, or something foreign
FAILED = "failed"  # a record its handler could not take (bad payload, an error)
OVER_BUDGET = "over-budget"  # a record that ran past the per-record time budget
STOPPED = "stopped-ingesters"  # a record being handled when ingesters died
REASONS = (TORN, FAILED, OVER_BUDGET, STOPPED)


class Quarantined(NamedTuple):
    """One kept item (a named tuple, not a dataclass: ``dataclasses`` brings ``inspect``, ``ast``
    and ``dis`` into every ingest, the prompt's among them; decision 0153)."""

    path: str
    spool: str  # the spool's key (the launch folder's)
    reason: str
    size: int
    mtime: float


def folder_of(spool_folder: str) -> str:
    return os.path.join(spool_folder, FOLDER)


def keep(spool_folder: str, segment: str, offset: int, data: bytes, reason: str) -> str:
    """Keep ``data`` (from ``segment`` at ``offset``) for ``reason``; returns the file's path.
    Written whole or not at all (a temporary file renamed), 0600."""
    from pokayokay.infra import logs

    where = folder_of(spool_folder)
    os.makedirs(where, mode=0o700, exist_ok=True)
    path = os.path.join(where, f"{segment}@{offset}.{reason}{SUFFIX}")
    if len(data) > ITEM_MAX:
        logs.log(f"spool quarantine {path}: kept the first {ITEM_MAX:,} of {len(data):,} bytes")
        data = data[:ITEM_MAX]
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as fh:
        fh.write(data)
    os.replace(tmp, path)
    logs.log(f"spool: {len(data):,} bytes at offset {offset} kept in {path} ({reason})")
    _bound(where)
    return path


def _bound(where: str) -> None:
    items = _items(where, "")
    total = sum(item.size for item in items)
    items.sort(key=lambda item: (item.mtime, item.path))
    while items and (len(items) > MAX_FILES or total > MAX_BYTES):
        oldest = items.pop(0)
        try:
            os.unlink(oldest.path)
        except OSError:
            continue  # gone or kept: the next trim sees it
        total -= oldest.size
        from pokayokay.infra import logs

        logs.log(f"spool quarantine over its bound: removed the oldest item {oldest.path}")


def _items(where: str, key: str) -> list[Quarantined]:
    found: list[Quarantined] = []
    for name in folder_names(where):
        if not name.endswith(SUFFIX):
            continue
        reason = name[: -len(SUFFIX)].rsplit(".", 1)[-1]
        path = os.path.join(where, name)
        try:
            info = os.stat(path)
        except OSError:
            continue  # gone meanwhile: not listed
        found.append(Quarantined(path, key, reason, info.st_size, info.st_mtime))
    return found


def listing() -> list[Quarantined]:
    """Every kept item of every spool, newest first."""
    root = spool.spool_root()
    keys = sorted(folder_names(root))
    found = [item for key in keys for item in _items(folder_of(os.path.join(root, key)), key)]
    found.sort(key=lambda item: (-item.mtime, item.path))
    return found


def report_lines(shown: int = 5) -> list[str]:
    """What ``doctor`` says of the quarantine: nothing when it is empty."""
    items = listing()
    if not items:
        return []
    reasons = ", ".join(
        f"{sum(item.reason == reason for item in items)} {reason}"
        for reason in sorted({item.reason for item in items})
    )
    total = sum(item.size for item in items)
    lines = [
        f"{len(items)} spooled item(s) could not be taken in and were kept aside ({reasons}; "
        f"{total:,} bytes); capture went on past them"
    ]
    lines.extend(
        f"kept: {item.path} ({item.reason}, {item.size:,} bytes)" for item in items[:shown]
    )
    return lines
