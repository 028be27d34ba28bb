"""``init`` and ``uninstall`` around the hook wiring: the ``capturing-learnings`` skill, what a
plain ``uninstall`` leaves in place (and how to remove it), ``uninstall --purge`` and
``init --restore``.

``--purge`` takes pokayokay out of the project completely: the hooks, ``/remember`` and the skill,
the graduated rules under ``.claude/rules/pokayokay/`` (copied first to
``<state>/purged/<slug>/<time>/``, which ``init --restore`` copies back), pokayokay's markers and
empty sections in MEMORY.md (every entry kept in place as a plain bullet; the file as it was is
copied beside the rules), the lines of its sections that point at the rules it removed, and the
project's state: its state folder, its lesson lookup (the hint before a command) and its spool of
hook records not yet read — nothing a later ``init`` would read as evidence of failures. The work
tree is then as it was before ``init``. Learnings and archives in the auto-memory folder are
Claude Code memories: they stay.
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from pokayokay.install import wiring
from pokayokay.install.settings_files import absolute_project, manifest_project_key, settings_file
from pokayokay.names import BACKUPS_DIR, MEMORY_FILE, RULES_SUBDIR

if TYPE_CHECKING:
    from pokayokay.infra.locate import MemoryLocation
    from pokayokay.memory.sections import Settings

PURGED_DIR = "purged"
RULES_COPY = "rules"
# A settings file as it was before the first init (per scope), so that uninstall can give back
# the very bytes when the content is the same again (init re-serialises the JSON).
ORIGINALS_DIR = "settings-before-init"


def _env(environ: Mapping[str, str] | None) -> dict[str, str] | None:
    return None if environ is None else dict(environ)


def project_state(project_dir: Path, environ: Mapping[str, str] | None = None) -> Path:
    from pokayokay.infra.state import project_state_dir

    return project_state_dir(manifest_project_key(project_dir), _env(environ))


def purged_root(project_dir: Path, environ: Mapping[str, str] | None = None) -> Path:
    """Where ``--purge`` keeps its copies for this project: ``<state>/purged/<slug>/``."""
    from pokayokay.infra.state import state_home

    return state_home(_env(environ)) / PURGED_DIR / project_state(project_dir, environ).name


def _skills_dir(project_dir: Path, scope: str, environ: Mapping[str, str] | None) -> Path:
    if scope == "user":
        from pokayokay.infra.locate import claude_config_dir

        return claude_config_dir(environ) / "skills"
    return settings_file(project_dir, scope, environ).parent / "skills"


def _rules_dir(project_dir: Path) -> Path:
    return absolute_project(project_dir) / ".claude" / Path(*RULES_SUBDIR)


def _rule_files(project_dir: Path) -> list[Path]:
    folder = _rules_dir(project_dir)
    if not folder.is_dir() or folder.is_symlink():
        return []
    return sorted(p for p in folder.rglob("*") if p.is_file() or p.is_symlink())


def _rel(path: Path, project_dir: Path) -> str:
    try:
        return path.relative_to(absolute_project(project_dir)).as_posix()
    except ValueError:
        return str(path)


# --- init ---------------------------------------------------------------------------------------


def init(
    project_dir: Path,
    *,
    scope: str = "project",
    absolute: bool = False,
    restore: bool = False,
    environ: Mapping[str, str] | None = None,
    location: MemoryLocation | None = None,
    settings: Settings | None = None,
) -> wiring.InstallReport:
    """:func:`wiring.init`, then the skill; with ``restore``, the rules a purge kept."""
    from pokayokay.learnings.capture.skill_install import install_skill

    _record_original(project_dir, scope, environ)
    report = wiring.init(
        project_dir, scope=scope, absolute=absolute, environ=environ, location=location,
        settings=settings,
    )
    root = None if scope == "user" else absolute_project(project_dir)
    report.notes.append(install_skill(_skills_dir(project_dir, scope, environ), root=root))
    if restore:
        report.notes.extend(restore_rules(project_dir, environ))
    report.notes.extend(_phrases_next(project_dir, environ))
    return report


def _phrases_next(project_dir: Path, environ: Mapping[str, str] | None) -> list[str]:
    """The next step when skills visible here have no phrases yet (decision 0176: suggestion
    finds a skill far more often once Claude has written how a user might ask for it)."""
    from pokayokay.skills.phrase_hint import unasked_here

    try:
        # no catalog cached by the way: the first prompt analyses and keeps it
        without, visible = unasked_here(absolute_project(project_dir), environ, use_cache=False)
    except OSError:
        return []
    if not without:
        return []
    if len(without) < visible:
        which = f"{len(without)} of the {visible} skills visible here have"
    elif visible == 1:
        which = "the skill visible here has"
    else:
        which = f"the {visible} skills visible here have"
    return [
        f"next: {which} no phrases yet; run /skill-phrases once in Claude Code (Claude writes "
        "how you might ask for each, and skill suggestions find them far more often)"
    ]


def latest_purge(project_dir: Path, environ: Mapping[str, str] | None = None) -> Path | None:
    root = purged_root(project_dir, environ)
    try:
        stamps = sorted(p for p in root.iterdir() if p.is_dir())
    except OSError:
        return None
    return stamps[-1] if stamps else None


def restore_rules(project_dir: Path, environ: Mapping[str, str] | None = None) -> list[str]:
    """Copy back the graduated rules the latest purge kept (a rule file that exists again is
    left as it is)."""
    kept = latest_purge(project_dir, environ)
    source = kept / RULES_COPY if kept is not None else None
    if source is None or not source.is_dir():
        return ["--restore: no purged rules to bring back for this project"]
    target = absolute_project(project_dir) / ".claude" / "rules"
    out: list[str] = []
    for path in sorted(p for p in source.rglob("*") if p.is_file()):
        rel = path.relative_to(source)
        dest = target / rel
        if dest.exists():
            out.append(f"--restore: {_rel(dest, project_dir)} exists: left as it is")
            continue
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, dest)
        out.append(f"restored {_rel(dest, project_dir)}")
    out.append(f"(the copy stays in {kept})")
    return out


# --- the settings file's own bytes -------------------------------------------------------------


def _original_copy(project_dir: Path, scope: str, environ: Mapping[str, str] | None) -> Path:
    return project_state(project_dir, environ) / ORIGINALS_DIR / f"{scope}.json"


def _record_original(project_dir: Path, scope: str, environ: Mapping[str, str] | None) -> None:
    """Keep the settings file's bytes the first time init touches it."""
    from pokayokay.infra.safe_write import read_bytes, write_atomic

    copy = _original_copy(project_dir, scope, environ)
    if copy.exists():
        return
    raw = read_bytes(settings_file(project_dir, scope, environ))
    if raw is None:
        return
    copy.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(copy, raw)


