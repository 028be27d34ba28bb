"""The dense opinion (decision 0181): its features, the gate that weighs them, skill suggestion
with it, the prompt hook's client failing open, and the resident service with the real model
(``pokayokay[dense]``, part of the dev extra)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import splits
from helpers.relevance_split import EVENT_SCRIPT, Lab, suggested_skills

from pokayokay.relevance.dense import client
from pokayokay.relevance.dense.texts import opinion_features, skill_texts, top_of
from pokayokay.relevance.gate import DENSE_FEATURES, FEATURES, Evidence, Gate
from pokayokay.skills import dense_service as service
from pokayokay.skills.catalog import catalog_from_folder
from pokayokay.skills.suggest import suggest

SKILLS = splits.SKILLS_FOLDER / "skills"
# A prompt whose skill the model ranks first among a few.
REVIEW = "review the diff of my refactoring of the payment service"
# A training prompt the words leave silent and the model answers (found on the train split;
# until decision 0195 it was REVIEW, which the words now answer as well).
MEANT = "define an SLO and alerting for the login endpoint's error rate"


@pytest.fixture
def dense_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("POKAYOKAY_DENSE", raising=False)


# -- what the opinion says --------------------------------------------------------------------


def test_a_skill_stands_for_its_description_and_each_phrase() -> None:
    assert skill_texts("pdf", "Read PDFs.", ["merge two pdfs"]) == [
        "pdf: Read PDFs.",
        "merge two pdfs",
    ]


def test_the_features_are_the_cosine_its_lead_and_whether_it_ranks_first() -> None:
    cosines = {"a": 0.6, "b": 0.5, "c": 0.6}
    assert top_of(cosines) == "a"  # a tie goes to the lower name, whatever the order
    assert top_of({"c": 0.6, "a": 0.6}) == "a"
    assert top_of({}) is None
    assert opinion_features(cosines, "a") == (0.6, 0.0, 1.0)
    cos, lead, top = opinion_features(cosines, "b")
    assert (cos, top) == (0.5, 0.0) and lead == pytest.approx(-0.1)
    assert opinion_features(cosines, "unknown") == (0.0, -0.6, 0.0)


def test_a_dense_gate_weighs_the_opinion_and_a_lexical_one_ignores_it() -> None:
    lexical = Gate(tuple([0.0] * len(FEATURES)), 0.0, 0.5)
    dense = Gate(tuple([0.0] * len(FEATURES) + [10.0, 0.0, 0.0]), -5.0, 0.5)
    plain = Evidence(1.0, 0.0, frozenset({"x"}), frozenset(), frozenset(), 1)
    sure = Evidence(1.0, 0.0, frozenset({"x"}), frozenset(), frozenset(), 1, dense=(0.9, 0, 1))
    assert lexical.probability(sure) == lexical.probability(plain) == 0.5
    assert dense.probability(plain) < 0.01  # no opinion: its features are 0
    assert dense.probability(sure) > 0.98
    assert Gate.from_data(dense.to_data()).to_data() == dense.to_data()
    assert dense.to_data()["features"] == list(FEATURES + DENSE_FEATURES)
    broken = {**dense.to_data(), "features": [*FEATURES, "cosine"]}
    with pytest.raises(ValueError, match="features"):
        Gate.from_data(broken)


# -- skill suggestion with it -----------------------------------------------------------------


@pytest.fixture(scope="module")
def catalog() -> list:  # type: ignore[type-arg]
    return catalog_from_folder(SKILLS)


def test_the_models_first_choice_is_a_candidate_the_gate_judges(catalog: list) -> None:  # type: ignore[type-arg]
    prompt = "the quarterly numbers need to go in front of the board on friday"
    opinion = {s.name: 0.1 for s in catalog if s.model_invocable}
    opinion["pptx"] = 0.55
    speaks = Gate(tuple([0.0] * len(FEATURES) + [0.0, 20.0, 0.0]), -1.0, 0.5)
    silent = Gate(tuple([0.0] * len(FEATURES) + [0.0, 20.0, 0.0]), -30.0, 0.5)
    shown = suggest(prompt, catalog, gate=speaks, dense=opinion).suggestions
    assert [s.name for s in shown] == ["pptx"]
    assert shown[0].reasons == ["close in meaning to what it is for"]  # no word of it matched
    assert suggest(prompt, catalog, gate=silent, dense=opinion).suggestions == []
    assert suggest(prompt, catalog, gate=False).suggestions == []  # no opinion, no candidate
    # a question the code answers gets no skill, whatever the model says
    assert suggest("explain what this function does", catalog, gate=speaks, dense=opinion).empty


def test_an_opinion_about_a_skill_not_installed_is_ignored(catalog: list) -> None:  # type: ignore[type-arg]
    opinion = {"not-installed": 0.99, "pdf": 0.2}
    advice = suggest("write a haiku about autumn", catalog, gate=False, dense=opinion)
    assert [s.name for s in advice.suggestions] == ["pdf"]


# -- the client fails open --------------------------------------------------------------------


def _places() -> tuple[str, str]:
    found = client.places()
    assert found is not None
    os.makedirs(found[1], exist_ok=True)
    return found


@pytest.fixture
def fake_service(dense_on: None) -> Iterator[list[bytes]]:
    """A reader of the service's pipe that answers each request with the next line of the list
    it yields, into the pipe the request names (an empty list: it reads and never answers)."""
    replies: list[bytes] = []
    fifo, _folder = _places()
    os.mkfifo(fifo, 0o600)
    fd = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
    stop = threading.Event()

    def run() -> None:
        import select

        while not stop.is_set():
            if not select.select([fd], [], [], 0.05)[0]:
                continue
            for line in os.read(fd, 65536).splitlines():
                request = json.loads(line)
                if replies:
                    out = os.open(request["reply"], os.O_WRONLY | os.O_NONBLOCK)
                    os.write(out, replies.pop(0))
                    os.close(out)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    yield replies
    stop.set()
    thread.join(2)
    os.close(fd)
    os.unlink(fifo)


def test_no_service_means_no_opinion_and_nothing_written(dense_on: None, tmp_path: Path) -> None:
    found = client.places()
    assert found is not None and not os.path.exists(found[0])
    assert client.ask(str(tmp_path), "merge these pdfs") is None
    assert not client.alive()
    assert not os.path.exists(os.path.dirname(found[0]))


def test_a_pipe_nobody_reads_means_no_opinion(dense_on: None, tmp_path: Path) -> None:
    fifo, folder = _places()
    os.mkfifo(fifo, 0o600)  # left by a service that was killed
    assert not client.alive()
    assert client.ask(str(tmp_path), "merge these pdfs") is None
    assert os.listdir(folder) == []  # the prompt's own pipe is gone too


def test_a_service_that_never_answers_costs_at_most_the_wait(
    fake_service: list[bytes], tmp_path: Path
) -> None:
    assert client.alive()
    pending = client.ask(str(tmp_path), "merge these pdfs")
    assert pending is not None
    started = time.monotonic()
    assert pending.cosines() is None
    assert time.monotonic() - started < client.WAIT_SECONDS + 1.0  # bounded, not a speed test
    assert os.listdir(_places()[1]) == []


def _reply(names: str, values: list[float]) -> bytes:
    from array import array

    packed = array("f", values)
    if sys.byteorder == "big":
        packed.byteswap()
    return json.dumps({"v": 1, "names": names, "cosines": packed.tobytes().hex()}).encode() + b"\n"


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (_reply("pdf\nxlsx", [0.5, -0.25]), {"pdf": 0.5, "xlsx": -0.25}),
        (_reply("", []), {}),
        (_reply("pdf\nxlsx", [0.5]), None),  # two names, one value
        (_reply("pdf", [2.0]), None),  # not a cosine
        (_reply("pdf", [float("nan")]), None),
        (b'{"v": 1, "names": "pdf", "cosines": "zz"}\n', None),
        (b'{"v": 1, "names": "pdf", "cosines": [0.5]}\n', None),
        (b'{"v": 1, "error": "unknown request"}\n', None),
        (b"not json at all\n", None),
        (b"[1, 2, 3]\n", None),
        (_reply("pdf", [0.5])[:-1], None),  # no end of line: never complete
    ],
)
def test_a_reply_is_read_for_cosines_only(
    fake_service: list[bytes], tmp_path: Path, reply: bytes, expected: dict[str, float] | None
) -> None:
    fake_service.append(reply)
    pending = client.ask(str(tmp_path), "merge these pdfs")
    assert pending is not None
    assert pending.cosines() == expected
    assert os.listdir(_places()[1]) == []


def test_each_skill_or_note_gets_the_best_cosine_of_its_texts() -> None:
    """The service's one product and reduction (``Opinion.values``): each name's rows run from
    its start to the next one's, and it gets the largest, rounded as the gates were fitted;
    the reply carries them in the catalog's order."""
    import numpy as np

    class Fixed:  # the prompt's vector is the first axis: a row's cosine is its first value
        def encode(self, texts: list[str]) -> Any:
            return np.tile(np.array([1.0, 0.0], dtype=np.float32), (len(texts), 1))

    rows = [0.1, 0.7, -0.2, 0.3, 0.9, 0.5, -0.4, -0.1, 0.12345678]
    matrix = np.array([[v, 0.0] for v in rows], dtype=np.float32)
    catalog = service.Catalog(["a", "b", "c", "d", "e"], [0, 2, 3, 6, 8], matrix, None)
    opinion = service.Opinion(Fixed())
    expected = [0.7, -0.2, 0.9, -0.1, 0.123457]
    assert opinion.values("q", catalog).tolist() == pytest.approx(expected, abs=1e-7)
    reply = opinion.packed("q", catalog)
    found = client.unpacked(reply["names"], reply["cosines"])
    assert found is not None and list(found) == ["a", "b", "c", "d", "e"]
    assert list(found.values()) == pytest.approx(expected, abs=1e-6)
    empty = service.Catalog([], [], np.zeros((0, 2), dtype=np.float32), None)
    reply = opinion.packed("q", empty)
    assert client.unpacked(reply["names"], reply["cosines"]) == {}


