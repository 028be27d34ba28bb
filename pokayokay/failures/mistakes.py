"""The real mistakes in a failing tool output, each with its group key (pure).

A failure is grouped by what went wrong, not by the text around it: three files with ruff
``F401`` across three sessions are one mistake whose paths accumulate, and one ruff run with
``B006``, ``E501`` and ``F841`` is three mistakes. :func:`find_mistakes` reads an output (and the
command that produced it) and returns one :class:`Mistake` per distinct key, in output order:

* diagnostics by tool and rule code — ``ruff:F401`` (concise and full output formats),
  ``ruff:unformatted`` (``ruff format --check``), ``flake8:E501``, ``pylint:C0114``,
  ``mypy:arg-type`` (also ``--pretty``, the code on a wrapped line),
  ``pyright:reportAttributeAccessIssue``, ``tsc:TS2322``, ``eslint:no-unused-vars`` (stylish),
  ``xo:no-undef``, ``rustc:E0308``, ``gcc:-Wunused-variable``, the linker's symbol
  (``ld:undefined reference to `parse_config'``, ``ld:multiple definition of `x'``; never
  collect2's ``ld returned 1 exit status``),
  ``go:undefined``/``go vet:printf``, ``clippy:clone_on_copy``, ``shellcheck:SC2086``,
  ``pnpm:ERR_PNPM_OUTDATED_LOCKFILE``, ``black:would-reformat``, ``prettier:format``,
  ``npm:ERESOLVE`` (a generic ``EUSAGE`` gives way to its message),
  ``git:merge-conflict``/``git:rejected-non-fast-forward``;
* tests by test id — ``test:tests/test_cart.py::test_total`` (pytest; parameters dropped),
  ``test:tests.test_cart.CartTest.test_total`` (unittest), ``test:TestTotal`` (go test),
  ``test:cart::tests::total`` (cargo), ``test:src/cart.test.ts > Cart › total`` (jest, bun,
  vitest: the file first), ava titles (``✘ [fail]: title``), mocha titles, rspec
  ``file:line``, a test file run directly (``test:tests/api/test_users.py``); the assertion
  kind stays in ``line``. A test pytest could not set up because a fixture is missing is that
  fixture's mistake, ``pytest:fixture 'db_session' not found``, apart from any assertion;
* a Python exception outside any test id — ``python:ModuleNotFoundError``.

Paths, line numbers and identifiers never reach a key. Nothing recognised: ``[]``, and the
caller falls back to :func:`pokayokay.failures.signature.normalise` (which never picks a summary
line such as ``Found 1 error.``). At most :data:`MAX_MISTAKES` are returned.

``Mistake.text`` is the part of the output that belongs to that mistake (for path extraction);
with a single mistake it is the whole output.
"""

from __future__ import annotations

import re

from pokayokay.infra.lazyre import Lazy, built_once

MAX_MISTAKES = 8
MAX_KEY = 200
MAX_SCANNED_LINE = 1000
MAX_SCANNED_LINES = 4000
_STYLISTIC = ":@stylistic/"  # eslint's formatting-only rule namespace (xo, eslint)


class Mistake:
    """One mistake an output names. A plain value class, not a ``NamedTuple`` or dataclass: the
    spool's ingest and the prompt's spool gate import this module, and ``typing`` alone cost
    them some 2.5 ms (as :class:`pokayokay.failures.classify.Rule`)."""

    __slots__ = ("key", "line", "text")

    def __init__(self, key: str, line: str, text: str) -> None:
        self.key = key  # "<tool>:<code>" or "test:<test id>"
        self.line = line  # the output line that names it (raw, whitespace collapsed)
        self.text = text  # the lines of the output that belong to it

    def __repr__(self) -> str:
        return f"Mistake({self.key!r}, {self.line!r}, {self.text!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Mistake):
            return NotImplemented
        return (self.key, self.line, self.text) == (other.key, other.line, other.text)

    def __hash__(self) -> int:
        return hash((self.key, self.line, self.text))


