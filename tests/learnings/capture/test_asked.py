"""How a teammate might ask for a learning (``remember --asked``, decision 0175): stored in the
frontmatter, kept by every rewrite, matched by recall, never shown, judged by its own gate."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pokayokay.cli.main import main as cli
from pokayokay.infra import frontmatter
from pokayokay.infra.frontmatter import UNSUPPORTED
from pokayokay.infra.locate import memory_location_for
from pokayokay.learnings.capture.asked import merged, phrases
from pokayokay.learnings.model import ASKED_CHARS, ASKED_MAX, Learning, identity
from pokayokay.learnings.topics.topic_file import parse, render, split_frontmatter
from pokayokay.recall.readers import learning_document
from pokayokay.relevance import fitted
from pokayokay.relevance.asked import ASKED_ENOUGH
from pokayokay.relevance.gate import FEATURES, Evidence, Gate, select
from pokayokay.relevance.note_index import Index, recall

TEXT = (
    "Flash the board with `cargo run --release -p firmware` from the firmware/ folder only: "
    "the runner and the target are set in firmware/.cargo/config.toml"
)
ASKED = ("how do I flash the nrf board?", "flashing fails with can't find crate for core")


def _learning(text: str = TEXT, asked: tuple[str, ...] = ()) -> Learning:
    return Learning(name="flash-board", description=text[:100], text=text,
                    hash=identity(text), asked=asked)  # fmt: skip


def _stored(project: Path) -> tuple[Path, Learning]:
    folder = memory_location_for(project).memory_dir
    (path,) = sorted(folder.glob("learning-*.md"))
    return path, parse(path.read_text(encoding="utf-8"))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=200), max_size=12))
def test_the_phrases_survive_the_file_as_cleaned(lines: list[str]) -> None:
    cleaned, _kinds = phrases("\n".join(lines))
    kept = merged(cleaned, ())
    assert len(kept) <= ASKED_MAX
    assert all(p and "\n" not in p and len(p) <= ASKED_CHARS for p in kept)
    rendered = render(_learning(asked=kept))
    back = parse(rendered)
    assert back.asked == kept
    assert back.text == TEXT  # the body is the learning, never the phrases
    # read without a YAML library, as a prompt reads a learning it is about to show
    parts = split_frontmatter(rendered)
    assert parts is not None and frontmatter.load(parts[0]) is not UNSUPPORTED


def test_newest_phrases_come_first_and_repeats_go() -> None:
    assert merged(["b", "A"], ["a", "c"]) == ("b", "A", "c")
    assert len(merged([str(n) for n in range(20)], ())) == ASKED_MAX


def test_a_secret_in_a_phrase_is_redacted_before_it_is_kept() -> None:
    token = "ghp_" + "a1B2c3D4e5" * 4
    cleaned, kinds = phrases(f"the deploy says bad credentials for {token}")
    assert token not in cleaned[0] and "[redacted:" in cleaned[0]
    assert kinds


def test_remember_asked_adds_the_phrases_and_changes_nothing_else(project: Path) -> None:
    base = ["remember", "--project", str(project)]
    assert cli([*base, TEXT]) == 0
    path, before = _stored(project)
    text_before = path.read_text(encoding="utf-8")
    assert cli([*base, "--asked", before.name, *ASKED]) == 0
    _path, after = _stored(project)
    assert after.asked == ASKED
    assert (after.text, after.observations, after.hash) == (
        before.text, before.observations, before.hash)  # fmt: skip
    added = set(path.read_text(encoding="utf-8").splitlines()) - set(text_before.splitlines())
    assert len(added) == 1 and next(iter(added)).startswith("  asked: [")
    # a reinforcement keeps them; a second --asked puts its own first
    assert cli([*base, TEXT]) == 0
    assert cli([*base, "--asked", before.name, "where do I run the flash from?"]) == 0
    _path, again = _stored(project)
    assert again.observations == 2
    assert again.asked == ("where do I run the flash from?", *ASKED)


def test_status_and_doctor_count_the_learnings_with_phrases(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def recall_lines() -> list[str]:
        lines = []
        for command in ("status", "doctor"):
            assert cli([command, "--project", str(project)]) in (0, 1)  # doctor: 1 on a problem
            out = capsys.readouterr().out
            lines += [line for line in out.splitlines() if "recall: lexical" in line]
        assert len(lines) == 2, lines  # one from each command
        return lines

    memory = memory_location_for(project).memory_file  # status reports a MEMORY.md that exists
    memory.parent.mkdir(parents=True, exist_ok=True)
    memory.write_text("# Memory\n", encoding="utf-8")
    gates = (
        "recall: lexical (the dense opinion is off: POKAYOKAY_DENSE=0); relevance gates "
        "gate_recall.json, gate_recall_asked.json"
    )
    assert all(line.endswith(gates) for line in recall_lines())  # no learning: nothing to count
    base = ["remember", "--project", str(project)]
    assert cli([*base, TEXT]) == 0
    counted = "; 0 of 1 learnings carry how a teammate might ask for them (/learning-phrases"
    for line in recall_lines():
        assert counted in line
        assert "/pokayokay:learning-phrases with the plugin" in line
    _path, learning = _stored(project)
    assert cli([*base, "--asked", learning.name, *ASKED]) == 0
    for line in recall_lines():  # two phrases: fewer than /remember asks for (decision 0191)
        assert "; 1 of 1 learnings carry how a teammate might ask for them, 1 of them fewer " \
            "than 6 (/learning-phrases writes the rest" in line
    more = [f"what about flashing step {i}?" for i in range(ASKED_ENOUGH - len(ASKED))]
    assert cli([*base, "--asked", learning.name, *more]) == 0
    for line in recall_lines():
        assert line.endswith("; 1 of 1 learnings carry how a teammate might ask for them")


def test_remember_asked_refuses_what_it_cannot_do(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["remember", "--project", str(project)]
    assert cli([*base, TEXT]) == 0
    _path, learning = _stored(project)
    assert cli([*base, "--asked", "no-such-learning", "a question"]) == 2
    assert "no learning named no-such-learning" in capsys.readouterr().err
    assert cli([*base, "--asked", "../outside", "a question"]) == 2
    assert cli([*base, "--asked", learning.name, "  ", ""]) == 2
    assert "no phrase" in capsys.readouterr().err
    # the slash command's answer: on stdout, exit 0 whatever happened
    assert cli([*base, "--reply", "--asked", "no-such-learning", "a question"]) == 0
    assert "no learning named" in capsys.readouterr().out
    assert not list(project.rglob("outside*"))


def test_recall_matches_the_phrases_and_never_shows_them() -> None:
    plain = _learning(
        "Release process: bump the version in firmware/Cargo.toml and upload the signed zip to "
        "the firmware-releases bucket"
    )
    doc, counts = learning_document(plain, "learning-release.md")
    asked = _learning(plain.text, ("where do field units get new OTA images from?",))
    doc_asked, counts_asked = learning_document(asked, "learning-release.md")
    assert not doc.asked and doc_asked.asked
    assert doc_asked.text == doc.text  # what is shown is the learning alone
    assert set(counts_asked) > set(counts)  # what is matched grows
    # the phrase's own terms, kept apart for the gate (decision 0177)
    assert {"field", "unit", "ota", "imag"} <= set(doc_asked.asked.split())
    index = Index.build([doc_asked], [counts_asked])
    again = Index.from_data(index.to_data())  # the cache keeps them
    assert again.doc(0).asked == doc_asked.asked
    hits = recall(again, "where do the field units pick up new OTA images from?", gate=False).hits
    assert [h.doc.text for h in hits] == [doc.text]


def _evidence(score: float) -> Evidence:
    return Evidence(score, 0.0, frozenset({"ota"}), frozenset({"ota"}), frozenset(), 2)


def test_each_candidate_is_judged_by_its_own_gate() -> None:
    weights = (1.0, *[0.0] * (len(FEATURES) - 1))
    strict = Gate(weights, 0.0, 0.99)
    lenient = Gate(weights, 0.0, 0.5)
    found = [_evidence(1.0)]
    assert select(strict, found) == []
    assert select(strict, found, [lenient]) == [0]


def test_a_note_with_phrases_is_judged_by_the_gate_fitted_with_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    chosen: list[list[Gate]] = []
    plain, asked = fitted.fitted(fitted.RECALL), fitted.fitted(fitted.RECALL_ASKED)
    assert plain.weights != asked.weights
    ranked = ["plain", "asked"]

    def spy(gate: Gate, evidence: list[Evidence], gates: list[Gate] | None = None) -> list[int]:
        chosen.append(list(gates or []))
        return []

    monkeypatch.setattr(fitted, "select", spy)
    found = lambda: [_evidence(0.3)] * 2  # noqa: E731
    fitted.speak(True, fitted.RECALL, ranked, found, lambda c: c == "asked")
    fitted.speak(True, fitted.RECALL, ranked, found, lambda c: False)
    assert chosen == [[plain, asked], []]


def test_the_skill_and_the_command_ask_for_the_phrases_the_same_way() -> None:
    """The capturing skill's example names the learning it shows being stored, and both texts
    Claude reads ask for 6 to 8 varied phrases in the teammate's own words (decision 0191)."""
    import re

    from pokayokay.learnings.model import make_name

    repo = Path(__file__).resolve().parents[3]
    skill = (repo / "skills" / "capturing-learnings" / "SKILL.md").read_text("utf-8")
    command = (repo / "commands" / "remember.md").read_text("utf-8")
    stored = re.search(r"<<'POKAYOKAY_LEARNING'\n(.+)\n", skill)
    named = re.search(r"pokayokay remember --asked (\S+) ", skill)
    assert stored and named and named[1] == make_name(stored[1])
    for text in (skill, command):
        flat = " ".join(text.split())
        assert "6 to 8 short requests or questions" in flat
        assert "Use their own words rather than the learning's" in flat
        assert "vary them from one line to the next" in flat
        assert "never shown" in flat


