"""Writing files that Claude Code may be writing at the same moment, without losing a byte.

* ``file_lock``: an advisory lock between pokayokay processes (hooks, CLI, watch).
* ``update`` / ``with_retries``: the one read -> change -> compare-and-swap -> retry loop every
  writer of a shared file uses.
* ``replace_if_unchanged``: atomic replacement that only lands if the file still holds what we
  read. On Linux it swaps the new file in with ``renameat2(RENAME_EXCHANGE)`` and then looks at
  what it swapped out: if another writer got in between, their version is swapped back and the
  caller retries from it; bytes appended to the old file in that instant are carried over.
  Elsewhere it re-checks and uses ``os.replace``.
* A kill at any moment leaves the old file or the new one, never a half-written one; the temp
  files of processes killed mid-write are removed by the next writer in that folder.
* Never acting on a read that may be mid-write: a file another process holds open (a writer that
  truncated it and has not finished) is :class:`Busy` — nothing is written this round and the
  caller retries a little later. A swapped-out file still held open when the settle time runs
  out is given back the same way, and a file that shrank or changed between read and swap is a
  :class:`Conflict`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import signal
import stat
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from pokayokay.errors import ConcurrentChangeError, PokayokayError
from pokayokay.infra.regular import NotARegularFile, folder_names, open_nonblocking
from pokayokay.infra.state import PRIVATE_FILE, in_state_home, private_folder

TYPE_CHECKING = False  # typing is not imported at run time: SessionStart writes through here
if TYPE_CHECKING:
    from typing import TypeVar

    _T = TypeVar("_T")

_RENAME_EXCHANGE = 2
_F_SETLEASE = 1024
_F_SETSIG = 10
# The signal a broken lease raises (see _open_elsewhere): SIGURG, ignored unless handled.
LEASE_SIGNAL = int(getattr(signal, "SIGURG", 0))
# How long to wait for a writer that still holds the swapped-out file open.
SETTLE_SECONDS = 1.0
_AT_FDCWD = -100
_renameat2: object | None = None


class Conflict(Exception):
    """The file no longer holds what the caller read: re-read and try again."""


class Busy(Conflict):
    """Another process holds the file open (possibly mid-write): try again a little later."""


class LockTimeout(PokayokayError):
    pass


@contextlib.contextmanager
def file_lock(path: Path, timeout: float) -> Iterator[None]:
    """Hold an exclusive advisory lock on ``path`` (created if needed) for the ``with`` block."""
    _make_folder(path.parent)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows: no advisory lock, rely on the CAS
            yield
            return
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES):
                    raise
                if time.monotonic() >= deadline:
                    raise LockTimeout(
                        f"another pokayokay process holds {path}; try again in a moment"
                    ) from None
                time.sleep(0.01)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def read_bytes(path: Path) -> bytes | None:
    """The file's bytes (None when it does not exist), read so that its identity, size and
    modification time were the same before and after: a read that raced a writer is
    :class:`Busy`. Opened without blocking and checked to be a regular file first: a FIFO raises
    :class:`NotARegularFile` instead of hanging."""
    for _ in range(3):
        try:
            fd = open_nonblocking(path, os.O_RDONLY)
        except FileNotFoundError:
            return None
        try:
            before = os.fstat(fd)
            if not stat.S_ISREG(before.st_mode):
                raise NotARegularFile(errno.EINVAL, "not a regular file", os.fspath(path))
            chunks = []
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
            after = os.fstat(fd)
        finally:
            os.close(fd)
        if _same_file(before, after):
            return b"".join(chunks)
    raise Busy(str(path))


def _same_file(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_dev, a.st_ino, a.st_size, a.st_mtime_ns) == (
        b.st_dev,
        b.st_ino,
        b.st_size,
        b.st_mtime_ns,
    )


def settled(path: Path) -> None:
    """Raise :class:`Busy` when another process may be writing ``path`` right now: it holds the
    file open, or (where that cannot be told) modified it within the settle time. Called between
    a read and the first write that depends on it; in doubt, nothing is written this round."""
    busy = _open_elsewhere(path)
    if busy:
        raise Busy(str(path))
    if busy is None:
        try:
            age = time.time() - os.stat(path).st_mtime
        except FileNotFoundError:
            return  # gone: nothing is writing it
        if age < SETTLE_SECONDS:
            raise Busy(str(path))


_swept: set[str] = set()
_TEMP_RE = re.compile(r"^\..+\.pokayokay-(\d+)-\d+\.tmp$")
STALE_TEMP_SECONDS = 24 * 3600


def remove_stale_temps(folder: Path) -> list[Path]:
    """Remove the temp files pokayokay processes that died mid-write left in ``folder`` (their
    process is gone, or the file is a day old); once per folder per process."""
    key = str(folder)
    if key in _swept:
        return []
    _swept.add(key)
    removed: list[Path] = []
    for name in folder_names(folder):
        match = _TEMP_RE.match(name)
        if match is None:
            continue
        pid = int(match[1])
        path = folder / name
        try:
            old = time.time() - os.lstat(path).st_mtime > STALE_TEMP_SECONDS
        except OSError:
            continue  # gone meanwhile: nothing to sweep
        if pid != os.getpid() and (old or not _alive(pid)):
            with contextlib.suppress(OSError):  # gone or not ours: kept
                path.unlink()
                removed.append(path)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, owned by someone else
    return True


def _temp_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.pokayokay-{os.getpid()}-{time.monotonic_ns()}.tmp")


def _make_folder(folder: Path) -> None:
    """Create ``folder``: 0700 inside pokayokay's state folder (tightened if an older pokayokay
    made it looser), as the umask says elsewhere (a project's ``.claude/``, the memory folder)."""
    if in_state_home(folder):
        private_folder(folder)
    else:
        folder.mkdir(parents=True, exist_ok=True)


def _write_temp(path: Path, data: bytes, mode: int) -> Path:
    if in_state_home(path):
        private_folder(path.parent)
    remove_stale_temps(path.parent)
    tmp = _temp_path(path)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):  # the next writer sweeps it
            os.unlink(tmp)
        raise
    os.close(fd)
    return tmp


