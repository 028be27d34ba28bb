"""The `pokayokay` command line: status, curate (and its modes), init/uninstall, doctor, demo.

Commands run in-process through ``pokayokay.cli.main.main`` (output captured with capsys); a couple
of runs use the installed interpreter and console script as real subprocesses.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pokayokay import __version__
from pokayokay.cli import main as cli
from pokayokay.hooks.events import HOOKED_EVENTS

VENV_BIN = Path(sys.executable).parent
EVENTS = tuple(spec.event for spec in HOOKED_EVENTS)
TITLES = (
    "Completed Work",
    "Key Decisions",
    "Architecture Notes",
    "Active Patterns",
    "Recent Bug Fixes",
    "Topic Index",
)
MARKERS = (
    "managed by session hooks",
    "promoted from session handoffs",
    "stable project structure",
    "graduated to .claude/rules/ when confirmed",
    "rotated, max 5 entries",
    "links to detail files",
)


# ------------------------------------------------------------------------------------------------
# helpers


def slug(path: Path | str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", str(path))


def state_home() -> Path:
    return Path(os.environ["POKAYOKAY_HOME"])


def log_text() -> str:
    path = state_home() / "logs" / "pokayokay.log"
    return path.read_text(encoding="utf-8") if path.exists() else ""


def memory_dir_for(project: Path) -> Path:
    root = Path(os.path.realpath(project))
    return Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / slug(root) / "memory"


def snapshot(root: Path) -> dict[str, Any] | None:
    """Every path under ``root`` with its bytes and mtime: any write shows up."""
    if not root.exists():
        return None
    out: dict[str, Any] = {".": ("dir", root.stat().st_mtime_ns)}
    for path in sorted(root.rglob("*")):
        st = path.lstat()
        rel = str(path.relative_to(root))
        if path.is_dir():
            out[rel] = ("dir", st.st_mtime_ns)
        else:
            out[rel] = ("file", path.read_bytes(), st.st_mtime_ns)
    return out


def backups() -> list[Path]:
    return sorted(state_home().glob("projects/*/backups/MEMORY.md.*.bak"))


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


CLAUDE_HEAD = (
    "# Memory\n"
    "\n"
    "- [Payment retries](payment-retries.md) — the gateway retries twice  \n"
    "- [Ünïcödé](unicode.md)\t— café ✓\n"
    "\n"
)
CLAUDE_TAIL = "\n## Notes from Claude\n\n- [Deploy](deploy.md) — staging deploys from `main`\n"
COMPLETED = [f"- 2026-01-{d:02d} finished story-{d}" for d in range(1, 26)]  # 25 > budget 20
DECISIONS = [
    "- 2026-02-01 Money is stored in integer cents",
    "  — affects every price field",
    "- 2026-02-02 API versions live in the URL",
    "  — affects routing",
]
BUG_FIXES = [f"- fixed bug number {i} (2026-03-{i:02d})" for i in range(1, 8)]  # 7 > cap 5


def memory_text(
    completed: list[str] = COMPLETED,
    decisions: list[str] = DECISIONS,
    bug_fixes: list[str] = BUG_FIXES,
) -> str:
    bodies = {
        "Completed Work": completed,
        "Key Decisions": decisions,
        "Recent Bug Fixes": bug_fixes,
    }
    parts = []
    for title, marker in zip(TITLES, MARKERS, strict=True):
        body = "".join(line + "\n" for line in bodies.get(title, []))
        parts.append(f"## {title}\n<!-- pokayokay: {marker} -->\n{body}<!-- /pokayokay -->\n")
    return CLAUDE_HEAD + "\n".join(parts) + CLAUDE_TAIL


def write_memory(folder: Path, text: str | None = None) -> bytes:
    folder.mkdir(parents=True, exist_ok=True)
    data = (memory_text() if text is None else text).encode("utf-8")
    (folder / "MEMORY.md").write_bytes(data)
    return data


@pytest.fixture
def memory(project: Path) -> Path:
    return memory_dir_for(project)


@pytest.fixture
def on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The venv's bin folder first on PATH, so the `pokayokay` command resolves."""
    monkeypatch.setenv("PATH", f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}")


