"""The hooks that are not spooled, started without ``site`` (decision 0141).

``init`` with absolute paths registers ``<python> -S -E …/pokayokay/hooks/launch.py <Event>``,
and the plugin shim and the handler registered by name start the ``pokayokay-event`` script with
``-S -E`` when its shebang names a plain interpreter; both entries call this module (a file run
as a script is compiled on every start, a module's code comes from its cached ``.pyc``).
``site`` (and the ``.pth`` files it runs, such as setuptools' ``distutils-precedence.pth``)
is paid by every prompt, session and PreToolUse hook, none of which needs it: pokayokay's hot
paths use the standard library and pokayokay alone, and both entries know where pokayokay is.

What they do not need is still there: :class:`SiteOnDemand` sits at the end of
``sys.meta_path``, so the first import that nothing else finds (a cold path reaching for
ruamel.yaml, jinja2, pathspec…, which an editable install keeps in the venv's site-packages, not
beside the package) runs ``site.main()`` and is tried again. ``-E`` drops only the interpreter's
own ``PYTHON*`` variables (``PYTHONPATH`` among them); pokayokay reads its own
(``POKAYOKAY_HOME``, ``CLAUDE_PROJECT_DIR``…) from ``os.environ`` as before.

Standard library only (sys; gc and os once the hook runs), and no ``from __future__`` import:
this is the first pokayokay module a hook imports.
"""

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


# Container allocations between two collections of the youngest generation during a hook
# (CPython's default is 700). A hook is a short process that allocates, keeps and exits: the
# path prompt spent 2.8 M instructions (0.07 floors) in collections that found next to nothing.
# Cyclic garbage is still collected, every this many allocations (a long ingest stays bounded).
GC_THRESHOLD = 100_000

# Modules whose import may leave work for the interpreter's exit: ``atexit`` callbacks (logging's
# flush, ``weakref.finalize``, multiprocessing, coverage) and the threads the exit waits for.
EXIT_WORK_MODULES = ("atexit", "threading")


def run_hook(argv: "list[str]") -> int:
    """``pokayokay hook <Event>`` (``argv`` is ``[<Event>]``), payload on stdin. Ends the process
    itself when it can (:func:`leave`); else returns the exit code."""
    import gc

    if hasattr(gc, "set_threshold"):  # not every Python has it; the default is only slower
        gc.set_threshold(GC_THRESHOLD)
    bundle = None
    try:
        from pokayokay.hooks import code_bundle

        bundle = code_bundle.install(argv[0] if argv else "")
    except Exception as exc:  # a speed-up only: the import system still loads every module
        from pokayokay.infra.logs import log_exception

        log_exception("reading the hook code's file", exc)
    from pokayokay.hooks.runtime import main

    code = main(argv)
    if bundle is not None:
        code_bundle.after(bundle)
    leave(code)
    return code


def leave(code: int) -> None:
    """End the process with ``code`` once stdout and stderr are flushed, without the
    interpreter's finalization, when nothing waits for it (no module of
    :data:`EXIT_WORK_MODULES` imported); else return, and the caller exits as usual.

    Finalization frees every module and object one by one (12.8 M instructions, a third of a
    floor, on the path prompt) for memory the process is about to hand back anyway. Nothing
    else is pending at that point: the handlers write their files with ``with`` blocks and
    unbuffered ``os.write``, and SQLite has committed what it keeps (decision 0169)."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return  # a reader gone, a stream closed: the usual exit reports it
    if any(name in sys.modules for name in EXIT_WORK_MODULES):
        return
    import os

    os._exit(code)
