"""The relevance room's one analyser (decision 0119): identifiers and file names split into
their words, so ``TestDispatch_AssignNearest`` meets "dispatch assign nearest" and
``dispatch.proto`` meets ``proto/``; bare numbers are no terms (measured: keeping them cost a
train set's silence for one dev prompt)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pokayokay.relevance import analyser, skill_terms

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


@pytest.mark.parametrize("table", [analyser.SUFFIXES, skill_terms.SUFFIXES])
def test_no_row_of_a_suffix_table_hides_behind_an_earlier_one(
    table: tuple[tuple[str, str], ...],
) -> None:
    """The first row that matches wins: a row whose suffix ends in an earlier row's suffix
    (``-isations`` after ``-ations``) would never be tried. So the skill table may put the
    analyser's rows after its -ise forms in any order and stem as one written out in full."""
    suffixes = [suffix for suffix, _ in table]
    assert len(set(suffixes)) == len(suffixes)
    for i, earlier in enumerate(suffixes):
        assert not any(later.endswith(earlier) for later in suffixes[i + 1 :]), earlier


@given(st.text(alphabet="abcdefghklmnoprstuvw", min_size=3, max_size=8))
def test_skill_matching_stems_british_and_american_spellings_alike(base: str) -> None:
    """The skill table's -ise rows: ``organising`` meets ``organizing``, ``-isation(s)`` meets
    ``-ization(s)``."""
    for ise, ize in [("isations", "izations"), ("isation", "ization"), ("ising", "izing"),
                     ("ised", "ized"), ("ises", "izes"), ("ise", "ize")]:  # fmt: skip
        assert skill_terms.stem(base + ise) == skill_terms.stem(base + ize), (base, ise)
