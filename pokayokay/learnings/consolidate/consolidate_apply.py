"""Consolidation at the edge: date the entries, decide, write the targets, then the staging file.

Order of writes, so that a kill at any moment loses nothing (at worst an entry is in its target
*and* still in the staging file, and the next run drops it as redundant):

1. topic files and project files (the archive, rules, docs, the dropped file), split parts
   before the file they were split from, each a compare-and-swap (``safe_write``);
2. MEMORY.md sections, through :func:`pokayokay.memory.apply.run_curation` with a
   :class:`~pokayokay.memory.apply.SectionEdit`: the curation lock, the invariants, budgets and
   the compare-and-swap all apply;
3. the staging file, without the consolidated and dropped entries (compare-and-swap; lines
   someone appends meanwhile are kept). Committing that change is what the next staleness
   computation sees as the last consolidation;
4. the report, ``<memory folder>/consolidation-report.md``: outside the repository (never
   committed by accident, no noise in ``git status``) and beside the topic files it points to.

An entry whose target could not be written stays in the staging file. One consolidation runs at
a time per project (a lock in the state folder). ``dry_run`` writes nothing at all.

:func:`~pokayokay.learnings.consolidate.consolidation_trigger.session_end_check` is the cheap
test SessionEnd runs: no git, only a stat, a bounded read and a small JSON file in the state
folder.
"""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path

from pokayokay.errors import PokayokayError
from pokayokay.infra.state import state_home
from pokayokay.learnings.consolidate.consolidation_report import (
    ConsolidationOutcome,
    FileChange,
    SplitInfo,
    render_report,
)
from pokayokay.learnings.consolidate.consolidation_targets import (
    file_target,
    inside,
    memory_plan,
    owns_nothing,
    planned_file,
    read_text,
    target_texts,
    write_file,
)
from pokayokay.learnings.consolidate.consolidation_trigger import consolidation_setting, save_state
from pokayokay.names import CONSOLIDATION_REPORT_FILE

# Nothing heavy at import time: each function imports what it uses. (SessionEnd's
# ``session_end_check``, which needs none of git, curation or the text analysis, lives in
# consolidation_trigger; SessionEnd does not import this module.)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from pokayokay.infra.locate import MemoryLocation
    from pokayokay.learnings.aging.ages import AgesReport
    from pokayokay.learnings.consolidate.consolidation_config import ConsolidationConfig
    from pokayokay.learnings.consolidate.routing import Route
    from pokayokay.memory.sections import Settings

REPORT_NAME = CONSOLIDATION_REPORT_FILE

# -- helpers -----------------------------------------------------------------------------------


def learnings_path(project_dir: Path, config: ConsolidationConfig) -> Path:
    return project_dir / config.learnings_file


def default_learnings_file(project_dir: Path, settings: object) -> Path:
    """The project's learnings staging file (``consolidation_learnings_file``, by default
    ``.claude/learnings.md``): what ``pokayokay ages`` dates when given no file."""
    return project_dir / str(consolidation_setting(settings, "learnings_file"))


def consolidation_lock(location: MemoryLocation, environ: Mapping[str, str] | None) -> Path:
    from pokayokay.infra.locate import slugify

    env = dict(os.environ if environ is None else environ)
    return state_home(env) / "locks" / f"consolidate-{slugify(str(location.project_key))}.lock"


# -- the targets: pokayokay.learnings.consolidate.consolidation_targets -------------------------


# -- the run -----------------------------------------------------------------------------------


def _contradictions(location: MemoryLocation) -> list[str]:
    from pokayokay.infra.logs import log_exception
    from pokayokay.learnings.topics.stored import contradicting_learnings

    try:
        return contradicting_learnings(location.memory_dir)
    except Exception as exc:  # comparing learnings never costs the consolidation
        log_exception("consolidate: comparing the stored learnings", exc)
        return []


