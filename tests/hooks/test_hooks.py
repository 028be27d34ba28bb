"""The hook runtime, `pokayokay hook <Event>`, fed real payloads captured from Claude Code 2.1.330.

Most tests call ``pokayokay.hooks.runtime.run`` in-process; a representative few run the installed
console script as a subprocess, the way Claude Code runs it, and look at the exit code and the
stderr it would show. Payloads are the captured ones with ``cwd`` (and ``transcript_path``)
pointed at the test's own project; every other field is kept exactly as captured.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers.gitrepo import git
from helpers.hooks import run_hook
from helpers.paths import FIXTURE_SAMPLES_DIR

from pokayokay.hooks import runtime as hook

CONSOLE_SCRIPT = Path(sys.executable).parent / "pokayokay"
SAMPLE_INDEX: dict[str, str] = json.loads(
    (FIXTURE_SAMPLES_DIR / "INDEX.json").read_text(encoding="utf-8")
)

MIB = 1 << 20
CLAUDE_MAX_LINES = 200
CLAUDE_MAX_BYTES = 25_000

# Keys Claude Code accepts in a command hook's JSON output (interfaces doc §1.7).
UNIVERSAL_OUTPUT_KEYS = {
    "continue",
    "stopReason",
    "systemMessage",
    "suppressOutput",
    "terminalSequence",
    "decision",
    "reason",
    "hookSpecificOutput",
}
HOOK_SPECIFIC_KEYS = {
    "SessionStart": {
        "additionalContext",
        "initialUserMessage",
        "sessionTitle",
        "watchPaths",
        "reloadSkills",
    },
    "UserPromptSubmit": {"additionalContext", "sessionTitle", "suppressOriginalPrompt"},
    "PreToolUse": {
        "permissionDecision",
        "permissionDecisionReason",
        "updatedInput",
        "additionalContext",
    },
    "PostToolUse": {
        "additionalContext",
        "updatedToolOutput",
        "updatedMCPToolOutput",
        "classifierContext",
    },
    "PostToolUseFailure": {"additionalContext"},
    "PostToolBatch": {"additionalContext"},
    "SubagentStart": {"additionalContext"},
    "Stop": {"additionalContext"},
    "SubagentStop": {"additionalContext"},
    "MessageDisplay": {"displayContent"},
}


# ------------------------------------------------------------------------------------------------
# helpers


def slug(path: Path | str) -> str:
    """Claude Code's project folder name for a (short) absolute path."""
    return re.sub(r"[^A-Za-z0-9]", "-", str(path))


def state_home() -> Path:
    return Path(os.environ["POKAYOKAY_HOME"])


def log_path() -> Path:
    return state_home() / "logs" / "pokayokay.log"


def memory_dir_for(project: Path) -> Path:
    """Where Claude Code keeps the auto memory of a git project launched at its root."""
    root = Path(os.path.realpath(project))
    return Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / slug(root) / "memory"


def load_sample(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURE_SAMPLES_DIR / name).read_text(encoding="utf-8"))
    return data


def retarget(payload: dict[str, Any], project: Path) -> dict[str, Any]:
    """The captured payload with cwd/transcript_path moved into the test project."""
    out = dict(payload)
    out["cwd"] = str(project)
    if "transcript_path" in out:
        transcripts = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / slug(project)
        out["transcript_path"] = str(transcripts / f"{payload['session_id']}.jsonl")
    return out


def sample_for(name: str, project: Path) -> dict[str, Any]:
    return retarget(load_sample(name), project)




def run_console(
    args: list[str], data: bytes, cwd: Path, timeout: float = 120
) -> subprocess.CompletedProcess[bytes]:
    assert CONSOLE_SCRIPT.exists(), f"console script not found next to {sys.executable}"
    return subprocess.run(
        [str(CONSOLE_SCRIPT), *args],
        input=data,
        cwd=cwd,
        capture_output=True,
        timeout=timeout,
        check=False,
    )


def snapshot(root: Path) -> dict[str, Any] | None:
    """Every path under ``root`` with its bytes (files) and mtime: any write shows up."""
    if not root.exists():
        return None
    out: dict[str, Any] = {".": ("dir", root.stat().st_mtime_ns)}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        st = path.lstat()
        if path.is_symlink():
            out[rel] = ("link", os.readlink(path))
        elif path.is_dir():
            out[rel] = ("dir", st.st_mtime_ns)
        else:
            out[rel] = ("file", path.read_bytes(), st.st_mtime_ns)
    return out


def assert_failed_open(code: int, stderr: str, reason: str, *, traceback: bool) -> str:
    """Exit 1 (never 2), ONE stderr line naming pokayokay and the log, reason in the log."""
    assert code == 1, f"expected exit 1 (non-blocking), got {code}"
    lines = stderr.splitlines()
    assert len(lines) == 1, f"expected exactly one stderr line, got {lines!r}"
    assert stderr.endswith("\n")
    assert lines[0].startswith("pokayokay:"), lines[0]
    assert str(log_path()) in lines[0], f"stderr does not name the log file: {lines[0]!r}"
    log = log_path().read_text(encoding="utf-8")
    assert reason in log, f"{reason!r} not in log:\n{log}"
    if traceback:
        assert "Traceback (most recent call last)" in log
    return lines[0]


