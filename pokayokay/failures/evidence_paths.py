"""The project files a failure involves, as project-relative POSIX paths.

``extract_paths`` looks in, in this order:

* the tool input: ``file_path`` (Edit, Write, Read) and ``notebook_path`` (NotebookEdit);
* the command's words that look like paths (``pytest tests/test_cart.py::test_add``,
  ``python src/tool.py``, ``cat setup.cfg``): a word with a ``/`` or a ``name.ext`` shape, without
  shell syntax (``$``, globs, redirections, ``=``) and not an option;
* the error text: Python tracebacks (``File "/abs/src/x.py", line 3``), pytest node ids
  (``tests/test_x.py::test_y``), ``path:line[:col]`` locations (gcc/clang ``src/a.c:12:5:``,
  mypy/ruff ``src/a.py:3:1:``, Node stack frames ``at f (/abs/src/a.js:10:5)``, rustc
  ``--> src/lib.rs:3:5``), tsc ``src/a.ts(3,4)``, Jest ``FAIL src/a.test.js`` and any absolute
  path under the project root.

Relative paths are taken relative to ``cwd`` (the folder the command ran in; default the project
root). Only paths inside the project are kept, and none inside dependency or cache folders
(``.venv``, ``node_modules``, ``site-packages``, ``__pycache__``, ``.git``, …) except a file a
tool was explicitly given. Nothing here touches the file system except :func:`root_aliases`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence

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


class _Patterns:
    def __init__(self) -> None:
        c = re.compile
        name = r"[\w.@+~-]+"  # one path component
        ext = r"\.[A-Za-z][A-Za-z0-9]{0,7}"
        rel_file = rf"(?:{name}/)*{name}{ext}"
        any_file = rf"(?:file://)?(?:/|\.{{1,2}}/)?(?:[A-Za-z]:[\\/])?{rel_file}"
        self.python_frame = c(r'File "([^"\n]+)", line \d+')
        self.node_id = c(rf"(?:^|(?<=[\s'\"(\[]))(/?{rel_file})::", re.M)
        self.location = c(rf"(?:^|(?<=[\s'\"(\[`,=>]))({any_file}):\d+(?::\d+)?", re.M)
        self.tsc = c(rf"(?:^|(?<=[\s'\"(\[]))({any_file})\(\d+,\d+\)", re.M)
        # Horizontal space only: `^\s*` would run over every following blank line from every
        # line start (quadratic on 60,000 blank lines).
        self.jest = c(r"(?m)^[ \t]*(?:FAIL|PASS)[ \t]+(\S+)")
        self.file_word = c(rf"{name}{ext}")
        self.shell_syntax = c(r"[$*?{}\[\]<>|;&=`'\"\s()!]|://|\A~|\A-")
        self.location_suffix = c(r"(?:::.*|:\d+(?::\d+)?)\Z")


_compiled: _Patterns | None = None


def _patterns() -> _Patterns:
    global _compiled
    if _compiled is None:
        _compiled = _Patterns()
    return _compiled


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


def _command_paths(command: str, p: _Patterns) -> list[str]:
    found: list[str] = []
    for word in _command_words(command):
        word = p.location_suffix.sub("", word)
        if not word or p.shell_syntax.search(word):
            continue
        if "/" in word or p.file_word.fullmatch(word):
            found.append(word.rstrip("/") or word)
    return found


def _error_paths(error: str, roots: Sequence[str], p: _Patterns) -> list[str]:
    text = error[:MAX_SCANNED]
    found: list[str] = []
    for pattern in (p.python_frame, p.node_id, p.location, p.tsc, p.jest):
        found.extend(match.group(1) for match in pattern.finditer(text))
    for root in roots:
        root = root.rstrip("/")
        if root and root in text:
            under = re.compile(re.escape(root) + r"/[^\s'\"`:(),;<>\[\]{}|]+")
            found.extend(match.group() for match in under.finditer(text))
    return [path.rstrip(".,") for path in found]


def _skipped(rel: str) -> bool:
    return any(part in SKIPPED_PARTS for part in rel.split("/"))


def extract_paths(
    tool: str,
    tool_input: Mapping[str, object] | None,
    error: str,
    project_root: str,
    *,
    cwd: str | None = None,
    aliases: Sequence[str] = (),
) -> tuple[str, ...]:
    """Project-relative POSIX paths involved in a failure: deduplicated, sorted, at most 50.

    ``tool`` is accepted for symmetry with the other core functions (every tool's input is read
    the same way today).
    """
    del tool
    p = _patterns()
    kept: set[str] = set()

    def keep(raw: str, *, explicit: bool) -> None:
        rel = relative_path(raw, project_root, cwd=cwd, aliases=aliases)
        if rel is not None and (explicit or not _skipped(rel)):
            kept.add(rel)

    inputs = tool_input if isinstance(tool_input, Mapping) else {}
    for key in _PATH_INPUT_KEYS:
        value = inputs.get(key)
        if isinstance(value, str):
            keep(value, explicit=True)
    command = inputs.get("command")
    if isinstance(command, str):
        for word in _command_paths(command, p):
            keep(word, explicit=False)
    if error:
        for raw in _error_paths(error, (project_root, *aliases), p):
            keep(raw, explicit=False)
    return tuple(sorted(kept)[:MAX_PATHS])
