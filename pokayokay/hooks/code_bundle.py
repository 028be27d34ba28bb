"""The code a hook imports, read from one file (decision 0189).

A prompt hook imports some 65 pokayokay modules. Through the import system each costs a search
of its folder, a ``stat``, the ``.pyc`` read and checked: about 2.5 ms a prompt. Here the
compiled code of the modules an event imported is kept in one file of the state folder,
``code/<event>-<cache tag>-<key of the package folder>.marshal``, built by a detached
``python -m pokayokay.hooks.code_bundle`` (:func:`build`), and :class:`Bundle`, first in
``sys.meta_path``, serves a module from it when its source still has the size and modification
time it was compiled from; otherwise the import system loads it as before. Docstrings are left
out of the compiled code (a docstring reads as None; nothing a hook runs reads one): a fifth
of the code's bytes, 1.3 ms of its unmarshalling. Asserts and line numbers stay.

A hook that imported a module the file did not serve (none yet, a new path, a changed source)
starts the builder with every name it should hold, at most once a minute. A file that cannot
be read, was written by another Python, is not the user's own or is writable by others is not
used. Standard library only and no ``from __future__`` import: imported before the rest.
"""

import os
import sys

TYPE_CHECKING = False  # no typing import at run time
if TYPE_CHECKING:
    import ast
    from collections.abc import Iterable, Sequence
    from importlib.machinery import ModuleSpec
    from types import ModuleType

    # One module's entry: (source path, size, mtime_ns, is a package, marshalled code)
    Entry = tuple[str, int, int, bool, bytes]
else:  # importlib.machinery.ModuleSpec, without importing importlib
    ModuleSpec = type(sys.__spec__)

FORMAT = 1
FOLDER = "code"
# The events whose hook imports enough for one file to pay: the prompt's (some 65 modules).
# SessionStart and SubagentStart import a third of that, and measured no faster with a file.
EVENTS = frozenset({"UserPromptSubmit"})
OFF_VARIABLE = "POKAYOKAY_CODE_BUNDLE"  # "0": the import system alone
MAX_BYTES = 16 << 20  # a file above this is not read
BUILD_QUIET_S = 60.0  # a builder started this recently is not started again
BUILDING = ".building"

PACKAGE = "pokayokay"
PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Bundle:
    """The finder and loader of the modules in one bundle file (``modules``: name -> entry;
    ``skipped``: the names its builder found no source file of, never asked for again).
    ``served``: the names it loaded; ``before``: the pokayokay modules imported before it."""

    __slots__ = ("modules", "skipped", "event", "path", "served", "before")

    def __init__(
        self, event: str, path: str, modules: "dict[str, Entry]", skipped: "frozenset[str]"
    ) -> None:
        self.event, self.path, self.modules, self.skipped = event, path, modules, skipped
        self.served: set[str] = set()
        self.before = frozenset(_ours(sys.modules))

    def find_spec(
        self, name: str, path: "Sequence[str] | None" = None, target: "ModuleType | None" = None
    ) -> "ModuleSpec | None":
        entry = self.modules.get(name)
        if entry is None:
            return None
        try:  # an entry of another shape is the import system's, as a changed source is
            origin, size, mtime_ns, package, _ = entry
            info = os.stat(origin)
        except (OSError, TypeError, ValueError):
            return None
        if info.st_size != size or info.st_mtime_ns != mtime_ns:
            return None  # the source changed since: the import system compiles it
        # a finder and loader by protocol (importlib.abc is one more import)
        spec = ModuleSpec(name, self, origin=origin, is_package=package)  # type: ignore[arg-type]
        if package:
            spec.submodule_search_locations = [os.path.dirname(origin)]
        spec.has_location = True  # __file__ is the source, as the import system sets it
        return spec

    def create_module(self, spec: "ModuleSpec") -> None:
        return None  # the default module

    def exec_module(self, module: "ModuleType") -> None:
        import marshal

        name = module.__name__
        try:
            code = marshal.loads(self.modules[name][4])
        except (ValueError, EOFError, TypeError):  # a damaged entry: the import system's loader
            from importlib.machinery import SourceFileLoader

            SourceFileLoader(name, self.modules[name][0]).exec_module(module)
            return
        self.served.add(name)
        exec(code, module.__dict__)

    def invalidate_caches(self) -> None:
        """Nothing to forget: each module is checked against its source when it is found."""

    def missed(self) -> list[str]:
        """The pokayokay modules imported since :func:`install` that this file did not serve."""
        return sorted(set(_ours(sys.modules)) - self.before - self.served - self.skipped)


