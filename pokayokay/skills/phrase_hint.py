"""Telling the user, once, that skills visible in a project have no phrases yet (decision 0178).

Skill suggestion finds a skill far more often when Claude has written how a user might ask for
it (``/skill-phrases``, decision 0176: on unread splits, hit 0.54 -> 0.73 at higher silence).
Nothing runs ``/skill-phrases`` by itself, so a skill installed after it ran goes without them
until someone thinks of running it again.

* **SessionEnd** (its full freshness check has the catalog in hand) keeps the keys and names of
  the skills Claude may invoke here that have no phrases: :data:`UNASKED_FILE` in the project's
  state folder, written only when they change (:func:`note_unasked`).
* **SessionStart** reads that small file and, when it names a skill not mentioned before, says
  so to the user in one line (a ``systemMessage``: shown to the user, never to the model), then
  keeps a copy of that file's text (:data:`HINTED_FILE`): a skill is mentioned once, and again
  only when its description changes (its key changes; its old phrases no longer apply). A
  session start compares the two texts and parses nothing unless SessionEnd's file changed.

No pathlib on SessionStart's path unless a line is shown (decision 0124).
"""

from __future__ import annotations

import os

from pokayokay.names import SKILLS_UNASKED_FILE as UNASKED_FILE
from pokayokay.names import SKILLS_UNASKED_HINTED_FILE as HINTED_FILE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from pokayokay.skills.asked import Table
    from pokayokay.skills.catalog import Skill

__all__ = [
    "HINTED_FILE", "UNASKED_FILE", "hint_text", "note_unasked", "session_hint", "unasked_here"
]  # fmt: skip

FORMAT = 1
MAX_FILE_BYTES = 1 << 20  # far more than any catalog's names: a larger file is not ours
NAMES_SHOWN = 3
NAME_CHARS = 40


def hint_text(new: Iterable[str], total: int) -> str:
    """The line for the user: how many skills visible here have no phrases, the first few of
    those not mentioned before (``new``, in catalog order), and what writes them (pure). Names
    come from SKILL.md files: only printable characters are kept, each cut to
    :data:`NAME_CHARS`."""
    names = [_printable(n)[:NAME_CHARS] for n in new]
    shown = ", ".join(names[:NAMES_SHOWN])
    more = f" and {len(names) - NAMES_SHOWN} more" if len(names) > NAMES_SHOWN else ""
    counted = f"{total} skill{'s' if total != 1 else ''} visible here"
    verb = "has" if total == 1 else "have"
    which = f"{len(names)} of them new: " if len(names) < total else ""
    return (
        f"pokayokay: {counted} {verb} no phrases yet ({which}{shown}{more}), so suggestions "
        "find them by their descriptions alone. Run /skill-phrases once "
        "(/pokayokay:skill-phrases with the plugin): Claude writes how you might ask for each."
    )


def _printable(text: str) -> str:
    return "".join(c for c in " ".join(text.split()) if c.isprintable())


def unasked_here(
    project: str | os.PathLike[str],
    environ: Mapping[str, str] | None = None,
    *,
    use_cache: bool = True,
) -> tuple[list[Skill], int]:
    """The skills visible in ``project`` that Claude may invoke and that have no phrases, and
    how many it may invoke there (for ``status``, ``doctor`` and ``init``; ``use_cache``: read
    and keep the project's cached catalog). OSError when the skills cannot be listed."""
    from pokayokay.skills.asked import read_table, unasked
    from pokayokay.skills.catalog import load_catalog

    catalog = load_catalog(project, environ, use_cache=use_cache)
    invocable = [s for s in catalog if s.model_invocable and s.description]
    return unasked(invocable, read_table(environ)), len(invocable)


def note_unasked(state_dir: str, skills: Iterable[Skill], table: Table) -> None:
    """Keep the skills of ``skills`` (a project's catalog) that Claude may invoke and that have
    no phrases in ``table``, in catalog order, for the next SessionStart; the file is written
    only when what it holds changes."""
    from pokayokay.infra.lean_json import dumps
    from pokayokay.skills.asked import skill_key, unasked

    found = {skill_key(s.name, s.description): s.name for s in unasked(skills, table)}
    text = dumps({"format": FORMAT, "skills": found})
    if _text(os.path.join(state_dir, UNASKED_FILE)) != text:  # compared as text: no parse
        _write(state_dir, UNASKED_FILE, text)


def session_hint(state_dir: str) -> str:
    """SessionStart's line for the user, "" when every skill without phrases was mentioned
    before (or none lacks them). What the SessionEnd file held is then kept as mentioned: a
    skill given phrases meanwhile drops out, and is mentioned again if its description changes
    later and it has none for the new one."""
    unasked_text = _text(os.path.join(state_dir, UNASKED_FILE))
    hinted_text = _text(os.path.join(state_dir, HINTED_FILE))
    if unasked_text == hinted_text:  # the same file's text: nothing new (nor anything to parse)
        return ""
    found, hinted = _parsed(unasked_text), _parsed(hinted_text)
    new = [name for key, name in found.items() if key not in hinted]
    _write(state_dir, HINTED_FILE, unasked_text)  # once a change: later starts compare texts
    return hint_text(new, len(found)) if new else ""


def _text(path: str) -> str:
    """The file's text; "" when it is missing, unreadable or too large."""
    from pokayokay.infra.regular import read_regular

    try:
        data = read_regular(path, MAX_FILE_BYTES)
    except OSError:
        return ""
    return "" if len(data) > MAX_FILE_BYTES else data.decode("utf-8", "replace")


def _parsed(text: str) -> dict[str, str]:
    """The ``skills`` object of one of the two files' text (key -> name); empty when the file
    was missing, unreadable, too large or not of this format (it is then written again whole)."""
    from pokayokay.infra.lean_json import loads

    if not text:
        return {}
    try:
        parsed = loads(text)
    except (ValueError, RecursionError):
        return {}
    skills = parsed.get("skills") if isinstance(parsed, dict) else None
    if not isinstance(skills, dict) or parsed.get("format") != FORMAT:
        return {}
    return {str(k): v for k, v in skills.items() if isinstance(v, str)}


def _write(state_dir: str, name: str, text: str) -> None:
    from pathlib import Path

    from pokayokay.infra.safe_write import encode_text, write_atomic
    from pokayokay.infra.state import private_folder

    private_folder(state_dir)
    write_atomic(Path(state_dir, name), encode_text(text))