# Tools a command can name, mapped to the name used in keys.
_COMMAND_TOOLS = {
    "ruff": "ruff",
    "flake8": "flake8",
    "pylint": "pylint",
    "mypy": "mypy",
    "xo": "xo",
    "dmypy": "mypy",
    "pyright": "pyright",
    "basedpyright": "pyright",
    "tsc": "tsc",
    "vue-tsc": "tsc",
    "eslint": "eslint",
    "cargo": "rustc",
    "rustc": "rustc",
    "gcc": "gcc",
    "g++": "gcc",
    "cc": "gcc",
    "clang": "clang",
    "clang++": "clang",
    "black": "black",
    "prettier": "prettier",
}


def command_tool(command: str | None) -> str | None:
    """The first known linter/type checker/compiler a command names (key spelling)."""
    if not command:
        return None
    words = re.split(r"[\s;&|()]+", command)
    for i, word in enumerate(words):
        base = word.rsplit("/", 1)[-1]
        if base == "go" and i + 1 < len(words) and words[i + 1] == "vet":
            return "go vet"
        if base == "cargo" and i + 1 < len(words) and words[i + 1] == "clippy":
            return "clippy"
        if base in _COMMAND_TOOLS:
            return _COMMAND_TOOLS[base]
    return None


# npm error codes that say only that the command was misused: the message after them is the key
_GENERIC_NPM_CODES = frozenset({"EUSAGE"})


