"""The learnings commands of the CLI: remember (arguments, reading the text, printing the outcome
and its exit code)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse

    from pokayokay.infra.locate import MemoryLocation
    from pokayokay.memory.sections import Settings
from pokayokay.learnings.capture.remember import MODES, remember


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``pokayokay remember`` (cli.py adds ``--project`` and ``--memory-dir``)."""
    from pokayokay.learnings.model import CATEGORIES, CONFIDENCES, SEVERITIES

    parser.add_argument(
        "text",
        nargs="*",
        metavar="TEXT",
        help="the learning (several words are joined with spaces); '-' or --stdin reads it "
        "from standard input",
    )
    parser.add_argument(
        "--stdin", action="store_true", help="read the learning from standard input"
    )
    parser.add_argument(
        "--category", choices=CATEGORIES, default=None, help="default: inferred from the text"
    )
    parser.add_argument("--confidence", choices=CONFIDENCES, default="medium")
    parser.add_argument("--source", default="user", help="where the learning comes from")
    parser.add_argument(
        "--mode",
        choices=MODES,
        default="user",
        help="'model' when Claude captures on its own: capture_mode and the silent budget apply",
    )
    parser.add_argument(
        "--trigger", metavar="TEXT", default=None, help="the situation that brings it up"
    )
    parser.add_argument("--insight", metavar="TEXT", default=None, help="the root cause")
    parser.add_argument("--action", metavar="TEXT", default=None, help="what to do about it")
    parser.add_argument(
        "--severity", choices=SEVERITIES, type=str.upper, default=None, help="how much it matters"
    )
    parser.add_argument(
        "--reply",
        action="store_true",
        help="answer for the /remember slash command: every outcome, a refusal included, on "
        "standard output with exit 0 (Claude Code aborts a command whose shell step fails)",
    )
    parser.add_argument(
        "--session",
        metavar="ID",
        default=None,
        help="the session a model capture counts against (default: $CLAUDE_CODE_SESSION_ID)",
    )


def _input_text(ns: argparse.Namespace) -> str:
    from pokayokay.learnings.model import MAX_CHARS

    words: list[str] = list(ns.text or [])
    if ns.stdin or words == ["-"]:
        data = sys.stdin.buffer.read(16 * MAX_CHARS + 1)
        return data.decode("utf-8", "replace")
    return " ".join(words)


def run_command(
    ns: argparse.Namespace, project: Path, location: MemoryLocation, settings: Settings
) -> int:
    """``pokayokay remember``: print the outcome, return the exit code (module docstring)."""
    session = ns.session or os.environ.get("CLAUDE_CODE_SESSION_ID") or None
    result = remember(
        _input_text(ns),
        category=ns.category,
        confidence=ns.confidence,
        source=ns.source,
        session_id=session,
        mode=ns.mode,
        project_dir=project,
        location=location,
        settings=settings,
        fields={
            "trigger": ns.trigger,
            "insight": ns.insight,
            "action": ns.action,
            "severity": ns.severity,
        },
    )
    # Refusals of the text go to stderr with exit 2 (scripts see the failure), except with
    # --reply (the slash command); every other answer, notes included, to stdout, which the
    # slash command and the Bash tool hand to the model.
    lines = [result.message, *(f"Note: {note}" for note in result.notes)]
    refused = result.status in ("too_short", "too_long")
    if ns.reply:
        # The slash command shows this output to the user through the model: a refusal is an
        # answer like any other, not a failing shell step.
        sys.stdout.write("\n".join(lines) + "\n")
        return 0 if refused else result.exit_code
    stream = sys.stderr if refused else sys.stdout
    stream.write("\n".join(lines) + "\n")
    return result.exit_code
