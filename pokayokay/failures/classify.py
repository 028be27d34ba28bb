"""Which kind of mistake a failure is: a documented, ordered, user-extendable table of rows.

Categories: ``testing``, ``lint``, ``types``, ``build``, ``dependencies``, ``git``, ``edit``,
``permissions`` and ``shell`` (the fallback). A category becomes the name of a rule file
(``.claude/rules/pokayokay/<category>.md``), so user categories are limited to ``[a-z0-9-]``.

Row format — built-in rows and user rows alike::

    category: testing            # required: the category a match gives
    tool: "Bash|PowerShell"      # optional regex, FULL-matched against the tool name
    command: '^hatch test'       # optional regex, SEARCHED in the normalised command
    error: 'lockfile .* stale'   # optional regex, SEARCHED in the error text

A row needs at least one of ``tool``, ``command``, ``error``; it matches when every pattern it
has matches (a row with ``command`` never matches a failure without a command, e.g. an Edit).
Regexes use Python ``re`` syntax and are case-sensitive unless written with ``(?i)``. Rows are
tried in order and the first match wins; user rows (settings ``failure_categories:``, a list of
such mappings) are tried before the built-in rows, so a user row can override any of them.
Nothing matches: ``shell``.

How the built-in table is ordered, and why:

1. Claude Code's own refusals (a PreToolUse hook denial, a permission rule, the user rejecting
   the call) are ``permissions``: the call never ran, whatever the tool.
2. Operating-system permission errors (``Permission denied``, ``EACCES``, ``EPERM``,
   ``PermissionError``) are ``permissions``, whatever ran (a test hitting one included).
3. Any other failure of a file-editing tool (``Edit``, ``MultiEdit``, ``Write``,
   ``NotebookEdit``) is ``edit`` — e.g. ``String to replace not found in file.``; so is a patch
   that did not apply (``git apply``, ``patch``) and a failing ``sed -i``. A mistyped command
   is ``shell``: ``cd`` into a missing folder, a missing npm/pnpm script, a make target that
   does not exist, a pytest path or unittest module that does not exist.
4. A ``git`` command, or git's conflict/rejection messages from anything else, is ``git``.
5. A missing module, package or program (``ModuleNotFoundError``, ``Cannot find module``, pip's
   ``No matching distribution``, npm ``ERESOLVE``/``E404``, ``command not found``) is
   ``dependencies``, whatever ran: the remedy is an install or the right runner.
   A type error is ``types`` whatever ran it (``error TS2xxx``/``TS7xxx``, rustc's type and
   borrow-check codes such as ``E0308``, ``E0382``) — decision 0080; capture classifies the
   first mistake's text when an output names several.
6. The command names a known tool: package installs (``dependencies``); a test runner whose
   output shows it stopped at compiling (``error[E0308]`` under ``cargo test``, go's
   ``[build failed]``) is ``build``; test runners and test files run directly
   (``python3 tests/api/test_users.py``, ``node cart.test.js``) are ``testing``; linters
   (``lint``), type checkers (``types``), compilers and build tools
   (``build``; ``tsc --build`` is a build, ``tsc`` alone a type check). When a command names
   several (``ruff check . && pytest``), the first category in that order wins.
7. No known tool in the command: the error text decides (test failure markers, linter
   summaries, TypeScript/mypy diagnostics, compiler and linker errors).
8. Otherwise ``shell``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from pokayokay.failures.classify_literals import READ_AHEAD
from pokayokay.infra import Value
from pokayokay.infra.lazyre import Lazy
from pokayokay.infra.regex_budget import Budgeted

Pattern = re.Pattern[str] | Lazy | Budgeted

CATEGORIES = (
    "testing",
    "lint",
    "types",
    "build",
    "dependencies",
    "git",
    "edit",
    "permissions",
    "shell",
)
FALLBACK = "shell"

# Compiled on first use: only a user row is checked against it, never the built-in table.
_CATEGORY_NAME = Lazy(r"[a-z0-9][a-z0-9-]{0,39}")


class Rule(Value):
    """One row of the table; its patterns (``None`` where the row does not look), compiled for a
    user row (checked when read) and on first use for a built-in one (:class:`Lazy`): a
    classification stops at the first row that matches, so the rows after it never compile.
    A plain class, not a dataclass: the spool's ingest imports this module."""

    category: str
    tool: Pattern | None = None
    command: Pattern | None = None
    error: Pattern | None = None
    note: str = ""

    def __repr__(self) -> str:
        looks = (("tool", self.tool), ("command", self.command), ("error", self.error))
        shown = ", ".join(f"{name}={p.pattern!r}" for name, p in looks if p is not None)
        return f"Rule({self.category!r}, {shown})"

    def _key(self) -> tuple[object, ...]:
        looks = (self.tool, self.command, self.error)
        return (self.category, *(None if p is None else p.pattern for p in looks), self.note)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rule) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def matches(self, tool: str, command: str | None, error: str) -> bool:
        if self.tool is not None and not self.tool.fullmatch(tool):
            return False
        if self.command is not None and (command is None or not self.command.search(command)):
            return False
        return self.error is None or self.error.search(error) is not None


