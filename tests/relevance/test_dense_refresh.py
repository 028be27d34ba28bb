"""The dense service reads a changed catalog again a chunk at a time (decision 0187): a prompt that
arrives meanwhile is answered from the catalog as it was, after one chunk at most, and the new
catalog replaces the old one once every text of it is encoded. No model: an encoder that records
what it was asked."""

from __future__ import annotations

from typing import Any

import pytest

from pokayokay.skills import dense_service as service

np = pytest.importorskip("numpy")


class Recording:
    """Each text's vector is its length on the first axis; every call is kept."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def encode(self, texts: list[str]) -> Any:
        self.calls.append(list(texts))
        return np.array([[float(len(t)), 0.0] for t in texts], dtype=np.float32)


def items(names: int, texts: int = 3, tag: str = "") -> list[tuple[str, list[str]]]:
    return [(f"n{i}", [f"{tag}text {i}.{j}" for j in range(texts)]) for i in range(names)]


def test_a_catalog_read_again_is_encoded_a_chunk_at_a_time_and_a_request_cuts_in() -> None:
    encoder = Recording()
    opinion = service.Opinion(encoder)
    key = ("/project",)
    opinion.catalogs[key] = old = opinion.encoded(items(2, tag="old "), "old stamp")
    encoder.calls.clear()
    opinion.later(False, key, items(40), "new stamp")  # 120 new texts
    asked = [0]

    def waiting() -> bool:  # a request arrives after the second chunk
        asked[0] += 1
        return asked[0] == 2

    opinion.work(waiting)
    assert [len(c) for c in encoder.calls] == [service.REFRESH_CHUNK] * 2
    assert opinion.catalogs[key] is old and opinion.busy()  # still answering from the old one
    opinion.work(lambda: False)
    assert all(len(c) <= service.REFRESH_CHUNK for c in encoder.calls)
    assert sum(len(c) for c in encoder.calls) == 120  # each text once
    new = opinion.catalogs[key]
    assert new.names == [f"n{i}" for i in range(40)] and new.stamp == "new stamp"
    assert not opinion.busy()


def test_texts_already_encoded_are_not_encoded_again() -> None:
    encoder = Recording()
    opinion = service.Opinion(encoder)
    opinion.later(True, ("/m", "/p", "/s"), items(5), 1)
    opinion.work()
    encoder.calls.clear()
    changed = items(5)
    changed[2] = ("n2", ["an edited note"])
    opinion.later(True, ("/m", "/p", "/s"), changed, 2)
    opinion.work()
    assert encoder.calls == [["an edited note"]]
    assert opinion.notes[("/m", "/p", "/s")].stamp == 2


def test_a_warm_request_is_answered_at_once_and_read_by_the_next_work(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    encoder = Recording()
    opinion = service.Opinion(encoder)
    read: list[str] = []

    def catalog_items(project: str, environ: Any) -> list[tuple[str, list[str]]]:
        read.append(project)
        return items(3)

    monkeypatch.setattr(service, "catalog_items", catalog_items)
    monkeypatch.setattr(service, "catalog_stamp", lambda project, environ: "stamp")
    reply = service.answer(opinion, {"v": 1, "op": "warm", "project": str(tmp_path)})
    assert reply["ok"] and read == [] and encoder.calls == []
    opinion.work()
    assert read == [str(tmp_path)] and sum(len(c) for c in encoder.calls) == 9


def test_a_catalog_waiting_in_the_queue_is_not_read_again_for_each_request(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    encoder = Recording()
    opinion = service.Opinion(encoder)
    environ: dict[str, str] = {}
    key = service._key("/project", environ)
    opinion.catalogs[key] = opinion.encoded(items(1), "old")
    monkeypatch.setattr(service, "catalog_stamp", lambda project, environ: "new")
    read: list[str] = []

    def catalog_items(project: str, environ: Any) -> list[tuple[str, list[str]]]:
        read.append(project)
        return items(30)

    monkeypatch.setattr(service, "catalog_items", catalog_items)
    opinion.catalog("/project", environ)  # changed: marked to be read again
    opinion.work(lambda: True)  # read, one chunk encoded, then a request cuts in
    for _ in range(3):  # the requests meanwhile answer from the old catalog, and read nothing
        found = opinion.catalog("/project", environ)
        assert found is not None and found.stamp == "old"
        opinion.work(lambda: True)
    assert read == ["/project"]
    opinion.work()
    found = opinion.catalog("/project", environ)
    assert found is not None and found.stamp == "new" and read == ["/project"]


def test_a_prompt_during_a_warm_read_goes_without_and_encodes_nothing_itself(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A prompt for a project whose warm request is still being read gets no skill cosines (the
    hook's lexical gate decides) instead of reading and encoding the whole catalog itself."""
    encoder = Recording()
    opinion = service.Opinion(encoder)
    monkeypatch.setattr(service, "catalog_items", lambda project, environ: items(20))
    monkeypatch.setattr(service, "catalog_stamp", lambda project, environ: "stamp")
    project = str(tmp_path)
    assert service.answer(opinion, {"v": 1, "op": "warm", "project": project})["ok"]
    opinion.work(lambda: True)  # one text encoded, then the prompt's request cuts in
    assert [len(c) for c in encoder.calls] == [service.REFRESH_CHUNK]
    reply = service.answer(opinion, {"v": 1, "op": "skills", "project": project, "prompt": "q"})
    assert "cosines" not in reply and "error" not in reply
    assert len(encoder.calls) == 1  # nothing encoded for it, not even the prompt
    opinion.work()
    reply = service.answer(opinion, {"v": 1, "op": "skills", "project": project, "prompt": "q"})
    assert len(reply["names"].split("\n")) == 20
