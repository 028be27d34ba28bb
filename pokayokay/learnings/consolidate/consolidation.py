"""Consolidation of the learnings staging file (pure: no git, no file system, no model).

The steps, each a function here; :mod:`pokayokay.learnings.consolidate.consolidate_apply` does
the I/O around them.

1. **Trigger** (:func:`should_trigger`): the file has more than 150 lines, or at least 14
   git-active days passed since the last consolidation. When history shows no consolidation at
   all, the file counts as stale once its oldest entry is at least 14 active days old (the
   entries have waited that long without one).
2. **Qualifying entries** (:func:`qualifying`): at least 7 active days old (an uncommitted entry
   is 0 days old); fewer than 3 of them and nothing happens.
3. **Routing** (:func:`route`): a ``Target:`` line in the entry wins
   (``Target: MEMORY.md#Key Decisions``, ``Target: .claude/rules/testing.md``,
   ``Target: docs/architecture.md`` — project-relative — or ``Target: memory:topic.md`` for a
   topic file in the memory folder). Otherwise a keyword router: decision words (decided, chose,
   agreed, policy, convention, from now on, …) → the Key Decisions section of MEMORY.md;
   architecture words (architecture, module, component, layer, service, structure, schema,
   pipeline, …) → Architecture Notes; a tie with both present → Key Decisions; nothing →
   the topic file ``learnings-archive.md`` in the memory folder. An entry routed to a MEMORY.md
   section becomes one bullet there (date, title, one-line summary, link) and its full text goes
   to ``learnings-archive.md``; curation then enforces the section's budget.
4. **Pre-checks** (:func:`plan_batch`), offline and conservative:

   * supersession: a newer entry on the same topic negates or replaces an older one (``no
     longer``, ``instead of``, ``don't``, ``deprecated``, ``avoid``, ``disable``, …, attached to
     words the older entry asserts) → the older is dropped; when the newer one is not old
     enough to be consolidated itself, the older is escalated instead;
   * contradiction: the entry and a passage of its target are on the same topic with opposite
     polarity → escalated, never dropped, the entry stays in the staging file;
   * redundancy: the entry's text is already in the target (normalised containment, or a
     passage covering at least 85% of its words) → dropped.

   Scores in the grey zone (same-topic score 0.3–0.5 with a polarity clash, or 65–85% coverage)
   are escalated. Dropped entries are not deleted: they go to ``learnings-dropped.md`` in the
   memory folder with the reason.
5. **Split** (:func:`split_file`): a target of 400 lines or more is split at H2 boundaries into
   files of 100–300 lines (``<stem>-part-2.md``, …), each part opening with a cross-reference
   line and the original keeping its preamble, an index of the parts and the first part.

Every line of the staging file ends up somewhere: in the staging file, a target, the archive or
the dropped file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import date
from typing import Any

from pokayokay.learnings.aging.entries import LearningEntry
from pokayokay.learnings.consolidate.consolidation_config import (
    DEFAULT_CONFIG,
    GREY_REDUNDANT,
    GREY_TOPIC,
    REDUNDANT,
    SAME_TOPIC,
    ConsolidationConfig,
)
from pokayokay.learnings.consolidate.routing import Route, moved_block, section_bullet
from pokayokay.learnings.consolidate.similarity import (
    Passage,
    Profile,
    clash,
    contained,
    coverage,
    entry_profile,
    passages,
    profile,
    quote,
    topic_score,
)
from pokayokay.learnings.model import EntryAge

# -- configuration -----------------------------------------------------------------------------


# -- trigger -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Trigger:
    triggered: bool
    reasons: tuple[str, ...]  # why it triggered, or why not


def should_trigger(
    file_lines: int,
    staleness: int | None,
    entry_ages: Sequence[int],
    config: ConsolidationConfig = DEFAULT_CONFIG,
) -> Trigger:
    """Size OR staleness. Unknown staleness (no consolidation in history) counts as stale once
    the oldest entry is at least ``staleness_trigger`` active days old."""
    why: list[str] = []
    why_not: list[str] = []
    if file_lines > config.size_trigger:
        why.append(f"the file has {file_lines} lines (over {config.size_trigger})")
    else:
        why_not.append(f"the file has {file_lines} lines (at most {config.size_trigger})")
    if staleness is not None:
        text = f"{staleness} active days since the last consolidation"
        if staleness >= config.staleness_trigger:
            why.append(f"{text} (at least {config.staleness_trigger})")
        else:
            why_not.append(f"{text} (under {config.staleness_trigger})")
    else:
        oldest = max(entry_ages, default=0)
        text = (
            f"no consolidation in the file's history and its oldest entry is {oldest} "
            "active days old"
        )
        if entry_ages and oldest >= config.staleness_trigger:
            why.append(f"{text} (at least {config.staleness_trigger})")
        else:
            why_not.append(f"{text} (under {config.staleness_trigger})")
    return Trigger(bool(why), tuple(why or why_not))


def qualifying(ages: Sequence[EntryAge], config: ConsolidationConfig = DEFAULT_CONFIG) -> list[int]:
    """Indices of the entries old enough to consolidate, oldest first (file order on ties).

    The ``keep_recent`` most recent entries (youngest first; later in the file on ties) always
    stay in staging, whatever their age: the file keeps the context of the latest work.
    """
    newest_first = sorted(range(len(ages)), key=lambda i: (ages[i].age, -i))
    kept = set(newest_first[: max(0, config.keep_recent)])
    picked = [
        i
        for i, age in enumerate(ages)
        if age.added is not None and age.age >= config.freshness and i not in kept
    ]
    return sorted(picked, key=lambda i: (-ages[i].age, i))


def batch_problem(count: int, config: ConsolidationConfig = DEFAULT_CONFIG) -> str | None:
    """Why a batch of ``count`` qualifying entries is not consolidated, or None when it is."""
    if count >= config.min_batch:
        return None
    return (
        f"only {count} entr{'y is' if count == 1 else 'ies are'} at least {config.freshness} "
        f"active days old; consolidation waits for {config.min_batch}"
    )


# -- text analysis -----------------------------------------------------------------------------


# -- routing -----------------------------------------------------------------------------------


# -- text that goes into targets ---------------------------------------------------------------


# -- planning ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Decision:
    """What happens to one qualifying entry.

    ``action``: ``consolidate`` (moved to its target), ``drop`` (moved to the dropped file),
    ``escalate`` (left in the staging file, a human decides) or ``keep`` (left in the staging
    file because its target cannot take it).
    """

    title: str
    line: int
    age: int
    added: str
    action: str
    kind: str  # consolidated | superseded | redundant | contradiction | possibly-superseded |
    # possibly-redundant | possible-contradiction | superseded-by-younger | bad-target
    reason: str
    target: str | None = None
    related: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Every field, in field order (all of them plain JSON values)."""
        return asdict(self)


