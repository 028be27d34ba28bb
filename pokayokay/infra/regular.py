"""Opening a file that must be a regular file, without ever blocking: the one open every reader
of a file pokayokay did not create goes through (transcripts, MEMORY.md and its topic files,
settings, rules, learnings, SKILL.md, git's HEAD). Standard library only, no typing import.

The file is opened with ``O_NONBLOCK`` (a FIFO opens at once instead of waiting for a writer)
and ``fstat``-checked to be a regular file before any byte is read, on the very descriptor that
is then read: no window between a check and the open for a swapped-in FIFO. And the one
listing of a folder whose absence is no error (:func:`folder_names`)."""

from __future__ import annotations

import errno
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO


class NotARegularFile(OSError):
    """A FIFO, a socket or a device where a file was expected: never read (a FIFO would block)."""


# How long an open waits out a write lease another pokayokay process holds on the file: the
# compare-and-swap writers (infra/safe_write) take one for an instant to learn whether anybody
# else has the file open, and an ``O_NONBLOCK`` open meeting it fails with EAGAIN at once.
LEASE_WAIT = 1.0


def open_nonblocking(path: str | os.PathLike[str], flags: int) -> int:
    """``os.open(path, flags | O_NONBLOCK)``: a FIFO opens at once instead of waiting. An open
    that meets a write lease (EAGAIN: another pokayokay process checking, for an instant,
    whether the file is open elsewhere) is tried again for up to :data:`LEASE_WAIT` seconds;
    without that, a chain-learnings append lost its entry and a reader skipped its file. A path
    holding a NUL (a payload's ``transcript_path``, say) names no file: FileNotFoundError, an
    OSError as for any missing file, where ``os.open`` raises ValueError."""
    flags |= getattr(os, "O_NONBLOCK", 0)
    deadline = None
    while True:
        try:
            return os.open(path, flags)
        except ValueError:
            raise FileNotFoundError(errno.ENOENT, "a path holding a NUL names no file") from None
        except BlockingIOError:
            import time

            now = time.monotonic()
            if deadline is None:
                deadline = now + LEASE_WAIT
            elif now >= deadline:
                raise
            time.sleep(0.001)


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """``path`` opened for reading in binary mode, provided it is a regular file (a symlink to
    one is followed); :class:`NotARegularFile` (an OSError) for a FIFO, socket or device, the
    usual OSErrors otherwise. Never blocks (beyond an instant's lease: :func:`open_nonblocking`)."""
    fd = open_nonblocking(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    try:
        if not _is_regular(os.fstat(fd).st_mode):
            raise NotARegularFile(errno.EINVAL, "not a regular file", os.fspath(path))
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: str | os.PathLike[str], limit: int | None = None) -> bytes:
    """The bytes of a regular file (its first ``limit + 1`` bytes when ``limit`` is given, so a
    caller can tell "too large"), through :func:`open_regular`: a FIFO named like a transcript,
    MEMORY.md, a settings file or a rule raises :class:`NotARegularFile` instead of hanging the
    hook. Other errors are the usual OSErrors."""
    with open_regular(path) as handle:
        return handle.read() if limit is None else handle.read(limit + 1)


def read_bounded(path: str | os.PathLike[str], limit: int) -> bytes | str:
    """The bytes of the regular file ``path`` when it holds at most ``limit`` of them; otherwise
    why it was not read, in a few words a caller puts in its problem line (``a symlink``,
    ``unreadable: <the OS's reason>`` or ``larger than <limit> bytes``). The one bounded read of
    the folders pokayokay lists and reads defensively (learning topic files, team members'
    files): a symlink there is never followed, wherever it leads (another user's file, a file
    out of the project)."""
    if os.path.islink(path):
        return "a symlink"
    try:
        data = read_regular(path, limit)
    except OSError as exc:
        return f"unreadable: {exc.strerror or exc}"
    if len(data) > limit:
        return f"larger than {limit} bytes"
    return data


def folder_names(folder: str | os.PathLike[str]) -> list[str]:
    """The names in ``folder`` (``os.listdir``, in no order), none when it cannot be listed:
    missing, not a folder, unreadable. For the folders pokayokay sweeps or looks through where
    an absent folder means nothing to find (stale temp files, the spool's quarantine, a store's
    corrupt copies moved aside)."""
    try:
        return os.listdir(folder)
    except OSError:
        return []


def read_regular_text(path: str | os.PathLike[str], limit: int | None = None) -> str:
    """:func:`read_regular` decoded as UTF-8, undecodable bytes kept (``surrogateescape``)."""
    return read_regular(path, limit).decode("utf-8", "surrogateescape")


def _is_regular(mode: int) -> bool:
    import stat

    return stat.S_ISREG(mode)
