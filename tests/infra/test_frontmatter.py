"""The frontmatter subset reader agrees with ruamel.yaml wherever it answers, and answers for the
blocks pokayokay and people write."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from pokayokay.infra import frontmatter
from pokayokay.infra.frontmatter import UNSUPPORTED


def reference(block: str) -> Any:
    return YAML(typ="safe", pure=True).load(block)


# Scalars as people type them, tricky characters included.
_ALPHABET = st.sampled_from(
    [*"abcxyzABC019 _-./*:#'\"[]{},&!|>%@`?~\\", "é", "日", "\t", "\u2028", "\x85"]
)
_RAW = st.text(_ALPHABET, min_size=0, max_size=14)
_WORDS = st.sampled_from(
    ["true", "False", "NULL", "~", "null", "yes", "no", "on", "0", "007", "12", "1.5", "-3",
     "+4", ".5", "2026-11-27", "1_000", "0x1f", "0o17", ".inf", "src/**/*.py", "**/*.ts",
     "a: b", "a #b", "a#b", "C#", "- x", "[a]", "'q'", '"d"', "'it''s'", '"a\\"b"', "x:",
     '"\\x41\\u00e9\\t\\\\"', '"\\q"', '"\\ud800"', '"\\U0001F600 \\N\\_"', '"a\\\\"',
     '"\\"', '"\\x4"', "'a' #c", '"b"#c',
     # quoted scalars holding what splits a flow list ("asked" phrases: decision 0175)
     '"a, b"', "'c, d'", '"x: y"', "'p # q'", '"[z]"', "'a]b'", '"{k}"', '"w, \\"v\\", u"',
     "'it''s, ok'", '"a" b', "'a'x", '" "', "''"]
)  # fmt: skip
_SCALAR = st.one_of(_RAW, _WORDS)
# The plain keys are the language of ``[a-z_][a-z0-9_-]{0,8}``, built from two draws:
# st.from_regex drew it through filtered draws, a third of the property's time.
_LOWER = "abcdefghijklmnopqrstuvwxyz"
_PLAIN_KEY = st.builds(
    str.__add__,
    st.sampled_from([*_LOWER, "_"]),
    st.text(st.sampled_from([*_LOWER, *"0123456789_-"]), max_size=8),
)
_KEY = st.one_of(
    _PLAIN_KEY,
    st.sampled_from(["true", "null", "1a", "-k", "name", "paths", "k y", "é"]),
)


def _flow(items: list[str]) -> str:
    return "[" + ", ".join(items) + "]"


@st.composite
def blocks(draw: st.DrawFn) -> str:
    lines: list[str] = []
    for _ in range(draw(st.integers(0, 5))):
        key = draw(_KEY)
        shape = draw(st.sampled_from(["scalar", "flow", "list", "map", "empty", "comment"]))
        if shape == "scalar":
            lines.append(f"{key}: {draw(_SCALAR)}")
        elif shape == "flow":
            lines.append(f"{key}: {_flow(draw(st.lists(_SCALAR, max_size=3)))}")
        elif shape == "list":
            indent = " " * draw(st.sampled_from([0, 2, 4]))
            lines.append(f"{key}:")
            lines += [f"{indent}- {item}" for item in draw(st.lists(_SCALAR, max_size=3))]
        elif shape == "map":
            lines.append(f"{key}:")
            for _ in range(draw(st.integers(1, 3))):
                value = draw(st.one_of(_SCALAR, st.lists(_SCALAR, max_size=3).map(_flow)))
                lines.append(f"  {draw(_KEY)}: {value}")
        elif shape == "empty":
            lines.append(f"{key}:")
        else:
            lines.append(f"# {draw(_RAW)}")
    return "\n".join(lines) + draw(st.sampled_from(["", "\n"]))


def _agrees(block: str) -> None:
    fast = frontmatter.load(block)
    if fast is UNSUPPORTED:
        return
    try:
        expected = reference(block)
    except Exception:
        pytest.fail(f"the subset reader accepted a block ruamel rejects: {block!r} -> {fast!r}")
    assert fast == expected, block
    assert type(fast) is type(expected)


@settings(max_examples=600, deadline=None)
@given(blocks())
def test_where_the_subset_reader_answers_it_agrees_with_ruamel(block: str) -> None:
    _agrees(block)


@pytest.mark.slow
@settings(max_examples=2_500, deadline=None)
@given(blocks())
def test_where_the_subset_reader_answers_it_agrees_with_ruamel_many(block: str) -> None:
    _agrees(block)


@pytest.mark.parametrize(
    "block",
    [
        # pokayokay's own rule frontmatter
        'paths:\n  - "src/**/*.py"\n  - "tests/**/*.py"\n',
        "paths: src/api/**/*.ts\n",
        'paths: ["src/**/*.py", "tests/*.py"]\n',
        # settings
        "memory:\n  max_lines: 180\n  max_bytes: 24000\ngraduation:\n  threshold: 3\n",
        "recall: false\nteam: true\n",
        'description: "She said \\"run it\\" \\u00e9"\n',  # pokayokay's escaped descriptions
        # a learning
        "name: run-tests-with-make\ndescription: Run the tests with make test\n"
        "type: feedback\nconfidence: high\n",
        "",
        "# only a comment\n",
    ],
)
def test_the_blocks_pokayokay_and_people_write_need_no_yaml_library(block: str) -> None:
    fast = frontmatter.load(block)
    assert fast is not UNSUPPORTED
    assert fast == reference(block)


@pytest.mark.parametrize(
    "block",
    [
        "a: 2026-11-27\n",  # a date
        "a: 1.5\n",
        "a: &x b\nc: *x\n",
        "a: |\n  text\n",
        "a: b\na: c\n",  # duplicate keys: loaders differ
        "a:\n  b:\n    c: d\n",  # deeper nesting
        "- a\n- b\n",  # not a mapping
        "paths: **/*.py\n",  # an alias indicator: Claude Code's own fallback decides
    ],
)
def test_anything_else_goes_to_the_yaml_library(block: str) -> None:
    assert frontmatter.load(block) is UNSUPPORTED


@pytest.mark.parametrize(
    ("block", "answers"),
    [
        # a learning's asked phrases (decision 0175): quoted, holding what splits a flow list
        ('metadata:\n  asked: ["why, now?", "x: y", "a # b", "[k]", "it\'s"]\n', True),
        ("asked: ['c, d', 'it''s, ok', \"w, \\\"v\\\", u\"]  # note\n", True),
        ('asked: [ "a" ,b , \'c\' ]\n', True),
        # not flow lists the subset reads: the YAML parser decides
        ('asked: ["a" b, c]\n', False),
        ("asked: ['a'x, y]\n", False),
        ('asked: ["a", , "b"]\n', False),
        ('asked: ["a",]\n', False),
        ('asked: ["a"] x\n', False),
        ('asked: ["a\n', False),
    ],
)
def test_quoted_flow_items_may_hold_commas_and_colons(block: str, answers: bool) -> None:
    _agrees(block)
    assert (frontmatter.load(block) is not UNSUPPORTED) == answers
