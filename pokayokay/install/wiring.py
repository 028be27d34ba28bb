"""``pokayokay init`` / ``pokayokay uninstall``: pokayokay's hooks in Claude Code settings files.

``init`` merges one handler per row of :data:`pokayokay.hooks.events.HOOKED_EVENTS` into a settings
file
(project, local or user scope), keeping everything else in the file, and records what it added in
an install manifest in the project's state folder. ``uninstall`` removes pokayokay's handlers
again and nothing else. :func:`find_installed_hooks` tells ``doctor`` where pokayokay is registered
and whether the registered commands still resolve. :func:`plugin_hooks_json` generates the
plugin's ``hooks/hooks.json`` from the same table.

Manifest (``<state>/projects/<slug>/install.json``)::

    {"version": 1,
     "installs": [{"scope": "project",
                   "settings_file": "/abs/path/.claude/settings.json",
                   "created_file": true,        # init created the settings file
                   "created_dir": false,        # ... and the folder holding it
                   "created_keys": ["hooks", "hooks.SessionStart", ...],
                   "handlers": [{"event": "SessionStart", "matcher": null,
                                 "handler": {"type": "command", ...}}, ...],
                   "installed_at": "2026-11-22T10:00:00+00:00",
                   "pokayokay_version": "0.1.0"}]}
"""

from __future__ import annotations

import contextlib
import copy
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pokayokay import __version__
from pokayokay.errors import PokayokayError
from pokayokay.hooks.events import HOOKED_EVENTS
from pokayokay.infra.safe_write import Conflict, with_retries
from pokayokay.install.handlers import (
    event_handler,
    group_matcher,
    hook_command,
    hook_group,
    is_hook_group,
    is_pokayokay_handler,
    shown_command,
)
from pokayokay.install.settings_files import (
    JsonObject,
    absolute_project,
    dump_json,
    manifest_entry,
    manifest_path,
    read_json_file,
    read_manifest,
    save_manifest,
    settings_file,
    write_settings_atomic,
)

if TYPE_CHECKING:
    from pokayokay.infra.locate import MemoryLocation
    from pokayokay.memory.sections import Settings


# --- recognising and building handlers --------------------------------------------------------


# --- where the settings files are -------------------------------------------------------------


# --- reading and writing JSON -----------------------------------------------------------------


# --- the manifest -----------------------------------------------------------------------------


# --- the report -------------------------------------------------------------------------------


@dataclass(frozen=True)
class HookChange:
    """One handler added, replaced or removed (``old`` is set for replacements and removals)."""

    event: str
    matcher: str | None
    handler: JsonObject | None
    old: JsonObject | None = None


@dataclass
class InstallReport:
    """What ``init`` or ``uninstall`` did, for the CLI to print (``lines()``)."""

    action: str  # "init" | "uninstall"
    scope: str
    settings_file: Path
    changed: bool = False
    created_file: bool = False
    deleted_file: bool = False
    added: list[HookChange] = field(default_factory=list)
    replaced: list[HookChange] = field(default_factory=list)
    removed: list[HookChange] = field(default_factory=list)
    form: str | None = None  # "path" | "absolute": how init registered the command
    memory: str | None = None  # what ensure_memory_template did
    manifest: Path | None = None
    notes: list[str] = field(default_factory=list)

    def render(self) -> str:
        return "\n".join(self.lines())

    def lines(self) -> list[str]:
        out: list[str] = []
        target = self.settings_file
        if self.created_file:
            out.append(f"created {target}")
        for change in self.added:
            assert change.handler is not None
            out.append(f"{change.event}: added `{shown_command(change.handler)}`")
        for change in self.replaced:
            assert change.handler is not None and change.old is not None
            out.append(
                f"{change.event}: replaced `{shown_command(change.old)}` "
                f"by `{shown_command(change.handler)}`"
            )
        for change in self.removed:
            assert change.old is not None
            out.append(f"{change.event}: removed `{shown_command(change.old)}`")
        if self.deleted_file:
            out.append(f"deleted {target} (init had created it and it is empty now)")
        if not self.changed:
            if self.action == "init":
                out.append(f"pokayokay hooks already installed in {target}")
            else:
                out.append(f"no pokayokay hooks in {target}; nothing to remove")
        if self.memory:
            out.append(self.memory)
        out.extend(self.notes)
        return out


