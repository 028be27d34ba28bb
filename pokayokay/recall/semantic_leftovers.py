"""What the retired semantic recall left behind, found and removed (decision 0142).

The ``pokayokay[semantic]`` extra is gone: it cost 11.5-13 times a Python start per prompt, on
the dev split its gate decided exactly as the lexical one, and over every labelled set it added
3 hits for 6 silences. While it existed it wrote derived files only,
never anything a person wrote: the model fetched into ``<state home>/models/all-MiniLM-L6-v2``
(about 90 MB; a fetch that was killed left a ``models/.fetch-*`` work folder beside it) and, in
each project's state folder, the notes' vectors (``semantic-vectors.bin``) and the settings'
resolved mode (``semantic-mode.json``). Nothing reads them now.

:func:`leftovers` lists those files with their sizes (for ``doctor``, ``status`` and
``pokayokay semantic``); :func:`remove` deletes exactly the ones it is given
(``pokayokay semantic remove``, which prints them first). A symbolic link among them is removed
as a link, never what it points to; nothing outside the state folder is touched.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pokayokay.infra.state import state_home_path
from pokayokay.names import (
    MODELS_DIR,
    SEMANTIC_MODE_FILE,
    SEMANTIC_MODEL_DIR,
    SEMANTIC_VECTORS_FILE,
)

DECISION = "docs/decisions/0142-semantic-extra-retired.md"
REMOVE_COMMAND = "pokayokay semantic remove"
# The work folders an interrupted `semantic fetch` left in the models folder.
FETCH_PREFIX = ".fetch-"
# What each kind of leftover was, as the lines listing them say it.
MODEL, DOWNLOAD, VECTORS, MODE = (
    "the semantic model",
    "an interrupted model download",
    "note vectors",
    "the semantic mode cache",
)


@dataclass(frozen=True)
class Leftover:
    """One file or folder the semantic extra left: where, how many bytes, and what it was."""

    path: str
    size: int
    what: str


def _size(path: str) -> int:
    """The bytes of a file, or of every file under a folder (links not followed: a link counts
    as itself)."""
    try:
        top = os.lstat(path)
    except OSError:
        return 0
    if os.path.islink(path) or not os.path.isdir(path):
        return top.st_size
    total = 0
    for folder, _dirs, files in os.walk(path, followlinks=False):
        for name in files:
            try:
                total += os.lstat(os.path.join(folder, name)).st_size
            except OSError:
                continue  # gone while we looked: it costs no space
    return total


def _entries(folder: str) -> list[os.DirEntry[str]]:
    """The entries of ``folder``, sorted by name; none when it does not exist or is no folder."""
    try:
        with os.scandir(folder) as found:
            return sorted(found, key=lambda entry: entry.name)
    except (FileNotFoundError, NotADirectoryError):
        return []


def leftovers(environ: Mapping[str, str] | None = None) -> list[Leftover]:
    """Every file the semantic extra left in the state home (the one ``environ`` names),
    the model first, then each project's in the order of their folders' names."""
    home = state_home_path(dict(environ) if environ is not None else None)
    models = os.path.join(home, MODELS_DIR)
    found: list[Leftover] = []
    model = os.path.join(models, SEMANTIC_MODEL_DIR)
    if os.path.lexists(model):
        found.append(Leftover(model, _size(model), MODEL))
    for entry in _entries(models):
        if entry.name.startswith(FETCH_PREFIX):
            found.append(Leftover(entry.path, _size(entry.path), DOWNLOAD))
    for project in _entries(os.path.join(home, "projects")):
        if not project.is_dir(follow_symlinks=False):
            continue
        for name, what in ((SEMANTIC_VECTORS_FILE, VECTORS), (SEMANTIC_MODE_FILE, MODE)):
            path = os.path.join(project.path, name)
            if os.path.lexists(path):
                found.append(Leftover(path, _size(path), what))
    return found


def remove(found: Iterable[Leftover]) -> tuple[list[Leftover], list[tuple[Leftover, str]]]:
    """Delete exactly the leftovers ``found``: (those removed, those that could not be, each
    with the reason). A folder goes with everything in it (the model's files), a link as a
    link. The models folder itself goes when nothing else is left in it."""
    removed: list[Leftover] = []
    failed: list[tuple[Leftover, str]] = []
    folders: set[str] = set()
    for item in found:
        try:
            if os.path.isdir(item.path) and not os.path.islink(item.path):
                shutil.rmtree(item.path)
            else:
                os.unlink(item.path)
        except FileNotFoundError:
            removed.append(item)  # already gone: what was asked for is true
        except OSError as exc:
            failed.append((item, f"{type(exc).__name__}: {exc.strerror or exc}"))
        else:
            removed.append(item)
        if item.what in (MODEL, DOWNLOAD):
            folders.add(os.path.dirname(item.path))
    for folder in folders:
        try:
            os.rmdir(folder)  # only when empty: anything else kept there stays
        except OSError:
            continue  # not empty, or gone: either way nothing of ours is left in it
    return removed, failed


def size_text(size: int) -> str:
    """``size`` bytes for a person: ``512 bytes``, ``3.4 kB``, ``90.9 MB``."""
    if size < 1000:
        return f"{size} byte{'' if size == 1 else 's'}"
    if size < 999_950:
        return f"{size / 1e3:.1f} kB"
    return f"{size / 1e6:.1f} MB"


def retired_line(found: Iterable[Leftover]) -> str:
    """The one line every ``pokayokay semantic`` command prints: retired, why, and what to
    delete to get the space back (with what is left here)."""
    items = list(found)
    total = sum(item.size for item in items)
    here = (
        f"{len(items)} of them here, {size_text(total)}" if items else "none of them is left here"
    )
    return (
        "semantic recall was retired (decision 0142): it cost 11.5-13 times a Python start on "
        "every prompt and decided as lexical recall does on the dev split; to get the space "
        "back delete "
        f"the model folder {MODELS_DIR}/{SEMANTIC_MODEL_DIR} in the state folder and each "
        f"project's {SEMANTIC_VECTORS_FILE} ({here}), or run `{REMOVE_COMMAND}`"
    )


def leftover_line(found: Iterable[Leftover]) -> str | None:
    """One line for ``status`` and ``doctor``: how many leftovers, how large, and the command
    that deletes them; None when there are none."""
    items = list(found)
    if not items:
        return None
    total = sum(item.size for item in items)
    return (
        f"the retired semantic recall left {len(items)} derived file"
        f"{'' if len(items) == 1 else 's'} ({size_text(total)}); `{REMOVE_COMMAND}` deletes "
        "them (your learnings are not among them)"
    )
