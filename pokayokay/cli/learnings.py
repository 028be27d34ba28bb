"""The learnings commands of the CLI: remember (arguments, reading the text, printing the outcome
and its exit code), and the phrases a teammate might ask with: ``--asked NAME`` for one learning,
``--unasked`` and ``--asked-from`` for those stored without them (``/learning-phrases``)."""

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

    add_text_arguments(
        parser,
        "the learning (several words are joined with spaces); '-' or --stdin reads it from "
        "standard input",
        "read the learning from standard input",
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
    from pokayokay.cli.phrases import add_phrase_arguments

    add_phrase_arguments(
        parser,
        "learnings",
        "add to the stored learning NAME how a teammate might ask for it: one phrase per TEXT "
        "argument or per line of standard input (matched by recall, never shown)",
        "list the stored learnings that have no phrases yet or fewer than 6, with their text "
        "and the phrases they have (/learning-phrases)",
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


def add_text_arguments(parser: argparse.ArgumentParser, text_help: str, stdin_help: str) -> None:
    """The ``TEXT`` words and ``--stdin`` of a command that takes text (:func:`input_text`)."""
    parser.add_argument("text", nargs="*", metavar="TEXT", help=text_help)
    parser.add_argument("--stdin", action="store_true", help=stdin_help)


def input_text(ns: argparse.Namespace, joiner: str = " ") -> str:
    """The ``TEXT`` words joined with ``joiner``, or standard input (``--stdin`` or ``-``)."""
    from pokayokay.learnings.model import MAX_CHARS

    words: list[str] = list(ns.text or [])
    if ns.stdin or words == ["-"]:
        data = sys.stdin.buffer.read(16 * MAX_CHARS + 1)
        return data.decode("utf-8", "replace")
    return joiner.join(words)


def _run_unasked(ns: argparse.Namespace, location: MemoryLocation) -> int:
    """``pokayokay remember --unasked``: the learnings with no phrases, then those with fewer
    than :data:`~pokayokay.relevance.asked.ASKED_ENOUGH` (fewest first, each with the phrases
    it has: stored when /remember asked for fewer, decision 0191), each with its text, by the
    name ``--asked`` finds a learning by: its file's (a script may have written another in the
    frontmatter, or none)."""
    from pokayokay.cli.phrases import unasked_lines, write_answer
    from pokayokay.learnings.capture.asked import addressable
    from pokayokay.learnings.model import FILE_PREFIX
    from pokayokay.learnings.topics.stored import load_learnings
    from pokayokay.relevance.asked import ASKED_ENOUGH

    stored, _problems = load_learnings(location.memory_dir)
    short = sorted(
        (
            (s.path.stem.removeprefix(FILE_PREFIX), " ".join(s.learning.text.split()),
             s.learning.asked)
            for s in stored
            if len(s.learning.asked) < ASKED_ENOUGH
        ),
        key=lambda entry: len(entry[2]),
    )  # fmt: skip
    lines = unasked_lines(
        "learning",
        "its text as stored (the user's notes, reference data)",
        [entry for entry in short if addressable(entry[0])],  # none first: sorted by how many
        ns.limit,
        ASKED_ENOUGH,
    )
    unaddressable = sum(1 for name, _, _ in short if not addressable(name))
    if unaddressable:
        lines += ["", f"{unaddressable} more have a file name phrases cannot be added to "
                      "(learning-<lowercase-words>.md): rename them to include them."]  # fmt: skip
    write_answer(lines, False, ns.reply)
    return 0


def _run_asked(ns: argparse.Namespace, location: MemoryLocation) -> int:
    """``--asked NAME`` (the TEXT words, one phrase each, or standard input) or ``--asked-from
    FILE``: phrases for one learning or several, each added by one compare-and-swap under the
    learnings lock; one that cannot be written does not stop the others, or their report."""
    from pokayokay.cli.phrases import read_batch, redacted_line, write_answer
    from pokayokay.errors import EXIT_OK, EXIT_USAGE, PokayokayError
    from pokayokay.learnings.capture.asked import add_asked

    try:
        given = (
            read_batch(ns.asked_from)
            if ns.asked_from is not None
            else {ns.asked: input_text(ns, "\n")}
        )
    except (OSError, ValueError) as exc:
        write_answer([f"Nothing added: {exc}."], True, ns.reply)
        return 0 if ns.reply else EXIT_USAGE
    lines: list[str] = []
    kinds: list[str] = []
    code = EXIT_USAGE
    for name, text in given.items():
        try:
            result = add_asked(name, text, location)
        except PokayokayError as exc:
            lines.append(f"Nothing added to {name}: {exc}.")
            continue
        lines.append(result.message)
        kinds.extend(k for k in result.redacted if k not in kinds)
        code = EXIT_OK if result.exit_code == EXIT_OK else code
    lines += redacted_line(kinds)
    write_answer(lines, code != EXIT_OK, ns.reply)
    return 0 if ns.reply else code


def run_command(
    ns: argparse.Namespace, project: Path, location: MemoryLocation, settings: Settings
) -> int:
    """``pokayokay remember``: print the outcome, return the exit code (module docstring)."""
    if ns.unasked:
        return _run_unasked(ns, location)
    if ns.asked is not None or ns.asked_from is not None:
        return _run_asked(ns, location)
    session = ns.session or os.environ.get("CLAUDE_CODE_SESSION_ID") or None
    result = remember(
        input_text(ns),
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
    lines = [result.message, *(f"Note: {note}" for note in result.notes)]
    refused = result.status in ("too_short", "too_long")
    # The slash command shows this output to the user through the model: a refusal is an
    # answer like any other, not a failing shell step.
    from pokayokay.cli.phrases import write_answer

    write_answer(lines, refused, ns.reply)
    return 0 if refused and ns.reply else result.exit_code
