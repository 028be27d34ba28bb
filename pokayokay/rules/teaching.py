"""The one sentence that teaches a lesson, and its one evidence line (pure).

Every lesson pokayokay writes — a graduated rule's mistake, the environment rule,
``recurring-failures.md``, the failure-time and PreToolUse texts, the subagent "always" lines —
opens with the sentence :func:`teach` builds from a :class:`Mistake`:

* a **correction** (a failing command, then a variant of it that passed with no file edited)
  teaches the command: "Run `.venv/bin/python -m pytest x`, not `python -m pytest x`: its
  dependencies live in `.venv`." for an environment correction, "Use `make test`, not
  `make tests`." for a script or target name;
* a **fixing edit** teaches the file, in words chosen by the kind of mistake
  (:data:`pokayokay.rules.mistake_kinds.KINDS`: an undefined name, an unused import, a missing
  module, a link error, a type error, a failing test, ...), the kind found from the mistake's
  data — its key's code, its category and the shape of its error line — never from one
  prompt's text: "Define or import `Path` before using it in `src/app/report.py`.";

then one evidence line: the sessions, the last day it failed, the error line and the fixing
edit (or commit). Where no fix was seen, there is one line of what is known and nothing else:
"`tests/test_users.py::test_name` has failed in 3 sessions since 2026-11-24 with
`KeyError: 'name'`." — the categories whose mistake is the call itself (``edit``,
``permissions``) keep their own advice.

The verbs and the connecting words are pokayokay's. What comes from a failure — commands, file
names, the error line, a name the error line quotes, a tool's code — is shown only in code
spans, exactly (:func:`pokayokay.safety.exact.quoted`; a cut one ends with "…"), and only when
it does not speak to the reader (:mod:`pokayokay.safety.instructions`): nothing from tool
output ever becomes an imperative.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from pokayokay.failures.model import FailureGroup
from pokayokay.rules.mistake_kinds import Mistake, is_manifest, key_parts, kind_of

ENVIRONMENT = "environment"  # corrections.ENVIRONMENT
COMMAND = "command"  # corrections.COMMAND
MAX_FILES = 3
MAX_COMMAND = 120
MAX_PATH = 80
ERROR_LIMIT = 160
SEPARATOR = " | "  # pokayokay.failures.signature.SEPARATOR


@dataclass(frozen=True)
class Lesson:
    """The teaching sentence and its evidence line ("" where no fix was seen: the sentence is
    then the one line of what is known). ``kind`` names the template used; ``fixed`` says
    whether a fix was observed."""

    sentence: str
    evidence: str
    kind: str
    fixed: bool

    def lines(self) -> tuple[str, ...]:
        return (self.sentence, self.evidence) if self.evidence else (self.sentence,)

    def text(self) -> str:
        """Sentence and evidence on one line (hook context, one-line entries)."""
        return f"{self.sentence} {self.evidence}" if self.evidence else self.sentence


# Re-read-before-edit and refused calls: the call itself is the mistake, so the category's own
# advice teaches it even when no fix was seen.
ADVICE = {
    "edit": "Re-read {files} right before editing it: the text to replace had changed.",
    "permissions": "Check what is allowed before calling it again: calls here were refused.",
}

GENERIC = "Fix {code} in {files}."
GENERIC_PLAIN = "Edit {files} so that {command} passes."
GENERIC_BARE = "Fix {files}."

_CODE = re.compile(r"\A[A-Za-z0-9][\w.\[\]-]{0,39}\Z")
_ERRORISH = re.compile(r"(?i)error|assert|exception|panic|expected|not found|denied|failed")
_BIN = re.compile(r"\A(.+?)/(?:bin|Scripts)/[^/]+\Z")
_RUNNERS = (
    "uv run",
    "poetry run",
    "pipenv run",
    "pdm run",
    "hatch run",
    "npx",
    "pnpm exec",
    "yarn exec",
    "bundle exec",
    "nix develop -c",
    "direnv exec",
)


# --- exact quoting ------------------------------------------------------------------------


def span(text: str) -> str:
    """Exact text in a code span (:func:`pokayokay.safety.exact.quoted`)."""
    from pokayokay.safety.exact import quoted

    return quoted(text)


def command_span(command: str | None) -> str | None:
    """A command in a code span as it ran (secrets redacted), or None when it cannot be shown
    (dangerous, a link, an instruction phrase: :func:`pokayokay.safety.shown.shown_command`)."""
    from pokayokay.safety.shown import shown_command

    if not command:
        return None
    shown = shown_command(command, MAX_COMMAND)
    return span(shown) if shown else None


def path_span(path: str) -> str | None:
    """A file name in a code span, or None when it is long, carries a line break or speaks."""
    from pokayokay.safety import sanitize
    from pokayokay.safety.instructions import speaks

    if not path or len(path) > MAX_PATH or sanitize.clean(path) != path:
        return None
    if "\n" in path or "\r" in path or speaks(path):
        return None
    return span(path)


def error_line(excerpt: str, key: str = "") -> str:
    """The one line of a stored excerpt (whose lines are joined by " | ") that identifies the
    mistake: the one showing the key's code (``ModuleNotFoundError``), else the first that
    reads as an error or assertion, else the first."""
    lines = [ln for ln in excerpt.split(SEPARATOR) if ln.strip()]
    if not lines:
        return ""
    tool, code = key_parts(key)
    if tool and tool != "test" and code:
        for line in lines:
            if code in line:
                return line
    for line in lines:
        if _ERRORISH.search(line):
            return line
    return lines[0]


def error_span(line: str, key: str = "") -> str | None:
    """The error line in a code span (:func:`pokayokay.safety.sanitize.tool_line`), or None."""
    from pokayokay.safety import sanitize
    from pokayokay.safety.commands import redact_secrets

    first = error_line(line, key)
    shown = sanitize.tool_line(redact_secrets(first), ERROR_LIMIT) if first else None
    if not shown:
        return None
    return span(shown) + _values_shown(line, first)


def _values_shown(excerpt: str, first: str) -> str:
    """`` (`Expected: 400`, `Received: 399.6`)``: the sides of the failed comparison stored
    after the error line (:mod:`pokayokay.failures.said`), each a code span; "" when none."""
    from pokayokay.failures.said import values_after
    from pokayokay.safety import sanitize
    from pokayokay.safety.commands import redact_secrets

    parts = [part.strip() for part in excerpt.split(SEPARATOR)]
    if first.strip() not in parts:
        return ""
    values = values_after(parts, parts.index(first.strip()))
    shown = [s for s in (sanitize.tool_line(redact_secrets(v), ERROR_LIMIT) for v in values) if s]
    return f" ({', '.join(span(s) for s in shown)})" if shown else ""


def _word(text: str) -> str | None:
    """A code or name from a key or an error line in a code span, or None when it speaks."""
    from pokayokay.safety.instructions import speaks

    return None if not text or speaks(text) else span(text)


def files_text(paths: Sequence[str], limit: int = MAX_FILES) -> str:
    """``a``, ``a` and `b``, ``a`, `b`, `c` and 2 more`` ("" when none can be shown)."""
    unique = list(dict.fromkeys(paths))
    shown = [s for s in (path_span(p) for p in unique[:limit]) if s]
    if not shown:
        return ""
    more = len(unique) - min(limit, len(unique))
    if more > 0:
        return ", ".join(shown) + f" and {more} more"
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + f" and {shown[-1]}"


# --- the sentence --------------------------------------------------------------------------


def _reason(failing: str, corrected: str) -> str:
    """Why the corrected command ran where the failing one did not, in pokayokay's words around
    exact parts of the corrected command: ": its dependencies live in `.venv`", ": tools here
    run through `uv run`", ": it needs `PYTHONPATH` set"; "" when nothing can be said."""
    from pokayokay.failures.corrections import difference

    found = difference(failing, corrected)
    if found is None:
        return ""
    _, added = found
    names = [w[:-1] for w in added if w.endswith("=")]
    names += [w.split("=", 1)[0] for w in added if "=" in w and not w.endswith("=")]
    words = [w for w in added if "=" not in w]
    joined = " ".join(words)
    for runner in _RUNNERS:
        if joined.startswith(runner) and runner in corrected:
            return f": tools here run through {span(runner)}"
    for word in words:
        env = _BIN.match(word)
        if env and env[1] in corrected and (shown := _word(env[1])):
            return f": its dependencies live in {shown}"
    if names and all(n in corrected for n in names) and (shown := _word(names[0])):
        return f": it needs {shown} set"
    return ""


def correction_sentence(failing: str, corrected: str, kind: str | None) -> str | None:
    """ "Run `good`, not `bad`: <why>." for an environment correction, "Use `good`, not `bad`."
    for another; None when either command cannot be shown."""
    good, bad = command_span(corrected), command_span(failing)
    if good is None or bad is None or good == bad:
        return None
    if kind == ENVIRONMENT:
        return f"Run {good}, not {bad}{_reason(failing, corrected)}."
    return f"Use {good}, not {bad}."


def test_name(mistake: Mistake) -> str:
    """The failing test as the output names it: a pytest or unittest id as it is; of a title
    path pokayokay joined (``file > suite › case``), the part after the file when the id
    itself is not in the error line; "" for another key."""
    tool, code = key_parts(mistake.key)
    if tool != "test" or not code:
        return ""
    if code in mistake.error_line or " > " not in code:
        return code
    return code.split(" > ", 1)[1]


def _code_of(mistake: Mistake) -> str:
    """The key's code when the error line shows it as it is (``F401``, ``TS2345``); a code
    pokayokay made up from a message (``cc:use-of-undeclared-identifier``) is not quoted."""
    tool, code = key_parts(mistake.key)
    if not tool or tool == "test" or not _CODE.match(code) or code not in mistake.error_line:
        return ""
    return code


def _fields(mistake: Mistake, name: str) -> dict[str, str]:
    files = files_text(mistake.fix_paths) or files_text(mistake.paths)
    test = test_name(mistake)
    code = _code_of(mistake)
    return {
        "files": files,
        "name": (_word(name) or "") if name else "",
        "code": (_word(code) or "") if code else "",
        "test": (_word(test) or "") if test else "",
        "command": command_span(mistake.failing) or "",
    }


def _fill(template: str, fields: dict[str, str]) -> str | None:
    """``template`` filled, or None when a field it needs is empty."""
    needed = re.findall(r"\{(\w+)\}", template)
    if any(not fields.get(n) for n in needed):
        return None
    return template.format(**fields)


def edit_sentence(mistake: Mistake) -> tuple[str, str] | None:
    """(kind name, sentence) teaching a mistake a fixing edit closed, or None when no file
    can be named."""
    kind, name = kind_of(mistake)
    fields = _fields(mistake, name)
    if not fields["files"]:
        return None
    if kind is not None:
        template = kind.template
        manifests = [p for p in mistake.fix_paths if is_manifest(p)]
        if kind.manifest and manifests:
            # the dependency was declared: that is the lesson, whatever else was edited
            template = kind.manifest
            fields = {**fields, "files": files_text(manifests)}
        text = _fill(template, fields) or (_fill(kind.bare, fields) if kind.bare else None)
        if text is None and kind.name == "types":
            text = f"Make the types in {fields['files']} agree."
        if text is not None:
            return kind.name, text
    for template in (GENERIC, GENERIC_PLAIN, GENERIC_BARE):
        text = _fill(template, fields)
        if text is not None:
            return "generic", text
    return None


# --- the evidence line ---------------------------------------------------------------------


def _sessions(n: int) -> str:
    return "1 session" if n == 1 else f"{n} sessions"


def _when(mistake: Mistake) -> str:
    last = f" (last {mistake.last_seen.isoformat()})" if mistake.last_seen else ""
    return f"Failed in {_sessions(mistake.sessions)}{last}"


def evidence_line(mistake: Mistake, fix: str) -> str:
    """ "Failed in 3 sessions (last 2026-11-20) with `error`; <fix>." (one line)."""
    error = error_span(mistake.error_line, mistake.key)
    with_error = f" with {error}" if error else ""
    return f"{_when(mistake)}{with_error}; {fix}."


def known_line(mistake: Mistake) -> str:
    """The one line said where no fix was seen: what failed, since when, with which error."""
    test = test_name(mistake)
    subject = (_word(test) if test else None) or command_span(mistake.failing)
    subject = subject or (files_text(mistake.paths) if mistake.paths else None)
    since = f" since {mistake.first_seen.isoformat()}" if mistake.first_seen else ""
    error = error_span(mistake.error_line, mistake.key)
    with_error = f" with {error}" if error else ""
    verb = "have" if subject and " and " in subject else "has"
    who = f"{subject} {verb} failed" if subject else "It failed"
    return f"{who} in {_sessions(mistake.sessions)}{since}{with_error}."


def _fixed_by(mistake: Mistake) -> str:
    files = files_text(mistake.fix_paths)
    commit = _word(mistake.fix_commit) if mistake.fix_commit else None
    where = f" in commit {commit}" if commit else ""
    edits = "edits" if len(set(mistake.fix_paths)) > 1 else "edit"
    return f"fixed by the {edits} to {files}{where}" if files else f"fixed{where}"


def teach(mistake: Mistake) -> Lesson:
    """The lesson of ``mistake``: the teaching sentence and its evidence line."""
    if mistake.corrected and mistake.failing:
        sentence = correction_sentence(mistake.failing, mistake.corrected, mistake.correction_kind)
        if sentence is not None:
            passed = command_span(mistake.corrected)
            kind = "environment" if mistake.correction_kind == ENVIRONMENT else "command"
            return Lesson(sentence, evidence_line(mistake, f"{passed} passed after it"), kind, True)
    formatter = command_span(mistake.formatter)
    check = command_span(mistake.failing)
    if formatter and check:
        sentence = f"Run {formatter} before {check}: the formatter writes what the check rejects."
        fix = f"{formatter} wrote the files, then the check passed"
        return Lesson(sentence, evidence_line(mistake, fix), "formatter", True)
    if mistake.fix_paths or mistake.fix_commit:
        found = edit_sentence(mistake)
        if found is not None:
            kind_name, sentence = found
            return Lesson(sentence, evidence_line(mistake, _fixed_by(mistake)), kind_name, True)
    advice = ADVICE.get(mistake.category)
    if advice is not None:
        text = _fill(advice, _fields(mistake, ""))
        if text is not None or "{files}" not in advice:
            return Lesson(text or advice, known_line(mistake), mistake.category, False)
    return Lesson(known_line(mistake), "", "known", False)


def from_group(group: FailureGroup, fix_paths: Sequence[str] | None = None) -> Mistake:
    """The :class:`Mistake` a failure group records: its first usable correction (one whose
    corrected command can be shown), the files its fixing edits touched (most edited first, or
    ``fix_paths`` when the caller has already chosen them), its sessions and days."""
    from collections import Counter
    from datetime import datetime, timezone

    def day(ts: float) -> date:
        return datetime.fromtimestamp(ts, tz=timezone.utc).date()

    from pokayokay.failures.corrections import formatter_fix

    correction = next((c for c in group.corrections if command_span(c.corrected)), None)
    if fix_paths is None:
        counts: Counter[str] = Counter()
        for edit in group.fix_edits:
            counts[edit.path] += edit.times
        for path in group.fix_paths:
            counts.setdefault(path, 0)
        fix_paths = sorted(counts, key=lambda p: (-counts[p], p))
    return Mistake(
        key=group.signature,
        category=group.category,
        error_line=group.excerpt,
        paths=tuple(group.paths),
        failing=correction.failing if correction else group.sample_command,
        corrected=correction.corrected if correction else None,
        correction_kind=correction.kind if correction else None,
        fix_paths=tuple(fix_paths),
        fix_commit=group.fix_commit,
        formatter=None if correction else formatter_fix(group.sample_command, group.fix_commands),
        sessions=group.sessions,
        first_seen=day(group.first_seen),
        last_seen=day(group.last_seen),
    )


def lesson_of(group: FailureGroup, fix_paths: Sequence[str] | None = None) -> Lesson:
    """:func:`teach` for a failure group (:func:`from_group`)."""
    return teach(from_group(group, fix_paths))