# --- init -------------------------------------------------------------------------------------


def _event_lists(data: JsonObject, path: Path, *, create: bool) -> JsonObject | None:
    hooks = data.get("hooks")
    if hooks is None:
        if not create:
            return None
        hooks = data["hooks"] = {}
    if not isinstance(hooks, dict):
        raise PokayokayError(f'{path}: "hooks" is not a JSON object; nothing was changed')
    return hooks


def _strip_ours(
    groups: list[Any], event: str, keep: tuple[str | None, JsonObject] | None
) -> tuple[list[Any], list[HookChange], bool]:
    """Remove pokayokay's handlers from one event's groups.

    With ``keep`` = (matcher, handler): the first pokayokay handler in a group with that matcher
    is replaced by ``handler`` instead. Groups left empty by the removal are dropped (groups
    that were empty before are left alone). Returns the new groups, what was removed or
    replaced, and whether ``keep`` found a place.
    """
    new_groups: list[Any] = []
    changes: list[HookChange] = []
    placed = False
    for group in groups:
        if not is_hook_group(group) or not any(is_pokayokay_handler(h) for h in group["hooks"]):
            new_groups.append(group)
            continue
        entries: list[Any] = []
        for handler in group["hooks"]:
            if not is_pokayokay_handler(handler):
                entries.append(handler)
            elif keep is not None and not placed and group_matcher(group) == keep[0]:
                entries.append(keep[1])
                placed = True
                if handler != keep[1]:
                    changes.append(HookChange(event, keep[0], keep[1], handler))
            else:
                changes.append(HookChange(event, group_matcher(group), None, handler))
        if entries:
            group["hooks"] = entries
            new_groups.append(group)
    return new_groups, changes, placed


def _plan_init(
    data: JsonObject,
    path: Path,
    command: str,
    lead: Sequence[str],
    report: InstallReport,
    environ: Mapping[str, str] | None = None,
) -> tuple[list[str], list[JsonObject]]:
    """Put pokayokay's handlers into ``data`` (in place). Returns the keys it created and the
    handlers now registered, for the manifest."""
    created: list[str] = []
    if "hooks" not in data:
        created.append("hooks")
    hooks = _event_lists(data, path, create=True)
    assert hooks is not None
    registered: list[JsonObject] = []
    for spec in HOOKED_EVENTS:
        desired = event_handler(spec, command, lead, environ)
        if spec.event not in hooks:
            hooks[spec.event] = []
            created.append(f"hooks.{spec.event}")
        groups = hooks[spec.event]
        if not isinstance(groups, list):
            raise PokayokayError(
                f'{path}: "hooks.{spec.event}" is not a JSON array; nothing was changed'
            )
        new_groups, changes, placed = _strip_ours(groups, spec.event, (spec.matcher, desired))
        if not placed:
            new_groups.append(hook_group(spec, desired))
            report.added.append(HookChange(spec.event, spec.matcher, desired))
        for change in changes:
            (report.replaced if change.handler is not None else report.removed).append(change)
        groups[:] = new_groups
        registered.append({"event": spec.event, "matcher": spec.matcher, "handler": desired})
    # Handlers for events pokayokay no longer hooks (left by an older version) go away.
    hooked = {spec.event for spec in HOOKED_EVENTS}
    for event in list(hooks):
        groups = hooks[event]
        if event in hooked or not isinstance(groups, list):
            continue
        new_groups, changes, _ = _strip_ours(groups, event, None)
        if changes:
            report.removed.extend(changes)
            if new_groups:
                groups[:] = new_groups
            else:
                del hooks[event]
    return created, registered


def _ensure_memory_template(location: MemoryLocation, settings: Settings) -> str:
    from pokayokay.memory.apply import ensure_memory_template

    return ensure_memory_template(location, settings)


