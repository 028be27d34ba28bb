"""Corrections: a failing command and the variant of it that then passed in the same session (pure).

``python -m pytest tests/x.py`` fails, ``.venv/bin/python -m pytest tests/x.py`` passes: the
lesson is "use the second, not the first". :func:`correction_kind` says whether a successful
command is such a variant of a failing one and of which kind:

* ``"environment"`` — the same tool and arguments run differently: another interpreter or its
  location (``python`` → ``.venv/bin/python``, ``python3.11``), a runner prefix (``uv run``,
  ``poetry run``, ``pipenv run``, ``pdm run``, ``hatch run``, ``npx``, ``pnpm exec``,
  ``bunx``, ``python -m``), an environment variable set before it (``PYTHONPATH=src pytest``),
  or a tool run from a folder path (``node_modules/.bin/eslint``);
* ``"command"`` — the same tool and arguments with other flags (``pytest -p no:randomly``), or
  a package-manager script narrowed to a sibling (``npm test`` → ``npm run test:unit``);
* ``"environment"`` too — another command for the same purpose when neither names a file
  (:func:`substitutes`): ``npm run lint`` → ``npx xo``, ``make tests`` → ``make test``,
  ``pytest`` → ``make test``; the store counts it only when no file was edited in between;
* ``None`` — anything else: another tool, other files or tests (narrowing a run is not a fix),
  a check followed by its formatter writing the files (:func:`formatter_run`: ``black --check``
  → ``black``, ``prettier --check`` → ``prettier --write``, ``ruff check`` → ``ruff check
  --fix``), the same command, or a dangerous one (see
  :func:`pokayokay.safety.commands.danger`): a force push that "worked" is never a lesson.

What is compared is the command after ``cd <dir> &&`` prefixes, output plumbing (``2>&1``,
``| tail -n 20``) and an ``env`` prefix are set aside.
"""

from __future__ import annotations

import re
import shlex
from typing import NamedTuple

ENVIRONMENT = "environment"
COMMAND = "command"

_RUNNERS: tuple[tuple[str, ...], ...] = (
    ("uv", "run"),
    ("poetry", "run"),
    ("pipenv", "run"),
    ("pdm", "run"),
    ("hatch", "run"),
    ("rye", "run"),
    ("conda", "run"),
    ("pnpm", "exec"),
    ("pnpm", "dlx"),
    ("yarn", "dlx"),
    ("yarn", "exec"),
    ("bun", "x"),
    ("npm", "exec"),
    ("npx",),
    ("bunx",),
    ("uvx",),
    ("pipx", "run"),
    ("env",),
    ("command",),
    ("time",),
    ("nice",),
)
_INTERPRETER = re.compile(r"(python|pypy|node|ruby|perl|php|deno|bun)(?:\d+(?:\.\d+)*)?(?:\.exe)?")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
# Linear time: a match starts only where a run of white space starts (`(?<!\s)`); from every
# position of a run, `\s*` scanned the rest of it (16,000 spaces: 24 s).
_PLUMBING = re.compile(r"(?<!\s)\s*(?:\d?>&\d|&>\s*\S+|\d?>\s*/dev/null)")
_PAGER = re.compile(r"\s*(?:tail|head|less|more|cat|tee|grep)\b")
_CD = re.compile(r"^\s*cd\s+\S+\s*&&\s*")
_PACKAGE_MANAGERS = frozenset({"npm", "pnpm", "yarn", "bun"})
_LIFECYCLE = frozenset({"test", "start", "stop", "restart"})
# A check that only reports (``black --check``) and the flags that make a tool write the files.
_CHECK_FLAGS = frozenset(
    {"--check", "--diff", "--check-only", "--list-different", "-l", "--dry-run", "-n"}
)
_WRITE_FLAGS = frozenset(
    {"--fix", "--write", "-w", "--in-place", "--fix-only", "--unsafe-fixes", "--apply"}
)
_FORMAT_TOOLS = frozenset(
    {
        "black",
        "ruff",
        "prettier",
        "isort",
        "gofmt",
        "goimports",
        "rustfmt",
        "eslint",
        "biome",
        "autopep8",
        "yapf",
        "clang-format",
        "shfmt",
        "dprint",
        "xo",
        "standard",
        "stylelint",
        "rubocop",
        "swiftformat",
        "ktlint",
        "terraform",
        "cargo",
        "dotnet",
        "mix",
        "deno",
    }
)
# What a command is for, by the tool it runs or the script or target it names.
_PURPOSE_OF_TOOL = {
    **dict.fromkeys(
        (
            "pytest",
            "py.test",
            "jest",
            "vitest",
            "mocha",
            "ava",
            "tap",
            "unittest",
            "nose2",
            "tox",
            "nox",
            "phpunit",
            "rspec",
        ),
        "test",
    ),
    **dict.fromkeys(
        (
            "eslint",
            "xo",
            "standard",
            "flake8",
            "pylint",
            "golangci-lint",
            "rubocop",
            "stylelint",
            "ruff",
            "biome",
            "clippy",
        ),
        "lint",
    ),
    **dict.fromkeys(("mypy", "pyright", "tsc"), "typecheck"),
}
_PURPOSE_OF_NAME = {
    **dict.fromkeys(("test", "tests", "check-tests", "unit", "spec", "specs"), "test"),
    **dict.fromkeys(("lint", "lints", "linter", "eslint", "clippy"), "lint"),
    **dict.fromkeys(("typecheck", "type-check", "types", "typing", "mypy", "tsc"), "typecheck"),
    **dict.fromkeys(("build", "compile"), "build"),
    **dict.fromkeys(("format", "fmt"), "format"),
}
_TASK_RUNNERS = frozenset({"make", "just", "task", "invoke", "rake", "gradle", "./gradlew"})
_BUILD_TOOLS = frozenset({"go", "cargo", "dotnet", "mvn", "swift", "deno", "bun"})
_FILE_LIKE = re.compile(r"[/\\]|::|\.[A-Za-z0-9]{1,5}$")