def row(
    category: str,
    *,
    tool: str | None = None,
    command: str | None = None,
    error: str | None = None,
    note: str = "",
    lazy: bool = False,
) -> Rule:
    """A table row from pattern strings; raises ``ValueError`` on a bad row. ``lazy`` (the
    built-in rows, known to compile): each pattern compiles on first use. Otherwise (a user's
    row) each pattern must be in :mod:`~pokayokay.infra.regex_safety`'s safe subset, and
    runs with a time budget (:mod:`~pokayokay.infra.regex_budget`)."""
    if not _CATEGORY_NAME.fullmatch(category):
        raise ValueError(f"category {category!r} must be 1-40 characters from a-z 0-9 -")
    if tool is None and command is None and error is None:
        raise ValueError("a row needs at least one of tool, command, error")

    def compiled(name: str, pattern: str | None) -> Pattern | None:
        if pattern is None:
            return None
        if lazy:  # a row tried on every failure and seldom matching: skipped by its words
            return Lazy(pattern, literals=READ_AHEAD.get(pattern, True))
        from pokayokay.infra.regex_safety import unsafe_reason

        try:
            re.compile(pattern)
        except re.error as exc:
            raise ValueError(f"{name}: invalid regex {pattern!r} ({exc})") from None
        reason = unsafe_reason(pattern)
        if reason is not None:
            raise ValueError(f"{name}: regex {pattern!r} refused: {reason}")
        try:
            return Budgeted(pattern)
        except ValueError as exc:
            raise ValueError(f"{name}: {exc}") from None

    return Rule(
        category,
        compiled("tool", tool),
        compiled("command", command),
        compiled("error", error),
        note,
    )


def rules_from_settings(rows: Iterable[Mapping[str, object]]) -> tuple[Rule, ...]:
    """User rows (settings ``failure_categories:``) compiled; ``ValueError`` names the row."""
    out: list[Rule] = []
    for index, item in enumerate(rows):
        where = f"failure_categories[{index}]"
        if not isinstance(item, Mapping):
            raise ValueError(f"{where}: expected a mapping with category and a pattern")
        unknown = sorted(str(k) for k in item if k not in ("category", "tool", "command", "error"))
        if unknown:
            raise ValueError(f"{where}: unknown key(s) {', '.join(unknown)}")
        values: dict[str, str | None] = {}
        for key in ("category", "tool", "command", "error"):
            value = item.get(key)
            if value is not None and not isinstance(value, str):
                raise ValueError(f"{where}.{key}: expected a string, not {value!r}")
            values[key] = value
        category = values["category"]
        if not category:
            raise ValueError(f"{where}.category: missing")
        try:
            out.append(
                row(
                    category,
                    tool=values["tool"],
                    command=values["command"],
                    error=values["error"],
                    note="user row",
                )
            )
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
    return tuple(out)


def _cmd(words: str) -> str:
    """A command regex: ``words`` (an alternation) as whole command words.

    A word may follow a path (``.venv/bin/pytest``, ``./node_modules/.bin/jest``) or a runner
    (``uv run``, ``npx``, ``python -m``), and ends at whitespace, a shell operator or the end.
    """
    return rf"(?:^|[\s;&|(/'\"=])(?:{words})(?=$|[\s;&|)'\"])"


