"""The recall index is rebuilt when a source's documents change, not when a file merely moved
(pokayokay.recall.entries, docs/decisions/0118): MEMORY.md rewritten outside Key Decisions or a
learning touched keeps the index file's index; any change of a document rebuilds it; and whatever
sequence of edits, the cached index is the index a fresh build of the same files makes."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pokayokay.infra import packed
from pokayokay.learnings import model as learnings
from pokayokay.learnings.topics import topic_file
from pokayokay.recall.cache_io import QUICK_SUFFIX, read_index_file
from pokayokay.recall.sources import ENTRIES_FILE, INDEX_FILE, load
from pokayokay.relevance import note_index as index_module
from pokayokay.relevance.note_index import Index
from pokayokay.safety.sanitize import excerpt

NOTES = [
    "Run migrations with `make migrate` before the integration tests; missing columns otherwise.",
    "The checkout total rounds the discount per line, never on the cart total.",
    "Webhook signatures are checked against the raw body, before JSON parsing.",
    "Nightly backups go to the cold bucket; restores need the ops role.",
]
DECISIONS = [
    "2025-11-04: Chose Celery with Redis over RQ for background jobs with retries.",
    "2026-01-12: Invoices are immutable once sent; corrections are credit notes.",
    "2026-02-02: Search indexing runs in a separate worker, never in the request.",
]


def memory_md(title: str, decisions: list[str], note: str = "Claude's own note.") -> str:
    body = "".join(f"- {d}\n" for d in decisions)
    return (
        f"# {title}\n\n- {note}\n\n## Key Decisions\n"
        f"<!-- pokayokay: promoted from session handoffs -->\n{body}<!-- /pokayokay -->\n"
    )


class Files:
    """A memory folder written with strictly increasing mtimes (a rewrite in the same clock
    tick with the same size would otherwise look unchanged, on purpose: docs/decisions/0105)."""

    def __init__(self, root: Path) -> None:
        self.memory, self.project, self.state = root / "memory", root / "project", root / "state"
        for folder in (self.memory, self.project):
            folder.mkdir(parents=True, exist_ok=True)
        self.tick = 1_700_000_000_000_000_000
        self.fresh_builds = 0

    def write(self, name: str, text: str) -> None:
        path = self.memory / name
        path.write_text(text, "utf-8")
        self.tick += 1_000_000_000
        os.utime(path, ns=(self.tick, self.tick))

    def touch(self, name: str) -> None:
        self.tick += 1_000_000_000
        os.utime(self.memory / name, ns=(self.tick, self.tick))

    def learning(self, text: str) -> str:
        name = learnings.make_name(text)
        learning = learnings.Learning(
            name=name,
            description=excerpt(text, 200),
            text=text,
            category="patterns",
            hash=learnings.identity(text),
        )
        file_name = learnings.file_name_for(name)
        self.write(file_name, topic_file.render(learning))
        return file_name

    def cached(self) -> Index | None:
        return load(self.memory, self.project, self.state, budget=float("inf")).index

    def fresh(self) -> Index | None:
        """The index built from the files alone (a state folder of its own, no cache)."""
        self.fresh_builds += 1
        state = self.state.with_name(f"fresh-{self.fresh_builds}")
        return load(self.memory, self.project, state, budget=float("inf"), use_cache=False).index


def same(a: Index | None, b: Index | None) -> None:
    """Equal indexes: the same documents in the same order, postings, norms and weights."""
    assert (a is None) == (b is None)
    if a is None or b is None:
        return
    assert [(d.id, d.kind, d.label, d.text, d.weight) for d in a.docs] == [
        (d.id, d.kind, d.label, d.text, d.weight) for d in b.docs
    ]
    assert sorted(a.terms()) == sorted(b.terms())
    assert all(a.posting(t) == b.posting(t) for t in b.terms())
    assert (list(a.lengths), list(a.weights)) == (list(b.lengths), list(b.weights))
    assert list(a.norms) == pytest.approx(list(b.norms))
    assert list(a.cnorms) == pytest.approx(list(b.cnorms))


def counting_builds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    builds: list[int] = []
    real = Index.build.__func__  # type: ignore[attr-defined]

    def counting(cls: type[Index], *args: Any, **kwargs: Any) -> Index:
        builds.append(1)
        result: Index = real(cls, *args, **kwargs)
        return result

    monkeypatch.setattr(index_module.Index, "build", classmethod(counting))
    return builds


def test_memory_rewritten_outside_key_decisions_keeps_the_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = Files(tmp_path)
    for note in NOTES:
        files.learning(note)
    files.write("MEMORY.md", memory_md("Memory", DECISIONS))
    first = files.cached()
    assert first is not None and len(first) == len(NOTES) + len(DECISIONS)
    entries = (files.state / ENTRIES_FILE).read_bytes()

    builds = counting_builds(monkeypatch)
    files.write("MEMORY.md", memory_md("Mem01", DECISIONS, "Claude rewrote its own note."))
    kept = files.cached()
    assert builds == []  # the same documents: nothing analysed, nothing built ...
    assert (files.state / ENTRIES_FILE).read_bytes() == entries  # ... nor written but the index
    same(kept, files.fresh())
    assert builds == [1]  # (the fresh build)
    again = load(files.memory, files.project, files.state, quick=True)
    assert builds == [1]  # the next prompt: the index file's fingerprint was brought up to date
    same(again.index, kept)

    files.touch(learnings.file_name_for(learnings.make_name(NOTES[0])))  # touched, not changed
    same(files.cached(), files.fresh())
    assert len(builds) == 2  # only the fresh build: the touched learning read, found the same


def test_a_changed_decision_or_learning_rebuilds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = Files(tmp_path)
    names = [files.learning(note) for note in NOTES]
    files.write("MEMORY.md", memory_md("Memory", DECISIONS))
    files.cached()
    builds = counting_builds(monkeypatch)

    files.write("MEMORY.md", memory_md("Memory", [*DECISIONS[:2], "2026-03-01: Use Postgres."]))
    changed = files.cached()
    assert len(builds) == 1
    assert changed is not None
    assert any("Postgres" in d.text for d in changed.docs)
    assert not any("Search indexing" in d.text for d in changed.docs)

    (files.memory / names[1]).unlink()
    gone = files.cached()
    assert len(builds) == 2
    assert gone is not None and not any("checkout total" in d.text for d in gone.docs)


# An edit: (kind, which). Kinds: rewrite MEMORY.md's title / its decisions, write a learning
# (new or changed), remove one, touch one, or a settings file naming no sections of its own.
EDITS = st.lists(
    st.tuples(
        st.sampled_from(["title", "decisions", "learning", "remove", "touch", "index-gone"]),
        st.integers(0, 7),
    ),
    min_size=1,
    max_size=8,
)


def _apply(files: Files, kind: str, which: int, state: dict[str, Any]) -> None:
    if kind == "title":
        state["title"] = f"Memory {which}"
    elif kind == "decisions":
        state["decisions"] = [d for i, d in enumerate(DECISIONS) if (which >> i) & 1]
    elif kind == "learning":
        text = NOTES[which % len(NOTES)] + (" Also on staging." if which >= 4 else "")
        state["learnings"][which % len(NOTES)] = files.learning(text)
        return
    elif kind == "remove":
        found = state["learnings"].pop(which % len(NOTES), None)
        if found is not None and (files.memory / found).exists():
            (files.memory / found).unlink()
        return
    elif kind == "touch":
        found = state["learnings"].get(which % len(NOTES))
        if found is not None and (files.memory / found).exists():
            files.touch(found)
        return
    else:  # the index file lost (a cleaned state folder): the entries alone are left
        (files.state / "recall-index.marshal").unlink(missing_ok=True)
        return
    files.write("MEMORY.md", memory_md(state["title"], state["decisions"]))


def _check_edits(root: Path, edits: list[tuple[str, int]]) -> None:
    files = Files(root)
    state: dict[str, Any] = {"title": "Memory", "decisions": list(DECISIONS), "learnings": {}}
    for i, note in enumerate(NOTES[:2]):
        state["learnings"][i] = files.learning(note)
    files.write("MEMORY.md", memory_md("Memory", DECISIONS))
    same(files.cached(), files.fresh())
    for kind, which in edits:
        # stale entries (a learning removed and written back) must not outlive their files
        for name in {p.name for p in files.memory.glob("learning-*.md")} - set(
            state["learnings"].values()
        ):
            (files.memory / name).unlink()
        _apply(files, kind, which, state)
        same(files.cached(), files.fresh())


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(edits=EDITS)
def test_the_cached_index_is_a_fresh_build_after_any_edits(
    tmp_path_factory: pytest.TempPathFactory, edits: list[tuple[str, int]]
) -> None:
    _check_edits(tmp_path_factory.mktemp("edits"), edits)


@pytest.mark.slow
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(edits=EDITS)
def test_the_cached_index_is_a_fresh_build_after_any_edits_many(
    tmp_path_factory: pytest.TempPathFactory, edits: list[tuple[str, int]]
) -> None:
    _check_edits(tmp_path_factory.mktemp("edits"), edits)


def _settled(tmp_path: Path) -> Files:
    """The notes and a MEMORY.md with Key Decisions, settled and cached: the quick path holds."""
    files = Files(tmp_path)
    for note in NOTES:
        files.learning(note)
    files.write("MEMORY.md", memory_md("Memory", DECISIONS))
    os.utime(files.memory, ns=(files.tick, files.tick))  # the folder has settled
    files.cached()
    assert load(files.memory, files.project, files.state, quick=True).quick
    return files


def test_a_prompt_after_memory_md_was_rewritten_in_place_reads_no_learning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The quick key without MEMORY.md vouches for the learnings; Key Decisions as they were:
    the prompt lists no folder and stats no learning, and answers what a fresh build would."""
    from pokayokay.recall import sources

    files = _settled(tmp_path)

    def no_scan(*args: object) -> None:
        raise AssertionError("the full check ran")

    monkeypatch.setattr(sources, "Inputs", no_scan)
    files.write("MEMORY.md", memory_md("Mem02", DECISIONS, "Claude rewrote its own note."))
    loaded = load(files.memory, files.project, files.state, quick=True)
    assert loaded.quick
    again = load(files.memory, files.project, files.state, quick=True)  # the key was saved
    assert again.quick
    monkeypatch.undo()
    same(loaded.index, files.fresh())

    files.write("MEMORY.md", memory_md("Mem03", DECISIONS[:1]))  # a decision removed
    monkeypatch.setattr(sources, "Inputs", no_scan)
    with pytest.raises(AssertionError, match="the full check ran"):
        load(files.memory, files.project, files.state, quick=True)
    monkeypatch.undo()
    changed = load(files.memory, files.project, files.state, quick=True).index
    same(changed, files.fresh())
    assert changed is not None and len(changed) == len(NOTES) + 1


