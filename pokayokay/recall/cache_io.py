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


def _load_packed(path: str) -> Any:
    """The recall index file (``pokayokay.infra.packed``: marshal's format, ~6x faster to load
    than JSON at 2,000 learnings), or None."""
    from pokayokay.infra import packed

    return packed.load(path)


def _save_packed(path: str, data: dict[str, Any]) -> None:
    from pokayokay.infra import packed

    packed.save(path, data)


def _save_json(path: str, data: object) -> None:
    """Atomically replace ``path``; a cache that cannot be written is only a slower prompt.

    ASCII JSON (file names may carry surrogate escapes), private to the user like the rest of
    the state folder (it quotes memory files).
    """
    from pokayokay.infra.packed import write_private

    text = json.dumps(data, separators=(",", ":"))  # the C encoder: fast
    write_private(path, text.encode("ascii"))
