"""The project files a failure involves, as project-relative POSIX paths.

``extract_paths`` looks in, in this order:

* the tool input: ``file_path`` (Edit, Write, Read) and ``notebook_path`` (NotebookEdit);
* the command's words that look like paths (``pytest tests/test_cart.py::test_add``,
  ``python src/tool.py``, ``cat setup.cfg``): a word with a ``/`` or a ``name.ext`` shape, without
  shell syntax (``$``, globs, redirections, ``=``) and not an option;
* the error text: Python tracebacks (``File "/abs/src/x.py", line 3``), pytest node ids
  (``tests/test_x.py::test_y``), ``path:line[:col]`` locations (gcc/clang ``src/a.c:12:5:``,
  mypy/ruff ``src/a.py:3:1:``, Node stack frames ``at f (/abs/src/a.js:10:5)``, rustc
  ``--> src/lib.rs:3:5``, the linker's ``main.c:(.text+0x2a)``; ``Dockerfile:7``,
  ``Makefile:12`` and the other extension-less build
  files), tsc ``src/a.ts(3,4)``, Jest ``FAIL src/a.test.js``, git ``CONFLICT (content): Merge
  conflict in X``, prettier ``[warn] X``, black ``would reformat X``/ruff ``Would reformat: X``,
  a line that is only a path (eslint's file headers), quoted names (``'src/my file.py'``, kept
  whole, spaces included, and never also read in pieces) and any absolute path under the project
  root.

Relative paths are taken relative to ``cwd`` (the folder the command ran in; default the project
root). Only paths inside the project are kept, and none inside dependency or cache folders
(``.venv``, ``node_modules``, ``site-packages``, ``__pycache__``, ``.git``, …) except a file a
tool was explicitly given; a path starting with ``~`` is never taken for a project path, and
``x/...`` (Go's package pattern) stands for the folder ``x``.

Given ``files`` (a :class:`WorkTree`, what capture passes), any file-like word of the output is
a candidate too, and only paths that exist in the work tree or in git's index at that moment are
kept, so branch names (``feature/cart``), module paths and
words such as ``FAIL`` are dropped; a bare file name that is not at ``cwd`` is looked up in the
folders the command and output name (``invoice_test.go:42`` printed by ``go test
./internal/billing/...`` is ``internal/billing/invoice_test.go``); and a folder is kept only when
no file under it was. Without ``files`` the functions are pure (no file-system access except
:func:`root_aliases`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence

from pokayokay.infra.lazyre import Lazy, built_once

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol
else:  # read by type checkers alone: no typing import at run time (decision 0159)
    Protocol = object

MAX_PATHS = 50
# Error texts are at most ~10k characters (Claude Code middle-truncates); be safe anyway.
MAX_SCANNED = 50_000

SKIPPED_PARTS = frozenset(
    {
        ".git",
        ".hg",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        "node_modules",
        "site-packages",
        "dist-packages",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
    }
)
_PATH_INPUT_KEYS = ("file_path", "notebook_path")


# Build files without an extension that tools name in locations (Dockerfile:7, Makefile:12).
_BARE_FILES = (
    r"(?:Dockerfile|Containerfile|Makefile|GNUmakefile|makefile|Jenkinsfile|Vagrantfile|Gemfile"
    r"|Rakefile|Procfile|Justfile|justfile|Brewfile|Earthfile|Tiltfile)(?:\.[\w-]{1,20})?"
)


class _Patterns:
    def __init__(self) -> None:
        c = Lazy
        name = r"[\w.@+~-]+"  # one path component
        ext = r"\.[A-Za-z][A-Za-z0-9]{0,7}"
        rel_file = rf"(?:{name}/)*(?:{name}{ext}|{_BARE_FILES})"
        any_file = rf"(?:file://)?(?:/|\.{{1,2}}/)?(?:[A-Za-z]:[\\/])?{rel_file}"
        self.python_frame = c(r'File "([^"\n]+)", line \d+')
        self.node_id = c(rf"(?:^|(?<=[\s'\"(\[]))(/?{rel_file})::", re.M)
        self.location = c(rf"(?:^|(?<=[\s'\"(\[`,=>]))({any_file}):\d+(?::\d+)?", re.M)
        self.linker = c(rf"(?:^|(?<=\s))({any_file}):\(\.\w+\+0x[0-9a-f]+\)", re.M)
        self.tsc = c(rf"(?:^|(?<=[\s'\"(\[]))({any_file})\(\d+,\d+\)", re.M)
        # Horizontal space only: `^\s*` would run over every following blank line from every
        # line start (quadratic on 60,000 blank lines).
        self.jest = c(r"(?m)^[ \t]*(?:FAIL|PASS)[ \t]+(\S+)")
        # git, prettier, black/ruff format, and a line that is one path (eslint's file header)
        self.conflict = c(
            r"(?m)^CONFLICT \([^)\n]{1,40}\): (?:Merge conflict in (.{1,400}?)"
            r"|(.{1,400}?) deleted in \S+ and modified in .*)\s*$"
        )
        self.whole_line = c(
            r"(?m)^[ \t]*(?:\[warn\][ \t]+|[Ww]ould reformat:?[ \t]+|error:[ \t]+)?"
            rf"({any_file})[ \t]*$"
        )
        # a quote that opens a word (not the apostrophe of "can't") up to the one closing it
        self.quoted = c(
            r"(?<!\w)(?:'([^'\n]{1,400})'|\"([^\"\n]{1,400})\"|`([^`\n]{1,400})`)(?!\w)"
        )
        self.quoted_path = c(rf"(?:file://)?(?:/|\.{{1,2}}/)?(?:[^/\s][^/]*/)*[^/]*?(?:{ext}|/)\Z")
        self.file_word = c(rf"{name}{ext}")
        # any file-like word of the output (checked against the project before it is kept)
        self.token = c(r"[^\s'\"`()\[\]{}<>,;|]{3,300}")
        self.mention = c(rf"(?:\.{{1,2}}/|/)?(?:[\w.@+-]+/)*[\w@+-][\w.@+-]*?{ext}")
        self.shell_syntax = c(r"[$*?{}\[\]<>|;&=`'\"\s()!]|://|\A~|\A-")
        self.location_suffix = c(r"(?:::.*|:\d+(?::\d+)?)\Z")
        # where a bare file name may live: go package patterns and import paths, folders
        self.package_word = c(r"\A(?:\./)?((?:[\w.@+-]+/)*[\w.@+-]+)/?\Z")
        # lines that quote file contents (code frames) or tool headers: no file named there
        # is involved ("  12 |     COPY pyproject.toml /app/", "configfile: pyproject.toml")
        self.not_mentions = c(
            r"(?m)^[ \t]*(?:(?:>>>|>)[ \t]*)?(?:\d+[ \t]*)?\|.*$"
            r"|^(?:platform|rootdir|cachedir|configfile|inifile|plugins|testpaths)[ :].*$"
        )
        self.go_package = c(r"(?m)^(?:FAIL|ok|---|#)\s+(\S+?)(?:\s|\[|$)")


_patterns = built_once(_Patterns)


def root_aliases(root: str, dirs: Iterable[str]) -> tuple[str, ...]:
    """Other spellings of ``root`` implied by ``dirs`` (paths that resolve inside it).

    ``root`` is a real path; Claude Code may report ``cwd`` through a symlink (``/var`` vs
    ``/private/var`` on macOS, a symlinked home). For each such dir, the part before its path
    inside the project is an alias of the root.
    """
    root = os.path.normpath(root)
    out: list[str] = []
    for folder in dirs:
        if not folder or not os.path.isabs(folder):
            continue
        given = os.path.normpath(folder)
        real = os.path.realpath(given)
        if real == root:
            alias = given
        elif real.startswith(root + os.sep):
            inside = real[len(root) :]
            if not given.endswith(inside):
                continue
            alias = given[: -len(inside)]
        else:
            continue
        if alias and alias != root and alias not in out:
            out.append(alias)
    return tuple(out)


def relative_path(
    path: str,
    project_root: str,
    *,
    cwd: str | None = None,
    aliases: Sequence[str] = (),
) -> str | None:
    """``path`` relative to the project as a POSIX path, or ``None`` when it is outside.

    A relative ``path`` is taken relative to ``cwd`` (default: the project root). The root
    itself gives ``None``: it names no file.
    """
    if path.startswith("file://"):
        path = path[len("file://") :]
    if not path or "\0" in path:
        return None
    if not os.path.isabs(path):
        path = os.path.join(cwd or project_root, path)
    path = os.path.normpath(path)
    for root in (project_root, *aliases):
        root = os.path.normpath(root)
        if path.startswith(root + os.sep) and len(path) > len(root) + 1:
            rel = path[len(root) + 1 :]
            return rel.replace(os.sep, "/") if os.sep != "/" else rel
    return None


def _command_words(command: str) -> list[str]:
    import shlex

    try:
        words = shlex.split(command, comments=False, posix=True)
    except ValueError:  # unbalanced quotes: fall back to plain words
        words = command.split()
    return words


# git subcommands whose arguments are refs and remotes (feature/cart), never files
_GIT_REF_COMMANDS = frozenset(
    [
        "push",
        "pull",
        "fetch",
        "merge",
        "rebase",
        "switch",
        "branch",
        "cherry-pick",
        "revert",
        "reset",
        "tag",
        "clone",
        "remote",
        "log",
        "show",
        "diff",
    ]
)


def _command_paths(command: str, p: _Patterns) -> list[str]:
    found: list[str] = []
    words: list[str] = []
    for segment in re.split(r"&&|\|\||[;|\n]", command):
        seg_words = _command_words(segment)
        sub = seg_words[1] if len(seg_words) >= 2 and seg_words[0] == "git" else None
        if sub in _GIT_REF_COMMANDS or (sub == "checkout" and "--" not in seg_words):
            continue
        words.extend(seg_words)
    for word in words:
        word = p.location_suffix.sub("", word)
        if word.endswith("/..."):  # go's package pattern: the folder
            word = word[: -len("/...")] or "."
        if not word or p.shell_syntax.search(word.replace(" ", "")):
            continue
        if "/" in word or p.file_word.fullmatch(word):
            found.append(word.rstrip("/") or word)
    return found


def _quoted_paths(text: str, p: _Patterns) -> tuple[list[str], str]:
    """Quoted names that look like paths (kept whole, spaces included), and the text with
    those quotes blanked out so that no other pattern reads a piece of them."""
    found: list[str] = []
    spans: list[tuple[int, int]] = []
    for match in p.quoted.finditer(text):
        inner = next(g for g in match.groups() if g is not None)
        inner = p.location_suffix.sub("", inner.strip())
        if inner and not inner.startswith(("~", "-")) and p.quoted_path.match(inner):
            found.append(inner.rstrip("/") or inner)
            spans.append(match.span())
    if not spans:
        return found, text
    parts, last = [], 0
    for start, end in spans:
        parts.append(text[last:start])
        parts.append(" " * (end - start))
        last = end
    parts.append(text[last:])
    return found, "".join(parts)


# Strings one of which every match of a pattern of ``_Patterns`` holds (what
# ``pokayokay.infra.literals.required_literals`` reads from it: tests hold them equal): a text
# holding none is not searched, and the pattern not compiled (decision 0170).
PATTERN_NEEDS: dict[str, tuple[str, ...]] = {
    "python_frame": ('", line ',),
    "node_id": ("::",),
    "linker": (":(.",),
    "jest": ("FAIL", "PASS"),
    "conflict": ("Merge conflict in ", " and modified in "),
}


def _can_hold(text: str, name: str) -> bool:
    needs = PATTERN_NEEDS.get(name)
    return needs is None or any(need in text for need in needs)


def _error_paths(error: str, roots: Sequence[str], p: _Patterns) -> list[str]:
    text = error[:MAX_SCANNED]
    if "\n\n" in text:
        # Blank lines name nothing and no pattern here reads across one, but each of their
        # starts is a place every pattern tries (60,000 of them cost a tenth of a second).
        text = "\n".join(line for line in text.split("\n") if line)
    found, text = _quoted_paths(text, p)
    for name in ("python_frame", "node_id", "location", "linker", "tsc", "jest", "whole_line"):
        if _can_hold(text, name):
            found.extend(match.group(1) for match in getattr(p, name).finditer(text))
    if _can_hold(text, "conflict"):
        for match in p.conflict.finditer(text):
            found.append((match.group(1) or match.group(2)).strip())
    for root in roots:
        root = root.rstrip("/")
        if root and root in text:
            under = re.compile(re.escape(root) + r"/[^\s'\"`:(),;<>\[\]{}|]+")
            found.extend(match.group() for match in under.finditer(text))
    return [path.rstrip(".,") for path in found]


def _package_dirs(command: str, error: str, p: _Patterns) -> list[str]:
    """Folders a bare file name in the output may be relative to (raw, cwd-relative): the
    command's folder arguments (``./internal/billing/...``) and Go import paths the output
    names (``FAIL github.com/acme/shop/internal/billing``), as every suffix of their parts."""
    hints: list[str] = []
    for word in _command_words(command):
        word = word.removesuffix("/...")
        match = p.package_word.match(word)
        if match and not word.startswith("-"):
            hints.append(match.group(1))
    for match in p.go_package.finditer(error[:MAX_SCANNED]):
        parts = [part for part in match.group(1).split("/") if part]
        hints.extend("/".join(parts[i:]) for i in range(1, len(parts)))
    return list(dict.fromkeys(hints))


def _skipped(rel: str) -> bool:
    return any(part in SKIPPED_PARTS for part in rel.split("/"))


class ProjectFiles(Protocol):
    """What extraction may ask of the project's files (capture passes a :class:`WorkTree`)."""

    def existing(self, rels: Iterable[str]) -> set[str]:
        """The project-relative paths among ``rels`` that exist now (work tree or git)."""
        ...

    def is_dir(self, rel: str) -> bool: ...

    def find(self, name: str, folders: Sequence[str]) -> list[str]:
        """Project-relative paths of files called ``name`` in or under ``folders``."""
        ...

    def names(self, folder: str) -> list[str]:
        """The names in the project-relative ``folder`` (``""``: the root)."""
        ...


