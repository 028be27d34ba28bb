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
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pokayokay.rules import claude_match as rule_match
from pokayokay.rules.claude_match import Matcher, normalise_patterns, pattern_problem

RULES_DIR = Path(".claude") / "rules"
POKAYOKAY_SUBDIR = "pokayokay"
MAX_RULE_BYTES = 4 * 1024 * 1024  # Claude Code skips larger memory files
PROJECT_FILES_CAP = 200_000
SKIPPED_DIRS = frozenset(
    {".git", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache", ".pytest_cache",
     ".ruff_cache", ".tox", ".hg", ".svn"}
)  # fmt: skip

_SPACE_CHARS = "".join(f"\\u{ord(char):04x}" for char in sorted(rule_match._JS_SPACE))
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
                except Exception:
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
    try:
        value = _yaml_load(yaml_text)
    except Exception:
        try:
            value = _yaml_load(quote_fallback(yaml_text))
            used_fallback = True
        except Exception as exc:
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
    skipped: str | None = None  # why Claude Code does not load it at all (e.g. over 4 MiB)

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


def _walk_rule_files(folder: Path, prefix: str, seen: set[str]) -> Iterable[tuple[Path, str]]:
    try:
        real = os.path.realpath(folder)
        if real in seen:
            return  # a symlink loop
        seen.add(real)
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError:
        return
    for entry in entries:
        rel = f"{prefix}{entry.name}"
        try:
            is_dir = entry.is_dir()
            is_file = entry.is_file()
        except OSError:
            continue
        if is_dir:
            yield from _walk_rule_files(Path(entry.path), rel + "/", seen)
        elif is_file and entry.name.endswith(".md"):
            yield Path(entry.path), rel


def read_rule(project_dir: Path, path: Path, rule_path: str) -> RuleFile:
    """Read and parse one rule file; unreadable files come back with ``skipped`` set."""
    rel_path = (RULES_DIR / rule_path).as_posix()
    try:
        size = path.stat().st_size
        if size > MAX_RULE_BYTES:
            reason = f"larger than {MAX_RULE_BYTES >> 20} MiB: Claude Code does not load it"
            return _unreadable(path, rel_path, rule_path, reason)
        data = path.read_bytes()
    except OSError as exc:
        reason = f"cannot be read ({exc.strerror or type(exc).__name__})"
        return _unreadable(path, rel_path, rule_path, reason)
    text = data.decode("utf-8", "replace")
    return parse_rule(text, rule_path, path, rel_path)


def _unreadable(path: Path, rel_path: str, rule_path: str, reason: str) -> RuleFile:
    from dataclasses import replace

    return replace(parse_rule("", rule_path, path, rel_path), skipped=reason)


def discover(project_dir: Path | str) -> list[RuleFile]:
    """Every rule file under ``<project_dir>/.claude/rules/``, recursively, sorted by path."""
    project = Path(os.path.abspath(project_dir))
    folder = rules_dir(project)
    return [
        read_rule(project, path, rule_path)
        for path, rule_path in _walk_rule_files(folder, "", set())
    ]


