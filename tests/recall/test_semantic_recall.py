"""Semantic recall (pokayokay.recall.semantic): what the default install does without it (nothing
changes, nothing is created), the settings and the vector cache, and — with the real model,
skipped when it was not fetched — its quality on tests/data/recall_eval and the prompt hook's
behaviour: notes embedded when stored, a prompt embedding only itself."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from helpers import recall_eval
from helpers.hooks import prompt_payload, run_hook
from helpers.paths import DATA_DIR
from helpers.semantic import install_model, needs_real_model, write_tiny_model

from pokayokay.cli import main as cli
from pokayokay.cli.semantic import refresh_location
from pokayokay.infra.locate import resolve_memory_location
from pokayokay.infra.state import project_state_dir
from pokayokay.learnings import model as learnings
from pokayokay.learnings.topics import topic_file
from pokayokay.names import SEMANTIC_VECTORS_FILE
from pokayokay.recall import index as recall
from pokayokay.recall import semantic
from pokayokay.recall.index import Document, Index
from pokayokay.safety.sanitize import excerpt

EVAL = DATA_DIR / "recall_eval"
NOTES: list[dict[str, Any]] = json.loads((EVAL / "learnings.json").read_text("utf-8"))["notes"]
BY_ID = {n["id"]: n for n in NOTES}
# A paraphrase the words alone find too weakly among the eval set's learnings (L45: Renovate owns
# dependency upgrades; the words find only the feature-flag note).
PARAPHRASE = "put react 19 on my feature branch"
MISSED = "L45"


def learning_of(text: str, category: str) -> learnings.Learning:
    return learnings.Learning(
        name=learnings.make_name(text),
        description=excerpt(text, learnings.DESCRIPTION_MAX),
        text=text,
        category=category,
        hash=learnings.identity(text),
    )


def store_files(project: Path, notes: list[dict[str, Any]]) -> Path:
    """Learnings written as topic files, as `/remember` writes them (no vector computed)."""
    memory = resolve_memory_location(project).memory_dir
    memory.mkdir(parents=True, exist_ok=True)
    for note in notes:
        learning = learning_of(note["text"], note["category"])
        path = memory / learnings.file_name_for(learning.name)
        path.write_text(topic_file.render(learning), "utf-8")
    return memory


payload = prompt_payload


def injected(project: Path, prompt: str) -> str:
    code, out, err = run_hook("UserPromptSubmit", payload(project, prompt))
    assert code == 0 and err == ""
    return json.loads(out)["hookSpecificOutput"]["additionalContext"] if out else ""


def state_of(project: Path) -> Path:
    return project_state_dir(str(resolve_memory_location(project).project_key))


LEARNING_NOTES = [n for n in NOTES if n["kind"] == "learning"]
NEEDLE = BY_ID[MISSED]["text"][:40]


# -- the default install: no numpy needed, nothing changes ------------------------------------


def test_without_the_model_recall_is_lexical_and_nothing_is_created(project: Path) -> None:
    store_files(project, LEARNING_NOTES)
    related = "How do I run the test suite?"
    context = injected(project, related)
    assert "Run the test suite with" in context
    assert NEEDLE not in injected(project, PARAPHRASE)
    assert not Path(semantic.model_dir()).exists()
    assert not (state_of(project) / SEMANTIC_VECTORS_FILE).exists()
    problem, line = semantic.describe(str(project), str(state_of(project)))
    assert not problem and "lexical only" in line
    assert line.endswith("relevance gate gate_recall.json")  # doctor/status name the gate file


def test_the_settings_choose_the_mode_and_their_answer_is_cached(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = state_of(project)
    assert semantic.mode(str(project), str(state)) == "auto"
    settings = project / ".claude" / "pokayokay.md"
    settings.parent.mkdir()
    settings.write_text("---\nrecall:\n  semantic: off\n---\nTeam settings.\n", "utf-8")
    assert semantic.mode(str(project), str(state)) == "off"
    assert json.loads((state / "semantic-mode.json").read_text("utf-8"))["mode"] == "off"
    problem, line = semantic.describe(str(project), str(state))
    assert not problem and line.startswith("semantic recall: off")
    assert line.endswith("relevance gate gate_recall.json")
    settings.write_text("---\nrecall:\n  semantic: on\n---\nTeam settings, longer.\n", "utf-8")
    assert semantic.mode(str(project), str(state)) == "on"
    problem, line = semantic.describe(str(project), str(state))
    assert problem  # asked for, and not there: doctor reports it
    monkeypatch.setenv(semantic.ENV_MODE, "off")
    assert semantic.mode(str(project), str(state)) == "off"


def test_a_bad_mode_in_the_settings_is_reported_and_auto_used(project: Path) -> None:
    settings = project / ".claude" / "pokayokay.md"
    settings.parent.mkdir()
    settings.write_text("---\nrecall:\n  semantic: maybe\n---\n", "utf-8")
    from pokayokay.config.settings import load_settings
    from pokayokay.errors import SettingsError

    with pytest.raises(SettingsError, match=r"recall\.semantic"):
        load_settings(project)
    assert semantic.mode(str(project), str(state_of(project))) == "auto"


def test_the_vector_cache_round_trips_and_a_damaged_one_counts_as_empty(tmp_path: Path) -> None:
    np = pytest.importorskip("numpy")
    path = str(tmp_path / "vectors.bin")
    matrix = np.arange(12, dtype=np.float32).reshape(3, 4) / 10
    semantic.save_vectors(path, ["a", "b", "c"], matrix)
    keys, loaded = semantic.load_vectors(path)
    assert keys == ["a", "b", "c"] and np.array_equal(loaded, matrix)
    data = Path(path).read_bytes()
    for damaged in (data[:-1], b"not vectors" + data, data.replace(b'"dims":4', b'"dims":5')):
        Path(path).write_bytes(damaged)
        assert semantic.load_vectors(path) == ([], None)
    assert semantic.load_vectors(str(tmp_path / "absent")) == ([], None)


def test_a_broken_model_fails_open_to_lexical_recall(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("numpy")
    store_files(project, LEARNING_NOTES)
    folder = Path(semantic.model_dir())
    write_tiny_model(folder)
    assert cli.main(["semantic", "refresh", "--quiet", "--project", str(project)]) == 0
    (folder / "model.safetensors").write_bytes(b"\x00" * 16)  # damaged after the fetch
    code, out, _ = run_hook("UserPromptSubmit", payload(project, "How do I run the test suite?"))
    assert code == 0 and "Run the test suite with" in out
    logged = capsys.readouterr().err
    assert logged.count("\n") == 1 and "semantic recall (lexical used) skipped" in logged


# -- the real model ------------------------------------------------------------------------------


def rates(
    index: Index, prompts: list[dict[str, Any]], state: Path, project: Path, *, with_model: bool
) -> tuple[int, int]:
    """(paraphrases whose notes are all recalled, unrelated prompts that get nothing)."""
    hits = silent = 0
    for prompt in prompts:
        dense = semantic.opinion(index, prompt["q"], str(state), str(project))
        assert (dense is not None) == with_model
        boosts = None if dense is None else dense.boosts
        cosines = None if dense is None else dense.cosines
        found = recall.recall(index, prompt["q"], semantic=boosts, cosines=cosines).hits
        ids = {h.doc.id for h in found}
        if prompt["expect"]:
            hits += set(prompt["expect"]) <= ids
        else:
            silent += not ids

    return hits, silent


@needs_real_model
def test_semantic_recall_finds_more_paraphrases_and_costs_no_set_any_silence(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every labelled set (tuned, fresh, held-out, the blind batches, the older corpus): the
    model lifts hits (blind 33 → 34, blind3 45 → 46, blind5 43 → 45, blind8 46 → 47, older
    40 → 41 over the wider concept table, which finds most of what it used to add) and answers
    5 of the 314 unrelated prompts the words leave silent: blind6's "the upload progress bar
    jumps back to 90% … fix the animation" gets the uploads note, 3 of blind9's 40 and 1 of
    blind10's 40 (written after the constants were chosen) get a note they name the subject of
    ("update the Button story to also show the disabled variant" → the Storybook note). Every
    boost tried trades about one lift for one silence (0.3 above 0.25: 4 and 2; 0.2 above 0.2:
    4 and 3, before blind10)."""
    install_model()
    corpora = [(recall_eval.build(recall_eval.eval_notes()), recall_eval.prompt_sets())]
    corpora.append((recall_eval.build(recall_eval.older_notes()),
                    {"older": recall_eval.older_prompts()}))  # fmt: skip
    gained = lost = 0
    for n, (index, sets) in enumerate(corpora):
        state = state_of(project) / f"corpus-{n}"
        state.mkdir(parents=True)
        monkeypatch.setenv(semantic.ENV_MODE, "off")
        lexical = {name: rates(index, ps, state, project, with_model=False)
                   for name, ps in sets.items()}  # fmt: skip
        monkeypatch.setenv(semantic.ENV_MODE, "auto")
        assert semantic.refresh(index, str(state), str(project)) > 0
        for name, prompts in sets.items():
            hits, silent = rates(index, prompts, state, project, with_model=True)
            print(f"\n{name}: lexical {lexical[name]}, with the model {(hits, silent)}")
            # under the dense gate blind6 loses two hits (41 -> 39), no other set more than one;
            # since the lexical gate weighs every project the same (decision 0145; the dense
            # one, which goes with the semantic extra, was not refit) blind9 three (35 -> 32)
            assert hits >= lexical[name][0] - 3, name
            gained += hits - lexical[name][0]
            lost += max(0, lexical[name][1] - silent)
    print(f"\nwith the model: {gained} more hits, {lost} fewer silences")
    # Under the dense relevance gate (gate_recall_dense.json, fitted with the model: decision
    # 0097) the extra trades 3 more hits for 6 fewer silences (blind5 +3, blind10 +2; blind6
    # loses two hits, blind8 and blind9 two silences each), against 8 for 14 under the lexical
    # gate it used to read. These bars hold the trade as measured.
    assert gained >= 2
    assert lost <= 8


