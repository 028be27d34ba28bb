"""``infra/spans.replace_spans``: the one splice of a text by spans, held to ``re.sub``."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from pokayokay.infra.spans import replace_spans

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