def consolidate(
    project_dir: Path,
    location: MemoryLocation,
    settings: Settings,
    *,
    learnings: Path | None = None,
    dry_run: bool = False,
    today: date | None = None,
    environ: Mapping[str, str] | None = None,
    lock_timeout: float = 10.0,
    git_timeout: float = 60.0,
) -> ConsolidationOutcome:
    """Consolidate the learnings staging file of ``project_dir`` if it is due.

    Raises :class:`PokayokayError` for what the user must fix (not a git repository, file not
    tracked, git missing); everything else that goes wrong for one entry or one target is
    recorded in ``errors`` and in the report, and that entry stays in the staging file.
    """
    from pokayokay.infra.safe_write import encode_text, file_lock, write_atomic
    from pokayokay.learnings.consolidate.consolidation_config import ConsolidationConfig
    from pokayokay.memory.apply import checked_target

    config = ConsolidationConfig.from_settings(settings)
    day = today or date.today()
    path = learnings if learnings is not None else learnings_path(project_dir, config)
    outcome = ConsolidationOutcome(path, dry_run, day, config)
    outcome.contradictions = _contradictions(location)
    if dry_run:
        _run(outcome, project_dir, location, settings, environ, git_timeout)
        outcome.report_text = render_report(outcome)
        return outcome
    with file_lock(consolidation_lock(location, environ), lock_timeout):
        try:
            _run(outcome, project_dir, location, settings, environ, git_timeout)
        except PokayokayError as exc:
            outcome.errors.append(exc.message)
            raise
        finally:
            from pokayokay.infra.state import mark_memory_changed

            env = None if environ is None else dict(environ)
            mark_memory_changed(str(location.project_key), env)
            if outcome.report is not None:
                save_state(location, outcome.report, environ)
            outcome.report_path = location.memory_dir / REPORT_NAME
            outcome.report_text = render_report(outcome)
            try:
                outcome.report_path.parent.mkdir(parents=True, exist_ok=True)
                write_atomic(
                    checked_target(location, REPORT_NAME), encode_text(outcome.report_text)
                )
            except (OSError, PokayokayError) as exc:
                outcome.errors.append(f"could not write the report: {exc}")
                outcome.report_path = None
    return outcome


