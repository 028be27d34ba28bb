"""How a user might ask for an installed skill: ``pokayokay skills --asked`` (decision 0176).

A skill's description is written by its author, in the author's words, to say what it does; a
prompt is written by someone who needs it, in theirs. On projects nobody tuned it on, skill
suggestion lost most of its hits in that gap. ``/skill-phrases`` (``commands/skill-phrases.md``)
asks Claude to write, for each installed skill that has none, a few short requests a user might
type at the moment the skill is what they need, and hands them to ``pokayokay skills --asked``.
They are matched by skill suggestion as words of the skill's own
(:func:`pokayokay.relevance.skill_match. profile`), never shown, and a skill carrying them is judged
by the gate fitted on skills that have them (``pokayokay/relevance/gate_skills_asked.json``).

They live in one file of the state home, :data:`~pokayokay.names.SKILLS_ASKED_FILE`, shared by
every project: a skill is known by its name and its description (:func:`skill_key`), so a
skill installed in several projects is asked for once, and a description that changes leaves
the old phrases behind (the skill is listed again by ``--unasked``). Each write holds the file's
lock, reads it again, and replaces it whole; it then touches ``skills.changed``, so every
project's cached catalog is analysed again on its next prompt.
"""

from __future__ import annotations

import os

from pokayokay.errors import EXIT_OK, EXIT_USAGE, PokayokayError
from pokayokay.infra import Value
from pokayokay.names import SKILLS_ASKED_FILE, SKILLS_ASKED_LOCK

# A full check of the skill catalog may read the table inside the prompt hook (when the table
# changed since the catalog was cached): no typing, pathlib or hashlib import at run time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from pathlib import Path

    from pokayokay.skills.catalog import Skill

__all__ = [
    "SkillPhrases", "Table", "add_asked", "asked_for", "read_table", "skill_key", "unasked"
]  # fmt: skip

FORMAT = 1
NEWER = "written by a newer pokayokay"
# A larger file is not one pokayokay wrote: render_table keeps the newest entries that fit.
MAX_FILE_BYTES = 4 * 1024 * 1024
LOCK_TIMEOUT = 5.0

# key -> (the skill's name, its phrases, the write counter when they were last set)
Table = dict[str, tuple[str, tuple[str, ...], int]]


class SkillPhrases(Value):
    """What :func:`add_asked` did: the ``added``, ``unchanged`` and ``unknown`` names, the kinds
    of secret redacted, the exit code and the lines to print."""

    added: tuple[str, ...]
    unchanged: tuple[str, ...]
    unknown: tuple[str, ...]
    redacted: tuple[str, ...]
    exit_code: int
    message: str


def checksum(text: str) -> str:
    """Two checksums and the length of ``text`` (pure): not a cryptographic hash, which is not
    needed to tell one skill's descriptions, or phrase lists, apart (``hashlib`` costs a full
    catalog check 2.6 ms to import: OpenSSL's ``_hashlib``)."""
    from zlib import adler32, crc32

    data = text.encode("utf-8", "surrogatepass")
    return f"{crc32(data):08x}{adler32(data):08x}{len(data):x}"


def skill_key(name: str, description: str) -> str:
    """A skill's key in the table: its name and description, checksummed (an entry also keeps
    the name it is for) (pure)."""
    return checksum(f"{name}\n{description}")


def phrases_digest(asked: Sequence[str]) -> str:
    """What a cached catalog row keeps of the phrases it was analysed with: their checksum, not
    their text (the prompt reads every row); "" for none (pure)."""
    return checksum("\n".join(asked)) if asked else ""


def asked_path(environ: Mapping[str, str] | None = None) -> str:
    from pokayokay.infra.state import state_home_path

    home = state_home_path(None if environ is None else dict(environ))
    return os.path.join(home, SKILLS_ASKED_FILE)


def parse_table(text: str) -> Table:
    """The table a file's text holds; entries of the wrong shape are left out (pure).
    ValueError when the text is not JSON (:func:`table_problem` says whether it is all ours)."""
    return _parsed(text)[0]


