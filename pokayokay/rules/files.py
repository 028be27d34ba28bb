"""Rule files under ``.claude/rules/``: discovery, parsing, matching and lint.

Parsing is pure (:func:`parse_rule`, :func:`split_frontmatter`, :func:`lint_rule`); reading the
folder and listing project files are the only I/O (:func:`discover`, :func:`project_files`).

How Claude Code 2.1.330 reads a rule file (its bundle, interfaces doc §2.3):

* every ``*.md`` file (case-sensitive suffix) under ``.claude/rules/``, at any depth, symlinks
  followed; files over 4 MiB are skipped;
* the frontmatter is found with ``/^---\\s*\\n([\\s\\S]*?)---\\s*\\n?/`` after dropping a BOM and
  only if ``---`` occurs again after the opening: it therefore ends at the **first** ``---``
  anywhere, even in the middle of a line;
* it is parsed as YAML; if that fails, each ``key: value`` line whose unquoted value holds a YAML
  indicator (``*``, ``{``, ``[``, ``#``, ``: ``, …) is wrapped in double quotes, leading tabs
  become two spaces each, and it is parsed again (so ``paths: *.md`` works). If that fails too,
  **the whole frontmatter is ignored** (a warning in Claude Code's debug log): no ``paths`` —
  the rule loads at the start of every session. A frontmatter that is not a mapping is ignored
  the same way;
* ``paths`` is processed by :func:`pokayokay.rules.claude_match.normalise_patterns`; ``globs``
  (Cursor's
  key) is not read at all.

pokayokay parses the YAML with ruamel.yaml (pure, YAML 1.2, like Bun's parser that Claude Code
uses), with a repeated key replacing the earlier one as in Claude Code. Checked against the real
Claude Code 2.1.330: quoted comma items (``paths: "a/**", "*.md"``) fail and the rule loads at
session start; ``paths: *.md`` works through the fallback; ``globs:`` loads at session start.
Not verified: YAML corner cases where the two parsers might differ (e.g. timestamps).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pokayokay.errors import PokayokayError
from pokayokay.infra import frontmatter
from pokayokay.infra.regular import read_regular
from pokayokay.rules import js_text
from pokayokay.rules.claude_match import Matcher, normalise_patterns
from pokayokay.rules.walk import walk_rule_paths

RULES_DIR = Path(".claude") / "rules"
POKAYOKAY_SUBDIR = "pokayokay"
MAX_RULE_BYTES = 4 * 1024 * 1024  # Claude Code skips larger memory files
# Patterns a rule in pokayokay's folder may hold for pokayokay to read it: its own rules hold a
# few (at most 40 lines above the end marker), and each pattern costs a hook a compile (0.2 ms:
# a file of 50,000 held the prompt hook 10 s and SessionEnd 12 s, past their timeouts).
MAX_OWN_PATTERNS = 256

_SPACE_CHARS = "".join(f"\\u{ord(char):04x}" for char in sorted(js_text.JS_SPACE))
_SPACE = f"[{_SPACE_CHARS}]"  # JavaScript's \s
_NOT_SPACE = f"[^{_SPACE_CHARS}]"
_FRONTMATTER = re.compile(rf"---{_SPACE}*\n([\s\S]*?)---{_SPACE}*\n?")
_FALLBACK_LINE = re.compile(rf"([a-zA-Z_-]+):{_SPACE}+({_NOT_SPACE}[^\n\r\u2028\u2029]*)")
_YAML_INDICATOR = re.compile(r"[{}\[\]*&#!|>%@`]|: ")
_LEADING_TABS = re.compile(r"(?:(?<=[\n\r\u2028\u2029])|\A)\t+")
_BOOKKEEPING = re.compile(r"<!--\s*pokayokay-rule:(.*?)-->", re.DOTALL)
_SCOPE_KEYS = ("paths", "scope", "globs")
# graduation's template (templates/rule.md.j2): "- Where: `/src/cart/**`, `/tests/x.py`." for a
# scoped rule, "- Where: anywhere in the project (no `paths:` …)" for a project-wide one.
_WHERE_LINE = re.compile(r"^- Where: (`.*)$", re.M)
_BACKTICKED = re.compile(r"`([^`]+)`")
_UNSCOPED_VALUES = frozenset({"", "none", "no", "false", "project", "project-wide", "all", "*"})


# ---------------------------------------------------------------------------------------------
# Parsing (pure)


@dataclass(frozen=True)
class Bookkeeping:
    """The ``<!-- pokayokay-rule: id=…; signatures=…; graduated=… -->`` line of a rule body."""

    id: str | None
    signatures: tuple[str, ...]
    graduated: str | None
    fields: Mapping[str, str]

    @property
    def scoped(self) -> bool:
        """Whether graduation scoped the rule (``paths=``/``scope=`` naming globs)."""
        for key in _SCOPE_KEYS:
            value = self.fields.get(key)
            if value is not None and value.strip().lower() not in _UNSCOPED_VALUES:
                return True
        return False


def graduated_globs(body: str) -> tuple[str, ...]:
    """The globs a graduated rule's "- Where:" line names (empty when project-wide)."""
    found = _WHERE_LINE.search(body)
    return () if found is None else tuple(_BACKTICKED.findall(found.group(1)))