_TEST_RUNNERS = _cmd(
    r"pytest|py\.test|unittest|nose2|tox|nox|jest|vitest|mocha|ava|karma|playwright test"
    r"|cypress run|go test|cargo (?:test|nextest)|(?:npm|yarn|pnpm|bun)(?: run)? test(?::\S+)?"
    r"|make (?:test|check)|ctest|rspec|phpunit|mix test|dotnet test|gradle test|mvn test"
    r"|swift test|deno test"
)
# A test file run by its interpreter: test_x.py / x_test.py / x.test.ts / x.spec.js. Linear
# time: the interpreter's name is found by a look-behind (a start after every `|`, each scanning
# the rest of its word, was quadratic on a line of 40,000 `|`), an option list is unambiguous
# (`-X dev` is one option, `-Xdev` another, never both) and at most 20 options long.
_TEST_FILE_RUN = (
    r"(?<![^\s;&|(/])(?:python[\d.]*|py|node|ts-node|tsx|bun|deno run)"
    r"(?:\s+-[XW]\s+[^\s-]\S*|\s+-\S+){0,20}\s+(?:\S*/)?(?:test_[\w-]+\.py|[\w-]+_test\.py"
    r"|tests?\.py|[\w.-]+\.(?:test|spec)\.[cm]?[jt]sx?)(?=$|[\s;&|)])"
)
# Compilation stopped the test run: nothing was tested.
_COMPILE_ERRORS = (
    r"(?m)\berror\[E\d{4}\]|^error: could not compile|\[build failed\]|^# \S+\n\S+\.go:\d+"
    r"|COMPILATION ERROR|Compilation failed|error CS\d{4}|^\S+\.(?:c|cc|cpp|h|hpp):\d+:\d+: error:"
)

def _builtin(category: str, **looks: str) -> Rule:
    return row(category, lazy=True, **looks)


