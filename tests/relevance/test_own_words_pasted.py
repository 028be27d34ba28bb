"""The one pasted-output detector (pokayokay/relevance/own_words.py, decision 0134), on what real
tools printed: pytest, jest, cargo test, go test -v, tsc and ruff runs captured from the tools
themselves (tests/data/outputs/). A turn is pasted output only when no words of the person's
remain; a request above a paste is the person's and is read; skill suggestion and recall set
aside the same lines."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from helpers.paths import DATA_DIR
from helpers.relevance_split import Lab, suggested_skills
from hypothesis import given, settings
from hypothesis import strategies as st

from pokayokay.recall.turns import pasted_output, recall_text, suggest_text
from pokayokay.relevance.own_words import line_spans, only_output, own_words, set_aside

OUTPUTS = DATA_DIR / "outputs"
# Each produced by running the tool on a small project with failing tests or type errors.
REAL = (
    "pytest_two_failures.txt",
    "jest_two_failures.txt",
    "cargo_test_two_failures.txt",
    "go_test_v_two_failures.txt",
    "tsc_two_errors.txt",
    "ruff_full.txt",
)
SKILLS = DATA_DIR / "relevance_test2" / "skills"  # a dev set's real skills (tests/data/SPLITS.md)


def _real(name: str) -> str:
    return (OUTPUTS / name).read_text("utf-8")


_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=9)
_SENTENCE = st.lists(_WORD, min_size=3, max_size=12).map(" ".join)
_REQUEST = st.lists(_SENTENCE, min_size=1, max_size=3).map("\n".join)


@pytest.mark.parametrize("name", REAL)
def test_a_real_run_alone_is_pasted_output_and_earns_nothing(name: str) -> None:
    output = _real(name)
    assert only_output(output) and pasted_output(output)
    assert recall_text(output) == "" == suggest_text(output)
    assert own_words(output).text == ""
    assert only_output("Exit code 1\n" + output) is False  # a line not set aside is read


@pytest.mark.parametrize("name", REAL)
def test_a_request_above_a_real_run_is_the_persons_and_only_it(name: str) -> None:
    request = "these started failing after the discount refactor, find out why"
    for joint in ("\n", "\n\n"):
        prompt = request + joint + _real(name)
        assert not pasted_output(prompt)
        assert recall_text(prompt) == prompt == suggest_text(prompt)
        found = own_words(prompt)
        assert found.text == request and found.pasted


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(REAL), min_size=1, max_size=3), _REQUEST)
def test_runs_pasted_together_are_output_and_the_request_above_them_is_not(
    names: list[str], request: str
) -> None:
    pasted = "\n\n".join(_real(n) for n in names)
    assert only_output(pasted)
    prompt = request + "\n\n" + pasted
    lines = line_spans(prompt)
    aside = set_aside(prompt, lines)
    kept = [prompt[a:b] for (a, b), skipped in zip(lines, aside, strict=True) if not skipped]
    assert [line for line in kept if line.strip()] == request.split("\n")


@settings(max_examples=200, deadline=None)
@given(st.lists(_SENTENCE, min_size=1, max_size=8))
def test_prose_is_never_set_aside(lines: list[str]) -> None:
    prompt = "\n".join(lines)
    assert not any(set_aside(prompt))
    assert not only_output(prompt)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",))))
def test_one_line_is_never_output_and_every_line_is_judged(prompt: str) -> None:
    lines = line_spans(prompt)
    aside = set_aside(prompt, lines)
    assert len(aside) == len(lines)
    if "\n" not in prompt.strip() and "\r" not in prompt:
        assert not only_output(prompt)


def test_recall_and_skill_suggestion_set_aside_the_same_lines() -> None:
    prompt = "why does the total come out negative?\n" + _real("jest_two_failures.txt")
    found = own_words(prompt)
    aside = set_aside(prompt)
    kept = "\n".join(
        prompt[a:b] for (a, b), skipped in zip(line_spans(prompt), aside, strict=True)
        if not skipped and prompt[a:b].strip()
    )  # fmt: skip
    assert found.text == kept == "why does the total come out negative?"


def test_a_debugging_prompt_over_a_real_jest_failure_is_not_a_code_review() -> None:
    """The case of issue 23's brief: jest's indented ``expect(received)`` block under its ``●``
    header read as the person's words gave /receiving-code-review (matches received)."""
    prompt = "the cart discount is wrong since yesterday, no idea why. here's the run:\n\n" + _real(
        "jest_two_failures.txt"
    )
    assert "received" not in own_words(prompt).text
    with tempfile.TemporaryDirectory(prefix="pokayokay-pasted-") as folder:
        lab = Lab(Path(folder))
        lab.add_skills(SKILLS)
        assert "receiving-code-review" not in suggested_skills(lab.prompt(prompt))
        for name in REAL:
            assert suggested_skills(lab.prompt(_real(name))) == []
