"""The header that opens every marshal file pokayokay writes (pure; built-ins only).

It names the format, the interpreter version and marshal's version: a file written by another
interpreter, or in another format, does not start with it and reads as no file at all. Apart
from :mod:`pokayokay.infra.packed` so that the lesson lookup, which the spool (and so the state
folder's module) imports, can read and write its marshal file without an import cycle.
"""

from __future__ import annotations

import marshal
import sys

MAGIC = b"pokayokay-marshal-1 "


def header() -> bytes:
    version = f"{sys.version_info[0]}.{sys.version_info[1]}:{marshal.version}"
    return MAGIC + f"{version}\n".encode("ascii")
