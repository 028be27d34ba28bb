"""Where a memory file holds what looks like a secret (pure).

Claude Code loads MEMORY.md into every session and a topic or archive file whenever Claude opens
it, so a token written there (by Claude, by a person, or pasted with a note) reaches the model
again and again, and curation may move the entry that holds it into an archive file. pokayokay
never edits text it did not write (nothing is ever lost), so it does not redact these: ``doctor``
names each place, by file, line and kind (:func:`secret_lines`), never the value itself, for a
person to remove.
"""

from __future__ import annotations

from pokayokay.safety.redact import redacted_kinds

__all__ = ["secret_lines"]


def secret_lines(text: str) -> list[tuple[int, list[str]]]:
    """``(line number, kinds)`` for each line of ``text`` in which
    :func:`pokayokay.safety.redact.redact` finds a secret, in order (numbers from 1)."""
    found: list[tuple[int, list[str]]] = []
    for number, line in enumerate(text.splitlines(), 1):
        kinds = redacted_kinds(line)
        if kinds:
            found.append((number, kinds))
    return found
