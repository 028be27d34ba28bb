"""The skills Claude Code can invoke in a project: ``SKILL.md`` frontmatter, found and cached.

Locations (interfaces doc §3): ``.claude/skills/<name>/SKILL.md`` in the launch folder and its
ancestors up to the repository root; ``$CLAUDE_CONFIG_DIR/skills/<name>/SKILL.md`` (personal,
which wins a name clash over project skills); and installed plugins' ``skills/<name>/SKILL.md``
under ``$CLAUDE_CONFIG_DIR/plugins/cache/…``, invoked as ``/<plugin>:<name>``.

Only ``name``, ``description``, ``when_to_use`` and ``disable-model-invocation`` are read from
the frontmatter, and the body's prose outside code blocks, a weak field of the skill's profile
(decision 0205). The frontmatter of a well-formed file is read by a small line parser (plain,
quoted and block scalars); anything it does not understand falls back to the YAML parser rule
files use. The catalog is cached in the state folder keyed by each file's size and modification
time, with each skill's match profile (``pokayokay.relevance.skill_match``) and the catalog-wide
term statistics, so that a full check with 200 skills stats 200 files and parses or analyses
none of them.

**Freshness on the prompt** (``quick=True``): the prompt does not stat every ``SKILL.md``. It
stats the folders skills live in (``skills/`` of the personal folder, of every project folder up
to the repository root and of every plugin, and the plugin cache folders walked to find those):
a skill added, removed or renamed moves one of them. The cached catalog is taken when they and
``skills.changed`` in the state home (touched when pokayokay installs or removes its own skill)
are as the last full check saw them; the caller then stats the ``SKILL.md`` of each skill it is
about to suggest (:func:`unchanged_since_cached`) and runs the full check when one changed. A
``SKILL.md`` rewritten in place (or replaced inside its own folder) that is not suggested is
picked up by the next full check: SessionEnd runs one (docs/decisions/0105), as do
``pokayokay suggest`` and every caller that does not ask for ``quick``. Folder mtimes under
three seconds old are not trusted.

Hot path: standard library only at import time.
"""

from __future__ import annotations

import os
import time

from pokayokay.infra.regular import open_regular
from pokayokay.names import SKILLS_CACHE_FILE
from pokayokay.relevance.skill_match import Catalog, Profile

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Any

    from pokayokay.relevance.skill_match import Stats
    from pokayokay.skills.asked import Table

__all__ = ["Catalog", "Skill", "catalog_from_folder", "load_catalog"]

CACHE_NAME = SKILLS_CACHE_FILE
LEGACY_CACHE_NAME = "skills-catalog.json"
CACHE_FORMAT = 2
MAX_SKILL_BYTES = 256 * 1024  # only the frontmatter is read; a larger head is not a skill
MAX_TEXT_CHARS = 1536  # Claude Code cuts description + when_to_use here in its listing
_TRUTHY = frozenset({"true", "yes", "on", "1"})


class Skill:
    """One invocable skill. ``name`` is what follows the slash (``testing``, ``tools:lint``)."""

    __slots__ = ("name", "description", "path", "source", "model_invocable", "profile", "stamp")

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
        self.stamp: list[int] | None = None  # the SKILL.md's [mtime_ns, size] when catalogued

    def __repr__(self) -> str:
        return f"Skill({self.name!r}, {self.source!r})"


# --------------------------------------------------------------------------------------------
# Frontmatter


def parse_frontmatter(text: str) -> dict[str, str]:
    """``name``, ``description``, ``when_to_use`` and ``disable-model-invocation`` as text
    (absent keys missing). Cheap for well-formed files; YAML for the rest."""
    from pokayokay.skills.skill_frontmatter import KEYS, frontmatter_text, parse_frontmatter_fast

    head = frontmatter_text(text)
    if head is None:
        return {}
    fast = parse_frontmatter_fast(head)
    if fast is not None:
        return fast
    from pokayokay.rules.files import split_frontmatter

    data = split_frontmatter(text).data
    out: dict[str, str] = {}
    for key in KEYS:
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