# ------------------------------------------------------------------------------------------------
# status


def test_status_json_gives_whole_file_and_per_section_numbers(
    capsys: pytest.CaptureFixture[str], project: Path, memory: Path
) -> None:
    """`status --json`: whole-file lines/bytes against 200/25,000, and for each section its
    lines against its budget (entries against the Recent Bug Fixes cap of 5)."""
    data = write_memory(memory)
    code, out, err = run(capsys, "status", "--json", "--project", str(project))
    assert (code, err) == (0, "")
    status = json.loads(out)
    assert status["exists"] is True
    assert status["memory_file"] == str(memory / "MEMORY.md")
    now = status["before"]
    assert now["lines"] == data.count(b"\n")
    assert now["bytes"] == len(data)
    assert (now["max_lines"], now["max_bytes"]) == (200, 25_000)
    assert now["over"] is False
    # Claude's text: the 4 lines of the head (the blank line right before a managed heading
    # belongs to that section) and the 4 lines of the tail.
    assert now["unmanaged_lines"] == 8
    sections = {s["title"]: s for s in now["sections"]}
    assert list(sections) == list(TITLES)
    assert (sections["Completed Work"]["lines"], sections["Completed Work"]["budget"]) == (25, 20)
    assert sections["Completed Work"]["over"] is True
    assert (sections["Key Decisions"]["lines"], sections["Key Decisions"]["budget"]) == (4, 40)
    assert sections["Key Decisions"]["entries"] == 2
    assert sections["Key Decisions"]["over"] is False
    bugs = sections["Recent Bug Fixes"]
    assert (bugs["lines"], bugs["budget"], bugs["entries"], bugs["max_entries"]) == (7, 15, 7, 5)
    assert bugs["over"] is True
    assert (sections["Topic Index"]["lines"], sections["Topic Index"]["budget"]) == (0, 10)
    assert status["due"]  # curation is due
    assert (memory / "MEMORY.md").read_bytes() == data  # status only reads


def test_status_text_shows_the_same_numbers(
    capsys: pytest.CaptureFixture[str], project: Path, memory: Path
) -> None:
    """`status`: "whole file N / 200 lines  B / 25,000 bytes" and one row per section with
    lines, budget and how far over it is."""
    data = write_memory(memory)
    code, out, err = run(capsys, "status", "--project", str(project))
    assert (code, err) == (0, "")
    whole = re.search(r"whole file\s+(\d+) / 200 lines\s+([\d,]+) / 25,000 bytes\s+ok", out)
    assert whole, out
    assert int(whole[1]) == data.count(b"\n")
    assert int(whole[2].replace(",", "")) == len(data)
    assert "notes outside managed sections: 8 lines" in out
    assert re.search(r"Completed Work\s+25\s+20\s+25\s+over by 5", out), out
    assert re.search(r"Key Decisions\s+4\s+40\s+2\s*$", out, re.M), out
    assert re.search(r"Recent Bug Fixes\s+7\s+15\s+7/5\s+over the 5-entry cap", out), out
    assert re.search(r"Topic Index\s+0\s+10\s+0\s*$", out, re.M), out
    assert "`pokayokay curate` would:" in out
    assert "moved 5 entries" in out


def test_status_says_over_when_the_whole_file_is_past_the_limit(
    capsys: pytest.CaptureFixture[str], project: Path, memory: Path
) -> None:
    """A 250-line MEMORY.md of Claude's own notes: status says OVER, with 250 / 200 lines."""
    text = "# Memory\n" + "".join(f"- [t{i}](t{i}.md) — note {i}\n" for i in range(249))
    write_memory(memory, text)
    code, out, _ = run(capsys, "status", "--project", str(project))
    assert code == 0
    assert re.search(r"whole file\s+250 / 200 lines.*OVER", out), out
    code, out, _ = run(capsys, "status", "--json", "--project", str(project))
    assert json.loads(out)["before"]["over"] is True


