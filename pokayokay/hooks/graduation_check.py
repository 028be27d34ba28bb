"""Graduation when the failure store holds evidence it has not seen: the stamp graduation last
ran on, the store's write mark, and the run itself (in the hook, or detached for a large store).
Shared by SessionEnd (:mod:`pokayokay.hooks.session`) and SessionStart catching up on a
SessionEnd that did not finish (:mod:`pokayokay.hooks.catch_up`)."""

from __future__ import annotations

import os

TYPE_CHECKING = False  # no pathlib at run time: SessionStart's check is two stats
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

# Above this failure-store size graduation runs detached (planning reads every group).
DETACH_GRADUATION_ABOVE_BYTES = 16 << 20


# The file in the state folder holding the evidence stamp graduation last ran on.
GRADUATED_STAMP = "graduated.stamp"
# The team folder's stamp (:func:`pokayokay.team.files.folder_stamp`) graduation last read.
TEAM_STAMP = "team.stamp"


def graduate_if_new_evidence(
    project: Path, location: Any, settings: Any, *, when: str = "SessionEnd"
) -> bool:
    """Run graduation when the failure store's evidence changed since the last run (a stamp in
    the state folder holds ``FailureStore.evidence_stamp``: the file's mtime moves on every
    read and checkpoint, the evidence does not). ``when`` names the hook in the log (SessionEnd,
    or SessionStart catching up on a SessionEnd that did not finish). True: graduation ran (or
    was started in the background)."""
    from pokayokay.failures.store import FailureStore
    from pokayokay.infra.detach import detach_command
    from pokayokay.infra.safe_write import encode_text, write_atomic
    from pokayokay.infra.state import project_state_dir
    from pokayokay.names import FAILURES_DB

    folder = project_state_dir(str(location.project_key))
    db = folder / FAILURES_DB
    stamp_file = folder / GRADUATED_STAMP
    team = bool(getattr(settings, "team", False))
    if not db.is_file() and not team:
        return False
    seen = written_mark(folder)  # before the evidence is read: a later write moves it
    stamp = ""
    if db.is_file():
        with FailureStore(db) as store:
            stamp = store.evidence_stamp()
    if team:  # pulled evidence, and a rule retired here (a tombstone to share), are new
        from pokayokay.team.stamp import folder_stamp

        stamp += _archive_stamp(location) + "\n" + folder_stamp(project)
    try:
        if stamp_file.read_text() == stamp:
            _stamp_seen(stamp_file, seen)
            return False
    except OSError:
        pass  # no stamp yet: graduation decides
    if db.is_file() and db.stat().st_size > DETACH_GRADUATION_ABOVE_BYTES:
        write_atomic(stamp_file, encode_text(stamp))  # the detached run logs its own failure
        _stamp_seen(stamp_file, seen)
        detach_command(
            [
                "graduate",
                "--quiet",
                "--project",
                str(project),
                "--memory-dir",
                str(location.memory_dir),
            ],
            f"{when}: new failure evidence in a large store; graduating in the background",
        )
        return True
    from pokayokay.infra import logs
    from pokayokay.team.graduate import graduate_project

    graduate_project(project, location, settings)
    if team:  # this writer's own file just moved: stamped as it is now, not as it was
        from pokayokay.team.stamp import folder_stamp

        stamp = stamp.rpartition("\n")[0] + "\n" + folder_stamp(project)
        write_atomic(folder / TEAM_STAMP, encode_text(folder_stamp(project)))
    write_atomic(stamp_file, encode_text(stamp))
    _stamp_seen(stamp_file, seen)
    logs.log(f"{when}: graduation ran for {project}")
    return True


def _archive_stamp(location: Any) -> str:
    """The size and mtime of ``rules-archive.md``: a retirement moves them."""
    from pokayokay.names import RULES_ARCHIVE_FILE

    try:
        st = os.stat(location.memory_dir / RULES_ARCHIVE_FILE)
    except OSError:
        return " archive:-"
    return f" archive:{st.st_size}:{st.st_mtime_ns}"


def written_mark(state_folder: str | os.PathLike[str]) -> int | None:
    """The mtime (ns) of the store's write mark (``failures.db.changed``, touched after every
    write and only then; the store file's own mtime moves on reads too), None without one."""
    from pokayokay.names import FAILURES_CHANGED

    try:
        return os.stat(os.path.join(state_folder, FAILURES_CHANGED)).st_mtime_ns
    except OSError:
        return None


def _stamp_seen(stamp_file: Path, seen: int | None) -> None:
    """Give the stamp the write mark's mtime seen before the evidence was read: while the two
    are equal no write came since, and SessionStart's check costs two stats
    (:func:`pokayokay.hooks.catch_up.graduation_may_be_due`)."""
    if seen is None:
        return
    import contextlib

    # On failure the stamp's content still decides; SessionStart just compares it once more.
    with contextlib.suppress(OSError):
        os.utime(stamp_file, ns=(seen, seen))