class WorkTree:
    """The project's files as they are at capture time: the work tree, then git's index for
    files the work tree no longer has (one ``git ls-files`` call for all of them, unless the
    index file plainly holds none of them: :mod:`pokayokay.infra.git_index`)."""

    MAX_WALKED = 5_000  # folder entries one find() looks at, at most
    GIT_TIMEOUT = 2.0

    def __init__(self, root: str) -> None:
        self.root = root

    def _path(self, rel: str) -> str:
        return os.path.join(self.root, *rel.split("/"))

    def is_dir(self, rel: str) -> bool:
        return os.path.isdir(self._path(rel))

    def existing(self, rels: Iterable[str]) -> set[str]:
        wanted = set(rels)
        found = {rel for rel in wanted if os.path.lexists(self._path(rel))}
        missing = sorted(wanted - found)
        if missing and os.path.exists(os.path.join(self.root, ".git")):
            from pokayokay.infra.git_index import surely_untracked

            if not surely_untracked(self.root, missing, os.environ):  # else git lists none
                found |= self._in_git(missing)
        return found

    def _in_git(self, rels: Sequence[str]) -> set[str]:
        from pokayokay.infra.git_quiet import git_output

        env = dict(os.environ, GIT_LITERAL_PATHSPECS="1", GIT_OPTIONAL_LOCKS="0")
        args = ("ls-files", "-z", "--cached", "--full-name", "--", *rels)
        out = git_output(self.root, *args, timeout=self.GIT_TIMEOUT, env=env)
        if out is None:
            return set()
        listed = {name for name in out.decode("utf-8", "replace").split("\0") if name}
        return {rel for rel in rels if rel in listed}

    def names(self, folder: str) -> list[str]:
        """The names of the entries of ``folder`` (project-relative), at most MAX_WALKED."""
        try:
            with os.scandir(self._path(folder) if folder else self.root) as entries:
                names: list[str] = []
                for entry in entries:
                    names.append(entry.name)
                    if len(names) >= self.MAX_WALKED:
                        break
                return names
        except OSError:
            return []

    def find(self, name: str, folders: Sequence[str]) -> list[str]:
        out: list[str] = []
        walked = 0
        for folder in folders:
            top = self._path(folder)
            if not os.path.isdir(top):
                continue
            for current, dirs, files in os.walk(top):
                dirs[:] = sorted(d for d in dirs if d not in SKIPPED_PARTS)
                walked += len(dirs) + len(files)
                if name in files:
                    rel = os.path.relpath(os.path.join(current, name), self.root)
                    out.append(rel.replace(os.sep, "/"))
                if walked > self.MAX_WALKED:
                    return out
        return list(dict.fromkeys(out))


