"""Which test tests which source file (``pokayokay.failures.pairing``): the conventions as
properties, for any folder and module names."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pokayokay.failures.pairing import covers, file_of_test_id, is_test, module_under_test

# The language of ``[a-z][a-z0-9]{0,7}(_[a-z0-9]{1,6})?``, built from plain draws (st.from_regex
# drew it through filtered draws, most of the properties' time).
_LOWER = "abcdefghijklmnopqrstuvwxyz"
_ALNUM = st.sampled_from([*_LOWER, *"0123456789"])
_NAME = st.builds(
    lambda first, rest, suffix: first + rest + (f"_{suffix}" if suffix else ""),
    st.sampled_from(list(_LOWER)),
    st.text(_ALNUM, max_size=7),
    st.one_of(st.just(""), st.text(_ALNUM, min_size=1, max_size=6)),
).filter(lambda n: not n.startswith("test") and not n.endswith("_test"))
_FOLDERS = st.lists(_NAME, max_size=3)
_TS = st.sampled_from(["ts", "tsx", "js", "jsx"])


def _path(*parts: str) -> str:
    return "/".join(p for p in parts if p)


def _python_convention(
    package: list[str], under: list[str], name: str, root: str, style: str
) -> None:
    source = _path(root, *package, *under, f"{name}.py")
    test = _path("tests", *under, style.format(name) + ".py")
    assert is_test(test) and not is_test(source)
    assert covers(test, source)
    assert not covers(test, _path(root, *package, *under, f"{name}x.py"))  # another name
    assert not covers(source, test)  # never the other way round
    elsewhere = _path(root, "elsewhere", f"{name}.py")
    assert covers(test, elsewhere) == (not under)  # folders under tests/ must match



_PY = (_FOLDERS, _FOLDERS, _NAME, st.sampled_from(["", "src", "lib"]),
       st.sampled_from(["test_{}", "{}_test"]))  # fmt: skip


@given(*_PY)
def test_python_tests_under_tests_test_the_module_their_folders_end(
    package: list[str], under: list[str], name: str, root: str, style: str
) -> None:
    _python_convention(package, under, name, root, style)


@given(_FOLDERS, _NAME, _TS, st.sampled_from([".test", ".spec"]), st.booleans())
def test_js_tests_beside_or_in_tests_folder(
    folders: list[str], name: str, ext: str, mark: str, nested: bool
) -> None:
    source = _path(*folders, f"{name}.{ext}")
    test = _path(*folders, "__tests__" if nested else "", f"{name}{mark}.{ext}")
    assert covers(test, source)
    family = {"ts": "tsx", "tsx": "ts", "js": "jsx", "jsx": "js"}[ext]
    assert covers(test, _path(*folders, f"{name}.{family}"))  # same family
    assert not covers(test, _path(*folders, f"{name}.py"))
    assert not covers(test, _path(*folders, "elsewhere", f"{name}.{ext}"))


@given(_FOLDERS, _NAME)
def test_go_tests_sit_beside_their_file(folders: list[str], name: str) -> None:
    assert covers(_path(*folders, f"{name}_test.go"), _path(*folders, f"{name}.go"))
    assert not covers(_path(*folders, f"{name}_test.go"), _path("other", f"{name}.go"))


@given(_FOLDERS, _NAME, st.sampled_from(["py", "ts", "go", "md", "json", ""]))
def test_a_source_file_is_never_a_test(folders: list[str], name: str, ext: str) -> None:
    path = _path(*folders, f"{name}.{ext}" if ext else name)
    assert not is_test(path) and module_under_test(path) is None
    assert not covers(path, path)


def test_the_issues_examples() -> None:
    assert covers("tests/api/test_users.py", "src/api/users.py")
    assert covers("src/state/cart.test.ts", "src/state/cart.ts")
    assert covers("pkg/cart/cart_test.go", "pkg/cart/cart.go")
    assert not covers("tests/api/test_users.py", "src/web/users.py")


def test_the_file_of_a_test_id() -> None:
    assert file_of_test_id("tests/api/test_users.py::test_deactivate") == "tests/api/test_users.py"
    assert file_of_test_id("src/cart.test.ts > Cart › total") == "src/cart.test.ts"
    assert file_of_test_id("TestTotal") == ""
    assert file_of_test_id("tests.test_cart.CartTest.test_total") == ""


def _seeded_name(rng: random.Random) -> str:
    """A name of ``_NAME``'s language and filter, from ``rng``."""
    alnum = _LOWER + "0123456789"
    while True:
        name = rng.choice(_LOWER) + "".join(rng.choices(alnum, k=rng.randint(0, 7)))
        if rng.random() < 0.5:
            name += "_" + "".join(rng.choices(alnum, k=rng.randint(1, 6)))
        if not name.startswith("test") and not name.endswith("_test"):
            return name


def _seeded_python_case(seed: int) -> tuple[list[str], list[str], str, str, str]:
    """What ``_PY`` draws, built from one drawn seed: the thousands of examples of the slow run
    cost the engine one draw each, not one per character (it was nearly all their time)."""
    rng = random.Random(seed)

    def folders() -> list[str]:
        return [_seeded_name(rng) for _ in range(rng.randint(0, 3))]

    package, under = folders(), folders()
    return (package, under, _seeded_name(rng), rng.choice(["", "src", "lib"]),
            rng.choice(["test_{}", "{}_test"]))  # fmt: skip


@pytest.mark.slow
@settings(max_examples=3000)
@given(st.integers(0, 2**64 - 1))
def test_python_convention_many(seed: int) -> None:
    _python_convention(*_seeded_python_case(seed))
