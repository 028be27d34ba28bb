"""The recall index's columns as a prompt reads them from the cache (decision 0169): the weights'
clamp and the postings' check take C-level passes, with the answers of the per-item code they
replace, for any value the cache can hold."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pokayokay.relevance.note_documents import clamped_weights
from pokayokay.relevance.note_index import INDEX_FORMAT, Index
from pokayokay.relevance.postings import packed_posting, posting_length, unpacked_posting

WEIGHTS = st.lists(
    st.one_of(
        st.floats(min_value=0.0, max_value=1.0),
        st.floats(allow_nan=True, allow_infinity=True),
        st.sampled_from([0.0, -0.0, 1.0, math.nan, math.inf, -math.inf, 1.0000000000000002]),
    ),
    max_size=12,
)


def _exact(values: list[float]) -> list[tuple[str, str]]:
    # repr tells -0.0 from 0.0 and shows a NaN; the type too, in case an int slipped in
    return [(type(v).__name__, repr(v)) for v in values]


@settings(max_examples=300, deadline=None)
@given(weights=WEIGHTS)
def test_the_clamp_gives_what_min_and_max_give_each_weight(weights: list[float]) -> None:
    expected = [min(1.0, max(0.0, w)) for w in weights]
    got = clamped_weights(weights)
    assert _exact(got) == _exact(expected)
    assert got is not weights  # a new list: the cache's stays as read


def _index(postings: dict[str, bytes], docs: int = 3) -> Index:
    data = {
        "format": INDEX_FORMAT, "postings": postings, "lengths": [1] * docs, "norms": [1.0] * docs,
        "cnorms": [0.0] * docs, "weights": [0.5, -0.0, 2.0][:docs], "rare": 2.0,
    }  # fmt: skip
    return Index.from_data(data, rows=["[]"] * docs)


def test_the_index_clamps_the_weights_it_reads() -> None:
    assert _exact(_index({}).weights) == _exact([0.5, 0.0, 1.0])


@pytest.mark.parametrize(
    ("numbers", "ok"),
    [([0, 1, 2, 3], True), ([2, 1], True), ([3, 1], False), ([0, 1, 2], False),
     ([1, 2, 0, 1, 3, 1], False), ([], True)],
)  # fmt: skip
def test_a_posting_naming_a_note_the_index_lacks_is_refused(numbers: list[int], ok: bool) -> None:
    index = _index({"term": packed_posting(numbers)})
    if ok:
        assert index.posting("term") == numbers
    else:
        with pytest.raises(ValueError, match="inconsistent recall index"):
            index.posting("term")


@pytest.mark.parametrize("cut", [1, 3, 4, 7])
def test_a_posting_cut_short_is_refused(cut: int) -> None:
    index = _index({"term": packed_posting([0, 1, 2, 3])[:-cut]})
    with pytest.raises(ValueError, match="inconsistent recall index"):
        index.posting("term")


def test_a_posting_of_another_format_refuses_the_whole_index() -> None:
    with pytest.raises(ValueError, match="inconsistent recall index"):
        _index({"term": "0,1"})  # type: ignore[dict-item]  # format 6 kept text


@settings(max_examples=200, deadline=None)
@given(
    pairs=st.lists(
        st.tuples(st.integers(0, 2**32 - 1), st.integers(1, 2**32 - 1)), max_size=40
    )
)
def test_a_packed_posting_reads_back_as_it_was_with_its_length(
    pairs: list[tuple[int, int]],
) -> None:
    numbers = [x for pair in pairs for x in pair]
    data = packed_posting(numbers)
    assert unpacked_posting(data) == numbers
    assert posting_length(data) == posting_length(numbers) == len(pairs)
