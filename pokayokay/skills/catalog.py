"""The skills Claude Code can invoke in a project: ``SKILL.md`` frontmatter, found and cached.

Locations (interfaces doc §3): ``.claude/skills/<name>/SKILL.md`` in the launch folder and its
ancestors up to the repository root; ``$CLAUDE_CONFIG_DIR/skills/<name>/SKILL.md`` (personal,
which wins a name clash over project skills); and installed plugins' ``skills/<name>/SKILL.md``
under ``$CLAUDE_CONFIG_DIR/plugins/cache/…``, invoked as ``/<plugin>:<name>``.

Only ``name``, ``description``, ``when_to_use`` and ``disable-model-invocation`` are read. The
frontmatter of a well-formed file is read by a small line parser (plain, quoted and block
scalars); anything it does not understand falls back to the YAML parser rule files use. The
catalog is cached in the state folder keyed by each file's size and modification time, with each
skill's match profile (``pokayokay.skills.match``) and the catalog-wide term statistics, so a
prompt with 200 skills stats 200 files and parses or analyses none of them.

Hot path: standard library only at import time.
"""

from __future__ import annotations

import json
import os
import re

from pokayokay.names import SKILLS_CACHE_FILE
from pokayokay.skills.match import Catalog

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from pathlib import Path
    from typing import Any

    from pokayokay.skills.match import Profile, Stats

__all__ = ["Catalog", "Skill", "catalog_from_folder", "load_catalog"]

CACHE_NAME = SKILLS_CACHE_FILE
CACHE_FORMAT = 2
MAX_SKILL_BYTES = 256 * 1024  # only the frontmatter is read; a larger head is not a skill
MAX_TEXT_CHARS = 1536  # Claude Code cuts description + when_to_use here in its listing
MAX_SKILLS = 2000
PLUGIN_DEPTH = 4  # cache/<marketplace>/<plugin>/<version>/skills

_KEYS = ("name", "description", "when_to_use", "disable-model-invocation")
_KEY_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):(?:[ \t]+(.*))?$")
_BLOCK = re.compile(r"[|>][+-]?[0-9]?[+-]?$")
_TRUTHY = frozenset({"true", "yes", "on", "1"})


class Skill:
    """One invocable skill. ``name`` is what follows the slash (``testing``, ``tools:lint``)."""

    __slots__ = ("name", "description", "path", "source", "model_invocable", "profile")

    def __init__(
        self,
        name: str,
        description: str,
        path: str,
        source: str,
        model_invocable: bool = True,
        profile: Profile | None = None,
    ) -> None:
        self.name = name
        self.description = description
        self.path = path
        self.source = source  # "project", "personal" or "plugin"
        self.model_invocable = model_invocable
        self.profile = profile  # set by :func:`analysed`

    def __repr__(self) -> str:
        return f"Skill({self.name!r}, {self.source!r})"


# --------------------------------------------------------------------------------------------
# Frontmatter


def _unquote(value: str) -> str | None:
    """A one-line scalar's text; None when the cheap parser cannot be sure of it."""
    if not value:
        return ""
    first = value[0]
    if first == "'":
        if len(value) < 2 or not value.endswith("'"):
            return None
        return value[1:-1].replace("''", "'")
    if first == '"':
        if len(value) < 2 or not value.endswith('"'):
            return None
        try:
            out = json.loads(value)
        except ValueError:
            return None
        return out if isinstance(out, str) else None
    if first in "[{&*!|>%@`":
        return None
    # A plain scalar ends at " #" (a comment).
    cut = value.find(" #")
    return (value if cut < 0 else value[:cut]).rstrip()


def parse_frontmatter_fast(head: str) -> dict[str, str] | None:
    """The wanted keys of a frontmatter block (the text between the ``---`` lines), or None
    when it needs the YAML parser."""
    lines = head.splitlines()
    out: dict[str, str] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[0] in " \t":
            continue  # a continuation of a key we skip
        found = _KEY_LINE.match(line.rstrip())
        if found is None:
            return None
        key, raw = found[1], (found[2] or "").strip()
        # Collect the indented lines under this key.
        block: list[str] = []
        while i < len(lines) and (not lines[i].strip() or lines[i][0] in " \t"):
            block.append(lines[i])
            i += 1
        if key not in _KEYS:
            continue
        if _BLOCK.match(raw):
            parts = [b.strip() for b in block]
            if raw.startswith("|"):
                out[key] = "\n".join(parts).strip()
            else:
                out[key] = " ".join(p for p in parts if p)
            continue
        value = _unquote(raw)
        if value is None:
            return None
        extra = [b.strip() for b in block if b.strip()]
        if extra:
            if raw[:1] in "'\"":
                return None  # a multi-line quoted scalar: leave it to YAML
            value = " ".join([value, *extra]).strip()
        out[key] = value
    return out