def _ours(names: "Iterable[str]") -> "list[str]":
    return [n for n in names if n == PACKAGE or n.startswith(PACKAGE + ".")]


def bundle_file(event: str, home: "str | None" = None) -> str:
    """Where ``event``'s bundle lives for this interpreter and this installed pokayokay."""
    from pokayokay.infra.state import folder_key, state_folder

    tag = sys.implementation.cache_tag or "python"
    name = f"{event}-{tag}-{folder_key(PACKAGE_DIR)}.marshal"
    return os.path.join(state_folder() if home is None else home, FOLDER, name)


def header() -> tuple[int, str, str]:
    """What a bundle must have been written by to be read: this format, this exact Python
    (its marshal format) and this package folder."""
    return (FORMAT, sys.version, PACKAGE_DIR)


def install(event: str) -> "Bundle | None":
    """Put ``event``'s bundle first in ``sys.meta_path`` (an empty one when there is no usable
    file, so that what the hook imports is still known). None for other events or when it is
    turned off."""
    if event not in EVENTS or os.environ.get(OFF_VARIABLE) == "0":
        return None
    path = bundle_file(event)
    bundle = Bundle(event, path, *read(path))
    sys.meta_path.insert(0, bundle)
    return bundle


def _nothing() -> "tuple[dict[str, Entry], frozenset[str]]":
    return {}, frozenset()


def read(path: str) -> "tuple[dict[str, Entry], frozenset[str]]":
    """The modules of the bundle at ``path`` and the names it skipped; nothing when it is
    missing, unreadable, not the user's own, writable by others, too large, damaged or from
    another Python."""
    import marshal

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return _nothing()
    try:
        info = os.fstat(fd)
        owner = getattr(os, "getuid", None)
        if info.st_size > MAX_BYTES or info.st_mode & 0o022:
            return _nothing()
        if owner is not None and info.st_uid != owner():
            return _nothing()
        with open(fd, "rb", closefd=False) as fh:
            data = fh.read(MAX_BYTES + 1)
        found = marshal.loads(data)
    except (OSError, ValueError, EOFError, TypeError):
        return _nothing()
    finally:
        os.close(fd)
    if not (isinstance(found, tuple) and len(found) == 3 and found[0] == header()):
        return _nothing()
    modules, skipped = found[1], found[2]
    if not isinstance(modules, dict) or not isinstance(skipped, frozenset):
        return _nothing()
    return modules, skipped


def after(bundle: "Bundle | None") -> None:
    """At the end of a hook: when it imported a module the bundle did not serve, start the
    builder (detached) with every name the bundle should hold, unless one started within
    :data:`BUILD_QUIET_S`. Never raises."""
    if bundle is None:
        return
    try:
        missed = bundle.missed()
        if not missed:
            return
        names = sorted(set(missed) | set(bundle.modules))
        if not _claim(bundle.path + BUILDING):
            return
        from pokayokay.infra.detach import spawn_module

        spawn_module("pokayokay.hooks.code_bundle", [bundle.event, *names])
    except Exception as exc:  # the hook's answer is out already; the next one tries again
        from pokayokay.infra.logs import fail_open

        fail_open("starting the hook code's builder", exc)


