"""How a teammate might ask for a stored learning: ``pokayokay remember --asked NAME``.

After ``/remember`` stores a learning, Claude is asked to write a few short requests or
questions a teammate might type when that learning is what they need, in their own words
(``commands/remember.md``). They are kept in the learning's frontmatter (``metadata.asked``),
matched by recall and never shown: they bridge the words a prompt uses and the words the note
uses, the gap where recall lost most of its hits on projects nobody tuned it on (decision 0175).
A note carrying them is judged by the gate fitted on notes that have them
(``pokayokay/relevance/gate_recall_asked.json``).

Each phrase is cleaned as :mod:`pokayokay.relevance.asked` says (one line, cut, redacted of
secrets) before anything is written; the newest come first, at most
:data:`~pokayokay.relevance.asked.ASKED_MAX`. The file is rewritten with a
compare-and-swap under the learnings lock, as a reinforcement rewrites it: an edit made
meanwhile is read again, never overwritten.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, NamedTuple

from pokayokay.errors import EXIT_OK, EXIT_USAGE
from pokayokay.learnings.model import NAME_MAX
from pokayokay.relevance.asked import merged, phrases

if TYPE_CHECKING:
    from pokayokay.infra.locate import MemoryLocation

__all__ = ["AskedResult", "add_asked", "addressable", "merged", "phrases"]

_NAME = re.compile(rf"[a-z0-9][a-z0-9-]{{0,{NAME_MAX - 1}}}")  # a learning's name, as made


def addressable(name: str) -> bool:
    """Whether ``--asked NAME`` can find the learning of the file ``learning-NAME.md``."""
    return _NAME.fullmatch(name) is not None


class AskedResult(NamedTuple):
    """What :func:`add_asked` did: ``status`` ``added``, ``unchanged``, ``none_given`` or
    ``unknown``; ``redacted``: the kinds of secret taken out of the phrases."""

    status: str
    message: str
    exit_code: int
    redacted: tuple[str, ...] = ()


def add_asked(
    name: str,
    text: str,
    location: MemoryLocation,
    environ: Mapping[str, str] | None = None,
) -> AskedResult:
    """Add the phrases of ``text`` (one a line) to the learning ``name`` of ``location``."""
    from dataclasses import replace

    from pokayokay.errors import PokayokayError
    from pokayokay.infra.safe_write import (
        encode_text,
        file_lock,
        replace_if_unchanged,
        with_retries,
    )
    from pokayokay.learnings.capture.remember_store import LOCK_TIMEOUT, learnings_lock
    from pokayokay.learnings.model import file_name_for
    from pokayokay.learnings.topics.stored import read_stored
    from pokayokay.learnings.topics.topic_file import render

    if not addressable(name):
        return AskedResult(
            "unknown", f"Nothing added: {name!r} is not a learning's name.", EXIT_USAGE
        )
    given, kinds = phrases(text)
    redacted = tuple(kinds)
    if not given:
        return AskedResult("none_given", "Nothing added: no phrase was given.", EXIT_USAGE)
    path = location.memory_dir / file_name_for(name)

    def step(_attempt: int) -> AskedResult:
        stored = read_stored(path)
        if stored is None:
            return AskedResult("unknown", f"Nothing added: no learning named {name}.", EXIT_USAGE)
        learning = stored.learning
        asked = merged(given, learning.asked)
        if asked == learning.asked:
            return AskedResult("unchanged", f"Unchanged: {name} already had these.", EXIT_OK)
        data = encode_text(render(replace(learning, asked=asked)))
        replace_if_unchanged(path, stored.data, data)
        count = len(asked)
        return AskedResult(
            "added", f"Noted {count} way{'s' * (count != 1)} to ask for {name}.", EXIT_OK
        )

    try:
        with file_lock(learnings_lock(location, environ), LOCK_TIMEOUT):
            result = with_retries(step, what=str(path))
    except OSError as exc:
        raise PokayokayError(f"cannot write {path} ({exc}); nothing was changed") from None
    if result.status == "added":
        from pokayokay.infra.state import mark_memory_changed

        mark_memory_changed(str(location.project_key), None if environ is None else dict(environ))
    return result._replace(redacted=redacted)
