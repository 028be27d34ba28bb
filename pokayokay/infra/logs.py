"""pokayokay's log file: one for all projects, bounded by rotation (1 MiB, one old copy kept)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from pokayokay.infra.state import PRIVATE_FILE, log_file, private_folder, tighten

TYPE_CHECKING = False  # no typing import at run time: hooks import this module
if TYPE_CHECKING:
    from typing import TextIO

MAX_BYTES = 1 << 20


def log(message: str, *, traceback_text: str | None = None) -> Path:
    """Append a timestamped record; returns the log path (so callers can name it)."""
    path = log_file()
    try:
        private_folder(path.parent)
        try:
            if path.stat().st_size > MAX_BYTES:
                os.replace(path, path.with_name(path.name + ".1"))
        except FileNotFoundError:
            pass  # no log yet: nothing to rotate
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        record = f"{stamp} pid={os.getpid()} {message}\n"
        if traceback_text:
            record += traceback_text if traceback_text.endswith("\n") else traceback_text + "\n"
        # 0600: the log quotes errors, paths and excerpts of what failed.
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, PRIVATE_FILE)
        try:
            tighten(path, PRIVATE_FILE)  # a log an older pokayokay created 0644
            os.write(fd, record.encode("utf-8", "replace"))
        finally:
            os.close(fd)
    except OSError:
        pass  # logging must never be the reason a hook fails
    return path


def fail_open(what: str, exc: BaseException, *, stderr: TextIO | None = None) -> Path:
    """The one place a caught error below the CLI and hook boundaries goes: the log gets
    ``<what> skipped: <error>`` with the traceback, stderr gets one line naming the log.
    Never silent, never raising: the caller carries on without the failed step."""
    import sys

    message = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
    first_line = str(message).splitlines()[0] if message else type(exc).__name__
    path = log_exception(f"{what} skipped", exc)
    stream = sys.stderr if stderr is None else stderr
    try:
        stream.write(f"pokayokay: {what} skipped: {first_line} (details: {path})\n")
        stream.flush()
    except (OSError, ValueError):
        pass  # no stderr: the log has it
    return path


def log_exception(what: str, exc: BaseException) -> Path:
    """Log ``<what>: <error>`` with the traceback, for a caller that reports the error to the
    user itself (doctor's checks, watch's messages); returns the log's path to name."""
    import traceback

    message = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return log(f"{what}: {message}", traceback_text=tb)
