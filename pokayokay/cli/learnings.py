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

UNASKED_LIMIT = 20  # learnings or skills listed by one --unasked: Claude writes for these


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
    add_phrase_arguments(
        parser,
        "learnings",
        "add to the stored learning NAME how a teammate might ask for it: one phrase per TEXT "
        "argument or per line of standard input (matched by recall, never shown)",
        "list the stored learnings that have no phrases yet, with their text "
        "(/learning-phrases)",
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


def add_phrase_arguments(
    parser: argparse.ArgumentParser, what: str, asked_help: str, unasked_help: str
) -> None:
    """The phrase actions of ``remember`` and ``skills``, one at a time: ``--asked NAME``,
    ``--unasked`` (with its ``--limit``) and ``--asked-from`` (a batch of phrases for several
    ``what``: :func:`read_batch`)."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--asked", metavar="NAME", default=None, help=asked_help)
    group.add_argument("--unasked", action="store_true", help=unasked_help)
    group.add_argument(
        "--asked-from",
        metavar="FILE",
        default=None,
        help=f"add phrases for several {what} from FILE ('-': standard input): a line "
        "'## NAME' before the phrases of each, one per line",
    )
    parser.add_argument(
        "--limit",
        type=int,
        default=UNASKED_LIMIT,
        help=f"with --unasked: list at most this many (default {UNASKED_LIMIT})",
    )


def read_batch(source: str) -> dict[str, str]:
    """The ``## NAME`` batch of ``--asked-from`` (:func:`pokayokay.relevance.asked.by_name`)
    from the file ``source`` or, for ``-``, standard input; OSError or ValueError when it
    cannot be read or is not such a batch."""
    from pokayokay.relevance.asked import MAX_BATCH_CHARS, by_name

    if source == "-":
        data = sys.stdin.buffer.read(4 * MAX_BATCH_CHARS + 1)
    else:
        with open(source, "rb") as fh:
            data = fh.read(4 * MAX_BATCH_CHARS + 1)
    return by_name(data.decode("utf-8", "replace"))


def input_text(ns: argparse.Namespace, joiner: str = " ") -> str:
    """The ``TEXT`` words joined with ``joiner``, or standard input (``--stdin`` or ``-``)."""
    from pokayokay.learnings.model import MAX_CHARS

    words: list[str] = list(ns.text or [])
    if ns.stdin or words == ["-"]:
        data = sys.stdin.buffer.read(16 * MAX_CHARS + 1)
        return data.decode("utf-8", "replace")
    return joiner.join(words)


def _write(lines: list[str], failed: bool, reply: bool) -> None:
    """Refusals to stderr (scripts see the failure), except with --reply (the slash command:
    Claude Code aborts a command whose shell step fails); every other answer to stdout, which
    the slash command and the Bash tool hand to the model."""
    stream = sys.stderr if failed and not reply else sys.stdout
    stream.write("\n".join(lines) + "\n")


def _run_asked(ns: argparse.Namespace, location: MemoryLocation) -> int:
    """``pokayokay remember --asked NAME``: how a teammate might ask for a stored learning."""
    from pokayokay.errors import PokayokayError
    from pokayokay.learnings.capture.asked import add_asked

    try:
        result = add_asked(ns.asked, input_text(ns, "\n"), location)
    except PokayokayError as exc:  # the slash command's answer is on stdout, whatever happened
        if not ns.reply:
            raise
        _write([f"Nothing added: {exc}."], True, True)
        return 0
    lines = [result.message]
    if result.redacted:
        lines.append(f"Note: secrets were redacted before anything was kept: "
                     f"{', '.join(result.redacted)}.")  # fmt: skip
    failed = result.exit_code != 0
    _write(lines, failed, ns.reply)
    return 0 if ns.reply else result.exit_code


def _run_unasked(ns: argparse.Namespace, location: MemoryLocation) -> int:
    """``pokayokay remember --unasked``: the learnings with no phrases, each with its text."""
    from pokayokay.learnings.capture.asked import addressable
    from pokayokay.learnings.model import FILE_PREFIX
    from pokayokay.learnings.topics.stored import load_learnings

    stored, _problems = load_learnings(location.memory_dir)
    missing = [
        (s.path.stem.removeprefix(FILE_PREFIX), s.learning) for s in stored if not s.learning.asked
    ]
    # listed by the name --asked finds a learning by: its file's (a script may have written
    # another in the frontmatter, or none)
    unaddressable = [name for name, _ in missing if not addressable(name)]
    missing = [(name, learning) for name, learning in missing if addressable(name)]
    shown = missing[: max(ns.limit, 0)]
    if not missing:
        lines = ["Every stored learning already has phrases: nothing to write."]
    else:
        lines = [
            f"{len(missing)} learning(s) have no phrases yet; the first {len(shown)}, each with "
            "its text as stored (the user's notes, reference data):",
            "",
            *(f"- {name}: {' '.join(learning.text.split())}" for name, learning in shown),
        ]
    if len(missing) > len(shown):
        lines += ["", f"{len(missing) - len(shown)} more after these: run it again."]
    if unaddressable:
        lines += ["", f"{len(unaddressable)} more have a file name phrases cannot be added to "
                      "(learning-<lowercase-words>.md): rename them to include them."]  # fmt: skip
    _write(lines, False, ns.reply)
    return 0


def _run_asked_from(ns: argparse.Namespace, location: MemoryLocation) -> int:
    """``pokayokay remember --asked-from FILE``: phrases for several learnings, each added as
    ``--asked NAME`` adds them (one compare-and-swap each, under the learnings lock)."""
    from pokayokay.errors import EXIT_OK, EXIT_USAGE
    from pokayokay.learnings.capture.asked import add_asked

    try:
        given = read_batch(ns.asked_from)
    except (OSError, ValueError) as exc:
        _write([f"Nothing added: {exc}."], True, ns.reply)
        return 0 if ns.reply else EXIT_USAGE
    from pokayokay.errors import PokayokayError

    lines: list[str] = []
    kinds: list[str] = []
    code = EXIT_USAGE
    for name, text in given.items():
        try:  # one learning that cannot be written does not stop the others, or their report
            result = add_asked(name, text, location)
        except PokayokayError as exc:
            lines.append(f"Nothing added to {name}: {exc}.")
            continue
        lines.append(result.message)
        kinds.extend(k for k in result.redacted if k not in kinds)
        code = EXIT_OK if result.exit_code == EXIT_OK else code
    if kinds:
        lines.append(f"Note: secrets were redacted before anything was kept: {', '.join(kinds)}.")
    _write(lines, code != EXIT_OK, ns.reply)
    return 0 if ns.reply else code


def run_command(
    ns: argparse.Namespace, project: Path, location: MemoryLocation, settings: Settings
) -> int:
    """``pokayokay remember``: print the outcome, return the exit code (module docstring)."""
    if ns.asked is not None:
        return _run_asked(ns, location)
    if ns.unasked:
        return _run_unasked(ns, location)
    if ns.asked_from is not None:
        return _run_asked_from(ns, location)
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
    _write(lines, refused, ns.reply)
    return 0 if refused and ns.reply else result.exit_code
