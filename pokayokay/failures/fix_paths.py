"""Where the fix goes, beyond the files an output names (pure, given a file lookup).

:func:`pokayokay.failures.evidence_paths.extract_paths` collects the files an output names; three
facts about tool output decide which of them the fix goes in:

* **Summary lines name no file to fix.** make's ``make: *** [Makefile:16: build/app] Error 1``
  repeats that a recipe failed; the Makefile named there is where the recipe is, not the
  mistake. :func:`without_summaries` blanks those lines before any path is read.
* **Some mistakes are the command, not a file.** The interpreter that cannot import the project's
  own package (``ModuleNotFoundError: No module named 'shopcart'`` from a Python without the
  project installed), an interpreter without the tool run as ``python -m pytest``
  (``/usr/bin/python3: No module named pytest``), an output file whose folder does not exist
  (clang's ``unable to open output file 'build/util.o': 'No such file or directory'``): the
  fix is to run it differently, and the files the command names are not at fault.
  :func:`fixed_by_the_command` says so. Likewise a file the tool's configuration does not
  cover (eslint's ``File ignored because no matching configuration was supplied``) is fixed in
  that configuration alone (:func:`fixed_in_the_config`; which file it is, is
  :mod:`pokayokay.failures.manifests`'s to say).
* **A failing test's fix is in the code it tests.** When a test run's output names only test
  files (an assertion failed in ``tests/test_cart.py``; no stack frame reached project source),
  the module under test is found by the naming convention of each ecosystem
  (:mod:`pokayokay.failures.pairing`: ``test_cart.py`` tests ``cart.py``, ``format.test.js``
  tests ``format.js``, ``stock_test.go`` tests ``stock.go`` beside it).
  :func:`modules_under_test` returns that file when the project has exactly one (a name that is
  ambiguous names nothing).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pokayokay.infra.lazyre import MULTILINE, Lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol
else:  # read by type checkers alone: no typing import at run time (decision 0159)
    Protocol = object

# make and its sub-makes: "make: *** [Makefile:16: build/app] Error 1",
# "make[2]: *** [src/Makefile:8: all] Error 2" (a recipe failed: said by the lines above it)
_SUMMARY = Lazy(r"^g?make(?:\[\d+\])?: \*\*\* \[[^\]\n]{1,400}\] Error \d+.*$", MULTILINE)

# Python: the module the failing import names (no dot: a top-level package)
# Each searched only in a text holding one of its required strings (``literals``: what
# ``pokayokay.infra.literals.required_literals`` reads from it, held equal by a test), so an
# output that cannot match compiles none of them (decision 0170).
SUMMARY_NEEDS = ("] Error ",)
_NO_MODULE = Lazy(
    r"ModuleNotFoundError: No module named '([A-Za-z_]\w*)'",
    literals=("ModuleNotFoundError: No module named '",),
)
_NO_RUN_MODULE = Lazy(
    r"^\S*python[\d.]*: No module named [\w.]+$", MULTILINE, literals=(": No module named ",)
)
_NO_OUTPUT_DIR = Lazy(
    r"unable to open output file '[^'\n]{1,400}': '?No such file or directory"
    r"|cannot open output file [^:\n]{1,400}: No such file or directory",
    literals=("unable to open output file '", ": No such file or directory"),
)

_NOT_COVERED = Lazy(
    r"File ignored because no matching configuration was supplied",
    literals=("File ignored because no matching configuration was supplied",),
)

_SOURCE_EXTS = {
    "py": ("py",),
    "go": ("go",),
    **dict.fromkeys(("ts", "tsx", "mts", "cts"), ("ts", "tsx", "mts", "cts")),
    **dict.fromkeys(("js", "jsx", "mjs", "cjs"), ("js", "jsx", "mjs", "cjs")),
}


class FileLookup(Protocol):
    """What the lookups need of the project (:class:`evidence_paths.WorkTree` provides it)."""

    def existing(self, rels: Iterable[str]) -> set[str]: ...

    def find(self, name: str, folders: Sequence[str]) -> list[str]: ...


def without_summaries(output: str) -> str:
    """``output`` with its summary lines blanked (their length kept, nothing else changed)."""
    if not any(need in output for need in SUMMARY_NEEDS):
        return output
    return _SUMMARY.sub(lambda match: " " * len(match.group()), output)


def fixed_by_the_command(output: str, files: FileLookup) -> bool:
    """Whether the output says the way the command ran is the mistake, not a project file."""
    if _NO_RUN_MODULE.search(output) or _NO_OUTPUT_DIR.search(output):
        return True
    match = _NO_MODULE.search(output)
    if match is None:
        return False
    name = match.group(1)
    own = (f"{name}/__init__.py", f"src/{name}/__init__.py", f"{name}.py", f"src/{name}.py")
    return bool(files.existing(own))


def fixed_in_the_config(output: str) -> bool:
    """Whether the output says the files it names were outside the tool's configuration."""
    return bool(_NOT_COVERED.search(output))


def modules_under_test(paths: Iterable[str], files: FileLookup) -> set[str]:
    """For a test run whose named files are all tests, the one source file each tests.

    The conventions are :mod:`pokayokay.failures.pairing`'s; a file of the module's name
    elsewhere (``vtests/format.test.js`` and ``lib/format.js``) counts when it is the only one
    in the project. Nothing when a named file is project source already (a stack frame reached
    the code: the fix is there), or when a test file's module is absent or ambiguous.
    """
    from pokayokay.failures.pairing import covers, is_test, module_under_test

    named = [rel for rel in paths if "." in rel.rsplit("/", 1)[-1]]
    if not named or not all(is_test(rel) for rel in named):
        return set()
    found: set[str] = set()
    for rel in named:
        tested = module_under_test(rel)
        if tested is None:
            continue
        _, name, ext = tested
        hits = {
            hit
            for source_ext in _SOURCE_EXTS.get(ext, ())
            for hit in files.find(f"{name}.{source_ext}", ["."])
            if not is_test(hit)
        }
        paired = {hit for hit in hits if covers(rel, hit)}
        if len(paired) == 1:
            found |= paired
        elif not paired and len(hits) == 1 and ext != "go":  # Go's module is beside its test
            found |= hits
    return found