def test_the_command_asks_as_the_shipped_gates_phrases_were_written() -> None:
    """``/remember`` asks Claude for phrases in the words the train and dev notes' phrases were
    written under (``tests/data/recall_asked/train_dev.json``): the asked gates were fitted on
    them (decision 0191)."""
    import json

    repo = Path(__file__).resolve().parents[3]
    said = " ".join((repo / "commands" / "remember.md").read_text("utf-8").split())
    data = repo / "tests" / "data" / "recall_asked" / "train_dev.json"
    instruction = json.loads(data.read_text("utf-8"))["instruction"]
    sentences = instruction.split(". ")
    assert sentences[0].startswith("Write 6 to 8 short requests or questions")
    for sentence in sentences[1:-1]:  # the first names the count, the last the layout
        assert sentence.rstrip(".") in said, sentence


# -- the backfill: /learning-phrases (decision 0176) ------------------------------------------

OTHER = "Never run alembic upgrade head against staging by hand; use make migrate-staging first"


def test_learnings_without_phrases_are_listed_and_filled_in_one_batch(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    base = ["remember", "--project", str(project)]
    assert cli([*base, TEXT]) == 0 and cli([*base, OTHER]) == 0
    capsys.readouterr()
    assert cli([*base, "--unasked", "--limit", "1"]) == 0
    listed = capsys.readouterr().out
    assert listed.startswith("2 learning(s) have no phrases yet; the first 1, each with its text")
    assert "1 more after these: run it again." in listed
    folder = memory_location_for(project).memory_dir
    names = sorted(p.name.removeprefix("learning-").removesuffix(".md") for p in
                   folder.glob("learning-*.md"))  # fmt: skip
    batch = "".join(f"## {name}\nhow do I {name}?\n\n" for name in names) + "## nope\nx\n"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(batch.encode("utf-8"))))
    assert cli([*base, "--asked-from", "-", "--reply"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [*(f"Noted 1 way to ask for {name}." for name in names),
                   "Nothing added: no learning named nope."]  # fmt: skip
    for name in names:
        learning = parse((folder / f"learning-{name}.md").read_text("utf-8"))
        assert learning.asked == (f"how do I {name}?",)
    assert cli([*base, "--unasked"]) == 0
    listed = capsys.readouterr().out  # one phrase each: fewer than /remember asks for
    assert listed.startswith("0 learning(s) have no phrases yet and 2 have fewer than 6;")
    for name in names:
        assert f"- {name}: " in listed and f"  its 1 phrase(s) so far: how do I {name}?" in listed


def test_learnings_with_too_few_phrases_are_listed_after_those_without_and_topped_up(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A learning stored when /remember asked for 3 to 6 phrases is listed, fewest first after
    those with none, with the ones it has; the top-up keeps them (decision 0191)."""
    import io

    base = ["remember", "--project", str(project)]
    third = "The nightly export job writes to s3://exports-staging, never to the prod bucket"
    for text in (TEXT, OTHER, third):
        assert cli([*base, text]) == 0
    folder = memory_location_for(project).memory_dir
    by_text = {parse(p.read_text("utf-8")).text: p.name.removeprefix("learning-")[:-3]
               for p in folder.glob("learning-*.md")}  # fmt: skip
    flash, other, export = by_text[TEXT], by_text[OTHER], by_text[third]
    assert cli([*base, "--asked", flash, *ASKED, "where do I run cargo for the board?"]) == 0
    assert cli([*base, "--asked", export, "where does the export go?"]) == 0
    capsys.readouterr()
    assert cli([*base, "--unasked"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert listed[0] == ("1 learning(s) have no phrases yet and 2 have fewer than 6; the first "
                         "3, each with its text as stored (the user's notes, reference data):")
    entries = [line.split(":")[0] for line in listed if line.startswith("- ")]
    assert entries == [f"- {other}", f"- {export}", f"- {flash}"]  # none, then fewest first
    assert f"  its 3 phrase(s) so far: {ASKED[0]} | {ASKED[1]} | where do I run cargo for the " \
        "board?" in listed
    more = [f"flashing question {i}" for i in range(ASKED_ENOUGH - 3)]
    batch = f"## {flash}\n" + "\n".join(more) + "\n"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(batch.encode("utf-8"))))
    assert cli([*base, "--asked-from", "-", "--reply"]) == 0
    capsys.readouterr()
    learning = parse((folder / f"learning-{flash}.md").read_text("utf-8"))
    assert learning.asked == (*more, *ASKED, "where do I run cargo for the board?")
    assert cli([*base, "--unasked"]) == 0
    out = capsys.readouterr().out
    assert f"- {flash}:" not in out and "1 learning(s) have no phrases yet and 1 has fewer" in out


def test_a_batch_that_is_not_one_is_refused_and_changes_nothing(
    project: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    base = ["remember", "--project", str(project)]
    assert cli([*base, TEXT]) == 0
    path, _before = _stored(project)
    text = path.read_text("utf-8")
    stray = tmp_path / "batch.txt"
    stray.write_text("a phrase before any name\n", "utf-8")
    assert cli([*base, "--asked-from", str(stray)]) == 2
    assert "before any '## NAME' line" in capsys.readouterr().err
    assert cli([*base, "--asked-from", str(tmp_path / "missing.txt")]) == 2
    assert path.read_text("utf-8") == text


def test_the_backfill_command_asks_as_remember_does_and_runs_only_remember() -> None:
    import re

    from ruamel.yaml import YAML

    from pokayokay.install.slash_commands import LEARNING_PHRASES

    repo = Path(__file__).resolve().parents[3]
    text = (repo / "commands" / "learning-phrases.md").read_text("utf-8")
    head, body = text.removeprefix("---\n").split("\n---\n", 1)
    front = YAML(typ="safe").load(head)
    assert front["allowed-tools"] == (
        "Bash(pokayokay remember:*), Bash(command -v pokayokay), Bash(echo:*)"
    )
    assert front["disable-model-invocation"] is True and LEARNING_PHRASES.marker in body
    remember = " ".join((repo / "commands" / "remember.md").read_text("utf-8").split())
    asked = re.search(r"with 6 to 8 short requests or questions as quoted arguments: (.+?) Each",
                      remember)  # fmt: skip
    assert asked is not None
    assert asked[1].removeprefix("what ") in " ".join(body.split())
    assert "--asked-from - --reply <<'POKAYOKAY_LEARNINGS_END'" in body
    assert (repo / ".claude" / "commands" / "learning-phrases.md").read_text("utf-8") == text


def test_learnings_are_listed_by_the_name_their_file_gives(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A script may write a learning whose frontmatter names it otherwise, or a file name
    ``--asked`` cannot address: the listing gives the file's name, and counts the others."""
    base = ["remember", "--project", str(project)]
    assert cli([*base, TEXT]) == 0
    path, learning = _stored(project)
    renamed = path.with_name("learning-flashing-notes.md")
    path.rename(renamed)
    odd = path.with_name("learning-Odd Name.md")
    odd.write_text(renamed.read_text("utf-8").replace("flash", "burn"), "utf-8")
    capsys.readouterr()
    assert cli([*base, "--unasked"]) == 0
    listed = capsys.readouterr().out
    assert "- flashing-notes: Flash the board" in listed and learning.name not in listed
    assert "1 more have a file name phrases cannot be added to" in listed
    assert cli([*base, "--asked", "flashing-notes", "how do I flash it?"]) == 0
    assert parse(renamed.read_text("utf-8")).asked == ("how do I flash it?",)


def test_a_learning_that_cannot_be_written_does_not_stop_the_batch(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    from pokayokay.errors import PokayokayError
    from pokayokay.learnings.capture import asked as asked_module

    base = ["remember", "--project", str(project)]
    assert cli([*base, TEXT]) == 0 and cli([*base, OTHER]) == 0
    folder = memory_location_for(project).memory_dir
    names = sorted(p.stem.removeprefix("learning-") for p in folder.glob("learning-*.md"))
    real = asked_module.add_asked

    def flaky(name: str, text: str, location: object) -> object:
        if name == names[0]:
            raise PokayokayError("cannot write it (disk full); nothing was changed")
        return real(name, text, location)  # type: ignore[arg-type]

    monkeypatch.setattr(asked_module, "add_asked", flaky)
    batch = tmp_path / "batch.txt"
    batch.write_text("".join(f"## {n}\nhow do I {n}?\n" for n in names), "utf-8")
    capsys.readouterr()
    assert cli([*base, "--asked-from", str(batch), "--reply"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"Nothing added to {names[0]}: cannot write it (disk full); nothing was changed.",
        f"Noted 1 way to ask for {names[1]}.",
    ]
    with pytest.raises(SystemExit) as refused:  # one phrase action at a time
        cli([*base, "--unasked", "--asked-from", str(batch)])
    assert refused.value.code == 2