def _mode_of(path: Path) -> int:
    """The permission bits to give the replacement: 0600 in pokayokay's state folder (a file an
    older pokayokay wrote 0644 is tightened as it is replaced); elsewhere the file's own, else
    rw-r--r-- (a rule file or MEMORY.md is the user's, read by Claude Code)."""
    if in_state_home(path):
        return PRIVATE_FILE
    try:
        return os.stat(path).st_mode & 0o777
    except FileNotFoundError:
        return 0o644


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths (Linux renameat2). False when the platform cannot."""
    global _renameat2
    import ctypes  # only here: most writers never swap, and ctypes costs a millisecond to load

    if _renameat2 is None:
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            func = libc.renameat2
            func.argtypes = [
                ctypes.c_int,
                ctypes.c_char_p,
                ctypes.c_int,
                ctypes.c_char_p,
                ctypes.c_uint,
            ]
            func.restype = ctypes.c_int
            _renameat2 = func
        except (OSError, AttributeError):
            _renameat2 = False
    if _renameat2 is False:
        return False
    rc = _renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)  # type: ignore[operator]
    if rc == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(a))


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):  # no directory fsync here
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def replace_if_unchanged(
    path: Path, expected: bytes | None, data: bytes, *, keep_appends: bool = False
) -> bytes | None:
    """Atomically make ``path`` hold ``data``, provided it still holds ``expected``; returns the
    bytes actually replaced (None for a new file) — what a backup must hold.

    ``expected`` None means the file must not exist yet. Raises Conflict when another writer
    changed the file since the caller read it (nothing is lost: their version stays), Busy when
    another process holds it open. With ``keep_appends`` (line-oriented text such as
    MEMORY.md), lines another writer only appended meanwhile are kept after ``data`` instead of
    raising Conflict.
    """
    mode = _mode_of(path)
    tmp = _write_temp(path, data, mode)
    try:
        if expected is None:
            try:
                os.link(tmp, path)  # fails if someone created the file meanwhile
            except FileExistsError:
                raise Conflict(str(path)) from None
            except OSError:
                if path.exists():
                    raise Conflict(str(path)) from None
                os.replace(tmp, path)
            _fsync_dir(path.parent)
            return None
        settled(path)
        current = read_bytes(path)
        if current != expected:
            extra = _appended(expected, current, data) if keep_appends else None
            if extra is None or current is None:
                raise Conflict(str(path))
            # Lines were only appended since the caller read the file (Claude adding a note):
            # keep them after the new content instead of starting over.
            os.unlink(tmp)
            expected, data = current, data + extra
            tmp = _write_temp(path, data, mode)
        if not _exchange(tmp, path):
            if read_bytes(path) != expected:
                raise Conflict(str(path))
            os.replace(tmp, path)
            _fsync_dir(path.parent)
            return expected
        # ``tmp`` now names what was at ``path`` an instant ago. A writer that opened it just
        # before the swap may still be writing into it: wait for it to close, then look. Still
        # open when the settle time is up (a slow writer that truncated the file): in doubt,
        # give it back.
        if not _wait_until_closed(tmp, time.monotonic() + SETTLE_SECONDS):
            _exchange(tmp, path)
            raise Busy(str(path))
        swapped_out = tmp.read_bytes()
        if swapped_out != expected:
            extra = _appended(expected, swapped_out, data) if keep_appends else None
            if extra is not None:
                _append(path, extra)  # lines appended in that very instant
            else:
                _exchange(tmp, path)  # give the other writer their version back
                raise Conflict(str(path))
        _fsync_dir(path.parent)
        return swapped_out
    finally:
        with contextlib.suppress(FileNotFoundError):  # already swapped in
            os.unlink(tmp)


def _open_elsewhere(path: Path) -> bool | None:
    """Does any other open file description refer to ``path``? None when we cannot tell.

    A write lease (Linux) is granted only when nobody else has the file open. While it is held,
    another process opening the file breaks it, and the kernel signals the holder: SIGIO by
    default, whose default action kills the process (curation died in 8 of 150 runs, ``watch``
    silently). So the lease is taken on a descriptor whose break signal (``F_SETSIG``) is
    :data:`LEASE_SIGNAL`, a signal whose default action is to be ignored, in any thread; the
    process's own handlers are never touched. (An opener that broke the lease waits for its
    release, and what it then writes is caught by the compare-and-swap that follows.)
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return None
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        fcntl.fcntl(fd, _F_SETSIG, LEASE_SIGNAL)
        fcntl.fcntl(fd, _F_SETLEASE, fcntl.F_WRLCK)
        fcntl.fcntl(fd, _F_SETLEASE, fcntl.F_UNLCK)
        return False
    except OSError as exc:
        return True if exc.errno in (errno.EAGAIN, errno.EBUSY) else None
    finally:
        os.close(fd)


