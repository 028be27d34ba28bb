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


def _main(args: list[str]) -> int:
    from pokayokay.errors import EXIT_INTERNAL, PokayokayError

    parser = _parser()
    ns = parser.parse_args(args)
    if ns.command is None:
        parser.print_help()
        return 0
    try:
        result: int = ns.func(ns)
        return result
    except PokayokayError as exc:
        _err(f"error: {exc.message}")
        return exc.exit_code
    except KeyboardInterrupt:
        _err("interrupted")
        return 130
    except Exception as exc:
        import traceback

        from pokayokay.infra import logs

        path = logs.log(f"command {ns.command} failed", traceback_text=traceback.format_exc())
        _err(f"unexpected error ({type(exc).__name__}: {exc}); details in {path}")
        return EXIT_INTERNAL


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
    p.set_defaults(func=cmd_init)

    p = sub.add_parser("uninstall", parents=[common], help="remove exactly what init added")
    scope = p.add_mutually_exclusive_group()
    scope.add_argument("--local", action="store_true")
    scope.add_argument("--user", action="store_true")
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

    from pokayokay.errors import PokayokayError

    project = Path(ns.project or ".").resolve()
    if not project.is_dir():
        raise PokayokayError(f"--project {ns.project}: not a folder")
    memory_dir = Path(ns.memory_dir).expanduser().resolve() if ns.memory_dir else None
    return project, memory_dir


def _scope(ns: argparse.Namespace) -> str:
    return "local" if ns.local else "user" if ns.user else "project"


# -- commands -------------------------------------------------------------------------
def cmd_init(ns: argparse.Namespace) -> int:
    from pokayokay.install import wiring as install

    project, location, settings = _context(ns)
    done = install.init(
        project, scope=_scope(ns), absolute=ns.absolute, location=location, settings=settings
    )
    print(done.render())
    return 0


def cmd_uninstall(ns: argparse.Namespace) -> int:
    from pathlib import Path

    from pokayokay.install import wiring as install

    done = install.uninstall(Path(ns.project or ".").resolve(), scope=_scope(ns))
    print(done.render())
    return 0


def cmd_status(ns: argparse.Namespace) -> int:
    from pokayokay import status as report

    _, location, settings = _context(ns)
    data = report.status(location, settings)
    print(report.to_json(data) if ns.json else report.render_status(data))
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
    from pokayokay.memory.apply import run_curation

    _, location, settings = _context(ns)
    write = not (ns.dry_run or ns.diff or ns.check)
    outcome = run_curation(location, settings, write=write)
    if ns.json:
        print(report.to_json(report.curation_summary(outcome)))
    elif ns.diff:
        sys.stdout.write(report.curation_diff(outcome))
    elif not ns.quiet:
        print(report.render_curation(outcome, applied=write))
    if ns.check and outcome.changed:
        return EXIT_CHANGES_DUE
    return 0


def cmd_remember(ns: argparse.Namespace) -> int:
    from pokayokay.cli.learnings import run_command

    project, location, settings = _context(ns)
    return run_command(ns, project, location, settings)


def cmd_suggest(ns: argparse.Namespace) -> int:
    from pathlib import Path

    from pokayokay.cli.suggest import suggest_cli

    project = Path(ns.project or ".").resolve()
    code, text = suggest_cli(ns.prompt, project, paths=tuple(ns.paths or ()), as_json=ns.json)
    if text:
        print(text)
    return code


def cmd_spike(ns: argparse.Namespace) -> int:
    from pokayokay.learnings.spikes import spike_cli

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


def cmd_ages(ns: argparse.Namespace) -> int:
    from pathlib import Path

    from pokayokay import status as report
    from pokayokay.learnings.ages import ages
    from pokayokay.learnings.consolidate_apply import default_learnings_file

    project, _, settings = _context(ns)
    file = Path(ns.file).resolve() if ns.file else default_learnings_file(project, settings)
    data = ages(file, freshness=settings.consolidation_freshness or 7)
    if ns.json:
        print(report.to_json(data.to_dict()))
    else:
        sys.stdout.write(data.to_markdown())
    return 0


def cmd_consolidate(ns: argparse.Namespace) -> int:
    from pokayokay import status as report
    from pokayokay.learnings.consolidate_apply import consolidate
    from pokayokay.learnings.consolidation_report import render_summary

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


def cmd_graduate(ns: argparse.Namespace) -> int:
    from pokayokay.cli.graduate import cmd_graduate as run

    project, location, settings = _context(ns)
    code, text = run(project, location, settings, dry_run=ns.dry_run, quiet=ns.quiet)
    if text:
        print(text)
    return code


def cmd_rules(ns: argparse.Namespace) -> int:
    from pathlib import Path

    from pokayokay.cli import rules as rules_cli

    project = Path(ns.project or ".").resolve()
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
