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


def _save_json(path: str, data: object) -> None:
    """Atomically replace ``path``; a cache that cannot be written is only a slower prompt.

    ASCII JSON (file names may carry surrogate escapes), private to the user like the rest of
    the state folder (it quotes memory files).
    """
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        text = json.dumps(data, separators=(",", ":"))  # the C encoder: fast
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with open(fd, "w", encoding="ascii") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except OSError:
        _unlink(tmp)