def _claim(mark: str) -> bool:
    """True when no builder was started within :data:`BUILD_QUIET_S` (and mark it now)."""
    import time

    from pokayokay.infra.state import PRIVATE_FILE, private_folder

    try:
        if time.time() - os.stat(mark).st_mtime < BUILD_QUIET_S:
            return False
        os.unlink(mark)
    except FileNotFoundError:
        pass  # no builder started yet, or the last one finished: claim it below
    private_folder(os.path.dirname(mark))
    try:
        os.close(os.open(mark, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE))
    except FileExistsError:
        return False  # another hook claimed it a moment ago
    return True


# --------------------------------------------------------------------------------------------
# The builder (a detached process, never a hook)


def source_of(name: str) -> "tuple[str, bool] | None":
    """(source file, is a package) of pokayokay module ``name`` in this installed package."""
    parts = name.split(".")
    if parts[0] != PACKAGE or not all(p.isidentifier() for p in parts):
        return None
    base = os.path.join(PACKAGE_DIR, *parts[1:])
    init = os.path.join(base, "__init__.py")
    if os.path.isfile(init):
        return init, True
    if len(parts) > 1 and os.path.isfile(base + ".py"):
        return base + ".py", False
    return None


def without_docstrings(tree: "ast.Module") -> "ast.Module":
    """``tree`` with the docstring of the module and of every class and function taken out
    (a body that held only its docstring gets ``pass``, at the docstring's place)."""
    import ast

    for node in ast.walk(tree):
        if not isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        body = node.body
        first = body[0] if body else None
        if (
            isinstance(first, ast.Expr)
            and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)
        ):
            if len(body) == 1:
                body[0] = ast.copy_location(ast.Pass(), first)
            else:
                del body[0]
    return tree


def compiled(origin: str) -> "tuple[int, int, bytes]":
    """(size, mtime_ns, marshalled code) of the source at ``origin``; the stat is taken before
    the read, so a source written meanwhile reads as changed, never as current."""
    import ast
    import marshal

    with open(origin, "rb") as fh:
        info = os.fstat(fh.fileno())
        source = fh.read()
    tree = without_docstrings(ast.parse(source, origin))
    code = compile(tree, origin, "exec", dont_inherit=True)
    return info.st_size, info.st_mtime_ns, marshal.dumps(code)


def build(event: str, names: "Iterable[str]", home: "str | None" = None) -> str:
    """Write ``event``'s bundle with the modules ``names`` that are pokayokay's own source
    files (atomically, private to the user); returns its path."""
    import marshal
    from pathlib import Path

    from pokayokay.infra.safe_write import write_atomic
    from pokayokay.infra.state import private_folder

    modules: dict[str, Entry] = {}
    skipped = set()
    for name in sorted(set(names)):
        found = source_of(name)
        if found is None:
            skipped.add(name)
            continue
        origin, package = found
        size, mtime_ns, code = compiled(origin)
        modules[name] = (origin, size, mtime_ns, package, code)
    path = bundle_file(event, home)
    private_folder(os.path.dirname(path))  # 0700; write_atomic makes only the state home's
    write_atomic(Path(path), marshal.dumps((header(), modules, frozenset(skipped))))
    return path


def main(argv: "Sequence[str]") -> int:
    """``python -m pokayokay.hooks.code_bundle <event> <module>...``: build, then let the next
    hook start another builder when it needs one (after a failure, only once the mark of this
    one is a minute old)."""
    if not argv or argv[0] not in EVENTS:
        print("usage: python -m pokayokay.hooks.code_bundle <event> <module>...", file=sys.stderr)
        return 2
    try:
        path = build(argv[0], argv[1:])
    except Exception as exc:  # a source that does not compile, a full disk: logged; the mark
        from pokayokay.infra.logs import log_exception  # stays, so a minute passes first

        log_exception(f"building the hook code of {argv[0]}", exc)
        return 1
    import contextlib

    with contextlib.suppress(OSError):  # none, or the folder is gone: the next claim copes
        os.unlink(path + BUILDING)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
