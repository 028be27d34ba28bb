"""Managed sections are written with their first entry, never as empty headings (pure).

Curation adds every missing managed section while it works (eviction links archives from the
Topic Index; a feature's edit writes into its section); :func:`drop_new_empty` takes back out the
ones it added that still hold nothing. Sections already in the file stay as they are (a file from
an older pokayokay keeps its headings), unless ``Settings.empty_sections`` asks for them all.
"""

from __future__ import annotations

from collections.abc import Collection

from pokayokay.memory.document import Document, Section, Text, is_blank


def is_empty(sec: Section) -> bool:
    """Nothing between the heading and the end marker but blank lines."""
    return all(is_blank(line) for line in [*sec.pre_marker, *sec.body_lines])


def drop_new_empty(doc: Document, added: Collection[int], droppable: Collection[str]) -> list[str]:
    """Take out of ``doc`` the empty sections that are new: added by this run (their ``id()`` in
    ``added``) or by the structure pass before a feature's edit (their id in ``droppable``).
    Returns their titles."""
    kept: list[Text | Section] = []
    dropped: list[str] = []
    run_lead: list[str] | None = None  # lead of the first section of a run being dropped
    for seg in doc.segments:
        new = isinstance(seg, Section) and (id(seg) in added or seg.spec.id in droppable)
        if isinstance(seg, Section) and new and is_empty(seg):
            dropped.append(seg.spec.title)
            if run_lead is None:
                run_lead = seg.lead
            continue
        if run_lead is not None and isinstance(seg, Section):
            # A section added before an existing one took that one's lead lines (and gave it
            # one blank line): they go back to it.
            seg.lead = run_lead
        run_lead = None
        kept.append(seg)
    doc.segments = kept
    return dropped