def _check_target(path: Path, scope: str) -> None:
    """A project or local settings file must really be inside the project (symlinks resolved):
    pokayokay writes nothing outside the project's ``.claude/`` through a link."""
    if scope == "user":
        return
    root = Path(os.path.realpath(path.parent.parent))
    real = Path(os.path.realpath(path))
    if not real.is_relative_to(root):
        raise PokayokayError(
            f"{path} leads to {real}, outside the project; pokayokay does not write there "
            "(edit that file by hand, or use the user scope)"
        )


def _update_settings_file(
    target: Path, plan: Callable[[JsonObject], bool], report: InstallReport
) -> bytes | None:
    """Read ``target``, let ``plan`` change the parsed data in place, and write it back if it
    changed, or delete the file if ``plan`` says so; retried when another writer (Claude Code
    itself, say) got in between. Returns the bytes the file held before (None: missing)."""
    real = Path(os.path.realpath(target))

    def step(_attempt: int) -> bytes | None:
        raw, data = read_json_file(target)
        new = copy.deepcopy(data)
        delete = plan(new)
        report.changed = delete or new != data or (raw is None and bool(new))
        if not report.changed:
            return raw
        if delete:
            if real.read_bytes() != raw:
                raise Conflict(str(real))
            real.unlink()
            report.deleted_file = True
        else:
            real.parent.mkdir(parents=True, exist_ok=True)
            write_settings_atomic(real, dump_json(new), raw)
        return raw

    return with_retries(step, what=str(target))


def init(
    project_dir: Path,
    *,
    scope: str = "project",
    absolute: bool = False,
    environ: Mapping[str, str] | None = None,
    location: MemoryLocation | None = None,
    settings: Settings | None = None,
) -> InstallReport:
    """Register pokayokay's hooks in the ``scope`` settings file and create the MEMORY.md
    template. Idempotent; an earlier pokayokay handler in another form is replaced."""
    target = settings_file(project_dir, scope, environ)
    _check_target(target, scope)
    report = InstallReport("init", scope, target)

    # Everything that can fail on bad input fails before anything is written.
    if settings is None:
        from pokayokay.config.settings import load_settings

        settings = load_settings(absolute_project(project_dir))
    if location is None:
        from pokayokay.infra.locate import resolve_memory_location

        location = resolve_memory_location(absolute_project(project_dir), environ=environ)
    command, lead, form = hook_command(absolute=absolute, environ=environ)
    report.form = form
    _, current = read_json_file(target)
    _plan_init(
        copy.deepcopy(current), target, command, lead, InstallReport("init", scope, target), environ
    )

    report.memory = _ensure_memory_template(location, settings)

    dir_existed = os.path.isdir(os.path.dirname(os.path.realpath(target)))
    planned: dict[str, Any] = {}

    def plan(data: JsonObject) -> bool:
        report.added.clear()
        report.replaced.clear()
        report.removed.clear()
        planned["created"], planned["registered"] = _plan_init(
            data, target, command, lead, report, environ
        )
        return False

    raw = _update_settings_file(target, plan, report)
    report.created_file = raw is None and report.changed

    manifest_file = manifest_path(project_dir, environ)
    manifest = read_manifest(manifest_file)
    entry = manifest_entry(manifest, target)
    previous_keys = list(entry.get("created_keys", [])) if entry else []
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    new_entry: JsonObject = {
        "scope": scope,
        "settings_file": str(target),
        "created_file": bool(entry and entry.get("created_file")) or report.created_file,
        "created_dir": bool(entry and entry.get("created_dir"))
        or (report.created_file and not dir_existed),
        "created_keys": previous_keys
        + [key for key in planned["created"] if key not in previous_keys],
        "handlers": planned["registered"],
        "installed_at": now if entry is None or report.changed else entry.get("installed_at", now),
        "pokayokay_version": __version__,
    }
    if entry is not None:
        manifest["installs"][manifest["installs"].index(entry)] = new_entry
    else:
        manifest["installs"].append(new_entry)
    save_manifest(manifest_file, manifest)
    report.manifest = manifest_file

    if form == "absolute" and not absolute:
        report.notes.append(
            f"`pokayokay` is not on PATH: registered {command} -m pokayokay instead "
            "(run `pokayokay init` again if that interpreter moves)"
        )
    if form == "absolute" and scope == "project":
        report.notes.append(
            f"{target} now names an interpreter path of this machine: before committing it, "
            "put pokayokay on PATH (pipx install pokayokay) and run `pokayokay init` again, "
            "or use the local scope"
        )
    if scope == "project":
        from pokayokay.infra.locate import find_git_toplevel

        top = find_git_toplevel(absolute_project(project_dir))
        if top is not None and top != Path(os.path.realpath(project_dir)):
            report.notes.append(
                "project hooks run only when Claude Code is launched in "
                f"{absolute_project(project_dir)}, not elsewhere in {top}; "
                "the local or user scope covers every launch folder"
            )
    from pokayokay.install.slash_commands import install_slash_commands

    commands, root = _commands_dir(project_dir, scope, environ)
    report.notes.extend(install_slash_commands(commands, root=root))
    return report