@dataclass
class Plan:
    decisions: list[Decision] = field(default_factory=list)
    # (kind, path) → blocks to append; kind "memory" (memory folder) or "project".
    blocks: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    # section id → bullets to add to that MEMORY.md section.
    bullets: dict[str, list[str]] = field(default_factory=dict)
    # entry texts leaving the staging file (consolidated and dropped), with the decision index.
    removed: list[tuple[int, str]] = field(default_factory=list)
    # for each consolidated/dropped decision index: the files it is written to.
    writes: dict[int, list[tuple[str, str]]] = field(default_factory=dict)

    def by_action(self, action: str) -> list[Decision]:
        return [d for d in self.decisions if d.action == action]


def _newer(ages: Sequence[EntryAge], i: int, j: int) -> bool:
    """Is entry j newer than entry i? By added date (uncommitted is newest), then position."""

    def key(k: int) -> tuple[date, int]:
        added = ages[k].added
        return (added if added is not None else date.max, ages[k].line)

    return key(j) > key(i)


def plan_batch(
    entries: Sequence[LearningEntry],
    ages: Sequence[EntryAge],
    batch: Sequence[int],
    routes: Mapping[int, Route | str],
    target_texts: Mapping[tuple[str, str], str],
    *,
    today: date,
    source: str,
    config: ConsolidationConfig = DEFAULT_CONFIG,
) -> Plan:
    """Decide for every entry of ``batch`` (indices into ``entries``/``ages``).

    ``routes`` has the route (or a problem) of each batch entry; ``target_texts`` maps each
    route's ``key`` to the text entries are checked against (for a section: the section's
    body, its archive and the archive topic file). ``source`` names the staging file in notes.
    """
    plan = Plan()
    profiles = {i: entry_profile(entries[i]) for i in range(len(entries))}
    in_batch = set(batch)
    texts = {key: passages(text, _label(key)) for key, text in target_texts.items()}
    labels = {r.key: r.label for r in routes.values() if not isinstance(r, str)}
    normals = {key: profile(text).normal for key, text in target_texts.items()}

    for i in batch:
        entry, age = entries[i], ages[i]

        def decide(
            action: str,
            kind: str,
            reason: str,
            target: str | None = None,
            related: str | None = None,
            *,
            dropped: str | None = None,
            entry: LearningEntry = entry,
            age: EntryAge = age,
        ) -> Decision:
            """Record the decision on this entry. ``dropped``: the entry is dropped, moved to the
            dropped-learnings file with a note saying why (``dropped``)."""
            made = Decision(
                entry.title,
                entry.line,
                age.age,
                age.added_label,
                action,
                kind,
                reason,
                target,
                related,
            )
            plan.decisions.append(made)
            if dropped is not None:
                _drop(plan, entry, len(plan.decisions) - 1, today, source, dropped, config)
            return made

        # 1. supersession by a newer entry of the staging file
        superseded = _supersession(i, entries, ages, profiles, in_batch)
        if superseded is not None:
            kind, j, score = superseded
            other = entries[j].title
            if kind == "superseded":
                decide(
                    "drop",
                    kind,
                    f"superseded by the newer entry {other!r} (same topic, score {score:.2f})",
                    related=other,
                    dropped=f"superseded by {other!r}",
                )
            elif kind == "superseded-by-younger":
                decide(
                    "escalate",
                    kind,
                    f"the newer entry {other!r} says otherwise but is under {config.freshness} "
                    "active days old: decide which one holds",
                    related=other,
                )
            else:
                decide(
                    "escalate",
                    kind,
                    f"may be superseded by the newer entry {other!r} (same-topic score "
                    f"{score:.2f}, in the grey zone)",
                    related=other,
                )
            continue

        # 2. a target it can go to
        found = routes.get(i)
        if found is None or isinstance(found, str):
            decide("keep", "bad-target", found or "no route")
            continue
        key = found.key
        prof = profiles[i]

        # 3. contradiction with anything consolidation has written (never dropped): the
        # target, and every other target read (an entry routed to Architecture Notes may well
        # contradict a Key Decision); the entry's own target wins a tie
        best: tuple[float, Passage] | None = None
        where = found.label
        for place in (key, *(k for k in texts if k != key)):
            for passage in texts.get(place, []):
                if not clash(prof, passage.profile):
                    continue
                score = topic_score(prof, passage.profile)
                if best is None or score > best[0]:
                    best = (score, passage)
                    where = found.label if place == key else labels.get(place, _label(place))
        if best is not None and best[0] >= GREY_TOPIC:
            sure = best[0] >= SAME_TOPIC
            words = ", ".join(sorted(clash(prof, best[1].profile)))
            decide(
                "escalate",
                "contradiction" if sure else "possible-contradiction",
                f"{'contradicts' if sure else 'may contradict'} {where}: "
                f"{quote(best[1].text)!r} (opposite on: {words}; score {best[0]:.2f})",
                target=found.label,
                related=quote(best[1].text),
            )
            continue

        # 4. redundancy with the target
        cover: tuple[float, Passage] | None = None
        for passage in texts.get(key, []):
            share = coverage(prof, passage.profile)
            if cover is None or share > cover[0]:
                cover = (share, passage)
        if contained(prof, normals.get(key, "")) or (
            cover is not None and prof.size >= 3 and cover[0] >= REDUNDANT
        ):
            where = quote(cover[1].text) if cover is not None else ""
            decide(
                "drop",
                "redundant",
                f"already in {found.label}" + (f": {where!r}" if where else ""),
                target=found.label,
                related=where or None,
                dropped=f"redundant with {found.label}",
            )
            continue
        if cover is not None and prof.size >= 3 and cover[0] >= GREY_REDUNDANT:
            decide(
                "escalate",
                "possibly-redundant",
                f"{found.label} may already say this ({cover[0]:.0%} of its words in "
                f"{quote(cover[1].text)!r}); consolidate or delete it by hand",
                target=found.label,
                related=quote(cover[1].text),
            )
            continue

        # 5. consolidate
        decide("consolidate", "consolidated", f"moved to {found.label}", target=found.label)
        index = len(plan.decisions) - 1
        note = (
            f"consolidated by pokayokay on {today.isoformat()} from {source}"
            f" (added {age.added_label})"
        )
        block = moved_block(entry, note)
        file_key = (
            ("memory", config.archive) if found.kind == "section" else (found.kind, found.path)
        )
        plan.blocks.setdefault(file_key, []).append(block)
        plan.writes[index] = [file_key]
        if found.kind == "section" and found.section_id is not None:
            bullet = section_bullet(entry, config.archive, today)
            plan.bullets.setdefault(found.section_id, []).append(bullet)
            plan.writes[index].append(("section", found.section_id))
        plan.removed.append((index, entry.text))
        # later entries of the batch are checked against this one too: under its own route,
        # and, when its full text lands in the archive, under every route checked against it
        archive_key = ("memory", config.archive)
        related = {key}
        if file_key == archive_key:
            related |= {k for k in texts if k[0] == "section" or k == archive_key}
        added = passages(entry.text, found.label)
        normal = profile(entry.text).normal
        for linked in related:
            texts.setdefault(linked, []).extend(added)
            normals[linked] = normals.get(linked, "") + " " + normal
    return plan


