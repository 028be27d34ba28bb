"""Reading the spool's records back (pure: bytes in, values out).

:mod:`pokayokay.infra.spool` frames each record with a length, a terminator and a check value.
:func:`next_frame` reads the first thing in a buffer: a whole record, bytes that are no record
(a torn record, something foreign), or "more bytes needed". It resynchronises after a torn
write: a writer cut short (disk full, a file-size limit) leaves a record shorter than its
header says, and the next writer's record starts right after the cut. Every record starts with
the record separator ``\\x1e`` and a payload never holds one raw (the payload is JSON, whose
control characters are escaped), so the torn record's declared body runs into the next
record's separator, or past the end of the file, and only the torn bytes are left out: the
next record is read as if nothing had happened. A body that is whole but changed (a crash
that left other bytes, a terminator that happens to line up) fails the check value.

Records of the previous framing (``\\x1epky1``, no check value) are read by the same rules, so a
spool written before an upgrade is ingested once after it, nothing lost.
"""

from __future__ import annotations

from pokayokay.infra.spool import MAGIC, OLD_MAGIC, READ_MAX, check_value

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

# What every record starts with, whatever its framing version.
SEPARATOR = b"\x1epky"
# A header line is at most this long (an event name, two numbers, a hex-encoded folder).
HEADER_MAX = 16 << 10
# Bytes that are no record are handed back in pieces of at most this much, so that a spool full
# of garbage never has to be held whole.
JUNK_PIECE = 4 << 20
# No writer spools a payload larger than this (it reads READ_MAX bytes at most and bounds what
# it read): a larger length is a damaged header, never a reason to read that much.
LENGTH_MAX = 4 * READ_MAX
# One read asks for at most this much, whatever a frame says it needs.
READ_PIECE = 64 << 20
_HEX = frozenset(b"0123456789abcdef")

# (event, ts_ns, project dir, payload)
Record = tuple[str, int, str, bytes]


def next_frame(buffer: bytes, at: int, final: bool) -> tuple[str, int, Record | None]:
    """The frame starting at ``buffer[at]``, as (kind, size, record):

    * ``("record", size, record)``: ``buffer[at:at + size]`` is one whole record;
    * ``("junk", size, None)``: ``buffer[at:at + size]`` is no record (a torn record, foreign
      bytes); the next frame starts after it;
    * ``("more", size, None)``: undecided before ``at + size`` bytes are there (``size`` 0 when
      unknown). With ``final`` (nothing follows ``buffer``) this means the buffer is used up.
    """
    left = len(buffer) - at
    if left <= 0:
        return "more", 0, None
    if not buffer.startswith(SEPARATOR, at):
        return _junk_until_separator(buffer, at, 0, final)
    if not (buffer.startswith(MAGIC, at) or buffer.startswith(OLD_MAGIC, at)):
        if left < len(MAGIC) and not final:
            return "more", len(MAGIC), None
        return _junk_until_separator(buffer, at, 1, final)
    newline = buffer.find(b"\n", at + len(MAGIC), at + HEADER_MAX)
    if newline < 0:
        if left < HEADER_MAX and not final and buffer.find(SEPARATOR, at + 1) < 0:
            return "more", 0, None
        return _junk_until_separator(buffer, at, 1, final)
    header = parse_header(buffer[at:newline])
    if header is None:
        return _junk_until_separator(buffer, at, 1, final)
    event, ts_ns, where, length, check = header
    body = newline + 1
    end = body + length  # where the terminator must be
    # A torn record runs into the next record's separator: only the torn bytes are junk.
    cut = buffer.find(SEPARATOR, body, end + 1)
    if cut >= 0:
        return "junk", cut - at, None
    if len(buffer) <= end:
        if final:
            return "junk", left, None  # torn at the very end
        return "more", end + 1 - at, None
    payload = buffer[body:end]
    if buffer[end] != 0x0A or (
        check is not None
        and check != check_value(buffer[at + len(MAGIC) : newline].rsplit(b" ", 1)[0], payload)
    ):
        return _junk_until_separator(buffer, at, 1, final)
    return "record", end + 1 - at, (event, ts_ns, where, payload)


def parse_header(line: bytes) -> tuple[str, int, str, int, int | None] | None:
    """(event, ts_ns, project dir, payload length, check value or None for the old framing) of
    a header line (the magic included, the newline not); None when it is no header."""
    new = line.startswith(MAGIC)
    if not new and not line.startswith(OLD_MAGIC):
        return None
    fields = line[len(MAGIC) :].split(b" ")
    if len(fields) != (5 if new else 4):
        return None
    event, ts_ns, where, length = fields[:4]
    if not (event.isalnum() and event.isascii() and ts_ns.isdigit() and length.isdigit()):
        return None
    if len(ts_ns) > 24 or len(length) > 12:
        return None
    try:
        folder = bytes.fromhex(where.decode("ascii")).decode("utf-8", "surrogatepass")
        check = (
            int(fields[4], 16)
            if new and len(fields[4]) == 8 and _HEX.issuperset(fields[4])
            else None
        )
    except (ValueError, UnicodeDecodeError):
        return None
    if new and check is None:
        return None
    if int(length) > LENGTH_MAX:
        return None
    return event.decode("ascii"), int(ts_ns), folder, int(length), check


def _junk_until_separator(buffer: bytes, at: int, skip: int, final: bool) -> tuple[str, int, None]:
    """Junk from ``at`` to the next separator at or after ``at + skip``."""
    found = buffer.find(SEPARATOR, at + skip)
    if found >= 0:
        return "junk", found - at, None
    left = len(buffer) - at
    if final:
        return "junk", left, None
    if left < JUNK_PIECE:
        return "more", 0, None
    # Keep a tail that may be the start of a separator cut by the read.
    return "junk", left - (len(SEPARATOR) - 1), None


def iter_frames(
    read: Callable[[int], bytes], chunk: int = 1 << 20
) -> Iterator[tuple[int, bytes, Record | None]]:
    """Every frame of what ``read(n)`` returns (a file read from some offset on), as
    (offset from that start, raw bytes, record or None for bytes that are no record). The raw
    bytes of the frames, back to back, are everything read: nothing is passed over unseen."""
    buffer = b""
    at = 0  # buffer[at] is at offset base
    base = 0
    final = False
    while True:
        kind, size, record = next_frame(buffer, at, final)
        if kind == "more":
            if final:
                return
            buffer = buffer[at:]
            at = 0
            # at least what the frame needs, and never less than what is held: a long frame
            # is read in doubling pieces, each byte scanned a bounded number of times
            data = read(min(max(chunk, size - len(buffer), len(buffer)), READ_PIECE))
            if data:
                buffer += data
            else:
                final = True
            continue
        yield base, buffer[at : at + size], record
        at += size
        base += size
