"""The relevance room's one analyser (decision 0119): numbers and versions are terms, so "upgrade
to Node 22" meets a note naming "Node 22"; identifiers and file names split into their words."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pokayokay.relevance import analyser


def test_numbers_of_two_to_four_digits_are_terms_and_others_are_not() -> None:
    assert analyser.tokenize("s3 e2e i18n 2026 42 7 123456") == ["s3", "e2e", "i18n", "2026", "42"]
    assert "22" in analyser.tokenize("upgrade to Node 22")
    assert "23" in analyser.tokenize("move us to go 1.23")


@given(st.integers(min_value=10, max_value=9999), st.sampled_from(["node", "go", "port", "v"]))
def test_a_number_a_prompt_and_a_note_both_name_is_a_shared_term(number: int, word: str) -> None:
    prompt = set(analyser.tokenize(f"please bump {word} to {number}"))
    note = set(analyser.tokenize(f"We pin {word.title()} {number} in CI."))
    assert str(number) in prompt & note


def test_identifiers_and_file_names_meet_their_words() -> None:
    terms = set(analyser.tokenize("TestDispatch_AssignNearest fails in proto/dispatch.proto"))
    assert {"dispatch", "assign", "nearest", "proto"} <= terms
    assert set(analyser.tokenize("dispatch assign nearest")) <= terms
