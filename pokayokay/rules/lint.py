"""rules lint: frontmatter Claude Code would mis-load, paths: values that match nothing or
everything, patterns it cannot compile, and graduated rules whose bookkeeping was edited."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pokayokay.infra.git import list_project_files
from pokayokay.rules import claude_match as rule_match
from pokayokay.rules.claude_match import Matcher, pattern_problem
from pokayokay.rules.files import (
    ALWAYS_LOADED,
    ERROR,
    GLOB_QUIRKS,
    WARNING,
    RuleFile,
    discover,
    graduated_globs,
)


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
                f"Code sees no frontmatter, {ALWAYS_LOADED}, 'paths:' line included in its text",
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
            f"ignores all of it, 'paths:' included, {ALWAYS_LOADED}",
        )
        return
    if parsed.not_mapping is not None:
        out.add(
            "frontmatter-not-mapping",
            ERROR,
            f"the frontmatter is {parsed.not_mapping}, not 'key: value' pairs: Claude Code "
            f"ignores it, {ALWAYS_LOADED}",
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
                f"'globs:' is not read by Claude Code (it is Cursor's key), {ALWAYS_LOADED}; "
                "rename it to 'paths:'",
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
                f"({value!r}): Claude Code ignores it, {ALWAYS_LOADED}",
            )
        else:
            out.add("paths-empty", WARNING, f"'paths:' is empty, {ALWAYS_LOADED}")
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
        out.add("paths-empty", WARNING, f"'paths:' holds no pattern, {ALWAYS_LOADED}")
        return
    if rule.paths is None:
        out.add(
            "matches-everything",
            WARNING,
            "every pattern in 'paths:' is '**' (a trailing '/**' is dropped, so '/**' counts "
            f"too): the rule is unconditional in disguise, {ALWAYS_LOADED}. Remove 'paths:' or "
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


def _lint_patterns(rule: RuleFile, out: _Findings, files: Sequence[str] | None) -> None:
    assert rule.paths is not None
    for pattern in rule.paths:
        problem = pattern_problem(pattern)
        if problem is not None:
            out.add("pattern-invalid", ERROR, f"pattern {pattern!r} is {problem}", pattern)
            continue
        for regex, message in GLOB_QUIRKS:
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
            f"'paths:', {ALWAYS_LOADED}",
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
        files = list_project_files(project_dir)
    findings: list[LintFinding] = []
    for rule in rules:
        findings.extend(lint_rule(rule, files))
    return findings
