"""The semantic model's tokenizer (pokayokay.recall.wordpiece): BERT's uncased WordPiece by hand.
The ids of the real vocabulary are checked against the reference tokenizer in
test_semantic_model.py; here, the rules on a small vocabulary, and invariants."""

from __future__ import annotations

import string

from helpers.semantic import SPECIALS, WORDS
from hypothesis import given
from hypothesis import strategies as st

from pokayokay.recall import wordpiece

VOCAB = {token: i for i, token in enumerate(SPECIALS + WORDS)}


def test_words_split_at_punctuation_and_drop_case_and_accents() -> None:
    assert wordpiece.words("Don't deploy search on Fridays!!!") == [
        "don", "'", "t", "deploy", "search", "on", "fridays", "!", "!", "!",
    ]  # fmt: skip
    assert wordpiece.words("Café RÉSUMÉ naïve") == ["cafe", "resume", "naive"]
    assert wordpiece.words("run `.venv/bin/python -m pytest`") == [
        "run", "`", ".", "venv", "/", "bin", "/", "python", "-", "m", "pytest", "`",
    ]  # fmt: skip


def test_cjk_ideographs_are_words_of_their_own_and_control_characters_vanish() -> None:
    # Kana are not ideographs, and lose their voicing mark with the accents (as BERT's do).
    assert wordpiece.words("東京で会議") == ["東", "京", "て", "会", "議"]
    # NUL, a bell, the replacement character and a zero-width space are dropped; every kind of
    # white space separates words.
    assert wordpiece.words("a\x00b\x07c\ufffdd\u200be\u00a0f\u2003g\th") == ["abcde", "f", "g", "h"]


def test_pieces_are_the_longest_vocabulary_entries_first() -> None:
    assert wordpiece.pieces("unaffable", VOCAB) == ["un", "##aff", "##able"]
    assert wordpiece.pieces("fridays", VOCAB) == ["friday", "##s"]
    assert wordpiece.pieces("uploading", VOCAB) == ["upload", "##ing"]
    assert wordpiece.pieces("unaff", {**VOCAB, "unaff": 99}) == ["unaff"]


def test_a_word_that_cannot_be_cut_or_is_too_long_is_unknown() -> None:
    assert wordpiece.pieces("runx", VOCAB) == ["[UNK]"]  # "##x" is not in the vocabulary
    assert wordpiece.pieces("s" * (wordpiece.MAX_WORD_CHARS + 1), {"s": 1, "##s": 2}) == ["[UNK]"]
    assert wordpiece.pieces("s" * wordpiece.MAX_WORD_CHARS, {"s": 1, "##s": 2}) == ["s"] + [
        "##s"
    ] * (wordpiece.MAX_WORD_CHARS - 1)


def test_encode_wraps_in_cls_and_sep_and_cuts_at_the_limit() -> None:
    ids = wordpiece.encode("Run the test suite with python", VOCAB, 32)
    assert ids == [VOCAB[t] for t in ["[CLS]", "run", "the", "test", "suite", "with", "python",
                                      "[SEP]"]]  # fmt: skip
    assert wordpiece.encode("run " * 50, VOCAB, 8) == [VOCAB["[CLS]"]] + [VOCAB["run"]] * 6 + [
        VOCAB["[SEP]"]
    ]
    assert wordpiece.encode("", VOCAB, 8) == [VOCAB["[CLS]"], VOCAB["[SEP]"]]


def test_vocabulary_ids_are_line_numbers() -> None:
    vocab = wordpiece.parse_vocab("[PAD]\n[unused0]\n[UNK]\nthe\n##s\n")
    assert vocab == {"[PAD]": 0, "[unused0]": 1, "[UNK]": 2, "the": 3, "##s": 4}


@given(st.text(max_size=300), st.integers(min_value=2, max_value=40))
def test_encode_always_gives_a_framed_sequence_within_the_limit(text: str, limit: int) -> None:
    ids = wordpiece.encode(text, VOCAB, limit)
    assert ids[0] == VOCAB["[CLS]"] and ids[-1] == VOCAB["[SEP]"]
    assert 2 <= len(ids) <= limit
    assert all(0 <= i < len(VOCAB) for i in ids)


@given(st.text(max_size=300))
def test_words_are_never_empty_nor_hold_white_space(text: str) -> None:
    for word in wordpiece.words(text):
        assert word and not any(ch.isspace() for ch in word)
        if len(word) > 1:  # punctuation always stands alone
            assert not any(ch in string.punctuation for ch in word)