def test_status_without_memory_md_says_init_creates_it(
    capsys: pytest.CaptureFixture[str], project: Path, memory: Path
) -> None:
    """No MEMORY.md: status exits 0 and says `pokayokay init` creates it; nothing is created."""
    code, out, err = run(capsys, "status", "--project", str(project))
    assert (code, err) == (0, "")
    assert "no MEMORY.md yet" in out
    assert "`pokayokay init` creates it" in out
    code, out, _ = run(capsys, "status", "--json", "--project", str(project))
    assert json.loads(out)["exists"] is False
    assert not memory.exists()


# ------------------------------------------------------------------------------------------------
# curate and its modes


def test_curate_dry_run_writes_nothing(
    capsys: pytest.CaptureFixture[str], project: Path, memory: Path
) -> None:
    """`curate --dry-run`: says what would move, and leaves bytes and mtimes as they were."""
    write_memory(memory)
    before = snapshot(memory)
    code, out, err = run(capsys, "curate", "--dry-run", "--project", str(project))
    assert (code, err) == (0, "")
    assert "moved 5 entries (5 lines) from Completed Work to completed-work-archive.md" in out
    assert "moved 2 entries (2 lines) from Recent Bug Fixes to bugfixes-archive.md" in out
    assert "not written" in out
    assert snapshot(memory) == before
    assert backups() == []


def test_curate_diff_prints_a_unified_diff_and_writes_nothing(
    capsys: pytest.CaptureFixture[str], project: Path, memory: Path
) -> None:
    """`curate --diff`: a unified diff of MEMORY.md and of each new archive; every line taken
    out of MEMORY.md shows up as added to an archive; nothing is written."""
    write_memory(memory)
    before = snapshot(memory)
    code, out, err = run(capsys, "curate", "--diff", "--project", str(project))
    assert (code, err) == (0, "")
    assert f"--- {memory / 'MEMORY.md'}\n" in out
    assert f"+++ {memory / 'MEMORY.md'}" in out
    assert f"+++ {memory / 'completed-work-archive.md'}\n" in out
    assert f"+++ {memory / 'bugfixes-archive.md'}\n" in out
    assert re.search(r"^@@ -\d+(,\d+)? \+\d+(,\d+)? @@", out, re.M)
    removed = [
        line[1:] for line in out.splitlines() if line.startswith("-") and not line.startswith("---")
    ]
    added = [
        line[1:] for line in out.splitlines() if line.startswith("+") and not line.startswith("+++")
    ]
    assert sorted(removed) == sorted(COMPLETED[:5] + BUG_FIXES[:2])
    assert all(line in added for line in removed)
    assert snapshot(memory) == before
    assert backups() == []


def test_curate_check_exits_1_when_due_and_0_after_curate(
    capsys: pytest.CaptureFixture[str], project: Path, memory: Path
) -> None:
    """`curate --check` (for CI): exit 1 and nothing written while changes are due; exit 0 once
    `curate` has run."""
    write_memory(memory)
    before = snapshot(memory)
    assert run(capsys, "curate", "--check", "--project", str(project))[0] == 1
    assert snapshot(memory) == before
    assert run(capsys, "curate", "--project", str(project))[0] == 0
    code, _, err = run(capsys, "curate", "--check", "--project", str(project))
    assert (code, err) == (0, "")


