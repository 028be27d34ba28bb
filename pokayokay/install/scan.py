"""Which pokayokay hooks are registered where: every settings file Claude Code reads for a project,
scanned for pokayokay's handlers (status and doctor report them)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pokayokay.errors import PokayokayError
from pokayokay.hooks.events import HOOKED_EVENTS
from pokayokay.install.handlers import (
    COMMAND,
    effective_environ,
    group_matcher,
    handler_argv,
    handler_form,
    is_hook_group,
)
from pokayokay.install.settings_files import absolute_project, read_json_file, settings_file


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
        _, data = read_json_file(path)
    except PokayokayError as exc:
        return SettingsFileHooks(scope, path, exists=True, error=exc.message)
    found: list[RegisteredHook] = []
    hooks = data.get("hooks")
    if isinstance(hooks, dict):
        for event, groups in hooks.items():
            if not isinstance(groups, list):
                continue
            for group in groups:
                if not is_hook_group(group):
                    continue
                for handler in group["hooks"]:
                    form = handler_form(handler)
                    if form is None:
                        continue
                    argv = handler_argv(handler) or []
                    resolves, resolved = _resolve(argv[0], project, environ)
                    found.append(
                        RegisteredHook(
                            event,
                            group_matcher(group),
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

    env = effective_environ(environ)
    project = absolute_project(project_dir)
    found = [
        _scan(scope, settings_file(project, scope, env), project, env)
        for scope in ("user", "project", "local")
    ]
    managed = managed_settings if managed_settings is not None else managed_settings_path()
    if managed.exists():
        found.append(_scan("managed", managed, project, env))
    return found
