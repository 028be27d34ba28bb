"""``infra/spans.replace_spans``: the one splice of a text by spans, held to ``re.sub``."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from pokayokay.infra.spans import lower_in_place, replace_spans

_text = st.text(alphabet="abc<>/ İ\n", max_size=40)
_needle = st.text(alphabet="abc<>", min_size=1, max_size=3)


@given(_text, _needle, st.sampled_from(["", "[x]", "[private]"]))
def test_replacing_a_patterns_spans_is_its_sub(text: str, needle: str, by: str) -> None:
    pattern = re.compile(re.escape(needle))
    spans = [match.span() for match in pattern.finditer(text)]
    assert replace_spans(text, spans, by) == pattern.sub(by, text)
    assert replace_spans(text, iter(spans), by) == pattern.sub(by, text)  # any iterable


@given(_text)
def test_no_spans_leave_the_text_alone(text: str) -> None:
    assert replace_spans(text, [], "[x]") == text


@given(st.text(max_size=40) | st.text(alphabet="İiIKk\u212aςΣ<>x", max_size=40))
def test_the_lower_case_keeps_every_place(text: str) -> None:
    lower = lower_in_place(text)
    assert len(lower) == len(text)
    for kept, char in zip(lower, text, strict=True):  # the same letter, place for place
        assert kept == char or kept.casefold() == char.casefold()
        if char.isascii():
            assert kept == char.lower()
    if len(text.lower()) == len(text):
        assert lower == text.lower()