class _P:
    def __init__(self) -> None:
        c = Lazy
        self.ansi = c(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
        self.exit_header = c(r"\A\s*Exit code -?\d+[ \t]*(?:\n|\Z)")
        self.rustc = c(r"^error\[(E\d{4})\]:")
        self.tsc = c(r"^(?:\S.*?(?:\(\d+,\d+\)|:\d+:\d+)\s*[:-]?\s*)?error\s+(TS\d{3,5})\b")
        self.mypy = c(r"^\S.*?:\d+(?::\d+)?: error: .*?\s\[([a-z][a-z0-9-]*)\]\s*$")
        # mypy --pretty: the code closes the message, which wraps onto the next lines
        self.mypy_head = c(r"^\S.*?:\d+(?::\d+)?: error: ")
        self.mypy_code = c(r"\s\[([a-z][a-z0-9-]*)\]\s*$")
        # GNU ld (through gcc, clang, cc or make): the symbol is the mistake, never collect2's
        # or the compiler driver's "ld returned 1 exit status" summary
        self.linker = c(
            r"(?:^|: )((?:undefined reference to|multiple definition of) `[^'\s]{1,200}')"
        )
        self.xo = c(r"^✖\s+\d+:\d+\s+\S.*?\s{2,}(@?[\w-]+(?:/[\w-]+)*)\s*$")
        self.ruff_format = c(r"^([a-z][a-z-]{1,40}): File would be reformatted\s*$")
        self.npm_message = c(r"^npm (?:ERR!|error) (\S.*)$")
        self.pyright = c(r"^\S.*?:\d+:\d+ - error: ")
        self.pyright_rule = c(r"\((report[A-Za-z]+)\)\s*$")
        self.concise = c(r"^\S.*?:\d+:\d+: ([A-Z]{1,4}\d{2,4})\b:?( \[\*\])?(?: |$)")
        self.full_code = c(r"^([A-Z]{1,4}\d{2,4})(?: \[\*\])? \S")
        self.arrow = c(r"^\s*-->\s*\S+:\d+:\d+")
        self.eslint = c(r"^\d+:\d+\s+(error|warning)\s+.+?\s{2,}(@?[\w-]+(?:/[\w-]+)*)\s*$")
        self.eslint_header = c(r"^(?:/|\.?[\w@-]+/)?\S*\.(?:[cm]?[jt]sx?|vue|svelte)$")
        self.cc = c(r"^\S.*?:\d+:\d+: (?:fatal )?error: (.*?)(?: \[(-W[\w=+,-]+)\])?\s*$")
        self.go = c(r"^(?:\./)?[\w./-]*\.go:\d+:\d+: (.*)$")
        self.pytest_failed = c(r"^(FAILED|ERROR) (\S+::[^\s\[]+(?:\[.*?\])?)(?: - (.*))?$")
        self.pytest_block = c(r"^_{3,} (?:ERROR at \w+ of )?(.+?) _{3,}$")
        self.unittest = c(r"^(?:FAIL|ERROR): (\w+) \(([\w.]+)\)")
        self.go_test = c(r"^\s*--- FAIL: (\S+)")
        self.cargo_test = c(r"^test (\S+) \.\.\. FAILED$")
        self.cargo_quiet = c(r"^(\S+) --- FAILED$")  # cargo test -q (libtest's terse form)
        self.jest = c(r"^●\s+(.+?)\s*$")
        self.ava = c(r"^✘ \[fail\]: (.+?)(?: Error thrown in test)?\s*$")
        self.fixture = c(r"^E\s+(fixture '[^'\s]{1,100}' not found)")
        self.jest_file = c(r"^FAIL\s+(\S+\.\w+)\s*$")
        self.bun_file = c(r"^(\S+\.(?:test|spec)\.[cm]?[jt]sx?):$")
        self.bun_fail = c(r"^✗ (.+?)(?: \[[\d.]+m?s\])?$")
        self.mocha = c(r"^\s*\d+\) (\S.*)$")
        self.rspec = c(r"^rspec (\S+:\d+) #")
        self.direct_test = c(
            # linear: the name by a look-behind, the file a word of at most 300 characters
            r"(?<![^\s/])(?:python[\d.]*|node|tsx|ts-node|bun|deno(?: run)?)\s+"
            r"((?:\./)?\S{0,300}?(?:test_\w{1,200}\.py|\w_test\.py|\.(?:test|spec)\.[cm]?[jt]sx?))"
            r"(?:\s|$)"
        )
        self.clippy = c(r"clippy::([\w-]+)")
        self.shellcheck = c(r"^\s*\^-*\^? (SC\d{4}) \(")
        self.pnpm = c(r"^\s*(ERR_PNPM_\w+)\b")
        self.vitest = c(r"^(?:FAIL|×|✗|❯)\s+(\S+\.\w+) > (.+?)(?: \d+m?s)?$")
        self.python_exc = c(r"^(?:E\s+)?(?:[a-z_][\w]*\.)*([A-Z]\w*(?:Error|Exception))\b(?::|$)")
        self.black = c(r"^would reformat (\S.*)$")
        self.black_parse = c(r"^error: cannot format \S.*?: Cannot parse")
        self.prettier = c(r"^\[warn\] (?!Code style issues)(\S.*)$")
        self.npm_code = c(r"^npm (?:ERR!|error) code (E[A-Z0-9_]+)\b")
        self.git_conflict = c(r"^CONFLICT \(([\w/ -]+)\)")
        self.git_rejected = c(r"^!\s*\[(?:remote )?rejected\]\s.*?\(([\w -]+)\)\s*$")
        self.quoted = c(r"(['\"‘’`])[^'\"‘’`]{1,80}\1|‘[^’]{1,80}’")
        self.number = c(r"\b\d+(?:\.\d+)*\b")
        self.non_word = c(r"[^a-z0-9]+")


_p = built_once(_P)


def _lines(output: str, p: _P) -> list[str]:
    # Each pattern runs only on a text holding its leading literal (compiling one costs more
    # than the scan: the prompt's spool gate reads an output once per process).
    text = p.ansi.sub("", output) if "\x1b" in output else output
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "Exit code" in text:
        text = p.exit_header.sub("", text, count=1)
    return [line[:MAX_SCANNED_LINE].rstrip() for line in text.split("\n")[:MAX_SCANNED_LINES]]


def _slug(message: str, p: _P, words: int = 6) -> str:
    """A message with its identifiers, paths and numbers taken out, as a short slug."""
    text = p.quoted.sub(" ", message.lower())
    text = p.number.sub(" ", text)
    slug = p.non_word.sub("-", text).strip("-")
    return "-".join(slug.split("-")[:words])


def _test_id(raw: str) -> str:
    """A pytest node id without its parameters (``test_x[case-1]`` → ``test_x``)."""
    return re.sub(r"\[.*\]$", "", raw) if "[" in raw else raw


class _Collector:
    def __init__(self) -> None:
        self.found: dict[str, tuple[str, list[str]]] = {}

    def add(self, key: str, line: str, *context: str) -> None:
        key = " ".join(key.split())[:MAX_KEY]
        if key not in self.found:
            if len(self.found) >= MAX_MISTAKES:
                # full: a real finding outranks pure formatting (xo's default config reports
                # eight @stylistic rules before ``no-undef`` on a 14-line file)
                styled = [k for k in self.found if _STYLISTIC in k]
                if _STYLISTIC in key or not styled:
                    return
                del self.found[styled[-1]]
            self.found[key] = (line.strip(), [])  # exact: the error line as the tool wrote it
        self.found[key][1].extend([line, *context])

    def result(self, output: str) -> list[Mistake]:
        if len(self.found) == 1:
            [(key, (line, _))] = self.found.items()
            return [Mistake(key, line, output)]
        return [Mistake(k, line, "\n".join(text)) for k, (line, text) in self.found.items()]


def _warning_flag(flags: str | None) -> str | None:
    """The warning a compiler turned into an error: ``-Werror=unused-variable`` (gcc) and
    ``-Werror,-Wunused-variable`` (clang) both give ``-Wunused-variable``."""
    if not flags:
        return None
    for flag in reversed(flags.split(",")):
        if flag.startswith("-Werror="):
            return "-W" + flag.removeprefix("-Werror=")
        if flag.startswith("-W") and flag != "-Werror":
            return flag
    return None


def _lint_tool(command_tool_name: str | None, fixable: bool, code: str) -> str:
    if command_tool_name in ("ruff", "flake8", "pylint"):
        return command_tool_name
    if fixable:
        return "ruff"
    if re.fullmatch(r"[CRWEFI]\d{4}", code):
        return "pylint"
    return "flake8"


def _mypy_pretty(lines: list[str], i: int, p: _P) -> tuple[str, str] | None:
    """mypy ``--pretty``: a ``file:N: error:`` line whose message wraps onto the next lines and
    ends with the ``[code]``; the code and the whole message, else ``None``.

    The message is mypy's own logical line, exactly as mypy prints it without ``--pretty``:
    the wrap only broke it at a space, so the physical lines are joined with one space and
    nothing else changes (the two spaces before ``[arg-type]`` stay) — decision 0117."""
    for j, part in enumerate(lines[i + 1 : i + 5], start=1):
        if not part.strip() or p.mypy_head.match(part):
            return None
        if code := p.mypy_code.search(part):
            return code[1], " ".join(line.strip() for line in lines[i : i + j + 1])
    return None


# Each pattern of the diagnostics scan is tried only on a line holding a string every match of
# it holds (its literal start, or a word it requires): compiling a pattern costs more than
# reading a line, and an output of one tool reaches few of them (decision 0170). The reading
# is the unguarded one (tests/failures/test_literal_guards.py keeps it as the oracle).
_LINKER_WORDS = ("undefined reference to `", "multiple definition of `")


def _digit_colon(line: str) -> bool:
    """Whether ``line`` has a digit right before a ``: ``, as every ``N:M: CODE`` location of
    ``_P.concise`` has (``str.isdigit`` holds for every ``\\d``)."""
    at = line.find(": ")
    while at != -1:
        if at and line[at - 1].isdigit():
            return True
        at = line.find(": ", at + 2)
    return False


def _diagnostics(lines: list[str], tool: str | None, out: _Collector, p: _P) -> None:
    eslint_file = ""
    eslint_errors = any(
        line.lstrip()[:1].isdigit()
        and (m := p.eslint.match(line.strip())) is not None
        and m.group(1) == "error"
        for line in lines
    )
    for i, raw in enumerate(lines):
        line = raw.strip()
        if not line:
            continue
        mypy_error = ": error: " in line
        if tool == "clippy" and "clippy::" in line and (m := p.clippy.search(line)):
            out.add(f"clippy:{m[1].replace('-', '_')}", line)
        elif " SC" in raw and (m := p.shellcheck.match(raw)):
            out.add(f"shellcheck:{m[1]}", line)
        elif "ERR_PNPM_" in line and (m := p.pnpm.match(line)) and "RECURSIVE_RUN" not in m[1]:
            out.add(f"pnpm:{m[1]}", line)
        elif line.startswith("error[E") and (m := p.rustc.match(line)):
            out.add(f"rustc:{m[1]}", line, *lines[i + 1 : i + 2])
        elif "TS" in line and "error" in line and (m := p.tsc.match(line)):
            out.add(f"tsc:{m[1]}", line)
        elif mypy_error and (m := p.mypy.match(line)):
            out.add(f"mypy:{m[1]}", line)
        elif mypy_error and p.mypy_head.match(line) and (pretty := _mypy_pretty(lines, i, p)):
            out.add(f"mypy:{pretty[0]}", pretty[1])
        elif (_LINKER_WORDS[0] in line or _LINKER_WORDS[1] in line) and (
            m := p.linker.search(line)
        ):
            out.add(f"ld:{m[1]}", line)
        elif line.startswith("✖") and (m := p.xo.match(line)):
            out.add(f"{'xo' if tool == 'xo' else 'eslint'}:{m[1]}", line, eslint_file)
        elif ("File would be reformatted" in line and (m := p.ruff_format.match(line))) and any(
            p.arrow.match(nxt) for nxt in lines[i + 1 : i + 2]
        ):
            out.add(f"ruff:{m[1]}", line, lines[i + 1])
        elif " - error: " in line and p.pyright.match(line):
            # The rule closes the message, which may wrap onto indented lines.
            for j, part in enumerate(lines[i : i + 4]):
                if j and not part.startswith((" ", "\t")):
                    break
                if rule := p.pyright_rule.search(part):
                    out.add(f"pyright:{rule[1]}", line, *lines[i + 1 : i + j + 1])
                    break
        elif _digit_colon(line) and (m := p.concise.match(line)):
            out.add(f"{_lint_tool(tool, bool(m[2]), m[1])}:{m[1]}", line)
        elif ("A" <= line[0] <= "Z" and (m := p.full_code.match(line))) and any(
            p.arrow.match(nxt) for nxt in lines[i + 1 : i + 3]
        ):
            arrow = next(nxt for nxt in lines[i + 1 : i + 3] if p.arrow.match(nxt))
            out.add(f"ruff:{m[1]}", line, arrow)
        elif line[0].isdigit() and (m := p.eslint.match(line)):
            if m[1] == "error" or not eslint_errors:
                out.add(f"eslint:{m[2]}", line, eslint_file)
        elif line[-1] in "sxe" and p.eslint_header.match(line) and not raw.startswith((" ", "\t")):
            eslint_file = line
        elif " error: " in line and (m := p.cc.match(line)):
            name = tool if tool in ("gcc", "clang") else "cc"
            out.add(f"{name}:{_warning_flag(m[2]) or _slug(m[1], p)}", line)
        elif ".go:" in line and (m := p.go.match(line)):
            message = m[1]
            head, sep, _ = message.partition(":")
            code = head if sep and len(head.split()) <= 4 else message
            out.add(f"{'go vet' if tool == 'go vet' else 'go'}:{_slug(code, p)}", line)
        elif line.startswith("would reformat ") and p.black.match(line):
            out.add("black:would-reformat", line)
        elif line.startswith("error: cannot format ") and p.black_parse.match(line):
            out.add("black:cannot-parse", line)
        elif line.startswith("[warn] ") and p.prettier.match(line):
            out.add("prettier:format", line)
        elif line.startswith("npm ") and (m := p.npm_code.match(line)):
            if m[1] in _GENERIC_NPM_CODES:
                # a usage error names nothing: its first message line is the mistake
                message = next(
                    (n[1] for nxt in lines[i + 1 : i + 6] if (n := p.npm_message.match(nxt))),
                    "",
                )
                if message:
                    out.add(f"npm:{message.split('. ', 1)[0]}", message)
                    continue
            out.add(f"npm:{m[1]}", line)
        elif line.startswith("CONFLICT (") and (m := p.git_conflict.match(line)):
            out.add("git:merge-conflict", line)
        elif line.startswith("!") and (m := p.git_rejected.match(line)):
            out.add(f"git:rejected-{_slug(m[1], p)}", line)


def _pytest_blocks(lines: list[str], p: _P) -> dict[str, list[str]]:
    """pytest's failure report sections, by the name in their ``____ name ____`` header."""
    blocks: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in lines:
        stripped = line.strip()
        m = p.pytest_block.match(stripped) if stripped.startswith("___") else None
        if m:
            current = blocks.setdefault(m[1], [])
        elif line.startswith("=") and current is not None:
            current = None
        elif current is not None:
            current.append(line)
    return blocks


def _mocha_title(lines: list[str], start: int, first: str) -> str | None:
    """A mocha failure title: ``1) Suite`` then indented parts, the last one ending in ``:``."""
    parts = [first]
    for nxt in lines[start + 1 : start + 6]:
        if parts[-1].endswith(":"):
            break
        if not nxt.strip():
            return None
        parts.append(nxt.strip())
    return " ".join(parts)[:-1] if parts[-1].endswith(":") else None


def _tests(lines: list[str], out: _Collector, p: _P) -> None:
    # Every pattern here is anchored at a literal start: a line without it is passed over with
    # no regex (each compiled only when a line can match it; the prompt's spool gate reads one
    # output per process, where the compiles cost more than the scan).
    blocks: dict[str, list[str]] | None = None
    ava_titles: set[str] | None = None
    test_file = ""
    failing_section = False
    for i, raw in enumerate(lines):
        line = raw.strip()
        if (line.startswith("FAIL") and line[4:5].isspace() and (m := p.jest_file.match(line))) or (
            _bun_file(line) and (m := p.bun_file.match(line))
        ):
            test_file = m[1]
            continue
        if line.endswith(" failing") and re.fullmatch(r"\d+ failing", line):
            failing_section = True
            continue
        if failing_section and (m := p.mocha.match(raw)):
            title = _mocha_title(lines, i, m[1].strip())
            if title:
                out.add(f"test:{title}", line)
            continue
        if line.startswith("rspec ") and (m := p.rspec.match(line)):
            out.add(f"test:{m[1]}", line)
        elif line.startswith("✘ [fail]: ") and (m := p.ava.match(line)):
            if ava_titles is None:
                ava_titles = {t[1] for t in map(p.ava.match, map(str.strip, lines)) if t}
            out.add(f"test:{m[1]}", line, *_ava_block(lines, i, m[1], ava_titles))
        elif line.startswith("✗ ") and (m := p.bun_fail.match(line)):
            out.add(f"test:{test_file + ' > ' if test_file else ''}{m[1]}", line)
        elif line.startswith(("FAILED ", "ERROR ")) and (m := p.pytest_failed.match(line)):
            test_id = _test_id(m[2])
            if blocks is None:
                blocks = _pytest_blocks(lines, p)
            name = test_id.rsplit("::", 1)[-1]
            block = blocks.get(name) or blocks.get(m[2].rsplit("::", 1)[-1]) or []
            fixture = next((f for b in block if (f := _fixture(b.strip(), p))), None)
            if m[1] == "ERROR" and fixture:
                # a missing fixture is its own mistake, not the test's (nor an assertion's)
                out.add(f"pytest:{fixture[1]}", line, *block)
            else:
                out.add(f"test:{test_id}", line, *block)
        elif line.startswith(("FAIL: ", "ERROR: ")) and (m := p.unittest.match(line)):
            dotted = m[2] if m[2].endswith("." + m[1]) else f"{m[2]}.{m[1]}"
            out.add(f"test:{dotted}", line)
        elif "--- FAIL: " in raw and (m := p.go_test.match(raw)):
            out.add(f"test:{m[1]}", line, *go_block(lines, i, m[1]))
        elif (line.startswith("test ") and (m := p.cargo_test.match(line))) or (
            line.endswith(" --- FAILED") and (m := p.cargo_quiet.match(line))
        ):
            out.add(f"test:{m[1]}", line, *libtest_block(lines, m[1]))
        elif (
            line.startswith("●")
            and (m := p.jest.match(line))
            and "Test suite failed to run" not in line
        ):
            out.add(
                f"test:{test_file + ' > ' if test_file else ''}{m[1]}", line, *_jest_block(lines, i)
            )
        elif _vitest(line) and (m := p.vitest.match(line)):
            out.add(f"test:{m[1]} > {m[2]}", line)


def _bun_file(line: str) -> bool:
    """Whether a stripped line can be bun's ``path/x.test.ts:`` (its pattern's literals)."""
    return line.endswith(("s:", "sx:")) and (".test." in line or ".spec." in line)


def _vitest(line: str) -> bool:
    """Whether a stripped line can start vitest's ``FAIL|×|✗|❯`` and a space (``\\s`` is
    :meth:`str.isspace`)."""
    if line.startswith("FAIL"):
        return line[4:5].isspace()
    return line.startswith(("×", "✗", "❯")) and line[1:2].isspace()


def _fixture(line: str, p: _P) -> re.Match[str] | None:
    """pytest's ``E   fixture 'x' not found`` (a stripped line)."""
    if not line.startswith("E") or "' not found" not in line or "fixture '" not in line:
        return None  # the pattern's literals: it is compiled only for a line holding them
    return p.fixture.match(line)


_BLOCK_LINES = 80


def _jest_block(lines: list[str], start: int) -> list[str]:
    """The lines of a jest ``● title`` report (the diff, the code frame, the stack) up to the next
    report, file or summary: each failing test keeps its own evidence."""
    block: list[str] = []
    for line in lines[start + 1 : start + 1 + _BLOCK_LINES]:
        if line.lstrip().startswith(("●", "FAIL ", "PASS ", "Test Suites:", "Tests:")):
            break
        block.append(line)
    return block


def libtest_block(lines: list[str], name: str) -> list[str]:
    """Rust's libtest reports each failing test under ``---- cart::total stdout ----`` (the
    panic, its message and place, a backtrace), after the list of results: that report, up to
    the next test's or the ``failures:`` list."""
    header = f"---- {name} stdout ----"
    for j, line in enumerate(lines):
        if line.strip() == header:
            block: list[str] = []
            for later in lines[j + 1 : j + 1 + _BLOCK_LINES]:
                stripped = later.strip()
                if stripped == "failures:" or (
                    stripped.startswith("---- ") and stripped.endswith(" stdout ----")
                ):
                    break
                block.append(later)
            return block
    return []


def go_block(lines: list[str], start: int, name: str) -> list[str]:
    """What ``go test`` logged for a failing test: the lines indented under its ``--- FAIL:``
    line, else (``go test -v``, which logs as the test runs) those under its ``=== RUN``."""
    indent = len(lines[start]) - len(lines[start].lstrip())
    block: list[str] = []
    for later in lines[start + 1 : start + 1 + _BLOCK_LINES]:
        if not later.strip() or len(later) - len(later.lstrip()) <= indent:
            break
        block.append(later)
    if block:
        return block
    run = f"=== RUN   {name}"
    for j in range(start - 1, max(-1, start - 1 - _BLOCK_LINES), -1):
        if lines[j].strip() == run:
            return [
                line
                for line in lines[j + 1 : start]
                if line[:1].isspace() and not line.lstrip().startswith(("=== ", "--- "))
            ]
    return []


def _ava_block(lines: list[str], start: int, title: str, titles: set[str]) -> list[str]:
    """ava lists the ``✘ [fail]: title`` lines first and reports each test later under its bare
    title, up to the next test's title or a ``─`` rule: that report."""
    for j in range(start + 1, len(lines)):
        if lines[j].strip() == title:
            block: list[str] = []
            for line in lines[j + 1 : j + 1 + _BLOCK_LINES]:
                if line.strip() == "─" or line.strip() in titles:
                    break
                block.append(line)
            return block
    return []


# A string every match of ``_pythonic``'s command pattern holds.
_PYTHONIC_WORDS = (
    "python", "pytest", "py.test", "uv", "poetry", "pipenv", "pdm", "hatch", "tox", "nox", ".py",
)  # fmt: skip


def _pythonic(output: str, command: str | None) -> bool:
    """Whether an exception line is Python's (``TypeError:`` is JavaScript's too)."""
    return "Traceback (most recent call last)" in output or bool(
        command
        and any(word in command for word in _PYTHONIC_WORDS)
        and re.search(
            r"\b(?:python[\d.]*|pytest|py\.test|uv|poetry|pipenv|pdm|hatch|tox|nox)\b|\.py\b",
            command,
        )
    )


def find_mistakes(output: str, command: str | None = None) -> list[Mistake]:
    """The mistakes ``output`` names, one per group key, in output order (see the module doc)."""
    p = _p()
    lines = _lines(output, p)
    out = _Collector()
    _tests(lines, out, p)
    if not out.found:
        _diagnostics(lines, command_tool(command), out, p)
    if (
        not out.found
        and command
        and ("test" in command or ".spec." in command)  # in every file it takes for a test
        and (m := p.direct_test.search(command))
    ):
        out.add(f"test:{m[1]}", m[1])  # a test file run directly: the file is the test
    if not out.found and _pythonic(output, command):
        for line in lines:
            m = p.python_exc.match(line.strip())
            if m:
                out.add(f"python:{m[1]}", line.strip())
                break
    return out.result(output)
