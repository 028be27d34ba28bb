"""Where the skills Claude Code can invoke live: every ``SKILL.md`` a project sees, found.

Locations (interfaces doc §3): ``.claude/skills/<name>/SKILL.md`` in the launch folder and its
ancestors up to the repository root; ``$CLAUDE_CONFIG_DIR/skills/<name>/SKILL.md`` (personal,
which wins a name clash over project skills); and installed plugins' ``skills/<name>/SKILL.md``
under ``$CLAUDE_CONFIG_DIR/plugins/cache/…``, invoked as ``/<plugin>:<name>``. Every folder
listed on the way is collected for the catalog's quick key (:mod:`pokayokay.skills.catalog`).

Standard library only; imported by a full check, never on the prompt's quick path.
"""

from __future__ import annotations

import os

from pokayokay.infra.lazyre import Lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["MAX_SKILLS", "PLUGIN_DEPTH", "skill_dirs", "skill_files"]

MAX_SKILLS = 2000
PLUGIN_DEPTH = 4  # cache/<marketplace>/<plugin>/<version>/skills

_VERSION_FOLDER = Lazy(r"v?[0-9][0-9A-Za-z.+-]*")


def skill_dirs(folder: str) -> list[tuple[str, str]]:
    """``(dir name, SKILL.md path)`` for each ``<folder>/<name>/SKILL.md``."""
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return []
    out = []
    for entry in entries:
        try:
            if not entry.is_dir():
                continue
        except OSError:
            continue  # vanished entry: skipped
        skill_md = os.path.join(entry.path, "SKILL.md")
        if os.path.isfile(skill_md):
            out.append((entry.name, skill_md))
    return out


def _plugin_name(root: str) -> str:
    import json

    manifest = os.path.join(root, ".claude-plugin", "plugin.json")
    try:
        with open(manifest, encoding="utf-8") as fh:
            data = json.loads(fh.read(65536))
        name = data.get("name") if isinstance(data, dict) else None
        if isinstance(name, str) and name.strip():
            return name.strip()
    except (OSError, ValueError):
        pass  # no usable manifest: no name
    base = os.path.basename(root)
    if _VERSION_FOLDER.fullmatch(base):  # a version folder: use its parent
        return os.path.basename(os.path.dirname(root))
    return base


def _plugin_roots(cache_dir: str, walked: list[str] | None = None) -> list[str]:
    """Folders under the plugin cache that hold a ``skills/`` folder (bounded depth);
    ``walked`` collects every folder listed on the way (the quick key stats them)."""
    roots: list[str] = []
    frontier = [cache_dir]
    for _ in range(PLUGIN_DEPTH):
        nxt: list[str] = []
        for folder in frontier:
            if walked is not None:
                walked.append(folder)
            try:
                entries = sorted(os.scandir(folder), key=lambda e: e.name)
            except OSError:
                continue  # unreadable folder: no skills
            for entry in entries:
                try:
                    if not entry.is_dir() or entry.name.startswith("."):
                        continue
                except OSError:
                    continue  # vanished entry: skipped
                if os.path.isdir(os.path.join(entry.path, "skills")):
                    roots.append(entry.path)
                else:
                    nxt.append(entry.path)
        frontier = nxt
    return roots


def _project_folders(launch: str) -> list[str]:
    """The launch folder and its ancestors up to the repository root (just the launch folder
    outside a repository)."""
    from pokayokay.infra.location_rules import git_toplevel

    top = git_toplevel(launch)
    folders = [launch]
    if top is None:
        return folders
    stop = os.path.abspath(str(top))
    current = launch
    while os.path.abspath(current) != stop:
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
        folders.append(current)
    return folders


def skill_files(
    project_dir: str | os.PathLike[str],
    environ: Mapping[str, str] | None = None,
    folders: list[str] | None = None,
) -> list[tuple[str, str, str, str]]:
    """``(source, plugin, dir name, path)`` of every ``SKILL.md``, in precedence order:
    personal first, then project folders from the launch folder up, then plugins.
    ``folders`` collects every folder whose listing decided the answer (the quick key)."""
    from pokayokay.infra.location_rules import config_dir

    config = config_dir(environ)
    launch = os.path.abspath(os.fspath(project_dir))
    seen = folders if folders is not None else []
    found: list[tuple[str, str, str, str]] = []
    seen.append(os.path.join(config, "skills"))
    for name, path in skill_dirs(seen[-1]):
        found.append(("personal", "", name, path))
    for folder in _project_folders(launch):
        seen.append(os.path.join(folder, ".claude", "skills"))
        for name, path in skill_dirs(seen[-1]):
            found.append(("project", "", name, path))
    seen.append(os.path.join(config, "plugins"))
    for root in _plugin_roots(os.path.join(config, "plugins", "cache"), seen):
        plugin = _plugin_name(root)
        seen.append(os.path.join(root, "skills"))
        for name, path in skill_dirs(seen[-1]):
            found.append(("plugin", plugin, name, path))
    return found[:MAX_SKILLS]
