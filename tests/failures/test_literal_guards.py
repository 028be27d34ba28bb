"""The literal guards in front of the mistakes scan's and the signature's patterns change no
answer (decisions 0138, 0170): each pattern is anchored at a literal, or needs one, and a line
or text without it is passed over without compiling the pattern. Checked against the unguarded
reading (written out here as it was before the guards) over the real outputs in tests/data and
over generated outputs built from their lines, the patterns' literal starts and near misses."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from helpers.paths import DATA_DIR
from helpers.real_outputs import REAL, REAL_LINES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pokayokay.failures import classify, mistakes, signature
from pokayokay.failures.mistakes import find_mistakes
from pokayokay.failures.signature import key_lines, normalise
from pokayokay.hooks.capture import failure_keys
from pokayokay.hooks.runtime import SPOOLED_PROJECT_KEY
from pokayokay.infra.lazyre import Lazy
from pokayokay.safety import redact_blocks

# --- the unguarded reading (the code before decision 0138) -----------------------------------


def _old_lines(output: str, p: mistakes._P) -> list[str]:
    text = p.ansi.sub("", output)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = p.exit_header.sub("", text, count=1)
    cut = mistakes.MAX_SCANNED_LINE
    return [line[:cut].rstrip() for line in text.split("\n")[: mistakes.MAX_SCANNED_LINES]]


def _old_test_id(raw: str) -> str:
    return re.sub(r"\[.*\]$", "", raw)


def _old_pytest_blocks(lines: list[str], p: mistakes._P) -> dict[str, list[str]]:
    blocks: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in lines:
        m = p.pytest_block.match(line.strip())
        if m:
            current = blocks.setdefault(m[1], [])
        elif line.startswith("=") and current is not None:
            current = None
        elif current is not None:
            current.append(line)
    return blocks


def _old_tests(lines: list[str], out: mistakes._Collector, p: mistakes._P) -> None:
    blocks: dict[str, list[str]] | None = None
    ava_titles: set[str] | None = None
    test_file = ""
    failing_section = False
    for i, raw in enumerate(lines):
        line = raw.strip()
        if (m := p.jest_file.match(line)) or (m := p.bun_file.match(line)):
            test_file = m[1]
            continue
        if line.endswith(" failing") and re.fullmatch(r"\d+ failing", line):
            failing_section = True
            continue
        if failing_section and (m := p.mocha.match(raw)):
            title = mistakes._mocha_title(lines, i, m[1].strip())
            if title:
                out.add(f"test:{title}", line)
            continue
        if m := p.rspec.match(line):
            out.add(f"test:{m[1]}", line)
        elif m := p.ava.match(line):
            if ava_titles is None:
                ava_titles = {t[1] for t in map(p.ava.match, map(str.strip, lines)) if t}
            out.add(f"test:{m[1]}", line, *mistakes._ava_block(lines, i, m[1], ava_titles))
        elif m := p.bun_fail.match(line):
            out.add(f"test:{test_file + ' > ' if test_file else ''}{m[1]}", line)
        elif m := p.pytest_failed.match(line):
            test_id = _old_test_id(m[2])
            if blocks is None:
                blocks = _old_pytest_blocks(lines, p)
            name = test_id.rsplit("::", 1)[-1]
            block = blocks.get(name) or blocks.get(m[2].rsplit("::", 1)[-1]) or []
            fixture = next((f for b in block if (f := p.fixture.match(b.strip()))), None)
            if m[1] == "ERROR" and fixture:
                out.add(f"pytest:{fixture[1]}", line, *block)
            else:
                out.add(f"test:{test_id}", line, *block)
        elif m := p.unittest.match(line):
            dotted = m[2] if m[2].endswith("." + m[1]) else f"{m[2]}.{m[1]}"
            out.add(f"test:{dotted}", line)
        elif m := p.go_test.match(raw):
            out.add(f"test:{m[1]}", line, *mistakes.go_block(lines, i, m[1]))
        elif (m := p.cargo_test.match(line)) or (m := p.cargo_quiet.match(line)):
            out.add(f"test:{m[1]}", line, *mistakes.libtest_block(lines, m[1]))
        elif (m := p.jest.match(line)) and "Test suite failed to run" not in line:
            out.add(
                f"test:{test_file + ' > ' if test_file else ''}{m[1]}",
                line,
                *mistakes._jest_block(lines, i),
            )
        elif m := p.vitest.match(line):
            out.add(f"test:{m[1]} > {m[2]}", line)


# --- the unguarded diagnostics scan and its callers (the code before decision 0170) ------------


def _old_diagnostics(
    lines: list[str], tool: str | None, out: mistakes._Collector, p: mistakes._P
) -> None:
    eslint_file = ""
    eslint_errors = any(
        (m := p.eslint.match(line.strip())) is not None and m.group(1) == "error" for line in lines
    )
    for i, raw in enumerate(lines):
        line = raw.strip()
        if not line:
            continue
        if tool == "clippy" and (m := p.clippy.search(line)):
            out.add(f"clippy:{m[1].replace('-', '_')}", line)
        elif m := p.shellcheck.match(raw):
            out.add(f"shellcheck:{m[1]}", line)
        elif (m := p.pnpm.match(line)) and "RECURSIVE_RUN" not in m[1]:
            out.add(f"pnpm:{m[1]}", line)
        elif m := p.rustc.match(line):
            out.add(f"rustc:{m[1]}", line, *lines[i + 1 : i + 2])
        elif m := p.tsc.match(line):
            out.add(f"tsc:{m[1]}", line)
        elif m := p.mypy.match(line):
            out.add(f"mypy:{m[1]}", line)
        elif p.mypy_head.match(line) and (pretty := mistakes._mypy_pretty(lines, i, p)):
            out.add(f"mypy:{pretty[0]}", pretty[1])
        elif m := p.linker.search(line):
            out.add(f"ld:{m[1]}", line)
        elif m := p.xo.match(line):
            out.add(f"{'xo' if tool == 'xo' else 'eslint'}:{m[1]}", line, eslint_file)
        elif (m := p.ruff_format.match(line)) and any(
            p.arrow.match(nxt) for nxt in lines[i + 1 : i + 2]
        ):
            out.add(f"ruff:{m[1]}", line, lines[i + 1])
        elif p.pyright.match(line):
            # The rule closes the message, which may wrap onto indented lines.
            for j, part in enumerate(lines[i : i + 4]):
                if j and not part.startswith((" ", "\t")):
                    break
                if rule := p.pyright_rule.search(part):
                    out.add(f"pyright:{rule[1]}", line, *lines[i + 1 : i + j + 1])
                    break
        elif m := p.concise.match(line):
            out.add(f"{mistakes._lint_tool(tool, bool(m[2]), m[1])}:{m[1]}", line)
        elif (m := p.full_code.match(line)) and any(
            p.arrow.match(nxt) for nxt in lines[i + 1 : i + 3]
        ):
            arrow = next(nxt for nxt in lines[i + 1 : i + 3] if p.arrow.match(nxt))
            out.add(f"ruff:{m[1]}", line, arrow)
        elif m := p.eslint.match(line):
            if m[1] == "error" or not eslint_errors:
                out.add(f"eslint:{m[2]}", line, eslint_file)
        elif p.eslint_header.match(line) and not raw.startswith((" ", "\t")):
            eslint_file = line
        elif m := p.cc.match(line):
            name = tool if tool in ("gcc", "clang") else "cc"
            out.add(f"{name}:{mistakes._warning_flag(m[2]) or mistakes._slug(m[1], p)}", line)
        elif m := p.go.match(line):
            message = m[1]
            head, sep, _ = message.partition(":")
            code = head if sep and len(head.split()) <= 4 else message
            out.add(f"{'go vet' if tool == 'go vet' else 'go'}:{mistakes._slug(code, p)}", line)
        elif p.black.match(line):
            out.add("black:would-reformat", line)
        elif p.black_parse.match(line):
            out.add("black:cannot-parse", line)
        elif p.prettier.match(line):
            out.add("prettier:format", line)
        elif m := p.npm_code.match(line):
            if m[1] in mistakes._GENERIC_NPM_CODES:
                # a usage error names nothing: its first message line is the mistake
                message = next(
                    (n[1] for nxt in lines[i + 1 : i + 6] if (n := p.npm_message.match(nxt))),
                    "",
                )
                if message:
                    out.add(f"npm:{message.split('. ', 1)[0]}", message)
                    continue
            out.add(f"npm:{m[1]}", line)
        elif m := p.git_conflict.match(line):
            out.add("git:merge-conflict", line)
        elif m := p.git_rejected.match(line):
            out.add(f"git:rejected-{mistakes._slug(m[1], p)}", line)


def _old_pythonic(output: str, command: str | None) -> bool:
    return "Traceback (most recent call last)" in output or bool(
        command
        and re.search(
            r"\b(?:python[\d.]*|pytest|py\.test|uv|poetry|pipenv|pdm|hatch|tox|nox)\b|\.py\b",
            command,
        )
    )


def _old_find_mistakes(output: str, command: str | None = None) -> list[mistakes.Mistake]:
    p = mistakes._p()
    lines = mistakes._lines(output, p)
    out = mistakes._Collector()
    mistakes._tests(lines, out, p)
    if not out.found:
        _old_diagnostics(lines, mistakes.command_tool(command), out, p)
    if not out.found and command and (m := p.direct_test.search(command)):
        out.add(f"test:{m[1]}", m[1])
    if not out.found and _old_pythonic(output, command):
        for line in lines:
            m = p.python_exc.match(line.strip())
            if m:
                out.add(f"python:{m[1]}", line.strip())
                break
    return out.result(output)


def _old_special(text: str, p: signature._Patterns) -> str | None:
    match = p.tool_use_error.match(text)
    if match:
        inner = match.group(1).strip()
        return inner.split("\n", 1)[0].strip()
    first = text.lstrip().split("\n", 1)[0]
    if first.startswith("Error: "):
        first = first[len("Error: ") :]
    for pattern, replacement in (
        (p.hook_error, r"\1: [<command>]: "),
        (p.permission, r"\1\2"),
        (p.user_rejected, r"\1"),
    ):
        if pattern.match(first):
            return pattern.sub(replacement, first, count=1)
    return None


def _old_clean_lines(error: str, roots: list[str], p: signature._Patterns) -> list[str]:
    text = p.ansi.sub("", error)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = p.exit_header.sub("", text, count=1)
    special = _old_special(text, p)
    if special is not None:
        text = special
    if roots:
        text = signature.relativise(p.file_url.sub("", text), roots)
    return [line[: signature.MAX_SCANNED_LINE].strip() for line in text.split("\n")]


def unguarded_mistakes(output: str, command: str | None) -> list[mistakes.Mistake]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(mistakes, "_lines", _old_lines)
        mp.setattr(mistakes, "_tests", _old_tests)
        return _old_find_mistakes(output, command)


def unguarded_signature(error: str, roots: list[str]) -> tuple[str, list[str]]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(signature, "_clean_lines", _old_clean_lines)
        return normalise(error, project_roots=roots), key_lines(error, project_roots=roots)


# --- outputs ------------------------------------------------------------------------------------


ROOTS = ["/home/dev/project", "/tmp/work/repo"]
# The literal starts the guards look for, their near misses, and the texts they skip on.
STARTS = [
    "FAIL", "FAIL ", "FAIL: ", "FAILED ", "FAILED", "ERROR ", "ERROR: ", "ERROR", "rspec ",
    "rspec", "✘ [fail]: ", "✘ [fail]:", "✗ ", "✗", "×", "❯", "●", "● ", "test ", "--- FAIL: ",
    "    --- FAIL: ", "___", "__", "_____ ", "E   ", "E", "Exit code 1\n", " Exit code 2 \n",
    "\x1b[31m", "\x1b]0;t\x07", "<tool_use_error>", "Error: ", "PreToolUse:Bash hook error: [",
    "Permission to use ", "The user doesn't want to ", "file:///home/dev/project/", "\t", " ",
    # the diagnostics scan's (decision 0170)
    "error[E0308]: ", "error[E", "src/a.ts(3,4): error TS2322: ", "error TS", "a.py:3: error: ",
    "a.py:3:1: error: ", ": error: ", "a.py:3:1 - error: ", " - error: ", "✖  1:2  ", "✖",
    "would reformat ", "error: cannot format a.py: Cannot parse", "[warn] ", "npm ERR! code ",
    "npm error code E", "npm ", "CONFLICT (content): ", "! [rejected] ", "!  [remote rejected] ",
    "ERR_PNPM_", "  ^-- SC2086 (", "^ SC", "1:2  error  ", "3:4  warning  ", "a.go:1:2: ",
    "a.py:1:2: E501 ", "a.c:1:2: fatal error: ", "E501 ", "F401 [*] ", "  --> a.py:1:2",
    "a.o: undefined reference to `", "multiple definition of `", "clippy::", "a: File would",
    "web/src/a.ts", "src/App.vue", "x.svelte", "1:2", "a.ts:1:2 - error TS7006: ", "error  TS1005",
]  # fmt: skip
TAILS = [
    "tests/test_a.py::test_x - assert 1 == 2", "tests/test_a.py::test_x[case-1]",
    "test_x (tests.test_a.T)", "tests/a.test.ts", "src/a.test.ts:", "spec/a_spec.rb:12 # does",
    "it works", "tests/a.test.ts > adds", "cart::tests::total ... FAILED", "TestTotal (0.00s)",
    "cart::total --- FAILED",
    "fixture 'db' not found", "test_total ___", "ERROR at setup of test_x ___", ":", "",
    "a]", "x[y]", "Bash(rm -rf /)", "to proceed with this tool use.",
    "f' [-Wimplicit-function-declaration]", "Incompatible types  [arg-type]", "no-unused-vars",
    "  @typescript-eslint/no-explicit-any", "(reportGeneralTypeIssues)",
    "main -> main (fetch first)",
    "foo'", "File would be reformatted", "Line too long (97 > 88)", "3:4: ", ".js", ".tsx",
]  # fmt: skip

line_strategy = st.one_of(
    st.sampled_from(REAL_LINES),
    st.builds(lambda a, b: a + b, st.sampled_from(STARTS), st.sampled_from(TAILS)),
    st.builds(lambda a, b: a + b, st.sampled_from(STARTS), st.text(max_size=30)),
    st.text(alphabet=st.sampled_from("FAILEDRO_:-[]●✗✘×❯ \t\x1bet"), max_size=20),
    st.text(alphabet=st.sampled_from("error: TS[E0]1:2 -✖!^SCnpmcodegx.sjv`\t"), max_size=24),
)
output_strategy = st.one_of(
    st.sampled_from(REAL),
    st.lists(line_strategy, max_size=25).map("\n".join),
    st.builds(
        lambda out, at, line: "\n".join([*out.split("\n")[:at], line, *out.split("\n")[at:]]),
        st.sampled_from(REAL),
        st.integers(0, 60),
        line_strategy,
    ),
)
command_strategy = st.one_of(
    st.none(),
    st.sampled_from(["pytest -x", "ruff check .", "npx jest", "go test ./...", "", "make build"]),
    st.sampled_from(
        [
            "python tests/test_a.py",
            "node web/a.test.js",
            "bun x.spec.ts",
            "uv run app",
            "tox",
            "cargo clippy",
            "shellcheck a.sh",
            "pnpm -r test",
            "gcc a.c",
            "npx eslint .",
            "mypy .",
        ]
    ),
)


def test_the_real_outputs_read_as_before() -> None:
    assert len(REAL) >= 40
    for output in REAL:
        for command in (None, "pytest"):
            assert find_mistakes(output, command) == unguarded_mistakes(output, command)
        assert (normalise(output, project_roots=ROOTS), key_lines(output, project_roots=ROOTS)) == (
            unguarded_signature(output, ROOTS)
        )


def _same(output: str, command: str | None) -> None:
    assert find_mistakes(output, command) == unguarded_mistakes(output, command)
    got = normalise(output, project_roots=ROOTS), key_lines(output, project_roots=ROOTS)
    assert got == unguarded_signature(output, ROOTS)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(output=output_strategy, command=command_strategy)
def test_guarded_reading_is_the_unguarded_one(output: str, command: str | None) -> None:
    _same(output, command)


@pytest.mark.slow
@settings(max_examples=2_500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(output=output_strategy, command=command_strategy)
def test_guarded_reading_is_the_unguarded_one_at_length(output: str, command: str | None) -> None:
    _same(output, command)


def test_a_pytest_report_compiles_only_the_patterns_it_reaches() -> None:
    """What the guards are for: a pytest report reads with the three pytest patterns of the
    test scan compiled, none of the other runners'."""
    p = mistakes._P()
    output = (DATA_DIR / "outputs" / "pytest_two_failures.txt").read_text("utf-8")
    out = mistakes._Collector()
    mistakes._tests(mistakes._lines(output, p), out, p)
    compiled = {name for name, value in vars(p).items() if getattr(value, "_regex", None)}
    assert out.found
    assert compiled <= {"pytest_failed", "pytest_block", "fixture"}, compiled


