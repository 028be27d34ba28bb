"""The spool: what per-tool-call hooks do instead of processing a payload.

PostToolUse, PostToolUseFailure, PostToolBatch and InstructionsLoaded fire on every tool call, so
their registered command runs this file with the least interpreter work there is (``python -S -E
…/spool.py <Event>``, or the ``pokayokay-spool`` script). It imports only ``sys``, ``os``, the
built-in ``time`` and :mod:`pokayokay.infra.state` (``os`` and ``sys`` again: where the state
folder is and how a folder is keyed, one rule each) - no json, re, sqlite3, pathlib, typing - and
appends the payload as ONE record
to the project's spool with a single ``O_APPEND`` write. :mod:`pokayokay.hooks.ingest` later
hands every record to the event's ordinary handler (classify, signature, redact, store): in the
background when the turn ends (Stop), at SessionEnd, before UserPromptSubmit reads failure
signals, and in every CLI command that reads the failure store.

Layout, in ``<state>/spool/<key>/`` (``<key>``: the launch folder's
:func:`~pokayokay.infra.state.folder_key`)::

    active.spool      records appended by hooks (never rewritten while it has that name)
    claimed.spool     a segment an ingester took by renaming active.spool
    claimed.cursor    how far into claimed.spool records are ingested (bytes)
    claimed.inflight  the record an ingester is handling and how many ingesters began it
                      (one that dies on it leaves the count: pokayokay.hooks.ingest)
    ingest.lock       held by the one ingester of this spool
    open/<session>    a failure was spooled in this session: its successes may close a fix
                      episode, so PostToolUse spools them (and only then)

A record is ``\\x1epky2 <event> <ts_ns> <project dir, hex> <n> <check>\\n`` followed by ``n``
payload bytes and ``\\n``: a length, a terminator and a check value (:func:`check_value`, over the
header's fields and the payload), so that a reader finds where a torn record (a short write: disk
full, a file-size limit) ends and the next one starts, and a torn record costs that record alone
(:mod:`pokayokay.infra.spool_frames`; records of the previous framing, ``\\x1epky1`` without a
check value, are still read).

A payload over :data:`RECORD_MAX` has its long strings cut head and tail (the only path that
imports ``json``, and only for such a payload), so a 15 MiB ``error`` costs one read and one
parse, never regex work.

Writers take a ``lockf`` lock on the file around the write and check that the file still has the
name ``active.spool``; an ingester renames the file and then takes the same lock once, so after
that no write can land in the claimed segment. Standard library and ``infra.state`` only: this
file also runs as a script with no ``site`` (an older install's entry), and then finds its package
first.
"""

import os
import sys
import time  # built into the interpreter: nothing is loaded