def analysed(skill: Skill, asked: Sequence[str] = (), text: str = "") -> Skill:
    """``skill`` with its match profile (name, description, triggers, extensions, negatives;
    ``asked``: how a user might ask for it, :mod:`pokayokay.skills.asked`; ``text``: its
    ``SKILL.md``, whose body is a weak field of its own, decision 0205)."""
    from pokayokay.relevance.skill_match import profile
    from pokayokay.skills.skill_frontmatter import body_text

    skill.profile = profile(skill.name, skill.description, asked, body_text(text) if text else "")
    return skill


# --------------------------------------------------------------------------------------------
# The cache and the prompt's quick check (where skills live: pokayokay.skills.discovery)


# How old (ns) a folder's mtime must be before the quick key may stand for its listing.
SETTLE_NS = 3_000_000_000


def _marker(environ: Mapping[str, str] | None) -> str:
    from pokayokay.infra.state import state_home_path
    from pokayokay.names import SKILLS_CHANGED

    return os.path.join(state_home_path(None if environ is None else dict(environ)), SKILLS_CHANGED)


def _quick_key(folders: list[str], environ: Mapping[str, str] | None) -> str | None:
    """The stats of ``folders`` and of the marker (``infra.state.mark_skills_changed``), as one
    string (None while one of them changed less than :data:`SETTLE_NS` ago: not to be trusted
    yet)."""
    from pokayokay.relevance.skill_match import ANALYSIS_VERSION

    now = time.time_ns()
    parts = [f"{CACHE_FORMAT}:{ANALYSIS_VERSION}"]
    for path in [*folders, _marker(environ)]:
        stamp = _stamp(path)
        if stamp is not None and now - stamp[0] < SETTLE_NS:
            return None
        parts.append(f"{path}\t{stamp}")
    return "\n".join(parts)


def unchanged_since_cached(skills: Iterable[Skill], names: Iterable[str]) -> bool:
    """Whether the ``SKILL.md`` of each skill named in ``names`` still has the size and mtime
    the catalog was built with (one stat each)."""
    wanted = set(names)
    for skill in skills:
        if skill.name in wanted and (skill.stamp is None or _stamp(skill.path) != skill.stamp):
            return False
    return True


def _read_head(path: str) -> str:
    with open_regular(path) as fh:  # a FIFO named SKILL.md must not hang a hook
        return fh.read(MAX_SKILL_BYTES).decode("utf-8", "replace")