def _commands_dir(
    project_dir: Path, scope: str, environ: Mapping[str, str] | None
) -> tuple[Path, Path | None]:
    """Where the slash commands go for ``scope``, and the folder they must stay inside."""
    if scope == "user":
        from pokayokay.infra.locate import claude_config_dir

        return claude_config_dir(environ) / "commands", None
    claude_dir = settings_file(project_dir, scope, environ).parent
    return claude_dir / "commands", claude_dir.parent


# --- uninstall --------------------------------------------------------------------------------


def _plan_uninstall(
    data: JsonObject, path: Path, entry: JsonObject | None, report: InstallReport
) -> bool:
    """Remove pokayokay's handlers from ``data`` (in place) and the containers that removal left
    empty, unless the manifest says they were there before init. True: delete the file (init
    created it and nothing else is in it)."""
    hooks = _event_lists(data, path, create=False)
    created = set(entry.get("created_keys", [])) if entry else None
    if hooks is not None:
        for event in list(hooks):
            groups = hooks[event]
            if not isinstance(groups, list):
                continue
            new_groups, changes, _ = _strip_ours(groups, event, None)
            if not changes:
                continue
            report.removed.extend(changes)
            groups[:] = new_groups
            if not groups and (created is None or f"hooks.{event}" in created):
                del hooks[event]
        if report.removed and not hooks and (created is None or "hooks" in created):
            del data["hooks"]
    return bool(entry and entry.get("created_file")) and not data


def uninstall(
    project_dir: Path, *, scope: str = "project", environ: Mapping[str, str] | None = None
) -> InstallReport:
    """Remove pokayokay's handlers from the ``scope`` settings file, and nothing else."""
    target = settings_file(project_dir, scope, environ)
    report = InstallReport("uninstall", scope, target)
    from pokayokay.install.slash_commands import uninstall_slash_commands

    commands, root = _commands_dir(project_dir, scope, environ)
    removed = uninstall_slash_commands(commands, root=root)
    if removed:
        report.notes.extend(removed)
        with contextlib.suppress(OSError):  # not empty: kept
            commands.rmdir()  # only if that left it empty
    manifest_file = manifest_path(project_dir, environ)
    manifest = read_manifest(manifest_file)
    entry = manifest_entry(manifest, target)

    if target.exists():
        _check_target(target, scope)

        def plan(data: JsonObject) -> bool:
            report.removed.clear()
            return _plan_uninstall(data, target, entry, report)

        _update_settings_file(target, plan, report)
    if report.deleted_file and entry and entry.get("created_dir"):
        with contextlib.suppress(OSError):  # not empty: kept
            Path(os.path.realpath(target)).parent.rmdir()  # only if empty

    if entry is not None:
        manifest["installs"].remove(entry)
        save_manifest(manifest_file, manifest)
        report.manifest = manifest_file
    return report


# --- find_installed_hooks ---------------------------------------------------------------------