def _manifests(error: str, project_root: str, cwd: str | None, files: ProjectFiles) -> set[str]:
    """The manifests the output says the fix goes in (:mod:`pokayokay.failures.manifests`),
    in the folder the command ran in, else at the project root, when they exist."""
    from pokayokay.failures.manifests import manifest_names

    kept: set[str] = set()
    for name in manifest_names(error):
        here = relative_path(name, project_root, cwd=cwd)
        for rel in dict.fromkeys(r for r in (here, name) if r is not None):
            if files.existing([rel]):
                kept.add(rel)
                break
    return kept


def _meant(error: str, project_root: str, cwd: str | None, files: ProjectFiles) -> set[str]:
    """For each path the output says is missing (:mod:`pokayokay.failures.missing_paths`), the
    file in its folder it was most likely meant to be."""
    from pokayokay.failures.missing_paths import meant, missing_paths, to_create

    kept: set[str] = set()
    for raw in to_create(error):
        rel = relative_path(raw, project_root, cwd=cwd)
        if rel is not None and not _skipped(rel):
            kept.add(rel)
    for raw in missing_paths(error):
        rel = relative_path(raw, project_root, cwd=cwd)
        if rel is None or _skipped(rel) or files.existing([rel]):
            continue
        folder = rel.rsplit("/", 1)[0] if "/" in rel else ""
        name = meant(rel, files.names(folder))
        if name is not None:
            kept.add(f"{folder}/{name}" if folder else name)
    return kept


