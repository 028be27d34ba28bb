"""pokayokay.rules.globs: deriving root-anchored globs from evidence, and Claude Code's matching."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pokayokay.rules.globs import (
    MAX_GLOBS,
    claude_matches,
    derive_globs,
    escape_name,
    normalise_path,
    pathspec_matches,
)

PROJECT = [
    "README.md",
    "pyproject.toml",
    "setup.py",
    "src/__init__.py",
    "src/cart/__init__.py",
    "src/cart/models.py",
    "src/cart/views.py",
    "src/cart/README.md",
    "src/cart/api/routes.py",
    "src/cart/api/schemas.py",
    "src/orders/models.py",
    "src/orders/views.py",
    "src/auth/login.py",
    "tests/test_cart.py",
    "tests/test_orders.py",
    "tests/unit/test_money.py",
    "web/src/app.ts",
    "web/src/app.test.ts",
    "web/src/cart.test.ts",
    "web/package.json",
    "docs/index.md",
    *(f"tests/test_many_{i}.py" for i in range(30)),
]


def both(globs: tuple[str, ...], path: str) -> bool:
    return pathspec_matches(globs, path) and claude_matches(globs, path)


def either(globs: tuple[str, ...], path: str) -> bool:
    return pathspec_matches(globs, path) or claude_matches(globs, path)


# --- derive_globs: examples -------------------------------------------------------------------


def test_one_file_gives_the_file() -> None:
    assert derive_globs(["src/cart/models.py"], PROJECT) == ("/src/cart/models.py",)


def test_files_of_one_folder_sharing_a_suffix() -> None:
    assert derive_globs(["src/cart/models.py", "src/cart/views.py"], PROJECT) == ("/src/cart/*.py",)


def test_a_longer_shared_suffix_is_used() -> None:
    globs = derive_globs(["web/src/app.test.ts", "web/src/cart.test.ts"], PROJECT)
    assert globs == ("/web/src/*.test.ts",)
    assert not either(globs, "web/src/app.ts")


def test_a_suffix_glob_picking_up_many_other_files_lists_the_files() -> None:
    globs = derive_globs(["tests/test_cart.py", "tests/test_orders.py"], PROJECT)
    assert globs == ("/tests/test_cart.py", "/tests/test_orders.py")


def test_mixed_suffixes_in_a_small_folder_take_the_folder() -> None:
    globs = derive_globs(["src/cart/models.py", "src/cart/README.md"], PROJECT)
    assert globs == ("/src/cart/**",)
    assert both(globs, "src/cart/api/routes.py")
    assert not either(globs, "src/orders/models.py")


def test_evidence_spanning_subfolders_takes_the_common_folder() -> None:
    globs = derive_globs(["src/cart/models.py", "src/cart/api/routes.py"], PROJECT)
    assert globs == ("/src/cart/**",)


def test_siblings_with_an_unrelated_sibling_are_not_widened() -> None:
    # src/auth has no evidence: /src/** would load the rule there too.
    globs = derive_globs(["src/cart/models.py", "src/orders/models.py"], PROJECT)
    assert globs == ("/src/cart/models.py", "/src/orders/models.py")
    assert not either(globs, "src/auth/login.py")


def test_siblings_covering_every_child_folder_are_widened() -> None:
    files = ["lib/a/x.py", "lib/a/y.py", "lib/b/z.py", "lib/b/w.py", "other/q.py"]
    globs = derive_globs(["lib/a/x.py", "lib/b/z.py"], files)
    assert globs == ("/lib/**",)
    assert not either(globs, "other/q.py")


def test_test_and_source_stay_separate_never_the_root() -> None:
    globs = derive_globs(["tests/test_cart.py", "src/cart/models.py"], PROJECT)
    assert globs == ("/src/cart/models.py", "/tests/test_cart.py")
    assert not either(globs, "docs/index.md")


def test_top_level_files_are_listed_never_root_wide() -> None:
    globs = derive_globs(["README.md", "pyproject.toml"], PROJECT)
    assert globs == ("/README.md", "/pyproject.toml")
    for glob in globs:
        assert glob not in ("/**", "**", "/", "*", "/*")
    assert not either(globs, "src/cart/models.py")


def test_many_top_level_folders_are_project_wide() -> None:
    evidence = ["src/cart/models.py", "tests/test_cart.py", "web/src/app.ts", "docs/index.md"]
    assert derive_globs(evidence, PROJECT) == ()


def test_too_many_globs_merge_and_then_give_up_at_the_root() -> None:
    files = [f"pkg/m{i}/f.py" for i in range(20)] + [f"pkg/m{i}/g.py" for i in range(20)]
    evidence = [f"pkg/m{i}/f.py" for i in range(12)]
    globs = derive_globs(evidence, files)
    assert globs == ("/pkg/**",)
    top = [f"t{i}/f.py" for i in range(12)]
    assert derive_globs(top, [*top, *(f"u{i}/f.py" for i in range(40))]) == ()


def test_no_usable_evidence_is_project_wide() -> None:
    assert derive_globs([], PROJECT) == ()
    assert derive_globs(["../outside.py", "/abs/file.py", "", "."], PROJECT) == ()


def test_paths_are_normalised() -> None:
    assert derive_globs(["./src//cart/models.py"], PROJECT) == ("/src/cart/models.py",)
    assert normalise_path("a/../b") is None
    assert normalise_path("C:\\x") is None


@pytest.mark.parametrize(
    "name",
    [
        "[id].tsx",
        "my file.py",
        "a,b.py",
        "{x}.py",
        "weird'quote\".py",
        "back\\slash.py",
        "<system-reminder>.py",
        "!bang.py",
        "#hash.py",
        "trailing .py",
        "日本語.py",
        "😀.py",
        "tab\tname.py",
        "ünïcödé.py",
        "＜full＞.py",
    ],
)
def test_odd_file_names_are_matched_and_safe(name: str) -> None:
    path = f"src/odd/{name}"
    globs = derive_globs([path], [path, "src/odd/other.py", "src/plain/x.py"])
    assert globs, name
    assert both(globs, path), (globs, path)
    assert not either(globs, "src/plain/x.py")
    for glob in globs:
        assert glob.startswith("/")
        for bad in "<>\"'`,{}\\\t\n":
            assert bad not in glob, (bad, glob)


def test_escape_name_keeps_letters_of_any_script() -> None:
    assert escape_name("日本語.py") == "日本語.py"
    assert escape_name("a b[c]") == "a?b?c?"
    assert escape_name("😀😀x") == "*x"


def test_written_folder_globs_mean_the_same_in_both_engines() -> None:
    globs = ("/src/cart/**",)
    for path in ["src/cart/a.py", "src/cart/x/y/z.py"]:
        assert pathspec_matches(globs, path) and claude_matches(globs, path)
    for path in ["src/cartx/a.py", "x/src/cart/a.py", "src/a.py"]:
        assert not pathspec_matches(globs, path) and not claude_matches(globs, path)


# --- claude_matches ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("paths", "path", "expected"),
    [
        ("*.py", "sub/a.py", True),  # no slash: any depth
        ("/sub/a.py", "sub/a.py", True),  # leading / anchors
        ("/sub/a.py", "x/sub/a.py", False),
        ("sub/*.txt", "sub/b.txt", True),
        ("src/*.ts", "src/deep/d.ts", False),  # * does not cross /
        ('other/**, "*.md"', "sub/other/c.txt", True),  # trailing /** stripped: any depth
        ('other/**, "*.md"', "sub/x.md", False),  # quotes inside a comma string stay literal
        (["/src/{a,b}.py"], "src/b.py", True),  # brace expansion
        (["/src/{a,b}.py"], "src/c.py", False),
        ("/src/{a,b}.py, /lib/*.py", "lib/x.py", True),  # commas inside braces do not split
        (["/SRC/A.py"], "src/a.py", True),  # case-insensitive
        (["/d/*"], "d/s/b", True),  # a matching folder matches what is below it
        (["**"], "any/where.py", True),  # all ** is unconditional
        ([], "any/where.py", True),  # no paths: the rule always loads
        ((), "any/where.py", True),
        (["/src/**"], "../src/a.py", False),  # outside the project
        (["/src/**"], "/src/a.py", False),
    ],
)
def test_claude_matches(paths: object, path: str, expected: bool) -> None:
    assert claude_matches(paths, path) is expected  # type: ignore[arg-type]


# --- properties -------------------------------------------------------------------------------

TOP = ["src", "tests", "lib", "web"]
SUB = ["a", "b", "core", "util"]
FILES = ["x.py", "y.py", "z.ts", "m.md", "Makefile", "t.test.ts", "[id].tsx"]

paths_st = st.builds(
    lambda top, subs, name: "/".join([top, *subs, name]),
    st.sampled_from(TOP),
    st.lists(st.sampled_from(SUB), max_size=3),
    st.sampled_from(FILES),
) | st.sampled_from(["README.md", "setup.py", "pyproject.toml"])


@st.composite
def scenario(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    files = draw(st.lists(paths_st, min_size=1, max_size=40, unique=True))
    evidence = draw(
        st.lists(st.sampled_from(files) | paths_st, min_size=1, max_size=6, unique=True)
    )
    tops = {p.split("/")[0] for p in evidence if "/" in p}
    if len(tops) > 3:
        evidence = [p for p in evidence if "/" not in p or p.split("/")[0] in sorted(tops)[:3]]
    return evidence, files


def folder(path: str) -> str:
    return path.rpartition("/")[0]


def unrelated(path: str, evidence: list[str]) -> bool:
    """Neither an evidence folder, nor an ancestor of one, nor below a non-root one."""
    f = folder(path)
    for e in evidence:
        ef = folder(e)
        if f == ef or ef.startswith(f + "/") or not f:
            return False
        if ef and f.startswith(ef + "/"):
            return False
    return True


def with_siblings(evidence: list[str], files: list[str]) -> list[str]:
    """``files`` plus a file in a fresh sibling folder at every level of every evidence path."""
    extra = []
    for e in evidence:
        parts = e.split("/")[:-1]
        for depth in range(len(parts) + 1):
            extra.append("/".join([*parts[:depth], "zz_sibling", "f.py"]))
    return sorted(set(files) | set(extra))


@settings(max_examples=300, deadline=None)
@given(scenario())
def test_every_evidence_path_matches_its_globs(case: tuple[list[str], list[str]]) -> None:
    evidence, files = case
    globs = derive_globs(evidence, files)
    for path in evidence:
        assert both(globs, path), (globs, path)


@settings(max_examples=300, deadline=None)
@given(scenario())
def test_unrelated_sibling_folders_never_match(case: tuple[list[str], list[str]]) -> None:
    evidence, files = case
    files = with_siblings(evidence, files)
    globs = derive_globs(evidence, files)
    assert globs, "at most 6 paths in at most 3 top-level folders is never project-wide"
    assert len(globs) <= MAX_GLOBS
    for path in files:
        if unrelated(path, evidence):
            assert not either(globs, path), (globs, path)


@settings(max_examples=200, deadline=None)
@given(scenario(), st.randoms(use_true_random=False))
def test_deterministic_and_order_independent(
    case: tuple[list[str], list[str]], rnd: object
) -> None:
    import random

    assert isinstance(rnd, random.Random)
    evidence, files = case
    expected = derive_globs(evidence, files)
    shuffled_evidence = [*evidence, *evidence[:2]]
    shuffled_files = list(files)
    rnd.shuffle(shuffled_evidence)
    rnd.shuffle(shuffled_files)
    assert derive_globs(shuffled_evidence, shuffled_files) == expected
    assert list(expected) == sorted(set(expected))
    for glob in expected:
        assert glob.startswith("/") and glob not in ("/**", "/", "/*")