def _stamp(path: str) -> list[int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return [info.st_mtime_ns, info.st_size]


def cache_stamp(project_dir: str, environ: Mapping[str, str] | None = None) -> list[int] | None:
    """The size and mtime of ``project_dir``'s cached catalog (None: none is cached): it changes
    whenever a prompt's check or SessionEnd's finds the skills changed (one ``stat``)."""
    return _stamp(_cache_path(project_dir, environ))


def _cache_path(project_dir: str, environ: Mapping[str, str] | None) -> str:
    from pokayokay.infra.state import project_state_path

    state_dir = project_state_path(project_dir, None if environ is None else dict(environ))
    return os.path.join(state_dir, CACHE_NAME)


def _load_cache(path: str) -> tuple[dict[str, Any], Any, Any, Any]:
    """The cached rows by path, the cached catalog statistics, the quick check and the stamp of
    the phrase table the rows were analysed with (``({}, None, None, None)`` when absent,
    damaged or written by another format or analysis)."""
    from pokayokay.infra import packed
    from pokayokay.relevance.skill_match import ANALYSIS_VERSION

    data = packed.load(path)
    if (
        not isinstance(data, dict)
        or data.get("format") != CACHE_FORMAT
        or data.get("analysis") != ANALYSIS_VERSION
        or not isinstance(data.get("files"), dict)
    ):
        return {}, None, None, None
    from pokayokay.relevance.skill_terms import use_table_data

    # the evoked-terms table and generic terms, analysed
    current = use_table_data(data.get("tables"))
    files: dict[str, Any] = data["files"]
    # A cache written before it kept the tables, or from other vocabulary files: the full
    # check runs once and rewrites it.
    return files, data.get("stats"), data.get("quick") if current else None, data.get("asked")


def _save_cache(
    path: str, files: dict[str, Any], stats: Stats, quick: Any = None, asked: Any = None
) -> None:
    from pokayokay.infra import packed
    from pokayokay.relevance.skill_match import ANALYSIS_VERSION
    from pokayokay.relevance.skill_terms import table_data

    data = {
        "format": CACHE_FORMAT,
        "analysis": ANALYSIS_VERSION,
        "files": files,
        "stats": stats.to_data(),
        "quick": quick,
        "asked": asked,
        "tables": table_data(),
    }
    packed.save(path, data)
    try:  # noqa: SIM105 - contextlib is one more import on the prompt path
        # the JSON cache of earlier versions
        os.unlink(os.path.join(os.path.dirname(path), LEGACY_CACHE_NAME))
    except OSError:
        pass  # a cache: if it cannot be written, the next prompt parses again


def _from_cached(row: Any, path: str) -> Skill | None:
    # Run for every skill on every prompt (200 in the budget project): no import statement or
    # generator in here.
    if not isinstance(row, dict):
        return None
    get = row.get
    name, desc, source = get("name"), get("description"), get("source")
    if not (isinstance(name, str) and isinstance(desc, str) and isinstance(source, str)):
        return None
    prof = Profile.from_data(row.get("profile"))
    if prof is None:
        return None
    skill = Skill(name, desc, path, source, row.get("invocable") is not False, prof)
    stamp = row.get("stamp")
    skill.stamp = stamp if isinstance(stamp, list) else None
    return skill


def load_catalog(
    project_dir: str | os.PathLike[str],
    environ: Mapping[str, str] | None = None,
    *,
    use_cache: bool = True,
    quick: bool = False,
    deadline: float | None = None,
) -> Catalog:
    """Every skill visible when Claude Code is launched in ``project_dir``, analysed.

    A name clash keeps the first (personal before project, nearer folder before farther);
    plugin skills are namespaced. Unreadable files are skipped. With ``quick``, the cached
    catalog is taken on the quick key alone when it matches (see the module docstring). With
    ``deadline`` (a ``time.monotonic()`` value), no ``SKILL.md`` is analysed after it: the
    catalog is then :attr:`~Catalog.partial`, the rows analysed so far are cached without the
    quick key, and the next full check analyses the rest (SessionEnd's 1.5 s, decision 0205).
    """
    launch = os.path.abspath(os.fspath(project_dir))
    cache_file = _cache_path(launch, environ) if use_cache else None
    cached, cached_stats, quick_data, cached_asked = (
        _load_cache(cache_file) if cache_file is not None else ({}, None, None, None)
    )
    if quick and cached_stats is not None:
        found = _quick_catalog(cached, cached_stats, quick_data, environ)
        if found is not None:
            return found
    fresh: dict[str, Any] = {}
    skills = Catalog()
    seen: set[str] = set()
    folders: list[str] = []
    from pokayokay.skills import discovery

    # How a user might ask for each skill (skills.asked): the table is read only when it changed
    # since the rows were analysed, or to analyse a row afresh; its stamp is kept with the rows.
    from pokayokay.skills.asked import asked_path, phrases_digest

    asked_stamp = _settled_stamp(asked_path(environ))
    table_changed = asked_stamp is None or asked_stamp != cached_asked
    tables: list[Table] = []

    def asked_of(skill: Skill) -> tuple[str, ...]:
        from pokayokay.skills.asked import asked_for, read_table

        if not tables:
            tables.append(read_table(environ))
        return asked_for(tables[0], skill.name, skill.description)

    files = discovery.skill_files(launch, environ, folders)
    # Stat-ed after the listing, safely: a folder changed during it is too recent to trust.
    quick_key = _quick_key(folders, environ)
    for source, plugin, dir_name, path in files:
        stamp = _stamp(path)
        if stamp is None:
            continue
        row = cached.get(path)
        skill = None
        if isinstance(row, dict) and row.get("stamp") == stamp:
            skill = _from_cached(row, path)
            if (
                skill is not None
                and table_changed
                and phrases_digest(asked_of(skill)) != row.get("asked", "")
            ):
                skill = None  # how a user might ask for it changed: analysed again
        if skill is not None:
            fresh[path] = row  # the same object: comparing with the cache costs nothing
        elif deadline is not None and time.monotonic() > deadline:
            skills.partial = True  # left to the next full check
            continue
        else:
            try:
                text = _read_head(path)
            except OSError:
                continue  # vanished: not in the catalog
            skill = skill_from_text(text, dir_name, path, source, plugin)
            asked = asked_of(skill)
            skill = analysed(skill, asked, text)
            skill.stamp = stamp
            fresh[path] = {
                "stamp": stamp,
                "asked": phrases_digest(asked),
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
        from pokayokay.relevance.skill_match import Stats

        skills.stats = Stats.from_data(cached_stats)
    quick_entry = (
        {"key": quick_key, "folders": folders, "order": [s.path for s in skills]}
        if quick_key is not None and not skills.partial
        else None
    )
    if cache_file is not None and (
        fresh != cached
        or (
            fresh
            and (skills.stats is None or quick_entry != quick_data or asked_stamp != cached_asked)
        )
    ):  # a project with no skill keeps no catalog (SessionEnd's full check then skips it)
        _save_cache(cache_file, fresh, skills.statistics(), quick_entry, asked_stamp)
    return skills


def _settled_stamp(path: str) -> list[int] | None:
    """The file's stamp when it changed more than :data:`SETTLE_NS` ago, ``[0, 0]`` when there
    is none; None when it changed sooner (a second write within the clock's step could leave the
    same stamp: the file is then read)."""
    stamp = _stamp(path)
    if stamp is None:
        return [0, 0]
    return None if time.time_ns() - stamp[0] < SETTLE_NS else stamp


def _quick_catalog(
    cached: dict[str, Any], stats: Any, quick: Any, environ: Mapping[str, str] | None
) -> Catalog | None:
    """The cached catalog when the skill folders are as the last full check saw them."""
    from pokayokay.relevance.skill_match import Stats

    if not isinstance(quick, dict):
        return None
    folders, order, key = quick.get("folders"), quick.get("order"), quick.get("key")
    if not (
        isinstance(key, str)
        and isinstance(folders, list)
        and isinstance(order, list)
        and all(isinstance(f, str) for f in folders)
    ):
        return None
    if _quick_key(folders, environ) != key:
        return None
    skills = Catalog()
    for path in order:
        skill = _from_cached(cached.get(path), path) if isinstance(path, str) else None
        if skill is None:
            return None
        skills.append(skill)
    skills.stats = Stats.from_data(stats)
    return skills


def catalog_from_folder(
    folder: str | os.PathLike[str], source: str = "project", table: Table | None = None
) -> Catalog:
    """The skills of one ``skills/`` folder, uncached (tests, the labelled data); ``table``:
    how a user might ask for them (:func:`pokayokay.skills.asked.read_table`), none by
    default."""
    from pokayokay.skills.asked import asked_for
    from pokayokay.skills.discovery import skill_dirs

    out = Catalog()
    for name, path in skill_dirs(os.fspath(folder)):
        text = _read_head(path)
        skill = skill_from_text(text, name, path, source)
        out.append(analysed(skill, asked_for(table or {}, skill.name, skill.description), text))
    return out


def names(skills: Iterable[Skill]) -> list[str]:
    return [s.name for s in skills]