def parse_bookkeeping(body: str) -> Bookkeeping | None:
    """The first bookkeeping comment in ``body``: ``key=value`` fields separated by ``;``.

    ``signatures`` is a comma-separated list (signature short ids or full signatures).
    """
    found = _BOOKKEEPING.search(body)
    if found is None:
        return None
    fields: dict[str, str] = {}
    for part in found.group(1).split(";"):
        key, sep, value = part.partition("=")
        if sep and key.strip():
            fields[key.strip()] = value.strip()
    signatures = tuple(s.strip() for s in fields.get("signatures", "").split(",") if s.strip())
    return Bookkeeping(
        id=fields.get("id") or None,
        signatures=signatures,
        graduated=fields.get("graduated") or None,
        fields=fields,
    )


@dataclass(frozen=True)
class Frontmatter:
    """A rule file split and parsed the way Claude Code does it."""

    present: bool  # Claude Code found a frontmatter block
    text: str  # the YAML text (empty when not present)
    close_offset: int  # where the closing '---' starts in the (BOM-less) file; -1 if absent
    data: dict[str, Any]  # what Claude Code reads ({} when absent, invalid or not a mapping)
    body: str  # everything after the block (the whole file when there is none)
    yaml_error: str | None = None  # the YAML did not parse, even after Claude Code's fallback
    not_mapping: str | None = None  # parsed, but a list or a scalar: ignored
    used_fallback: bool = False  # parsed only after Claude Code's quoting fallback
    duplicate_keys: tuple[str, ...] = ()


def _yaml_load(text: str) -> Any:
    from ruamel.yaml import YAML
    from ruamel.yaml.constructor import SafeConstructor

    class LastKeyWins(SafeConstructor):
        """A repeated key replaces the earlier value, as in Claude Code (checked live)."""

        def check_mapping_key(
            self, node: Any, key_node: Any, mapping: Any, key: Any, value: Any
        ) -> bool:
            mapping.pop(key, None)
            return True

    yaml = YAML(typ="safe", pure=True)
    yaml.Constructor = LastKeyWins
    return yaml.load(text)


def _yaml_error(exc: Exception) -> str:
    problem = getattr(exc, "problem", None)
    mark = getattr(exc, "problem_mark", None)
    if problem and mark is not None:
        return f"{problem} (frontmatter line {mark.line + 1}, column {mark.column + 1})"
    first = str(exc).strip().splitlines()
    return first[0] if first else type(exc).__name__


def quote_fallback(text: str) -> str:
    """Claude Code's second try at broken frontmatter: quote unquoted values with indicators."""
    out = []
    for line in text.split("\n"):
        found = _FALLBACK_LINE.fullmatch(line)
        if found is not None:
            key, value = found.groups()
            quoted = (value.startswith('"') and value.endswith('"')) or (
                value.startswith("'") and value.endswith("'")
            )
            if not quoted and value.startswith("[") and value.endswith("]"):
                try:
                    quoted = isinstance(_yaml_load(value), list)
                except Exception:  # not YAML: a glob list only as written
                    quoted = False
            if not quoted and _YAML_INDICATOR.search(value):
                escaped = value.replace("\\", "\\\\").replace('"', '\\"')
                line = f'{key}: "{escaped}"'
        out.append(line)
    return _LEADING_TABS.sub(lambda m: "  " * len(m.group()), "\n".join(out))


def _duplicate_top_level_keys(text: str) -> tuple[str, ...]:
    seen: set[str] = set()
    dupes: list[str] = []
    for line in text.splitlines():
        found = re.match(r"([A-Za-z0-9_-]+)\s*:", line)
        if found:
            key = found.group(1)
            if key in seen and key not in dupes:
                dupes.append(key)
            seen.add(key)
    return tuple(dupes)


