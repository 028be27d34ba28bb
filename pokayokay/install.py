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
import json
import os
import shlex
import shutil
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pokayokay import __version__
from pokayokay.errors import ConcurrentChangeError, PokayokayError
from pokayokay.hooks.events import HOOKED_EVENTS, HookSpec
from pokayokay.infra.safe_write import Conflict, replace_if_unchanged

if TYPE_CHECKING:
    from pokayokay.infra.locate import MemoryLocation
    from pokayokay.memory.sections import Settings

SCOPES: tuple[str, ...] = ("project", "local", "user")
COMMAND = "pokayokay"
PLUGIN_SHIM_NAME = "pokayokay-hook"
PLUGIN_COMMAND = "${CLAUDE_PLUGIN_ROOT}/hooks/" + PLUGIN_SHIM_NAME
PLUGIN_HOOKS_DESCRIPTION = (
    "pokayokay: curates MEMORY.md and captures recurring failures "
    "(every handler runs `pokayokay hook <Event>`)"
)
MANIFEST_NAME = "install.json"
MANIFEST_VERSION = 1
_WRITE_ATTEMPTS = 5

JsonObject = dict[str, Any]


# --- recognising and building handlers --------------------------------------------------------


def _basename(command: str) -> str:
    name = command.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return name[: -len(".exe")] if name.endswith(".exe") else name


def _argv(handler: Mapping[str, Any]) -> list[str] | None:
    """The handler's argv: exec form as given, shell form only when it is a plain word list."""
    command = handler.get("command")
    if not isinstance(command, str) or not command:
        return None
    args = handler.get("args")
    if args is not None:
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            return None
        return [command, *args]
    # A shell command doing anything more than running one program is not ours to remove.
    if any(ch in command.replace(PLUGIN_COMMAND, "") for ch in ";&|<>`$(){}*?\n"):
        return None
    try:
        return shlex.split(command)
    except ValueError:
        return None


def handler_form(handler: object) -> str | None:
    """``"path"``, ``"absolute"`` or ``"plugin"`` for one of pokayokay's handlers, else None.

    pokayokay's handlers: ``pokayokay hook …`` (any path to the ``pokayokay`` command), any
    interpreter running ``-m pokayokay hook …``, and the plugin shim ``…/pokayokay-hook <Event>``.
    """
    if not isinstance(handler, Mapping) or handler.get("type") != "command":
        return None
    argv = _argv(handler)
    if not argv:
        return None
    name = _basename(argv[0])
    if name == COMMAND and argv[1:2] == ["hook"]:
        return "path"
    if argv[1:4] == ["-m", "pokayokay", "hook"]:
        return "absolute"
    if name == PLUGIN_SHIM_NAME:
        return "plugin"
    return None


def is_pokayokay_handler(handler: object) -> bool:
    return handler_form(handler) is not None


def _handler(command: str, args: Sequence[str], spec: HookSpec) -> JsonObject:
    return {"type": "command", "command": command, "args": list(args), "timeout": spec.timeout}


def _group(spec: HookSpec, handler: JsonObject) -> JsonObject:
    group: JsonObject = {}
    if spec.matcher is not None:
        group["matcher"] = spec.matcher
    group["hooks"] = [handler]
    return group


