"""The recall index cache's number columns are lists of numbers (format 4): nothing to parse
when a prompt loads it, every column type-checked, and a cache of the earlier text format is
rebuilt rather than misread."""

from __future__ import annotations

import marshal
import math
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pokayokay.infra import packed
from pokayokay.learnings import model as learnings
from pokayokay.learnings.topics import topic_file
from pokayokay.recall import entries as recall_entries
from pokayokay.recall import sources as recall_sources
from pokayokay.recall.cache_io import read_index_file, save_index
from pokayokay.recall.sources import INDEX_FILE, load
from pokayokay.relevance import concepts, vocabulary
from pokayokay.relevance.note_index import INDEX_FORMAT, Document, Index
from pokayokay.safety.sanitize import excerpt

NOTES = [
    "Never run alembic upgrade head against the staging database; use make migrate-staging.",
    "The Stripe webhook signing secret rotates monthly: read it from the vault, not from .env.",
    "Playwright end-to-end tests need npm run build first or they hit a stale bundle.",
]


def write_learning(memory: Path, text: str) -> Path:
    memory.mkdir(parents=True, exist_ok=True)
    name = learnings.make_name(text)
    note = learnings.Learning(
        name=name, description=excerpt(text, learnings.DESCRIPTION_MAX), text=text,
        category="patterns", hash=learnings.identity(text),
    )  # fmt: skip
    path = memory / learnings.file_name_for(name)
    path.write_text(topic_file.render(note), "utf-8")
    return path


def small_index() -> Index:
    docs = [
        Document("a", "learning", NOTES[0], weight=1),  # an int weight is saved as a float
        Document("b", "learning", NOTES[1], weight=0.5),
        Document("c", "decision", NOTES[2]),
    ]
    return Index.build(docs)


def test_columns_are_saved_as_numbers_and_answer_alike() -> None:
    index = small_index()
    data = index.to_data()
    assert data["format"] == INDEX_FORMAT
    assert [type(x) for x in data["lengths"]] == [int] * 3
    for column in ("norms", "cnorms", "weights"):
        assert [type(x) for x in data[column]] == [float] * 3
    assert data["weights"] == [1.0, 0.5, 1.0]
    again = Index.from_data(marshal.loads(marshal.dumps(data)))
    for query in ("rotate the stripe webhook secret", "staging migration with alembic"):
        assert [(h.doc.id, h.score) for h in again.search(query)] == [
            (h.doc.id, h.score) for h in index.search(query)
        ]


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("lengths", ["12", 3, 4]),  # text where a number belongs
        ("lengths", [True, 3, 4]),  # bool is not a count
        ("lengths", [1.5, 3, 4]),
        ("norms", [1.0, "2.0", 3.0]),
        ("cnorms", [0.0, None, 0.0]),
        ("weights", [1.0, 1, 0.5]),
        ("norms", [1.0, 2.0]),  # one short
        ("norms", "1.0,2.0,3.0"),  # the text columns of format 3
    ],
)
def test_a_damaged_column_is_refused(column: str, value: Any) -> None:
    data = small_index().to_data()
    data[column] = value
    with pytest.raises(ValueError):
        Index.from_data(data)


def test_weights_are_kept_within_zero_and_one() -> None:
    data = small_index().to_data()
    data["weights"] = [-0.5, 2.0, math.nan]
    assert Index.from_data(data).weights == [0.0, 1.0, 0.0]


def test_a_cache_of_the_earlier_format_is_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory, project, state = tmp_path / "memory", tmp_path / "project", tmp_path / "state"
    project.mkdir()
    for text in NOTES:
        write_learning(memory, text)
    fresh = load(memory, project, state).index
    assert fresh is not None and len(fresh) == 3
    # The file as the previous version wrote it: same fingerprint, number columns as text.
    path = state / INDEX_FILE
    data = packed.load(path)
    old = data["index"]
    old.update(
        format=3,
        lengths=",".join(map(str, old["lengths"])),
        **{c: ",".join(map(repr, old[c])) for c in ("norms", "cnorms", "weights")},
    )
    packed.save(path, data)
    parsed: list[str] = []
    real = recall_entries.read_learning

    def counting(file: str, name: str) -> Any:
        parsed.append(name)
        return real(file, name)

    monkeypatch.setattr(recall_entries, "read_learning", counting)
    again = load(memory, project, state).index
    assert again is not None and sorted(d.text for d in again.docs) == sorted(
        d.text for d in fresh.docs
    )
    rewritten = packed.load(path)["index"]
    assert rewritten["format"] == INDEX_FORMAT and isinstance(rewritten["norms"], list)
    parsed.clear()
    assert len(load(memory, project, state).index or []) == 3
    assert parsed == []  # the rewritten cache is used as it is