def test_a_build_output_compiles_few_of_the_diagnostics_patterns() -> None:
    """What the diagnostics scan's guards are for (decision 0170): a failing ``make build``
    with a Python syntax error reaches none of the linters' and type checkers' patterns."""
    from benchmarks.suites.budget_sessions import build_output

    p = mistakes._P()
    out = mistakes._Collector()
    mistakes._diagnostics(mistakes._lines(build_output("discount_case_x"), p), "gcc", out, p)
    compiled = {name for name, value in vars(p).items() if getattr(value, "_regex", None)}
    assert not out.found
    assert compiled <= {"exit_header", "concise", "full_code"}, compiled  # of 27


# --- the gate's keys, whole ----------------------------------------------------------------------


def _reading_rules() -> tuple[classify.Rule, ...]:
    """The built-in rows with their literals read on first use (before the table)."""

    def reading(looks: classify.Pattern | None) -> Lazy | None:
        return None if looks is None else Lazy(looks.pattern, literals=True)

    return tuple(
        classify.Rule(r.category, reading(r.tool), reading(r.command), reading(r.error), r.note)
        for r in classify.BUILTIN_RULES
    )


def old_keys(payload: dict[str, object]) -> list[tuple[str, str]]:
    """:func:`failure_keys` as it read before decision 0138: no guard, base64 for each encoded
    run's head, the classifier's literals read on first use."""
    import base64

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(mistakes, "_lines", _old_lines)
        mp.setattr(mistakes, "_tests", _old_tests)
        mp.setattr(mistakes, "find_mistakes", _old_find_mistakes)
        mp.setattr(signature, "_clean_lines", _old_clean_lines)
        mp.setattr(redact_blocks, "head_bytes", lambda h: base64.b64decode(h, validate=True))
        mp.setattr(classify, "BUILTIN_RULES", _reading_rules())
        return failure_keys(payload)