@needs_real_model
def test_with_the_model_recall_decides_with_the_dense_gate_and_says_so(project: Path) -> None:
    install_model()
    state = state_of(project)
    problem, line = semantic.describe(str(project), str(state))
    assert not problem and line.startswith("semantic recall: on")
    assert line.endswith("relevance gate gate_recall_dense.json")
    from pokayokay.relevance.fitted import RECALL, fitted

    index = recall_eval.build(LEARNING_NOTES)
    state.mkdir(parents=True, exist_ok=True)
    dense = fitted(RECALL, dense=True)
    for prompt in ("How do I run the test suite?", PARAPHRASE, "write a haiku about autumn"):
        found = semantic.opinion(index, prompt, str(state), str(project), embed_limit=None)
        assert found is not None and set(found.cosines) == set(range(len(index)))
        assert found.boosts == {
            d: semantic.BOOST * (c - semantic.BASELINE)
            for d, c in found.cosines.items()
            if c > semantic.BASELINE
        }
        kwargs: dict[str, Any] = {"semantic": found.boosts, "cosines": found.cosines}
        chosen = [h.doc.id for h in recall.recall(index, prompt, **kwargs).hits]
        assert chosen == [h.doc.id for h in recall.recall(index, prompt, gate=dense, **kwargs).hits]