# fmt: off
BUILTIN_RULES: tuple[Rule, ...] = (
    # 1. Claude Code refused the call
    _builtin("permissions", error=r"\A(?:Error: )?(?:\w+:\S+ hook error\b|Permission to use \S+"
        r"|The user doesn't want to)",
        note="a PreToolUse hook denied it, a permission rule denied it, or the user rejected it"),
    # 2. operating-system permissions
    _builtin("permissions", error=r"\b(?:Permission denied|EACCES|EPERM|Operation not permitted"
        r"|PermissionError|Access is denied)\b",
        note="permission denied by the OS (chmod, sudo, read-only folders)"),
    # 3. the file-editing tools, and edits made by a command that did not apply
    _builtin("edit", tool=r"Edit|MultiEdit|Write|NotebookEdit",
        note="Edit/Write validation errors such as 'String to replace not found in file.'"),
    # (one literal-led pattern per row: a search for a literal start skips ahead fast, an
    # alternation or a `^` start tries every position of a 35 KB output)
    _builtin("edit", error=r": patch does not apply", note="git apply: a patch that did not apply"),
    _builtin("edit", error=r"Hunk #\d+ FAILED at ", note="patch: a hunk that did not apply"),
    _builtin("edit", command=r"(?<![^\s;&|(/])(?:sed|perl)(?: -[a-zA-Z]+){0,5} -[a-zA-Z]*i",
        note="an in-place edit by sed -i / perl -pi that failed"),
    # 3b. the command itself was mistyped: a missing directory, script, target or test path
    _builtin("shell", error=r"cd: [^\n]{1,300}: No such file or directory",
        note="cd into a missing folder"),
    _builtin("shell", error=r"Missing script: ", note="npm run of a script package.json lacks"),
    _builtin("shell", error=r"ERR_PNPM_NO_SCRIPT", note="pnpm run of a missing script"),
    _builtin("shell", error=r"No rule to make target '[^'\n]{1,200}'\.  Stop\.",
        note="a make target that does not exist (not a missing prerequisite)"),
    _builtin("shell", error=r"ERROR: file or directory not found: ",
        note="pytest given a test path that does not exist"),
    _builtin("shell", error=r"Failed to import test module: (\w+)\n(?:[^\n]*\n){0,12}?"
        r"[\w.]*Error: No module named '(?:[\w.]+\.)?\1'",
        note="unittest given a test module that does not exist"),
    # 4. git
    _builtin("git", command=_cmd(r"git"), note="any failing git command"),
    _builtin("git", error=r"CONFLICT \(|Automatic merge failed|! \[(?:remote )?rejected\]"
        r"|non-fast-forward|fatal: not a git repository",
        note="git conflicts and rejected pushes seen through other tools"),
    # 5. something missing
    _builtin("dependencies", error=r"ModuleNotFoundError|No module named |Cannot find module "
        r"|ERR_MODULE_NOT_FOUND|Could not find a version that satisfies|No matching distribution"
        r"|\bERESOLVE\b|npm ERR! code E404|npm error code E404|could not resolve dependenc"
        r"|no required module provides package|cannot find package"
        r"|unresolved import(?! `(?:crate|self|super)::)"
        r"|command not found|is not recognized as an internal or external command"
        r"|(?m:^(?:/(?:usr/)?bin/)?\w*sh: (?:line )?\d+: [^:\n]+: not found\s*$)",
        note="a module, package or program is missing"),
    _builtin("dependencies", error=r"no matching package named `", note="cargo: a crate missing"),
    _builtin("dependencies", error=r"Library stubs not installed for ",
        note="mypy: a library without its stub package"),
    _builtin("dependencies", error=r"  \[import-(?:untyped|not-found)\]",
        note="mypy: an import without stubs or not installed"),
    # 5b. a type error is types whatever ran it (tsc under `npm run build`, rustc under cargo
    # build, test or clippy): the TypeScript diagnostics and rustc's type and borrow-check codes
    _builtin("types", error=r"error TS[27]\d{3}\b", note="TypeScript type errors"),
    _builtin("types", error=r"error\[E0(?:061|069|277|282|308|369|373|381|382|384|499|502|503"
        r"|505|506|507|596|597|599|609|614|615|716)\]",
        note="rustc's type and borrow-check errors"),
    # 6. the command names a known tool
    _builtin("dependencies", command=_cmd(
        r"pip3? install|python3? -m pip|uv (?:pip|add|sync|lock|remove)"
        r"|poetry (?:install|add|lock|update|remove)|pipenv|conda (?:install|create|env)"
        r"|npm (?:install|i|ci|add|update|uninstall)|yarn (?:install|add)"
        r"|pnpm (?:install|i|add|update)|bun (?:install|add)|cargo (?:add|update|fetch)"
        r"|go (?:get|mod)|bundle install|gem install|composer (?:install|require|update)"
        r"|apt(?:-get)? install|brew install"),
        note="package installs"),
    _builtin("build", command=_TEST_RUNNERS, error=_COMPILE_ERRORS,
        note="a test run that stopped at compiling (cargo test with error[E0308], go test's"
        " [build failed], a compilation error under mvn/gradle/dotnet test)"),
    _builtin("testing", command=_TEST_FILE_RUN,
        note="a test file run directly: python3 tests/api/test_users.py, node x.test.js"),
    _builtin("testing", command=_TEST_RUNNERS,
        note="test runners"),
    _builtin("lint", command=_cmd(
        r"ruff(?! format(?! --check))|flake8|pylint|pycodestyle|pydocstyle|black --check"
        r"|isort --check(?:-only)?|eslint|prettier --check|stylelint|biome (?:check|lint)"
        r"|golangci-lint|go vet|staticcheck|cargo clippy|clippy|shellcheck|hadolint|rubocop"
        r"|markdownlint|yamllint|pre-commit|xo|(?:npm|yarn|pnpm|bun)(?: run)? lint(?::\S+)?"),
        note="linters and formatters in check mode"),
    _builtin("build", command=_cmd(r"tsc (?:--build|-b)|vue-tsc (?:--build|-b)"),
        note="tsc --build is a build"),
    _builtin("types", command=_cmd(
        r"mypy|dmypy|pyright|basedpyright|pytype|pyre|tsc|vue-tsc|flow check"
        r"|(?:npm|yarn|pnpm|bun)(?: run)? (?:typecheck|type-check|types|tsc)"),
        note="type checkers"),
    _builtin("build", command=_cmd(
        r"make|cmake|ninja|meson|bazel|cargo (?:build|check|run)|go build|go install|gcc|g\+\+"
        r"|clang|clang\+\+|cc|rustc|javac|mvn|gradle|gradlew|dotnet build|msbuild|swift build"
        r"|webpack|vite build|rollup|esbuild|next build|python3? -m build|docker build"
        r"|(?:npm|yarn|pnpm|bun)(?: run)? build(?::\S+)?|python3? setup\.py"),
        note="compilers and build tools"),
    # 7. the error text decides
    # Linear on any input: no `\s` run that can span lines after `^`, no two unbounded runs
    # on one line.
    _builtin("testing", error=r"(?m)^(?:FAILED|ERROR) \S+::|^--- FAIL: |^test result: FAILED"
        r"|^Tests:[ \t]+\d+ failed|\bAssertionError\b|^[ \t]*● "
        r"|^[A-Z]\w*Error: [^\n]*\n[ \t]+at \S",
        note="test failure markers; an uncaught JavaScript error with its stack (project code"
        " run as a check)"),
    _builtin("types", error=r"(?m)\berror TS\d+\b"
        r"|^[^\n:]+:\d+(?::\d+)?: error: [^\n]*  \[[a-z-]+\]$"
        r"|Found \d+ errors? in \d+ files? \(checked",
        note="TypeScript and mypy diagnostics"),
    _builtin("lint", error=r"(?m)^\S+:\d+:\d+: [A-Z]{1,3}\d{3,4}\b|^Found \d+ errors?\.$"
        r"|\d+ problems? \(\d+ errors?|would reformat",
        note="ruff/flake8/eslint reports"),
    _builtin("build", error=r"(?m)undefined reference to|ld returned \d+ exit status"
        r"|compilation terminated"
        r"|\berror\[E\d{4}\]|make(?:\[\d+\])?: \*\*\*|CMake Error|BUILD FAILED"
        r"|^\S+\.(?:c|cc|cpp|h|hpp|rs|go|java):\d+:\d+: (?:fatal )?error:",
        note="compiler and linker errors"),
)
# fmt: on