def test_the_service_packs_what_the_hook_unpacks() -> None:
    cosines = {"pdf": 0.123456, "xlsx": -0.5, "docx": 1.0}
    packed = service.packed("\n".join(cosines), list(cosines.values()))
    found = client.unpacked(packed["names"], packed["cosines"])
    assert found is not None and list(found) == list(cosines)
    assert all(abs(found[k] - v) < 1e-7 for k, v in cosines.items())


def test_a_long_prompt_is_cut_to_one_atomic_write(
    fake_service: list[bytes], tmp_path: Path
) -> None:
    fake_service.append(_reply("pdf", [0.5]))
    pending = client.ask(str(tmp_path), "ünïcödé prompt " * 2000)
    assert pending is not None and pending.cosines() == {"pdf": 0.5}


def test_turned_off_asks_nothing(
    fake_service: list[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_service.append(_reply("pdf", [0.5]))
    monkeypatch.setenv("POKAYOKAY_DENSE", "off")
    assert client.ask("/", "merge these pdfs") is None
    assert client.start("/") is False


def test_start_runs_nothing_without_the_extra(
    dense_on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    spawned: list[object] = []
    monkeypatch.setattr(client, "installed", lambda: False)
    monkeypatch.setattr("pokayokay.infra.detach.spawn_module", lambda *a: spawned.append(a))
    assert client.start("/tmp") is False and spawned == []
    monkeypatch.setattr(client, "installed", lambda: True)
    assert client.start("/tmp") is True
    assert spawned == [(client.SERVICE_MODULE, ["--warm", "/tmp"])]


def test_the_extra_is_found_where_python_imports_from() -> None:
    assert client.installed()  # the dev extra includes pokayokay[dense]


# -- the service, with the real model --------------------------------------------------------


@pytest.fixture(scope="module")
def opinion() -> service.Opinion:
    from pokayokay.relevance.dense.model import Encoder

    return service.Opinion(Encoder())


def _project(root: Path) -> Path:
    project = root / "project"
    for name in ("pdf", "pptx", "xlsx", "code-review", "docker"):
        target = project / ".claude" / "skills" / name
        target.mkdir(parents=True)
        (target / "SKILL.md").write_bytes((SKILLS / name / "SKILL.md").read_bytes())
    return project


def test_the_model_is_the_published_one_and_its_vectors_are_unit_length(
    opinion: service.Opinion,
) -> None:
    import numpy as np

    vectors = opinion.encoder.encode(["merge two PDF files", "", "x" * 10_000])
    assert vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    similar = opinion.encoder.encode(["combine two PDF documents into one"])[0]
    other = opinion.encoder.encode(["the cat sat on the mat"])[0]
    assert float(vectors[0] @ similar) > float(vectors[0] @ other) + 0.3


def test_the_service_answers_a_prompt_with_every_skills_cosine(
    opinion: service.Opinion, tmp_path: Path
) -> None:
    project = _project(tmp_path)
    reply = service.answer(
        opinion, {"v": 1, "op": "skills", "project": str(project), "prompt": REVIEW}
    )
    cosines = client.unpacked(reply["names"], reply["cosines"])
    assert cosines is not None
    assert set(cosines) == {"pdf", "pptx", "xlsx", "code-review", "docker"}
    assert top_of(cosines) == "code-review"
    assert service.answer(opinion, {"v": 1, "op": "warm", "project": str(project)})["ok"]


@pytest.mark.parametrize(
    "request_",
    [
        {"v": 2, "op": "skills", "project": "/", "prompt": "x"},
        {"v": 1, "op": "skills", "project": "relative/path", "prompt": "x"},
        {"v": 1, "op": "skills", "project": "/", "prompt": 3},
        {"v": 1, "op": "rm -rf", "project": "/"},
        {"v": 1, "op": "skills", "project": "/", "prompt": "x", "env": "HOME=/"},
        ["v", 1],
    ],
)
def test_a_request_it_cannot_take_gets_an_error(
    opinion: service.Opinion, request_: object
) -> None:
    assert "error" in service.answer(opinion, request_)


@pytest.mark.slow
def test_through_the_registered_hooks_the_model_speaks_where_the_words_do_not(
    dense_on: None, tmp_path: Path
) -> None:
    """SessionStart's registered command starts the service; the registered UserPromptSubmit
    then suggests the skill the model chose, which the words alone leave silent."""
    lab = Lab(tmp_path)
    lab.add_skills(SKILLS)  # the training catalog, where the words leave MEANT silent
    assert suggested_skills(lab.prompt(MEANT)) == []  # no service yet: the words decide
    payload = {
        "session_id": "dense-e2e", "transcript_path": str(lab.home / "t.jsonl"),
        "cwd": str(lab.project), "hook_event_name": "SessionStart", "source": "startup",
    }  # fmt: skip
    proc = subprocess.run(
        [sys.executable, str(EVENT_SCRIPT), "SessionStart"],
        input=json.dumps(payload).encode(), capture_output=True, env=lab.env,
        cwd=lab.project, timeout=60, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    found = client.places(lab.env)
    assert found is not None
    deadline = time.monotonic() + 60
    while not client.alive(lab.env):
        assert time.monotonic() < deadline, "the service did not start"
        time.sleep(0.2)
    try:
        assert suggested_skills(lab.prompt(MEANT)) == ["observability"]
        assert suggested_skills(lab.prompt("write a haiku about autumn leaves")) == []
        assert os.listdir(found[1]) == []  # every prompt removed its pipe
    finally:
        os.unlink(found[0])  # the service leaves when its pipe is gone (within seconds)


def test_doctor_says_whether_the_model_can_run(
    dense_on: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from pokayokay import doctor
    from pokayokay.relevance.dense import model

    checks: list[dict[str, object]] = []
    doctor._check_dense(checks)
    assert [(c["level"], c["check"]) for c in checks] == [("ok", "dense")]
    forged = tmp_path / "model.onnx"
    forged.write_bytes(b"not the model")
    monkeypatch.setattr(model, "model_file", lambda: str(forged))
    checks.clear()
    doctor._check_dense(checks)
    assert checks[0]["level"] == "problem" and "sha256" in str(checks[0]["detail"])
    monkeypatch.setenv("POKAYOKAY_DENSE", "0")
    checks.clear()
    doctor._check_dense(checks)
    assert checks == []  # off: the skills line says so


# -- the service takes requests as hostile -----------------------------------------------------


def test_a_reply_goes_only_into_a_pipe_in_the_replies_folder(tmp_path: Path) -> None:
    replies = tmp_path / "dense-replies"
    replies.mkdir()
    outside = tmp_path / "outside"
    os.mkfifo(outside)
    keep = os.open(outside, os.O_RDONLY | os.O_NONBLOCK)  # a reader, so it could be written
    try:
        assert not service.reply_to(str(outside), str(replies), b"x\n")
        assert not service.reply_to(str(replies / ".." / "outside"), str(replies), b"x\n")
        assert os.read(keep, 10) == b""  # nothing reached it
    finally:
        os.close(keep)
    regular = replies / "a-file"
    regular.write_text("kept")
    assert not service.reply_to(str(regular), str(replies), b"overwritten\n")
    assert regular.read_text() == "kept"
    target = tmp_path / "target"
    target.write_text("kept")
    (replies / "a-link").symlink_to(target)
    assert not service.reply_to(str(replies / "a-link"), str(replies), b"overwritten\n")
    assert target.read_text() == "kept"
    gone = replies / "gone"
    os.mkfifo(gone)  # its prompt left: nobody reads it
    assert not service.reply_to(str(gone), str(replies), b"late\n")
    for request in (["not", "a", "dict"], 3, None):
        assert not service.reply_to(request, str(replies), b"x\n")


def test_pipes_prompts_left_behind_are_removed(tmp_path: Path) -> None:
    replies = tmp_path / "dense-replies"
    replies.mkdir()
    old, new = replies / "1-1", replies / "2-2"
    os.mkfifo(old)
    os.mkfifo(new)
    (replies / "not-a-pipe").write_text("kept")
    past = time.time() - service.STALE_REPLY_SECONDS - 5
    os.utime(old, (past, past))
    service.remove_stale_replies(str(replies))
    assert sorted(os.listdir(replies)) == ["2-2", "not-a-pipe"]


@pytest.mark.parametrize(
    "line",
    [b"\xff\xfe not utf-8", b"{not json", b"[]", b'{"v": 1, "op": "skills"}', b"x" * 70_000],
)
def test_a_line_it_cannot_take_is_logged_and_dropped(
    opinion: service.Opinion, tmp_path: Path, line: bytes, capsys: pytest.CaptureFixture[str]
) -> None:
    service.handle(opinion, line, str(tmp_path))
    assert "pokayokay dense:" in capsys.readouterr().err
    assert os.listdir(tmp_path) == []  # nothing written anywhere


# -- recall with the dense opinion ------------------------------------------------------------


def _notes_index() -> tuple[Any, list[str]]:
    from helpers import recall_eval

    notes = [
        {"id": "n1", "kind": "learning", "text": "Run the app locally with `make dev`: it starts "
         "Postgres in docker and the worker beside the web server."},
        {"id": "n2", "kind": "learning", "text": "Invoices are numbered per tenant; never reuse "
         "a number after a credit note."},
        {"id": "f1", "kind": "fix", "text": "pytest failed on test_invoice_numbers; fixed by "
         "resetting the sequence in conftest.py"},
    ]
    index = recall_eval.build(notes)
    return index, [index.doc(i).id for i in range(len(index))]


def test_the_note_the_model_ranks_first_joins_the_candidates_never_a_fix() -> None:
    from pokayokay.relevance.dense_notes import DenseNotes
    from pokayokay.relevance.note_index import recall

    index, ids = _notes_index()
    prompt = "new here, where do I begin"  # no word of any note
    assert recall(index, prompt, gate=False).hits == []
    opinion = DenseNotes(ids, {"f1": 0.9, "n1": 0.7, "n2": 0.1})
    hits = recall(index, prompt, gate=False, dense=lambda: opinion).hits
    assert [h.doc.id for h in hits] == ["n1"]  # the fix ranked higher: never on the model alone
    assert opinion.first_choice(index, shown={"n1"}).doc.id == "n2"  # type: ignore[union-attr]
    speaks = Gate(tuple([0.0] * len(FEATURES) + [10.0, 0.0, 0.0]), -5.0, 0.5)
    assert [h.doc.id for h in recall(index, prompt, gate=speaks, dense=lambda: opinion).hits] == [
        "n1"
    ]
    silent = Gate(tuple([0.0] * len(FEATURES) + [10.0, 0.0, 0.0]), -30.0, 0.5)
    assert recall(index, prompt, gate=silent, dense=lambda: opinion).hits == []
    # a prompt the code at hand answers gets no note on the model's word
    explain = "explain what this function does"
    assert recall(index, explain, gate=False, dense=lambda: opinion).hits == []


def test_an_opinion_about_another_index_adds_nothing() -> None:
    from pokayokay.relevance.dense_notes import DenseNotes

    index, _ids = _notes_index()
    shifted = DenseNotes(["n2", "n1", "f1"], {"n1": 0.7, "n2": 0.1, "f1": 0.0})
    assert shifted.first_choice(index) is None  # the note at that place is another one
    assert DenseNotes([], {}).first_choice(index) is None


def test_the_hook_reads_the_answer_once_for_recall_and_skills(
    fake_service: list[bytes], tmp_path: Path
) -> None:
    from pokayokay.relevance.dense_notes import dense_notes

    reply = json.loads(_reply("pdf", [0.5]))
    notes = json.loads(_reply("n1\nn2", [0.25, -0.5]))
    reply.update(notes=notes["names"], note_cosines=notes["cosines"])
    fake_service.append(json.dumps(reply).encode() + b"\n")
    pending = client.ask(str(tmp_path), "merge these pdfs", notes=("/m", "/p", "/s", "merge"))
    assert pending is not None
    read = dense_notes(pending)
    assert read is not None
    found = read()
    assert found is not None and found.ids == ["n1", "n2"]
    assert found.cosines == {"n1": 0.25, "n2": -0.5}
    assert read() is found  # read once
    assert pending.cosines() == {"pdf": 0.5}  # the same answer, for the skills
    assert dense_notes(None) is None


def test_status_names_the_dense_gates_only_where_the_opinion_can_be_had(
    dense_on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pokayokay.status import opinion_line

    recall, skills = opinion_line("recall"), opinion_line("skills")
    assert recall.startswith("lexical and dense (all-MiniLM-L6-v2")
    assert recall.endswith(
        "gate_recall.json, gate_recall_asked.json, gate_recall_dense.json, "
        "gate_recall_asked_dense.json"
    )
    assert skills.endswith("gate_skills_dense.json, gate_skills_asked_dense.json")
    monkeypatch.setenv("POKAYOKAY_DENSE", "off")
    assert opinion_line("recall") == (
        "lexical (the dense opinion is off: POKAYOKAY_DENSE=0); relevance gates "
        "gate_recall.json, gate_recall_asked.json"
    )


def test_a_note_only_the_model_chose_is_shown_without_a_word_score() -> None:
    from pokayokay.recall.block import block
    from pokayokay.relevance.dense_notes import DenseNotes
    from pokayokay.relevance.note_index import recall

    index, ids = _notes_index()
    opinion = DenseNotes(ids, {"n1": 0.7, "n2": 0.1, "f1": 0.0})
    hits = recall(index, "new here, where do I begin", gate=False, dense=lambda: opinion).hits
    text = block(hits)
    assert "- [by meaning] learning" in text and "[0.00]" not in text