def _env(environ: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if environ is None else environ


def hook_command(
    *, absolute: bool = False, environ: Mapping[str, str] | None = None
) -> tuple[str, list[str], str]:
    """The command and leading args init registers, and its form (``"path"``/``"absolute"``).

    ``pokayokay`` by name when it is on PATH (portable: fine in a committed settings file),
    else this interpreter's absolute path with ``-m pokayokay``.
    """
    if not absolute and shutil.which(COMMAND, path=_env(environ).get("PATH")):
        return COMMAND, ["hook"], "path"
    if not sys.executable:
        raise PokayokayError(
            "pokayokay is not on PATH and the Python interpreter's path is unknown; "
            "install pokayokay with pipx or uv tool, then run `pokayokay init` again"
        )
    return os.path.abspath(sys.executable), ["-m", "pokayokay", "hook"], "absolute"


def plugin_hooks_json() -> JsonObject:
    """The content of the plugin's ``hooks/hooks.json``, generated from ``HOOKED_EVENTS``."""
    hooks: JsonObject = {}
    for spec in HOOKED_EVENTS:
        handler = _handler(PLUGIN_COMMAND, [spec.event], spec)
        hooks.setdefault(spec.event, []).append(_group(spec, handler))
    return {"description": PLUGIN_HOOKS_DESCRIPTION, "hooks": hooks}


def render_plugin_hooks_json() -> str:
    """``plugin_hooks_json()`` as the text committed in ``hooks/hooks.json``."""
    return json.dumps(plugin_hooks_json(), indent=2) + "\n"


def _show(handler: Mapping[str, Any]) -> str:
    argv = _argv(handler) or [str(handler.get("command"))]
    return " ".join(shlex.quote(word) if word else "''" for word in argv)


# --- where the settings files are -------------------------------------------------------------


def _project(project_dir: Path) -> Path:
    return Path(os.path.abspath(project_dir))


def settings_file(
    project_dir: Path, scope: str = "project", environ: Mapping[str, str] | None = None
) -> Path:
    """The Claude Code settings file of ``scope`` for a project launched in ``project_dir``."""
    from pokayokay.infra.locate import claude_config_dir, find_git_toplevel

    project = _project(project_dir)
    if scope == "project":
        return project / ".claude" / "settings.json"
    if scope == "local":
        # Claude Code reads settings.local.json at the repository's top level (v2.1.211+).
        top = find_git_toplevel(project)
        return (top if top is not None else project) / ".claude" / "settings.local.json"
    if scope == "user":
        return claude_config_dir(environ) / "settings.json"
    raise PokayokayError(f"unknown scope {scope!r}: use one of {', '.join(SCOPES)}")


def _project_key(project_dir: Path) -> str:
    from pokayokay.infra.locate import find_git_root

    project = Path(os.path.realpath(project_dir))
    root = find_git_root(project)
    return str(root if root is not None else project)


def manifest_path(project_dir: Path, environ: Mapping[str, str] | None = None) -> Path:
    from pokayokay.infra.state import project_state_dir

    env = None if environ is None else dict(environ)
    return project_state_dir(_project_key(project_dir), env) / MANIFEST_NAME


# --- reading and writing JSON -----------------------------------------------------------------


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> JsonObject:
    result: JsonObject = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key {key!r}")
        result[key] = value
    return result


def _read_json(path: Path, *, what: str = "settings file") -> tuple[bytes | None, JsonObject]:
    """The raw bytes (None if missing) and the parsed object of a JSON file."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None, {}
    except OSError as exc:
        raise PokayokayError(f"{path}: cannot read the {what} ({exc.strerror or exc})") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise PokayokayError(f"{path}: not UTF-8 text; nothing was changed") from None
    if not text.strip():
        return raw, {}
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicate_keys)
    except json.JSONDecodeError as exc:
        raise PokayokayError(
            f"{path}: invalid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
            "nothing was changed"
        ) from None
    except ValueError as exc:
        raise PokayokayError(f"{path}: {exc}; fix it by hand, nothing was changed") from None
    if not isinstance(data, dict):
        raise PokayokayError(
            f"{path}: holds {_json_kind(data)}, not a JSON object; nothing was changed"
        )
    return raw, data


def _json_kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    return "an array" if isinstance(value, list) else "a string"


def _dump(data: JsonObject) -> bytes:
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _write_atomic(path: Path, data: bytes, expected: bytes | None) -> None:
    """Replace ``path`` by ``data`` atomically, provided it still holds ``expected`` (None: must
    not exist). Raises ``Conflict`` if it does not."""
    replace_if_unchanged(path, expected, data)


# --- the manifest -----------------------------------------------------------------------------


def _read_manifest(path: Path) -> JsonObject:
    try:
        _, data = _read_json(path, what="install manifest")
    except PokayokayError:
        return {"version": MANIFEST_VERSION, "installs": []}  # unreadable: start afresh
    installs = data.get("installs")
    if not isinstance(installs, list):
        installs = []
    return {
        "version": MANIFEST_VERSION,
        "installs": [entry for entry in installs if isinstance(entry, dict)],
    }


def _manifest_entry(manifest: JsonObject, target: Path) -> JsonObject | None:
    for entry in manifest["installs"]:
        if entry.get("settings_file") == str(target):
            return entry  # type: ignore[no-any-return]
    return None


def _save_manifest(path: Path, manifest: JsonObject) -> None:
    if not manifest["installs"]:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    data = _dump(manifest)
    for _ in range(_WRITE_ATTEMPTS):
        try:
            current: bytes | None = path.read_bytes()
        except FileNotFoundError:
            current = None
        if current == data:
            return
        with contextlib.suppress(Conflict):
            _write_atomic(path, data, current)
            return
    raise ConcurrentChangeError(f"{path} kept changing while pokayokay tried to write it")


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
            out.append(f"{change.event}: added `{_show(change.handler)}`")
        for change in self.replaced:
            assert change.handler is not None and change.old is not None
            out.append(
                f"{change.event}: replaced `{_show(change.old)}` by `{_show(change.handler)}`"
            )
        for change in self.removed:
            assert change.old is not None
            out.append(f"{change.event}: removed `{_show(change.old)}`")
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


def _is_group(group: object) -> bool:
    return isinstance(group, dict) and isinstance(group.get("hooks"), list)


def _matcher(group: Mapping[str, Any]) -> str | None:
    value = group.get("matcher")
    return None if value in (None, "", "*") else str(value)


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
        if not _is_group(group) or not any(is_pokayokay_handler(h) for h in group["hooks"]):
            new_groups.append(group)
            continue
        entries: list[Any] = []
        for handler in group["hooks"]:
            if not is_pokayokay_handler(handler):
                entries.append(handler)
            elif keep is not None and not placed and _matcher(group) == keep[0]:
                entries.append(keep[1])
                placed = True
                if handler != keep[1]:
                    changes.append(HookChange(event, keep[0], keep[1], handler))
            else:
                changes.append(HookChange(event, _matcher(group), None, handler))
        if entries:
            group["hooks"] = entries
            new_groups.append(group)
    return new_groups, changes, placed


def _plan_init(
    data: JsonObject, path: Path, command: str, lead: Sequence[str], report: InstallReport
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
        desired = _handler(command, [*lead, spec.event], spec)
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
            new_groups.append(_group(spec, desired))
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
    for _ in range(_WRITE_ATTEMPTS):
        raw, data = _read_json(target)
        new = copy.deepcopy(data)
        delete = plan(new)
        report.changed = delete or new != data or (raw is None and bool(new))
        if not report.changed:
            return raw
        try:
            if delete:
                if real.read_bytes() != raw:
                    raise Conflict(str(real))
                real.unlink()
                report.deleted_file = True
            else:
                real.parent.mkdir(parents=True, exist_ok=True)
                _write_atomic(real, _dump(new), raw)
        except Conflict:
            continue
        return raw
    raise ConcurrentChangeError(
        f"{target} kept changing while pokayokay tried to update it; nothing was lost, "
        "run the command again"
    )


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

        settings = load_settings(_project(project_dir))
    if location is None:
        from pokayokay.infra.locate import resolve_memory_location

        location = resolve_memory_location(_project(project_dir), environ=environ)
    command, lead, form = hook_command(absolute=absolute, environ=environ)
    report.form = form
    _, current = _read_json(target)
    _plan_init(copy.deepcopy(current), target, command, lead, InstallReport("init", scope, target))

    report.memory = _ensure_memory_template(location, settings)

    dir_existed = os.path.isdir(os.path.dirname(os.path.realpath(target)))
    planned: dict[str, Any] = {}

    def plan(data: JsonObject) -> bool:
        report.added.clear()
        report.replaced.clear()
        report.removed.clear()
        planned["created"], planned["registered"] = _plan_init(data, target, command, lead, report)
        return False

    raw = _update_settings_file(target, plan, report)
    report.created_file = raw is None and report.changed

    manifest_file = manifest_path(project_dir, environ)
    manifest = _read_manifest(manifest_file)
    entry = _manifest_entry(manifest, target)
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
    _save_manifest(manifest_file, manifest)
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

        top = find_git_toplevel(_project(project_dir))
        if top is not None and top != Path(os.path.realpath(project_dir)):
            report.notes.append(
                f"project hooks run only when Claude Code is launched in {_project(project_dir)}"
                f", not elsewhere in {top}; the local or user scope covers every launch folder"
            )
    from pokayokay.learnings.slash_command import install_slash_command

    commands, root = _commands_dir(project_dir, scope, environ)
    report.notes.append(install_slash_command(commands, root=root))
    return report


def _commands_dir(
    project_dir: Path, scope: str, environ: Mapping[str, str] | None
) -> tuple[Path, Path | None]:
    """Where `/remember` goes for ``scope``, and the folder it must stay inside."""
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
    from pokayokay.learnings.slash_command import uninstall_slash_command

    commands, root = _commands_dir(project_dir, scope, environ)
    removed = uninstall_slash_command(commands, root=root)
    if removed:
        report.notes.append(removed)
        with contextlib.suppress(OSError):
            commands.rmdir()  # only if that left it empty
    manifest_file = manifest_path(project_dir, environ)
    manifest = _read_manifest(manifest_file)
    entry = _manifest_entry(manifest, target)

    if target.exists():
        _check_target(target, scope)

        def plan(data: JsonObject) -> bool:
            report.removed.clear()
            return _plan_uninstall(data, target, entry, report)

        _update_settings_file(target, plan, report)
    if report.deleted_file and entry and entry.get("created_dir"):
        with contextlib.suppress(OSError):
            Path(os.path.realpath(target)).parent.rmdir()  # only if empty

    if entry is not None:
        manifest["installs"].remove(entry)
        _save_manifest(manifest_file, manifest)
        report.manifest = manifest_file
    return report


# --- find_installed_hooks ---------------------------------------------------------------------


@dataclass(frozen=True)
class RegisteredHook:
    """One pokayokay handler found in a settings file."""

    event: str
    matcher: str | None
    command: str
    args: tuple[str, ...]
    form: str  # "path" | "absolute" | "plugin"
    resolves: bool | None  # None: cannot tell (a ${CLAUDE_PLUGIN_ROOT} placeholder)
    resolved: str | None  # the executable found, if any


@dataclass(frozen=True)
class SettingsFileHooks:
    """pokayokay's handlers in one settings file Claude Code reads for the project."""

    scope: str  # "user" | "project" | "local" | "managed"
    path: Path
    exists: bool
    hooks: tuple[RegisteredHook, ...] = ()
    plugins: tuple[str, ...] = ()  # pokayokay plugin ids enabled in this file
    error: str | None = None
    # Summary, derived from the above (plain fields so that a dict view carries them too):
    settings_file: str = field(init=False)
    events: tuple[str, ...] = field(init=False)  # events with a pokayokay handler here
    resolves: bool = field(init=False)  # no registered command is known to be missing
    command: str | None = field(init=False)  # the first command that does not resolve

    def __post_init__(self) -> None:
        broken = [hook.command for hook in self.hooks if hook.resolves is False]
        events = tuple(dict.fromkeys(hook.event for hook in self.hooks))
        object.__setattr__(self, "settings_file", str(self.path))
        object.__setattr__(self, "events", events)
        object.__setattr__(self, "resolves", not broken)
        object.__setattr__(self, "command", broken[0] if broken else None)

    @property
    def missing_events(self) -> tuple[str, ...]:
        """Hooked events without a pokayokay handler here (all of them when none is)."""
        present = {hook.event for hook in self.hooks}
        return tuple(spec.event for spec in HOOKED_EVENTS if spec.event not in present)


def _resolve(
    command: str, project: Path, environ: Mapping[str, str]
) -> tuple[bool | None, str | None]:
    if "${CLAUDE_PLUGIN_ROOT}" in command or "${CLAUDE_PLUGIN_DATA}" in command:
        return None, None
    command = command.replace("${CLAUDE_PROJECT_DIR}", str(project))
    if "/" in command or (os.sep != "/" and os.sep in command):
        path = Path(command).expanduser()
        if not path.is_absolute():
            path = project / path
        ok = path.is_file() and os.access(path, os.X_OK)
        return ok, str(path) if ok else None
    found = shutil.which(command, path=environ.get("PATH"))
    return found is not None, found


def _scan(scope: str, path: Path, project: Path, environ: Mapping[str, str]) -> SettingsFileHooks:
    if not path.exists():
        return SettingsFileHooks(scope, path, exists=False)
    try:
        _, data = _read_json(path)
    except PokayokayError as exc:
        return SettingsFileHooks(scope, path, exists=True, error=exc.message)
    found: list[RegisteredHook] = []
    hooks = data.get("hooks")
    if isinstance(hooks, dict):
        for event, groups in hooks.items():
            if not isinstance(groups, list):
                continue
            for group in groups:
                if not _is_group(group):
                    continue
                for handler in group["hooks"]:
                    form = handler_form(handler)
                    if form is None:
                        continue
                    argv = _argv(handler) or []
                    resolves, resolved = _resolve(argv[0], project, environ)
                    found.append(
                        RegisteredHook(
                            event,
                            _matcher(group),
                            argv[0],
                            tuple(argv[1:]),
                            form,
                            resolves,
                            resolved,
                        )
                    )
    plugins: tuple[str, ...] = ()
    enabled = data.get("enabledPlugins")
    if isinstance(enabled, dict):
        plugins = tuple(
            str(key)
            for key, value in enabled.items()
            if value is True and str(key).split("@", 1)[0] == COMMAND
        )
    return SettingsFileHooks(scope, path, exists=True, hooks=tuple(found), plugins=plugins)


def find_installed_hooks(
    project_dir: Path,
    environ: Mapping[str, str] | None = None,
    *,
    managed_settings: Path | None = None,
) -> list[SettingsFileHooks]:
    """pokayokay's handlers in every settings file Claude Code reads for a session launched in
    ``project_dir``: user, project and local (always listed), and managed (when it exists).
    ``managed_settings`` replaces the platform's managed settings path (for tests)."""
    from pokayokay.infra.locate import managed_settings_path

    env = _env(environ)
    project = _project(project_dir)
    found = [
        _scan(scope, settings_file(project, scope, env), project, env)
        for scope in ("user", "project", "local")
    ]
    managed = managed_settings if managed_settings is not None else managed_settings_path()
    if managed.exists():
        found.append(_scan("managed", managed, project, env))
    return found
