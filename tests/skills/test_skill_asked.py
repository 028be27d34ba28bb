"""How a user might ask for a skill (decision 0176): the phrase table in the state home, its
writes under the lock, the catalog that analyses a skill again when its phrases change, the
profile that counts their words, the gate that judges a skill carrying them, and the
``pokayokay skills`` command ``/skill-phrases`` drives."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers.paths import DATA_DIR, REPO_ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from pokayokay.relevance import fitted
from pokayokay.relevance.asked import ASKED_CHARS, ASKED_MAX
from pokayokay.relevance.gate import Evidence, Gate
from pokayokay.relevance.skill_match import profile
from pokayokay.skills import asked as skill_asked
from pokayokay.skills.asked import (
    add_asked,
    asked_for,
    parse_table,
    read_table,
    render_table,
    skill_key,
    table_problem,
    unasked,
)
from pokayokay.skills.catalog import Skill, analysed, load_catalog

SKILLS = DATA_DIR / "relevance_test2" / "skills"
BRAND = "brand-guidelines"
COMMS = "internal-comms"
BLUE_PROMPT = "the marketing site uses the wrong shade of blue, align it with our style guide"
BLUE_PHRASES = (  # as tests/e2e/test_skill_phrases.py has Claude write them
    "make this slide deck look like our company's style\n"
    "which hex colours and fonts do we use for marketing material?\n"
    "the landing page uses the wrong shade of blue\n"
    "our logo looks off on this one-pager"
)


def _skill(name: str, description: str = "Write the things people ask for.") -> Skill:
    return analysed(Skill(name, description, f"/x/{name}/SKILL.md", "project"))


@pytest.fixture
def project(tmp_path: Path, isolated_home: Path) -> Path:
    import shutil

    folder = tmp_path / "site"
    for name in (BRAND, COMMS):
        shutil.copytree(SKILLS / name, folder / ".claude" / "skills" / name)
    return folder


def _suggested(project: Path, prompt: str) -> list[str]:
    from pokayokay.skills.advice import advice_for

    return [s.name for s in advice_for(project, prompt, quick=True).suggestions]


# -- the table --------------------------------------------------------------------------------


def test_a_skill_is_known_by_its_name_and_its_description() -> None:
    assert skill_key("pdf", "Read PDFs.") == skill_key("pdf", "Read PDFs.")
    assert skill_key("pdf", "Read PDFs.") != skill_key("pdf", "Read and write PDFs.")
    assert skill_key("pdf", "Read PDFs.") != skill_key("tools:pdf", "Read PDFs.")
    table = {skill_key("pdf", "Read PDFs."): ("pdf", ("open this form",), 1)}
    assert asked_for(table, "pdf", "Read PDFs.") == ("open this form",)
    assert asked_for(table, "pdf", "Read and write PDFs.") == ()  # the description changed


_phrase = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=40).filter(
    lambda p: p.split() != []
)


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(
        st.text("abcdef0123", min_size=4, max_size=8),
        st.tuples(
            st.text("abc-:", min_size=1, max_size=10),
            st.lists(_phrase, min_size=1, max_size=ASKED_MAX),
            st.integers(0, 10_000),
        ),
        max_size=6,
    )
)
def test_the_table_reads_back_what_it_wrote(raw: dict[str, tuple[str, list[str], int]]) -> None:
    table = {k: (n, tuple(" ".join(p.split()) for p in ps), o) for k, (n, ps, o) in raw.items()}
    assert parse_table(render_table(table)) == table


def test_the_table_keeps_its_newest_entries_within_the_size_it_reads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Whatever the phrases (eight of 160 characters, four bytes each at worst), the file
    written is never larger than what the hook reads: the oldest entries go first."""
    monkeypatch.setattr(skill_asked, "MAX_FILE_BYTES", 64 * 1024)
    phrases = tuple(f"{i}" + "\U0001f600" * (ASKED_CHARS - 1) for i in range(ASKED_MAX))
    table = {f"k{i:03d}": (f"s{i}", phrases, i) for i in range(60)}
    text = render_table(table)
    assert len(text.encode("utf-8")) <= skill_asked.MAX_FILE_BYTES
    kept = parse_table(text)
    assert 0 < len(kept) < 60 and table_problem(text) is None
    assert set(kept) == {f"k{i:03d}" for i in range(60 - len(kept), 60)}  # the newest


