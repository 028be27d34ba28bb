"""The ``pokayokay`` command line.

``pokayokay hook <Event>`` is dispatched before argparse is even imported: it runs on Claude
Code's hot path. Every other command takes ``--project`` and ``--memory-dir``.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing is not imported at run time: the hook path starts here
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from pathlib import Path

    from pokayokay.infra.locate import MemoryLocation
    from pokayokay.memory.sections import Settings


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["hook"]:
        from pokayokay.hooks.runtime import main as hook_main

        return hook_main(args[1:])
    return _main(args)


# errno values that mean "pokayokay may not write (or name) this file": the user's to fix.
_FILE_REFUSED = {"EACCES", "EPERM", "EROFS", "ENAMETOOLONG", "ENOSPC", "EDQUOT"}


def _main(args: list[str]) -> int:
    from pokayokay.errors import PokayokayError

    parser = _parser()
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
        _err(f"error: {exc.message}")
        return exc.exit_code
    except KeyboardInterrupt:
        _err("interrupted")
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
    _err(f"error: {message} (details: {path})")
    return EXIT_USAGE


def _unexpected(command: str, exc: BaseException) -> int:
    import traceback

    from pokayokay.errors import EXIT_INTERNAL
    from pokayokay.infra import logs

    path = logs.log(f"command {command} failed", traceback_text=traceback.format_exc())
    _err(f"unexpected error ({type(exc).__name__}: {exc}); details in {path}")
    return EXIT_INTERNAL


# Commands that read the failure store: the spooled tool calls are ingested first.
_READS_FAILURES = frozenset({"failures", "graduate", "rules", "status", "doctor", "report", "team"})
_CLI_INGEST_BUDGET = 60.0


def _ingest_spool(command: str) -> None:
    from pokayokay.hooks.ingest import ingest_all, ingest_quietly

    ingest_quietly(command, lambda: ingest_all(budget=_CLI_INGEST_BUDGET))


def _err(message: str) -> None:
    sys.stderr.write(f"pokayokay: {message}\n")


def _parser() -> argparse.ArgumentParser:
    import argparse

    from pokayokay import __version__

    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--project",
        metavar="DIR",
        default=None,
        help="the project folder (default: the current folder)",
    )
    common.add_argument(
        "--memory-dir",
        metavar="DIR",
        default=None,
        help="use this auto-memory folder instead of the one Claude Code would use",
    )
    parser = argparse.ArgumentParser(
        prog="pokayokay",
        description="Mistake-proofing for Claude Code through its own memory files.",
    )
    parser.add_argument("--version", action="version", version=f"pokayokay {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("init", parents=[common], help="register the hooks, create MEMORY.md")
    scope = p.add_mutually_exclusive_group()
    scope.add_argument("--local", action="store_true", help="write .claude/settings.local.json")
    scope.add_argument("--user", action="store_true", help="write the user settings")
    p.add_argument(
        "--absolute",
        action="store_true",
        help="call this interpreter by absolute path instead of `pokayokay` on PATH",
    )
    p.add_argument(
        "--restore",
        action="store_true",
        help="also bring back the graduated rules `uninstall --purge` kept a copy of",
    )
    p.set_defaults(func=cmd_init)

    p = sub.add_parser(
        "uninstall", parents=[common], help="remove the hooks and /remember; say what stays"
    )
    scope = p.add_mutually_exclusive_group()
    scope.add_argument("--local", action="store_true")
    scope.add_argument("--user", action="store_true")
    p.add_argument(
        "--purge",
        action="store_true",
        help="also the graduated rules (a copy is kept), pokayokay's markers in MEMORY.md, the "
        "skill and the project's state folder: the work tree as before init",
    )
    p.set_defaults(func=cmd_uninstall)

    p = sub.add_parser("status", parents=[common], help="sections and whole file vs budgets")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_status)

    p = sub.add_parser("curate", parents=[common], help="enforce MEMORY.md budgets")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--dry-run", action="store_true", help="say what would change; write nothing")
    mode.add_argument(
        "--diff", action="store_true", help="show the changes as a diff; write nothing"
    )
    mode.add_argument(
        "--check", action="store_true", help="exit 1 if curation would change anything"
    )
    p.add_argument("--quiet", action="store_true", help="print nothing on success")
    p.add_argument("--json", action="store_true", help="machine-readable summary")
    p.set_defaults(func=cmd_curate)

    p = sub.add_parser("doctor", parents=[common], help="is everything wired? where is memory?")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_doctor)

    p = sub.add_parser(
        "remember", parents=[common], help="store a learning as a Claude Code memory (/remember)"
    )
    from pokayokay.cli.learnings import add_arguments

    add_arguments(p)
    p.set_defaults(func=cmd_remember)

    p = sub.add_parser("suggest", parents=[common], help="skills that fit a prompt, and why")
    p.add_argument("prompt")
    p.add_argument("--paths", nargs="*", default=(), metavar="PATH", help="files in play")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_suggest)

    spike = sub.add_parser("spike", help="record what a spike concluded")
    spike_sub = spike.add_subparsers(dest="spike_command", metavar="ACTION", required=True)
    p = spike_sub.add_parser("record", parents=[common], help="record a GO / NO-GO conclusion")
    p.add_argument("question")
    verdict = p.add_mutually_exclusive_group(required=True)
    verdict.add_argument("--go", dest="go", action="store_true")
    verdict.add_argument("--no-go", dest="go", action="store_false")
    p.add_argument("conclusion")
    p.set_defaults(func=cmd_spike)

    from pokayokay.cli.semantic import add_parser as add_semantic
    from pokayokay.cli.team import add_parser as add_team

    add_semantic(sub)
    add_team(sub, common, _context)

    p = sub.add_parser("recall", parents=[common], help="what recall would inject for a prompt")
    p.add_argument("query", help="the prompt text to match")
    p.add_argument("--json", action="store_true", help="also near misses below the floor")
    p.set_defaults(func=cmd_recall)

    p = sub.add_parser(
        "ages", parents=[common], help="age of each learning entry in git-active days"
    )
    p.add_argument("file", nargs="?", metavar="FILE", help="default: .claude/learnings.md")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_ages)

    p = sub.add_parser(
        "consolidate", parents=[common], help="move proven learnings into lasting memory"
    )
    p.add_argument("--dry-run", action="store_true", help="plan only; write nothing")
    p.add_argument("--json", action="store_true")
    p.add_argument("--quiet", action="store_true", help="print nothing on success")
    p.set_defaults(func=cmd_consolidate)

    p = sub.add_parser(
        "failures", parents=[common], help="recorded failures, counts, near the threshold"
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_failures)

    p = sub.add_parser(
        "report", parents=[common], help="what pokayokay learned and whether it helps"
    )
    p.add_argument(
        "--since",
        metavar="PERIOD",
        default="7d",
        help="the period: 7d, 12h, 2w or a date YYYY-MM-DD (default: 7d)",
    )
    out = p.add_mutually_exclusive_group()
    out.add_argument("--html", metavar="FILE", default=None, help="write one self-contained page")
    out.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser(
        "graduate", parents=[common], help="turn recurring failures into path-scoped rules"
    )
    p.add_argument("--dry-run", action="store_true", help="show the changes; write nothing")
    p.add_argument("--quiet", action="store_true", help="print nothing on success")
    p.set_defaults(func=cmd_graduate)

    rules = sub.add_parser("rules", help="path-scoped rules: list, show, match, lint, retire")
    rules_sub = rules.add_subparsers(dest="rules_command", metavar="ACTION", required=True)
    p = rules_sub.add_parser("list", parents=[common], help="every rule and where it applies")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_rules)
    p = rules_sub.add_parser("show", parents=[common], help="one rule in full")
    p.add_argument("rule", help="rule id, file name or path")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_rules)
    p = rules_sub.add_parser(
        "match", parents=[common], help="which rules Claude Code loads when it reads PATH"
    )
    p.add_argument("path")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_rules)
    p = rules_sub.add_parser(
        "lint", parents=[common], help="frontmatter Claude Code would mis-load (exit 1 if any)"
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_rules)
    p = rules_sub.add_parser(
        "retire", parents=[common], help="move a rule to rules-archive.md (--due: all due)"
    )
    p.add_argument("rule", nargs="?", default=None, help="rule id, file name or path")
    p.add_argument("--due", action="store_true", help="retire every rule that is due")
    p.set_defaults(func=cmd_rules)

    p = sub.add_parser(
        "watch", parents=[common], help="re-curate MEMORY.md and lint rules as they change"
    )
    p.add_argument(
        "--debounce",
        metavar="SECONDS",
        type=float,
        default=0.5,
        help="quiet period before acting on a burst of changes (default 0.5)",
    )
    p.set_defaults(func=cmd_watch)

    p = sub.add_parser("demo", help="run pokayokay on a bundled demo project in a temp folder")
    p.add_argument("--keep", metavar="DIR", default=None, help="build the demo in DIR and keep it")
    p.set_defaults(func=cmd_demo)

    from pokayokay.cli.store_upgrade import add_parser as add_upgrade_store

    add_upgrade_store(sub, common, _folders)
    sub.add_parser("hook", help="run a hook: pokayokay hook <Event> < payload.json")
    return parser


# -- shared plumbing ------------------------------------------------------------------------------
def _context(ns: argparse.Namespace) -> tuple[Path, MemoryLocation, Settings]:
    from pokayokay.config.settings import load_settings
    from pokayokay.infra.locate import resolve_memory_location

    project, memory_dir = _folders(ns)
    location = resolve_memory_location(project, memory_dir=memory_dir)
    settings = load_settings(project)
    for warning in settings.warnings:
        _err(f"warning: {warning}")
    return project, location, settings


def _folders(ns: argparse.Namespace) -> tuple[Path, Path | None]:
    """The --project folder (checked) and the --memory-dir override, resolved."""
    from pathlib import Path

    project = _project(ns)
    memory_dir = Path(ns.memory_dir).expanduser().resolve() if ns.memory_dir else None
    return project, memory_dir


def _project(ns: argparse.Namespace) -> Path:
    """The --project folder (default: the current one): refused, logged, when it does not
    exist, is not a folder or is the filesystem root."""
    from pathlib import Path

    from pokayokay.errors import PokayokayError
    from pokayokay.infra import logs
    from pokayokay.infra.state import project_root_problem

    folder = ns.project or "."
    problem = project_root_problem(folder)
    if problem is not None:
        logs.log(f"command {ns.command} refused: {problem}")
        raise PokayokayError(problem)
    return Path(folder).resolve()


def _scope(ns: argparse.Namespace) -> str:
    return "local" if ns.local else "user" if ns.user else "project"


# -- commands -------------------------------------------------------------------------
def cmd_init(ns: argparse.Namespace) -> int:
    from pokayokay.install import lifecycle

    project, location, settings = _context(ns)
    done = lifecycle.init(
        project,
        scope=_scope(ns),
        absolute=ns.absolute,
        restore=ns.restore,
        location=location,
        settings=settings,
    )
    print(done.render())
    return 0


def cmd_uninstall(ns: argparse.Namespace) -> int:

    from pokayokay.infra.locate import resolve_memory_location
    from pokayokay.install import lifecycle

    project, memory_dir = _folders(ns)
    location = resolve_memory_location(project, memory_dir=memory_dir)
    done = lifecycle.uninstall(_project(ns), scope=_scope(ns), purge=ns.purge, location=location)
    print(done.render())
    return 0


def cmd_status(ns: argparse.Namespace) -> int:
    from pokayokay import status as report

    _, location, settings = _context(ns)
    from pokayokay.safety.redact import redact

    data = report.status(location, settings)
    print(report.to_json(data) if ns.json else redact(report.render_status(data)))
    return 0


def cmd_doctor(ns: argparse.Namespace) -> int:
    from pokayokay import status as report

    project, location, settings = _context(ns)
    data = report.doctor(project, location, settings)
    print(report.to_json(data) if ns.json else report.render_doctor(data))
    return 0 if data["ok"] else 1


def cmd_curate(ns: argparse.Namespace) -> int:
    from pokayokay import status as report
    from pokayokay.errors import EXIT_CHANGES_DUE
    from pokayokay.memory import outcome_view
    from pokayokay.memory.apply import run_curation

    _, location, settings = _context(ns)
    write = not (ns.dry_run or ns.diff or ns.check)
    outcome = run_curation(location, settings, write=write)
    if ns.json:
        print(report.to_json(outcome_view.curation_summary(outcome)))
    elif ns.diff:
        sys.stdout.write(outcome_view.curation_diff(outcome))
    elif not ns.quiet:
        print(outcome_view.render_curation(outcome, applied=write))
    if ns.check and outcome.changed:
        return EXIT_CHANGES_DUE
    return 0


def cmd_remember(ns: argparse.Namespace) -> int:
    from pokayokay.cli.learnings import run_command

    project, location, settings = _context(ns)
    return run_command(ns, project, location, settings)


def cmd_suggest(ns: argparse.Namespace) -> int:

    from pokayokay.cli.suggest import suggest_cli

    project = _project(ns)
    code, text = suggest_cli(ns.prompt, project, paths=tuple(ns.paths or ()), as_json=ns.json)
    if text:
        print(text)
    return code


def cmd_spike(ns: argparse.Namespace) -> int:
    from pokayokay.learnings.outcomes.spikes import spike_cli

    project, location, _ = _context(ns)
    code, text = spike_cli(ns.question, ns.go, ns.conclusion, project, location)
    if text:
        print(text)
    return code


def cmd_recall(ns: argparse.Namespace) -> int:
    from pokayokay.recall.report import recall_cli

    project, memory_dir = _folders(ns)
    code, text = recall_cli(ns.query, project, as_json=ns.json, memory_dir=memory_dir)
    print(text)
    return code


_NOTHING_TO_AGE = (
    "nothing to age: {file} does not exist.\n"
    "`ages` dates the `## ` entries of the project's shared learnings file, a markdown file the\n"
    "team commits (one `## ` heading per learning); `consolidate` moves the proven ones into\n"
    "lasting memory. Create it to use it. `/remember` and `pokayokay remember` do not write it:\n"
    "they store each learning as a topic file in Claude Code's auto-memory folder (see\n"
    "`pokayokay status`)."
)


def cmd_ages(ns: argparse.Namespace) -> int:
    from pathlib import Path

    from pokayokay import status as report
    from pokayokay.learnings.aging.ages import ages
    from pokayokay.learnings.consolidate.consolidate_apply import default_learnings_file

    project, _, settings = _context(ns)
    file = Path(ns.file).resolve() if ns.file else default_learnings_file(project, settings)
    if not ns.file and not file.exists():
        note = _NOTHING_TO_AGE.format(file=file)
        print(
            report.to_json({"file": str(file), "exists": False, "note": note}) if ns.json else note
        )
        return 0
    data = ages(file, freshness=settings.consolidation_freshness or 7)
    if ns.json:
        print(report.to_json(data.to_dict()))
    else:
        sys.stdout.write(data.to_markdown())
    return 0


def cmd_consolidate(ns: argparse.Namespace) -> int:
    from pokayokay import status as report
    from pokayokay.learnings.consolidate.consolidate_apply import consolidate
    from pokayokay.learnings.consolidate.consolidation_report import render_summary

    project, location, settings = _context(ns)
    outcome = consolidate(project, location, settings, dry_run=ns.dry_run)
    if ns.json:
        print(report.to_json(outcome.to_dict()))
    elif not ns.quiet:
        sys.stdout.write(render_summary(outcome))
    return 0


def cmd_failures(ns: argparse.Namespace) -> int:
    from pokayokay.cli.graduate import cmd_failures as run

    project, location, settings = _context(ns)
    code, text = run(project, location, settings, as_json=ns.json)
    print(text)
    return code


def cmd_report(ns: argparse.Namespace) -> int:
    from pokayokay.cli.report import run_report

    project, location, settings = _context(ns)
    code, text = run_report(
        project, location, settings, since=ns.since, html=ns.html, as_json=ns.json
    )
    print(text)
    return code


def cmd_graduate(ns: argparse.Namespace) -> int:
    from pokayokay.cli.graduate import cmd_graduate as run

    project, location, settings = _context(ns)
    code, text = run(project, location, settings, dry_run=ns.dry_run, quiet=ns.quiet)
    if text:
        print(text)
    return code


def cmd_rules(ns: argparse.Namespace) -> int:

    from pokayokay.cli import rules as rules_cli

    project = _project(ns)
    action = ns.rules_command
    if action == "list":
        code, text = rules_cli.cmd_rules_list(project, as_json=ns.json)
    elif action == "show":
        code, text = rules_cli.cmd_rules_show(project, ns.rule, as_json=ns.json)
    elif action == "match":
        code, text = rules_cli.cmd_rules_match(project, ns.path, as_json=ns.json)
    elif action == "retire":
        _, location, settings = _context(ns)
        code, text = rules_cli.cmd_rules_retire(project, location, settings, ns.rule, due=ns.due)
    else:
        code, text = rules_cli.cmd_rules_lint(project, as_json=ns.json)
    if text:
        print(text.rstrip("\n"))
    return code


def cmd_watch(ns: argparse.Namespace) -> int:
    from pokayokay.watch.observer import run_watch

    project, memory_dir = _folders(ns)
    return run_watch(project, memory_dir=memory_dir, debounce=ns.debounce)


def cmd_demo(ns: argparse.Namespace) -> int:
    from pokayokay.demo import run_demo

    return run_demo(ns.keep)
