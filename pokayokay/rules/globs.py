"""``paths:`` globs for rule files: deriving them from evidence, and matching them like Claude Code.

Claude Code (2.1.330, interfaces doc §2.3) reads a rule's ``paths:`` as a YAML list, or as one
string split at its top-level commas (quotes inside such a string stay literal); expands brace
groups; strips a trailing ``/**`` from each pattern; and matches the file path relative to the
folder holding ``.claude/`` with gitignore semantics: case-insensitive, a leading ``/`` anchors to
the project root, a pattern without a slash matches at any depth, ``*`` does not cross ``/``, and
a path matches when one of its parent folders does. :func:`claude_matches` answers exactly that; it
is a thin wrapper over :mod:`pokayokay.rules.claude_match`, the one place pokayokay reproduces
Claude
Code's matcher (``pokayokay rules match`` uses the same code).

:func:`derive_globs` turns evidence paths (failure paths and fix paths, project-relative) into a
short, sorted list of root-anchored globs:

1. **Per folder holding evidence files.** One file gives ``/dir/file.py``. Several files sharing a
   suffix give ``/dir/*.py`` (``/dir/*.test.ts`` for a longer shared suffix), unless that glob
   also picks up many project files that are not evidence (more than ``max(3, 2 × evidence)``);
   then ``/dir/**`` (everything under the folder) under the same condition; then the files one by
   one (at most :data:`MAX_LISTED_FILES`); failing all of those, the suffix glob or ``/dir/**``
   anyway. At the project root only file and suffix globs are used: nothing root-wide.
2. **Common ancestors.** An ancestor folder replaces the globs under it with ``/ancestor/**`` only
   where the evidence spans subfolders of it (two or more of its child folders, or the folder
   itself and a child folder), never at the root, and only when ``/ancestor/**`` matches no
   project file in an *unrelated* folder. A folder is related to the evidence when it is an
   evidence folder, an ancestor of one, or lies below a non-root evidence folder; every other
   folder (a sibling of an evidence folder or of one of its ancestors, say) is unrelated.
   Deepest ancestors first.
3. **Too many globs.** Above :data:`MAX_GLOBS`, the deepest ancestors holding several globs are
   merged even past the unrelated-folder check; if only the root would do, the evidence is
   project-wide.
4. **Project-wide.** Evidence in :data:`PROJECT_WIDE_FOLDERS` or more top-level folders, which
   are also at least half of the project's top-level folders, gives ``()``: the rule gets no
   ``paths:`` and loads at session start.

Why ``/dir/**``: Claude Code strips the trailing ``/**`` and matches ``/dir``, which in gitignore
semantics is the folder and therefore everything below it; git and pathspec read ``/dir/**`` as
"everything inside dir". The two agree on every file under the folder, which is what the rule is
for (``/dir/`` would work in both too; ``/dir/**`` says what it means).

Characters that would change a glob's meaning, or could smuggle text into a rule file (glob and
brace syntax, commas, quotes, backslashes, spaces, angle brackets, control characters and other
non-letter Unicode), are written as ``?``, one character in both engines; characters outside the
Basic Multilingual Plane as ``*`` (Claude Code counts them as two characters, pathspec as one).
Letters and digits of any script are kept. Every glob set is then verified with pathspec
(``GitIgnoreSpec``: gitignore as git has it) and with :func:`claude_matches` against every
evidence path it stands for; unrelated files are judged with both engines. The result is
deterministic and independent of the order of both inputs.
"""

from __future__ import annotations

import re
import unicodedata
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "MAX_GLOBS",
    "PROJECT_WIDE_FOLDERS",
    "claude_matcher",
    "claude_matches",
    "derive_globs",
    "escape_name",
    "listed_globs",
    "normalise_path",
    "pathspec_matches",
]

MAX_GLOBS = 8
PROJECT_WIDE_FOLDERS = 4
MAX_LISTED_FILES = 5

# --------------------------------------------------------------------------------------------
# Claude Code's matching (one implementation: pokayokay.rules.claude_match)


def normalise_path(path: str) -> str | None:
    """A project-relative POSIX path without ``./`` or empty parts; None outside the project."""
    if not path or "\0" in path or "\n" in path:
        return None
    if path.startswith("/") or re.match(r"^[A-Za-z]:[\\/]", path):
        return None
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        return None
    return "/".join(parts)


def claude_matcher(globs: str | Sequence[Any]) -> Callable[[str], bool]:
    """:func:`claude_matches` for one ``paths:`` value, compiled once (for many paths)."""
    from pokayokay.rules.claude_match import Matcher, normalise_patterns

    if not globs:
        return lambda rel_path: True
    patterns = normalise_patterns(globs if isinstance(globs, str) else list(globs))
    if not patterns:
        return lambda rel_path: True
    matcher = Matcher(patterns)
    return matcher.matches