# --------------------------------------------------------------------------------------------
# The postings sit in buckets in the file's tail (decision 0187): a prompt reads the buckets of
# its own terms, and an index read from the file is saved again with its buckets as they were.

TERMS = st.text(st.characters(blacklist_categories=["Cs"]), min_size=1, max_size=12)


@settings(max_examples=60, deadline=None)
@given(
    postings=st.dictionaries(
        TERMS, st.lists(st.tuples(st.integers(0, 4), st.integers(1, 9)), min_size=1, max_size=4),
        max_size=80,
    ),
    unknown=st.lists(TERMS, max_size=5),
)
def test_the_buckets_give_every_posting_back_and_nothing_else(
    postings: dict[str, list[tuple[int, int]]], unknown: list[str]
) -> None:
    flat = {t: [x for pair in p for x in pair] for t, p in postings.items()}
    index = Index(
        [Document(str(i), "learning", f"note {i}") for i in range(5)],
        [1] * 5, [1.0] * 5, dict(flat), [1.0] * 5, None, [0.0] * 5,
    )  # fmt: skip
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, INDEX_FILE)
        save_index(path, {"fingerprint": "f"}, index, "")
        found = read_index_file(path)
        assert found is not None
        data, rows, _stamps = found
        again = Index.from_data(data["index"], rows)
        assert again.postings == {}  # nothing read yet
        assert all(again.posting(t) == p for t, p in flat.items())
        assert all(again.posting(t) == [] for t in unknown if t not in flat)
        assert sorted(again.terms()) == sorted(flat)
        assert again.rare_idf() == index.rare_idf()


def test_an_index_read_from_its_file_is_saved_again_with_the_same_buckets(
    tmp_path: Path,
) -> None:
    index = small_index()
    first, second = str(tmp_path / "a"), str(tmp_path / "b")
    save_index(first, {"fingerprint": "f"}, index, "stamps")
    found = read_index_file(first)
    assert found is not None
    read = Index.from_data(found[0]["index"], found[1])
    read.posting(next(iter(index.postings)))  # one bucket read, the rest not
    save_index(second, {"fingerprint": "f"}, read, "stamps")
    again = read_index_file(second)
    assert again is not None
    assert again[1].postings.blob() == found[1].postings.blob()
    copy = Index.from_data(again[0]["index"], again[1])
    assert all(copy.posting(t) == index.posting(t) for t in index.postings)
    assert copy.rare_idf() == index.rare_idf()


@pytest.mark.parametrize("cut", [1, 4, 9])
def test_a_file_whose_buckets_do_not_fill_its_tail_is_no_index(tmp_path: Path, cut: int) -> None:
    path = str(tmp_path / "index")
    save_index(path, {"fingerprint": "f"}, small_index(), "")
    data = packed.load(path)
    buckets = bytearray(data["index"]["buckets"])
    last = int.from_bytes(buckets[-4:], sys.byteorder)
    buckets[-4:] = (last - cut).to_bytes(4, sys.byteorder)
    found = packed.load_head(path)
    assert found is not None
    head, tail = found
    head["index"]["buckets"] = bytes(buckets)
    packed.save(path, head, tail.read(0, tail.size))
    assert read_index_file(path) is None


# --------------------------------------------------------------------------------------------
# The concept table travels in the index cache: a prompt does not parse it again.