def _frontmatter_text(text: str) -> str | None:
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.startswith("---"):
        return None
    first_nl = text.find("\n")
    if first_nl < 0 or text[:first_nl].strip() != "---":
        return None
    end = re.search(r"^---[ \t]*$", text[first_nl + 1 :], re.M)
    if end is None:
        return None
    return text[first_nl + 1 : first_nl + 1 + end.start()]


def parse_frontmatter(text: str) -> dict[str, str]:
    """``name``, ``description``, ``when_to_use`` and ``disable-model-invocation`` as text
    (absent keys missing). Cheap for well-formed files; YAML for the rest."""
    head = _frontmatter_text(text)
    if head is None:
        return {}
    fast = parse_frontmatter_fast(head)
    if fast is not None:
        return fast
    from pokayokay.rules.files import split_frontmatter

    data = split_frontmatter(text).data
    out: dict[str, str] = {}
    for key in _KEYS:
        value = data.get(key)
        if isinstance(value, (str, int, float, bool)):
            out[key] = str(value).lower() if isinstance(value, bool) else str(value)
    return out


def skill_from_text(text: str, dir_name: str, path: str, source: str, plugin: str = "") -> Skill:
    """A :class:`Skill` from the text of its ``SKILL.md`` (pure)."""
    meta = parse_frontmatter(text)
    if source == "plugin":
        last = " ".join(meta.get("name", "").split()) or dir_name
        name = f"{plugin}:{last}" if plugin else last
    else:
        name = dir_name  # the command name comes from the folder for personal/project skills
    description = " ".join(meta.get("description", "").split())
    when = " ".join(meta.get("when_to_use", "").split())
    full = f"{description} {when}".strip()[:MAX_TEXT_CHARS]
    invocable = meta.get("disable-model-invocation", "").strip().lower() not in _TRUTHY
    return Skill(name, full, path, source, invocable)


def analysed(skill: Skill) -> Skill:
    """``skill`` with its match profile (name, description, triggers, extensions, negatives)."""
    from pokayokay.skills.match import profile

    skill.profile = profile(skill.name, skill.description)
    return skill



# --------------------------------------------------------------------------------------------
# Discovery


def _skill_dirs(folder: str) -> list[tuple[str, str]]:
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
            continue
        skill_md = os.path.join(entry.path, "SKILL.md")
        if os.path.isfile(skill_md):
            out.append((entry.name, skill_md))
    return out


def _plugin_name(root: str) -> str:
    manifest = os.path.join(root, ".claude-plugin", "plugin.json")
    try:
        with open(manifest, encoding="utf-8") as fh:
            data = json.loads(fh.read(65536))
        name = data.get("name") if isinstance(data, dict) else None
        if isinstance(name, str) and name.strip():
            return name.strip()
    except (OSError, ValueError):
        pass
    base = os.path.basename(root)
    if re.fullmatch(r"v?[0-9][0-9A-Za-z.+-]*", base):  # a version folder: use its parent
        return os.path.basename(os.path.dirname(root))
    return base


def _plugin_roots(cache_dir: str) -> list[str]:
    """Folders under the plugin cache that hold a ``skills/`` folder (bounded depth)."""
    roots: list[str] = []
    frontier = [cache_dir]
    for _ in range(PLUGIN_DEPTH):
        nxt: list[str] = []
        for folder in frontier:
            try:
                entries = sorted(os.scandir(folder), key=lambda e: e.name)
            except OSError:
                continue
            for entry in entries:
                try:
                    if not entry.is_dir() or entry.name.startswith("."):
                        continue
                except OSError:
                    continue
                if os.path.isdir(os.path.join(entry.path, "skills")):
                    roots.append(entry.path)
                else:
                    nxt.append(entry.path)
        frontier = nxt
    return roots


def _project_folders(launch: str) -> list[str]:
    """The launch folder and its ancestors up to the repository root (just the launch folder
    outside a repository)."""
    from pathlib import Path

    from pokayokay.infra.locate import find_git_toplevel

    top = find_git_toplevel(Path(launch))
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
    project_dir: str | os.PathLike[str], environ: Mapping[str, str] | None = None
) -> list[tuple[str, str, str, str]]:
    """``(source, plugin, dir name, path)`` of every ``SKILL.md``, in precedence order:
    personal first, then project folders from the launch folder up, then plugins."""
    from pokayokay.infra.locate import claude_config_dir

    config = os.fspath(claude_config_dir(environ))
    launch = os.path.abspath(os.fspath(project_dir))
    found: list[tuple[str, str, str, str]] = []
    for name, path in _skill_dirs(os.path.join(config, "skills")):
        found.append(("personal", "", name, path))
    for folder in _project_folders(launch):
        for name, path in _skill_dirs(os.path.join(folder, ".claude", "skills")):
            found.append(("project", "", name, path))
    for root in _plugin_roots(os.path.join(config, "plugins", "cache")):
        plugin = _plugin_name(root)
        for name, path in _skill_dirs(os.path.join(root, "skills")):
            found.append(("plugin", plugin, name, path))
    return found[:MAX_SKILLS]