def table_problem(text: str) -> str | None:
    """Why ``text`` is not wholly a table this version reads, or None: another format (a newer
    pokayokay's), another shape, or an entry :func:`parse_table` leaves out (pure). A writer
    keeps such a file aside before replacing it: nothing in it is lost."""
    return _parsed(text)[1]


def _parsed(text: str) -> tuple[Table, str | None]:
    from pokayokay.infra.lean_json import loads
    from pokayokay.relevance.asked import ASKED_CHARS, ASKED_MAX

    data = loads(text)
    skills = data.get("skills") if isinstance(data, dict) else None
    found = data.get("format") if isinstance(data, dict) else None
    out: Table = {}
    if isinstance(found, int) and not isinstance(found, bool) and found > FORMAT:
        problem = f"{NEWER} (format {found})"  # a newer pokayokay's: never written over
    elif found != FORMAT:
        problem = f"format {found!r}"
    elif not isinstance(skills, dict):
        problem = "no skills object"
    else:
        problem = None
    if not isinstance(skills, dict):
        return out, problem
    for key, entry in skills.items():
        name = entry.get("name") if isinstance(entry, dict) else None
        asked = entry.get("asked") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not isinstance(asked, list):
            problem = problem or f"entry {key!r} of another shape"
            continue
        order = entry.get("order", 0)
        kept = tuple(
            " ".join(p.split())[:ASKED_CHARS] for p in asked if isinstance(p, str) and p.strip()
        )[:ASKED_MAX]
        if list(kept) != asked or not isinstance(order, int):  # not as this version writes it
            problem = problem or f"entry {key!r} changed on reading"
        if kept:
            out[str(key)] = (name, kept, order if isinstance(order, int) else 0)
    return out, problem


def render_table(table: Table) -> str:
    """The file's text for ``table``: its newest entries, as many as fit in
    :data:`MAX_FILE_BYTES` (the oldest go first; phrases are written again by
    ``/skill-phrases``) (pure)."""
    import json

    def entry(key: str, name: str, asked: tuple[str, ...], order: int) -> str:
        value = {"name": name, "asked": list(asked), "order": order}
        return f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}"

    head, tail = f'{{\n "format": {FORMAT},\n "skills": {{\n', "\n }\n}\n"
    room = MAX_FILE_BYTES - len(head) - len(tail)
    kept: list[tuple[str, str]] = []
    for key, (name, asked, order) in sorted(table.items(), key=lambda kv: -kv[1][2]):
        line = entry(key, name, asked, order)
        size = len(line.encode("utf-8", "surrogatepass")) + 2  # and ",\n"
        if size > room:
            break
        room -= size
        kept.append((key, line))
    return head + ",\n".join(line for _key, line in sorted(kept)) + tail


def read_table(environ: Mapping[str, str] | None = None) -> Table:
    """The phrases of every skill asked for so far; empty when there is no file, and when it
    cannot be read or is damaged (suggestion goes on without them: the error is logged)."""
    from pokayokay.infra.regular import open_regular

    path = asked_path(environ)
    try:
        with open_regular(path) as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        return {}
    except OSError as exc:
        _log(f"cannot read {path}: {exc}; skills are matched without their phrases")
        return {}
    if len(data) > MAX_FILE_BYTES:
        _log(f"{path} is over {MAX_FILE_BYTES} bytes; skills are matched without their phrases")
        return {}
    try:
        return parse_table(data.decode("utf-8", "replace"))
    except (ValueError, RecursionError) as exc:
        _log(f"{path} is damaged ({exc}); skills are matched without their phrases")
        return {}


def _log(message: str) -> None:
    from pokayokay.infra.logs import log

    log(message)


def asked_for(table: Table, name: str, description: str) -> tuple[str, ...]:
    """The phrases kept for the skill ``name`` with ``description`` (none when its description
    changed since they were written)."""
    entry = table.get(skill_key(name, description))
    return entry[1] if entry is not None and entry[0] == name else ()


def unasked(skills: Iterable[Skill], table: Table) -> list[Skill]:
    """The skills Claude may invoke that have no phrases, in catalog order."""
    return [
        s
        for s in skills
        if s.model_invocable and s.description and not asked_for(table, s.name, s.description)
    ]