def extract_paths(
    tool: str,
    tool_input: Mapping[str, object] | None,
    error: str,
    project_root: str,
    *,
    cwd: str | None = None,
    aliases: Sequence[str] = (),
    files: ProjectFiles | None = None,
    test_run: bool = False,
) -> tuple[str, ...]:
    """Project-relative POSIX paths involved in a failure: deduplicated, sorted, at most 50.

    ``files``: check the candidates against the project (module docstring); ``None`` keeps
    every candidate inside the project and touches nothing. ``tool`` is accepted for symmetry
    with the other core functions (every tool's input is read the same way today).
    ``test_run``: the failure is a failing test, so a test file named alone brings the module
    it tests (:func:`pokayokay.failures.fix_paths.modules_under_test`).

    Summary lines name nothing, and a mistake the output shows to be the command's (the
    interpreter, a missing output folder) keeps only the files the tool was given
    (:mod:`pokayokay.failures.fix_paths`).
    """
    from pokayokay.failures.fix_paths import (
        fixed_by_the_command,
        fixed_in_the_config,
        modules_under_test,
        without_summaries,
    )

    del tool
    p = _patterns()
    error = without_summaries(error)
    explicit: set[str] = set()
    found: set[str] = set()
    bare: set[str] = set()  # file names without a folder, for the package lookup
    nested: set[str] = set()  # relative paths with folders, maybe relative to a package

    def keep(raw: str, *, given: bool, look_up: bool = True) -> None:
        if raw.startswith("~"):
            return
        rel = relative_path(raw, project_root, cwd=cwd, aliases=aliases)
        if rel is None or (not given and _skipped(rel)):
            return
        (explicit if given else found).add(rel)
        if look_up and "/" not in raw and not raw.startswith("."):
            bare.add(raw)
        elif look_up and not os.path.isabs(raw) and not raw.startswith(("..", "file:")):
            nested.add(raw)

    inputs = tool_input if isinstance(tool_input, Mapping) else {}
    for key in _PATH_INPUT_KEYS:
        value = inputs.get(key)
        if isinstance(value, str):
            keep(value, given=True)
    command = inputs.get("command")
    command = command if isinstance(command, str) else ""
    for word in _command_paths(command, p):
        keep(word, given=False)
    if files is not None and error and fixed_by_the_command(error[:MAX_SCANNED], files):
        return tuple(sorted(explicit)[:MAX_PATHS])
    if files is not None and error and fixed_in_the_config(error[:MAX_SCANNED]):
        config = _manifests(error[:MAX_SCANNED], project_root, cwd, files)
        return tuple(sorted(explicit | config)[:MAX_PATHS])
    if error:
        for raw in _error_paths(error, (project_root, *aliases), p):
            keep(raw, given=False)
    if files is None:
        return tuple(sorted(explicit | found)[:MAX_PATHS])
    # Checked against the project, any file named in the output counts ("pnpm-lock.yaml is not
    # up to date with package.json", "Auto-merging src/shop/cart.py").
    mentioned = p.not_mentions.sub(" ", _quoted_paths(error[:MAX_SCANNED], p)[1])
    for token in p.token.findall(mentioned):
        token = p.location_suffix.sub("", token.rstrip(".:"))
        if not token.startswith("~") and p.mention.fullmatch(token):
            # a word of prose may be a piece of a longer name: never looked up elsewhere
            keep(token, given=False, look_up=False)

    real = files.existing(found)
    unresolved = found - real
    missing_names = {
        name for name in bare if relative_path(name, project_root, cwd=cwd) in unresolved
    }
    missing_nested = {
        raw for raw in nested if relative_path(raw, project_root, cwd=cwd) in unresolved
    }
    folders: list[str] = []
    if missing_names or missing_nested:
        for hint in _package_dirs(command, error, p):
            rel = relative_path(hint, project_root, cwd=cwd, aliases=aliases)
            if rel is not None and rel not in folders and files.is_dir(rel):
                folders.append(rel)
    if missing_nested and folders:
        # "FAIL src/routes/orders.test.ts" printed by a workspace's runner
        # (npm test --workspace packages/api): relative to a folder the command names
        candidates = {
            rel
            for raw in missing_nested
            for folder in folders
            if (rel := relative_path(raw, project_root, cwd=os.path.join(project_root, folder)))
        }
        real.update(rel for rel in files.existing(candidates) if not _skipped(rel))
    if missing_names:
        for name in sorted(missing_names):
            hits = [rel for rel in files.find(name, folders) if not _skipped(rel)]
            if not hits:  # anywhere in the project, when that is unambiguous
                anywhere = [rel for rel in files.find(name, ["."]) if not _skipped(rel)]
                hits = anywhere if len(anywhere) == 1 else []
            real.update(hits)
    kept = explicit | real | _manifests(error[:MAX_SCANNED], project_root, cwd, files)
    kept |= _meant(error[:MAX_SCANNED], project_root, cwd, files)
    if test_run:
        kept |= modules_under_test(kept, files)
    folders_kept = {rel for rel in kept if rel not in explicit and files.is_dir(rel)}
    for folder in folders_kept:
        if any(other.startswith(folder + "/") for other in kept):
            kept.discard(folder)
    return tuple(sorted(kept)[:MAX_PATHS])