@needs_real_model
def test_notes_are_embedded_when_stored_and_a_prompt_embeds_only_itself(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pokayokay.recall import encoder

    install_model()
    others = [n for n in LEARNING_NOTES if n["id"] != MISSED]
    store_files(project, others)
    memory = resolve_memory_location(project).memory_dir
    code = cli.main(
        ["remember", "--project", str(project), "--memory-dir", str(memory), "--category",
         BY_ID[MISSED]["category"], BY_ID[MISSED]["text"]]
    )  # fmt: skip
    assert code == 0
    keys, vectors = semantic.load_vectors(str(state_of(project) / SEMANTIC_VECTORS_FILE))
    assert len(keys) == len(LEARNING_NOTES) and vectors.shape == (len(keys), encoder.DIMENSIONS)

    calls: list[int] = []
    real_embed = encoder.Model.embed

    def counting(self: encoder.Model, texts: Any) -> Any:
        calls.append(len(texts))
        return real_embed(self, texts)

    monkeypatch.setattr(encoder.Model, "embed", counting)
    monkeypatch.setenv("POKAYOKAY_MEMORY_DIR", str(memory))
    injected(project, PARAPHRASE)  # under the relevance gate the model no longer lifts NEEDLE
    assert calls == [1]  # the prompt, nothing else

    # A note that arrived some other way (a file written by hand) is not embedded by a prompt
    # (issue 26: a prompt embeds only itself); the project's next store embeds it.
    extra = {"text": "Feature flags live in flags.yaml and are read through flags.enabled().",
             "category": "patterns"}  # fmt: skip
    store_files(project, [extra])
    calls.clear()
    injected(project, "where do we toggle an experimental option for some customers?")
    injected(project, "where do we toggle an experimental option for some customers?")
    assert calls == [1, 1]
    assert cli.main(["semantic", "refresh", "--quiet", "--project", str(project)]) == 0
    assert calls == [1, 1, 1]  # the one note without a vector
    keys, _ = semantic.load_vectors(str(state_of(project) / SEMANTIC_VECTORS_FILE))
    assert len(keys) == len(LEARNING_NOTES) + 1

    # Off in the settings: the same prompt gets lexical recall, which misses the paraphrase.
    settings = project / ".claude" / "pokayokay.md"
    settings.parent.mkdir(exist_ok=True)
    settings.write_text("---\nrecall:\n  semantic: off\n---\n", "utf-8")
    calls.clear()
    assert NEEDLE not in injected(project, PARAPHRASE)
    assert calls == []


@needs_real_model
def test_a_removed_note_takes_its_vector_with_it(project: Path) -> None:
    install_model()
    memory = store_files(project, LEARNING_NOTES[:5])
    location = resolve_memory_location(project)
    assert refresh_location(location) == 5
    assert refresh_location(location) == 0
    os.unlink(sorted(memory.glob("learning-*.md"))[0])
    assert refresh_location(location) == 0
    keys, _ = semantic.load_vectors(str(state_of(project) / SEMANTIC_VECTORS_FILE))
    assert len(keys) == 4


@needs_real_model
def test_the_recall_command_and_doctor_say_semantic_recall_is_on(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install_model()
    store_files(project, LEARNING_NOTES)
    memory = str(resolve_memory_location(project).memory_dir)
    args = ["--project", str(project), "--memory-dir", memory]
    assert cli.main(["recall", PARAPHRASE, "--json", *args]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["semantic"] is True  # (the gate no longer lets the model lift NEEDLE here)
    cli.main(["doctor", *args])
    assert "[ok  ] recall: semantic recall: on (all-MiniLM-L6-v2; " in capsys.readouterr().out


def test_without_the_model_a_prompt_loads_nothing_of_the_extra(project: Path) -> None:
    import subprocess
    import sys

    store_files(project, LEARNING_NOTES)
    injected(project, "How do I run the test suite?")  # builds the recall cache
    probe = (
        "import json, sys\n"
        "from pokayokay.hooks.recall import user_prompt_submit\n"
        "out = user_prompt_submit(json.loads(sys.stdin.read()), 'UserPromptSubmit')\n"
        "extra = sorted(m for m in ('numpy', 'mmap', 'hashlib', 'pokayokay.recall.encoder', "
        "'pokayokay.recall.wordpiece', 'pokayokay.recall.model_fetch') if m in sys.modules)\n"
        "print(json.dumps({'out': out, 'extra': extra}))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe],
        input=json.dumps(payload(project, "How do I run the test suite?")),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env=dict(os.environ, CLAUDE_PROJECT_DIR=str(project)),
    )
    result = json.loads(proc.stdout)
    assert result["extra"] == []
    assert "Run the test suite with" in result["out"]


def test_a_prompt_keeps_the_vectors_of_notes_its_index_does_not_hold(
    project: Path, tmp_path: Path
) -> None:
    """A prompt's index may be incomplete (parse budget): the vectors of the notes it lacks stay
    cached; only a full refresh drops those of notes gone. Runs on a tiny random model."""
    pytest.importorskip("numpy")
    write_tiny_model(Path(semantic.model_dir()))
    state = str(tmp_path / "state")
    texts = ["run the test suite with python", "never deploy on fridays", "upload a large video"]
    full = Index.build([Document(f"n{i}", "learning", t) for i, t in enumerate(texts)])
    part = Index.build([Document("n0", "learning", texts[0])])
    fix = Index.build([Document("f0", "fix", "E501 line too long in views.py, fixed")])
    path = str(tmp_path / "state" / SEMANTIC_VECTORS_FILE)
    assert semantic.refresh(full, state, str(project)) == 3
    boosts = semantic.boosts(part, "run the python test suite", state, str(project))
    assert boosts is not None and set(boosts) <= {0}
    assert len(semantic.load_vectors(path)[0]) == 3
    assert semantic.boosts(fix, "line too long", state, str(project)) is None  # fixes: no vector
    assert semantic.refresh(part, state, str(project)) == 0
    assert semantic.load_vectors(path)[0] == [semantic.key(texts[0])]


def test_a_prompt_embeds_no_note_and_starts_nothing_the_store_embeds_them(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The model fetched (for another project) and a project full of notes without vectors: a
    prompt there embeds no note, loads no model and starts no background job (issue 26: it used
    to start `semantic refresh` of every note); the project's own store (`refresh`, as
    `remember` and `semantic refresh` run it) embeds them, and prompts are boosted from then on."""
    pytest.importorskip("numpy")
    write_tiny_model(Path(semantic.model_dir()))
    from pokayokay.infra import detach
    from pokayokay.recall import encoder

    started: list[list[str]] = []
    monkeypatch.setattr(detach, "detach_command", lambda args, why: started.append(args))
    loads: list[str] = []
    real_load = encoder.load
    monkeypatch.setattr(encoder, "load", lambda folder: loads.append(folder) or real_load(folder))
    state = str(tmp_path / "state")
    words = ["lint", "type", "unit", "smoke", "load", "fuzz", "docs", "license"]
    texts = [f"note {i}: run the {word} checks before a release" for i, word in enumerate(words)]
    index = Index.build([Document(f"n{i}", "learning", t) for i, t in enumerate(texts)])
    path = str(tmp_path / "state" / SEMANTIC_VECTORS_FILE)
    for _ in range(3):
        assert semantic.boosts(index, "which checks run before a release", state, str(project)) \
            is None
    assert (started, loads, semantic.load_vectors(path)[0]) == ([], [], [])
    assert semantic.refresh(index, state, str(project)) == len(texts)  # the store's job
    assert semantic.boosts(index, "which checks run before a release", state, str(project))
    assert len(loads) == 2  # refresh, then the prompt (the query only)
    # A note added by hand later: no vector, no boost for it, still nothing started.
    more = Index.build([*(Document(f"n{i}", "learning", t) for i, t in enumerate(texts)),
                        Document("n8", "learning", "note 8: run the release checks twice")])
    found = semantic.boosts(more, "which checks run before a release", state, str(project))
    assert found is not None and 8 not in found
    assert started == [] and len(semantic.load_vectors(path)[0]) == len(texts)


def test_semantic_refresh_embeds_the_notes_of_the_project(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("numpy")
    write_tiny_model(Path(semantic.model_dir()))
    store_files(project, LEARNING_NOTES[:6])
    assert cli.main(["semantic", "refresh", "--project", str(project)]) == 0
    assert "6 note(s)" in capsys.readouterr().out
    keys, _ = semantic.load_vectors(str(state_of(project) / SEMANTIC_VECTORS_FILE))
    assert len(keys) == 6
    assert cli.main(["semantic", "refresh", "--quiet", "--project", str(project)]) == 0
    assert capsys.readouterr().out == ""
