"""FileChanged: Claude wrote MEMORY.md mid-session, so curate it now instead of at SessionEnd.

SessionStart puts the memory folder's MEMORY.md in ``watchPaths`` and the FileChanged handler is
registered with the matcher ``MEMORY.md``. What makes it safe against Claude's own writes is what
makes every curation safe (a lock, a compare-and-swap write that never overwrites text it did not
read, the invariants check); on top of that the hook

* debounces: it waits until the file has stayed the same for :data:`QUIET_SECONDS` (at most
  :data:`MAX_WAIT_SECONDS`; a file still changing then is left to the next event);
* skips its own writes: the content it last left behind is remembered by hash in the state
  folder, and a change event for exactly that content does nothing.

``pokayokay watch`` stays for people who edit MEMORY.md outside sessions.
"""

from __future__ import annotations

import os

from pokayokay.hooks.runtime import memory_location, project_dir
from pokayokay.infra.state import real_payload_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any

QUIET_SECONDS = 0.4
MAX_WAIT_SECONDS = 4.0
POLL_SECONDS = 0.1
LOCK_WAIT = 2.0
SETTLED_FILE = "memory-watch.settled"


def _fingerprint(path: Path) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_mtime_ns, info.st_size)


def wait_quiet(
    path: Path,
    *,
    quiet: float = QUIET_SECONDS,
    max_wait: float = MAX_WAIT_SECONDS,
    clock: Callable[[], float] | None = None,
    sleep: Callable[[float], None] | None = None,
) -> bool:
    """True once ``path`` has not changed for ``quiet`` seconds; False if it kept changing for
    ``max_wait`` seconds or vanished."""
    import time

    now = clock or time.monotonic
    pause = sleep or time.sleep
    start = now()
    last = _fingerprint(path)
    since = start
    while True:
        if last is None:
            return False
        if now() - since >= quiet:
            return True
        if now() - start >= max_wait:
            return False
        pause(POLL_SECONDS)
        current = _fingerprint(path)
        if current != last:
            last, since = current, now()


def _digest(path: Path) -> str | None:
    import hashlib

    try:
        from pokayokay.infra.regular import read_regular

        return hashlib.sha256(read_regular(path)).hexdigest()
    except OSError:
        return None


def _settled_file(location: Any) -> Path:
    from pokayokay.infra.state import project_state_dir

    return project_state_dir(str(location.project_key)) / SETTLED_FILE


def file_changed(payload: dict[str, Any], event: str) -> str:
    from pathlib import Path

    changed = payload.get("file_path")
    if not isinstance(changed, str) or payload.get("event") == "unlink":
        return ""
    location = memory_location(payload)
    target = location.memory_file
    real = real_payload_path(changed)
    if real is None or real != real_payload_path(str(target)):
        return ""  # another MEMORY.md (a matcher is a file name, not a path), or no path at all
    if not wait_quiet(target):
        return ""
    settled = _settled_file(location)
    digest = _digest(target)
    try:
        if digest is not None and settled.read_text() == digest:
            return ""  # what pokayokay itself left there: nothing new to curate
    except OSError:
        pass  # no settled copy: curate
    from pokayokay.hooks.session import DETACH_ABOVE_BYTES, detach_curation, memory_size

    if memory_size(location) > DETACH_ABOVE_BYTES:  # seconds of curation: not in this hook
        detach_curation(Path(project_dir(payload)), location.memory_dir, event)
        return ""
    from pokayokay.config.settings import load_settings
    from pokayokay.infra import logs
    from pokayokay.infra.safe_write import LockTimeout
    from pokayokay.memory.apply import run_curation

    settings = load_settings(Path(project_dir(payload)))
    try:
        outcome = run_curation(location, settings, write=True, lock_timeout=LOCK_WAIT)
    except LockTimeout:
        logs.log(f"FileChanged: {target} is being curated by another pokayokay process; skipped")
        return ""
    if outcome.written and outcome.result is not None:
        moved = sum(len(m.entries) for m in outcome.result.moves)
        logs.log(f"FileChanged: curated {target} mid-session: moved {moved} entries")
    after = _digest(target)
    if after is not None:
        from pokayokay.infra.safe_write import write_atomic

        write_atomic(settled, after.encode("ascii"))  # 0600 in a 0700 folder
    return ""