def _give_back_original(
    project_dir: Path, scope: str, environ: Mapping[str, str] | None
) -> None:
    """After uninstall: when the settings file holds the same JSON as before init, put back
    the original bytes (formatting, key order, final newline); otherwise leave it."""
    import json

    from pokayokay.infra.safe_write import read_bytes, replace_if_unchanged

    copy = _original_copy(project_dir, scope, environ)
    target = settings_file(project_dir, scope, environ)
    original, current = read_bytes(copy), read_bytes(target)
    if original is None or current is None or original == current:
        return
    try:
        same = json.loads(original) == json.loads(current)
    except ValueError:
        return  # not JSON: keep what is there
    if same:
        try:
            replace_if_unchanged(target, current, original)
        except Exception as exc:  # changed again, or not writable: the copy stays for a retry
            from pokayokay.infra.logs import fail_open

            fail_open(f"uninstall: giving {target} back its original bytes", exc)
            return
    with contextlib.suppress(OSError):  # a copy left behind is compared again next time
        copy.unlink()


# --- uninstall ----------------------------------------------------------------------------------


def uninstall(
    project_dir: Path,
    *,
    scope: str = "project",
    purge: bool = False,
    environ: Mapping[str, str] | None = None,
    location: MemoryLocation | None = None,
) -> wiring.InstallReport:
    """:func:`wiring.uninstall`; with ``purge`` everything else of pokayokay's in the project
    (module docstring); without, a list of what stays and how to remove it."""
    if location is None:
        from pokayokay.infra.locate import resolve_memory_location

        location = resolve_memory_location(absolute_project(project_dir), environ=environ)
    if not purge:
        report = wiring.uninstall(project_dir, scope=scope, environ=environ)
        _give_back_original(project_dir, scope, environ)
        report.notes.extend(leftovers(project_dir, location, scope, environ))
        return report
    return _purge(project_dir, scope, location, environ)