if __name__ == "__main__":  # run as a file (``python -S -E …/infra/spool.py``): find the package
    sys.path.append(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from pokayokay.infra.state import folder_key, state_folder  # the one copy of each rule: os, sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

MAGIC = b"\x1epky2 "
# The framing before check values (read once after an upgrade, never written).
OLD_MAGIC = b"\x1epky1 "
# A prime below 2**30: the check value's remainder is one machine digit of CPython's int, so
# computing it is a linear pass in C (2.9 us for 2 KB, 1.4 ms for 1 MiB) with no import.
CHECK_MODULUS = 1_073_741_789
# Fields longer than this (characters) keep their head and tail only.
FIELD_MAX = 64 << 10
# A payload larger than this (bytes) is bounded field by field.
RECORD_MAX = 256 << 10
# What a writer reads from stdin at most; anything beyond is cut without parsing.
READ_MAX = 64 << 20
ACTIVE = "active.spool"
CLAIMED = "claimed.spool"
CURSOR = "claimed.cursor"
INFLIGHT = "claimed.inflight"
LOCK = "ingest.lock"
OPEN_DIR = "open"
# Left by SessionStart when it hands the spool to its detached catch-up (decision 0130): a
# hook's bounded ingest that finds the lock taken waits for it (within its budget) instead of
# reading the store without the records being stored; the ingester that drains the spool
# removes it.
CATCH_UP = "catch-up.pending"
# Left by SessionStart beside it, holding the detached worker's pid, whenever it starts one; the
# worker removes it once it has ingested and graduated (before it refreshes caches), and the
# session's first prompt waits for that (pokayokay.hooks.catch_up.wait_for_worker): Claude Code
# looks for path-scoped rules when it reads a file, so a rule the worker graduates is then on
# disk before the first Read, however fast the model answers.
CATCH_UP_RUNNING = "catch-up.running"
# Left by a prompt that ingested records itself (a turn the user interrupted has no Stop): it
# read the failure signals from the changed store but did not write their cache (computing what
# the cache keeps of every failing test compiles the safety patterns: about 0.7 floors), and the
# turn's Stop, which runs in the background, brings the caches up to date and removes it
# (pokayokay.hooks.turn_end).
CACHES_STALE = "caches.stale"
SPOOLED_EVENTS = ("PostToolUse", "PostToolUseFailure", "PostToolBatch", "InstructionsLoaded")
# PostToolBatch results no other hook reports (pokayokay.hooks.capture decides exactly; this is
# a cheap superset so that a batch with none of them marks no session).
BATCH_FAILURE_HINTS = (b"<tool_use_error>", b" hook error", b"Permission to use ", b"doesn't want")


def spool_root(environ: "Mapping[str, str] | None" = None) -> str:
    return os.path.join(state_folder(environ), "spool")


def spool_dir(project_dir: str, environ: "Mapping[str, str] | None" = None) -> str:
    return os.path.join(spool_root(environ), folder_key(project_dir))


def pending(folder: str) -> bool:
    """Whether the spool folder holds anything to ingest (two stats; a hook checks this before
    importing the ingester)."""
    for name in (ACTIVE, CLAIMED):
        try:
            if os.stat(os.path.join(folder, name)).st_size > 0:
                return True
        except OSError:
            continue  # absent: nothing spooled there
    return False


def launch_dir(environ: "Mapping[str, str] | None" = None) -> str:
    """The launch folder a hook runs for: ``CLAUDE_PROJECT_DIR``, else the working folder."""
    env = os.environ if environ is None else environ
    return env.get("CLAUDE_PROJECT_DIR") or os.getcwd()


def session_of(data: bytes) -> str:
    """The payload's ``session_id`` found without parsing JSON ("" when absent or odd)."""
    at = data.find(b'"session_id"')
    if at < 0:
        return ""
    colon = data.find(b":", at + 12, at + 64)
    if colon < 0:
        return ""
    start = data.find(b'"', colon, colon + 16)
    end = data.find(b'"', start + 1, start + 130) if start >= 0 else -1
    if end < 0:
        return ""
    text = data[start + 1 : end].decode("ascii", "replace")
    return text if text and all(c.isalnum() or c in "-_" for c in text) else ""


def bound_payload(data: bytes) -> bytes:
    """The payload as spooled: as is up to RECORD_MAX bytes, else every string longer than
    FIELD_MAX cut to its head and tail with a note of what was cut (JSON kept valid)."""
    if len(data) <= RECORD_MAX:
        return data
    import json  # only for an oversized payload

    raw_cut = data[: RECORD_MAX // 2] + data[-(RECORD_MAX // 2) :]  # the ingest quarantines it
    try:
        value = _decoded(data)
    except (ValueError, RecursionError):  # not JSON, or nested deeper than json reads
        return raw_cut
    limit = FIELD_MAX
    while True:
        try:
            out = json.dumps(_cut(value, limit), ensure_ascii=False).encode(
                "utf-8", "surrogatepass"
            )
        except RecursionError:  # _cut walks it in Python: a few frames fewer than json's
            return raw_cut
        if len(out) <= RECORD_MAX * 4 or limit <= 1024:
            return out
        limit //= 4


def _decoded(data: bytes) -> object:
    """The payload's JSON value as the hook runtime reads it (``pokayokay.infra.lean_json``): a
    byte that is not UTF-8 read as U+FFFD, a lone surrogate escape as U+FFFD (written back raw,
    it would be no UTF-8 at all); ValueError or RecursionError when it is no JSON pokayokay
    reads. Only for the rare payloads the spool rewrites (oversized, or holding a private
    span)."""
    _package()
    from pokayokay.infra.lean_json import decode, loads, may_hold_surrogates, well_formed

    value = loads(decode(data))
    return well_formed(value) if may_hold_surrogates(data) else value


def cut_text(text: str, limit: int = FIELD_MAX) -> str:
    """``text`` if it is at most ``limit`` characters, else its head and tail with a note of
    what was cut between them."""
    if len(text) <= limit:
        return text
    half = limit // 2
    gone = len(text) - 2 * half
    return f"{text[:half]}\n[… pokayokay: {gone:,} characters cut …]\n{text[-half:]}"


def _cut(value: object, limit: int) -> object:
    if isinstance(value, str):
        return cut_text(value, limit)
    if isinstance(value, dict):
        return {key: _cut(item, limit) for key, item in value.items()}
    if isinstance(value, list):
        return [_cut(item, limit) for item in value]
    return value


def check_value(fields: bytes, payload: bytes) -> int:
    """The record's check value: ``fields + payload`` read as one little-endian number, modulo
    :data:`CHECK_MODULUS`: a polynomial hash, so any change within three consecutive bytes
    changes it and other changes collide about once in a billion (the length is checked
    beside it)."""
    return int.from_bytes(fields + payload, "little") % CHECK_MODULUS


def encode_record(event: str, project_dir: str, ts_ns: int, payload: bytes) -> bytes:
    where = project_dir.encode("utf-8", "surrogatepass").hex()
    fields = b"%s %d %s %d" % (event.encode("ascii"), ts_ns, where.encode("ascii"), len(payload))
    return b"%s%s %08x\n%s\n" % (MAGIC, fields, check_value(fields, payload), payload)


def _append(folder: str, record: bytes) -> None:
    """One O_APPEND write of ``record`` to the active spool, locked and re-checked so that a
    rename by an ingester never loses it."""
    path = os.path.join(folder, ACTIVE)
    lockf = getattr(os, "lockf", None)
    for _attempt in range(20):
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            if lockf is not None:
                lockf(fd, os.F_LOCK, 0)
                try:
                    same = os.stat(path).st_ino == os.fstat(fd).st_ino
                except FileNotFoundError:
                    same = False
                if not same:
                    continue  # claimed between our open and our lock: write to the new file
            written = os.write(fd, record)
            if written != len(record):
                raise OSError(f"short write to the spool ({written} of {len(record)} bytes)")
            return
        finally:
            os.close(fd)
    raise OSError("the spool kept being claimed while writing")


def spool(event: str, data: bytes, environ: "Mapping[str, str] | None" = None) -> bool:
    """Append one payload for ``event``; mark the session when it may open a fix episode.
    Returns False when there was nothing worth spooling."""
    env = os.environ if environ is None else environ
    where = launch_dir(env)
    folder = spool_dir(where, env)
    session = ""
    if event in ("PostToolUse", "PostToolUseFailure", "PostToolBatch"):
        session = session_of(data[:4096])
    marker = os.path.join(folder, OPEN_DIR, session) if session else ""
    if event == "PostToolUse" and not (marker and os.path.exists(marker)):
        return False  # a success with no failure before it in the session closes nothing
    if not data.strip():
        return False
    if b"private" in data.lower():  # what the user marked <private> never reaches the disk
        data = without_private(data)
    payload = bound_payload(data)
    record = encode_record(event, where, time.time_ns(), payload)
    try:
        _append(folder, record)
    except FileNotFoundError:
        makedirs_private(folder)
        _append(folder, record)
    failing = event == "PostToolUseFailure" or (
        event == "PostToolBatch" and any(hint in data for hint in BATCH_FAILURE_HINTS)
    )
    if failing and marker and not os.path.exists(marker):
        makedirs_private(os.path.dirname(marker))
        os.close(os.open(marker, os.O_WRONLY | os.O_CREAT, 0o600))
    return True


def _package() -> None:
    """Make ``pokayokay`` importable when this file runs as a script with ``-S`` (no site): its
    package root is three folders up. Appended, so the standard library still comes first."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if root not in sys.path:
        sys.path.append(root)


def without_private(data: bytes) -> bytes:
    """The payload with every ``<private>…</private>`` span replaced (``pokayokay.safety.
    private``): string by string when it is JSON, else on the raw text."""
    import json

    _package()
    from pokayokay.infra.lean_json import decode
    from pokayokay.infra.private import strip_private, strip_private_value

    try:
        out = json.dumps(strip_private_value(_decoded(data)), ensure_ascii=False)
    except (ValueError, RecursionError):  # not JSON, or nested deeper than the walks go
        return strip_private(decode(data)).encode("utf-8", "surrogatepass")
    return out.encode("utf-8", "surrogatepass")


def failure_lesson(data: bytes, environ: "Mapping[str, str] | None" = None) -> str:
    """PostToolUseFailure's answer: what worked when this command failed before
    (:func:`pokayokay.hooks.guard.failure_context`, from the lesson lookup). Without lessons in
    any project this is one ``stat``."""
    env = os.environ if environ is None else environ
    if not os.path.isdir(os.path.join(state_folder(env), "lessons")):
        return ""
    _package()
    from pokayokay.infra.hook_output import context_output
    from pokayokay.infra.lean_json import loads  # json.loads: no json, no re import
    from pokayokay.infra.lesson_lookup import command_entry, failure_text, load_for

    lookup = load_for(launch_dir(env), env)
    if lookup is None:
        return ""
    try:
        payload = loads(data.decode("utf-8", "surrogatepass"))
    except ValueError:
        return ""
    if not isinstance(payload, dict) or payload.get("is_interrupt") is True:
        return ""
    if payload.get("tool_name") not in ("Bash", "PowerShell"):
        return ""
    tool_input = payload.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    entry = command_entry(lookup, command)
    text = failure_text(entry, payload.get("error")) if entry is not None else ""
    if not text:
        return ""
    return context_output("PostToolUseFailure", text)


def makedirs_private(folder: str) -> None:
    """``os.makedirs(folder, 0o700)`` for every level it creates, not only the last: the spool
    is often the first to write into the state folder, and pokayokay's folders are private."""
    parent = os.path.dirname(folder)
    if parent and parent != folder and not os.path.isdir(parent):
        makedirs_private(parent)
    try:  # noqa: SIM105 - contextlib is one more import on the per-tool-call path
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass  # made by a concurrent hook


def _log(message: str) -> str:
    folder = os.path.join(state_folder(), "logs")
    try:
        makedirs_private(folder)
        fd = os.open(
            os.path.join(folder, "pokayokay.log"), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600
        )
        try:
            os.write(fd, f"spool: {message}\n".encode("utf-8", "replace"))
        finally:
            os.close(fd)
        return os.path.join(folder, "pokayokay.log")
    except OSError:
        return "(no log: the state folder is not writable)"


def main(argv: "list[str] | None" = None) -> int:
    """``spool.py <Event>`` with the payload on stdin. Exit 0, or 1 with one stderr line (never
    2, which would block Claude)."""
    args = sys.argv[1:] if argv is None else argv
    event = args[0] if args else ""
    if event not in SPOOLED_EVENTS:
        return 0
    try:
        stdin = sys.stdin.buffer
        if stdin.isatty():
            return 0
        data = stdin.read(READ_MAX)
        while stdin.read(1 << 20):  # drain the rest so that Claude Code's pipe never blocks
            pass
        spool(event, data)
        if event == "PostToolUseFailure":
            try:
                lesson = failure_lesson(data)
            except Exception as exc:  # the lesson never costs the capture
                _log(f"PostToolUseFailure lesson skipped: {type(exc).__name__}: {exc}")
                lesson = ""
            if lesson:
                sys.stdout.write(lesson)
                sys.stdout.flush()
        return 0
    except Exception as exc:  # fail open, never silently
        where = _log(f"{event} not spooled: {type(exc).__name__}: {exc}")
        sys.stderr.write(f"pokayokay: {event} hook skipped: {exc} (details: {where})\n")
        return 1


if __name__ == "__main__":
    sys.exit(main())