def test_entries_of_the_wrong_shape_are_left_out() -> None:
    skills = {
        "a": {"name": "ok", "asked": ["one", 2, "  ", "x" * 500]},
        "b": {"name": 3, "asked": ["x"]},
        "c": "nope",
        "d": {"name": "empty", "asked": []},
    }
    text = json.dumps({"format": 1, "skills": skills})
    assert parse_table(text) == {"a": ("ok", ("one", "x" * ASKED_CHARS), 0)}
    assert parse_table("[]") == {}
    with pytest.raises(ValueError):
        parse_table("{nope")


def test_adding_merges_newest_first_and_refuses_what_is_not_installed(isolated_home: Path) -> None:
    catalog = [_skill("pdf"), _skill("xlsx")]
    first = add_asked({"pdf": "fill in this form\nmerge these two files"}, catalog)
    assert (first.added, first.exit_code) == (("pdf",), 0)
    again = add_asked({"pdf": "fill in this form", "nope": "x"}, catalog)
    assert again.unchanged == ("pdf",) and again.unknown == ("nope",)
    assert "Not installed here, left out: nope." in again.message
    add_asked({"pdf": "split the scan into pages"}, catalog)
    table = read_table()
    assert asked_for(table, "pdf", catalog[0].description) == (
        "split the scan into pages", "fill in this form", "merge these two files",
    )  # fmt: skip
    refused = add_asked({"nope": "x"}, catalog)
    assert refused.exit_code == 2 and refused.message.startswith("Nothing added")
    assert add_asked({"pdf": "  \n "}, catalog).exit_code == 2


def test_secrets_are_redacted_before_anything_is_kept(isolated_home: Path) -> None:
    token = "ghp_" + "a1B2c3D4e5" * 4
    result = add_asked({"pdf": f"upload it with {token}"}, [_skill("pdf")])
    assert result.redacted
    stored = Path(skill_asked.asked_path()).read_text("utf-8")
    assert token not in stored and "[redacted:" in stored


def test_a_write_touches_the_marker_that_voids_every_quick_catalog(isolated_home: Path) -> None:
    marker = isolated_home / "pokayokay-state" / "skills.changed"
    add_asked({"pdf": "fill in this form"}, [_skill("pdf")])
    assert marker.exists() and time.time() - marker.stat().st_mtime < 60


def test_a_damaged_table_is_kept_aside_and_never_lost(isolated_home: Path) -> None:
    path = Path(skill_asked.asked_path())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{damaged", "utf-8")
    assert read_table() == {}  # suggestion goes on without phrases
    add_asked({"pdf": "fill in this form"}, [_skill("pdf")])
    kept = [p for p in path.parent.iterdir() if p.name.startswith(path.name + ".damaged-")]
    assert [p.read_text("utf-8") for p in kept] == ["{damaged"]
    assert asked_for(read_table(), "pdf", _skill("pdf").description) == ("fill in this form",)


def test_a_fifo_in_place_of_the_table_does_not_hang_a_read(isolated_home: Path) -> None:
    path = Path(skill_asked.asked_path())
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    assert read_table() == {}


WRITER = """
import sys
from pokayokay.skills.asked import add_asked
from pokayokay.skills.catalog import Skill, analysed
names = sys.argv[1:]
catalog = [analysed(Skill(n, "Write the things people ask for.", "/x", "project")) for n in names]
for n in names:
    add_asked({n: f"ask for {n}"}, catalog)
"""


def test_writers_at_once_lose_no_phrase(isolated_home: Path) -> None:
    groups = [[f"s{g}-{i}" for i in range(6)] for g in range(4)]
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, *names], env=dict(os.environ))
        for names in groups
    ]
    assert [p.wait(timeout=120) for p in procs] == [0] * len(procs)
    table = read_table()
    for names in groups:
        for name in names:
            assert asked_for(table, name, "Write the things people ask for.") == (
                f"ask for {name}",
            )


# -- what matches ----------------------------------------------------------------------------