def fresh_table(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setattr(concepts, "_table", None)
    return concepts._load()


def test_the_concept_table_round_trips_through_marshal(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed = fresh_table(monkeypatch)
    saved = marshal.loads(marshal.dumps(concepts.table_data()))
    text = "the checkout total is wrong after the stripe webhook retries in staging"
    expected = concepts.evoked(text)
    assert expected  # the sentence evokes concepts: the comparison below means something
    monkeypatch.setattr(concepts, "_table", None)
    assert concepts.use_table_data(saved)
    assert concepts._table is not None and concepts._table is not parsed
    assert concepts._table.words == parsed.words and concepts._table.phrases == parsed.phrases
    assert concepts._table.longest == parsed.longest
    assert concepts.evoked(text) == expected


@pytest.mark.parametrize(
    "data",
    [
        None,
        ["another version of the table", {}, {}],  # parsed from other text: refused
        (vocabulary.table_text("concepts"), [], {}),
        (vocabulary.table_text("concepts"), {}),
    ],
)
def test_a_table_from_other_text_or_damaged_is_not_used(
    data: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(concepts, "_table", None)
    assert not concepts.use_table_data(data)
    assert concepts._table is None  # parsed as usual when first needed
    assert concepts.concepts("resize the image") == [("image", "resize"), ("image", "image")]


def test_the_index_cache_hands_the_table_to_the_next_prompt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory, project, state = tmp_path / "memory", tmp_path / "project", tmp_path / "state"
    project.mkdir()
    for text in NOTES:
        write_learning(memory, text)
    assert load(memory, project, state).index is not None
    parsed = fresh_table(monkeypatch)
    monkeypatch.setattr(concepts, "_table", None)
    loaded = recall_sources.load(memory, project, state, quick=True)
    assert loaded.index is not None
    assert concepts._table is not None and concepts._table is not parsed  # taken, not parsed
    assert concepts._table.words == parsed.words and concepts._table.phrases == parsed.phrases


def test_a_quick_prompt_reads_no_vocabulary_file_and_an_edited_table_is_parsed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cached table is keyed by the concept file's stamp (decision 0129): a quick prompt
    reads no vocabulary file to check it; a table file edited since (another stamp) is parsed
    again, and the index file's head is written again with it, the index left as it was."""
    import os
    import shutil

    memory, project, state = tmp_path / "memory", tmp_path / "project", tmp_path / "state"
    project.mkdir()
    for text in NOTES:
        write_learning(memory, text)
    assert load(memory, project, state).index is not None
    os.utime(memory, ns=(1, 1))  # settled: the quick key is kept
    assert load(memory, project, state).index is not None
    before = read_index_file(str(state / INDEX_FILE))[0]  # the quick key from its own file
    assert before["quick"] is not None and before["concepts"][0] == vocabulary.stamp("concepts")

    monkeypatch.setattr(concepts, "_table", None)
    read: list[str] = []
    real_entries = vocabulary.entries
    with monkeypatch.context() as reading:
        reading.setattr(vocabulary, "_read", {})
        reading.setattr(vocabulary, "entries", lambda name: read.append(name) or real_entries(name))
        loaded = recall_sources.load(memory, project, state, quick=True)
        assert loaded.quick and loaded.index is not None
        assert concepts.concepts("resize the image") == [("image", "resize"), ("image", "image")]
    assert read == []  # the concept table taken from the cache, its file not even read

    edited = tmp_path / "vocabulary"
    shutil.copytree(os.path.dirname(vocabulary.path("concepts")), edited)
    with (edited / "concepts.tsv").open("a", encoding="utf-8") as fh:
        fh.write("zebra\tword\tquagga\tunattested\t\t\n")
    monkeypatch.setattr(concepts, "_table", None)
    with monkeypatch.context() as changed:
        changed.setattr(vocabulary, "_FOLDER", str(edited))
        changed.setattr(vocabulary, "_read", {})
        changed.setattr(vocabulary, "_texts", {})
        loaded = recall_sources.load(memory, project, state, quick=True)
        assert loaded.quick and loaded.index is not None
        assert concepts.concepts("a quagga") == [("zebra", "quagga")]  # parsed from the edit
        after = packed.load(state / INDEX_FILE)
        assert after["concepts"][0] == vocabulary.stamp("concepts") != before["concepts"][0]
        assert "quagga" in after["concepts"][1]
    # the head rewritten with the new table; its token is drawn afresh by every write (0135)
    assert after["token"] != before["token"]
    assert {k: v for k, v in after.items() if k not in ("concepts", "token")} == {
        k: v for k, v in before.items() if k not in ("concepts", "token")
    }
    monkeypatch.setattr(concepts, "_table", None)
    assert recall_sources.load(memory, project, state, quick=True).quick  # own files again
    assert packed.load(state / INDEX_FILE)["concepts"][0] == vocabulary.stamp("concepts")


def test_an_index_vouched_again_is_saved_with_its_documents(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The full check vouches for a cached index whose quick key was not yet known (the memory
    folder had just changed): the file is saved again with the quick key, its documents copied
    from the file's tail as they were (nothing re-read), and a quick prompt answers the same."""
    import os

    memory, project, state = tmp_path / "memory", tmp_path / "project", tmp_path / "state"
    project.mkdir()
    for text in NOTES:
        write_learning(memory, text)
    fresh = load(memory, project, state).index
    assert fresh is not None
    assert packed.load(state / INDEX_FILE)["quick"] is None  # the folder is too fresh to trust
    os.utime(memory, ns=(1, 1))  # settled
    parsed: list[str] = []
    monkeypatch.setattr(recall_entries, "read_learning", lambda *a: parsed.append(a[1]))
    again = load(memory, project, state).index
    assert parsed == [] and again is not None
    # the quick key recorded in its own small file (0135), the index file as it was
    assert packed.load(state / INDEX_FILE)["quick"] is None
    assert read_index_file(str(state / INDEX_FILE))[0]["quick"] is not None
    loaded = recall_sources.load(memory, project, state, quick=True)
    assert loaded.quick and loaded.index is not None
    assert [d.text for d in loaded.index.docs] == [d.text for d in fresh.docs]
    assert "learning-" in loaded.stamps()