def split_frontmatter(text: str) -> Frontmatter:
    """Find and parse the frontmatter of a rule file as Claude Code does."""
    stripped = text[1:] if text.startswith("\ufeff") else text
    found = _FRONTMATTER.match(stripped) if stripped.find("---", 3) >= 0 else None
    if found is None:
        return Frontmatter(present=False, text="", close_offset=-1, data={}, body=text)
    yaml_text = found.group(1)
    close = found.end(1)
    body = stripped[found.end() :]
    duplicates = _duplicate_top_level_keys(yaml_text)
    used_fallback = False
    value = frontmatter.load(yaml_text)  # the usual block needs no YAML library
    if value is frontmatter.UNSUPPORTED:
        try:
            value = _yaml_load(yaml_text)
        except Exception:  # any YAML error: try the quoted fallback, then report it
            try:
                value = _yaml_load(quote_fallback(yaml_text))
                used_fallback = True
            except Exception as exc:  # reported to the user as the rule's yaml_error
                return Frontmatter(True, yaml_text, close, {}, body, yaml_error=_yaml_error(exc))
    if value is None:
        return Frontmatter(True, yaml_text, close, {}, body, used_fallback=used_fallback)
    if not isinstance(value, dict):
        kind = "a list" if isinstance(value, list) else f"a single value ({value!r})"
        return Frontmatter(True, yaml_text, close, {}, body, not_mapping=kind)
    data = {str(key): item for key, item in value.items()}
    return Frontmatter(
        True, yaml_text, close, data, body, used_fallback=used_fallback, duplicate_keys=duplicates
    )


@dataclass(frozen=True)
class RuleFile:
    """One rule file as Claude Code sees it."""

    path: Path  # absolute, through any symlinked folder (not resolved)
    rel_path: str  # relative to the project, POSIX: ".claude/rules/pokayokay/testing.md"
    rule_path: str  # relative to .claude/rules/: "pokayokay/testing.md"
    text: str
    frontmatter: Mapping[str, Any]  # what Claude Code reads ({} when absent or invalid)
    body: str
    paths: tuple[str, ...] | None  # normalised patterns; None: loads at session start
    is_pokayokay: bool
    bookkeeping: Bookkeeping | None
    parsed: Frontmatter
    # why Claude Code does not load it at all (e.g. over 4 MiB), or pokayokay does not read it
    skipped: str | None = None

    @property
    def id(self) -> str:
        if self.bookkeeping is not None and self.bookkeeping.id:
            return self.bookkeeping.id
        if self.is_pokayokay:
            return Path(self.rule_path).stem
        return self.rule_path.removesuffix(".md")

    @property
    def conditional(self) -> bool:
        return self.skipped is None and self.paths is not None

    @property
    def always_loaded(self) -> bool:
        return self.skipped is None and self.paths is None

    @property
    def signatures(self) -> tuple[str, ...]:
        return () if self.bookkeeping is None else self.bookkeeping.signatures


def parse_rule(text: str, rule_path: str, path: Path, rel_path: str) -> RuleFile:
    """A :class:`RuleFile` from the text of ``.claude/rules/<rule_path>`` (pure)."""
    parsed = split_frontmatter(text)
    patterns = normalise_patterns(parsed.data.get("paths"))
    return RuleFile(
        path=path,
        rel_path=rel_path,
        rule_path=rule_path,
        text=text,
        frontmatter=parsed.data,
        body=parsed.body,
        paths=tuple(patterns) if patterns else None,
        is_pokayokay=rule_path.split("/", 1)[0] == POKAYOKAY_SUBDIR and "/" in rule_path,
        bookkeeping=parse_bookkeeping(parsed.body),
        parsed=parsed,
    )


# ---------------------------------------------------------------------------------------------
# Discovery (I/O)


def rules_dir(project_dir: Path) -> Path:
    return Path(project_dir) / RULES_DIR


def walk_rule_files(folder: Path, prefix: str, seen: set[str]) -> Iterable[tuple[Path, str]]:
    for path, rel in walk_rule_paths(str(folder), prefix, seen):
        yield Path(path), rel


def read_rule(project_dir: Path, path: Path, rule_path: str) -> RuleFile:
    """Read and parse one rule file; unreadable files come back with ``skipped`` set."""
    rel_path = (RULES_DIR / rule_path).as_posix()
    try:
        size = path.stat().st_size
        if size > MAX_RULE_BYTES:
            reason = f"larger than {MAX_RULE_BYTES >> 20} MiB: Claude Code does not load it"
            return _unreadable(path, rel_path, rule_path, reason)
        data = read_regular(path)
    except OSError as exc:
        reason = f"cannot be read ({exc.strerror or type(exc).__name__})"
        return _unreadable(path, rel_path, rule_path, reason)
    text = data.decode("utf-8", "replace")
    rule = parse_rule(text, rule_path, path, rel_path)
    if rule.is_pokayokay and rule.paths is not None and len(rule.paths) > MAX_OWN_PATTERNS:
        from dataclasses import replace

        reason = (
            f"not read by pokayokay: {len(rule.paths):,} paths, more than any rule it writes "
            f"(at most {MAX_OWN_PATTERNS} read)"
        )
        return replace(rule, skipped=reason, paths=None)  # matched, retired by none of it
    return rule