def test_the_phrases_add_only_the_words_the_description_lacks() -> None:
    description = "Create Word documents (.docx) with headings and tables."
    plain = profile("docx", description)
    asked = profile("docx", description, ["turn my meeting notes into a word file", "docx"])
    assert not plain.asked and asked.asked
    for term, weight in plain.fields.items():
        assert asked.fields[term] == weight  # the description's weights stand
    added = set(asked.fields) - set(plain.fields)
    assert added and all(asked.fields[t] == 1.0 for t in added)
    assert asked.anchors == plain.anchors and asked.negative == plain.negative


def test_a_skill_with_phrases_is_judged_by_the_gate_fitted_with_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pokayokay.relevance import skill_gating as gating
    from pokayokay.relevance.skill_match import Query, Stats

    chosen: list[list[Gate]] = []
    plain, asked = fitted.fitted(fitted.SKILLS), fitted.fitted(fitted.SKILLS_ASKED)
    assert plain.weights != asked.weights

    def spy(gate: Gate, evidence: list[Evidence], gates: list[Gate] | None = None) -> list[int]:
        chosen.append(list(gates or []))
        return []

    monkeypatch.setattr(fitted, "select", spy)
    skills = [
        _skill("pdf"),
        analysed(Skill("xlsx", "Spreadsheets.", "/x", "project"), ["sum these columns"]),
    ]
    stats = Stats.of(skills)
    query = Query("write the spreadsheet things", stats)
    scores = {"pdf": 1.0, "xlsx": 1.0}
    prompt = "write the spreadsheet things"
    gating.speak(True, query, stats, skills, scores, prompt=prompt)
    gating.speak(True, query, stats, skills[:1], scores, prompt=prompt)
    assert chosen == [[plain, asked], []]


# -- the catalog -----------------------------------------------------------------------------


