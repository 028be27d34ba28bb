"""A mistake as teaching reads it, and its kind (pure).

:class:`Mistake` is what is known of one mistake. Its kind (:data:`KINDS`: an undefined name, an
unused import, a missing module, a link error, a type error, a failing test, ...) is found from
the mistake's data — its key's code, its category and the shape of its error line — never from
one prompt's text, and each kind carries the sentence that teaches its fix, which
:mod:`pokayokay.rules.teaching` fills in with exact, quoted parts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

MAX_NAME = 60


@dataclass(frozen=True)
class Mistake:
    """What is known of one mistake: its key (``ruff:F401``, ``test:tests/x.py::test_y`` or a
    normalised error line), category, error line, the paths it involved, the failing command,
    the correction that passed after it, the files whose edit made it pass (and the commit,
    when known), and the distinct sessions and days it failed in."""

    key: str
    category: str
    error_line: str = ""
    paths: tuple[str, ...] = ()
    failing: str | None = None
    corrected: str | None = None
    correction_kind: str | None = None  # ENVIRONMENT or COMMAND when ``corrected`` is set
    fix_paths: tuple[str, ...] = ()
    fix_commit: str | None = None
    # the formatter run that ended an episode of a check (``black -q f`` after
    # ``black --check f``): not a correction (decision 0085), but what made the check pass
    formatter: str | None = None
    sessions: int = 1
    first_seen: date | None = None
    last_seen: date | None = None


@dataclass(frozen=True)
class Kind:
    """A kind of mistake and the sentence that teaches its fix. A mistake is of this kind when
    its key's code is in ``codes``, or its error line matches ``pattern``, or (when neither is
    given) its category is in ``categories``. ``template`` may use ``{files}`` (the files the
    fix edited, else the mistake's paths), ``{name}`` (a name the error line quotes: the first
    group of ``pattern`` that matched), ``{code}`` (the key's code) and ``{test}``; ``bare``
    is used when ``{name}`` is needed but none was found."""

    name: str
    template: str
    codes: frozenset[str] = frozenset()
    pattern: str = ""
    categories: frozenset[str] = frozenset()
    bare: str = ""
    manifest: str = ""  # the template when every fixed file is a dependency manifest


def _codes(*codes: str) -> frozenset[str]:
    return frozenset(codes)


# First match wins; the order puts the specific kinds before the general ones.
KINDS: tuple[Kind, ...] = (
    Kind(
        "fixture",
        "Define the fixture {name} in {files} before a test asks for it.",
        pattern=r"fixture '(\w+)' not found",
    ),
    Kind(
        "undefined-name",
        "Define or import {name} before using it in {files}.",
        _codes(
            "F821",
            "no-undef",
            "E0425",
            "TS2304",
            "name-defined",
            "NameError",
            "ReferenceError",
            "use-of-undeclared-identifier",
            "undefined",
        ),
        r"NameError: name '([\w.]+)' is not defined|ReferenceError: ([\w$]+) is not defined"
        r"|'([\w$]+)' is not defined|\b([\w$]+) is not defined\.|\bundefined: (\w+)"
        r"|undeclared identifier '(\w+)'|Undefined name `(\w+)`"
        r"|implicit declaration of function [‘'](\w+)",
        bare="Define or import every name {files} uses.",
    ),
    Kind(
        "link",
        "Define {name} exactly once, under the name its callers use, in {files}.",
        pattern=r"undefined reference to `([^'`]+)'|multiple definition of `([^'`]+)'",
    ),
    Kind(
        "unused",
        "Remove the unused imports and variables from {files}.",
        _codes(
            "F401",
            "F841",
            "no-unused-vars",
            "TS6133",
            "unused-import",
            "unused_imports",
            "unused_variables",
        ),
        r"imported and not used|declared and not used|is defined but never used"
        r"|assigned a value but never used",
    ),
    Kind(
        "line-length",
        "Keep the lines of {files} within the configured length.",
        _codes("E501", "line-too-long", "max-len"),
    ),
    Kind("import-order", "Sort the imports of {files}.", _codes("I001", "import-order")),
    Kind(
        "format",
        "Format {files} with the project's formatter before its check runs.",
        pattern=r"\bwould reformat\b|\bwould be reformatted\b|^\[warn\] |Code style issues",
    ),
    Kind(
        "missing-module",
        "Make {name} resolve where {files} import it.",
        _codes(
            "ModuleNotFoundError", "TS2307", "import-untyped", "import-not-found", "E0432", "E0433"
        ),
        r"No module named '([\w.]+)'|Cannot find module '([^']+)'"
        r"|no required module provides package ([\w./-]+)"
        r"|Library stubs not installed for \"([^\"]+)\""
        r"|no matching package named `([^`]+)`|unresolved import `([^`]+)`"
        r"|cannot import name '(\w+)'",
        bare="Make the imports of {files} resolve.",
        manifest="Declare {name} in {files} before importing it.",
    ),
    Kind(
        "conflict",
        "Resolve the conflict markers in {files} before you commit.",
        pattern=r"^CONFLICT \(|Merge conflict in ",
    ),
    Kind(
        "syntax",
        "Fix the syntax of {files}.",
        _codes("SyntaxError", "IndentationError", "E999"),
        r"\bsyntax error\b|\bexpected .{1,12} before\b|missing separator|SyntaxError",
    ),
    Kind("types", "Make the types in {files} agree ({code}).", categories=_codes("types")),
    Kind(
        "permission",
        "Make {files} executable before running it, or run it through its interpreter.",
        pattern=r"Permission denied",
    ),
    Kind("test", "Keep {test} passing when you change {files}.", categories=_codes("testing")),
)

# Files that declare a project's dependencies: a missing module fixed there was undeclared.
MANIFESTS = frozenset({"pyproject.toml", "setup.cfg", "setup.py", "Pipfile", "package.json",
                       "Cargo.toml", "go.mod", "go.sum", "Gemfile", "environment.yml",
                       "pom.xml", "build.gradle"})  # fmt: skip


def is_manifest(path: str) -> bool:
    """Whether ``path`` is a file that declares the project's dependencies."""
    name = path.rsplit("/", 1)[-1]
    return name in MANIFESTS or re.fullmatch(r"requirements.*\.(?:txt|in)", name) is not None


_KEY = re.compile(r"\A([a-z][\w-]*(?: [a-z]+)?):(\S.*)\Z")
_NAME = re.compile(r"\A[\w$./@-]{1," + str(MAX_NAME) + r"}\Z")


# --- the parts of a key --------------------------------------------------------------------


def key_parts(key: str) -> tuple[str, str]:
    """(tool, code) of a group key ``tool:code``; ("", "") for a normalised error line."""
    match = _KEY.match(key)
    if match is None or " | " in key or len(key) > 200:
        return "", ""
    return match[1], match[2]


def kind_of(mistake: Mistake) -> tuple[Kind | None, str]:
    """The :data:`KINDS` entry for ``mistake`` and the name its error line quotes ("")."""
    tool, code = key_parts(mistake.key)
    for kind in KINDS:
        found = None
        if kind.pattern:  # the error line, then the key's code (a message the output shows)
            found = re.search(kind.pattern, mistake.error_line, re.MULTILINE) or (
                re.search(kind.pattern, code, re.MULTILINE) if tool and tool != "test" else None
            )
        if found is not None:
            name = next((g for g in found.groups() if g), "")
            return kind, name if _NAME.match(name) else ""
        if tool and tool != "test" and code in kind.codes:
            return kind, ""
        if not kind.codes and not kind.pattern and mistake.category in kind.categories:
            return kind, ""
    return None, ""