# ------------------------------------------------------------------------------------------------
# MEMORY.md builders

CLAUDE_HEAD = (
    "# Memory\n"
    "\n"
    "- [Payment retries](payment-retries.md) — the gateway retries twice  \n"
    "- [Test database](test-database.md)\t— `make db` starts a throwaway Postgres\n"
    "- [Ünïcödé paths](unicode.md) — café ✓ naïve 😀\n"
    "\n"
)
CLAUDE_TAIL = (
    "\n"
    "## Notes from Claude\n"
    "\n"
    "- [Deploy](deploy.md) — staging deploys from `main`, production from tags\n"
    "- [Flaky tests](flaky.md) — rerun `test_checkout_timeout` once under load\n"
)
SECTIONS = [
    ("Completed Work", "managed by session hooks"),
    ("Key Decisions", "promoted from session handoffs"),
    ("Architecture Notes", "stable project structure"),
    ("Active Patterns", "graduated to .claude/rules/ when confirmed"),
    ("Recent Bug Fixes", "rotated, max 5 entries"),
    ("Topic Index", "links to detail files"),
]


def completed_entries(n: int) -> list[str]:
    """``n`` dated entries, oldest first (dates strictly increasing)."""
    out = []
    for i in range(n):
        day = 1 + i % 28
        month = 1 + (i // 28) % 12
        year = 2020 + i // (28 * 12)
        out.append(f"- {year}-{month:02d}-{day:02d} finished story-{i + 1} (done)")
    return out


def managed(entries: dict[str, list[str]]) -> str:
    out = []
    for title, marker in SECTIONS:
        body = "".join(line + "\n" for line in entries.get(title, []))
        out.append(f"## {title}\n<!-- pokayokay: {marker} -->\n{body}<!-- /pokayokay -->\n")
    return "\n".join(out)


def over_budget_memory(completed: int = 30) -> str:
    """Claude's notes around six managed sections; Completed Work is over its 20-line budget."""
    return (
        CLAUDE_HEAD
        + managed(
            {
                "Completed Work": completed_entries(completed),
                "Key Decisions": [
                    "- 2026-03-04 Money is stored in integer cents",
                    "  — affects every price field",
                ],
            }
        )
        + CLAUDE_TAIL
    )


# ------------------------------------------------------------------------------------------------
# fixtures


@pytest.fixture
def project(project: Path) -> Path:
    (project / "README.md").write_text("# proj\n")
    return project


@pytest.fixture
def memory(project: Path) -> Path:
    folder = memory_dir_for(project)
    folder.mkdir(parents=True)
    return folder


# ------------------------------------------------------------------------------------------------
# every captured payload


@pytest.mark.parametrize("key", sorted(SAMPLE_INDEX))
def test_every_captured_payload_exits_0_with_empty_or_documented_json(
    key: str, project: Path, memory: Path
) -> None:
    """Each real 2.1.330 payload, run for its own event: exit 0, stdout empty or JSON of the
    documented shape (hookSpecificOutput.hookEventName == the event); nothing is written into the
    project; events pokayokay does not handle touch neither the state folder nor memory."""
    raw = load_sample(SAMPLE_INDEX[key])
    event = raw["hook_event_name"]
    assert key.split(".")[0] == event  # the index and the payload agree
    # Over Claude Code's load limit, so that SessionStart has something to say.
    (memory / "MEMORY.md").write_text(
        "# Memory\n" + "".join(f"- [note {i}](n{i}.md) — a note\n" for i in range(220)),
        encoding="utf-8",
    )
    project_before = snapshot(project)
    state_before = snapshot(state_home())
    memory_before = snapshot(memory)

    code, out, err = run_hook(event, retarget(raw, project))

    assert code == 0, err
    assert err == ""
    assert snapshot(project) == project_before
    if out:
        assert out.lstrip().startswith("{")
        data = json.loads(out)
        assert isinstance(data, dict)
        assert set(data) <= UNIVERSAL_OUTPUT_KEYS
        specific = data.get("hookSpecificOutput")
        if specific is not None:
            assert specific["hookEventName"] == event
            assert set(specific) - {"hookEventName"} <= HOOK_SPECIFIC_KEYS[event]
    if event not in hook.HANDLERS:
        assert out == ""
        assert snapshot(state_home()) == state_before
        assert snapshot(memory) == memory_before


def test_unhandled_event_does_not_even_need_a_payload(project: Path) -> None:
    """An event with no handler is a no-op before stdin is parsed: garbage there is no error."""
    code, out, err = run_hook("MessageDisplay", b"\xff\x00 not json")
    assert (code, out, err) == (0, "", "")
    assert snapshot(state_home()) is None


def test_unhandled_event_via_console_script_is_silent(project: Path) -> None:
    """The real command on an unhandled event (MessageDisplay): exit 0, no stdout, no stderr."""
    payload = sample_for("MessageDisplay.json", project)
    proc = run_console(["hook", "MessageDisplay"], json.dumps(payload).encode(), project)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    assert snapshot(state_home()) is None


# ------------------------------------------------------------------------------------------------
# SessionStart


def claude_heavy_memory() -> tuple[str, int]:
    """A 250-line MEMORY.md: 230 lines of Claude's notes and one managed section of 20 lines."""
    claude = ["# Memory"] + [f"- [Topic {i}](topic-{i}.md) — detail {i}" for i in range(229)]
    section = [
        "## Completed Work",
        "<!-- pokayokay: managed by session hooks -->",
        *completed_entries(17),
        "<!-- /pokayokay -->",
    ]
    lines = claude + section
    assert len(lines) == 250
    return "\n".join(lines) + "\n", len(claude)


@pytest.mark.parametrize(
    "sample", ["SessionStart.startup.json", "SessionStart.resume.json", "SessionStart.compact.json"]
)
def test_session_start_over_the_line_limit_states_the_numbers(
    sample: str, project: Path, memory: Path
) -> None:
    """A 250-line MEMORY.md: additionalContext gives its line and byte count, Claude Code's
    200-line / 25,000-byte limits and how many lines lie outside managed sections, as facts."""
    text, unmanaged = claude_heavy_memory()
    (memory / "MEMORY.md").write_text(text, encoding="utf-8")
    size = len(text.encode("utf-8"))

    code, out, err = run_hook("SessionStart", sample_for(sample, project))

    assert (code, err) == (0, "")
    data = json.loads(out)
    assert set(data) == {"hookSpecificOutput"}
    specific = data["hookSpecificOutput"]
    assert specific["hookEventName"] == "SessionStart"
    note = specific["additionalContext"]
    assert re.search(r"\b250 lines\b", note), note
    assert f"{size:,} bytes" in note, note
    assert re.search(r"\b200 lines\b", note), note
    assert "25,000 bytes" in note, note
    assert re.search(rf"\b{unmanaged}\b[^.]*outside", note), note
    # Facts, not commands (imperative "system" wording trips prompt-injection defences).
    assert not re.search(r"\b(MUST|IMPORTANT|ALWAYS|NEVER)\b", note)
    assert not note.lower().startswith(("you must", "always", "never"))
    assert snapshot(memory) is not None
    assert (memory / "MEMORY.md").read_text(encoding="utf-8") == text  # SessionStart only reads


def test_session_start_over_the_byte_limit_with_few_lines_also_notes_it(
    project: Path, memory: Path
) -> None:
    """A 30,000-byte MEMORY.md of only 10 lines is past the 25,000-byte limit: a note too."""
    line = "- [long](long.md) " + "x" * (3000 - len("- [long](long.md) ") - 1) + "\n"
    text = line * 10
    assert len(text.encode()) == 30_000
    (memory / "MEMORY.md").write_text(text, encoding="utf-8")

    code, out, err = run_hook("SessionStart", sample_for("SessionStart.startup.json", project))

    assert (code, err) == (0, "")
    note = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert re.search(r"\b10 lines\b", note), note
    assert "30,000 bytes" in note
    assert "25,000 bytes" in note
    assert re.search(r"\b200 lines\b", note)


def start_hook(payload: dict[str, Any]) -> tuple[int, str, str]:
    """SessionStart's hook with the ``watchPaths`` it always returns checked and set aside: one
    path, the MEMORY.md of the memory folder Claude Code would use."""
    code, out, err = run_hook("SessionStart", payload)
    value = json.loads(out)
    watched = value["hookSpecificOutput"].pop("watchPaths")
    assert len(watched) == 1 and Path(watched[0]).name == "MEMORY.md", watched
    return code, json.dumps(value) + "\n", err


TIP_ONLY = (
    json.dumps(
        {
            "hookSpecificOutput": {
                "hookEventName": "SessionStart",
                "additionalContext": "Tip: Use `/remember <learning>` to capture insights.",
            }
        }
    )
    + "\n"
)


@pytest.mark.parametrize(
    ("lines", "line_bytes"),
    [(30, 40), (200, 100), (100, 250)],
    ids=["small", "exactly-200-lines", "exactly-25000-bytes"],
)
def test_session_start_within_the_limit_gives_only_the_tip(
    lines: int, line_bytes: int, project: Path, memory: Path
) -> None:
    """MEMORY.md within 200 lines and 25,000 bytes (limits included): only the /remember tip."""
    line = "- " + "n" * (line_bytes - 3) + "\n"
    (memory / "MEMORY.md").write_text(line * lines, encoding="utf-8")
    assert start_hook(sample_for("SessionStart.startup.json", project)) == (
        0,
        TIP_ONLY,
        "",
    )


def test_session_start_without_memory_md_gives_only_the_tip(project: Path) -> None:
    """No MEMORY.md (not even a memory folder): the tip, and nothing created."""
    assert start_hook(sample_for("SessionStart.startup.json", project)) == (
        0,
        TIP_ONLY,
        "",
    )
    assert not memory_dir_for(project).exists()


def test_session_start_via_console_script_prints_one_json_object(
    project: Path, memory: Path
) -> None:
    """The real command: exit 0, stdout is one JSON object Claude Code parses, stderr empty."""
    text, _ = claude_heavy_memory()
    (memory / "MEMORY.md").write_text(text, encoding="utf-8")
    payload = sample_for("SessionStart.startup.json", project)
    proc = run_console(["hook", "SessionStart"], json.dumps(payload).encode(), project)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == b""
    assert proc.stdout.lstrip().startswith(b"{")
    data = json.loads(proc.stdout)
    assert data["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert "250 lines" in data["hookSpecificOutput"]["additionalContext"]


def test_session_start_honours_pokayokay_memory_dir(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """POKAYOKAY_MEMORY_DIR names the memory folder explicitly."""
    elsewhere = tmp_path / "explicit-memory"
    elsewhere.mkdir()
    text, _ = claude_heavy_memory()
    (elsewhere / "MEMORY.md").write_text(text, encoding="utf-8")
    payload = sample_for("SessionStart.startup.json", project)
    assert start_hook(payload)[1] == TIP_ONLY  # the default folder has none
    monkeypatch.setenv("POKAYOKAY_MEMORY_DIR", str(elsewhere))
    code, out, _ = run_hook("SessionStart", payload)
    assert code == 0
    assert "250 lines" in json.loads(out)["hookSpecificOutput"]["additionalContext"]


def test_session_start_prefers_claude_project_dir_over_cwd(
    project: Path, memory: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """CLAUDE_PROJECT_DIR (the launch folder) wins over the payload's cwd, which follows `cd`."""
    text, _ = claude_heavy_memory()
    (memory / "MEMORY.md").write_text(text, encoding="utf-8")
    other = tmp_path / "other"
    other.mkdir()
    payload = sample_for("SessionStart.startup.json", other)
    assert start_hook(payload) == (0, TIP_ONLY, "")  # cwd alone: other's, none
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    code, out, _ = run_hook("SessionStart", payload)
    assert code == 0
    assert "250 lines" in out


# ------------------------------------------------------------------------------------------------
# SessionEnd / PreCompact curation


def backups() -> list[Path]:
    return sorted(state_home().glob("projects/*/backups/MEMORY.md.*.bak"))


def assert_curated(memory: Path, project: Path, original: str) -> None:
    """Completed Work is back to 20 entries, the 10 oldest are in the archive, Claude's text
    is byte-identical, and the replaced version is backed up in the state folder."""
    new = (memory / "MEMORY.md").read_bytes().decode("utf-8")
    assert new.startswith(CLAUDE_HEAD)
    assert new.endswith(CLAUDE_TAIL)
    entries = completed_entries(30)
    archive = (memory / "completed-work-archive.md").read_text(encoding="utf-8")
    for old in entries[:10]:
        assert old + "\n" not in new
        assert old + "\n" in archive
    for kept in entries[10:]:
        assert kept + "\n" in new
        assert kept not in archive
    assert "completed-work-archive.md" in new  # linked from the Topic Index
    found = backups()
    assert len(found) == 1
    assert found[0].read_bytes() == original.encode("utf-8")
    assert found[0].parent.parent.name == slug(os.path.realpath(project))


@pytest.mark.parametrize(
    ("event", "sample"),
    [("SessionEnd", "SessionEnd.other.json"), ("PreCompact", "PreCompact.manual.json")],
)
def test_curation_hooks_curate_an_over_budget_memory_silently(
    event: str, sample: str, project: Path, memory: Path
) -> None:
    """SessionEnd and PreCompact curate an over-budget MEMORY.md in place and print nothing."""
    original = over_budget_memory()
    (memory / "MEMORY.md").write_text(original, encoding="utf-8")

    code, out, err = run_hook(event, sample_for(sample, project))

    assert (code, out, err) == (0, "", "")
    assert_curated(memory, project, original)


@pytest.mark.parametrize("name", ["SessionEnd", "session-end", "session_end"])
def test_event_name_spellings_are_accepted(name: str, project: Path, memory: Path) -> None:
    """`SessionEnd`, `session-end` and `session_end` all run the SessionEnd handler."""
    original = over_budget_memory()
    (memory / "MEMORY.md").write_text(original, encoding="utf-8")
    assert run_hook(name, sample_for("SessionEnd.other.json", project)) == (0, "", "")
    assert_curated(memory, project, original)


def test_session_end_via_console_script_curates(project: Path, memory: Path) -> None:
    """The real command on SessionEnd: exit 0, silent, the file curated."""
    original = over_budget_memory()
    (memory / "MEMORY.md").write_text(original, encoding="utf-8")
    payload = sample_for("SessionEnd.other.json", project)
    proc = run_console(["hook", "session-end"], json.dumps(payload).encode(), project)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    assert_curated(memory, project, original)


def test_session_end_within_budget_changes_nothing(project: Path, memory: Path) -> None:
    """A MEMORY.md within every budget: SessionEnd writes nothing and backs nothing up."""
    text = CLAUDE_HEAD + managed({"Completed Work": completed_entries(5)}) + CLAUDE_TAIL
    (memory / "MEMORY.md").write_text(text, encoding="utf-8")
    before = snapshot(memory)
    assert run_hook("SessionEnd", sample_for("SessionEnd.other.json", project)) == (0, "", "")
    assert snapshot(memory) == before
    assert backups() == []


def test_session_end_without_memory_md_does_nothing(project: Path) -> None:
    """No MEMORY.md: SessionEnd is silent and creates no memory folder."""
    assert run_hook("SessionEnd", sample_for("SessionEnd.other.json", project)) == (0, "", "")
    assert not memory_dir_for(project).exists()


def big_memory() -> str:
    """Over 1 MiB: one enormous Completed Work section."""
    text = over_budget_memory(completed=30_000)
    assert len(text.encode("utf-8")) > MIB
    return text


def test_session_end_detaches_for_a_memory_md_over_1_mib(
    project: Path, memory: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over 1 MiB, SessionEnd hands curation to a detached process (Claude Code kills
    SessionEnd hooks after 1.5 s) and returns without curating in-process."""
    from pokayokay.hooks import session

    calls: list[tuple[Any, ...]] = []
    monkeypatch.setattr(session, "detach_curation", lambda *args, **kw: calls.append(args[:2]))

    def no_inline_curation(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("SessionEnd curated a >1 MiB file in-process")

    monkeypatch.setattr("pokayokay.memory.apply.run_curation", no_inline_curation)
    text = big_memory()
    (memory / "MEMORY.md").write_text(text, encoding="utf-8")
    before = snapshot(memory)

    assert run_hook("SessionEnd", sample_for("SessionEnd.other.json", project)) == (0, "", "")

    assert len(calls) == 1
    called_project, called_memory = calls[0]
    assert Path(os.path.realpath(called_project)) == Path(os.path.realpath(project))
    assert Path(called_memory) == memory
    assert snapshot(memory) == before


def test_session_end_detached_curation_really_curates(project: Path, memory: Path) -> None:
    """End to end: the real hook returns, and the detached `python -m pokayokay curate` it
    started curates the >1 MiB MEMORY.md on its own (polled with a generous deadline)."""
    original = big_memory()
    (memory / "MEMORY.md").write_text(original, encoding="utf-8")
    payload = sample_for("SessionEnd.other.json", project)

    proc = run_console(["hook", "SessionEnd"], json.dumps(payload).encode(), project)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")

    target = memory / "MEMORY.md"
    archive = memory / "completed-work-archive.md"
    deadline = time.monotonic() + 180
    while True:
        if archive.exists() and target.stat().st_size < 100_000:
            break
        assert time.monotonic() < deadline, "the detached curation never finished"
        time.sleep(0.05)
    new = target.read_text(encoding="utf-8")
    assert new.startswith(CLAUDE_HEAD)
    assert new.endswith(CLAUDE_TAIL)
    entries = completed_entries(30_000)
    assert entries[-1] + "\n" in new
    archived = archive.read_text(encoding="utf-8")
    assert entries[0] + "\n" in archived
    assert entries[-21] + "\n" in archived
    assert "in the background" in log_path().read_text(encoding="utf-8")


def test_unknown_payload_keys_are_ignored_by_session_end(tmp_path: Path) -> None:
    """Extra keys in a real SessionEnd payload change nothing: the same curation results."""
    results = []
    for extra in (False, True):
        project = tmp_path / f"proj-{extra}"
        project.mkdir()
        git(project, "init", "-q")
        memory = memory_dir_for(project)
        memory.mkdir(parents=True)
        (memory / "MEMORY.md").write_text(over_budget_memory(), encoding="utf-8")
        payload = sample_for("SessionEnd.other.json", project)
        if extra:
            payload.update(
                future_field={"nested": [1, 2, {"x": None}]},
                reason_details="from a newer Claude Code",
                model="claude-something",
                **{"": "empty key", "ünïcode": "✓"},
            )
        assert run_hook("SessionEnd", payload) == (0, "", "")
        results.append(
            (
                (memory / "MEMORY.md").read_bytes(),
                (memory / "completed-work-archive.md").read_bytes(),
            )
        )
    assert results[0] == results[1]


def test_unknown_payload_keys_are_ignored_by_session_start(project: Path, memory: Path) -> None:
    """Extra keys in a real SessionStart payload: byte-identical output."""
    text, _ = claude_heavy_memory()
    (memory / "MEMORY.md").write_text(text, encoding="utf-8")
    payload = sample_for("SessionStart.startup.json", project)
    plain = run_hook("SessionStart", payload)
    payload.update(session_title="t", seconds_since_last_response=5, brand_new={"a": [1]})
    assert run_hook("SessionStart", payload) == plain
    assert plain[1]  # there was something to compare


# ------------------------------------------------------------------------------------------------
# PostToolUseFailure


def stored_failures(project: Path) -> list[Any]:
    from pokayokay.failures.store import FailureStore
    from pokayokay.infra.locate import find_git_root

    key = find_git_root(project) or Path(os.path.realpath(project))
    with FailureStore.for_project(key) as store:
        return list(store.failures())


def test_post_tool_use_failure_records_one_failure(project: Path) -> None:
    """A real Bash failure: one failure in the project's store with the session, tool, the
    command, the exit code parsed from "Exit code N" and a sanitised excerpt."""
    payload = sample_for("PostToolUseFailure.Bash.json", project)
    assert run_hook("PostToolUseFailure", payload) == (0, "", "")
    records = stored_failures(project)
    assert len(records) == 1
    record = records[0]
    assert record.session_id == "0ebb4b7c-7011-44b6-afdb-8302b6c943e8"
    assert record.tool == "Bash"
    assert record.command == "echo about-to-fail; exit 1"
    assert record.exit_code == 1
    assert "about-to-fail" in record.excerpt


def test_post_tool_use_failure_parses_other_exit_codes(project: Path) -> None:
    """`Exit code 127` gives 127 (the number is parsed, not assumed); records accumulate."""
    first = sample_for("PostToolUseFailure.Bash.json", project)
    second = dict(first, error="Exit code 127\nsh: 1: frobnicate: not found\nmore output")
    second["tool_input"] = {"command": "frobnicate --all", "description": "x"}
    second["tool_use_id"] = "toolu_second"
    assert run_hook("PostToolUseFailure", first)[0] == 0
    assert run_hook("PostToolUseFailure", second)[0] == 0
    records = stored_failures(project)
    assert [r.exit_code for r in records] == [1, 127]
    assert records[1].command == "frobnicate --all"
    assert "frobnicate: not found" in records[1].excerpt


def test_post_tool_use_failure_ignores_unknown_keys(project: Path) -> None:
    """Extra payload keys change nothing; the same tool call reported twice counts once."""
    payload = sample_for("PostToolUseFailure.Bash.json", project)
    noisy = dict(payload, brand_new_field=[1, 2], error_details={"kind": "x"})
    assert run_hook("PostToolUseFailure", noisy)[0] == 0
    assert run_hook("PostToolUseFailure", payload)[0] == 0
    records = stored_failures(project)
    assert len(records) == 1
    assert records[0].command == "echo about-to-fail; exit 1"


def test_concurrent_post_tool_use_failure_hooks_lose_no_record(project: Path) -> None:
    """40 real hook processes at once: exactly 40 failures stored, one per tool call."""
    base = sample_for("PostToolUseFailure.Bash.json", project)
    procs = []
    for i in range(40):
        payload = dict(base, tool_use_id=f"toolu_parallel_{i:02d}", session_id=f"s{i:02d}")
        proc = subprocess.Popen(
            [str(CONSOLE_SCRIPT), "hook", "PostToolUseFailure"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=project,
        )
        procs.append((proc, json.dumps(payload).encode()))
    for proc, data in procs:
        out, err = proc.communicate(data, timeout=120)
        assert (proc.returncode, out, err) == (0, b"", b"")
    records = stored_failures(project)
    assert len(records) == 40
    assert {r.session_id for r in records} == {f"s{i:02d}" for i in range(40)}
    from pokayokay.failures.store import FailureStore
    from pokayokay.infra.locate import find_git_root

    key = find_git_root(project) or Path(os.path.realpath(project))
    with FailureStore.for_project(key) as store:
        (group,) = store.failure_groups()
    assert (group.occurrences, group.sessions) == (40, 40)
    assert all(r.exit_code == 1 and r.tool == "Bash" for r in records)


# ------------------------------------------------------------------------------------------------
# fail open, never silently


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b'{"session_id": "x", "cwd": ', "not JSON"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00", "not JSON"),
        (b"", "empty payload"),
        (b"  \n\t \n", "empty payload"),
        (b'[{"hook_event_name": "SessionEnd"}]', "not an object"),
    ],
    ids=["malformed-json", "binary-garbage", "empty", "whitespace", "json-array"],
)
def test_bad_payloads_fail_open_with_one_stderr_line(
    data: bytes, reason: str, project: Path, memory: Path
) -> None:
    """Bad stdin on a handled event: exit 1 (never 2, which would block Claude), one stderr line
    naming pokayokay and the log, the reason in the log; MEMORY.md untouched."""
    (memory / "MEMORY.md").write_text(over_budget_memory(), encoding="utf-8")
    before = snapshot(memory)
    code, out, err = run_hook("SessionEnd", data)
    assert out == ""
    assert_failed_open(code, err, reason, traceback=False)
    assert snapshot(memory) == before


class LazyStream(io.RawIOBase):
    """A readable stream of ``size`` bytes of a JSON object, made on demand; counts what is read."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.pos = 0
        self.head = b'{"hook_event_name": "SessionEnd", "pad": "'

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        n = min(len(buffer), self.size - self.pos)
        if n <= 0:
            return 0
        chunk = bytearray(b"x" * n)
        for i in range(max(0, min(n, len(self.head) - self.pos))):
            chunk[i] = self.head[self.pos + i]
        buffer[:n] = chunk
        self.pos += n
        return n


def test_huge_payload_is_refused_without_parsing_it(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 64 MiB payload: refused after reading a little over 16 MiB, json never called."""
    stream = LazyStream(64 * MIB)

    parsed: list[int] = []

    def no_json(*args: Any, **kwargs: Any) -> Any:
        parsed.append(1)
        raise AssertionError("the oversized payload reached the JSON parser")

    out, err = io.StringIO(), io.StringIO()
    with monkeypatch.context() as patch:
        patch.setattr(json, "loads", no_json)
        code = hook.run("SessionEnd", io.BufferedReader(stream), out, err)
    assert parsed == []
    assert out.getvalue() == ""
    assert_failed_open(code, err.getvalue(), "16 MiB", traceback=False)
    assert 16 * MIB < stream.pos <= 17 * MIB


def test_huge_payload_via_console_script_fails_open(project: Path) -> None:
    """The real command with a 17 MiB payload on stdin: exit 1 and one stderr line."""
    data = json.dumps({"hook_event_name": "SessionEnd", "pad": "x" * (17 * MIB)}).encode()
    proc = run_console(["hook", "SessionEnd"], data, project)
    assert proc.stdout == b""
    assert_failed_open(proc.returncode, proc.stderr.decode(), "16 MiB", traceback=False)


def test_malformed_json_via_console_script_fails_open(project: Path) -> None:
    """The real command with truncated JSON: exit 1 and exactly one `pokayokay:` stderr line."""
    proc = run_console(["hook", "PostToolUseFailure"], b'{"tool_name": "Bash", ', project)
    assert proc.stdout == b""
    assert_failed_open(proc.returncode, proc.stderr.decode(), "not JSON", traceback=False)
    assert stored_failures(project) == []


def test_console_script_without_an_event_is_a_usage_error_not_a_block(project: Path) -> None:
    """`pokayokay hook` with no event: exit 1 (never 2) and a usage line."""
    proc = run_console(["hook"], b"{}", project)
    assert proc.returncode == 1
    assert b"usage" in proc.stderr


def test_a_raising_handler_fails_open_with_a_traceback(
    project: Path, memory: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An unexpected exception inside a handler: exit 1, one stderr line, traceback logged."""
    from pokayokay.hooks import session

    def boom(payload: Any, event: str) -> str:
        raise RuntimeError("handler exploded on purpose")

    monkeypatch.setattr(session, "session_end", boom)
    code, out, err = run_hook("SessionEnd", sample_for("SessionEnd.other.json", project))
    assert out == ""
    line = assert_failed_open(code, err, "handler exploded on purpose", traceback=True)
    assert "RuntimeError" in log_path().read_text()
    assert "SessionEnd" in line


def test_a_raising_handler_with_a_multiline_message_still_prints_one_line(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A multi-line exception message is logged whole but stderr stays one line."""
    from pokayokay.hooks import capture

    def boom(payload: Any, event: str) -> str:
        raise ValueError("first line\nsecond line\nthird line")

    monkeypatch.setattr(capture, "post_tool_use_failure", boom)
    code, _, err = run_hook(
        "PostToolUseFailure", sample_for("PostToolUseFailure.Bash.json", project)
    )
    assert_failed_open(code, err, "third line", traceback=True)


def test_broken_settings_frontmatter_fails_open_at_session_end(project: Path, memory: Path) -> None:
    """Broken YAML in <project>/.claude/pokayokay.md: SessionEnd fails open, naming the
    settings file; MEMORY.md is not touched."""
    (project / ".claude").mkdir()
    (project / ".claude" / "pokayokay.md").write_text("---\nmax_lines: [1, 2\nfoo: bar\n---\n")
    (memory / "MEMORY.md").write_text(over_budget_memory(), encoding="utf-8")
    before = snapshot(memory)
    code, out, err = run_hook("SessionEnd", sample_for("SessionEnd.other.json", project))
    assert out == ""
    line = assert_failed_open(code, err, "pokayokay.md", traceback=True)
    assert "pokayokay.md" in line
    assert "YAML" in log_path().read_text()
    assert snapshot(memory) == before


def test_unwritable_memory_folder_fails_open_at_session_end(
    project: Path, memory: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A memory folder that refuses writes (fault injected into safe_write, since chmod does not
    stop root): SessionEnd fails open, MEMORY.md and the folder are unchanged."""
    from pokayokay.infra import safe_write

    def refuse(path: Path, data: bytes, mode: int) -> Path:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(safe_write, "_write_temp", refuse)
    (memory / "MEMORY.md").write_text(over_budget_memory(), encoding="utf-8")
    before = snapshot(memory)
    code, out, err = run_hook("SessionEnd", sample_for("SessionEnd.other.json", project))
    assert out == ""
    line = assert_failed_open(code, err, "Permission denied", traceback=True)
    assert "PermissionError" in line
    assert snapshot(memory) == before


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0,
    reason="root ignores directory permissions; the fault-injection test covers this",
)
def test_read_only_memory_folder_fails_open_at_session_end(project: Path, memory: Path) -> None:
    """A really read-only memory folder (chmod 0555): SessionEnd fails open, nothing changes."""
    original = over_budget_memory()
    (memory / "MEMORY.md").write_text(original, encoding="utf-8")
    before = snapshot(memory)
    memory.chmod(0o555)
    try:
        code, out, err = run_hook("SessionEnd", sample_for("SessionEnd.other.json", project))
    finally:
        memory.chmod(0o755)
    assert out == ""
    assert_failed_open(code, err, "Permission denied", traceback=True)
    assert snapshot(memory) == before


def test_symlinked_memory_md_leading_outside_fails_open(
    project: Path, memory: Path, tmp_path: Path
) -> None:
    """MEMORY.md is a symlink to a file outside the memory folder: SessionEnd does not write
    through it; it fails open with a message naming the symlink; the target is unchanged."""
    outside = tmp_path / "outside"
    outside.mkdir()
    target = outside / "MEMORY.md"
    target.write_text(over_budget_memory(), encoding="utf-8")
    link = memory / "MEMORY.md"
    link.symlink_to(target)
    outside_before = snapshot(outside)
    memory_before = snapshot(memory)

    code, out, err = run_hook("SessionEnd", sample_for("SessionEnd.other.json", project))

    assert out == ""
    line = assert_failed_open(code, err, "symlink", traceback=False)
    assert str(link) in line
    assert "symlink" in line
    assert snapshot(outside) == outside_before
    assert snapshot(memory) == memory_before


def test_symlinked_memory_md_to_a_large_file_outside_also_fails_open_loudly(
    project: Path, memory: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same outside-pointing symlink, but the target is over 1 MiB: SessionEnd should still
    fail open with the one stderr line naming the symlink, not hand the file to a background
    process that is bound to refuse it where nobody sees."""
    from pokayokay.hooks import session

    calls: list[tuple[Any, ...]] = []
    monkeypatch.setattr(session, "detach_curation", lambda *args: calls.append(args[:2]))
    outside = tmp_path / "outside"
    outside.mkdir()
    target = outside / "MEMORY.md"
    target.write_text(big_memory(), encoding="utf-8")
    link = memory / "MEMORY.md"
    link.symlink_to(target)

    code, out, err = run_hook("SessionEnd", sample_for("SessionEnd.other.json", project))

    assert out == ""
    assert calls == []
    line = assert_failed_open(code, err, "symlink", traceback=False)
    assert str(link) in line


# ------------------------------------------------------------------------------------------------
# stdin is a terminal


class FakeTTY(io.RawIOBase):
    """A terminal on stdin: reading it would block until the user typed something."""

    def __init__(self) -> None:
        self.reads = 0

    def readable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        self.reads += 1
        raise AssertionError("read from a terminal: the hook would hang waiting for input")


@pytest.mark.parametrize("event", ["SessionStart", "SessionEnd", "PostToolUseFailure"])
def test_a_tty_on_stdin_is_refused_with_a_clear_message(event: str, project: Path) -> None:
    """Run by hand from a terminal: refused at once (no read), with a message about stdin."""
    out, err = io.StringIO(), io.StringIO()
    tty = FakeTTY()
    code = hook.run(event, tty, out, err)
    assert tty.reads == 0
    assert out.getvalue() == ""
    line = assert_failed_open(code, err.getvalue(), "stdin", traceback=False)
    assert "stdin" in line


# ------------------------------------------------------------------------------------------------
# the samples themselves


def test_sample_index_lists_every_sample_file() -> None:
    """INDEX.json and the folder agree, so the parametrized test above covers every payload."""
    files = {p.name for p in FIXTURE_SAMPLES_DIR.glob("*.json")} - {"INDEX.json"}
    assert set(SAMPLE_INDEX.values()) == files


HOOK_EVENT_CHECKS: list[tuple[str, Callable[[dict[str, Any]], bool]]] = [
    ("SessionEnd.other.json", lambda p: p["reason"] == "other"),
    ("PreCompact.manual.json", lambda p: p["trigger"] == "manual"),
    ("PostToolUseFailure.Bash.json", lambda p: p["error"].startswith("Exit code ")),
]


@pytest.mark.parametrize(
    ("name", "check"), HOOK_EVENT_CHECKS, ids=[n for n, _ in HOOK_EVENT_CHECKS]
)
def test_samples_used_here_have_the_documented_shape(
    name: str, check: Callable[[dict[str, Any]], bool]
) -> None:
    """The payloads these tests lean on carry the documented fields."""
    payload = load_sample(name)
    assert {"session_id", "transcript_path", "cwd", "hook_event_name"} <= set(payload)
    assert check(payload)
