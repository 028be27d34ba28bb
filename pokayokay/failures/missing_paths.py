"""A path the output says does not exist, and the project file it was most likely meant to be
(pure).

``sed: can't read src/setings.py: No such file or directory``, pytest's ``ERROR: file or
directory not found: tests/test_carts.py``, unittest failing to import ``tests.test_mony``: the
fix goes in the file the command meant (``src/settings.py``, ``tests/test_cart.py``,
``tests/test_money.py``), and the typo itself names no file. :func:`missing_paths` reads the
documented messages; :func:`meant` picks, among the names in the same folder, the one closest
to the missing name, when one is clearly closest. The caller lists the folder
(:meth:`pokayokay.failures.evidence_paths.WorkTree.names`).
"""

from __future__ import annotations

from collections.abc import Sequence

from pokayokay.infra.lazyre import Lazy

# Each names one missing path in group 1 (a dotted module in group 2 for unittest's import).
_MISSING = Lazy(
    r"(?m)^(?:sed|cat|head|tail|grep|wc|sort|cp|mv|diff): (?:can't read )?([^\s:']{1,300}): "
    r"No such file or directory$"
    r"|^ERROR: file or directory not found: ([^\s:]{1,300})$"
    r"|^(?:\S{1,300}: )?can't open file '([^'\n]{1,300})': \[Errno 2\]"
    r"|^ImportError: Failed to import test module: \w+\n(?:[^\n]*\n){0,12}?"
    r"ModuleNotFoundError: No module named '([\w.]{1,300})'"
)
# Strings one of which every match holds (``required_literals``' reading, held equal by a test):
# an output holding none is not searched (decision 0170).
MISSING_NEEDS = (
    ": No such file or directory", "ERROR: file or directory not found: ", "can't open file '",
    "ImportError: Failed to import test module: ",
)  # fmt: skip
# How alike two file names must be (difflib's ratio): a typo of one or two characters
CUTOFF = 0.8


def missing_paths(output: str) -> list[str]:
    """The paths ``output`` says do not exist (as written, relative to the command's folder),
    a dotted test module given as its file (``tests.test_mony`` is ``tests/test_mony.py``)."""
    out: list[str] = []
    if not any(need in output for need in MISSING_NEEDS):
        return out
    for match in _MISSING.finditer(output):
        path, pytest_path, python_path, module = match.groups()
        if module:
            out.append(module.replace(".", "/") + ".py")
        else:
            out.append(path or pytest_path or python_path)
    return list(dict.fromkeys(p.split("::", 1)[0] for p in out if p))


def meant(missing: str, names: Sequence[str]) -> str | None:
    """The one of ``names`` (the existing names in the missing path's folder) closest to the
    missing name, if it is close enough and no other is as close; else ``None``."""
    name = missing.rsplit("/", 1)[-1]
    if not name or name in names:
        return None
    import difflib  # here: most failures name no missing file (the capture's import budget)

    scored = sorted(
        ((difflib.SequenceMatcher(None, name, other).ratio(), other) for other in names),
        reverse=True,
    )
    if not scored or scored[0][0] < CUTOFF:
        return None
    if len(scored) > 1 and scored[1][0] == scored[0][0]:
        return None
    return scored[0][1]


# Files the fix creates (or edits, when they exist): a relative module node could not find from
# the file that required it; the conftest.py next to a test whose fixture pytest could not find.
_TO_CREATE = Lazy(
    r"(?m)^Error: Cannot find module '(\.{1,2}/[^'\n]{1,200})'\nRequire stack:\n- (\S{1,500})$"
    r"|^file (\S{1,500}), line \d+\n(?:[^\n]*\n){0,3}?E\s+fixture '[^'\n]{1,100}' not found$"
)
TO_CREATE_NEEDS = ("Error: Cannot find module '", "' not found")
_NODE_EXTENSIONS = (".js", ".cjs", ".mjs", ".json", ".node", ".ts", ".mts", ".cts")


def to_create(output: str) -> list[str]:
    """The files a fix goes in that the output names only by their role: ``lib/config.js`` for
    ``Cannot find module './config'`` required from ``lib/server.js`` (node tries ``.js``
    first), ``tests/conftest.py`` for a fixture a test in ``tests/`` cannot find. Paths as
    written (usually absolute)."""
    import posixpath

    out: list[str] = []
    if not any(need in output for need in TO_CREATE_NEEDS):
        return out
    for match in _TO_CREATE.finditer(output):
        module, requirer, test_file = match.groups()
        if module and requirer:
            path = posixpath.normpath(posixpath.join(posixpath.dirname(requirer), module))
            out.append(path if path.endswith(_NODE_EXTENSIONS) else path + ".js")
        elif test_file:
            out.append(posixpath.join(posixpath.dirname(test_file), "conftest.py"))
    return list(dict.fromkeys(out))