def test_curate_applies_and_a_second_run_has_nothing_to_do(
    capsys: pytest.CaptureFixture[str], project: Path, memory: Path
) -> None:
    """`curate`: the oldest entries move to the archives, Claude's text stays byte-identical,
    the old version is backed up; running it again says there is nothing to do."""
    original = write_memory(memory)
    code, out, err = run(capsys, "curate", "--project", str(project))
    assert (code, err) == (0, "")
    assert "moved 5 entries" in out
    assert "done" in out
    new = (memory / "MEMORY.md").read_text(encoding="utf-8")
    assert new.startswith(CLAUDE_HEAD)
    assert new.endswith(CLAUDE_TAIL)
    archive = (memory / "completed-work-archive.md").read_text(encoding="utf-8")
    for line in COMPLETED[:5]:
        assert line + "\n" in archive
        assert line + "\n" not in new
    for line in COMPLETED[5:]:
        assert line + "\n" in new
    bug_archive = (memory / "bugfixes-archive.md").read_text(encoding="utf-8")
    assert BUG_FIXES[0] in bug_archive and BUG_FIXES[1] in bug_archive
    assert [b.read_bytes() for b in backups()] == [original]
    assert str(backups()[0]) in out

    after = snapshot(memory)
    code, out, _ = run(capsys, "curate", "--project", str(project))
    assert code == 0
    assert "nothing to do" in out
    assert snapshot(memory) == after


def test_curate_json_summarises_the_moves(
    capsys: pytest.CaptureFixture[str], project: Path, memory: Path
) -> None:
    """`curate --json`: changed/written, the backup path, each move and the sizes after."""
    original = write_memory(memory)
    code, out, err = run(capsys, "curate", "--json", "--project", str(project))
    assert (code, err) == (0, "")
    summary = json.loads(out)
    assert summary["changed"] is True
    assert summary["written"] is True
    assert Path(summary["backup"]).read_bytes() == original
    moves = {(m["section"], m["archive"]): m for m in summary["moves"]}
    assert moves[("Completed Work", "completed-work-archive.md")]["entries"] == 5
    assert moves[("Recent Bug Fixes", "bugfixes-archive.md")]["entries"] == 2
    after = {s["title"]: s for s in summary["after"]["sections"]}
    assert after["Completed Work"]["lines"] == 20
    assert after["Recent Bug Fixes"]["entries"] == 5
    assert summary["after"]["lines"] == (memory / "MEMORY.md").read_bytes().count(b"\n")

    code, out, _ = run(capsys, "curate", "--json", "--project", str(project))
    assert json.loads(out)["changed"] is False


def test_curate_quiet_prints_nothing_when_there_is_nothing_to_do(
    capsys: pytest.CaptureFixture[str], project: Path, memory: Path
) -> None:
    """`curate --quiet` on a curated file: no output at all, exit 0."""
    write_memory(memory, memory_text(COMPLETED[:3], [], BUG_FIXES[:2]))
    assert run(capsys, "curate", "--quiet", "--project", str(project)) == (0, "", "")


def test_curate_quiet_prints_nothing_on_a_successful_curation(
    capsys: pytest.CaptureFixture[str], project: Path, memory: Path
) -> None:
    """`curate --quiet` that applies changes: success, so (as --help says) nothing printed."""
    write_memory(memory)
    code, out, err = run(capsys, "curate", "--quiet", "--project", str(project))
    assert (memory / "completed-work-archive.md").exists()  # it did curate
    assert (code, out, err) == (0, "", "")


def test_curate_without_memory_md_is_a_clear_message_and_exit_0(
    capsys: pytest.CaptureFixture[str], project: Path, memory: Path
) -> None:
    """No MEMORY.md: curate says so, points at `pokayokay init`, exits 0 and creates nothing."""
    code, out, err = run(capsys, "curate", "--project", str(project))
    assert (code, err) == (0, "")
    assert f"no MEMORY.md at {memory / 'MEMORY.md'}" in out
    assert "pokayokay init" in out
    assert not memory.exists()
    assert run(capsys, "curate", "--check", "--project", str(project))[0] == 0


# ------------------------------------------------------------------------------------------------
# --memory-dir / --project