class Parsed(NamedTuple):
    tool: str
    args: tuple[str, ...]  # positional arguments after the tool
    flags: tuple[str, ...]  # options after the tool, in order
    prefix: tuple[str, ...]  # how it was run: runner words, interpreter, assignments, folders


def _words(command: str) -> list[str] | None:
    text = _CD.sub("", command)
    text = _without_pager_tails(_PLUMBING.sub("", text))
    if re.search(r"&&|\|\||;|\|", text):
        return None  # a pipeline or a chain: not one tool run
    try:
        return shlex.split(text)
    except ValueError:
        return None


def _without_pager_tails(text: str) -> str:
    """``text`` without the pipes into a pager or filter at its end (``… | tail -5 | grep x``),
    and the white space before them: one pass from the end (a pattern per tail was quadratic)."""
    end = len(text)
    while True:
        bar = text.rfind("|", 0, end)
        if bar < 0 or not _PAGER.match(text, bar + 1, end):
            return text[:end]
        end = bar
        while end > 0 and text[end - 1].isspace():
            end -= 1


def parse(command: str) -> Parsed | None:
    """The tool a command runs, its arguments and how it was run; ``None`` for chains."""
    words = _words(command)
    if not words:
        return None
    prefix: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if _ASSIGNMENT.match(word):
            prefix.append(word.split("=", 1)[0] + "=")
            i += 1
            continue
        runner = next((r for r in _RUNNERS if tuple(words[i : i + len(r)]) == r), None)
        if runner is not None:
            prefix.extend(runner)
            i += len(runner)
            continue
        base = word.rsplit("/", 1)[-1]
        interpreter = _INTERPRETER.fullmatch(base)
        if interpreter is not None:
            prefix.append(word)
            i += 1
            if i + 1 < len(words) and words[i] == "-m":
                prefix.append("-m")
                i += 1
                base = words[i]
            else:
                if i < len(words) and not words[i].startswith("-"):
                    base = words[i]  # `python script.py`: the script is the tool
                else:
                    base = interpreter.group(1)
                    i -= 1
        elif "/" in word:
            prefix.append(word.rsplit("/", 1)[0] + "/")
        tool = base
        rest = words[i + 1 :]
        args = tuple(w for w in rest if not w.startswith("-"))
        flags = tuple(w for w in rest if w.startswith("-"))
        return Parsed(tool, args, flags, tuple(prefix))
    return None


def _script(parsed: Parsed) -> str | None:
    """The package-manager script a command runs (``npm test`` and ``npm run test`` alike)."""
    if parsed.tool not in _PACKAGE_MANAGERS or not parsed.args:
        return None
    if parsed.args[0] in ("run", "run-script") and len(parsed.args) > 1:
        return parsed.args[1]
    return parsed.args[0] if parsed.args[0] in _LIFECYCLE else None