def _payload(output: str, command: str, root: str) -> dict[str, object]:
    return {
        "session_id": "s-1",
        "hook_event_name": "PostToolUseFailure",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "run it"},
        "error": f"Exit code 1\n{output}",
        "cwd": root,
        SPOOLED_PROJECT_KEY: root,
    }


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project folder (no git: the root is the folder itself) shared by the examples."""
    return tmp_path_factory.mktemp("gate-project")


COMMANDS = ["pytest tests/test_checkout.py", "ruff check .", "npx jest", "npm run build", "make"]


def test_the_gate_keys_of_the_real_outputs_are_as_before(tmp_path: Path) -> None:
    for output in REAL:
        for command in COMMANDS[:2]:
            payload = _payload(output, command, str(tmp_path))
            assert failure_keys(payload) == old_keys(payload)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(output=output_strategy, command=st.sampled_from(COMMANDS))
def test_the_gate_keys_are_as_before(root: Path, output: str, command: str) -> None:
    payload = _payload(output, command, str(root))
    assert failure_keys(payload) == old_keys(payload)


@pytest.mark.slow
@settings(max_examples=1_000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(output=output_strategy, command=st.sampled_from(COMMANDS))
def test_the_gate_keys_are_as_before_at_length(root: Path, output: str, command: str) -> None:
    payload = _payload(output, command, str(root))
    assert failure_keys(payload) == old_keys(payload)


def test_a_regex_space_is_a_str_space() -> None:
    """The guards read ``\\s`` of a pattern as :meth:`str.isspace` (``FAIL`` and a space): the
    same characters, every code point."""
    space = re.compile(r"\s")
    differ = [i for i in range(sys.maxunicode + 1) if bool(space.match(chr(i))) != chr(i).isspace()]
    assert differ == []


def test_the_fixture_guard_is_the_patterns_literals() -> None:
    """``_fixture`` compiles its pattern only for a line holding its literals (decision 0143):
    the same answer as the pattern on the real lines, their near misses and the literals."""
    p = mistakes._p()
    lines = [*REAL_LINES, "E   fixture 'db' not found", "E fixture 'a b' not found",
             "E   fixture 'db' not foun", "Efixture 'x' not found", "E\tfixture 'x' not found",
             "E   fixture '' not found", "fixture 'db' not found"]  # fmt: skip
    for line in lines:
        got = mistakes._fixture(line.strip(), p)
        want = p.fixture.match(line.strip()) if line.strip().startswith("E") else None
        assert (got and got.group(0)) == (want and want.group(0)), line
