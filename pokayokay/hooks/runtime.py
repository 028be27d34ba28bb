"""The hook runtime: ``pokayokay hook <Event>`` reads Claude Code's JSON payload on stdin.

Fail open, never silently: an error is logged with its traceback, one line naming pokayokay and
the log goes to stderr, and the exit code is 1, which Claude Code shows as a non-blocking hook
error. Exit 2 (which blocks Claude) is never used here. Unknown events and unknown payload keys
are ignored. Imports stay lazy: an event with nothing to do costs little more than the
interpreter start.
"""

from __future__ import annotations

import os
import sys

from pokayokay.errors import EXIT_FAILED_OPEN, EXIT_OK
from pokayokay.hooks.events import HANDLERS, LOOKUP_ONLY_EVENTS  # the one event table
from pokayokay.names import ENV_PROJECT_DIR

TYPE_CHECKING = False  # no typing import at run time: this is the hot path
if TYPE_CHECKING:
    from typing import IO, Any

    from pokayokay.infra.locate import MemoryLocation
    from pokayokay.infra.location_rules import MemoryPaths

MAX_PAYLOAD = 16 << 20


class BadPayload(Exception):
    pass


def canonical_event(name: str) -> str:
    """Accept ``SessionEnd`` as well as ``session-end`` / ``session_end``."""
    if "-" in name or "_" in name or name.islower():
        return "".join(part.capitalize() for part in name.replace("_", "-").split("-"))
    return name


def read_payload(stream: IO[bytes]) -> dict[str, Any]:
    if stream.isatty():
        raise BadPayload("no payload: pipe the hook's JSON on stdin")
    data = stream.read(MAX_PAYLOAD + 1)
    if len(data) > MAX_PAYLOAD:
        raise BadPayload(f"payload larger than {MAX_PAYLOAD >> 20} MiB; ignored")
    if not data.strip():
        raise BadPayload("empty payload on stdin")
    from pokayokay.infra.lean_json import decode, loads  # json.loads without json's re

    try:
        return _readable(data, loads(decode(data)))  # a byte that is not UTF-8 reads as U+FFFD
    except ValueError as exc:
        raise BadPayload(f"payload is not JSON ({exc})") from None
    except RecursionError:  # json's reader, or the walks below, past the interpreter's limit
        raise BadPayload("payload nested deeper than pokayokay reads; ignored") from None


def _readable(data: bytes, payload: Any) -> dict[str, Any]:
    """The decoded payload as handlers read it: well-formed strings, no private span."""
    from pokayokay.infra.lean_json import may_hold_surrogates, well_formed

    if may_hold_surrogates(data):  # a half of an emoji's pair cut off: no writer encodes it
        payload = well_formed(payload)
    if not isinstance(payload, dict):
        raise BadPayload(f"payload is a JSON {type(payload).__name__}, not an object")
    from pokayokay.infra.private import may_hold_private, strip_private_value

    if may_hold_private(data):  # what the user marked <private> reaches no handler
        stripped: dict[str, Any] = strip_private_value(payload)
        return stripped
    return payload


def run(event: str, stdin: IO[bytes], stdout: IO[str], stderr: IO[str]) -> int:
    event = canonical_event(event)
    target = HANDLERS.get(event)
    if target is None:
        return EXIT_OK  # an event pokayokay has nothing to do for
    if event in LOOKUP_ONLY_EVENTS and not _has_lessons():
        return EXIT_OK  # no lessons for this project: nothing to say before a command
    try:
        payload = read_payload(stdin)
        module_name, func_name = target.split(":")
        # __import__, not importlib.import_module: importlib (and warnings) cost every event
        module = __import__(f"pokayokay.hooks.{module_name}", fromlist=[func_name])
        output = getattr(module, func_name)(payload, event)
        if output:
            stdout.write(output)
            stdout.flush()
        return EXIT_OK
    except BadPayload as exc:
        return _fail(event, str(exc), None, stderr)
    except Exception as exc:  # fail open: never let pokayokay break a session
        import traceback

        message = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
        return _fail(event, message, traceback.format_exc(), stderr)


def _has_lessons() -> bool:
    from pokayokay.infra.lesson_lookup import find_lookup

    try:
        return find_lookup(os.environ.get(ENV_PROJECT_DIR) or os.getcwd()) is not None
    except OSError:
        return True  # let the handler decide (and fail open, logged, if it must)


def _fail(event: str, message: str, tb: str | None, stderr: IO[str]) -> int:
    from pokayokay.infra import logs

    first_line = message.splitlines()[0] if message else "error"
    path = logs.log(f"hook {event} failed open: {message}", traceback_text=tb)
    stderr.write(f"pokayokay: {event} hook skipped: {first_line} (details: {path})\n")
    stderr.flush()
    return EXIT_FAILED_OPEN


def main(argv: list[str]) -> int:
    if not argv:
        sys.stderr.write("usage: pokayokay hook <Event>  (payload JSON on stdin)\n")
        return EXIT_FAILED_OPEN
    return run(argv[0], sys.stdin.buffer, sys.stdout, sys.stderr)


# Set by pokayokay.hooks.ingest on a spooled payload: where and when its hook fired.
SPOOLED_PROJECT_KEY = "_pokayokay_project_dir"
SPOOLED_TIME_KEY = "_pokayokay_ts"


def project_dir(payload: dict[str, Any]) -> str:
    """The launch folder: the spooled record's, else Claude Code's CLAUDE_PROJECT_DIR, else the
    payload's cwd. A folder that does not exist, or the filesystem root, is refused (the hook
    fails open, logged)."""
    from pokayokay.infra.state import project_root_problem

    spooled = payload.get(SPOOLED_PROJECT_KEY)
    folder = spooled if isinstance(spooled, str) and spooled else None
    if folder is None:
        env_dir = os.environ.get(ENV_PROJECT_DIR)
        cwd = payload.get("cwd")
        folder = env_dir or (cwd if isinstance(cwd, str) and cwd else os.getcwd())
    problem = project_root_problem(folder)
    if problem is not None:
        raise BadPayload(problem)
    return folder


def event_time(payload: dict[str, Any]) -> float:
    """When the payload's hook fired: the spooled record's time, else now."""
    spooled = payload.get(SPOOLED_TIME_KEY)
    if isinstance(spooled, float) and spooled > 0:
        return spooled
    import time

    return time.time()


def memory_location(payload: dict[str, Any]) -> MemoryLocation:
    """The project's memory location for a hook (``POKAYOKAY_MEMORY_DIR`` honoured)."""
    from pathlib import Path

    from pokayokay.infra.locate import memory_location_for

    return memory_location_for(Path(project_dir(payload)))


def memory_paths(payload: dict[str, Any]) -> MemoryPaths:
    """:func:`memory_location`'s folders as strings, without pathlib (the prompt's hot path)."""
    from pokayokay.infra.location_rules import hook_memory_paths

    return hook_memory_paths(project_dir(payload))


def context_output(event: str, context: str) -> str:
    """The JSON line that hands ``context`` to the model as the event's ``additionalContext``
    (:func:`pokayokay.infra.hook_output.context_output`, the one builder)."""
    from pokayokay.infra.hook_output import context_output as build

    return build(event, context)
