"""Safety checks run on every curation before anything is written (pure).

1. No line lost: every non-blank line of the old MEMORY.md is still in MEMORY.md or in an
   archive (pokayokay's own structure lines — headings, markers — excepted when merged away).
2. Claude's text unchanged: the text outside managed sections is the same, in the same order.
3. Idempotent: curating the result again changes nothing.

1 and 2 are checked twice: with the parser's view of the file, and by
:mod:`pokayokay.memory.oracle`, which locates Claude's text by marker positions alone and shares
no code with the parser — a parser bug cannot hide itself.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Mapping
from datetime import date

from pokayokay.errors import InvariantViolation
from pokayokay.memory import oracle
from pokayokay.memory.curation import CurationResult, curate
from pokayokay.memory.document import (
    is_blank,
    parse,
    same_unmanaged,
    split_lines,
    strip_eol,
    to_lf,
    unmanaged_lines,
)
from pokayokay.memory.sections import Settings


def _content_lines(text: str) -> Counter[str]:
    return Counter(strip_eol(line) for line in split_lines(to_lf(text)) if not is_blank(line))


def check(
    result: CurationResult,
    settings: Settings,
    archives_before: Mapping[str, str],
    today: date,
) -> None:
    """Raise InvariantViolation (with a diff in its message) if curation broke a promise.

    Idempotence is checked by curating the result again with the options it was curated with
    (``result.evict``, ``result.keep_empty``, ``result.droppable``)."""
    archives_after = {**archives_before, **result.archives}
    titles = [spec.title for spec in settings.sections]
    broken = oracle.problems(result.original, result.text, archives_before, archives_after, titles)
    if broken:
        raise InvariantViolation("; ".join(broken))
    old_doc = parse(to_lf(result.original), settings.sections)
    new_doc = parse(to_lf(result.text), settings.sections)

    structure: Counter[str] = Counter()
    for sec in old_doc.sections():
        structure.update(strip_eol(line) for line in sec.structure_lines())
    available = _content_lines(result.text)
    for text in archives_after.values():
        available.update(_content_lines(text))
    missing = _content_lines(result.original) - available - structure
    if missing:
        sample = "\n".join(sorted(missing)[:10])
        raise InvariantViolation(f"curation would lose {sum(missing.values())} line(s):\n{sample}")

    for name, old in archives_before.items():
        new = result.archives.get(name)
        if new is not None and not new.startswith(old):
            raise InvariantViolation(f"curation would rewrite existing text of {name}")

    if not same_unmanaged(old_doc, new_doc):
        diff = "".join(
            difflib.unified_diff(
                [repr(x) + "\n" for x in unmanaged_lines(old_doc)],
                [repr(x) + "\n" for x in unmanaged_lines(new_doc)],
                "before",
                "after",
                n=1,
            )
        )
        raise InvariantViolation(f"curation would change text outside managed sections:\n{diff}")

    again = curate(
        result.text,
        settings,
        archives_after,
        today,
        evict=result.evict,
        keep_empty=result.keep_empty,
        droppable=result.droppable,
    )
    if again.changed:
        diff = "".join(
            difflib.unified_diff(
                result.text.splitlines(keepends=True),
                again.text.splitlines(keepends=True),
                "curated",
                "curated twice",
                n=1,
            )
        )
        raise InvariantViolation(f"curation is not idempotent:\n{diff}")


def check_edit(before: str, after: str, settings: Settings, section_id: str) -> None:
    """A feature's edit of its own section changed nothing else in MEMORY.md."""
    old_doc = parse(to_lf(before), settings.sections)
    new_doc = parse(to_lf(after), settings.sections)
    if not same_unmanaged(old_doc, new_doc):
        raise InvariantViolation(f"editing {section_id} would change text outside managed sections")
    old_sections = {sec.spec.id: sec.body_lines for sec in old_doc.sections()}
    for sec in new_doc.sections():
        if sec.spec.id == section_id or sec.spec.id not in old_sections:
            continue
        if [strip_eol(x) for x in sec.body_lines] != [
            strip_eol(x) for x in old_sections[sec.spec.id]
        ]:
            raise InvariantViolation(f"editing {section_id} would change section {sec.spec.title}")
