"""The relevance room's one analyser (decision 0119): identifiers and file names split into
their words, so ``TestDispatch_AssignNearest`` meets "dispatch assign nearest" and
``dispatch.proto`` meets ``proto/``; bare numbers are no terms (measured: keeping them cost a
train set's silence for one dev prompt)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pokayokay.relevance import analyser

WORDS = st.lists(st.sampled_from(["dispatch", "assign", "nearest", "order", "cart", "user"]))


def test_identifiers_and_file_names_meet_their_words() -> None:
    terms = set(analyser.tokenize("TestDispatch_AssignNearest fails in proto/dispatch.proto"))
    assert {"dispatch", "assign", "nearest", "proto"} <= terms
    assert set(analyser.tokenize("dispatch assign nearest")) <= terms


@given(WORDS.filter(lambda w: len(w) >= 2))
def test_a_camel_case_identifier_holds_the_terms_of_its_words(words: list[str]) -> None:
    identifier = "".join(w.title() for w in words)
    snake = "_".join(words)
    plain = set(analyser.tokenize(" ".join(words)))
    assert plain <= set(analyser.tokenize(identifier))
    assert plain <= set(analyser.tokenize(snake))


def test_bare_numbers_are_no_terms_but_short_alphanumerics_are() -> None:
    assert analyser.tokenize("s3 e2e i18n 2026 42 1.23") == ["s3", "e2e", "i18n"]