def _label(key: tuple[str, str]) -> str:
    kind, path = key
    return f"MEMORY.md § {path}" if kind == "section" else path


def _drop(
    plan: Plan,
    entry: LearningEntry,
    index: int,
    today: date,
    source: str,
    why: str,
    config: ConsolidationConfig,
) -> None:
    note = f"dropped by pokayokay on {today.isoformat()} from {source}: {why}"
    key = ("memory", config.dropped)
    plan.blocks.setdefault(key, []).append(moved_block(entry, note))
    plan.writes[index] = [key]
    plan.removed.append((index, entry.text))


def _supersession(
    i: int,
    entries: Sequence[LearningEntry],
    ages: Sequence[EntryAge],
    profiles: Mapping[int, Profile],
    in_batch: set[int],
) -> tuple[str, int, float] | None:
    """The strongest newer entry that negates or replaces entry ``i``, as (kind, index, score)."""
    best: tuple[str, int, float] | None = None
    mine = profiles[i]
    for j in range(len(entries)):
        if j == i or not _newer(ages, i, j):
            continue
        theirs = profiles[j]
        conflict = bool(clash(mine, theirs)) or (theirs.replaces and not mine.replaces)
        if not conflict:
            continue
        score = topic_score(mine, theirs)
        if score < GREY_TOPIC:
            continue
        if score >= SAME_TOPIC:
            kind = "superseded" if j in in_batch else "superseded-by-younger"
        else:
            kind = "possibly-superseded"
        rank = {"superseded": 2, "superseded-by-younger": 2, "possibly-superseded": 1}
        if best is None or (rank[kind], score) > (rank[best[0]], best[2]):
            best = (kind, j, score)
    return best


# -- split -------------------------------------------------------------------------------------

