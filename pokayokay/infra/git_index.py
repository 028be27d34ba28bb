"""Whether git's index surely holds none of some paths, read from the index file itself (no
git process, no ``subprocess``).

The capture keeps a path a failure names only when the file exists, in the work tree or in
git's index (``pokayokay.failures.evidence_paths.WorkTree``: ``git ls-files --cached`` for the
names the work tree lacks). Most of those names (build products, module names, words of the
output) are in neither, and asking git costs a fork, git's start and the ``subprocess`` import
on every failure that names one (about half a ``python -c pass``). :func:`surely_untracked`
answers True only when the answer is plain from the index file: the repository has no index
yet, or its index is laid out as versions 2 and 3 lay it out (each entry's whole path followed
by a NUL byte) and no path's bytes followed by a NUL occur in it where an entry's path
can begin (after the entry's flags, which hold the path's length). Everything else
(index version 4's compressed paths, a split or sparse index, a ``.git`` file, git's location
variables set, a path that is not plain ASCII, an index too large to read) answers False, and
the caller asks git as before. True is exact: an entry named ``p`` holds ``p`` and a NUL right
after its flags, so when no such bytes are there no entry is named ``p`` and ``ls-files`` lists
nothing for it.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

# git's variables that move the repository, its index or its work tree away from ``<root>/.git``.
GIT_LOCATION_VARIABLES = (
    "GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY",
    "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM",
)  # fmt: skip
# An index larger than this is left to git (reading it whole would cost more than asking).
MAX_INDEX_BYTES = 32 << 20
_SIGNATURE = b"DIRC"
_PLAIN_VERSIONS = (2, 3)


def surely_untracked(root: str, rels: Iterable[str], environ: Mapping[str, str]) -> bool:
    """True when the index of the repository at ``root`` (whose ``.git`` folder is
    ``<root>/.git``) holds no entry named any of ``rels`` (project-relative POSIX paths);
    False when it may (then ask git). ``environ``: the environment git would run with."""
    if any(name in environ for name in GIT_LOCATION_VARIABLES):
        return False
    wanted: list[bytes] = []
    for rel in rels:
        if not rel.isascii() or "\0" in rel:
            return False  # git may spell it otherwise (precomposed unicode, quoting)
        wanted.append(rel.encode("ascii") + b"\0")
    git_dir = os.path.join(root, ".git")
    if not os.path.isdir(git_dir) or os.path.islink(git_dir):
        return False
    try:
        names = os.listdir(git_dir)
    except OSError:
        return False
    if any(name.startswith("sharedindex.") for name in names):
        return False  # a split index: entries live in another file too
    if os.path.exists(os.path.join(git_dir, "info", "sparse-checkout")):
        return False  # a sparse index may hold a folder for the files under it
    if "index" not in names:
        return True  # no index yet: nothing is cached
    try:
        with open(os.path.join(git_dir, "index"), "rb") as fh:
            if os.fstat(fh.fileno()).st_size > MAX_INDEX_BYTES:
                return False
            data = fh.read()
    except OSError:
        return False
    if len(data) < 12 or data[:4] != _SIGNATURE:
        return False
    version = int.from_bytes(data[4:8], "big")
    if version not in _PLAIN_VERSIONS:
        return False
    return not any(_may_be_entry(data, name, version) for name in wanted)


def _may_be_entry(data: bytes, name: bytes, version: int) -> bool:
    """Whether some occurrence of ``name`` (a path and its NUL) in ``data`` may be an entry's
    path: an entry's path follows its 16-bit flags, whose low 12 bits are the path's length
    (0xFFF for a longer one), or in version 3 its extended flags (two bits of the high byte
    set at most, none of the rest). Any other occurrence is the end of a longer path, or a
    name in an extension (the cached tree's folder names)."""
    size = min(len(name) - 1, 0xFFF)
    at = data.find(name, 12)
    while at != -1:
        flags = int.from_bytes(data[at - 2 : at], "big")
        if flags & 0xFFF == size or (version == 3 and flags & ~0x6000 == 0):
            return True
        at = data.find(name, at + 1)
    return False
