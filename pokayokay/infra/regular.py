"""Reading a file that must be a regular file, without ever blocking: the light helper every
reader of transcripts, MEMORY.md, settings and rules uses (standard library only, no typing)."""

from __future__ import annotations

import errno
import os


class NotARegularFile(OSError):
    """A FIFO, a socket or a device where a file was expected: never read (a FIFO would block)."""


def read_regular(path: str | os.PathLike[str], limit: int | None = None) -> bytes:
    """The bytes of a regular file (its first ``limit + 1`` bytes when ``limit`` is given, so a
    caller can tell "too large"). Opened without blocking and checked to be a regular file
    before any read: a FIFO named like a transcript, MEMORY.md, a settings file or a rule raises
    :class:`NotARegularFile` instead of hanging the hook. Other errors are the usual OSErrors."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        if not _is_regular(os.fstat(fd).st_mode):
            raise NotARegularFile(errno.EINVAL, "not a regular file", os.fspath(path))
        chunks: list[bytes] = []
        size = 0
        want = None if limit is None else limit + 1
        while want is None or size < want:
            chunk = os.read(fd, 1 << 20 if want is None else min(1 << 20, want - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _is_regular(mode: int) -> bool:
    import stat

    return stat.S_ISREG(mode)
