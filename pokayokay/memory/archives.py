"""Archive files: the header of a new one, and appending a batch of entries that left MEMORY.md
(pure).

Each batch is appended under ``## Archived <day> from <section>`` with a batch line
``<!-- pokayokay-batch: <id> -->``. The id says which run wrote it (the day and the sections as
that run read them), so a rerun of an interrupted run — the archive written, MEMORY.md not —
does not archive its entries twice, while the same line archived on another day, or after a run
that landed, is a second entry.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Sequence
from datetime import date

from pokayokay.memory.document import BULLET_RE, is_blank, split_lines, strip_eol
from pokayokay.memory.sections import SectionSpec


def archive_header(spec: SectionSpec, newline: str) -> str:
    return (
        f"# {spec.title} archive{newline}{newline}"
        f'Entries pokayokay moved out of the "{spec.title}" section of MEMORY.md to keep it '
        f"within Claude Code's load budget. Oldest batches first.{newline}"
    )


def batch_id(today: date, archive: str, bodies: Sequence[str]) -> str:
    """Which run wrote a batch: the day, the archive and the section lines as the run read
    them. A rerun after an interruption (or a lost compare-and-swap) reads the same sections and
    gets the same id; the same line archived again on another day, or after a run that landed
    (its entries left the section), gets a new one."""
    digest = hashlib.sha256()
    for part in (today.isoformat(), archive, *bodies):
        digest.update(_normalised(part).encode("utf-8", "surrogateescape") + b"\0")
    return digest.hexdigest()[:16]


def append_batch(
    old: str,
    spec: SectionSpec,
    blocks: Sequence[str],
    batch: str,
    today: date,
    newline: str,
) -> tuple[str, int]:
    """The archive text with ``blocks`` (whole entries, in order) appended as batch ``batch``,
    and how many were appended."""
    content = old or archive_header(spec, newline)
    if not content.endswith("\n"):
        content += newline
    same_run = _last_batch(old) == batch
    # An earlier attempt of this very run (interrupted, or its MEMORY.md write lost a
    # compare-and-swap) already archived these: not twice. Nothing else is de-duplicated.
    already = Counter(_entry_blocks(_batch_text(old))) if same_run else Counter[str]()
    appended = 0
    for text in blocks:
        block = text if text.endswith("\n") else text + newline
        key = _normalised(block)
        if already[key] > 0:
            already[key] -= 1
            continue
        if not appended and not same_run:
            heading = f"## Archived {today.isoformat()} from {spec.title}"
            if _last_h2(content) != heading:
                content += f"{newline}{heading}{newline}{newline}"
            content += f"{BATCH_PREFIX}{batch} -->{newline}"
        content += block
        appended += 1
    return content, appended


BATCH_PREFIX = "<!-- pokayokay-batch: "
_BATCH_RE = re.compile(r"^<!-- pokayokay-batch: ([0-9a-f]+) -->\s*$")


def _last_batch(text: str) -> str | None:
    """The id of the last batch appended to an archive (None for none, or an old archive)."""
    for line in reversed(split_lines(text)):
        match = _BATCH_RE.match(line)
        if match:
            return match[1]
        if line.startswith("## "):
            return None
    return None


def _batch_text(archive: str) -> str:
    """An archive's text after its last batch line."""
    lines = split_lines(archive)
    for i in range(len(lines) - 1, -1, -1):
        if _BATCH_RE.match(lines[i]):
            return "".join(lines[i + 1 :])
    return ""


def _entry_blocks(text: str) -> list[str]:
    """The bullet entries of an archive batch, normalised, for de-duplication."""
    blocks: list[str] = []
    current: list[str] = []
    for line in split_lines(text):
        if BULLET_RE.match(line):
            if current:
                blocks.append(_normalised("".join(current)))
            current = [line]
        elif current and not is_blank(line) and not line.startswith("#"):
            current.append(line)
        else:
            if current:
                blocks.append(_normalised("".join(current)))
            current = []
    if current:
        blocks.append(_normalised("".join(current)))
    return blocks


def _last_h2(text: str) -> str | None:
    for line in reversed(split_lines(text)):
        if line.startswith("## "):
            return line.rstrip()
    return None


def _normalised(text: str) -> str:
    return "\n".join(strip_eol(line) for line in split_lines(text)) + "\n"
