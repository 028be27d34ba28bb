"""The entry of the hooks that are not spooled, started without ``site`` (decision 0141).

``init`` with absolute paths registers ``<python> -S -E …/pokayokay/hooks/launch.py <Event>``,
and the plugin shim starts the ``pokayokay-event`` script with ``-S -E`` when its shebang names
a plain interpreter. ``site`` (and the ``.pth`` files it runs, such as setuptools'
``distutils-precedence.pth``) is about a quarter of an interpreter start, paid by every prompt,
session and PreToolUse hook, none of which needs it: pokayokay's hot paths use the standard
library and pokayokay alone, and this file knows where pokayokay is (``__file__``).

What they do not need is still there: :class:`SiteOnDemand` sits at the end of
``sys.meta_path``, so the first import that nothing else finds (a cold path reaching for
ruamel.yaml, jinja2, pathspec…, which an editable install keeps in the venv's site-packages, not
beside the package) runs ``site.main()`` and is tried again. ``-E`` drops only the interpreter's
own ``PYTHON*`` variables (``PYTHONPATH`` among them); pokayokay reads its own
(``POKAYOKAY_HOME``, ``CLAUDE_PROJECT_DIR``…) from ``os.environ`` as before.

Standard library only (sys and os), and no ``from __future__`` import: this file runs as a
script before pokayokay is importable.
"""

import os
import sys

TYPE_CHECKING = False  # no typing import at run time
if TYPE_CHECKING:
    from collections.abc import Sequence
    from importlib.machinery import ModuleSpec
    from types import ModuleType


# What the standard library tries to import on other platforms (Jython, VMS, Windows' pywin32)
# and takes a miss of in its stride: copy and pickle probe ``org`` on every import. Kept whole
# by tests/install/test_start_without_site.py, which reads the running standard library.
OTHER_PLATFORMS = frozenset(
    {"org", "java", "_winreg", "vms_lib", "win32api", "win32con", "win32evtlog", "win32evtlogutil"}
)


class SiteOnDemand:
    """A meta path finder, last in ``sys.meta_path``: the first top-level import that no other
    finder found runs ``site.main()`` (the site-packages folders, the user site, the ``.pth``
    files) and is tried again through every other finder; after that it finds nothing.

    A submodule is never its business (a package already found has its own path), nor is a
    standard library name (the library probes for ``nt``, ``_winapi`` and optional modules, and
    site-packages does not hold them), nor one of :data:`OTHER_PLATFORMS`: a hot path that
    meets such a miss keeps starting without ``site``."""

    __slots__ = ("ran",)

    def __init__(self) -> None:
        self.ran = False

    def find_spec(
        self,
        name: str,
        path: "Sequence[str] | None" = None,
        target: "ModuleType | None" = None,
    ) -> "ModuleSpec | None":
        if self.ran or path is not None or name in sys.stdlib_module_names:
            return None
        if name in OTHER_PLATFORMS:
            return None
        self.ran = True  # first: site.main() itself imports (sitecustomize, .pth lines)
        import site

        site.main()
        for finder in list(sys.meta_path):
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec: ModuleSpec | None = find(name, path, target)
            if spec is not None:
                return spec
        return None

    def invalidate_caches(self) -> None:
        """Nothing cached (``importlib.invalidate_caches`` calls this on every finder)."""


def site_on_demand() -> None:
    """Put :class:`SiteOnDemand` at the end of ``sys.meta_path``, once, when this interpreter
    started without ``site`` (and nothing ran ``site.main()`` since: the caller knows)."""
    if not sys.flags.no_site:
        return
    if not any(type(finder).__name__ == SiteOnDemand.__name__ for finder in sys.meta_path):
        sys.meta_path.append(SiteOnDemand())


def package_root(file: str) -> str:
    """The folder holding the ``pokayokay`` package that ``file`` (a module of
    ``pokayokay/<room>/``) belongs to: site-packages for a wheel (in a venv, ``--user``, pipx,
    uv tool), the source tree for an editable install."""
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(file))))


def run_hook(argv: "list[str]") -> int:
    """``pokayokay hook <Event>`` (``argv`` is ``[<Event>]``), payload on stdin."""
    from pokayokay.hooks.runtime import main

    return main(argv)


def _own_folder_off_path() -> None:
    """Run as a file, this file's folder is ``sys.path[0]``: pokayokay's ``hooks/`` modules must
    not be importable as top-level names; the package root is appended instead (after the
    standard library, as site-packages would be)."""
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and os.path.realpath(sys.path[0]) == os.path.realpath(here):
        del sys.path[0]
    root = package_root(__file__)
    if root not in sys.path:
        sys.path.append(root)


if __name__ == "__main__":
    _own_folder_off_path()
    site_on_demand()
    sys.exit(run_hook(sys.argv[1:]))