def _index_file(state: Path) -> tuple[dict[str, Any], bytes]:
    """The index file's head values and its tail (rows and stamps) as bytes."""
    from pokayokay.recall.cache_io import read_index_file

    found = read_index_file(str(state / INDEX_FILE))
    assert found is not None
    data, rows, stamps = found
    tail = rows.blob() + stamps.text().encode("utf-8", "surrogatepass")
    return data, tail


def _file_bytes(state: Path) -> bytes:
    return (state / INDEX_FILE).read_bytes()


def test_a_prompt_after_memory_md_was_rewritten_writes_only_the_quick_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Decision 0135: the quick key is brought up to date in its own small file, without
    serialising the index or rewriting the index file (byte for byte as it was); the next
    prompt takes the quick path, through that key, to the index a fresh build gives."""
    files = _settled(tmp_path)
    before, _tail = _index_file(files.state)
    before_bytes = _file_bytes(files.state)

    def no_serialising(*args: object) -> None:
        raise AssertionError("the index was serialised again")

    monkeypatch.setattr(index_module.Index, "to_data", no_serialising)
    files.write("MEMORY.md", memory_md("Mem04", DECISIONS, "Claude rewrote its own note."))
    assert load(files.memory, files.project, files.state, quick=True).quick
    assert _file_bytes(files.state) == before_bytes
    quick = files.state / (INDEX_FILE + QUICK_SUFFIX)
    assert quick.stat().st_size < 1000
    after, _tail = _index_file(files.state)  # read with its quick key file
    assert after["quick"] != before["quick"]
    assert {k: v for k, v in after.items() if k != "quick"} == {
        k: v for k, v in before.items() if k != "quick"
    }
    again = load(files.memory, files.project, files.state, quick=True)
    assert again.quick
    assert _file_bytes(files.state) == before_bytes
    monkeypatch.undo()
    same(again.index, files.fresh())


def test_the_first_prompt_after_session_end_writes_only_the_quick_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SessionEnd writes ``chain-learnings.md`` (and curation MEMORY.md) into the memory
    folder: the folder moved, no source changed. The full check that follows vouches for the
    index again and records only its quick keys in the small file (decision 0135), instead of
    serialising the index into a 1.3 MB file; the next prompt, and a rewrite of MEMORY.md after
    it, take the quick path."""
    files = _settled(tmp_path)
    before_bytes = _file_bytes(files.state)

    def no_serialising(*args: object) -> None:
        raise AssertionError("the index was serialised again")

    monkeypatch.setattr(index_module.Index, "to_data", no_serialising)
    files.write("chain-learnings.md", "# Chain learnings\n\n## 2026-11-28 session abc\n")
    tick = files.tick + 1_000_000_000
    os.utime(files.memory, ns=(tick, tick))  # the folder moved, and has settled since
    first = load(files.memory, files.project, files.state, quick=True)
    assert not first.quick  # the folder moved: the full check ran
    assert _file_bytes(files.state) == before_bytes
    assert (files.state / (INDEX_FILE + QUICK_SUFFIX)).stat().st_size < 1000
    assert load(files.memory, files.project, files.state, quick=True).quick
    files.write("MEMORY.md", memory_md("Mem05", DECISIONS, "Claude rewrote its own note."))
    assert load(files.memory, files.project, files.state, quick=True).quick  # its rest key too
    assert _file_bytes(files.state) == before_bytes
    monkeypatch.undo()
    same(first.index, files.fresh())


