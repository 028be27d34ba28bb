"""What the phrase commands share (``pokayokay remember`` and ``pokayokay skills``, driven by
``/learning-phrases`` and ``/skill-phrases``: decisions 0175, 0176): the phrase actions, the
``## NAME`` batch read, the ``--unasked`` listing and the answer's stream."""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

UNASKED_LIMIT = 20  # learnings or skills listed by one --unasked: Claude writes for these


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


def write_answer(lines: list[str], failed: bool, reply: bool) -> None:
    """Refusals to stderr (scripts see the failure), except with --reply (the slash command:
    Claude Code aborts a command whose shell step fails); every other answer to stdout, which
    the slash command and the Bash tool hand to the model."""
    stream = sys.stderr if failed and not reply else sys.stdout
    stream.write("\n".join(lines) + "\n")


def unasked_lines(
    kind: str,
    described: str,
    entries: Sequence[tuple[str, str, Sequence[str]]],
    limit: int,
    enough: int = 0,
) -> list[str]:
    """The ``--unasked`` listing of ``entries`` (name, text, the phrases it has), in their
    order: how many ``kind`` have no phrases (and how many have fewer than ``enough``), then the
    first ``limit`` as ``- name: text`` (``described`` says what the text is) and, for one that
    has some, a line ``  its N phrase(s) so far: a | b``; and how many more remain."""
    if not entries:
        if enough:
            return [f"Every {kind} here already has {enough} phrases or more: nothing to write."]
        return [f"Every {kind} here already has phrases: nothing to write."]
    fewer = sum(1 for _name, _text, have in entries if have)
    counts = f"{len(entries) - fewer} {kind}(s) have no phrases yet"
    if fewer:
        counts += f" and {fewer} {'has' if fewer == 1 else 'have'} fewer than {enough}"
    shown = entries[: max(limit, 0)]
    lines = [f"{counts}; the first {len(shown)}, each with {described}:", ""]
    for name, text, have in shown:
        lines.append(f"- {name}: {text}")
        if have:
            lines.append(f"  its {len(have)} phrase(s) so far: {' | '.join(have)}")
    if len(entries) > len(shown):
        lines += ["", f"{len(entries) - len(shown)} more after these: run it again."]
    return lines


def redacted_line(kinds: Sequence[str]) -> list[str]:
    """The line saying which kinds of secret were taken out of the phrases, if any."""
    if not kinds:
        return []
    return [f"Note: secrets were redacted before anything was kept: {', '.join(kinds)}."]
