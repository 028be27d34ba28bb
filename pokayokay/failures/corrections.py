"""Corrections: a failing command and the variant of it that then passed in the same session (pure).

``python -m pytest tests/x.py`` fails, ``.venv/bin/python -m pytest tests/x.py`` passes: the
lesson is "use the second, not the first". :func:`correction_kind` says whether a successful
command is such a variant of a failing one and of which kind:

* ``"environment"`` — the same tool and arguments run differently: another interpreter or its
  location (``python`` → ``.venv/bin/python``, ``python3.11``), a runner prefix (``uv run``,
  ``poetry run``, ``pipenv run``, ``pdm run``, ``hatch run``, ``npx``, ``pnpm exec``,
  ``bunx``, ``python -m``), an environment variable set before it (``PYTHONPATH=src pytest``),
  or a tool run from a folder path (``node_modules/.bin/eslint``);
* ``"command"`` — the same tool and arguments with other flags (``pytest -p no:randomly``) or
  another value of a flag (``ruff check --select E501 .`` → ``ruff check --select E5 .``), a
  package-manager script narrowed to a sibling (``npm test`` → ``npm run test:unit``), or a
  file name corrected: the failing command named a file that does not exist and the passing
  one a like-named file that does (``pytest tests/test_usr.py`` → ``pytest
  tests/test_users.py``; only when the caller says which files exist);
* ``"environment"`` too — another command for the same purpose when neither names a file
  (:func:`substitutes`): ``npm run lint`` → ``npx xo``, ``make tests`` → ``make test``,
  ``pytest`` → ``make test``; the store counts it only when no file was edited in between;
* ``None`` — anything else: another tool, other files or tests (narrowing a run is not a fix),
  a rehearsal of a real run (:func:`rehearsal`: ``make tests`` → ``make -n test``, ``git push``
  → ``git push --dry-run``, ``terraform apply`` → ``terraform plan``: a dry run that passes
  proves nothing about the real one — decision 0117),
  a check followed by its formatter writing the files (:func:`formatter_run`: ``black --check``
  → ``black``, ``prettier --check`` → ``prettier --write``, ``ruff check`` → ``ruff check
  --fix``), the same command, or a dangerous one (see
  :func:`pokayokay.safety.commands.danger`): a force push that "worked" is never a lesson.

What is compared is the command after ``cd <dir> &&`` prefixes, output plumbing (``2>&1``,
``| tail -n 20``) and an ``env`` prefix are set aside. Two chains of as many commands
(``npm ci && npm test`` → ``npm ci && npm run test:unit``) are compared by the one command that
differs; chains that differ in more than one are not a correction.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Callable, Sequence
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
# a chain's links: `&&`, `||` and `;` outside quotes (a quoted one makes the chain unsplit)
_LINK = re.compile(r"(?<!\s)\s*(?:&&|\|\||;)\s*")
# flags that choose which tests run: another value runs other tests (narrowing, not a fix)
_SELECT_FLAGS = frozenset(
    {"-k", "-m", "-t", "--testNamePattern", "--grep", "-g", "--filter", "-run", "--run", "--only"}
)
# a corrected file name is this like the failing one (difflib's ratio of the two names)
_TYPO_RATIO = 0.6
_TEST_MARK = re.compile(r"\Atest_|_test\Z")
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
    words: tuple[str, ...] = ()  # every word after the tool, in order


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
        return Parsed(tool, args, flags, tuple(prefix), tuple(rest))
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


# Flags that make a run a rehearsal: it reports what it would do and does nothing.
_DRY_RUN_FLAGS = frozenset({"--dry-run", "--dryrun", "--what-if", "--simulate", "--no-act"})
# short or tool-specific spellings: `-n` is a dry run only for these (pytest's `-n 2` is
# xdist, `git commit -n` skips hooks, `head -n` counts lines)
_DRY_RUN_OF_TOOL = {
    "make": frozenset({"-n", "--just-print", "--recon"}),
    "rsync": frozenset({"-n"}),
    "git push": frozenset({"-n"}),
    "git clean": frozenset({"-n"}),
    "git add": frozenset({"-n"}),
    "git rm": frozenset({"-n"}),
    "git mv": frozenset({"-n"}),
    "ansible-playbook": frozenset({"-C", "--check"}),
}
# subcommands that only show what the real one would do
_REHEARSALS = frozenset({("terraform", "plan"), ("tofu", "plan"), ("pulumi", "preview")})


def rehearsal(command: str) -> bool:
    """Whether ``command`` only rehearses: a dry-run flag (``--dry-run``, ``make -n``, ``git
    push -n``, ``rsync -n``) or a plan subcommand (``terraform plan``, ``pulumi preview``)."""
    parsed = parse(command)
    if parsed is None:
        return False
    if (parsed.tool, *parsed.args[:1]) in _REHEARSALS:
        return True
    tool = parsed.tool
    if tool == "git" and parsed.args:
        tool = f"git {parsed.args[0]}"
    own = _DRY_RUN_OF_TOOL.get(tool, frozenset())
    for flag in parsed.flags:
        name = flag.split("=", 1)[0]
        if (name in _DRY_RUN_FLAGS and flag != "--dry-run=none") or name in own:
            return True
        if tool in ("make", "rsync") and re.fullmatch(r"-[a-zA-Z]*n[a-zA-Z]*", flag):
            return True  # `make -ns`, `rsync -an`: a cluster of switches holding -n
    return False


def formatter_run(failing: str, succeeded: str) -> bool:
    """Whether ``succeeded`` is the formatter of the check ``failing`` writing the files: the
    same formatting tool on the same arguments, without the check's report-only flag
    (``black --check f`` → ``black -q f``) or with a flag that writes (``prettier --check`` →
    ``prettier --write``, ``ruff check`` → ``ruff check --fix``), alone or as the one changed
    link of a chain (``black --check . && pytest`` → ``black . && pytest``)."""
    link = changed_link(failing, succeeded)
    if link is not None:
        failing, succeeded, _ = link
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


def changed_link(failing: str, succeeded: str) -> tuple[str, str, str] | None:
    """For two chains of as many commands that differ in one (``npm ci && npm test`` →
    ``npm ci && npm run test:unit``): (failing command, passing command, the folder the
    ``cd`` links before it moved to, ``""`` for none). ``None`` for anything else."""
    if "'" in failing + succeeded or '"' in failing + succeeded:
        return None  # a quoted `&&` or `;` is not a link
    bad, good = _LINK.split(failing.strip()), _LINK.split(succeeded.strip())
    if len(bad) < 2 or len(bad) != len(good):
        return None
    changed = [i for i, (b, g) in enumerate(zip(bad, good, strict=True)) if b.split() != g.split()]
    if len(changed) != 1:
        return None
    [at] = changed
    folder = ""
    for link in bad[:at]:
        words = link.split()
        if len(words) == 2 and words[0] == "cd":
            folder = posixpath.normpath(posixpath.join(folder, words[1]))
    return bad[at], good[at], folder


def _one_step(failing: str, succeeded: str) -> tuple[str, str, str]:
    """The commands to compare, and the folder they ran in relative to the call's: the one
    link of a chain that changed, else the commands themselves (``cd`` prefixes are
    :func:`parse`'s to drop)."""
    link = changed_link(failing, succeeded)
    if link is not None:
        return link
    bad_cd, good_cd = _CD.match(failing), _CD.match(succeeded)
    if bad_cd and good_cd and bad_cd.group().split() == good_cd.group().split():
        return failing, succeeded, bad_cd.group().split()[1]
    return failing, succeeded, ""


def _flag_values_differ(bad: Parsed, good: Parsed) -> bool:
    """The same words but for values given to a long flag (``--select E501`` → ``--select
    E5``); a value that looks like a file is an argument (another file: no correction)."""
    if len(bad.words) != len(good.words) or len(bad.words) < 2:
        return False
    changed = [i for i, (b, g) in enumerate(zip(bad.words, good.words, strict=True)) if b != g]
    return bool(changed) and all(
        i > 0
        and bad.words[i - 1] == good.words[i - 1]
        and bad.words[i - 1].startswith("--")  # a short flag is often a switch (-q, -x)
        and "=" not in bad.words[i - 1]
        and bad.words[i - 1] not in _SELECT_FLAGS
        and not any(
            w[i].startswith("-") or _FILE_LIKE.search(w[i]) for w in (bad.words, good.words)
        )
        for i in changed
    )


def _stem(path: str) -> str:
    """A file's name without its extension and its test marks (``test_users.py``: ``users``),
    so that two test files are alike by what they test."""
    name = posixpath.basename(path.rstrip("/")).split(".", 1)[0]
    return _TEST_MARK.sub("", name) or name


def _file_corrected(
    bad: Parsed, good: Parsed, exists: Callable[[str], bool] | None, folder: str
) -> bool:
    """The failing command named a file that does not exist, the passing one, otherwise the
    same, a like-named file that does (``tests/test_usr.py`` → ``tests/test_users.py``)."""
    if exists is None or bad.prefix != good.prefix or bad.flags != good.flags:
        return False
    if len(bad.args) != len(good.args):
        return False
    changed = [(b, g) for b, g in zip(bad.args, good.args, strict=True) if b != g]
    if len(changed) != 1:
        return False
    [(was, now)] = changed
    if not (_FILE_LIKE.search(was) and _FILE_LIKE.search(now)):
        return False
    was_file, now_file = was.split("::", 1)[0], now.split("::", 1)[0]
    if was_file == now_file:
        return False  # another test of one file: narrowing, not a correction
    from difflib import SequenceMatcher

    like = SequenceMatcher(None, _stem(was_file), _stem(now_file)).ratio()
    if like < _TYPO_RATIO:
        return False
    return not exists(posixpath.join(folder, was_file)) and exists(posixpath.join(folder, now_file))


def formatter_fix(failing: str | None, fix_commands: Sequence[str]) -> str | None:
    """The formatter run among the commands that ended a group's episodes, for its failing
    check ``failing`` (``black -q f`` for ``black --check f``), or ``None``."""
    if not failing:
        return None
    return next((c for c in fix_commands if formatter_run(failing, c)), None)


def correction_kind(
    failing: str, succeeded: str, exists: Callable[[str], bool] | None = None
) -> str | None:
    """How ``succeeded`` corrects ``failing`` (see the module doc), or ``None``.

    ``exists``: whether a path (relative to the folder the commands ran in) names a file now;
    without it a changed file name is never a correction.
    """
    from pokayokay.safety.commands import danger

    if " ".join(failing.split()) == " ".join(succeeded.split()) or danger(succeeded):
        return None
    if formatter_run(failing, succeeded):
        return None
    failing, succeeded, folder = _one_step(failing, succeeded)
    if rehearsal(succeeded) and not rehearsal(failing):
        return None  # a dry run that passed proves nothing about the real run
    bad, good = parse(failing), parse(succeeded)
    if bad is None or good is None:
        return None
    if bad.tool != good.tool:
        return ENVIRONMENT if substitutes(failing, succeeded) else None
    if bad.args == good.args:
        if bad.prefix != good.prefix:
            return ENVIRONMENT
        return COMMAND if bad.flags != good.flags else None
    if bad.prefix == good.prefix and _flag_values_differ(bad, good):
        return COMMAND
    if _file_corrected(bad, good, exists, folder):
        return COMMAND
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