def _wait_until_closed(path: Path, deadline: float) -> bool:
    """Wait until nobody else holds ``path`` open; False if they still do at ``deadline``."""
    while True:
        busy = _open_elsewhere(path)
        if busy is None:
            time.sleep(0.005)  # cannot tell: give an in-flight append a moment to land
            return True
        if not busy:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.001)


def _appended(expected: bytes, current: bytes | None, data: bytes) -> bytes | None:
    """The bytes appended to ``expected`` to give ``current``, if that is all that happened."""
    if current is None or not expected.endswith(b"\n") or not data.endswith(b"\n"):
        return None
    if len(current) <= len(expected) or not current.startswith(expected):
        return None
    return current[len(expected) :]


def _append(path: Path, extra: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        os.write(fd, extra)
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path: Path, data: bytes) -> None:
    """Atomically write ``path`` whatever it holds now (for pokayokay's own files)."""
    mode = _mode_of(path)
    tmp = _write_temp(path, data, mode)
    try:
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):  # the next writer sweeps it
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


# --- the one read -> change -> compare-and-swap -> retry loop -----------------------------------

ATTEMPTS = 5  # how often a write is retried from a fresh read when another writer got in first
BUSY_BACKOFF = 0.1  # seconds times the attempt number, after a Busy file (1 s in all)


def with_retries(step: Callable[[int], _T], *, what: str, attempts: int = ATTEMPTS) -> _T:
    """Run ``step(attempt)`` until it returns without :class:`Conflict`, at most ``attempts``
    times. ``step`` reads its file(s) afresh each time, changes them and writes them with
    :func:`replace_if_unchanged`. Gives up with :class:`ConcurrentChangeError` naming ``what``;
    nothing is lost then: the other writer's version stays."""
    for attempt in range(1, attempts + 1):
        try:
            return step(attempt)
        except Busy:
            if attempt < attempts:
                time.sleep(BUSY_BACKOFF * attempt)  # a writer holds the file: let it finish
        except Conflict:
            continue  # re-read and try again
    raise ConcurrentChangeError(
        f"{what} kept changing while pokayokay tried to write it ({attempts} attempts); "
        "nothing was lost, try again"
    )


def update(
    path: Path,
    change: Callable[[bytes | None], bytes | None],
    *,
    keep_appends: bool = False,
    attempts: int = ATTEMPTS,
) -> bytes | None:
    """Make ``path`` hold ``change(current bytes or None)``, safely against concurrent writers.

    ``change`` returns the new bytes, or None to leave the file as it is. Returns what the file
    holds afterwards (as far as this writer knows)."""

    def step(_attempt: int) -> bytes | None:
        current = read_bytes(path)
        wanted = change(current)
        if wanted is None or wanted == current:
            return current
        if current is not None:
            settled(path)
        replace_if_unchanged(path, current, wanted, keep_appends=keep_appends)
        return wanted

    return with_retries(step, what=str(path), attempts=attempts)


# --- text codec: pokayokay reads and writes markdown as UTF-8, undecodable bytes kept as they are


def confined(target: Path, root: Path | None) -> Path:
    """``target``, provided that once symlinks are resolved it stays inside ``root`` (no check
    when ``root`` is None); a :class:`PokayokayError` naming where it leads otherwise, so that
    pokayokay never writes outside the project through a link."""
    if root is not None:
        real = Path(os.path.realpath(target))
        if not real.is_relative_to(Path(os.path.realpath(root))):
            raise PokayokayError(
                f"{target} leads to {real}, outside {root}; pokayokay does not write there"
            )
    return target


def decode_text(data: bytes, path: Path) -> str:
    """``data`` as text; a NUL byte means a binary file, which pokayokay leaves alone."""
    nul = data.find(b"\0")
    if nul != -1:
        raise PokayokayError(
            f"{path} looks binary (NUL byte at offset {nul}); pokayokay leaves it alone"
        )
    return data.decode("utf-8", "surrogateescape")


def encode_text(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def read_text(path: Path) -> str | None:
    """The file's text (None when it does not exist): :func:`read_bytes`, then
    :func:`decode_text`."""
    data = read_bytes(path)
    return None if data is None else decode_text(data, path)