def claude_matches(globs: str | Sequence[Any], rel_path: str) -> bool:
    """Would Claude Code load a rule with this ``paths:`` value when Claude reads ``rel_path``?

    ``rel_path`` is relative to the folder that holds ``.claude/``; a path outside it never
    matches. An empty value (no ``paths:``, as for a project-wide rule from :func:`derive_globs`)
    and a value Claude Code treats as unconditional (every pattern ``**``) load the rule anyway,
    so this returns True for them. The matching itself is :mod:`pokayokay.rules.claude_match`'s,
    which
    reproduces Claude Code's matcher.
    """
    return claude_matcher(globs)(rel_path)


# --------------------------------------------------------------------------------------------
# pathspec (gitignore semantics as git has them), for verification


def _spec(globs: Sequence[str]) -> Any:
    import pathspec

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        factory = getattr(pathspec, "GitIgnoreSpec", None)
        if factory is not None:
            return factory.from_lines(list(globs))
        return pathspec.PathSpec.from_lines("gitwildmatch", list(globs))  # pragma: no cover


def pathspec_matches(globs: Sequence[str], rel_path: str) -> bool:
    """``rel_path`` matched by ``globs`` as gitignore lines (pathspec's GitIgnoreSpec)."""
    if not globs:
        return True
    return bool(_spec(globs).match_file(rel_path))


# --------------------------------------------------------------------------------------------
# Deriving globs

_SAFE_ASCII = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-+@=%~()")


def escape_name(name: str) -> str:
    """One path component as a glob that matches it and is safe to quote into a rule file."""
    out: list[str] = []
    for ch in name:
        if ch in _SAFE_ASCII:
            out.append(ch)
        elif ch.isascii():
            out.append("?")
        elif ord(ch) > 0xFFFF:
            if not out or out[-1] != "*":
                out.append("*")
        elif unicodedata.category(ch)[0] in "LN" or unicodedata.category(ch) in ("Mn", "Mc"):
            out.append(ch)
        else:
            out.append("?")
    return "".join(out)


def _escape_path(path: str) -> str:
    return "/".join(escape_name(part) for part in path.split("/"))


def _parent(path: str) -> str:
    return path.rpartition("/")[0]


def _ancestors(folder: str) -> list[str]:
    """``folder`` and every folder above it, the root ("") last."""
    out = []
    while folder:
        out.append(folder)
        folder = _parent(folder)
    out.append("")
    return out


def _inside(path: str, folder: str) -> bool:
    """Is ``path`` strictly below ``folder`` ("" is the root)?"""
    return not folder or path.startswith(folder + "/")


def _suffix(names: Sequence[str]) -> str | None:
    """The longest dot-suffix every name shares (``test.ts`` for a.test.ts and b.test.ts)."""
    parts = []
    for name in names:
        stem = name.lstrip(".")
        if "." not in stem:
            return None
        parts.append(stem.split(".")[1:])
    common: list[str] = []
    for group in zip(*(list(reversed(p)) for p in parts), strict=False):
        if len(set(group)) != 1:
            break
        common.append(group[0])
    return ".".join(reversed(common)) if common else None


@dataclass
class _Unit:
    """The globs standing for the evidence at or below ``folder``."""

    folder: str
    globs: list[str]


