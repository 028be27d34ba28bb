"""Whether a file system's clock has moved past a recorded modification time (issue 26,
decision 0153). Standard library only; the prompt hook imports it.

A cache keyed by a folder's mtime (the recall index's quick key: the memory folder and the
``memory.changed`` marker) may stand for the folder's listing only if every later change moves
that mtime. A change in the same tick of the file system's clock as the recorded mtime keeps
it, and the change is missed. The clock's tick is not the wall clock's: ext4 and tmpfs stamp
from the kernel's coarse clock (one jiffy, 1-10 ms), FAT every 2 s, a network file system from
its server's clock. Until now the only proof that the tick had passed was age: an mtime
:data:`SETTLE_NS` (3 s) old by the wall clock. So SessionEnd, which writes the memory folder and
then runs the recall index's full check, could never vouch for the quick key, and the next
session's first prompt stat-ed every learning again.

The probe is a proof that holds on any clock: the file system itself is asked for the time, by
setting the mtime of a file of pokayokay's own (:data:`PROBE_FILE`, in the state folder) to now,
and reading it back. When that file lives on the same device as the stamped path (one file
system: one clock, one granularity) and its mtime is greater than the recorded one, the clock
has moved past it, and every change made after the probe is stamped later still (a file
system's clock does not run backwards: the kernel's coarse clock, and the multigrain stamps of
Linux 6.13+, are monotonic; a wall clock stepped backwards breaks the age rule as well).

The order is the caller's part: the path is stat-ed first, the probe taken next, and what the
key stands for (the folder's listing) read after both. A change before the probe is then in the
listing; a change after it moves the mtime.
"""

from __future__ import annotations

import os
import time

TYPE_CHECKING = False  # no typing import at run time: the prompt hook imports this module
if TYPE_CHECKING:
    from collections.abc import Sequence

# How old (ns), by the wall clock, a recorded mtime must be to be trusted without a probe
# (file systems with 1-2 s clocks, and a margin).
SETTLE_NS = 3_000_000_000
# The file the probe stamps, in a folder of pokayokay's own (a project's state folder).
PROBE_FILE = "fs-clock.probe"


def settled(stamps: Sequence[tuple[str, int | None]], probe_dir: str | None) -> bool:
    """Whether every ``(path, mtime_ns)`` recorded (None: the path was missing, nothing to
    trust) is past its file system's clock: :data:`SETTLE_NS` old by the wall clock, or older
    than the probe's stamp in ``probe_dir`` on the same device (None: by age alone). Call it
    after stat-ing the paths and before reading what their key stands for (module docstring).
    Any error: False."""
    now = time.time_ns()
    recent = [
        (path, mtime) for path, mtime in stamps if mtime is not None and now - mtime < SETTLE_NS
    ]
    if not recent:
        return True
    probe = None if probe_dir is None else probe_clock(probe_dir)
    if probe is None:
        return False
    device, ticked = probe
    for path, mtime in recent:
        try:
            same = os.stat(path).st_dev == device
        except (OSError, ValueError):
            return False
        if not (same and clock_passed(mtime, ticked)):
            return False
    return True


def clock_passed(recorded_ns: int, probe_ns: int) -> bool:
    """Whether a probe stamped ``probe_ns`` by the same file system proves its clock past
    ``recorded_ns``: strictly later (an equal stamp may be the same tick)."""
    return probe_ns > recorded_ns


def probe_clock(folder: str) -> tuple[int, int] | None:
    """``(st_dev, mtime_ns)`` of :data:`PROBE_FILE` in ``folder`` right after its mtime was set
    to the file system's now (the file is made when missing, never followed through a link);
    None when ``folder`` is missing or the probe fails."""
    path = os.path.join(folder, PROBE_FILE)
    flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags, 0o600)
    except (OSError, ValueError):
        return None
    try:
        if os.utime in os.supports_fd:
            os.utime(fd)
            info = os.fstat(fd)
        else:  # Windows: by name (the handle is open, so it is the same file)
            os.utime(path)
            info = os.stat(path)
    except OSError:
        return None
    finally:
        os.close(fd)
    return info.st_dev, info.st_mtime_ns
