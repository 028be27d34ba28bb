"""Load pokayokay's settings from ``.claude/pokayokay.md`` and ``.claude/pokayokay.local.md``.

Both files are markdown whose YAML frontmatter holds the settings; the body is for humans. The
team file is read first, then the personal one, which overrides it key by key. Every accepted key
is declared once, in ``OPTIONS`` (plain values) or ``SECTION_FIELDS`` (the per-section keys of the
``sections:`` block); a new feature registers its keys there and adds the matching field, with its
default, to :class:`pokayokay.memory.sections.Settings`.

Bad values raise :class:`SettingsError` with one line naming the file and the dotted key. Unknown
keys are only warnings, collected into ``Settings.warnings``; so is a retired key (``RETIRED``),
whose warning says it is retired rather than unknown, whatever its value.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pokayokay.config.settings_text import read_frontmatter
from pokayokay.errors import SettingsError
from pokayokay.memory.sections import (
    CLAUDE_MAX_BYTES,
    CLAUDE_MAX_LINES,
    DEFAULT_SECTIONS,
    TOPIC_INDEX_ID,
    SectionSpec,
    Settings,
)
from pokayokay.names import (
    ENV_SEMANTIC,
    LEARNINGS_ARCHIVE_FILE,
    LEARNINGS_DROPPED_FILE,
    LOCAL_SETTINGS_FILE,
    TEAM_SETTINGS_FILE,
    generated_memory_file,
)

TEAM_FILE = TEAM_SETTINGS_FILE
LOCAL_FILE = LOCAL_SETTINGS_FILE

# A settings file is a few lines of YAML; anything much larger is a mistake, not settings.

_SECTION_ID = re.compile(r"[A-Za-z0-9_-]+")


class _Invalid(Exception):
    """A value failed its check; ``expected`` says what was wanted."""

    def __init__(self, expected: str, *, show_value: bool = True) -> None:
        super().__init__(expected)
        self.expected = expected
        self.show_value = show_value


Check = Callable[[object], object]


# --- checks -----------------------------------------------------------------------------------


def int_between(low: int, high: int) -> Check:
    def check(value: object) -> object:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise _Invalid(f"expected an integer from {low} to {high}")
        return value

    return check


def int_at_least(low: int) -> Check:
    def check(value: object) -> object:
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise _Invalid(f"expected an integer ≥ {low}")
        return value

    return check


def optional(inner: Check) -> Check:
    def check(value: object) -> object:
        if value is None:
            return None
        try:
            return inner(value)
        except _Invalid as exc:
            raise _Invalid(f"{exc.expected} or null", show_value=exc.show_value) from None

    return check


def single_line(what: str) -> Check:
    def check(value: object) -> object:
        if not isinstance(value, str) or not value.strip():
            raise _Invalid(f"expected {what} (a non-empty single line of text)")
        if "\n" in value or "\r" in value:
            raise _Invalid(f"expected {what} on a single line", show_value=False)
        return value.strip()

    return check


def one_of(*choices: str) -> Check:
    def check(value: object) -> object:
        if value is False and "off" in choices:
            return "off"  # YAML reads a bare `off` as false
        if not isinstance(value, str) or value not in choices:
            raise _Invalid("expected one of " + ", ".join(choices))
        return value

    return check


def boolean(value: object) -> object:
    if not isinstance(value, bool):
        raise _Invalid("expected true or false")
    return value


def _check_project_md(value: object) -> object:
    if not isinstance(value, str) or not value.strip().endswith(".md"):
        raise _Invalid("expected a path ending in .md, relative to the project")
    path = value.strip()
    if path.startswith(("/", "~")) or ".." in path.split("/") or "\0" in path:
        raise _Invalid("expected a path inside the project (relative, no '..')")
    return path


def _check_marker(value: object) -> object:
    text = single_line("the marker text")(value)
    assert isinstance(text, str)
    if "-->" in text:
        raise _Invalid("the marker text must not contain '-->'")
    return text


ARCHIVE_NAME_MAX = 100
_ARCHIVE_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*\.md")


def _archive_name(value: object, own: tuple[str, ...] = ()) -> str:
    """A file name in the memory folder: at most 100 characters of ``[A-Za-z0-9._-]``, ending
    in ``.md``, and none of the files pokayokay generates there (``own``: the key's own
    default, which it may name)."""
    if not isinstance(value, str) or not value.strip():
        raise _Invalid("expected a file name ending in .md")
    name = value.strip()
    if "/" in name or "\\" in name:
        raise _Invalid("expected a plain file name (no folders), in the memory folder")
    if len(name) > ARCHIVE_NAME_MAX:
        raise _Invalid(
            f"the file name is {len(name)} characters long; at most {ARCHIVE_NAME_MAX}",
            show_value=False,
        )
    if not _ARCHIVE_NAME_RE.fullmatch(name):
        raise _Invalid(
            "expected a file name ending in .md, of letters, digits, '.', '_' and '-' only"
        )
    if generated_memory_file(name, own):
        raise _Invalid(
            f"{name} is a file pokayokay generates in the memory folder; an archive there "
            "would be overwritten — choose another name",
            show_value=False,
        )
    return name


_CATEGORY_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,39}")
_ROW_KEYS = ("category", "tool", "command", "error")


def _check_failure_categories(value: object) -> object:
    """``failure_categories:``: a list of classifier rows (see pokayokay.failures.classify),
    each pattern in the safe subset of :mod:`pokayokay.infra.regex_safety`."""
    from pokayokay.infra.regex_safety import unsafe_reason

    if value is None:
        return ()
    if not isinstance(value, list):
        raise _Invalid(
            "expected a list of rows, each a mapping with category and at least one of "
            "tool, command, error (regexes)"
        )
    rows: list[dict[str, str]] = []
    for number, item in enumerate(value, 1):
        where = f"row {number}"
        if not isinstance(item, Mapping):
            raise _Invalid(f"{where}: expected a mapping with category and a pattern")
        unknown = sorted(str(k) for k in item if k not in _ROW_KEYS)
        if unknown:
            raise _Invalid(f"{where}: unknown key(s) {', '.join(unknown)}", show_value=False)
        row: dict[str, str] = {}
        for key in _ROW_KEYS:
            field_value = item.get(key)
            if field_value is None:
                continue
            if not isinstance(field_value, str):
                raise _Invalid(f"{where}.{key}: expected a string", show_value=False)
            if key != "category":
                try:
                    re.compile(field_value)
                except re.error as exc:
                    raise _Invalid(
                        f"{where}.{key}: invalid regex ({exc})", show_value=False
                    ) from None
                unsafe = unsafe_reason(field_value)
                if unsafe is not None:  # it would hang capture: regex_safety, decision 0060
                    raise _Invalid(f"{where}.{key}: regex refused: {unsafe}", show_value=False)
            row[key] = field_value
        category = row.get("category", "")
        if not _CATEGORY_NAME.fullmatch(category):
            raise _Invalid(
                f"{where}.category: expected 1-40 characters from a-z 0-9 - (it names a rule "
                "file)",
                show_value=False,
            )
        if len(row) == 1:
            raise _Invalid(f"{where}: needs at least one of tool, command, error", show_value=False)
        rows.append(row)
    return tuple(rows)


def _check_archive(value: object) -> object:
    return _archive_name(value)


def _check_consolidation_archive(value: object) -> object:
    return _archive_name(value, (LEARNINGS_ARCHIVE_FILE,))


def _check_consolidation_dropped(value: object) -> object:
    return _archive_name(value, (LEARNINGS_DROPPED_FILE,))


@dataclass(frozen=True)
class Option:
    """One plain settings key: where it sits in the frontmatter, how it is checked, and the
    ``Settings`` attribute it feeds (whose dataclass default is the option's default)."""

    key: str  # dotted: "max_lines", or "graduation.threshold" inside a "graduation:" block
    check: Check
    attr: str


OPTIONS: tuple[Option, ...] = (
    Option("max_lines", int_between(1, CLAUDE_MAX_LINES), "max_lines"),
    Option("max_bytes", int_between(1, CLAUDE_MAX_BYTES), "max_bytes"),
    Option("graduation.threshold", int_at_least(1), "graduation_threshold"),
    Option("graduation.retire_after_sessions", int_at_least(1), "retire_after_sessions"),
    Option("graduation.stale_after_sessions", int_at_least(1), "stale_after_sessions"),
    Option("graduation.teammates", int_at_least(1), "graduation_teammates"),
    Option("team", boolean, "team"),
    Option("capture_mode", one_of("ask-first", "silent", "off"), "capture_mode"),
    Option("silent_capture_budget", int_at_least(0), "silent_capture_budget"),
    Option("failure_categories", _check_failure_categories, "failure_categories"),
    Option(
        "consolidation.learnings_file", _check_project_md, "consolidation_learnings_file"
    ),
    Option("consolidation.size_trigger", int_at_least(1), "consolidation_size_trigger"),
    Option(
        "consolidation.staleness_trigger", int_at_least(1), "consolidation_staleness_trigger"
    ),
    Option("consolidation.freshness", int_at_least(0), "consolidation_freshness"),
    Option("consolidation.min_batch", int_at_least(1), "consolidation_min_batch"),
    Option("consolidation.keep_recent", int_between(0, 5), "consolidation_keep_recent"),
    Option("consolidation.split_at", int_at_least(2), "consolidation_split_at"),
    Option("consolidation.part_min", int_at_least(1), "consolidation_part_min"),
    Option("consolidation.part_max", int_at_least(1), "consolidation_part_max"),
    Option("consolidation.archive", _check_consolidation_archive, "consolidation_archive"),
    Option("consolidation.dropped", _check_consolidation_dropped, "consolidation_dropped"),
    Option("consolidation.session_end", boolean, "consolidation_session_end"),
    Option("empty_sections", boolean, "empty_sections"),
    Option("guard", one_of("off", "hint", "block"), "guard"),
)

# What the retired semantic recall is, said by every warning about its keys (decision 0142).
SEMANTIC_RETIRED = (
    "semantic recall was retired (docs/decisions/0142-semantic-extra-retired.md); recall is "
    "lexical, and `pokayokay semantic remove` deletes the files it left"
)


@dataclass(frozen=True)
class Retired:
    """A key that once meant something: accepted with any value, read by nothing, and named
    in a warning that says why (``note``) instead of calling it unknown."""

    key: str  # dotted, as in Option
    note: str


RETIRED: tuple[Retired, ...] = (Retired("recall.semantic", SEMANTIC_RETIRED),)
# Retired environment variables, with what their warning says.
RETIRED_ENVIRONMENT: tuple[tuple[str, str], ...] = ((ENV_SEMANTIC, SEMANTIC_RETIRED),)

# The keys of one entry under "sections:"; each is a field of SectionSpec.
SECTION_FIELDS: dict[str, Check] = {
    "title": single_line("a title"),
    "budget": int_at_least(1),
    "archive": _check_archive,
    "marker": _check_marker,
    "max_entries": optional(int_at_least(1)),
}
CUSTOM_SECTION_REQUIRED: tuple[str, ...] = ("title", "budget", "archive")

SECTIONS_KEY = "sections"
_ENABLED = "<enabled>"  # pseudo-field: False for "id: false", True for "id: {...}"


# --- reading one file -------------------------------------------------------------------------


def _show(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, (list, tuple)):
        return "a list"
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= 60 else text[:57] + "..."


# A validated file, flattened: (dotted path parts) → value. Section entries use
# ("sections", id, field) and ("sections", id, _ENABLED).
_Layer = dict[tuple[str, ...], object]


@dataclass
class _FileResult:
    label: str
    layer: _Layer
    order: list[str]  # section ids in the order the file names them
    warnings: list[str]


def _option_tree() -> dict[str, Any]:
    tree: dict[str, Any] = {}
    keys: tuple[Option | Retired, ...] = (*OPTIONS, *RETIRED)
    for option in keys:
        *parents, leaf = option.key.split(".")
        node = tree
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = option
    return tree


def _fail(label: str, key: str, value: object, exc: _Invalid) -> SettingsError:
    got = f", got {_show(value)}" if exc.show_value else ""
    return SettingsError(f"{label}: {key}: {exc.expected}{got}")


def _walk_options(
    mapping: Mapping[object, object],
    tree: Mapping[str, Any],
    prefix: tuple[str, ...],
    result: _FileResult,
) -> None:
    for raw_key, value in mapping.items():
        key = str(raw_key)
        parts = (*prefix, key)
        dotted = ".".join(parts)
        node = tree.get(key) if isinstance(raw_key, str) else None
        if node is None:
            result.warnings.append(f"{result.label}: unknown key '{dotted}' (ignored)")
        elif isinstance(node, Retired):
            result.warnings.append(f"{result.label}: '{dotted}' is retired (ignored): {node.note}")
        elif isinstance(node, Option):
            try:
                result.layer[parts] = node.check(value)
            except _Invalid as exc:
                raise _fail(result.label, dotted, value, exc) from None
        elif value is None:
            continue
        elif not isinstance(value, Mapping):
            raise _fail(result.label, dotted, value, _Invalid("expected a mapping of settings"))
        else:
            _walk_options(value, node, parts, result)


def _walk_sections(value: object, result: _FileResult) -> None:
    if value is None:
        return
    if not isinstance(value, Mapping):
        expected = _Invalid("expected a mapping of section ids")
        raise _fail(result.label, SECTIONS_KEY, value, expected)
    for raw_id, entry in value.items():
        section_id = str(raw_id)
        dotted = f"{SECTIONS_KEY}.{section_id}"
        if not isinstance(raw_id, str) or not _SECTION_ID.fullmatch(raw_id):
            raise SettingsError(
                f"{result.label}: {dotted}: a section id is letters, digits, '_' and '-' only"
            )
        if section_id not in result.order:
            result.order.append(section_id)
        if entry is False:
            result.layer[(SECTIONS_KEY, section_id, _ENABLED)] = False
            continue
        if entry is not None and not isinstance(entry, Mapping):
            raise _fail(result.label, dotted, entry, _Invalid("expected false or a mapping"))
        result.layer[(SECTIONS_KEY, section_id, _ENABLED)] = True
        for raw_field, field_value in (entry or {}).items():
            field_key = f"{dotted}.{raw_field}"
            check = SECTION_FIELDS.get(raw_field) if isinstance(raw_field, str) else None
            if check is None:
                result.warnings.append(f"{result.label}: unknown key '{field_key}' (ignored)")
                continue
            try:
                result.layer[(SECTIONS_KEY, section_id, str(raw_field))] = check(field_value)
            except _Invalid as exc:
                raise _fail(result.label, field_key, field_value, exc) from None


def _load_file(path: Path, label: str) -> _FileResult:
    result = _FileResult(label, {}, [], [])
    data = read_frontmatter(path, label)
    if data is None:
        return result
    if not isinstance(data, Mapping):
        raise SettingsError(
            f"{label}: frontmatter: expected a mapping of settings, got {_show(data)}"
        )
    tree = _option_tree()
    plain = {k: v for k, v in data.items() if k != SECTIONS_KEY}
    _walk_options(plain, tree, (), result)
    if SECTIONS_KEY in data:
        _walk_sections(data[SECTIONS_KEY], result)
    return result


# --- merging ----------------------------------------------------------------------------------


def _dotted(parts: tuple[str, ...]) -> str:
    if parts[-1] == _ENABLED:
        parts = parts[:-1]
    return ".".join(parts)


def _build_sections(
    merged: Mapping[tuple[str, ...], tuple[object, str]], order: list[str]
) -> tuple[SectionSpec, ...]:
    defaults = {spec.id: spec for spec in DEFAULT_SECTIONS}
    known_ids = ", ".join(defaults)

    def fields_of(section_id: str) -> dict[str, Any]:
        return {
            parts[2]: value
            for parts, (value, _) in merged.items()
            if parts[0] == SECTIONS_KEY and parts[1] == section_id and parts[2] != _ENABLED
        }

    def enabled(section_id: str) -> bool:
        found = merged.get((SECTIONS_KEY, section_id, _ENABLED))
        return section_id in defaults if found is None else bool(found[0])

    built: list[SectionSpec] = []
    custom: list[SectionSpec] = []
    for spec in DEFAULT_SECTIONS:
        if enabled(spec.id):
            built.append(dataclasses.replace(spec, **fields_of(spec.id)))
    for section_id in order:
        if section_id in defaults or not enabled(section_id):
            continue
        fields = fields_of(section_id)
        for required in CUSTOM_SECTION_REQUIRED:
            if required not in fields:
                source = merged[(SECTIONS_KEY, section_id, _ENABLED)][1]
                raise SettingsError(
                    f"{source}: {SECTIONS_KEY}.{section_id}.{required}: required for a new "
                    f"section ('{section_id}' is not one of {known_ids})"
                )
        fields.setdefault("marker", f"custom section {section_id}")
        custom.append(SectionSpec(id=section_id, **fields))

    topic_at = next((i for i, s in enumerate(built) if s.id == TOPIC_INDEX_ID), len(built))
    sections = (*built[:topic_at], *custom, *built[topic_at:])
    _check_unique(sections, merged, "title")
    _check_unique(sections, merged, "archive")
    return sections


def _check_unique(
    sections: tuple[SectionSpec, ...],
    merged: Mapping[tuple[str, ...], tuple[object, str]],
    field: str,
) -> None:
    seen: dict[str, SectionSpec] = {}
    for spec in sections:
        value = str(getattr(spec, field))
        key = " ".join(value.split()).casefold()  # headings match like this in MEMORY.md
        other = seen.get(key)
        if other is None:
            seen[key] = spec
            continue
        # Blame the section whose value a settings file set (the later one if both were).
        blamed, kept = spec, other
        if (SECTIONS_KEY, spec.id, field) not in merged:
            blamed, kept = other, spec
        source = merged.get((SECTIONS_KEY, blamed.id, field), (None, "settings"))[1]
        raise SettingsError(
            f"{source}: {SECTIONS_KEY}.{blamed.id}.{field}: {value!r} is already the {field} "
            f"of section '{kept.id}'"
        )


def _merge(results: list[_FileResult]) -> Settings:
    known = {spec.id for spec in DEFAULT_SECTIONS}
    merged: dict[tuple[str, ...], tuple[object, str]] = {}
    sources: dict[str, str] = {}
    order: list[str] = []
    for result in results:
        for parts, value in result.layer.items():
            previous = merged.get(parts)
            # "id: {...}" only says "managed": no override of a known section or of a section an
            # earlier file already defined, unless it turns back on one an earlier file turned off.
            if parts[-1] == _ENABLED and value is True:
                already = previous[0] is True if previous else parts[1] in known
                if already:
                    continue
            merged[parts] = (value, result.label)
            sources[_dotted(parts)] = result.label
        order.extend(section_id for section_id in result.order if section_id not in order)

    values: dict[str, Any] = {
        option.attr: merged[key][0]
        for option in OPTIONS
        if (key := tuple(option.key.split("."))) in merged
    }
    sections = _build_sections(merged, order)
    own = {values.get("consolidation_archive") or LEARNINGS_ARCHIVE_FILE}
    own.add(values.get("consolidation_dropped") or LEARNINGS_DROPPED_FILE)
    for spec in sections:  # consolidation rewrites its files: never a section's archive too
        if spec.archive.casefold() in {name.casefold() for name in own}:
            dotted = f"{SECTIONS_KEY}.{spec.id}.archive"
            raise SettingsError(f"{sources.get(dotted, 'settings')}: {dotted}: {spec.archive!r} is "
                                "consolidation's archive or dropped file; choose another name")
    return dataclasses.replace(
        Settings(),
        sections=sections,
        sources=sources,
        warnings=tuple(w for r in results for w in r.warnings),
        **values,
    )


def settings_files(project_dir: Path) -> tuple[Path, Path]:
    """The team file and the personal file of a project (either may not exist)."""
    return project_dir / TEAM_FILE, project_dir / LOCAL_FILE


def retired_environment(environ: Mapping[str, str] | None = None) -> list[str]:
    """A warning for each retired environment variable set in ``environ`` (the process's by
    default), naming it."""
    env = os.environ if environ is None else environ
    return [
        f"environment: {name} is retired (ignored): {note}"
        for name, note in RETIRED_ENVIRONMENT
        if name in env
    ]


def load_settings(project_dir: Path) -> Settings:
    """Settings for ``project_dir``: defaults, then the team file, then the personal file;
    with a warning for each retired environment variable set."""
    results: list[_FileResult] = []
    for path, label in zip(settings_files(project_dir), (TEAM_FILE, LOCAL_FILE), strict=True):
        if path.is_dir():
            raise SettingsError(f"{label}: is a folder, expected a markdown file")
        if path.exists():
            results.append(_load_file(path, label))
    settings = _merge(results) if results else Settings()
    environment = retired_environment()
    if environment:
        settings = dataclasses.replace(settings, warnings=(*settings.warnings, *environment))
    return settings