def _unreadable(path: Path, rel_path: str, rule_path: str, reason: str) -> RuleFile:
    from dataclasses import replace

    return replace(parse_rule("", rule_path, path, rel_path), skipped=reason)


def discover(project_dir: Path | str) -> list[RuleFile]:
    """Every rule file under ``<project_dir>/.claude/rules/``, recursively, sorted by path."""
    project = Path(os.path.abspath(project_dir))
    folder = rules_dir(project)
    return [
        read_rule(project, path, rule_path)
        for path, rule_path in walk_rule_files(folder, "", set())
    ]


# ---------------------------------------------------------------------------------------------
# Matching


def normalise_rel_path(project_dir: Path | str, path: str) -> str:
    """``path`` (absolute, or relative to the project) as Claude Code's relative form."""
    project = os.path.abspath(project_dir)
    if os.path.isabs(path):
        rel = os.path.relpath(os.path.abspath(path), project)
    else:
        rel = os.path.normpath(path)
    rel = rel.replace(os.sep, "/")
    return "" if rel == "." else rel


def match_rules(rules: Sequence[RuleFile], rel_path: str) -> list[tuple[RuleFile, str]]:
    """The conditional rules Claude Code loads when ``rel_path`` is read, with the pattern that
    decided each (pure)."""
    out = []
    for rule in rules:
        if rule.conditional and rule.paths is not None:
            pattern = Matcher(rule.paths).deciding_pattern(rel_path)
            if pattern is not None:
                out.append((rule, pattern))
    return out


def match(project_dir: Path | str, rel_path: str) -> list[RuleFile]:
    """The path-scoped rules Claude Code would load when Claude reads ``rel_path``.

    Unconditional rules are not included: see :func:`always_loaded`.
    """
    rules = discover(project_dir)
    return [rule for rule, _ in match_rules(rules, normalise_rel_path(project_dir, rel_path))]


def always_loaded(rules: Sequence[RuleFile]) -> list[RuleFile]:
    """The rules Claude Code loads at the start of every session (no usable ``paths``)."""
    return [rule for rule in rules if rule.always_loaded]


# ---------------------------------------------------------------------------------------------
# Lint


ERROR = "error"
WARNING = "warning"


ALWAYS_LOADED = "so Claude Code loads this rule at the start of every session"


GLOB_QUIRKS = (
    (
        re.compile(r"\[[!^]"),
        "'[!…]' and '[^…]' are not negated by Claude Code: '!' and '^' are matched as "
        "characters (git and npm 'ignore' negate them)",
    ),
    (
        re.compile(r"\\"),
        "backslash escapes are translated unlike git by Claude Code (e.g. '\\*' at the end "
        "still matches anything); avoid them",
    ),
    (
        re.compile(r"/\*\*/$"),
        "a pattern ending in '/**/' also matches the folder before it in Claude Code (git "
        "matches only folders below it)",
    ),
)


def find_rule(rules: Sequence[RuleFile], name: str) -> RuleFile:
    """The rule ``name`` designates: its id, its path under .claude/rules/ (with or without
    ``.md``), its project-relative path, or its file path."""
    wanted = name.replace(os.sep, "/").strip()
    candidates = [
        rule
        for rule in rules
        if wanted
        in (
            rule.id,
            rule.rule_path,
            rule.rule_path.removesuffix(".md"),
            rule.rel_path,
            str(rule.path),
        )
    ]
    if not candidates and os.path.exists(name):
        real = os.path.realpath(name)
        candidates = [rule for rule in rules if os.path.realpath(rule.path) == real]
    if len(candidates) > 1:
        exact = [rule for rule in candidates if wanted in (rule.rule_path, rule.rel_path)]
        candidates = exact or candidates
    if not candidates:
        known = ", ".join(rule.rule_path for rule in rules) or "none"
        raise PokayokayError(f"no rule {name!r} in .claude/rules/ (rules: {known})")
    if len(candidates) > 1:
        names = ", ".join(rule.rule_path for rule in candidates)
        raise PokayokayError(f"{name!r} names several rules ({names}); give its path")
    return candidates[0]