def test_memory_dir_overrides_the_default_folder(
    capsys: pytest.CaptureFixture[str], project: Path, memory: Path, tmp_path: Path
) -> None:
    """`--memory-dir DIR`: status and curate use DIR/MEMORY.md; the default folder is ignored."""
    custom = tmp_path / "custom-memory"
    data = write_memory(custom)
    write_memory(memory, "# Memory\n")  # the default one: must not be read or written
    default_before = snapshot(memory)

    code, out, _ = run(
        capsys, "status", "--json", "--project", str(project), "--memory-dir", str(custom)
    )
    status = json.loads(out)
    assert code == 0
    assert status["memory_file"] == str(custom / "MEMORY.md")
    assert status["location_source"] == "--memory-dir"
    assert status["before"]["bytes"] == len(data)

    code, _, _ = run(capsys, "curate", "--project", str(project), "--memory-dir", str(custom))
    assert code == 0
    assert (custom / "completed-work-archive.md").exists()
    assert snapshot(memory) == default_before


def test_project_option_picks_the_project_from_anywhere(
    capsys: pytest.CaptureFixture[str],
    project: Path,
    memory: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`--project DIR` from an unrelated folder, and no option from a subfolder of the
    repository, both find the memory keyed by the git root."""
    data = write_memory(memory)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    code, out, _ = run(capsys, "status", "--json", "--project", str(project))
    assert code == 0
    assert json.loads(out)["memory_file"] == str(memory / "MEMORY.md")
    assert json.loads(out)["before"]["bytes"] == len(data)

    code, out, _ = run(capsys, "status", "--json")  # from `elsewhere`: its own (absent) memory
    assert json.loads(out)["exists"] is False

    sub = project / "src" / "pkg"
    sub.mkdir(parents=True)
    monkeypatch.chdir(sub)
    code, out, _ = run(capsys, "status", "--json")
    assert json.loads(out)["memory_file"] == str(memory / "MEMORY.md")


def test_project_that_is_not_a_folder_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """`--project` naming something that is not a folder: exit 2 and one error line."""
    code, out, err = run(capsys, "status", "--project", str(tmp_path / "nope"))
    assert code == 2
    assert out == ""
    assert len(err.splitlines()) == 1
    assert "nope" in err


# ------------------------------------------------------------------------------------------------
# init / status / uninstall


def test_init_status_uninstall_round_trip(
    capsys: pytest.CaptureFixture[str], project: Path, memory: Path, on_path: None
) -> None:
    """In a fresh git project: init creates .claude/settings.json (our four hooks) and a
    MEMORY.md with no empty managed section (each appears with its first entry); status reads
    it; uninstall removes settings.json and leaves MEMORY.md exactly as it was."""
    settings = project / ".claude" / "settings.json"
    code, out, err = run(capsys, "init", "--project", str(project))
    assert (code, err) == (0, "")
    assert settings.exists()
    hooks = json.loads(settings.read_text())["hooks"]
    assert set(hooks) == set(EVENTS)
    target = memory / "MEMORY.md"
    created = target.read_text(encoding="utf-8")
    assert created == "# Memory\n"
    assert not re.findall(r"^<!-- pokayokay: .*-->$", created, re.M)
    assert str(target) in out

    code, out, err = run(capsys, "status", "--project", str(project))
    assert (code, err) == (0, "")
    assert "nothing to curate" in out
    assert re.search(rf"whole file\s+{created.count(chr(10))} / 200 lines", out), out

    memory_bytes = target.read_bytes()
    code, out, err = run(capsys, "uninstall", "--project", str(project))
    assert (code, err) == (0, "")
    assert not settings.exists()
    assert target.read_bytes() == memory_bytes


# ------------------------------------------------------------------------------------------------
# doctor


def memory_folder_lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if "memory folder:" in line]


def test_doctor_exits_0_when_everything_is_wired(
    capsys: pytest.CaptureFixture[str], project: Path, memory: Path, on_path: None
) -> None:
    """After init, with `pokayokay` on PATH: no FAIL line, exit 0, and the memory-folder
    candidates are listed with exactly one of them USED (the default keyed by the git root)."""
    assert run(capsys, "init", "--project", str(project))[0] == 0
    code, out, err = run(capsys, "doctor", "--project", str(project))
    assert err == ""
    assert "[FAIL]" not in out, out
    assert code == 0
    assert "everything is wired" in out
    candidates = memory_folder_lines(out)
    assert len(candidates) >= 2
    used = [line for line in candidates if " USED " in line]
    assert len(used) == 1, candidates
    assert str(memory) in used[0]


def test_doctor_exits_1_with_a_fail_line_when_no_hooks_are_registered(
    capsys: pytest.CaptureFixture[str], project: Path, memory: Path, on_path: None
) -> None:
    """Nothing registered: a FAIL line naming the missing events, exit 1; candidates listed."""
    write_memory(memory)
    code, out, _ = run(capsys, "doctor", "--project", str(project))
    assert code == 1
    fails = [line for line in out.splitlines() if line.startswith("[FAIL]")]
    assert fails, out
    assert any("hooks" in line and all(e in line for e in EVENTS) for line in fails), fails
    used = [line for line in memory_folder_lines(out) if " USED " in line]
    assert len(used) == 1


def test_doctor_fails_when_the_registered_command_is_not_on_path(
    capsys: pytest.CaptureFixture[str],
    project: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    on_path: None,
) -> None:
    """Hooks registered as `pokayokay`, but PATH no longer finds it: FAIL, exit 1."""
    assert run(capsys, "init", "--project", str(project))[0] == 0
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    code, out, _ = run(capsys, "doctor", "--project", str(project))
    assert code == 1
    assert any(line.startswith("[FAIL]") and "not found" in line for line in out.splitlines()), out


def test_doctor_json(
    capsys: pytest.CaptureFixture[str], project: Path, memory: Path, on_path: None
) -> None:
    """`doctor --json`: ok false and a "problem" check when no hooks are registered."""
    code, out, _ = run(capsys, "doctor", "--json", "--project", str(project))
    data = json.loads(out)
    assert code == 1
    assert data["ok"] is False
    assert data["memory_dir"] == str(memory)
    assert any(c["level"] == "problem" and c["check"] == "hooks" for c in data["checks"])


# ------------------------------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize(
    "command",
    [["status"], ["curate"], ["curate", "--check"], ["doctor"], ["init"]],
    ids=lambda c: "-".join(c),
)
def test_broken_settings_frontmatter_is_exit_2_with_one_line_naming_the_file(
    command: list[str], capsys: pytest.CaptureFixture[str], project: Path, memory: Path
) -> None:
    """Broken YAML in .claude/pokayokay.md: exit 2, ONE stderr line naming the file; nothing
    written (MEMORY.md and the project untouched)."""
    (project / ".claude").mkdir()
    (project / ".claude" / "pokayokay.md").write_text(
        "---\nmax_lines: [1, 2\nfoo: bar\n---\n# team settings\n"
    )
    write_memory(memory)
    memory_before = snapshot(memory)
    project_before = snapshot(project)
    code, out, err = run(capsys, *command, "--project", str(project))
    assert code == 2
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("pokayokay:")
    assert ".claude/pokayokay.md" in lines[0]
    assert snapshot(memory) == memory_before
    assert snapshot(project) == project_before


def test_unknown_settings_key_warns_and_the_command_still_works(
    capsys: pytest.CaptureFixture[str], project: Path, memory: Path
) -> None:
    """An unknown key in .claude/pokayokay.md: a warning line naming the key; status and curate
    work as usual."""
    (project / ".claude").mkdir()
    (project / ".claude" / "pokayokay.md").write_text("---\nfrobnicate: 3\n---\n")
    write_memory(memory)
    code, out, err = run(capsys, "status", "--project", str(project))
    assert code == 0
    warnings = [line for line in err.splitlines() if "warning" in line]
    assert len(warnings) == 1
    assert "frobnicate" in warnings[0]
    assert "pokayokay.md" in warnings[0]
    assert "whole file" in out
    code, out, err = run(capsys, "curate", "--project", str(project))
    assert code == 0
    assert "frobnicate" in err
    assert (memory / "completed-work-archive.md").exists()


@pytest.mark.parametrize("command", [["curate"], ["status"], ["curate", "--diff"]])
def test_memory_md_with_a_nul_byte_is_exit_2_and_left_alone(
    command: list[str], capsys: pytest.CaptureFixture[str], project: Path, memory: Path
) -> None:
    """A MEMORY.md holding a NUL byte looks binary: exit 2, a clear message, file untouched."""
    text = memory_text()
    offset = len(CLAUDE_HEAD) + 5
    data = text[:offset].encode() + b"\x00" + text[offset:].encode()
    memory.mkdir(parents=True)
    (memory / "MEMORY.md").write_bytes(data)
    before = snapshot(memory)
    code, out, err = run(capsys, *command, "--project", str(project))
    assert code == 2
    assert out == ""
    assert len(err.splitlines()) == 1
    assert "NUL byte" in err
    assert str(memory / "MEMORY.md") in err
    assert snapshot(memory) == before
    assert backups() == []


def test_invariant_violation_is_exit_4_and_writes_nothing(
    capsys: pytest.CaptureFixture[str],
    project: Path,
    memory: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A curation result that would drop one of Claude's lines: refused by the runtime
    invariant check; exit 4; MEMORY.md, archives and backups untouched; the log names it."""
    from pokayokay.memory import apply as curate_run
    from pokayokay.memory.curation import curate as real_curate

    dropped = "- [Deploy](deploy.md) — staging deploys from `main`"

    def lossy(*args: Any, **kwargs: Any) -> Any:
        result = real_curate(*args, **kwargs)
        assert dropped + "\n" in result.text
        return dataclasses.replace(result, text=result.text.replace(dropped + "\n", "", 1))

    monkeypatch.setattr(curate_run, "curate", lossy)
    write_memory(memory)
    before = snapshot(memory)
    code, out, err = run(capsys, "curate", "--project", str(project))
    assert code == 4
    assert out == ""
    assert err.startswith("pokayokay:")
    assert "lose" in err
    assert snapshot(memory) == before
    assert backups() == []
    log = log_text()
    assert "nothing written" in log
    assert "lose 1 line" in log
    assert dropped in log


# ------------------------------------------------------------------------------------------------
# demo


def test_demo_runs_end_to_end_and_ends_clean(
    capfd: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """`demo --keep DIR`: status says OVER before, curate runs, status says nothing to curate
    after, and the final `curate --check` exits 0; nothing is written outside DIR."""
    keep = tmp_path / "demo"
    code = cli.main(["demo", "--keep", str(keep)])
    out = capfd.readouterr().out
    assert code == 0, out
    steps = out.split("\n$ pokayokay ")
    names = [step.splitlines()[0] for step in steps[1:]]
    assert names == ["status", "init", "curate --diff", "curate", "status", "curate --check"]
    first_status, _, diff, curate, last_status, check = steps[1:]
    assert "OVER Claude Code's load limit" in first_status
    assert "`pokayokay curate` would:" in first_status
    assert "--- " in diff and "+++ " in diff
    assert "moved" in curate and "done" in curate
    assert "nothing to curate" in last_status
    assert re.search(r"whole file\s+\d+ / 200 lines.*\bok\b", last_status), last_status
    assert "(exit code 0" in check
    assert (keep / "shop").is_dir()
    assert not state_home().exists()
    assert not Path(os.environ["CLAUDE_CONFIG_DIR"]).exists()


# ------------------------------------------------------------------------------------------------
# the real executables


def test_python_dash_m_version() -> None:
    """`python -m pokayokay --version` prints the package version."""
    proc = subprocess.run(
        [sys.executable, "-m", "pokayokay", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"pokayokay {__version__}"


def test_console_script_help_lists_the_commands() -> None:
    """`pokayokay --help` exits 0 and names every command."""
    proc = subprocess.run(
        [str(VENV_BIN / "pokayokay"), "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    for command in ("init", "uninstall", "status", "curate", "doctor", "demo", "hook"):
        assert re.search(rf"^\s+{command}\b", proc.stdout, re.M), proc.stdout


def test_no_command_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    """`pokayokay` alone: the help text, exit 0."""
    code, out, _ = run(capsys)
    assert code == 0
    assert "usage: pokayokay" in out
