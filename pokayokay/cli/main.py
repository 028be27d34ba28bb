"""The ``pokayokay`` command line.

``pokayokay hook <Event>`` is dispatched before argparse is even imported: it runs on Claude
Code's hot path. Every other command takes ``--project`` and ``--memory-dir``.

This module is the one error boundary: every command returns an exit code from ``errors.py``,
and whatever it raises becomes one line on stderr (the traceback in the log). The parser is
:mod:`pokayokay.cli.parser`, the commands :mod:`pokayokay.cli.commands`.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing is not imported at run time: the hook path starts here
if TYPE_CHECKING:
    from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["hook"]:
        from pokayokay.hooks.runtime import main as hook_main

        return hook_main(args[1:])
    return _main(args)


# errno values that mean "pokayokay may not write (or name) this file": the user's to fix.
_FILE_REFUSED = {"EACCES", "EPERM", "EROFS", "ENAMETOOLONG", "ENOSPC", "EDQUOT"}


def _main(args: list[str]) -> int:
    from pokayokay.cli.commands import err
    from pokayokay.cli.parser import build_parser
    from pokayokay.errors import PokayokayError

    parser = build_parser()
    if args[:1] == ["semantic"]:  # retired: whatever followed it is answered, never refused
        ns, rest = parser.parse_known_args(args)
        ns.words = [*ns.words, *rest]
    else:
        ns = parser.parse_args(args)
    if ns.command is None:
        parser.print_help()
        return 0
    try:
        if ns.command in _READS_FAILURES:
            _ingest_spool(ns.command)
            from pokayokay.cli.store_upgrade import before_reading

            before_reading(ns)
        result: int = ns.func(ns)
        sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
        return result
    except PokayokayError as exc:
        err(f"error: {exc.message}")
        return exc.exit_code
    except KeyboardInterrupt:
        err("interrupted")
        return 130
    except BrokenPipeError:
        return _broken_pipe()
    except OSError as exc:
        import errno

        code = errno.errorcode.get(exc.errno or 0, "")
        if code not in _FILE_REFUSED:
            return _unexpected(ns.command, exc)
        return _file_refused(ns.command, exc, code)
    except Exception as exc:  # the CLI's error boundary: logged and reported by _unexpected
        return _unexpected(ns.command, exc)


def _broken_pipe() -> int:
    """The reader of our output went away (``| head -1``): stop quietly, as git does."""
    import os

    from pokayokay.errors import EXIT_BROKEN_PIPE

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # no second error when Python flushes at exit
        os.close(devnull)
    except (OSError, ValueError):
        pass  # stdout already gone: nothing left to protect
    return EXIT_BROKEN_PIPE


def _file_refused(command: str, exc: OSError, code: str) -> int:
    """Permissions, a read-only or immutable file or folder, a name too long, a full disk: one
    line naming the file, exit 2, the traceback in the log."""
    import traceback

    from pokayokay.cli.commands import err
    from pokayokay.errors import EXIT_USAGE
    from pokayokay.infra import logs

    name = exc.filename if exc.filename is not None else "a file"
    reason = exc.strerror or type(exc).__name__
    hint = {
        "EACCES": "check its permissions",
        "EPERM": "it may be immutable (lsattr) or owned by someone else",
        "EROFS": "the file system is read-only",
        "ENAMETOOLONG": "shorten the name in the settings",
    }.get(code, "")
    message = f"cannot write {name}: {reason}" + (f" — {hint}" if hint else "")
    path = logs.log(f"command {command} refused: {message}", traceback_text=traceback.format_exc())
    err(f"error: {message} (details: {path})")
    return EXIT_USAGE


def _unexpected(command: str, exc: BaseException) -> int:
    import traceback

    from pokayokay.cli.commands import err
    from pokayokay.errors import EXIT_INTERNAL
    from pokayokay.infra import logs

    path = logs.log(f"command {command} failed", traceback_text=traceback.format_exc())
    err(f"unexpected error ({type(exc).__name__}: {exc}); details in {path}")
    return EXIT_INTERNAL


# Commands that read the failure store: the spooled tool calls are ingested first.
_READS_FAILURES = frozenset({"failures", "graduate", "rules", "status", "doctor", "report", "team"})
_CLI_INGEST_BUDGET = 60.0


def _ingest_spool(command: str) -> None:
    from pokayokay.hooks.ingest import ingest_all, ingest_quietly

    ingest_quietly(command, lambda: ingest_all(budget=_CLI_INGEST_BUDGET))
