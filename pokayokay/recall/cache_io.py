"""The recall cache's file I/O and row format, shared by the sources and the fix episodes."""

from __future__ import annotations

import json
import os

from pokayokay.recall.index import Document

TYPE_CHECKING = False  # the prompt hook imports this module
if TYPE_CHECKING:
    from typing import Any

MAX_TEXT_CHARS = 2000


def _shown(text: str) -> str:
    """The text a finding will show, sanitised now (on read) and clipped for the block."""
    from pokayokay.recall.block import safe_text

    return safe_text(text[: MAX_TEXT_CHARS * 4])


def _row(doc: Document, counts: dict[str, int]) -> list[Any]:
    return [doc.id, doc.kind, doc.label, doc.text, doc.weight, doc.clean, counts]


def _load_json(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return None


def _unlink(path: str) -> None:
    try:  # noqa: SIM105 - contextlib is one more import on the prompt path
        os.unlink(path)
    except OSError:
        pass


# The recall index is the one large file a prompt reads (~1 MB at 2,000 learnings): it is kept in
# ``marshal``'s format, which loads about six times faster than JSON. The header names the format
# and the interpreter that wrote it; anything else reads as a missing cache. The file is pokayokay's
# own, private to the user, like every cache here (and, like them, trusted to hold sanitised text).
_PACKED_MAGIC = b"pokayokay-marshal-1 "


def _packed_header() -> bytes:
    import marshal
    import sys

    version = f"{sys.version_info[0]}.{sys.version_info[1]}:{marshal.version}"
    return _PACKED_MAGIC + f"{version}\n".encode()


def _load_packed(path: str) -> Any:
    """What :func:`_save_packed` wrote at ``path``, or None (missing, damaged, another format)."""
    import marshal

    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except (OSError, ValueError):
        return None
    header = _packed_header()
    if not data.startswith(header):
        return None
    try:
        return marshal.loads(memoryview(data)[len(header) :])
    except (EOFError, ValueError, TypeError):
        return None


def _save_packed(path: str, data: dict[str, Any]) -> None:
    """Atomically replace ``path`` with ``data`` (plain values only), private to the user."""
    import marshal

    try:
        payload = _packed_header() + marshal.dumps(data)
    except ValueError:  # not plain values: no cache (a bug, but only a slower prompt)
        return
    _write_private(path, payload)


def _write_private(path: str, payload: bytes) -> None:
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with open(fd, "wb") as fh:
            fh.write(payload)
        os.replace(tmp, path)
    except OSError:
        _unlink(tmp)


def _save_json(path: str, data: object) -> None:
    """Atomically replace ``path``; a cache that cannot be written is only a slower prompt.

    ASCII JSON (file names may carry surrogate escapes), private to the user like the rest of
    the state folder (it quotes memory files).
    """
    text = json.dumps(data, separators=(",", ":"))  # the C encoder: fast
    _write_private(path, text.encode("ascii"))
