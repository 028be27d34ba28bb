"""The relevance vocabulary as data (pure reading, standard library only).

Each ``*.tsv`` file beside this module is one table, one entry a line, with a header:
``group  kind  entry  class  source  example``.

* ``group`` — what the entry means: a concept (``concepts.tsv``), the terms a skill phrase adds
  (``skill_evokes.tsv``), the word a synonym folds onto (``synonyms.tsv``), or ``weak`` /
  ``generic`` for the low-weight word lists.
* ``kind`` — ``word`` (matched whole) or ``phrase`` (several words, or a spelling matched as
  written); ``entry`` is the word or phrase, ``?`` in front marking an ambiguous concept word.
* ``class``, ``source``, ``example`` — its provenance, as ``scripts/audit_vocabulary.py`` found
  it: where the entry occurs outside the evaluation prompts (a note, a ``SKILL.md``) and the
  sentence that holds it, or which split's prompts hold it, or ``unattested`` (general
  vocabulary).

The files ship in the wheel (they are inside the package) and are read with :mod:`os.path`
(no ``pathlib`` import on the prompt path), as the fitted gates are. A table is read once per
process and only when first needed; what is derived from it (parsed concepts, analysed terms)
is kept by the recall and skills caches, which are keyed by :func:`stamp`: the file's size and
modification time, one ``stat`` and nothing parsed, as CPython keys the bytecode cache of the
modules themselves (docs/decisions/0129: parsing the tables to check the key cost a prompt
about 3 ms).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["Entry", "LazyWords", "entries", "mapping", "stamp", "table_text", "words"]

_FOLDER = os.path.dirname(os.path.abspath(__file__))
_read: dict[str, tuple[Entry, ...]] = {}
_texts: dict[str, str] = {}


class Entry:
    """One line of a vocabulary file (its provenance columns are read only by the audit)."""

    __slots__ = ("group", "kind", "text")

    def __init__(self, group: str, kind: str, text: str) -> None:
        self.group, self.kind, self.text = group, kind, text


def path(name: str) -> str:
    """The file of table ``name`` (``concepts``, ``skill_evokes``, ``synonyms`` …)."""
    return os.path.join(_FOLDER, f"{name}.tsv")


def entries(name: str) -> tuple[Entry, ...]:
    """The entries of table ``name``, in file order (read once per process)."""
    found = _read.get(name)
    if found is None:
        with open(path(name), encoding="utf-8") as file:
            rows = file.read().splitlines()[1:]
        found = tuple(Entry(*row.split("\t", 3)[:3]) for row in rows if row)
        _read[name] = found
    return found


def stamp(name: str) -> str:
    """What the caches of things derived from table ``name`` are keyed by: its file's size and
    modification time (nanoseconds) with pokayokay's version; one ``stat``, nothing read.
    ``""`` when the file cannot be stat-ed (no cache then matches: the table is read)."""
    from pokayokay import __version__

    try:
        info = os.stat(path(name))
    except OSError:
        return ""
    return f"{__version__} {name} {info.st_size} {info.st_mtime_ns}"


class LazyWords:
    """The entries of word list ``name``, read when first iterated (not when made)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __iter__(self) -> Iterator[str]:
        return iter(words(self.name))


def words(name: str) -> tuple[str, ...]:
    """The entries of a word list (``weak_words``, ``skill_generic``)."""
    return tuple(entry.text for entry in entries(name))


def mapping(name: str) -> dict[str, str]:
    """Entry -> group of a folding table (``synonyms``: ``db`` -> ``database``)."""
    return {entry.text: entry.group for entry in entries(name)}


def table_text(name: str) -> str:
    """Table ``name`` as "group: word word | a phrase | another phrase" lines, one group a line
    in order of first appearance: the text the concept parsers read."""
    text = _texts.get(name)
    if text is None:
        groups: dict[str, tuple[list[str], list[str]]] = {}
        for entry in entries(name):
            held = groups.setdefault(entry.group, ([], []))
            held[0 if entry.kind == "word" else 1].append(entry.text)
        text = "".join(
            f"{group}: {' '.join(ws)}{''.join(f' | {p}' for p in ps)}\n"
            for group, (ws, ps) in groups.items()
        )
        _texts[name] = text
    return text
