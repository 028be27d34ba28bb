"""Skill suggestion reads only the person's own words (issue 23, item 4; decision 0121): code
spans, fenced blocks and pasted output are set aside by the text's structure, the prompt itself
is never rewritten, and the registered hook stays silent on a pasted test summary."""

from __future__ import annotations

import tempfile
from pathlib import Path

from helpers.paths import DATA_DIR
from helpers.relevance_split import Lab, suggested_skills
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pokayokay.relevance.own_words import own_words
from pokayokay.skills.catalog import catalog_from_folder
from pokayokay.skills.suggest import suggest

SKILLS = DATA_DIR / "relevance_test2" / "skills"  # a dev set's real skills (tests/data/SPLITS.md)

_plain = st.text(alphabet="abcdefghij ,.?", min_size=1, max_size=30)
_code = st.text(alphabet="KLMNOP_()", min_size=1, max_size=12)
_anything = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)))


@settings(max_examples=200, deadline=None)
@given(_anything)
def test_spans_are_in_order_disjoint_and_the_prompt_untouched(prompt: str) -> None:
    before = str(prompt)
    found = own_words(prompt)
    assert found.prompt is prompt and prompt == before
    last = 0
    for a, b in found.spans:
        assert last <= a < b <= len(prompt)
        assert prompt[a:b].strip()
        last = b
    assert found.text == "\n".join(prompt[a:b] for a, b in found.spans)


@settings(max_examples=200, deadline=None)
@given(_anything)
def test_every_character_is_either_own_words_or_set_aside(prompt: str) -> None:
    found = own_words(prompt)
    kept = "".join(found.text.split()) + "".join(found.aside.split())
    assert sorted(kept) == sorted("".join(prompt.split()))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_plain, _code), min_size=1, max_size=5), _plain)
def test_code_spans_are_never_own_words(parts: list[tuple[str, str]], tail: str) -> None:
    prompt = "".join(f"{words}`{code}`" for words, code in parts) + tail
    found = own_words(prompt)
    assert not set(found.text) & set("KLMNOP_()`")
    assert all(code in found.aside for _words, code in parts)
    assert found.code


@settings(max_examples=200, deadline=None)
@given(_plain)
def test_a_one_line_sentence_is_all_own_words(sentence: str) -> None:
    found = own_words(sentence)
    assert found.text == (sentence if sentence.strip() else "")
    assert not found.pasted


def test_a_pasted_trace_is_set_aside_and_the_sentence_kept() -> None:
    prompt = (
        "KeyError: 'total'\n"
        '  File "shop/cart.py", line 40, in checkout\n'
        "    return order['total']\n"
        "this only happens for guest users, why"
    )
    found = own_words(prompt)
    assert found.text == "this only happens for guest users, why"
    assert found.pasted


def test_a_runner_summary_and_a_fenced_block_are_not_own_words() -> None:
    summary = (
        " FAIL  web/cart.test.js\n PASS  web/user.test.js\n\n"
        "Test Suites: 1 failed, 1 passed, 2 total\nTests:       3 failed, 40 passed, 43 total\n"
    )
    assert own_words(summary).text == ""
    fenced = "make this faster\n```python\ndef total(items):\n    return sum(items)\n```\nplease"
    found = own_words(fenced)
    assert found.text == "make this faster\nplease" and found.pasted


def test_a_word_only_in_code_suggests_no_skill() -> None:
    catalog = catalog_from_folder(SKILLS)
    assert not suggest("pass the `theme` prop down to the `Card` in the list", catalog).suggestions
    assert not suggest("is `structuredClone` available in node 18?", catalog).suggestions
    # a dev prompt (relevance_test2) that got /finishing-a-development-branch for `test`
    prompt = "make the `test` script in package.json also pass --coverage"
    assert not suggest(prompt, catalog).text()


def test_the_registered_hook_is_silent_on_a_pasted_test_run() -> None:
    summary = (
        "=================== test session starts ===================\n"
        "collected 12 items\n\n"
        "tests/test_cart.py ............                 [100%]\n\n"
        "=================== 12 passed in 0.31s ===================\n"
    )
    jest = " PASS  web/cart.test.js\n\nTests:       9 passed, 9 total\nTime:        1.2 s\n"
    with tempfile.TemporaryDirectory(prefix="pokayokay-own-words-") as folder:
        lab = Lab(Path(folder))
        lab.add_skills(SKILLS)
        assert suggested_skills(lab.prompt(summary)) == []
        assert suggested_skills(lab.prompt(jest)) == []
        # the person's words next to the pasted lines still reach a skill
        shown = suggested_skills(lab.prompt("make an animated gif for slack of our logo\n" + jest))
        assert shown == ["slack-gif-creator"]


_FENCE_PIECES = ["```", "~~~", "``", "`", "~~", "~", "py", " ", "\t", "\n", "\r\n", "a b", "$ ls"]
_fences = st.lists(st.sampled_from(_FENCE_PIECES), max_size=12).map("".join)


@settings(max_examples=600, deadline=None)
@given(_fences | _anything)
@example("  ```py\n~~~~\n ``` x")
def test_each_line_opens_the_fence_the_pattern_found(prompt: str) -> None:
    """:func:`~pokayokay.relevance.own_words.fence_at` reads each line as the fence pattern
    ``[ \\t]*(`{3,}|~{3,})`` matched on it found (its oracle), a line at a time."""
    import re

    from pokayokay.relevance import own_words as module

    fence = re.compile(r"[ \t]*(`{3,}|~{3,})")
    for a, b in module.line_spans(prompt):
        found = fence.match(prompt, a, b)
        assert module.fence_at(prompt, a, b) == (None if found is None else found[1])
