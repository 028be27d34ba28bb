"""``capture.exit_header``: the string scan that reads a Bash error's ``Exit code N`` line,
held to the pattern it replaced (the oracle) on the real errors of tests/data and on generated
text built from the header's pieces and their near misses."""

from __future__ import annotations

import re

import pytest
from helpers.paths import DATA_DIR
from hypothesis import given, settings
from hypothesis import strategies as st

from pokayokay.hooks.capture import exit_header

ORACLE = re.compile(r"\AExit code (-?\d+)[ \t]*(?:\r?\n|\Z)")
PIECES = (
    "Exit code ", "Exit code", "exit code ", "Exit  code ", "-", "--", "0", "1", "127", "٣",
    "²", "٣٤", " ", "\t", "\r", "\n", "\r\n", "\n\r", "\x0b", "x", "Error", "",
)  # fmt: skip


def _oracle(error: str) -> tuple[int, int] | None:
    match = ORACLE.match(error)
    return None if match is None else (int(match.group(1)), match.end())


def test_the_real_errors_are_read_as_the_pattern_reads_them() -> None:
    texts = [p.read_text("utf-8") for p in sorted((DATA_DIR / "outputs").glob("*.txt"))]
    texts += [p.read_text("utf-8") for p in sorted(DATA_DIR.rglob("PostToolUseFailure*.json"))]
    assert len(texts) > 5
    for text in texts:
        for error in (text, f"Exit code 1\n{text}", f"Exit code 2 \r\n{text}", text[:40]):
            assert exit_header(error) == _oracle(error)


TEXTS = st.lists(st.sampled_from(PIECES), max_size=8).map("".join)


@given(head=TEXTS, tail=st.text(max_size=20))
@settings(max_examples=300, deadline=None)
def test_generated_errors_are_read_as_the_pattern_reads_them(head: str, tail: str) -> None:
    assert exit_header(head + tail) == _oracle(head + tail)
    assert exit_header("Exit code " + head + tail) == _oracle("Exit code " + head + tail)


@pytest.mark.slow
@given(head=TEXTS, tail=st.text(max_size=40))
@settings(max_examples=2500, deadline=None)
def test_generated_errors_are_read_as_the_pattern_reads_them_many(head: str, tail: str) -> None:
    assert exit_header("Exit code " + head + tail) == _oracle("Exit code " + head + tail)
