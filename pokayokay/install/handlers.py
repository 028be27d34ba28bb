"""pokayokay's hook handlers in Claude Code settings: recognising one (any form init ever wrote, a
plugin shim, python -m pokayokay), building the one for an event from the event table, and the
plugin's hooks/hooks.json generated from the same table."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from pokayokay.errors import PokayokayError
from pokayokay.hooks.events import HOOKED_EVENTS, HookSpec
from pokayokay.infra.spool import SPOOLED_EVENTS
from pokayokay.install.settings_files import (
    JsonObject,
)

COMMAND = "pokayokay"

# The per-tool-call events' entry (pokayokay.infra.spool): a script installed next to `pokayokay`.
SPOOL_COMMAND = "pokayokay-spool"
# The other events' entry: `pokayokay hook <Event>` without the console script's wrapper (which
# imports re on every run), also installed next to `pokayokay`.
EVENT_COMMAND = "pokayokay-event"

# What SessionStart says, once per session, when pokayokay's hooks are registered (a committed
# settings file, the plugin) on a machine without pokayokay. Every other event is silent then.
NOT_INSTALLED_NOTE = (
    "pokayokay is not installed on this machine, so its hooks here do nothing. To install it: "
    "python3 -m venv ~/.pokayokay && ~/.pokayokay/bin/pip install <a pokayokay checkout>, "
    "then put ~/.pokayokay/bin on PATH (the Install section of the "
    "pokayokay README)."
)

# The shell guards a registered command starts with (the handler is in shell form so that a
# missing program exits 0 instead of failing every event).
_GUARDS = ("command -v ", "[ -x ", "[ -f ")


# The second line of a ``pokayokay-event`` or ``pokayokay-spool`` script that may be started
# with ``-S -E`` (no site: decision 0141). The plugin shim and the handler init registers by
# name look for it: an older script, without it, would not find pokayokay without site.
NO_SITE_MARK = "# pokayokay: runs with -S -E "


def no_site_start(event: str, script: str = EVENT_COMMAND) -> str:
    """Shell (``sh -c``) that execs the first ``script`` on PATH, as ``command -v`` finds it,
    under its own interpreter with ``-S -E`` when its first line is ``#!/absolute/python…``
    with no arguments and its second is :data:`NO_SITE_MARK`; else it does nothing and the
    command goes on to ``exec <script> <Event>`` as before.

    Builtins only (``read``, ``case``, parameter expansion): a ``$(…)`` would fork, and a fork
    costs what ``-S`` saves. The plugin shim, ``hooks/pokayokay-hook``, does the same."""
    return (
        "p=$PATH; while :; do f=${p%%:*}; f=${f:-.}/" + script + "; "
        'if [ -f "$f" ] && [ -x "$f" ] && [ -r "$f" ]; then '
        '{ IFS= read -r a && IFS= read -r b; } 2>/dev/null <"$f"; '
        f"case $b in {shlex.quote(NO_SITE_MARK)}*) case $a in "
        "'#!/'*[[:space:]]*) ;; '#!/'*/python|'#!/'*/python[0-9]*) "
        f'[ -x "${{a#??}}" ] && exec "${{a#??}}" -S -E "$f" {shlex.quote(event)};; '
        "esac;; esac; break; fi; case $p in *:*) p=${p#*:};; *) break;; esac; done"
    )


PLUGIN_SHIM_NAME = "pokayokay-hook"


PLUGIN_COMMAND = "${CLAUDE_PLUGIN_ROOT}/hooks/" + PLUGIN_SHIM_NAME


PLUGIN_HOOKS_DESCRIPTION = (
    "pokayokay: curates MEMORY.md and captures recurring failures "
    "(per-tool-call events append to a spool with `pokayokay-spool <Event>`, the others run "
    "`pokayokay-event <Event>`, which is `pokayokay hook <Event>`; without pokayokay every "
    "handler exits 0)"
)


def _basename(command: str) -> str:
    name = command.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return name[: -len(".exe")] if name.endswith(".exe") else name


def handler_argv(handler: Mapping[str, Any]) -> list[str] | None:
    """The handler's argv: exec form as given, shell form only when it is a plain word list or
    a guarded ``…; exec <words>`` as init writes it."""
    command = handler.get("command")
    if not isinstance(command, str) or not command:
        return None
    args = handler.get("args")
    if args is not None:
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            return None
        return [command, *args]
    guarded = _guarded_argv(command)
    if guarded is not None:
        return guarded
    # A shell command doing anything more than running one program is not ours to remove.
    if any(ch in command.replace(PLUGIN_COMMAND, "") for ch in ";&|<>`$(){}*?\n"):
        return None
    try:
        return shlex.split(command)
    except ValueError:
        return None


def _guarded_argv(command: str) -> list[str] | None:
    """The words after ``exec`` in a guarded shell command as :func:`event_handler` builds it
    (``<guard> || …; exec <words>``), or None for anything else."""
    head, sep, tail = command.rpartition("; exec ")
    if not sep or not head.startswith(_GUARDS) or " || " not in head:
        return None
    if any(ch in tail for ch in ";&|<>`$(){}*?\n"):
        return None
    try:
        words = shlex.split(tail)
    except ValueError:
        return None
    return words or None


def handler_form(handler: object) -> str | None:
    """``"path"``, ``"absolute"`` or ``"plugin"`` for one of pokayokay's handlers, else None.

    pokayokay's handlers: ``pokayokay hook …`` (any path to the ``pokayokay`` command),
    ``pokayokay-spool <Event>`` and ``pokayokay-event <Event>``, any interpreter running ``-m
    pokayokay hook …``, ``…/pokayokay-event <Event>``, ``-S -E …/infra/spool_launch.py`` (or
    ``…/infra/spool.py``) or ``-S -E …/hooks/launch.py``, and the plugin shim
    ``…/pokayokay-hook <Event>``.
    """
    if not isinstance(handler, Mapping) or handler.get("type") != "command":
        return None
    argv = handler_argv(handler)
    if not argv:
        return None
    name = _basename(argv[0])
    if name == COMMAND and argv[1:2] == ["hook"]:
        return "path"
    if name in (SPOOL_COMMAND, EVENT_COMMAND) and len(argv) == 2:
        return "path"
    if argv[1:4] == ["-m", "pokayokay", "hook"]:
        return "absolute"
    if len(argv) == 3 and _basename(argv[1]) == EVENT_COMMAND:
        return "absolute"
    if argv[1:3] == ["-S", "-E"] and len(argv) == 5 and _is_entry_file(argv[3]):
        return "absolute"
    if name == PLUGIN_SHIM_NAME:
        return "plugin"
    return None


def is_pokayokay_handler(handler: object) -> bool:
    return handler_form(handler) is not None


# The files an absolute handler runs with ``python -S -E``, inside the package (spool.py
# itself: what init registered before decision 0141).
_ENTRY_FILES = (
    ["pokayokay", "infra", "spool_launch.py"],
    ["pokayokay", "infra", "spool.py"],
    ["pokayokay", "hooks", "launch.py"],
)


def _is_entry_file(path: str) -> bool:
    parts = path.replace("\\", "/").rsplit("/", 3)
    return parts[-3:] in _ENTRY_FILES


def _handler(command: str, args: Sequence[str], spec: HookSpec) -> JsonObject:
    handler: JsonObject = {"type": "command", "command": command, "args": list(args)}
    return _timed(handler, spec)


def _timed(handler: JsonObject, spec: HookSpec) -> JsonObject:
    """``handler`` with the spec's timeout, and ``"async": true`` for a background event."""
    if spec.background:
        handler["async"] = True
    handler["timeout"] = spec.timeout
    return handler


