"""The ``pokayokay`` argument parser: every command's declaration (argparse, imported only when a
command other than ``hook`` runs)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable
    from typing import Any


def build_parser() -> argparse.ArgumentParser:
    """Every command, its arguments and the ``cmd_<name>`` of :mod:`~pokayokay.cli.commands`
    that runs it (``ns.func``)."""
    import argparse

    from pokayokay import __version__
    from pokayokay.cli import commands

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

    def command(
        group: Any, name: str, help: str, run: Callable[[argparse.Namespace], int]
    ) -> argparse.ArgumentParser:
        """The parser of one command (``--project`` and ``--memory-dir`` included), run by
        ``run``."""
        p: argparse.ArgumentParser = group.add_parser(name, parents=[common], help=help)
        p.set_defaults(func=run)
        return p

    p = command(sub, "init", "register the hooks, create MEMORY.md", commands.cmd_init)
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

    p = command(
        sub, "uninstall", "remove the hooks and /remember; say what stays", commands.cmd_uninstall
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

    p = command(sub, "status", "sections and whole file vs budgets", commands.cmd_status)
    p.add_argument("--json", action="store_true", help="machine-readable output")

    p = command(sub, "curate", "enforce MEMORY.md budgets", commands.cmd_curate)
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
    # SessionEnd's background curation of a large MEMORY.md: that session's entries first
    p.add_argument("--ended-session", metavar="ID", help=argparse.SUPPRESS)

    p = command(sub, "doctor", "is everything wired? where is memory?", commands.cmd_doctor)
    p.add_argument("--json", action="store_true", help="machine-readable output")

    p = command(
        sub,
        "remember",
        "store a learning as a Claude Code memory (/remember)",
        commands.cmd_remember,
    )
    from pokayokay.cli.learnings import add_arguments

    add_arguments(p)

    p = command(sub, "suggest", "skills that fit a prompt, and why", commands.cmd_suggest)
    p.add_argument("prompt")
    p.add_argument("--paths", nargs="*", default=(), metavar="PATH", help="files in play")
    p.add_argument("--json", action="store_true")

    from pokayokay.cli import skills

    skills.add_arguments(command(sub, "skills", skills.HELP, commands.cmd_skills))

    spike = sub.add_parser("spike", help="record what a spike concluded")
    spike_sub = spike.add_subparsers(dest="spike_command", metavar="ACTION", required=True)
    p = command(spike_sub, "record", "record a GO / NO-GO conclusion", commands.cmd_spike)
    p.add_argument("question")
    verdict = p.add_mutually_exclusive_group(required=True)
    verdict.add_argument("--go", dest="go", action="store_true")
    verdict.add_argument("--no-go", dest="go", action="store_false")
    p.add_argument("conclusion")

    from pokayokay.cli.semantic import add_parser as add_semantic
    from pokayokay.cli.team import add_parser as add_team

    add_semantic(sub)
    add_team(sub, common, commands.context)

    p = command(sub, "recall", "what recall would inject for a prompt", commands.cmd_recall)
    p.add_argument("query", help="the prompt text to match")
    p.add_argument("--json", action="store_true", help="also near misses below the floor")

    p = command(sub, "ages", "age of each learning entry in git-active days", commands.cmd_ages)
    p.add_argument("file", nargs="?", metavar="FILE", help="default: .claude/learnings.md")
    p.add_argument("--json", action="store_true")

    p = command(
        sub, "consolidate", "move proven learnings into lasting memory", commands.cmd_consolidate
    )
    p.add_argument("--dry-run", action="store_true", help="plan only; write nothing")
    p.add_argument("--json", action="store_true")
    p.add_argument("--quiet", action="store_true", help="print nothing on success")

    p = command(
        sub, "failures", "recorded failures, counts, near the threshold", commands.cmd_failures
    )
    p.add_argument("--json", action="store_true")

    p = command(sub, "report", "what pokayokay learned and whether it helps", commands.cmd_report)
    p.add_argument(
        "--since",
        metavar="PERIOD",
        default="7d",
        help="the period: 7d, 12h, 2w or a date YYYY-MM-DD (default: 7d)",
    )
    out = p.add_mutually_exclusive_group()
    out.add_argument("--html", metavar="FILE", default=None, help="write one self-contained page")
    out.add_argument("--json", action="store_true", help="machine-readable output")

    p = command(
        sub, "graduate", "turn recurring failures into path-scoped rules", commands.cmd_graduate
    )
    p.add_argument("--dry-run", action="store_true", help="show the changes; write nothing")
    p.add_argument("--quiet", action="store_true", help="print nothing on success")

    rules = sub.add_parser("rules", help="path-scoped rules: list, show, match, lint, retire")
    rules_sub = rules.add_subparsers(dest="rules_command", metavar="ACTION", required=True)
    p = command(rules_sub, "list", "every rule and where it applies", commands.cmd_rules)
    p.add_argument("--json", action="store_true")
    p = command(rules_sub, "show", "one rule in full", commands.cmd_rules)
    p.add_argument("rule", help="rule id, file name or path")
    p.add_argument("--json", action="store_true")
    p = command(
        rules_sub, "match", "which rules Claude Code loads when it reads PATH", commands.cmd_rules
    )
    p.add_argument("path")
    p.add_argument("--json", action="store_true")
    p = command(
        rules_sub,
        "lint",
        "frontmatter Claude Code would mis-load (exit 1 if any)",
        commands.cmd_rules,
    )
    p.add_argument("--json", action="store_true")
    p = command(
        rules_sub, "retire", "move a rule to rules-archive.md (--due: all due)", commands.cmd_rules
    )
    p.add_argument("rule", nargs="?", default=None, help="rule id, file name or path")
    p.add_argument("--due", action="store_true", help="retire every rule that is due")

    p = command(
        sub, "watch", "re-curate MEMORY.md and lint rules as they change", commands.cmd_watch
    )
    p.add_argument(
        "--debounce",
        metavar="SECONDS",
        type=float,
        default=0.5,
        help="quiet period before acting on a burst of changes (default 0.5)",
    )

    p = sub.add_parser("demo", help="run pokayokay on a bundled demo project in a temp folder")
    p.add_argument("--keep", metavar="DIR", default=None, help="build the demo in DIR and keep it")
    p.set_defaults(func=commands.cmd_demo)

    from pokayokay.cli.store_upgrade import add_parser as add_upgrade_store

    add_upgrade_store(sub, common, commands.folders)
    sub.add_parser("hook", help="run a hook: pokayokay hook <Event> < payload.json")
    return parser