def test_new_phrases_reach_the_next_prompt_and_then_come_from_the_cache(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pokayokay.relevance import skill_match as match

    load_catalog(project)  # SessionStart's full check
    assert _suggested(project, BLUE_PROMPT) == []
    catalog = load_catalog(project)
    add_asked({BRAND: BLUE_PHRASES}, catalog)
    assert _suggested(project, BLUE_PROMPT) == [BRAND]  # the marker voided the quick check
    skills = {s.name: s for s in load_catalog(project)}
    assert skills[BRAND].profile is not None and skills[BRAND].profile.asked
    assert skills[COMMS].profile is not None and not skills[COMMS].profile.asked

    def refuse(*args: object, **kwargs: object) -> object:
        raise AssertionError("analysed again although nothing changed")

    monkeypatch.setattr(match, "profile", refuse)
    warm = {s.name: s for s in load_catalog(project)}
    assert warm[BRAND].profile is not None and warm[BRAND].profile.asked


def test_a_full_check_reads_the_table_only_when_it_changed(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The catalog keeps the table's stamp with its rows: a full check (SessionEnd's, or the
    prompt's when the quick one fails) reads the table only when it changed, and not while it
    changed seconds ago (the stamp could then hide a second write)."""
    add_asked({BRAND: BLUE_PHRASES}, load_catalog(project))
    table = Path(skill_asked.asked_path())
    load_catalog(project)  # written just now: read, its stamp not trusted yet
    old = time.time() - 60
    os.utime(table, (old, old))
    load_catalog(project)  # settled: read once more, its stamp kept with the rows
    reads: list[int] = []
    real = skill_asked.read_table
    monkeypatch.setattr(skill_asked, "read_table", lambda *a: reads.append(1) or real(*a))
    skills = {s.name: s for s in load_catalog(project)}
    assert reads == [] and skills[BRAND].profile is not None and skills[BRAND].profile.asked
    add_asked({COMMS: "write the weekly update"}, load_catalog(project))
    skills = {s.name: s for s in load_catalog(project)}
    assert reads and skills[COMMS].profile is not None and skills[COMMS].profile.asked


def test_a_changed_description_drops_the_phrases_until_they_are_written_again(
    project: Path,
) -> None:
    add_asked({BRAND: BLUE_PHRASES}, load_catalog(project))
    path = project / ".claude" / "skills" / BRAND / "SKILL.md"
    text = path.read_text("utf-8")
    path.write_text(text.replace("Applies Anthropic's", "Applies our"), "utf-8")
    os.utime(path, ns=(1, 1))
    skills = {s.name: s for s in load_catalog(project)}
    assert skills[BRAND].profile is not None and not skills[BRAND].profile.asked
    assert [s.name for s in unasked(skills.values(), read_table())] == [BRAND, COMMS]


# -- the command -----------------------------------------------------------------------------


def _cli(project: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pokayokay", "skills", "--project", str(project), *args],
        input=stdin, capture_output=True, text=True, env=dict(os.environ), timeout=120,
        check=False,
    )  # fmt: skip


def test_the_command_lists_writes_and_lists_again(project: Path) -> None:
    listed = _cli(project, "--unasked", "--limit", "1")
    assert listed.returncode == 0
    assert listed.stdout.startswith("2 skill(s) have no phrases yet; the first 1")
    assert f"- {BRAND}: Applies Anthropic's official brand colors" in listed.stdout
    assert "1 more after these: run it again." in listed.stdout
    batch = f"## {BRAND}\n{BLUE_PHRASES}\n\n## {COMMS}\nwrite the weekly update\n## nope\nx\n"
    wrote = _cli(project, "--asked-from", "-", "--reply", stdin=batch)
    assert (wrote.returncode, wrote.stderr) == (0, "")
    assert wrote.stdout.splitlines() == [
        f"Noted how a user might ask for 2 skill(s): {BRAND}, {COMMS}.",
        "Not installed here, left out: nope.",
    ]
    again = _cli(project, "--unasked")
    assert again.stdout.strip() == "Every skill here already has phrases: nothing to write."
    rows = json.loads(_cli(project, "--json").stdout)
    assert {r["name"]: len(r["asked"]) for r in rows} == {BRAND: 4, COMMS: 1}
    one = _cli(project, "--asked", COMMS, "draft the company announcement")
    assert one.returncode == 0 and "internal-comms" in one.stdout


def test_the_command_refuses_bad_input_clearly(project: Path) -> None:
    stray = _cli(project, "--asked-from", "-", stdin="a phrase before any name\n")
    assert stray.returncode == 2 and "before any '## NAME' line" in stray.stderr
    unknown = _cli(project, "--asked", "nope", "x")
    assert unknown.returncode == 2 and "no installed skill is named nope" in unknown.stderr
    replied = _cli(project, "--asked", "nope", "x", "--reply")
    assert replied.returncode == 0 and "no installed skill is named nope" in replied.stdout
    assert not Path(skill_asked.asked_path()).exists()


def _frontmatter_and_body(path: Path) -> tuple[dict[str, object], str]:
    from ruamel.yaml import YAML

    block, body = path.read_text("utf-8").removeprefix("---\n").split("\n---\n", 1)
    data = YAML(typ="safe").load(block)
    assert isinstance(data, dict)
    return data, body


def test_the_slash_command_runs_only_pokayokay_skills_and_asks_as_measured() -> None:
    """What ``/skill-phrases`` lets run and what it asks Claude to write, the instruction the
    shipped gate's phrases were written under (``tests/data/skills_asked``)."""
    from pokayokay.install.slash_commands import SKILL_PHRASES

    front, body = _frontmatter_and_body(REPO_ROOT / "commands" / "skill-phrases.md")
    assert front["allowed-tools"] == (
        "Bash(pokayokay skills:*), Bash(command -v pokayokay), Bash(echo:*)"
    )
    assert front["disable-model-invocation"] is True
    assert SKILL_PHRASES.marker in body
    block = re.search(r"```!\n(.*?)\n```", body, re.DOTALL)
    assert block is not None and "$ARGUMENTS" not in body
    instruction = json.loads((DATA_DIR / "skills_asked" / "train_dev.json").read_text())[
        "instruction"
    ]
    said = " ".join(body.split())
    for sentence in instruction.split(". ")[:4]:  # the last one says how to hand them over
        assert sentence.removeprefix("Write ").rstrip(".") in said, sentence
    assert "--asked-from - --reply <<'POKAYOKAY_SKILLS_END'" in body
    assert (REPO_ROOT / ".claude" / "commands" / "skill-phrases.md").read_text("utf-8") == (
        REPO_ROOT / "commands" / "skill-phrases.md"
    ).read_text("utf-8")


# -- what a writer must never lose or hide (the review of decision 0176) ---------------------


@pytest.mark.parametrize(
    "entry",
    [
        {"name": "pdf", "asked": "not a list"},
        {"name": "pdf", "asked": [f"phrase {i}" for i in range(ASKED_MAX + 1)]},  # one too many
        {"name": "pdf", "asked": ["x" * (ASKED_CHARS + 1)]},  # a phrase reading would cut
    ],
)
def test_a_table_this_version_cannot_wholly_read_is_kept_aside_before_a_write(
    isolated_home: Path, entry: dict[str, object]
) -> None:
    path = Path(skill_asked.asked_path())
    path.parent.mkdir(parents=True, exist_ok=True)
    odd = json.dumps({"format": 1, "skills": {"x": entry}})
    path.write_text(odd, "utf-8")
    add_asked({"pdf": "fill in this form"}, [_skill("pdf")])
    kept = [p for p in path.parent.iterdir() if p.name.startswith(path.name + ".damaged-")]
    assert [p.read_text("utf-8") for p in kept] == [odd]
    assert table_problem(path.read_text("utf-8")) is None


def test_a_newer_pokayokays_table_is_never_written_over(isolated_home: Path) -> None:
    path = Path(skill_asked.asked_path())
    path.parent.mkdir(parents=True, exist_ok=True)
    newer = json.dumps({"format": 2, "skills": {"x": {"name": "pdf", "phrases": ["a"]}}})
    path.write_text(newer, "utf-8")
    result = add_asked({"pdf": "fill in this form"}, [_skill("pdf")])
    assert result.exit_code == 2 and "written by a newer pokayokay (format 2)" in result.message
    assert path.read_text("utf-8") == newer
    assert [p.name for p in path.parent.iterdir() if ".damaged-" in p.name] == []


def test_a_name_with_no_phrase_is_said_not_dropped(isolated_home: Path) -> None:
    result = add_asked({"pdf": "fill in this form", "xlsx": "  "}, [_skill("pdf"), _skill("xlsx")])
    assert result.added == ("pdf",) and "No phrase given for xlsx." in result.message


def test_the_command_answers_a_held_lock_on_stdout_under_reply(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from pokayokay.cli.main import main as cli
    from pokayokay.infra.safe_write import LockTimeout

    def held(*args: object, **kwargs: object) -> object:
        raise LockTimeout("another pokayokay process holds the lock; try again in a moment")

    monkeypatch.setattr(skill_asked, "add_asked", held)
    base = ["skills", "--project", str(project), "--asked", BRAND, "a phrase"]
    assert cli([*base, "--reply"]) == 0
    out = capsys.readouterr()
    assert out.err == "" and out.out.startswith("Nothing added: another pokayokay process")
    assert cli(base) == 2 and "another pokayokay process" in capsys.readouterr().err


def test_one_phrase_action_at_a_time(project: Path) -> None:
    both = _cli(project, "--asked", BRAND, "x", "--asked-from", "-", stdin="## a\nb\n")
    assert both.returncode == 2 and "not allowed with argument" in both.stderr
    nameless = _cli(project, "--asked-from", "-", stdin="##\na phrase\n")
    assert nameless.returncode == 2 and "a '## ' line without a name" in nameless.stderr


def test_status_counts_the_skills_with_phrases_and_names_the_command(project: Path) -> None:
    from pokayokay.status import skills_line

    before = skills_line(project)
    assert "0 of 2 skills carry how a user might ask for them (/skill-phrases" in before
    assert "/pokayokay:skill-phrases with the plugin" in before
    add_asked({BRAND: BLUE_PHRASES, COMMS: "write the weekly update"}, load_catalog(project))
    after = skills_line(project)
    assert after.endswith("2 of 2 skills carry how a user might ask for them")
    assert after.startswith("lexical (the dense opinion is off: POKAYOKAY_DENSE=0); relevance")
    assert "gate_skills.json, gate_skills_asked.json;" in after