def purpose(parsed: Parsed) -> str | None:
    """What a command is for — ``"test"``, ``"lint"``, ``"typecheck"``, ``"build"`` or
    ``"format"`` — by its tool (``pytest``, ``xo``), its package-manager script (``npm run
    lint``), its task-runner target (``make tests``) or its subcommand (``go test``, ``cargo
    clippy``, ``ruff check``); ``None`` when it says nothing recognisable."""
    name: str | None = None
    if parsed.tool in _PACKAGE_MANAGERS:
        if parsed.args and parsed.args[0] in ("run", "run-script") and len(parsed.args) > 1:
            name = parsed.args[1]
        elif parsed.args:
            name = parsed.args[0]
    elif parsed.tool in _TASK_RUNNERS or parsed.tool in _BUILD_TOOLS:
        name = parsed.args[0] if parsed.args else ("build" if parsed.tool == "make" else None)
    elif parsed.tool == "ruff":
        return "format" if parsed.args[:1] == ("format",) else "lint"
    else:
        return _PURPOSE_OF_TOOL.get(parsed.tool)
    if name is None:
        return None
    head = name.split(":", 1)[0]
    return _PURPOSE_OF_NAME.get(name) or _PURPOSE_OF_NAME.get(head)


def _names_a_file(parsed: Parsed) -> bool:
    return any(_FILE_LIKE.search(arg) for arg in parsed.args)


def substitutes(failing: str, succeeded: str) -> bool:
    """Whether ``succeeded`` is another command for the same purpose as ``failing`` and neither
    names a file: ``npm run lint`` → ``npx xo``, ``make tests`` → ``make test``, ``pytest`` →
    ``make test``. Only a lesson when nothing was edited in between (the store checks)."""
    bad, good = parse(failing), parse(succeeded)
    if bad is None or good is None or (bad.tool, bad.args) == (good.tool, good.args):
        return False
    if bad.tool == good.tool and bad.tool not in _PACKAGE_MANAGERS | _TASK_RUNNERS:
        return False  # `pytest -p no:randomly`: other options of one tool, not a substitute
    if _names_a_file(bad) or _names_a_file(good):
        return False
    wanted = purpose(bad)
    return wanted is not None and wanted == purpose(good)


def formatter_run(failing: str, succeeded: str) -> bool:
    """Whether ``succeeded`` is the formatter of the check ``failing`` writing the files: the
    same formatting tool on the same arguments, without the check's report-only flag
    (``black --check f`` → ``black -q f``) or with a flag that writes (``prettier --check`` →
    ``prettier --write``, ``ruff check`` → ``ruff check --fix``)."""
    bad, good = parse(failing), parse(succeeded)
    if bad is None or good is None or bad.tool != good.tool or bad.tool not in _FORMAT_TOOLS:
        return False
    if bad.args != good.args:
        return False
    checked = any(flag.split("=", 1)[0] in _CHECK_FLAGS for flag in bad.flags)
    still_checks = any(flag.split("=", 1)[0] in _CHECK_FLAGS for flag in good.flags)
    writes = any(flag.split("=", 1)[0] in _WRITE_FLAGS for flag in good.flags)
    wrote = any(flag.split("=", 1)[0] in _WRITE_FLAGS for flag in bad.flags)
    return (checked and not still_checks) or (writes and not wrote)


def correction_kind(failing: str, succeeded: str) -> str | None:
    """How ``succeeded`` corrects ``failing`` (see the module doc), or ``None``."""
    from pokayokay.safety.commands import danger

    if " ".join(failing.split()) == " ".join(succeeded.split()) or danger(succeeded):
        return None
    if formatter_run(failing, succeeded):
        return None
    bad, good = parse(failing), parse(succeeded)
    if bad is None or good is None:
        return None
    if bad.tool != good.tool:
        return ENVIRONMENT if substitutes(failing, succeeded) else None
    if bad.args == good.args:
        if bad.prefix != good.prefix:
            return ENVIRONMENT
        return COMMAND if bad.flags != good.flags else None
    bad_script, good_script = _script(bad), _script(good)
    if (
        bad_script
        and good_script
        and bad_script != good_script
        and good_script.split(":", 1)[0] == bad_script.split(":", 1)[0]
    ):
        return COMMAND
    return ENVIRONMENT if substitutes(failing, succeeded) else None


def difference(failing: str, corrected: str) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """How the corrected command is run differently: (words only the failing one's prefix has,
    words only the corrected one's has) — ``(("python",), (".venv/bin/python",))`` for
    ``python -m pytest`` → ``.venv/bin/python -m pytest``; ``None`` when the prefixes are equal
    or either command does not parse."""
    bad, good = parse(failing), parse(corrected)
    if bad is None or good is None or bad.prefix == good.prefix:
        return None
    removed = tuple(w for w in bad.prefix if w not in good.prefix)
    added = tuple(w for w in good.prefix if w not in bad.prefix)
    return (removed, added) if removed or added else None