# `pokayokay <sub>`, `/path/to/pokayokay <sub>`, `python -m pokayokay <sub>`, `uvx pokayokay <sub>`
# (compiled on first use: only a command naming pokayokay needs it)
_OWN_COMMAND = Lazy(
    r"(?<![^\s/])(?:pokayokay|python[\d.]*\s+-m\s+pokayokay)(?:\s+-\S+){0,20}\s+([a-z-]+)\b"
)


def own_answer(command: str | None, exit_code: int | None) -> bool:
    """True when ``command`` is a pokayokay call whose exit is a documented answer, not a
    failure (``remember --mode model`` exiting 5 in ask-first mode; see
    :data:`pokayokay.errors.ANSWER_EXITS`). Only the last command of an ``&&``/``;`` chain
    decides, and a pipeline never counts (its status is another program's)."""
    from pokayokay.errors import ANSWER_EXITS

    if not command or exit_code is None or "pokayokay" not in command:
        return False
    last = re.split(r"&&|;|\n", command)[-1]
    if "|" in last:
        return False
    match = _OWN_COMMAND.search(last)
    return match is not None and (match.group(1), exit_code) in ANSWER_EXITS


def command_bound(tool: str, command: str) -> tuple[str, tuple[str, ...]] | None:
    """What the built-in table says of every failure of ``tool`` running ``command`` (user rows
    aside): ``(category, literals)`` when the first row that matches by its tool and command
    alone (a row with no ``error`` pattern) gives ``category``, and each row before it that the
    tool and command leave to the error text can only match a text holding one of ``literals``
    (the strings every match of its error pattern contains). Then :func:`classify` gives
    ``category`` for any error text that holds none of ``literals``. None when no such row is
    reached, or a row before it has no required literal (the prompt's spool gate then
    classifies as before)."""
    from pokayokay.infra.literals import required_literals

    needs: list[str] = []
    for rule in BUILTIN_RULES:
        if rule.tool is not None and not rule.tool.fullmatch(tool):
            continue
        if rule.command is not None and not rule.command.search(command):
            continue
        if rule.error is None:
            return rule.category, tuple(dict.fromkeys(needs))
        pattern = rule.error.pattern
        found = READ_AHEAD.get(pattern) or required_literals(pattern)
        if not found:
            return None
        needs.extend(found)
    return None


def classify(
    tool: str,
    command: str | None,
    error: str,
    extra_rules: Sequence[Rule | Mapping[str, object]] = (),
) -> str:
    """The category of a failure; ``extra_rules`` (user rows) are tried before the built-ins.

    ``extra_rules`` may hold compiled :class:`Rule` rows or raw settings mappings; a bad raw row
    raises ``ValueError`` (validate settings with :func:`rules_from_settings` beforehand).
    """
    user: list[Rule] = []
    for item in extra_rules:
        if isinstance(item, Rule):
            user.append(item)
        else:
            user.extend(rules_from_settings([item]))
    for rule in (*user, *BUILTIN_RULES):
        if rule.matches(tool, command, error):
            return rule.category
    return FALLBACK