def _given(phrases_by_name: Mapping[str, str]) -> tuple[dict[str, list[str]], list[str]]:
    from pokayokay.relevance.asked import phrases

    given: dict[str, list[str]] = {}
    kinds: list[str] = []
    for name, text in phrases_by_name.items():
        found, redacted = phrases(text)
        kinds.extend(k for k in redacted if k not in kinds)
        if found:
            given[name] = found
    return given, kinds


def add_asked(
    phrases_by_name: Mapping[str, str],
    skills: Iterable[Skill],
    environ: Mapping[str, str] | None = None,
) -> SkillPhrases:
    """Add the phrases (one a line) of each skill named in ``phrases_by_name`` to the table,
    newest first; a name that is not one of ``skills`` (the project's catalog) is refused."""
    from pokayokay.infra.safe_write import (
        decode_text,
        encode_text,
        file_lock,
        read_bytes,
        write_atomic,
    )
    from pokayokay.infra.state import mark_skills_changed, private_folder
    from pokayokay.relevance.asked import merged

    given, kinds = _given(phrases_by_name)
    empty = [n for n in phrases_by_name if n not in given]
    by_name = {s.name: s for s in skills}
    unknown = tuple(n for n in given if n not in by_name)
    known = {n: p for n, p in given.items() if n in by_name}
    if not known:
        what = [f"no installed skill is named {', '.join(unknown)}"] if unknown else []
        what += [f"no phrase given for {', '.join(n or repr(n) for n in empty)}"] if empty else []
        message = f"Nothing added: {'; '.join(what) or 'no phrase given'}."
        return SkillPhrases((), (), unknown, tuple(kinds), EXIT_USAGE, message)
    from pathlib import Path

    path = Path(asked_path(environ))
    env = None if environ is None else dict(environ)
    added: list[str] = []
    unchanged: list[str] = []
    private_folder(path.parent, env)
    with file_lock(path.parent / SKILLS_ASKED_LOCK, LOCK_TIMEOUT):
        current = read_bytes(path)
        text = None
        try:
            text = decode_text(current, path) if current else None
            table, problem = _parsed(text) if text is not None else ({}, None)
        except (ValueError, RecursionError, PokayokayError):
            table, problem = {}, "not JSON"
        if text is not None and problem is not None:
            if problem.startswith(NEWER):  # never written over by this version
                message = f"Nothing added: {path} was {problem}."
                return SkillPhrases((), (), unknown, tuple(kinds), EXIT_USAGE, message)
            _keep_damaged(path)  # what this version cannot read is kept, never overwritten
        order = max((entry[2] for entry in table.values()), default=0)
        for name, new in known.items():
            skill = by_name[name]
            key = skill_key(skill.name, skill.description)
            old = asked_for(table, skill.name, skill.description)
            asked = merged(new, old)
            if asked == old:
                unchanged.append(name)
                continue
            order += 1
            table[key] = (skill.name, asked, order)
            added.append(name)
        if added:
            write_atomic(path, encode_text(render_table(table)))
    if added:
        mark_skills_changed(env)
    lines = []
    if added:
        lines.append(f"Noted how a user might ask for {len(added)} skill(s): {', '.join(added)}.")
    if unchanged:
        lines.append(f"Unchanged: {', '.join(unchanged)} already had these.")
    if unknown:
        lines.append(f"Not installed here, left out: {', '.join(unknown)}.")
    if empty:
        lines.append(f"No phrase given for {', '.join(n or repr(n) for n in empty)}.")
    return SkillPhrases(
        tuple(added), tuple(unchanged), unknown, tuple(kinds), EXIT_OK, "\n".join(lines)
    )


def _keep_damaged(path: Path) -> None:
    """A damaged table is kept beside it before it is replaced: nothing is ever lost."""
    import contextlib
    import time

    with contextlib.suppress(OSError):  # it vanished meanwhile: nothing to keep
        os.replace(path, path.with_name(f"{path.name}.damaged-{time.time_ns()}"))
