"""Private cache files in marshal's format: what is saved loads back; anything else (another
format, a damaged or cut file, a file from another interpreter) reads as no cache."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from pokayokay.infra import packed

PLAIN = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=60)
@given(value=PLAIN)
def test_what_is_saved_loads_back(value: object) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "state" / "cache.marshal"
        packed.save(path, {"value": value, "text": "caf\u00e9 \udcff"})  # surrogate escapes too
        assert packed.load(path) == {"value": value, "text": "caf\u00e9 \udcff"}


def test_the_file_is_private_and_replaced_whole(tmp_path: Path) -> None:
    path = tmp_path / "recall-index.marshal"
    packed.save(path, {"index": {"docs": ["a"] * 1000}})
    packed.save(path, {"index": {"docs": ["b"]}})
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert packed.load(path) == {"index": {"docs": ["b"]}}
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary file left


def test_anything_else_reads_as_no_cache(tmp_path: Path) -> None:
    path = tmp_path / "cache.marshal"
    assert packed.load(path) is None  # missing
    packed.save(path, {"fingerprint": "x", "index": {"postings": {"term": "1,2"}}})
    data = path.read_bytes()
    for damaged in (
        data[: len(data) // 2],  # cut short
        data.replace(b"pokayokay-marshal-1 ", b"pokayokay-marshal-9 "),  # another format
        data.replace(packed.header(), b"pokayokay-marshal-1 2.7:2\n"),  # another interpreter
        json.dumps({"fingerprint": "x"}).encode(),  # the JSON cache of an earlier version
        b"",
    ):
        path.write_bytes(damaged)
        assert packed.load(path) is None, damaged[:40]


def test_an_unwritable_folder_costs_only_the_cache(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the state folder should be")
    packed.save(blocker / "cache.marshal", {"a": 1})  # no exception
    assert packed.load(blocker / "cache.marshal") is None