def project_files(project_dir: Path | str) -> list[str]:
    """The project's files, relative and POSIX: ``git ls-files`` (tracked and untracked, not
    ignored) inside a git work tree, else a walk that skips VCS, dependency and cache folders."""
    project = Path(project_dir)
    try:
        done = subprocess.run(
            ["git", "-C", str(project), "ls-files", "-z", "--cached", "--others",
             "--exclude-standard"],
            capture_output=True,
            timeout=30,
            check=False,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        done = None
    if done is not None and done.returncode == 0:
        names = done.stdout.decode("utf-8", "surrogateescape").split("\0")
        return sorted({name for name in names if name})[:PROJECT_FILES_CAP]
    out: list[str] = []
    for root, dirs, files in os.walk(project):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
        rel_root = os.path.relpath(root, project)
        for name in sorted(files):
            rel = name if rel_root == "." else f"{rel_root}/{name}"
            out.append(rel.replace(os.sep, "/"))
            if len(out) >= PROJECT_FILES_CAP:
                return out
    return out


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


@dataclass(frozen=True)
class LintFinding:
    rule: str  # the rule's path relative to the project
    code: str
    severity: str  # "error" (Claude Code mis-loads the rule) or "warning"
    message: str
    pattern: str | None = None


@dataclass
class _Findings:
    rule: RuleFile
    items: list[LintFinding] = field(default_factory=list)

    def add(self, code: str, severity: str, message: str, pattern: str | None = None) -> None:
        self.items.append(LintFinding(self.rule.rel_path, code, severity, message, pattern))


_ALWAYS = "so Claude Code loads this rule at the start of every session"


def _has_quotes(pattern: str) -> bool:
    return pattern[:1] in ("'", '"') or pattern[-1:] in ("'", '"')


def _lint_frontmatter(rule: RuleFile, out: _Findings) -> None:
    parsed = rule.parsed
    stripped = rule.text.removeprefix("\ufeff")
    lines = stripped.split("\n")
    if not parsed.present:
        if lines[0].rstrip() == "---":
            out.add(
                "frontmatter-unclosed",
                ERROR,
                "the file opens a frontmatter block with '---' that is never closed: Claude "
                f"Code sees no frontmatter, {_ALWAYS}, 'paths:' line included in its text",
            )
        return
    offset, strict_close = len(lines[0]) + 1, None
    for line in lines[1:]:
        if line.rstrip() == "---":
            strict_close = offset
            break
        offset += len(line) + 1
    if strict_close is None or parsed.close_offset < strict_close:
        line_number = stripped.count("\n", 0, parsed.close_offset) + 1
        out.add(
            "frontmatter-ends-early",
            WARNING,
            f"Claude Code ends the frontmatter at the first '---' anywhere, here on line "
            f"{line_number} (not a '---' line): what follows becomes part of the rule text",
        )
    if parsed.yaml_error is not None:
        hint = ""
        if re.search(r"^(paths|globs)\s*:\s*[\"'].*[\"']\s*,", parsed.text, re.M):
            hint = (
                " — quoted items separated by commas are not valid YAML; write 'paths:' as a "
                "YAML list, one '- pattern' per line"
            )
        out.add(
            "yaml-invalid",
            ERROR,
            f"the frontmatter is not valid YAML: {parsed.yaml_error}{hint}. Claude Code then "
            f"ignores all of it, 'paths:' included, {_ALWAYS}",
        )
        return
    if parsed.not_mapping is not None:
        out.add(
            "frontmatter-not-mapping",
            ERROR,
            f"the frontmatter is {parsed.not_mapping}, not 'key: value' pairs: Claude Code "
            f"ignores it, {_ALWAYS}",
        )
        return
    for key in parsed.duplicate_keys:
        if key in ("paths", "globs"):
            out.add(
                "duplicate-key",
                WARNING,
                f"'{key}:' appears more than once: Claude Code uses the last one",
            )


def _lint_paths(rule: RuleFile, out: _Findings, files: Sequence[str] | None) -> None:
    data = rule.frontmatter
    has_paths = "paths" in data
    if "globs" in data:
        if has_paths:
            out.add(
                "globs-key",
                WARNING,
                "'globs:' is not read by Claude Code (it is Cursor's key) and is ignored here; "
                "only 'paths:' counts",
            )
        else:
            out.add(
                "globs-key",
                ERROR,
                f"'globs:' is not read by Claude Code (it is Cursor's key), {_ALWAYS}; rename "
                "it to 'paths:'",
            )
    if not has_paths:
        return
    value = data["paths"]
    if not isinstance(value, (str, list)):
        if rule_match.js_truthy(value):
            out.add(
                "paths-type",
                ERROR,
                f"'paths:' must be a string or a list of strings, not {type(value).__name__} "
                f"({value!r}): Claude Code ignores it, {_ALWAYS}",
            )
        else:
            out.add("paths-empty", WARNING, f"'paths:' is empty, {_ALWAYS}")
        return
    if isinstance(value, list):
        bad = [item for item in _flatten(value) if not isinstance(item, str)]
        for item in bad:
            out.add(
                "paths-type",
                ERROR,
                f"'paths:' item {item!r} is {type(item).__name__}, not a string; Claude Code "
                "skips it",
            )
    raw = rule_match.split_paths_value(value)
    if not raw:
        out.add("paths-empty", WARNING, f"'paths:' holds no pattern, {_ALWAYS}")
        return
    if rule.paths is None:
        out.add(
            "matches-everything",
            WARNING,
            "every pattern in 'paths:' is '**' (a trailing '/**' is dropped, so '/**' counts "
            f"too): the rule is unconditional in disguise, {_ALWAYS}. Remove 'paths:' or "
            "scope it",
        )
        return
    strings = [value] if isinstance(value, str) else list(_flatten(value))
    comma_string = any(isinstance(item, str) and "," in item for item in strings)
    for pattern in (p for p in rule.paths if _has_quotes(p)):
        if comma_string:
            out.add(
                "quoted-comma-item",
                ERROR,
                f"in a comma-separated 'paths:' string quotes are not removed: {pattern} only "
                "matches names that contain the quote characters. Write 'paths:' as a YAML "
                "list, one '- pattern' per line",
                pattern,
            )
        else:
            out.add(
                "quoted-pattern",
                WARNING,
                f"the pattern {pattern} includes quote characters, which are matched literally",
                pattern,
            )
    _lint_patterns(rule, out, files)


def _flatten(items: Sequence[object]) -> Iterable[object]:
    for item in items:
        if isinstance(item, list):
            yield from _flatten(item)
        else:
            yield item


_QUIRKS = (
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


def _lint_patterns(rule: RuleFile, out: _Findings, files: Sequence[str] | None) -> None:
    assert rule.paths is not None
    for pattern in rule.paths:
        problem = pattern_problem(pattern)
        if problem is not None:
            out.add("pattern-invalid", ERROR, f"pattern {pattern!r} is {problem}", pattern)
            continue
        for regex, message in _QUIRKS:
            if regex.search(pattern):
                out.add("pattern-quirk", WARNING, f"pattern {pattern!r}: {message}", pattern)
        if pattern in ("*", "**") and len(rule.paths) > 1:
            out.add(
                "pattern-matches-everything",
                WARNING,
                f"pattern {pattern!r} matches every file: the rule loads as soon as Claude "
                "reads any file",
                pattern,
            )
        if files is not None and not pattern.startswith("!") and not _has_quotes(pattern):
            matcher = Matcher([pattern])
            if not any(matcher.matches(name) for name in files):
                out.add(
                    "pattern-no-match",
                    WARNING,
                    f"pattern {pattern!r} matches no file in the project",
                    pattern,
                )


def _lint_bookkeeping(rule: RuleFile, out: _Findings) -> None:
    if not rule.is_pokayokay:
        return
    if rule.bookkeeping is None:
        out.add(
            "bookkeeping-missing",
            WARNING,
            "a rule under .claude/rules/pokayokay/ without its '<!-- pokayokay-rule: … -->' "
            "line: pokayokay cannot tell which failures it is about",
        )
        return
    where = graduated_globs(rule.body)
    if rule.paths is None and (rule.bookkeeping.scoped or where):
        named = f" ({', '.join(where)})" if where else ""
        out.add(
            "scoped-without-paths",
            ERROR,
            f"pokayokay graduated this rule for specific paths{named}, but it has no usable "
            f"'paths:', {_ALWAYS}",
        )


def lint_rule(rule: RuleFile, files: Sequence[str] | None = None) -> list[LintFinding]:
    """Everything that makes Claude Code load ``rule`` other than intended (pure).

    ``files``: the project's files, for "pattern matches no file"; None skips that check.
    """
    out = _Findings(rule)
    if rule.skipped is not None:
        out.add("unreadable", ERROR, f"the rule file is {rule.skipped}")
        return out.items
    _lint_frontmatter(rule, out)
    _lint_paths(rule, out, files)
    _lint_bookkeeping(rule, out)
    return out.items


def lint(project_dir: Path | str, files: Sequence[str] | None = None) -> list[LintFinding]:
    """Lint every rule of the project; ``files`` (the project's files, relative) defaults to
    :func:`project_files`."""
    rules = discover(project_dir)
    if files is None:
        files = project_files(project_dir)
    findings: list[LintFinding] = []
    for rule in rules:
        findings.extend(lint_rule(rule, files))
    return findings
