"""Which test file tests which source file, by the usual conventions (pure).

* Python: ``tests/x/test_y.py`` (or ``tests/x/y_test.py``) tests ``src/x/y.py``, ``x/y.py`` or
  ``src/<package>/x/y.py``: the test's folders under ``tests/`` end the source's folders
  (under ``src/`` or ``lib/``), and the names match once ``test_`` or ``_test`` is dropped. A
  test beside its module (``x/test_y.py``) tests ``x/y.py``.
* JavaScript and TypeScript: ``y.test.ts`` or ``y.spec.ts`` tests ``y.ts`` (or ``y.tsx``, a
  ``.js`` family file for a ``.js`` family test) in the same folder, or in the parent folder of
  ``__tests__/``.
* Go: ``y_test.go`` tests ``y.go`` in the same folder.

Paths are project-relative, with ``/``. Nothing here reads a file: the caller has the paths
(the failures' and the prompt's).
"""

from __future__ import annotations

# Folders that hold a project's tests, and those that hold its sources.
TEST_ROOTS = ("tests", "test")
SOURCE_ROOTS = ("src", "lib")
# Extensions that test one another's files.
_FAMILIES = (
    frozenset({"py"}),
    frozenset({"ts", "tsx", "mts", "cts"}),
    frozenset({"js", "jsx", "mjs", "cjs"}),
    frozenset({"go"}),
)
_JS_MARKS = (".test", ".spec")


def _split(path: str) -> tuple[list[str], str, str]:
    """(folders, name without extension, extension) of a project-relative path."""
    parts = [p for p in path.strip().lstrip("./").split("/") if p and p != "."]
    if not parts:
        return [], "", ""
    name = parts[-1]
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem:
        return parts[:-1], name, ""
    return parts[:-1], stem, ext.lower()


def _family(ext: str) -> frozenset[str]:
    for family in _FAMILIES:
        if ext in family:
            return family
    return frozenset()


def module_under_test(path: str) -> tuple[list[str], str, str] | None:
    """(folders, tested module's name, extension) of a test file; None for any other file."""
    folders, stem, ext = _split(path)
    if ext == "py":
        if stem.startswith("test_") and len(stem) > 5:
            return folders, stem[5:], ext
        if stem.endswith("_test") and len(stem) > 5:
            return folders, stem[:-5], ext
        return None
    if ext == "go":
        return (folders, stem[:-5], ext) if stem.endswith("_test") and len(stem) > 5 else None
    if _family(ext) and ext != "go":
        for mark in _JS_MARKS:
            if stem.endswith(mark) and len(stem) > len(mark):
                return folders, stem[: -len(mark)], ext
    return None


def is_test(path: str) -> bool:
    """Whether ``path`` is a test file by the conventions above."""
    return module_under_test(path) is not None


def _without_root(folders: list[str], roots: tuple[str, ...]) -> list[str]:
    return folders[1:] if folders and folders[0] in roots else folders


def covers(test: str, source: str) -> bool:
    """Whether the test file ``test`` tests the source file ``source``."""
    found = module_under_test(test)
    if found is None or is_test(source):
        return False
    t_folders, name, t_ext = found
    s_folders, s_stem, s_ext = _split(source)
    if name != s_stem or s_ext not in _family(t_ext):
        return False
    if t_ext == "py":
        if t_folders and t_folders[0] in TEST_ROOTS:
            under = t_folders[1:]
            src = _without_root(s_folders, SOURCE_ROOTS)
            return len(under) <= len(src) and src[len(src) - len(under) :] == under
        return t_folders == s_folders  # a test beside its module
    if t_ext == "go":
        return t_folders == s_folders
    if t_folders and t_folders[-1] == "__tests__":
        return t_folders[:-1] == s_folders
    return t_folders == s_folders


def file_of_test_id(test_id: str) -> str:
    """The file of a test id as the failure store keys it (``tests/a/test_b.py::test_c`` →
    ``tests/a/test_b.py``; ``src/cart.test.ts > Cart › total`` → ``src/cart.test.ts``); ""
    when the id names no file."""
    head = test_id.split("::", 1)[0].split(" > ", 1)[0].split(" ", 1)[0].strip()
    return head if is_test(head) else ""
