"""Claude Code's rule matching (`paths:` → which files load a rule), reproduced in rule_match.

Expectations come from the interfaces doc §2.3 (tested against Claude Code 2.1.330) and from
Claude Code 2.1.330's own matcher, which was run on the same inputs while writing this module
(hundreds of thousands of random patterns and paths, zero disagreements). Where npm `ignore`
or pathspec (git semantics) answer differently, the tables below say so.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pokayokay.rules import claude_match as rm
from pokayokay.rules.claude_match import (
    BraceBudget,
    Matcher,
    expand_braces,
    matches,
    normalise_patterns,
    paths_match,
    pattern_problem,
)

# ---------------------------------------------------------------------------------------------
# The interfaces doc §2.3 table, row by row (paths value as written, file read, loaded?)

DOC_TABLE = [
    ("*.py", "sub/a.py", True),  # no slash: any depth
    ("/sub/a.py", "sub/a.py", True),  # leading / anchors to the project root
    ("sub/*.txt", "sub/b.txt", True),
    ("src/*.ts", "src/deep/d.ts", False),  # * does not cross /
    ('other/**, "*.md"', "sub/other/c.txt", True),  # other/** -> other, any depth
    ('other/**, "*.md"', "README.md", False),  # the quotes in "*.md" stay literal
    ("*.md", "docs/deep/x.md", True),  # docs say "root only"; Claude Code: any depth
    ("/src/**/*.ts", "src/api/deep/x.ts", True),
    ("/src/**/*.ts", "lib/src/x.ts", False),
    ("a[", "a[", False),  # invalid bracket pattern matches nothing
]


@pytest.mark.parametrize(("paths", "path", "expected"), DOC_TABLE)
def test_interfaces_doc_table(paths: str, path: str, expected: bool) -> None:
    assert paths_match(paths, path) is expected


# ---------------------------------------------------------------------------------------------
# More cases: (patterns after normalisation, path, expected)

CASES = [
    # anchoring
    (["a.py"], "a.py", True),
    (["a.py"], "x/y/a.py", True),
    (["/a.py"], "x/a.py", False),
    (["sub/a.py"], "x/sub/a.py", False),  # a slash in the middle anchors too
    (["sub/a.py"], "sub/a.py", True),
    (["/sub"], "sub/deep/file.txt", True),  # a matching folder matches everything below
    (["sub"], "x/sub/deep/file.txt", True),
    (["sub/"], "sub/file.txt", True),  # trailing slash: folders only...
    (["sub/"], "sub", False),  # ...so a file named sub does not match
    (["x/sub/"], "x/sub/f", True),
    # * and ?
    (["*.py"], "a.pyc", False),
    (["src/*"], "src/a/b.py", True),  # src/a matches, so everything below it does
    (["src/*.py"], "src/a/b.py", False),
    (["a?c"], "abc", True),
    (["a?c"], "a/c", False),  # ? never matches /
    (["*"], "anything/at/all", True),
    (["/*"], "top", True),
    # ** forms
    (["**/test_*.py"], "test_a.py", True),
    (["**/test_*.py"], "a/b/test_a.py", True),
    (["src/**/x.py"], "src/x.py", True),  # /**/ matches zero folders
    (["src/**/x.py"], "src/a/b/x.py", True),
    (["src/**"], "src/a/b.py", True),  # unnormalised: still everything below src
    (["src/**"], "src", False),  # ...but not src itself (normalisation strips it first)
    (["a**b"], "axxb", True),  # ** inside a segment is *
    (["a**b"], "ax/xb", False),
    # negation, last match wins, no re-including below a matching folder
    (["*.py", "!setup.py"], "setup.py", False),
    (["*.py", "!setup.py"], "pkg/setup.py", False),
    (["*.py", "!setup.py"], "pkg/a.py", True),
    (["!setup.py", "*.py"], "setup.py", True),
    (["src", "!src/a.py"], "src/a.py", True),  # src/ matched: a negation cannot re-include
    (["src/*", "!src/keep"], "src/keep/x", False),
    (["*.txt", "a", "!a"], "a/f.txt", True),  # folder a un-matched, then *.txt matches f.txt
    (["!"], "a", False),  # a lone ! negates nothing that matched
    (["*", "!"], "a", False),  # ...and un-matches everything that did
    (["\\!x"], "!x", True),  # escaped ! is literal
    (["\\#x"], "#x", True),
    (["#x"], "#x", False),  # a comment
    # case-insensitive (JavaScript /i, non-Unicode)
    (["*.PY"], "src/a.py", True),
    (["README.md"], "readme.MD", True),
    (["é"], "É", True),
    (["s"], "ſ", False),  # long s upper-cases to ASCII S: not folded in JavaScript
    (["k"], "\u212a", False),  # Kelvin sign
    (["ß"], "SS", False),
    # brackets: ranges yes, negation no (! and ^ are literal), broken ones match nothing
    (["file[0-9].txt"], "file7.txt", True),
    (["file[0-9].txt"], "fileA.txt", False),
    (["[abc].md"], "B.md", True),
    (["[!a].py"], "b.py", False),  # not negation in Claude Code
    (["[!a].py"], "!.py", True),
    (["[^a].py"], "^.py", True),
    (["[z-a]", "b"], "b", True),  # reversed range matches nothing; other patterns still do
    (["[z-a]"], "z", False),
    (["x[[:digit:]]"], "x1", False),  # no POSIX classes
    (["a\\]b"], "a]b", True),
    (["[a\\]"], "a", False),  # an escaped ] closes nothing: matches nothing
    # dotfiles: nothing special
    (["*.env"], ".env", True),
    (["*"], ".hidden/x", True),
    ([".github/"], ".github/workflows/ci.yml", True),
    # spaces
    (["a b"], "a b", True),
    (["trailing  "], "trailing", True),  # trailing spaces dropped
    (["escaped\\ "], "escaped ", True),  # ...unless escaped
    # paths Claude Code never matches
    (["*"], "..x", False),  # starts with "..": treated as outside the project
    (["*"], "../x", False),
    (["*"], "/abs/x", False),
    (["*"], "", False),
    (["*"], "./x", False),
    # UTF-16 code units: ? is one unit, an emoji is two
    (["?"], "\U0001f600", False),
    (["??"], "\U0001f600", True),
    # quotes are literal characters
    (['"*.md"'], '"notes.md"', True),
    (['"*.md"'], "notes.md", False),
    # quirks of Claude Code's translation, reproduced
    (["a\\*"], "abc", True),  # \* at the very end still acts as *
    (["a\\*b"], "a*b", True),  # ...but not elsewhere
    (["a\\*b"], "axb", False),
    (["tests/**/"], "tests/a.py", True),  # /**/ at the end also matches tests itself
]


@pytest.mark.parametrize(("patterns", "path", "expected"), CASES)
def test_matches(patterns: list[str], path: str, expected: bool) -> None:
    assert matches(patterns, path) is expected


def test_no_patterns_never_match() -> None:
    assert matches([], "a.py") is False


def test_matcher_reuses_folder_verdicts_and_agrees_with_single_calls() -> None:
    patterns = ["/src/**/*.py", "!/src/vendor", "docs/", "*.md"]
    files = [
        "src/a.py",
        "src/vendor/x.py",
        "src/deep/er/b.py",
        "docs/x.txt",
        "README.md",
        "lib/a.py",
        "src/vendor",
    ]
    matcher = Matcher(patterns)
    batch = [matcher.matches(f) for f in files]
    assert batch == [matches(patterns, f) for f in files]
    assert batch == [True, True, True, True, True, False, False]


def test_deciding_pattern_names_the_pattern() -> None:
    matcher = Matcher(["*.md", "/src"])
    assert matcher.deciding_pattern("src/a/b.py") == "/src"
    assert matcher.deciding_pattern("x/README.md") == "*.md"
    assert matcher.deciding_pattern("x.py") is None


# ---------------------------------------------------------------------------------------------
# The paths: value


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("src/**", ["src"]),  # trailing /** stripped
        ("src/**/**", ["src/**"]),  # only once
        ("/**", []),  # stripped to nothing: unconditional
        ("**", []),  # every pattern ** -> unconditional
        (["**", "**/**"], []),
        (["**", "src"], ["**", "src"]),  # not every pattern: conditional
        ("a, b ,c", ["a", "b", "c"]),
        ("a,,b,", ["a", "b"]),
        ('other/**, "*.md"', ["other", '"*.md"']),  # quotes stay
        ("'a', 'b'", ["'a'", "'b'"]),
        ("src/*.{ts,tsx}", ["src/*.ts", "src/*.tsx"]),
        ("{a,b}/{c,d}", ["a/c", "a/d", "b/c", "b/d"]),
        ("x{1, 2 }y", ["x1y", "x2y"]),  # alternatives trimmed
        ("{a}", ["a"]),
        ("a{}b", ["a{}b"]),  # empty group: left alone
        ("{a,b", ["{a,b"]),  # unclosed: the comma is not top level, nothing to expand
        ("{a,{b,c}}", ["a}", "b", "c}"]),  # no nesting: the group ends at the first }
        (["a, b", ["c", ["d"]]], ["a", "b", "c", "d"]),  # lists flatten; items are split too
        (["a", 3, None, {"x": 1}, True], ["a"]),  # non-strings dropped
        ("\u3000a\ufeff", ["a"]),  # JavaScript trim: Unicode spaces and BOM
        (None, []),
        ("", []),
        (0, []),
        (False, []),
        ([], []),
        (7, []),
        ({"src": True}, []),
    ],
)
def test_normalise_patterns(value: object, expected: list[str]) -> None:
    assert normalise_patterns(value) == expected


def test_expand_braces_order_and_budget() -> None:
    assert expand_braces("{b,a}{2,1}") == ["b2", "b1", "a2", "a1"]
    budget = BraceBudget()
    ten = "{a,b,c,d,e,f,g,h,i,j}"
    assert len(expand_braces(ten * 3, budget)) == 1000  # exactly the budget
    assert expand_braces("x{1,2}", budget) == ["x{1,2}"]  # budget used up: kept as written
    assert budget.exceeded == ["x{1,2}"]
    assert len(expand_braces(ten * 4)) == 1  # 10,000 would exceed it: unexpanded
    huge = "x" * (3 << 20) + "{a,b}"
    assert expand_braces(huge) == [huge]  # 4 MiB of text budget


def test_brace_budget_is_shared_by_a_rules_patterns() -> None:
    ten = "{a,b,c,d,e,f,g,h,i,j}"
    assert len(normalise_patterns([ten * 3, "x{1,2}"])) == 1001


# ---------------------------------------------------------------------------------------------
# Patterns that do nothing


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [
        ("#src", "ignored: a comment"),
        ("src\\", "ignored: ends with a single backslash"),
        ("a\\\\\\", "cannot be compiled"),  # three backslashes: a dangling escape
        ("x\\/**/y", "cannot be compiled"),  # Claude Code's translation breaks
        ("[/", "cannot be compiled"),
    ],
)
def test_patterns_claude_code_drops(pattern: str, problem: str) -> None:
    found = pattern_problem(pattern)
    assert found is not None and found.startswith(problem)
    assert matches([pattern, "keep"], "keep")  # the rule's other patterns still work


@pytest.mark.parametrize("pattern", ["*.py", "/src/**/*.ts", "[a-z]x", "a\\\\b", "!x", "é*"])
def test_ordinary_patterns_have_no_problem(pattern: str) -> None:
    assert pattern_problem(pattern) is None


def test_regex_source_is_claude_codes() -> None:
    # The same source text Claude Code 2.1.330 builds for these patterns.
    assert rm.claude_regex_source("*.py") == r"(?:^|\/)[^\/]*\.py(?=$|\/$)"
    assert rm.claude_regex_source("/src/**/*.ts") == r"^src(?:\/[^\/]+)*\/[^\/]*\.ts(?=$|\/$)"
    assert rm.claude_regex_source("docs/") == r"(?:^|\/)docs\/$"
    assert rm.claude_regex_source("[!a]") == r"(?:^|\/)[!a](?=$|\/$)"
    assert rm.claude_regex_source("a[") == r"(?:^|\/)a[](?=$|\/$)"


# ---------------------------------------------------------------------------------------------
# Properties


_NAME = st.text(alphabet="abcXYZ._-", min_size=1, max_size=6).filter(
    lambda s: s != "." and not s.startswith("..")  # path.relative() never yields these
)
_PATH = st.lists(_NAME, min_size=1, max_size=4).map("/".join)


@settings(max_examples=200, deadline=None)
@given(_PATH, _PATH)
def test_a_slash_free_name_matches_at_any_depth(prefix: str, name: str) -> None:
    leaf = name.rsplit("/", 1)[-1]
    assert matches([leaf], f"{prefix}/{leaf}")
    # Anchored: only the top-level entry of that name (here the prefix's first folder).
    top = prefix.split("/")[0]
    assert matches([f"/{leaf}"], f"{prefix}/{leaf}") is (top.upper() == leaf.upper())


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["*.py", "/a", "b/", "!x*", "[a-c]*", "**/c", "X?"]), max_size=4),
       _PATH)  # fmt: skip
def test_ascii_matching_ignores_case(patterns: list[str], path: str) -> None:
    assert matches(patterns, path) == matches(patterns, path.upper())
    assert matches(patterns, path) == matches([p.upper() for p in patterns], path)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["*.py", "/a", "b/", "!b/x", "[a-c]*", "**/c"]), max_size=4),
       _PATH, _NAME)  # fmt: skip
def test_everything_below_a_matching_folder_matches(
    patterns: list[str], folder: str, name: str
) -> None:
    # A folder is tested as "folder/" (how Claude Code walks a file's parents).
    if Matcher(patterns).deciding_pattern(folder + "/") is not None:
        assert matches(patterns, f"{folder}/{name}")


# ---------------------------------------------------------------------------------------------
# Where pathspec (git semantics) differs from Claude Code — why rule_match does not use it.
# (patterns, path, Claude Code, pathspec GitIgnoreSpec; "error" = pathspec raises)

PATHSPEC_DIFFERENCES = [
    (["*.PY"], "a.py", True, False),  # case-insensitive vs case-sensitive
    (["é"], "É", True, False),
    (["[!a].py"], "b.py", False, True),  # [!…] literal vs negation
    (["*.txt", "a", "!a"], "a/f.txt", True, True),  # (GitIgnoreSpec agrees here...)
    (["..x"], "..x", False, True),  # Claude Code never matches a path starting with ..
    (["[z-a]", "b"], "b", True, "error"),  # a bad range: pathspec fails the whole spec
    (["*", "!"], "a", False, "error"),  # a lone "!": pathspec refuses the pattern
    (["?"], "\U0001f600", False, True),  # UTF-16 units vs code points
    (["a\\*"], "ab", True, False),  # Claude Code's trailing \* quirk
]


def _pathspec(patterns: list[str], path: str) -> object:
    import pathspec

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return bool(pathspec.GitIgnoreSpec.from_lines(patterns).match_file(path))
        except Exception:
            return "error"


@pytest.mark.parametrize(("patterns", "path", "claude", "git"), PATHSPEC_DIFFERENCES)
def test_pathspec_differences_are_as_documented(
    patterns: list[str], path: str, claude: bool, git: object
) -> None:
    assert matches(patterns, path) is claude
    assert _pathspec(patterns, path) == git


def test_pathspec_plain_spec_lets_a_negation_reinclude_below_a_matching_folder() -> None:
    import pathspec

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spec = pathspec.PathSpec.from_lines("gitwildmatch", ["src", "!src/a.py"])
    assert spec.match_file("src/a.py") is False
    assert matches(["src", "!src/a.py"], "src/a.py") is True


# ---------------------------------------------------------------------------------------------
# Cross-check with the real npm `ignore` package (the library the interfaces doc names; Claude
# Code ships its own implementation of the same API). Skipped without node and npm.

NPM_IGNORE_VERSION = "7.0.16"
_CACHE = Path(
    os.environ.get("POKAYOKAY_NPM_CACHE")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pokayokay-tests"
)

# Where npm `ignore` 7 and Claude Code's matcher disagree: (patterns, path, Claude Code, npm).
NPM_IGNORE_DIFFERENCES = [
    (["[!a].py"], "b.py", False, True),  # npm ignore negates [!…] like git
    (["[^a].py"], "b.py", False, True),
    (["[z-a]"], "z", False, True),  # npm ignore keeps the first bound of a reversed range
    (["tests/**/"], "tests/a.py", True, False),  # Claude Code: /**/ also matches tests itself
    (["*/**/"], "b/tests", True, False),
    (["**/**/a/"], "a/x", False, True),
    (["*", "!"], "a", False, True),  # npm ignore ignores a lone "!"
    (["x[[:digit:]]"], "x1", False, True),  # npm ignore supports POSIX classes
    (["*"], "..x", False, True),  # Claude Code's own ".." rule (before the library)
]


def _npm_ignore_dir() -> Path | None:
    if shutil.which("node") is None or shutil.which("npm") is None:
        return None
    folder = _CACHE / f"npm-ignore-{NPM_IGNORE_VERSION}"
    if (folder / "node_modules" / "ignore" / "package.json").exists():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    try:
        subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--silent", "--prefix", str(folder),
             f"ignore@{NPM_IGNORE_VERSION}"],
            check=True, capture_output=True, timeout=180,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    return folder if (folder / "node_modules" / "ignore").exists() else None


_NODE_SCRIPT = """
const ignore = require(process.argv[1] + '/node_modules/ignore');
const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(cases.map(([p, x]) => {
  try { return ignore().add(p).ignores(x); } catch (e) { return 'throw'; }
})));
"""


@pytest.fixture(scope="module")
def npm_ignore() -> Path:
    folder = _npm_ignore_dir()
    if folder is None:
        pytest.skip("node/npm not available (or npm could not install `ignore`)")
    return folder


def _run_npm_ignore(folder: Path, cases: list[tuple[list[str], str]]) -> list[object]:
    done = subprocess.run(
        ["node", "-e", _NODE_SCRIPT, str(folder)],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    result: list[object] = json.loads(done.stdout)
    return result


def _realistic_corpus(count: int) -> list[tuple[list[str], str]]:
    rng = random.Random(20261122)
    segments = ["src", "tests", "docs", "lib", "Cart", "cart", ".github", "*.py", "*.PY",
                "test_*.py", "**", "*", "?.md", "README.md", "*.{ts,tsx}", "x[0-9].txt",
                "[abc]", "a", "b"]  # fmt: skip
    names = ["src", "tests", "docs", "lib", "a", "b", "cart", "Cart", ".github", "README.md",
             "a.py", "A.PY", "test_cart.py", "x1.txt", "c", ".x", "x.ts", "y.tsx", "é"]  # fmt: skip
    corpus: list[tuple[list[str], str]] = []
    while len(corpus) < count:
        raw = []
        for _ in range(rng.randint(1, 4)):
            pattern = "/".join(rng.choice(segments) for _ in range(rng.randint(1, 3)))
            if rng.random() < 0.3:
                pattern = "/" + pattern
            if rng.random() < 0.15 and not pattern.endswith("**"):
                pattern += "/"
            if rng.random() < 0.1:
                pattern = "!" + pattern
            raw.append(pattern)
        patterns = normalise_patterns(raw)
        if not patterns or any(p.endswith("/**/") or "**/**/" in p for p in patterns):
            continue  # known differences, tested separately
        path = "/".join(rng.choice(names) for _ in range(rng.randint(1, 5)))
        corpus.append((patterns, path))
    return corpus


def _npm_comparable(patterns: list[str], path: str) -> bool:
    """Cases outside the known differences (NPM_IGNORE_DIFFERENCES) and JavaScript's ".." rule."""
    if not path or path.startswith(("..", "/", "./")) or path in ("ſ", "\u212a", "SS"):
        return False
    if any(ord(char) > 0xFFFF for char in path):
        return False
    quirky = ("[!", "[^", "\\", "[[:", "[z-a]", "/**/")
    return not any(p in ("!", "a[", "[a\\]") or any(q in p for q in quirky) for p in patterns)


def test_agrees_with_npm_ignore_on_ordinary_patterns(npm_ignore: Path) -> None:
    cases = [(normalise_patterns(p), path) for p, path, _ in DOC_TABLE]
    cases += [(patterns, path) for patterns, path, _ in CASES]
    cases = [(patterns, path) for patterns, path in cases if _npm_comparable(patterns, path)]
    cases += _realistic_corpus(3000)
    npm = _run_npm_ignore(npm_ignore, cases)
    disagreements = [
        (patterns, path, ours, theirs)
        for (patterns, path), theirs in zip(cases, npm, strict=True)
        if (ours := matches(patterns, path)) != theirs
    ]
    assert disagreements == []


def test_npm_ignore_differences_are_as_documented(npm_ignore: Path) -> None:
    cases = [(patterns, path) for patterns, path, _, _ in NPM_IGNORE_DIFFERENCES]
    npm = _run_npm_ignore(npm_ignore, cases)
    for (patterns, path, claude, expected_npm), theirs in zip(
        NPM_IGNORE_DIFFERENCES, npm, strict=True
    ):
        assert matches(patterns, path) is claude, (patterns, path)
        assert theirs is expected_npm, (patterns, path)