def test_a_quick_key_file_vouches_only_for_the_write_it_was_made_for(tmp_path: Path) -> None:
    """Any later write of the index file draws a new token: the quick key file of the earlier
    write is then ignored (the head's own key counts), and an index file of an earlier version
    (no token) gets its head rewritten as before (decision 0123)."""
    files = _settled(tmp_path)
    files.write("MEMORY.md", memory_md("Mem04", DECISIONS, "Claude rewrote its own note."))
    assert load(files.memory, files.project, files.state, quick=True).quick
    quick = files.state / (INDEX_FILE + QUICK_SUFFIX)
    kept = quick.read_bytes()
    files.learning("a new note about invoices, rounded per line")
    rebuilt = load(files.memory, files.project, files.state, quick=True)
    assert not rebuilt.quick  # a learning changed: the full check ran and saved the index
    head, _tail = _index_file(files.state)
    quick.write_bytes(kept)  # the earlier write's key, vouching for what it saw then
    assert _index_file(files.state)[0] == head  # not taken: another token
    assert head["quick"] != packed.load(str(quick))["quick"]


def test_an_index_file_of_an_earlier_version_gets_its_head_rewritten(tmp_path: Path) -> None:
    """An index file without a token (written before decision 0135): no quick key file can
    vouch for it, so the new key goes to its head as before (decision 0123), with a token."""
    files = _settled(tmp_path)
    quick = files.state / (INDEX_FILE + QUICK_SUFFIX)
    data, rows, _stamps = read_index_file(str(files.state / INDEX_FILE)) or (None, None, None)
    assert data is not None and rows is not None
    old = {k: v for k, v in data.items() if k != "token"}
    packed.save(str(files.state / INDEX_FILE), old, rows._tail.read(0, rows._tail.size))
    files.write("MEMORY.md", memory_md("Mem05", DECISIONS, "Claude rewrote it again."))
    assert load(files.memory, files.project, files.state, quick=True).quick
    assert not quick.exists()
    again = _index_file(files.state)[0]
    assert isinstance(again.get("token"), str)
    assert load(files.memory, files.project, files.state, quick=True).quick
