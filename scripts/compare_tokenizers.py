"""Compare the hand-written WordPiece tokenizer (``pokayokay/recall/wordpiece.py``) with the
``tokenizers`` library's BERT WordPiece on the semantic model's vocabulary (issue 23, item 3;
decision 0098): the same ids on a corpus of prompts, notes and SKILL.md files? how fast?

    PYTHONPATH=/path/to/tokenizers .venv/bin/python scripts/compare_tokenizers.py

``tokenizers`` is not a dependency of pokayokay: install it anywhere (``pip install --target``)
and put it on ``PYTHONPATH`` for this measurement. The corpus is the train and dev prompts
(``tests/helpers/splits.py``), the labelled sets' notes, the catalog's SKILL.md files and a few
texts with accents, CJK, emoji, control characters and long words. The test split is not read.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from helpers import splits  # noqa: E402
from helpers.semantic import REAL_MODEL  # noqa: E402

from pokayokay.recall import wordpiece  # noqa: E402

MAX_TOKENS = 256
ODD = [
    "Café résumé naïve Ångström",
    "日本語のテキストと中文混合 mixed",
    "emoji 🚀🔥 and ZWJ 👩‍💻 sequences",
    "tab\there\x00nul\ufffdreplacement\u200bzero-width",
    "a" * 150 + " supercalifragilisticexpialidocious-" * 3,
    "C:\\Users\\me\\AppData\\Local\\Temp\\x.tmp and https://example.com/a?b=c&d=e#f",
    "Ünïcödé ÇÀPS and ﬁ ligature, Ⅻ numerals, ①②",
]


def corpus() -> list[str]:
    texts: list[str] = list(ODD)
    for folder, name, key in (*splits.RECALL_TRAIN, *splits.RECALL_DEV):
        texts += [r["q"] for r in json.loads((splits.DATA / folder / name).read_text())[key]]
    for name in (*splits.SKILLS_TRAIN, *splits.SKILLS_DEV):
        texts += [r["prompt"] for r in json.loads((splits.SKILLS_FOLDER / name).read_text())]
    for folder in ("recall_eval", "recall"):
        notes = json.loads((splits.DATA / folder / "learnings.json").read_text())["notes"]
        texts += [n["text"] for n in notes]
    texts += [
        p.read_text("utf-8") for p in sorted((splits.SKILLS_FOLDER / "skills").glob("*/SKILL.md"))
    ]
    return texts


def main() -> int:
    from tokenizers import BertWordPieceTokenizer

    vocab_file = REAL_MODEL / "vocab.txt"
    vocab = wordpiece.parse_vocab(vocab_file.read_text("utf-8"))
    library = BertWordPieceTokenizer(str(vocab_file), lowercase=True)
    library.enable_truncation(MAX_TOKENS)
    texts = corpus()
    start = time.perf_counter()
    ours = [wordpiece.encode(t, vocab, MAX_TOKENS) for t in texts]
    ours_s = time.perf_counter() - start
    start = time.perf_counter()
    theirs = [e.ids for e in library.encode_batch(texts)]
    batch_s = time.perf_counter() - start
    start = time.perf_counter()
    one_by_one = [library.encode(t).ids for t in texts]
    single_s = time.perf_counter() - start
    assert one_by_one == theirs
    differ = [(t, a, b) for t, a, b in zip(texts, ours, theirs, strict=True) if a != b]
    chars = sum(len(t) for t in texts)
    print(f"{len(texts)} texts, {chars} characters")
    print(f"same ids: {len(texts) - len(differ)} / {len(texts)}")
    for text, a, b in differ[:10]:
        print(f"  differs: {text[:70]!r}: {len(a)} vs {len(b)} ids")
    print(f"hand-written: {ours_s * 1000:.1f} ms ({ours_s / len(texts) * 1e6:.0f} µs a text)")
    print(f"tokenizers, one by one: {single_s * 1000:.1f} ms; batch: {batch_s * 1000:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
