"""Private cache files in ``marshal``'s format, for the large caches a prompt reads (the recall
index, the skill catalog): they load about six times faster than JSON.

A file starts with a header naming the format, the interpreter version and marshal's version;
anything else (another interpreter, a damaged or cut file, JSON from an earlier pokayokay) reads
as a missing cache, so the caller rebuilds it. A file may carry a *tail* after the values: bytes
the reader takes piece by piece, only when it needs them (:func:`load_head`, :class:`Tail`: the
recall index keeps its documents there, and a prompt reads the few it shows), located by a
fixed-size footer; :func:`load` reads the values and ignores a tail. Only plain values (dicts,
lists, strings, bytes, numbers, None) are written. These files are pokayokay's own, private to
the user (0600) in the state folder, and trusted as the JSON caches are: nothing read from them
is ever executed.

Standard library only (``marshal`` is built in): the prompt hook imports this module.
"""

from __future__ import annotations

import os

from pokayokay.infra.marshal_format import header, pack, unpack

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def load(path: str | os.PathLike[str]) -> Any:
    """What :func:`save` wrote at ``path``, or None (missing, damaged, another format)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except (OSError, ValueError):
        return None
    return unpack(data)


def save(path: str | os.PathLike[str], data: dict[str, Any], tail: bytes | None = None) -> None:
    """Atomically replace ``path`` with ``data`` (and ``tail``, for :func:`load_head`), private
    to the user. A cache that cannot be written is only a slower prompt: nothing is raised."""
    try:
        payload = pack(data)
    except ValueError:  # not plain values: no cache
        return
    if tail is not None:
        payload += tail + _FOOTER % len(payload)
    write_private(os.fspath(path), payload)


# The last bytes of a file with a tail: where the tail starts (the values end).
_FOOTER = b"\npokayokay-tail %016d\n"
_FOOTER_SIZE = len(_FOOTER % 0)


class Tail:
    """The tail of a file :func:`load_head` read: the file stays open (the very file the values
    came from, even if it is replaced meanwhile) until this object goes."""

    __slots__ = ("_fd", "_start", "size")

    def __init__(self, fd: int, start: int, size: int) -> None:
        self._fd = fd
        self._start = start
        self.size = size

    def read(self, offset: int, length: int) -> bytes:
        """``length`` bytes of the tail from ``offset``; ValueError outside it or unreadable."""
        if self._fd < 0 or offset < 0 or length < 0 or offset + length > self.size:
            raise ValueError("outside the cache file's tail")
        try:
            data = _pread(self._fd, length, self._start + offset)
        except OSError as exc:
            raise ValueError(f"cache file's tail unreadable ({exc})") from None
        if len(data) != length:
            raise ValueError("cache file's tail cut short")
        return data

    def close(self) -> None:
        if self._fd >= 0:
            fd, self._fd = self._fd, -1
            os.close(fd)

    def __del__(self) -> None:
        self.close()


def _pread(fd: int, length: int, offset: int) -> bytes:
    if hasattr(os, "pread"):
        return os.pread(fd, length, offset)
    os.lseek(fd, offset, os.SEEK_SET)  # Windows: no pread
    return os.read(fd, length)


def load_head(path: str | os.PathLike[str]) -> tuple[Any, Tail] | None:
    """The values :func:`save` wrote at ``path`` with a tail, and that tail (still unread), or
    None (missing, damaged, another format, no tail, not a regular file)."""
    import stat

    from pokayokay.infra.regular import open_nonblocking

    try:
        fd = open_nonblocking(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    except (OSError, ValueError):
        return None
    try:
        info = os.fstat(fd)
        head = header()
        size = info.st_size
        if not stat.S_ISREG(info.st_mode) or size < len(head) + _FOOTER_SIZE:
            raise ValueError("no tail")
        footer = _pread(fd, _FOOTER_SIZE, size - _FOOTER_SIZE)
        start = int(footer[16:-1]) if footer[:16] == _FOOTER[:16] else -1
        if not len(head) < start <= size - _FOOTER_SIZE:
            raise ValueError("no tail")
        data = _pread(fd, start, 0)
        values = unpack(data) if len(data) == start else None
        if values is None:
            raise ValueError("another format, or damaged")
    except (OSError, ValueError):
        os.close(fd)
        return None
    return values, Tail(fd, start, size - _FOOTER_SIZE - start)


def write_private(path: str, payload: bytes) -> None:
    """Atomically replace ``path`` with ``payload`` (mode 0600); never raises ``OSError``."""
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        from pokayokay.infra.state import private_folder

        private_folder(os.path.dirname(path))
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with open(fd, "wb") as fh:
            fh.write(payload)
        os.replace(tmp, path)
    except OSError:
        try:  # noqa: SIM105 - contextlib is one more import on the prompt path
            os.unlink(tmp)
        except OSError:
            pass  # the next writer sweeps the temp