class _Deriver:
    def __init__(self, evidence: Sequence[str], project_files: Sequence[str]) -> None:
        self.evidence = sorted({p for p in map(normalise_path, evidence) if p is not None})
        self.evidence_set = frozenset(self.evidence)
        files = {p for p in map(normalise_path, project_files) if p is not None}
        self.files = sorted(files | self.evidence_set)
        self.folders = sorted({_parent(p) for p in self.evidence})
        self.ancestry = frozenset(a for f in self.folders for a in _ancestors(f))
        self.nonroot_folders = [f for f in self.folders if f]

    # -- judging a glob ------------------------------------------------------------------------
    def related(self, path: str) -> bool:
        folder = _parent(path)
        return folder in self.ancestry or any(
            folder.startswith(f + "/") for f in self.nonroot_folders
        )

    def hits(self, glob: str, folder: str) -> list[str]:
        """Project files under ``folder`` that ``glob`` matches, in either engine."""
        spec = _spec([glob])
        claude = claude_matcher([glob])
        return [p for p in self.files if _inside(p, folder) and (spec.match_file(p) or claude(p))]

    def acceptable(self, glob: str, folder: str, covered: int) -> bool:
        hits = self.hits(glob, folder)
        others = [p for p in hits if p not in self.evidence_set]
        if len(others) > max(3, 2 * covered):
            return False
        return all(self.related(p) for p in others)

    # -- steps ---------------------------------------------------------------------------------
    def folder_globs(self, folder: str) -> list[str]:
        names = sorted(p.rpartition("/")[2] for p in self.evidence if _parent(p) == folder)
        base = "/" + _escape_path(folder) + "/" if folder else "/"
        singles = [base + escape_name(name) for name in names]
        if len(names) == 1:
            return singles
        suffix = _suffix(names)
        by_suffix = base + "*." + escape_name(suffix) if suffix else None
        everything = base + "**" if folder else None
        for glob in (by_suffix, everything):
            if glob and self.acceptable(glob, folder, len(names)):
                return [glob]
        if len(singles) <= MAX_LISTED_FILES:
            return singles
        if by_suffix and (folder or all(self.related(p) for p in self.hits(by_suffix, ""))):
            return [by_suffix]
        return [everything] if everything else singles

    def merge(self, units: list[_Unit], *, strict: bool) -> list[_Unit] | None:
        """``units`` after one merge at the deepest eligible ancestor; None when there is none."""
        candidates = sorted(
            {a for u in units for a in _ancestors(u.folder) if a},
            key=lambda a: (-a.count("/"), a),
        )
        for folder in candidates:
            inside = [u for u in units if u.folder == folder or _inside(u.folder, folder)]
            if sum(len(u.globs) for u in inside) < 2:
                continue
            glob = "/" + _escape_path(folder) + "/**"
            if strict:
                branches = {
                    u.folder[len(folder) + 1 :].split("/")[0] if u.folder != folder else ""
                    for u in inside
                }
                if len(branches) < 2:
                    continue
                if not all(self.related(p) for p in self.hits(glob, folder)):
                    continue
            rest = [u for u in units if u not in inside]
            return [*rest, _Unit(folder, [glob])]
        return None

    def project_wide(self) -> bool:
        top_evidence = {p.split("/")[0] for p in self.evidence if "/" in p}
        top_all = {p.split("/")[0] for p in self.files if "/" in p}
        return len(top_evidence) >= PROJECT_WIDE_FOLDERS and 2 * len(top_evidence) >= len(top_all)

    def derive(self) -> tuple[str, ...]:
        if not self.evidence or self.project_wide():
            return ()
        units = [_Unit(folder, self.folder_globs(folder)) for folder in self.folders]
        while (merged := self.merge(units, strict=True)) is not None:
            units = merged
        while sum(len(u.globs) for u in units) > MAX_GLOBS:
            merged = self.merge(units, strict=False)
            if merged is None:
                return ()
            units = merged
        return self.verified(tuple(sorted({g for u in units for g in u.globs})))

    def covers(self, globs: tuple[str, ...]) -> bool:
        spec = _spec(globs)
        claude = claude_matcher(globs)
        return all(spec.match_file(p) and claude(p) for p in self.evidence)

    def verified(self, globs: tuple[str, ...]) -> tuple[str, ...]:
        """``globs`` if both engines match every evidence path with them; else a safe widening."""
        if self.covers(globs):
            return globs
        spec = _spec(globs)
        claude = claude_matcher(globs)
        missed = [p for p in self.evidence if not (spec.match_file(p) and claude(p))]
        if any(not _parent(p) for p in missed):
            return ()  # a top-level file no glob can express: project-wide rather than wrong
        widened = tuple(sorted({*globs, *("/" + _escape_path(_parent(p)) + "/**" for p in missed)}))
        return widened if self.covers(widened) else ()


def derive_globs(evidence: Sequence[str], project_files: Sequence[str]) -> tuple[str, ...]:
    """Root-anchored gitignore-style globs covering ``evidence``; ``()`` when project-wide.

    ``evidence``: project-relative POSIX paths (failure paths and fix paths); paths that leave the
    project are ignored. ``project_files``: the project's files (``git ls-files``), used to keep
    globs out of unrelated folders and to judge whether a glob is too broad.
    """
    return _Deriver(evidence, project_files).derive()


def listed_globs(evidence: Sequence[str], project_files: Sequence[str]) -> tuple[str, ...]:
    """One root-anchored glob per evidence file, so a rule loads for exactly the files its
    mistakes touched and the files their fixes edited; checked like :func:`derive_globs`'
    (both engines match every evidence path). Beyond :data:`MAX_GLOBS` files, or when a file
    cannot be expressed as its own glob, :func:`derive_globs` groups them."""
    deriver = _Deriver(evidence, project_files)
    if not deriver.evidence or len(deriver.evidence) > MAX_GLOBS:
        return derive_globs(evidence, project_files)
    globs = tuple(sorted({"/" + _escape_path(p) for p in deriver.evidence}))
    return globs if deriver.covers(globs) else derive_globs(evidence, project_files)
