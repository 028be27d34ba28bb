"""The commands of ``pokayokay``: each ``cmd_<name>`` runs one parsed command and returns its exit
code, on the shared plumbing every command starts from (the ``--project`` folder checked, the
memory folder resolved, the settings read and their warnings printed).

:mod:`pokayokay.cli.parser` declares them; :mod:`pokayokay.cli.main` is the error boundary
around them. Each imports what it needs when it runs, so ``pokayokay --help`` loads none of it.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing is not imported at run time: the hook path starts in cli/main.py
if TYPE_CHECKING:
    import argparse
    from pathlib import Path

    from pokayokay.infra.locate import MemoryLocation
    from pokayokay.memory.sections import Settings


def err(message: str) -> None:
    """One line on stderr, prefixed ``pokayokay:``."""
    sys.stderr.write(f"pokayokay: {message}\n")


# -- shared plumbing ------------------------------------------------------------------------------
def context(ns: argparse.Namespace) -> tuple[Path, MemoryLocation, Settings]:
    """The project folder, its memory location and its settings (their warnings printed)."""
    from pokayokay.config.settings import load_settings
    from pokayokay.infra.locate import resolve_memory_location

    project, memory_dir = folders(ns)
    location = resolve_memory_location(project, memory_dir=memory_dir)
    settings = load_settings(project)
    for warning in settings.warnings:
        err(f"warning: {warning}")
    return project, location, settings


def folders(ns: argparse.Namespace) -> tuple[Path, Path | None]:
    """The --project folder (checked) and the --memory-dir override, resolved."""
    from pathlib import Path

    project = project_folder(ns)
    memory_dir = Path(ns.memory_dir).expanduser().resolve() if ns.memory_dir else None
    return project, memory_dir


def project_folder(ns: argparse.Namespace) -> Path:
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


def scope(ns: argparse.Namespace) -> str:
    return "local" if ns.local else "user" if ns.user else "project"


# -- commands -------------------------------------------------------------------------
def cmd_init(ns: argparse.Namespace) -> int:
    from pokayokay.install import lifecycle

    project, location, settings = context(ns)
    done = lifecycle.init(
        project,
        scope=scope(ns),
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

    project, memory_dir = folders(ns)
    location = resolve_memory_location(project, memory_dir=memory_dir)
    done = lifecycle.uninstall(
        project_folder(ns), scope=scope(ns), purge=ns.purge, location=location
    )
    print(done.render())
    return 0


def cmd_status(ns: argparse.Namespace) -> int:
    from pokayokay import status as report

    _, location, settings = context(ns)
    from pokayokay.safety.redact import redact

    data = report.status(location, settings)
    print(report.to_json(data) if ns.json else redact(report.render_status(data)))
    return 0


def cmd_doctor(ns: argparse.Namespace) -> int:
    from pokayokay import doctor
    from pokayokay import status as report

    project, location, settings = context(ns)
    data = doctor.doctor(project, location, settings)
    print(report.to_json(data) if ns.json else doctor.render_doctor(data))
    return 0 if data["ok"] else 1


def cmd_curate(ns: argparse.Namespace) -> int:
    from pokayokay import status as report
    from pokayokay.errors import EXIT_CHANGES_DUE
    from pokayokay.memory import outcome_view
    from pokayokay.memory.apply import run_curation

    project, location, settings = context(ns)
    write = not (ns.dry_run or ns.diff or ns.check)
    edit = None
    if write and ns.ended_session:
        from pokayokay.learnings.outcomes.observed import ended_session_edit

        edit = ended_session_edit(ns.ended_session, project, location, settings)
    outcome = run_curation(location, settings, write=write, edit=edit)
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

    project, location, settings = context(ns)
    return run_command(ns, project, location, settings)


def cmd_suggest(ns: argparse.Namespace) -> int:

    from pokayokay.cli.suggest import suggest_cli

    project = project_folder(ns)
    code, text = suggest_cli(ns.prompt, project, paths=tuple(ns.paths or ()), as_json=ns.json)
    if text:
        print(text)
    return code


def cmd_skills(ns: argparse.Namespace) -> int:
    from pokayokay.cli.skills import run_command

    return run_command(ns, project_folder(ns))


def cmd_spike(ns: argparse.Namespace) -> int:
    from pokayokay.learnings.outcomes.spikes import spike_cli

    project, location, _ = context(ns)
    code, text = spike_cli(ns.question, ns.go, ns.conclusion, project, location)
    if text:
        print(text)
    return code


def cmd_recall(ns: argparse.Namespace) -> int:
    from pokayokay.recall.report import recall_cli

    project, memory_dir = folders(ns)
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

    project, _, settings = context(ns)
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

    project, location, settings = context(ns)
    outcome = consolidate(project, location, settings, dry_run=ns.dry_run)
    if ns.json:
        print(report.to_json(outcome.to_dict()))
    elif not ns.quiet:
        sys.stdout.write(render_summary(outcome))
    return 0


def cmd_failures(ns: argparse.Namespace) -> int:
    from pokayokay.cli.graduate import cmd_failures as run

    project, location, settings = context(ns)
    code, text = run(project, location, settings, as_json=ns.json)
    print(text)
    return code


def cmd_report(ns: argparse.Namespace) -> int:
    from pokayokay.cli.report import run_report

    project, location, settings = context(ns)
    code, text = run_report(
        project, location, settings, since=ns.since, html=ns.html, as_json=ns.json
    )
    print(text)
    return code


def cmd_graduate(ns: argparse.Namespace) -> int:
    from pokayokay.cli.graduate import cmd_graduate as run

    project, location, settings = context(ns)
    code, text = run(project, location, settings, dry_run=ns.dry_run, quiet=ns.quiet)
    if text:
        print(text)
    return code


def cmd_rules(ns: argparse.Namespace) -> int:

    from pokayokay.cli import rules as rules_cli

    project = project_folder(ns)
    action = ns.rules_command
    if action == "list":
        code, text = rules_cli.cmd_rules_list(project, as_json=ns.json)
    elif action == "show":
        code, text = rules_cli.cmd_rules_show(project, ns.rule, as_json=ns.json)
    elif action == "match":
        code, text = rules_cli.cmd_rules_match(project, ns.path, as_json=ns.json)
    elif action == "retire":
        _, location, settings = context(ns)
        code, text = rules_cli.cmd_rules_retire(project, location, settings, ns.rule, due=ns.due)
    else:
        code, text = rules_cli.cmd_rules_lint(project, as_json=ns.json)
    if text:
        print(text.rstrip("\n"))
    return code


def cmd_watch(ns: argparse.Namespace) -> int:
    from pokayokay.watch.observer import run_watch

    project, memory_dir = folders(ns)
    return run_watch(project, memory_dir=memory_dir, debounce=ns.debounce)


def cmd_demo(ns: argparse.Namespace) -> int:
    from pokayokay.demo import run_demo

    return run_demo(ns.keep)