def spool_file() -> str:
    """The absolute path of the spool entry (run as a file with ``python -S -E``): the few
    lines of ``pokayokay/infra/spool_launch.py``, not spool.py, which a start would compile."""
    from pokayokay import infra

    return os.path.join(os.path.dirname(os.path.abspath(infra.__file__)), "spool_launch.py")


def launch_file() -> str:
    """The absolute path of the other events' entry (run as a file with ``python -S -E``:
    ``pokayokay/hooks/launch.py``, decision 0141)."""
    from pokayokay import hooks

    return os.path.join(os.path.dirname(os.path.abspath(hooks.__file__)), "launch.py")


def event_handler(
    spec: HookSpec,
    command: str,
    lead: Sequence[str],
    environ: Mapping[str, str] | None = None,
) -> JsonObject:
    """The handler init registers for ``spec``, safe in a shared repository.

    Shell form, guarded: where pokayokay is not installed it exits 0 quietly, and SessionStart
    says so in one line (a ``systemMessage``). With absolute paths (``lead`` is ``-m pokayokay
    hook``) every event runs this interpreter with ``-S -E`` on a file of the package: the
    per-tool-call events the spool entry (:func:`spool_file`), the others the launcher
    (:func:`launch_file`, decision 0141), neither paying for ``site``. By name, the per-tool-call
    events run ``pokayokay-spool <Event>`` and the others (or those, without it)
    ``pokayokay-event <Event>``, each script first tried with ``-S -E``
    (:func:`no_site_start`); an older install without those scripts gets
    ``command``/``lead`` (``pokayokay hook <Event>``). A background event (Stop) gets
    ``"async": true``.
    """
    absolute = lead[:1] == ["-m"]
    path = effective_environ(environ).get("PATH")
    start = ""  # what runs between the guard and the exec
    if absolute:
        entry = spool_file() if spec.event in SPOOLED_EVENTS else launch_file()
        words = [command, "-S", "-E", entry, spec.event]
        guard = f"[ -x {shlex.quote(command)} ] && [ -f {shlex.quote(entry)} ]"
    else:
        scripts = (SPOOL_COMMAND,) if spec.event in SPOOLED_EVENTS else ()
        found = [s for s in (*scripts, EVENT_COMMAND) if shutil.which(s, path=path) is not None]
        if found:
            words = [found[0], spec.event]
            guard = f"command -v {found[0]} >/dev/null 2>&1"
            start = no_site_start(spec.event, found[0])
        else:
            words = [command, *lead, spec.event]
            guard = f"command -v {shlex.quote(command)} >/dev/null 2>&1"
    otherwise = "exit 0"
    if spec.event == "SessionStart":
        note = json.dumps({"systemMessage": NOT_INSTALLED_NOTE})
        otherwise = "{ printf '%s\\n' " + shlex.quote(note) + "; exit 0; }"
    if start:
        otherwise += f"; {start}"
    line = f"{guard} || {otherwise}; exec {' '.join(shlex.quote(word) for word in words)}"
    return _timed({"type": "command", "command": line}, spec)