def _run(
    outcome: ConsolidationOutcome,
    project_dir: Path,
    location: MemoryLocation,
    settings: Settings,
    environ: Mapping[str, str] | None,
    git_timeout: float,
) -> None:
    from pokayokay.learnings.aging.ages import ages
    from pokayokay.learnings.consolidate import consolidation
    from pokayokay.learnings.consolidate.consolidation import (
        batch_problem,
        qualifying,
        should_trigger,
    )
    from pokayokay.learnings.consolidate.routing import (
        Route,
        SectionInfo,
        default_routes,
        remove_entries,
        route,
    )
    from pokayokay.memory.apply import SectionEdit, run_curation
    from pokayokay.memory.document import count_lines

    config, day, path = outcome.config, outcome.today, outcome.learnings
    if not path.exists():
        outcome.problem = f"{path} does not exist: nothing to consolidate"
        return
    report = ages(path, today=day, freshness=config.freshness, environ=environ, timeout=git_timeout)
    outcome.report = report
    ages_list = [a.age for a in report.ages]
    outcome.trigger = should_trigger(report.file_lines, report.staleness, ages_list, config)
    if not outcome.trigger.triggered:
        outcome.problem = "not due: " + "; ".join(outcome.trigger.reasons)
        return
    batch = qualifying(report.ages, config)
    outcome.qualifying = len(batch)
    problem = batch_problem(len(batch), config)
    if problem is not None:
        outcome.problem = problem
        return

    if not inside(report.path, project_dir):
        outcome.problem = (
            f"{path} leads outside the project {project_dir} (a symlink?); pokayokay only "
            "writes inside the project"
        )
        return
    entries = report.entries
    sections = [SectionInfo(spec.id, spec.title, spec.archive) for spec in settings.sections]
    staging_real = Path(os.path.realpath(path))
    routes: dict[int, Route | str] = {}
    for index in batch:
        found = route(entries[index], sections, config)
        if (
            isinstance(found, Route)
            and found.kind == "project"
            and Path(os.path.realpath(project_dir / found.path)) == staging_real
        ):
            found = f"Target {found.path!r} is the learnings file itself"
        routes[index] = found
    context = default_routes(sections, config)
    texts, routes = target_texts(routes, project_dir, location, settings, config, context)
    plan = consolidation.plan_batch(
        entries,
        report.ages,
        batch,
        routes,
        texts,
        today=day,
        source=report.display,
        config=config,
    )
    outcome.plan = plan
    failed: set[int] = set()

    # 1. files: archive, dropped file, rules, docs, topic files
    for key, blocks in plan.blocks.items():
        owners = [i for i, keys in plan.writes.items() if key in keys]
        try:
            target = file_target(key, project_dir, location, config)
            if outcome.dry_run:
                text, data = read_text(target.path)
                new, split = planned_file(target, blocks, config, text)
                before = count_lines(text) if data is not None else None
                if split is None:
                    outcome.changes.append(
                        FileChange(target.path, "append", before, count_lines(new))
                    )
                else:
                    counts = [(target.path.name, count_lines(split.original))]
                    counts += [(name, count_lines(part)) for name, part in split.parts]
                    outcome.changes.append(
                        FileChange(target.path, "split-original", before, counts[0][1])
                    )
                    for name, lines in counts[1:]:
                        outcome.changes.append(
                            FileChange(target.path.parent / name, "split-part", None, lines)
                        )
                    outcome.splits.append(SplitInfo(target.path, count_lines(new), tuple(counts)))
                continue
            changes, info = write_file(target, blocks, config)
            outcome.changes.extend(changes)
            if info is not None:
                outcome.splits.append(info)
        except (OSError, PokayokayError) as exc:
            message = exc.message if isinstance(exc, PokayokayError) else str(exc)
            outcome.errors.append(f"could not write {key[1]}: {message}")
            failed.update(owners)

    # 2. MEMORY.md sections
    sim: dict[str, Any] = {}
    for section_id, bullets in plan.bullets.items():
        owners = [i for i, keys in plan.writes.items() if ("section", section_id) in keys]
        live = [i for i in owners if i not in failed]
        wanted = [b for i, b in zip(owners, bullets, strict=True) if i not in failed]
        if not live:
            continue
        try:
            if outcome.dry_run:
                before, after = memory_plan(location, settings, section_id, wanted, day, sim)
                outcome.changes.append(
                    FileChange(location.memory_file, f"memory:{section_id}", before, after)
                )
                continue
            edit = SectionEdit(section_id, tuple(wanted), owns=owns_nothing)
            done = run_curation(location, settings, write=True, today=day, edit=edit)
            if done.result is None:
                raise PokayokayError(f"{location.memory_file} does not exist")
            source = done.source_text if done.source_text is not None else done.result.original
            outcome.changes.append(
                FileChange(
                    location.memory_file,
                    f"memory:{section_id}",
                    count_lines(source),
                    done.result.after.lines,
                )
            )
        except (OSError, PokayokayError) as exc:
            message = exc.message if isinstance(exc, PokayokayError) else str(exc)
            outcome.errors.append(f"could not add to MEMORY.md ({section_id}): {message}")
            failed.update(live)

    # 2b. every memory-folder file written is linked from the Topic Index
    from pokayokay.learnings.consolidate.consolidation_links import link_written

    link_written(outcome, location, settings, day, sim, memory_plan)

    # 3. the staging file
    removed = [text for index, text in plan.removed if index not in failed]
    for index in sorted(failed):
        decision = plan.decisions[index]
        outcome.errors.append(f"{decision.title!r} stays in {report.display}: its target failed")
    if not removed:
        return
    if outcome.dry_run:
        new, _ = remove_entries(report.text, removed)
        outcome.changes.append(FileChange(path, "staging", report.file_lines, count_lines(new)))
        return
    _write_staging(outcome, report.path, report, removed)


def _write_staging(
    outcome: ConsolidationOutcome, path: Path, report: AgesReport, removed: Sequence[str]
) -> None:
    from pokayokay.errors import ConcurrentChangeError
    from pokayokay.infra.safe_write import (
        decode_text,
        encode_text,
        read_bytes,
        replace_if_unchanged,
        with_retries,
    )
    from pokayokay.learnings.consolidate.routing import remove_entries
    from pokayokay.memory.document import count_lines

    first: list[bytes | None] = [report.data]

    def step(attempt: int) -> None:
        data = first[0] if attempt == 1 else read_bytes(path)
        if data is None:
            outcome.errors.append(f"{path} disappeared; the moved entries are in their targets")
            return
        text = decode_text(data, path)
        new, missing = remove_entries(text, removed)
        replace_if_unchanged(path, data, encode_text(new), keep_appends=True)
        for block in missing:
            title = block.splitlines()[0] if block else "?"
            outcome.errors.append(
                f"{title!r} changed in {report.display} meanwhile: left there (its earlier text "
                "is in its target)"
            )
        outcome.changes.append(FileChange(path, "staging", count_lines(text), count_lines(new)))

    try:
        with_retries(step, what=str(path))
    except ConcurrentChangeError:
        outcome.errors.append(f"{path} kept changing; the moved entries are still in it too")


# -- report ------------------------------------------------------------------------------------


# -- SessionEnd --------------------------------------------------------------------------------