def _read_head(path: str) -> str:
    with open(path, "rb") as fh:
        return fh.read(MAX_SKILL_BYTES).decode("utf-8", "replace")


def _stamp(path: str) -> list[int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return [info.st_mtime_ns, info.st_size]


def _cache_path(project_dir: str, environ: Mapping[str, str] | None) -> Path:
    from pokayokay.infra.state import project_state_dir

    return project_state_dir(project_dir, None if environ is None else dict(environ)) / CACHE_NAME


def _load_cache(path: Path) -> tuple[dict[str, Any], Any]:
    """The cached rows by path and the cached catalog statistics (``({}, None)`` when absent,
    damaged or written by another format or analysis)."""
    from pokayokay.skills.match import ANALYSIS_VERSION

    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return {}, None
    if (
        not isinstance(data, dict)
        or data.get("format") != CACHE_FORMAT
        or data.get("analysis") != ANALYSIS_VERSION
        or not isinstance(data.get("files"), dict)
    ):
        return {}, None
    files: dict[str, Any] = data["files"]
    return files, data.get("stats")


def _save_cache(path: Path, files: dict[str, Any], stats: Stats) -> None:
    from pokayokay.skills.match import ANALYSIS_VERSION

    data = {
        "format": CACHE_FORMAT,
        "analysis": ANALYSIS_VERSION,
        "files": files,
        "stats": stats.to_data(),
    }
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(data, fh, separators=(",", ":"))
        os.replace(tmp, path)
    except OSError:
        pass  # a cache: the next prompt parses again


def _from_cached(row: Any, path: str) -> Skill | None:
    from pokayokay.skills.match import Profile

    if not isinstance(row, dict):
        return None
    name, desc, source = (row.get(k) for k in ("name", "description", "source"))
    if not (isinstance(name, str) and isinstance(desc, str) and isinstance(source, str)):
        return None
    prof = Profile.from_data(row.get("profile"))
    if prof is None:
        return None
    return Skill(name, desc, path, source, row.get("invocable") is not False, prof)


def load_catalog(
    project_dir: str | os.PathLike[str],
    environ: Mapping[str, str] | None = None,
    *,
    use_cache: bool = True,
) -> Catalog:
    """Every skill visible when Claude Code is launched in ``project_dir``, analysed.

    A name clash keeps the first (personal before project, nearer folder before farther);
    plugin skills are namespaced. Unreadable files are skipped.
    """
    launch = os.path.abspath(os.fspath(project_dir))
    cache_file = _cache_path(launch, environ) if use_cache else None
    cached, cached_stats = _load_cache(cache_file) if cache_file is not None else ({}, None)
    fresh: dict[str, Any] = {}
    skills = Catalog()
    seen: set[str] = set()
    for source, plugin, dir_name, path in skill_files(launch, environ):
        stamp = _stamp(path)
        if stamp is None:
            continue
        row = cached.get(path)
        skill = None
        if isinstance(row, dict) and row.get("stamp") == stamp:
            skill = _from_cached(row, path)
        if skill is not None:
            fresh[path] = row  # the same object: comparing with the cache costs nothing
        else:
            try:
                text = _read_head(path)
            except OSError:
                continue
            skill = analysed(skill_from_text(text, dir_name, path, source, plugin))
            fresh[path] = {
                "stamp": stamp,
                "name": skill.name,
                "description": skill.description,
                "source": skill.source,
                "invocable": skill.model_invocable,
                "profile": skill.profile.to_data() if skill.profile is not None else None,
            }
        if skill.name in seen:
            continue
        seen.add(skill.name)
        skills.append(skill)
    if fresh == cached and cached_stats is not None:
        from pokayokay.skills.match import Stats

        skills.stats = Stats.from_data(cached_stats)
    if cache_file is not None and (fresh != cached or (fresh and skills.stats is None)):
        _save_cache(cache_file, fresh, skills.statistics())
    return skills


def catalog_from_folder(folder: str | os.PathLike[str], source: str = "project") -> Catalog:
    """The skills of one ``skills/`` folder, uncached (tests, the labelled data)."""
    out = Catalog()
    for name, path in _skill_dirs(os.fspath(folder)):
        out.append(analysed(skill_from_text(_read_head(path), name, path, source)))
    return out


def names(skills: Iterable[Skill]) -> list[str]:
    return [s.name for s in skills]