def _purge(
    project_dir: Path,
    scope: str,
    location: MemoryLocation,
    environ: Mapping[str, str] | None,
) -> wiring.InstallReport:
    from pokayokay.learnings.capture.skill_install import uninstall_skill

    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    keep = purged_root(project_dir, environ) / stamp
    notes: list[str] = []

    rules = _rule_files(project_dir)
    if rules:
        rules_root = absolute_project(project_dir) / ".claude" / "rules"
        for path in rules:
            dest = keep / RULES_COPY / path.relative_to(rules_root)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, dest, follow_symlinks=False)
        for path in rules:
            path.unlink()
        _remove_empty(_rules_dir(project_dir), stop=rules_root.parent)
        one = len(rules) == 1
        notes.append(
            f"removed {len(rules)} graduated rule file{'' if one else 's'} from "
            f"{_rel(_rules_dir(project_dir), project_dir)}/ (a copy is in {keep}; "
            f"`pokayokay init --restore` brings {'it' if one else 'them'} back)"
        )
    removed = [_rel(path, project_dir) for path in rules]
    notes.extend(_unmanage_memory(location, keep, removed))

    scopes = [scope] + [s for s in _other_installs(project_dir, environ) if s != scope]
    report: wiring.InstallReport | None = None
    for each in scopes:
        if each == "user" and each != scope:
            notes.append(
                "hooks are also registered in your user settings (every project): "
                "`pokayokay uninstall --user` removes them"
            )
            continue
        skill = uninstall_skill(
            _skills_dir(project_dir, each, environ),
            root=None if each == "user" else absolute_project(project_dir),
        )
        done = wiring.uninstall(project_dir, scope=each, environ=environ)
        _give_back_original(project_dir, each, environ)
        if skill:
            done.notes.append(skill)
        if report is None:
            report = done
        else:
            report.notes.extend(done.lines())
    assert report is not None
    for each in scopes:
        if each != "user":
            _remove_empty(settings_file(project_dir, each, environ).parent, stop=None)

    state = project_state(project_dir, environ)
    if state.is_dir():
        shutil.rmtree(state)
        notes.append(f"removed pokayokay's state folder for this project, {state}")
    notes.extend(_forget_evidence(project_dir, location, environ))
    with contextlib.suppress(OSError):  # unreadable: no note
        kept = sorted(p.name for p in location.memory_dir.iterdir())
        if kept:
            notes.append(
                f"kept in {location.memory_dir}: {len(kept)} file{'' if len(kept) == 1 else 's'} "
                "(learnings, archives, Claude's own memories: Claude Code memories, not "
                "pokayokay's; delete them by hand if you want them gone)"
            )
    notes.append(_program_note())
    report.notes.extend(notes)
    return report


def _forget_evidence(
    project_dir: Path, location: MemoryLocation, environ: Mapping[str, str] | None
) -> list[str]:
    """Remove what pokayokay keeps for the project outside its state folder and would read
    again after a new ``init``: the lesson lookup the command hooks read (it gave the pre-run
    hint after a reinstall) and the spool of hook records not yet ingested."""
    from pokayokay.infra.lesson_lookup import write_lookup
    from pokayokay.infra.spool import spool_dir
    from pokayokay.rules.lessons import lookup_folders

    env = _env(environ)
    folders = lookup_folders(str(location.project_key), [str(absolute_project(project_dir))])
    out = [f"removed the lesson lookup {path}" for path in write_lookup(folders, None, env)]
    for folder in dict.fromkeys([str(absolute_project(project_dir)), str(location.project_key)]):
        spool = Path(spool_dir(folder, env))
        if spool.is_dir() and not spool.is_symlink():
            shutil.rmtree(spool)
            out.append(f"removed the hook records not yet read, {spool}")
    return out


def _other_installs(project_dir: Path, environ: Mapping[str, str] | None) -> list[str]:
    from pokayokay.install.settings_files import manifest_path, read_manifest

    try:
        manifest = read_manifest(manifest_path(project_dir, environ))
    except Exception as exc:  # unknown: no other install is named, and the log says why
        from pokayokay.infra.logs import fail_open

        fail_open("uninstall: reading the install manifest", exc)
        return []
    return [str(entry.get("scope")) for entry in manifest.get("installs", [])
            if entry.get("scope") in ("project", "local", "user")]


def _remove_empty(folder: Path, *, stop: Path | None) -> None:
    """Remove ``folder`` and then its parents while they are empty, not past ``stop``."""
    current = folder
    while True:
        if stop is not None and current == stop:
            return
        try:
            current.rmdir()
        except OSError:
            return  # not empty, or not ours to remove
        if stop is None:
            return
        current = current.parent


