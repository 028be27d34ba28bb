"""Private cache files in ``marshal``'s format, for the large caches a prompt reads (the recall
index, the skill catalog): they load about six times faster than JSON.

A file starts with a header naming the format, the interpreter version and marshal's version;
anything else (another interpreter, a damaged or cut file, JSON from an earlier pokayokay) reads
as a missing cache, so the caller rebuilds it. Only plain values (dicts, lists, strings, numbers,
None) are written. These files are pokayokay's own, private to the user (0600) in the state
folder, and trusted as the JSON caches are: nothing read from them is ever executed.

Standard library only (``marshal`` is built in): the prompt hook imports this module.
"""

from __future__ import annotations

import marshal
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAGIC = b"pokayokay-marshal-1 "


def header() -> bytes:
    version = f"{sys.version_info[0]}.{sys.version_info[1]}:{marshal.version}"
    return MAGIC + f"{version}\n".encode()


def load(path: str | os.PathLike[str]) -> Any:
    """What :func:`save` wrote at ``path``, or None (missing, damaged, another format)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except (OSError, ValueError):
        return None
    head = header()
    if not data.startswith(head):
        return None
    try:
        return marshal.loads(memoryview(data)[len(head) :])
    except (EOFError, ValueError, TypeError):
        return None


def save(path: str | os.PathLike[str], data: dict[str, Any]) -> None:
    """Atomically replace ``path`` with ``data``, private to the user. A cache that cannot be
    written is only a slower prompt: nothing is raised."""
    try:
        payload = header() + marshal.dumps(data)
    except ValueError:  # not plain values: no cache
        return
    write_private(os.fspath(path), payload)


def write_private(path: str, payload: bytes) -> None:
    """Atomically replace ``path`` with ``payload`` (mode 0600); never raises ``OSError``."""
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with open(fd, "wb") as fh:
            fh.write(payload)
        os.replace(tmp, path)
    except OSError:
        try:  # noqa: SIM105 - contextlib is one more import on the prompt path
            os.unlink(tmp)
        except OSError:
            pass
