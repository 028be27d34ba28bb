"""The regex programs a hook saved for the next one (the file side of ``pokayokay.infra.lazyre``).

One file per hook event in pokayokay's state folder, ``regex-programs-<Event>.marshal`` (each
hook loads only the few patterns its own event uses): the programs ``re`` compiled for
pokayokay's patterns, for this interpreter only (its version and the regex engine's magic
number, code size and limits are the file's key: any other interpreter ignores the file and
writes its own). A hook loads it before its handler runs, so that its patterns are built by the
engine directly and ``re`` is never imported; after the handler, the programs of patterns that
had none are added (written atomically, at most :data:`MAX_PROGRAMS`). A missing, damaged or
foreign file only means ``re`` compiles, as it always did.
"""

from __future__ import annotations

import os
import sys

from pokayokay.infra import lazyre

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

FILE = "regex-programs-{event}.marshal"
MAX_PROGRAMS = 400
MAX_BYTES = 4 << 20


def interpreter_key() -> str:
    _sre: Any = __import__("_sre")

    return (f"{sys.implementation.cache_tag}:{sys.hexversion}:{_sre.MAGIC}:{_sre.CODESIZE}:"
            f"{_sre.MAXREPEAT}:{_sre.MAXGROUPS}")  # fmt: skip


def _path(state_home: str, event: str) -> str:
    if not event.isalnum():
        raise ValueError(f"not an event name: {event!r}")
    return os.path.join(state_home, FILE.format(event=event))


def _read(state_home: str, event: str) -> dict[tuple[str, int], lazyre.Program]:
    import marshal

    from pokayokay.infra.regular import read_regular

    try:
        data = read_regular(_path(state_home, event), MAX_BYTES)
        if len(data) > MAX_BYTES:
            return {}
        value: Any = marshal.loads(data)
    except (OSError, ValueError, EOFError, TypeError):
        return {}
    if not isinstance(value, dict) or value.get("key") != interpreter_key():
        return {}
    programs = value.get("programs")
    if not isinstance(programs, dict):
        return {}
    return {key: program for key, program in programs.items() if _valid(key, program)}


_INT = frozenset({int})


def _valid(key: object, program: object) -> bool:
    if not (isinstance(key, tuple) and len(key) == 2 and isinstance(key[0], str)
            and isinstance(key[1], int)):  # fmt: skip
        return False
    if not (isinstance(program, tuple) and len(program) == 5):
        return False
    flags, code, groups, groupindex, indexgroup = program
    return (isinstance(flags, int) and isinstance(code, list)
            and set(map(type, code)) <= _INT  # in C: a program is thousands of opcodes
            and isinstance(groups, int)
            and isinstance(groupindex, dict) and isinstance(indexgroup, tuple))  # fmt: skip


def load(state_home: str, event: str) -> None:
    """Hand lazyre the programs saved for ``event`` (none when the file is missing, damaged or
    foreign)."""
    lazyre.install_programs(_read(state_home, event))


def save(state_home: str, event: str) -> None:
    """Add the programs of patterns compiled since :func:`load` (nothing to do usually)."""
    new = lazyre.new_programs()
    if not new:
        return
    import marshal

    programs = _read(state_home, event)
    for key, program in new.items():
        if len(programs) >= MAX_PROGRAMS:
            break
        programs[key] = program
    data = marshal.dumps({"key": interpreter_key(), "programs": programs})
    from pokayokay.infra.spool import makedirs_private

    makedirs_private(state_home)
    path = _path(state_home, event)
    tmp = f"{path}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
    os.replace(tmp, path)