def hook_group(spec: HookSpec, handler: JsonObject) -> JsonObject:
    """A settings-file hook group holding ``handler``, with the spec's matcher when it has one."""
    group: JsonObject = {}
    if spec.matcher is not None:
        group["matcher"] = spec.matcher
    group["hooks"] = [handler]
    return group


def effective_environ(environ: Mapping[str, str] | None) -> Mapping[str, str]:
    """``environ``, or the process's environment when None."""
    return os.environ if environ is None else environ


def hook_command(
    *, absolute: bool = False, environ: Mapping[str, str] | None = None
) -> tuple[str, list[str], str]:
    """The command and leading args init registers, and its form (``"path"``/``"absolute"``).

    ``pokayokay`` by name when it is on PATH (portable: fine in a committed settings file),
    else this interpreter's absolute path with ``-m pokayokay``.
    """
    if not absolute and shutil.which(COMMAND, path=effective_environ(environ).get("PATH")):
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
        hooks.setdefault(spec.event, []).append(hook_group(spec, handler))
    return {"description": PLUGIN_HOOKS_DESCRIPTION, "hooks": hooks}


def render_plugin_hooks_json() -> str:
    """``plugin_hooks_json()`` as the text committed in ``hooks/hooks.json``."""
    return json.dumps(plugin_hooks_json(), indent=2) + "\n"


def shown_command(handler: Mapping[str, Any]) -> str:
    """A handler's command as one shell-quoted line, for the messages of init and doctor."""
    argv = handler_argv(handler) or [str(handler.get("command"))]
    return " ".join(shlex.quote(word) if word else "''" for word in argv)


def is_hook_group(group: object) -> bool:
    """Whether ``group`` has the shape of a settings-file hook group (a ``hooks`` list)."""
    return isinstance(group, dict) and isinstance(group.get("hooks"), list)


def group_matcher(group: Mapping[str, Any]) -> str | None:
    """A hook group's matcher; None when it matches every tool (missing, empty or ``*``)."""
    value = group.get("matcher")
    return None if value in (None, "", "*") else str(value)
