"""A value made from a few files, kept in pokayokay's state folder with the size and
modification time of each (issue 26): a hook that would parse MEMORY.md or the settings to say
the same thing again reads one small file instead. Standard library and ``infra.packed`` only.

Nothing modified in the last :data:`RACY_SECONDS` is trusted to have settled (a file rewritten
with the same size within the file system's timestamp resolution would keep its old value, the
"racy" case git guards against the same way): the value is then made and not kept.
"""

from __future__ import annotations

import os
import time

from pokayokay import __version__
from pokayokay.infra import packed

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

RACY_SECONDS = 2.0


def stamps(paths: Sequence[str | None]) -> tuple[list[object], bool]:
    """``[path, size, mtime_ns]`` of each path (``[path, None]`` when missing, ``[None]`` for
    None) after pokayokay's version, and whether every one has settled."""
    now = time.time()
    key: list[object] = [__version__]
    settled = True
    for path in paths:
        if path is None:
            key.append([None])
            continue
        try:
            st = os.stat(path)
        except OSError:
            key.append([path, None])
            continue
        key.append([path, st.st_size, st.st_mtime_ns])
        settled = settled and now - st.st_mtime >= RACY_SECONDS
    return key, settled


def kept(cache: str, what: str, paths: Sequence[str | None], make: Callable[[], str]) -> str:
    """``make()``, or what it returned for the same files (``what`` tells two values kept in
    one file apart), from ``cache``."""
    key, settled = stamps(paths)
    key.insert(0, what)
    found = packed.load(cache)
    if isinstance(found, dict) and found.get("key") == key and isinstance(found.get("value"), str):
        value: str = found["value"]
        return value
    value = make()
    if settled:
        packed.save(cache, {"key": key, "value": value})
    return value