def _unmanage_memory(location: MemoryLocation, keep: Path, removed: list[str]) -> list[str]:
    """MEMORY.md without pokayokay's markers and empty sections, nor the entries of its
    sections that point at a ``removed`` rule (a copy first); the file goes when nothing but
    the template's title is left."""
    from pokayokay.infra.safe_write import (
        Conflict,
        decode_text,
        encode_text,
        read_bytes,
        replace_if_unchanged,
        with_retries,
        write_atomic,
    )
    from pokayokay.memory.unmanage import is_title_only, unmanage

    target = location.memory_file
    if target.is_symlink() or not target.is_file():
        return []

    def step(_attempt: int) -> str | None:
        raw = read_bytes(target)
        if raw is None:
            return None
        text = decode_text(raw, target)
        new = unmanage(text, removed)
        if new == text and not is_title_only(new):
            return None
        write_atomic(keep / MEMORY_FILE, raw)  # 0600 in 0700 folders: the state folder
        if is_title_only(new):
            if read_bytes(target) != raw:
                raise Conflict(str(target))
            target.unlink()
            return (
                f"removed {target}: it held nothing but pokayokay's empty sections "
                f"(a copy is in {keep})"
            )
        replace_if_unchanged(target, raw, encode_text(new))
        gone = [p for p in removed if p in text and p not in new]
        kept = "every entry kept" if not gone else (
            f"the entries pointing at the {len(gone)} removed rule file(s) removed, every other "
            "entry kept"
        )
        return (
            f"{target}: pokayokay's markers and empty sections removed, {kept} "
            f"(the file as it was is in {keep})"
        )

    done = with_retries(step, what=str(target))
    return [done] if done else []


def _program_note() -> str:
    return (
        "the pokayokay program itself stays installed: remove it with `pipx uninstall pokayokay`, "
        "`uv tool uninstall pokayokay`, or by deleting the venv it was installed in"
    )


def leftovers(
    project_dir: Path,
    location: MemoryLocation,
    scope: str,
    environ: Mapping[str, str] | None = None,
) -> list[str]:
    """What a plain ``uninstall`` leaves, each with how to remove it."""
    from pokayokay.learnings.capture.skill_install import SKILL_FILE, SKILL_NAME, is_our_skill
    from pokayokay.learnings.topics.stored import learning_files

    items: list[str] = []
    rules = _rule_files(project_dir)
    if rules:
        one = len(rules) == 1
        items.append(
            f"{_rel(_rules_dir(project_dir), project_dir)}/: {len(rules)} graduated rule "
            f"file{'' if one else 's'}. Claude Code keeps loading {'it' if one else 'them'}; "
            f"`pokayokay uninstall --purge` removes {'it' if one else 'them'} (keeping a copy), "
            "or delete the folder"
        )
    skill = _skills_dir(project_dir, scope, environ) / SKILL_NAME / SKILL_FILE
    with contextlib.suppress(OSError):  # unreadable: not listed
        if skill.is_file() and is_our_skill(skill.read_bytes()):
            items.append(
                f"{_rel(skill.parent, project_dir)}/: the {SKILL_NAME} skill (tells Claude "
                "when to offer /remember); `--purge` removes it, or delete the folder"
            )
    memory = location.memory_file
    with contextlib.suppress(OSError):  # unreadable: not listed
        if memory.is_file() and b"<!-- pokayokay:" in memory.read_bytes():
            items.append(
                f"{memory}: pokayokay's section markers (HTML comments Claude Code strips before "
                "the model reads the file); `--purge` removes them and the empty sections, "
                "keeping every entry"
            )
    learnings = learning_files(location.memory_dir)
    if learnings:
        items.append(
            f"{location.memory_dir}: {len(learnings)} learning"
            f"{'' if len(learnings) == 1 else 's'} stored with /remember (Claude Code memories: "
            "kept even by `--purge`; delete the learning-*.md files by hand to drop them)"
        )
    state = project_state(project_dir, environ)
    if state.is_dir() and any(state.iterdir()):
        what = [name for name in ("failures.db", BACKUPS_DIR) if (state / name).exists()]
        detail = f" ({', '.join(what)})" if what else ""
        items.append(f"{state}: pokayokay's state for this project{detail}; `--purge` removes it")
    if not items:
        return [_program_note()]
    return ["left in place:", *(f"  {item}" for item in items), _program_note()]

