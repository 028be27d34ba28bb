"""The tokenizer of the semantic model (all-MiniLM-L6-v2): BERT's uncased WordPiece.

Pure: text and a vocabulary in, token ids out. What the model's ``tokenizer.json`` declares, done
by hand so that the ``semantic`` extra needs no tokenizer package: the text is cleaned (NUL, the
replacement character and control characters dropped, every kind of white space made a space),
CJK ideographs become words of their own, accents are stripped (NFD, combining marks dropped) and
the text lower-cased; words split at white space and around every punctuation character (ASCII
symbols count as punctuation); each word is then cut greedily into the longest vocabulary entries,
continuations prefixed ``##``; a word that cannot be cut, or longer than
:data:`MAX_WORD_CHARS`, is ``[UNK]``. ``tests/recall/test_semantic_model.py`` checks the ids
against the reference tokenizer's, recorded in ``tests/data/semantic/golden.json``.
"""

from __future__ import annotations

import unicodedata

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

MAX_WORD_CHARS = 100
CLS, SEP, UNK, PAD = "[CLS]", "[SEP]", "[UNK]", "[PAD]"
PREFIX = "##"

# CJK Unified Ideographs and their extensions (the blocks BERT treats as one-character words).
_CJK = (
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B820, 0x2CEAF),
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)


def _is_cjk(cp: int) -> bool:
    return any(low <= cp <= high for low, high in _CJK)


def _is_space(ch: str) -> bool:
    return ch in " \t\n\r" or unicodedata.category(ch) == "Zs"


def _is_control(ch: str) -> bool:
    if ch in "\t\n\r":
        return False
    return unicodedata.category(ch).startswith("C")


def _is_punct(ch: str) -> bool:
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def normalise(text: str) -> str:
    """Cleaned, CJK-spaced, accent-stripped, lower-cased text (BERT's normaliser)."""
    out: list[str] = []
    for ch in text:
        cp = ord(ch)
        if cp == 0 or cp == 0xFFFD or _is_control(ch):
            continue
        if _is_space(ch):
            out.append(" ")
        elif _is_cjk(cp):
            out.append(f" {ch} ")
        else:
            out.append(ch)
    decomposed = unicodedata.normalize("NFD", "".join(out))
    stripped = "".join(ch for ch in decomposed if unicodedata.category(ch) != "Mn")
    return stripped.lower()


def words(text: str) -> list[str]:
    """The normalised text split at white space and around punctuation."""
    found: list[str] = []
    for chunk in normalise(text).split():
        start = 0
        for i, ch in enumerate(chunk):
            if _is_punct(ch):
                if i > start:
                    found.append(chunk[start:i])
                found.append(ch)
                start = i + 1
        if start < len(chunk):
            found.append(chunk[start:])
    return found


def pieces(word: str, vocab: Mapping[str, int]) -> list[str]:
    """``word`` cut greedily into the longest vocabulary entries (``[UNK]`` when it cannot be)."""
    if len(word) > MAX_WORD_CHARS:
        return [UNK]
    out: list[str] = []
    start = 0
    while start < len(word):
        end = len(word)
        piece = None
        while start < end:
            candidate = word[start:end] if start == 0 else PREFIX + word[start:end]
            if candidate in vocab:
                piece = candidate
                break
            end -= 1
        if piece is None:
            return [UNK]
        out.append(piece)
        start = end
    return out


def encode(text: str, vocab: Mapping[str, int], max_tokens: int) -> list[int]:
    """``[CLS] pieces... [SEP]`` as ids, cut to ``max_tokens`` in all."""
    ids = [vocab[CLS]]
    unk = vocab[UNK]
    room = max_tokens - 1
    for word in words(text):
        for piece in pieces(word, vocab):
            if len(ids) >= room:
                break
            ids.append(vocab.get(piece, unk))
        if len(ids) >= room:
            break
    ids.append(vocab[SEP])
    return ids


def parse_vocab(text: str) -> dict[str, int]:
    """``vocab.txt``: one token a line, its id the line number."""
    return {line: i for i, line in enumerate(text.split("\n")) if line}
