"""The format of every marshal file pokayokay writes (pure; built-ins only): a header naming
the format, the interpreter version, marshal's version and the machine's byte order (a value may
hold numbers packed in it: the recall index's postings), then marshal's bytes of plain values.

A file written by another interpreter, or in another format, does not start with the header and
unpacks as nothing at all, so its reader rebuilds or rewrites it. Apart from
:mod:`pokayokay.infra.packed` so that the lesson lookup, which the spool (and so the state
folder's module) imports, can read and write its marshal file without an import cycle.
"""

from __future__ import annotations

import marshal
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAGIC = b"pokayokay-marshal-1 "


def header() -> bytes:
    version = f"{sys.version_info[0]}.{sys.version_info[1]}:{marshal.version}:{sys.byteorder}"
    return MAGIC + f"{version}\n".encode("ascii")


def pack(value: Any) -> bytes:
    """The header and marshal's bytes of ``value``; ValueError when it holds no plain values."""
    return header() + marshal.dumps(value)


def unpack(data: bytes) -> Any:
    """What :func:`pack` made ``data`` from, or None (another format or interpreter, damaged,
    cut)."""
    head = header()
    if not data.startswith(head):
        return None
    try:
        return marshal.loads(memoryview(data)[len(head) :])
    except (EOFError, ValueError, TypeError):
        return None
