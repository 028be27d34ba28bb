"""The lesson at the moment of the mistake: PreToolUse (the guard) and PostToolUseFailure read the
precomputed lesson lookup, on the real payload shapes of Claude Code 2.1.330."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from helpers.hooks import run_hook
from helpers.paths import FIXTURE_SAMPLES_DIR

from pokayokay.infra import lesson_lookup
from pokayokay.rules.lessons import CommandLesson, lookup_content

SAMPLE_ROOT = "/home/dev/project"
BAD = "python -m pytest -q tests/test_cart.py"
GOOD = ".venv/bin/python -m pytest -q tests/test_cart.py"
ERROR = (
    "Exit code 1\n/usr/bin/python: No module named pytest\n"
)


def sample(name: str, project: Path, command: str | None = None, **changes: Any) -> dict[str, Any]:
    text = (FIXTURE_SAMPLES_DIR / name).read_text(encoding="utf-8")
    payload: dict[str, Any] = json.loads(text.replace(SAMPLE_ROOT, str(project)))
    if command is not None:
        payload["tool_input"] = {**payload["tool_input"], "command": command}
    payload.update(changes)
    return payload


def write_lessons(project: Path, *lessons: CommandLesson, threshold: int = 3) -> None:
    content = lookup_content(lessons, threshold)
    lesson_lookup.write_lookup([str(project)], content)


def settings(project: Path, text: str) -> None:
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / "pokayokay.md").write_text(f"---\n{text}\n---\n", encoding="utf-8")


@pytest.fixture
def launched(project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    return project


def output(event: str, payload: dict[str, Any]) -> dict[str, Any]:
    code, out, err = run_hook(event, payload)
    assert (code, err) == (0, ""), err
    assert out.endswith("\n") and out.count("\n") == 1
    value: dict[str, Any] = json.loads(out)
    assert value["hookSpecificOutput"]["hookEventName"] == event
    return value["hookSpecificOutput"]


# --- the guard ---------------------------------------------------------------------------------


def test_hint_names_the_correction_and_lets_the_command_run(launched: Path) -> None:
    write_lessons(launched, CommandLesson(BAD, 4, GOOD, "environment"))
    out = output("PreToolUse", sample("PreToolUse.Bash.json", launched, BAD))
    assert set(out) == {"hookEventName", "additionalContext"}  # no decision, no updatedInput
    assert out["additionalContext"] == (
        "pokayokay: "
        f"Run `{GOOD}`, not `{BAD}`: its dependencies live in `.venv`. "
        "It failed in 4 earlier sessions of this project; the corrected form passed."
    )


def test_block_denies_with_the_correction_as_the_reason(launched: Path) -> None:
    write_lessons(launched, CommandLesson(BAD, 3, GOOD, "environment"))
    settings(launched, "guard: block")
    out = output("PreToolUse", sample("PreToolUse.Bash.json", launched, BAD))
    assert out["permissionDecision"] == "deny"
    assert GOOD in out["permissionDecisionReason"] and BAD in out["permissionDecisionReason"]
    assert "updatedInput" not in out


def test_a_hint_quotes_the_commands_exactly(launched: Path) -> None:
    """Issue 24: ``2>&1`` became "2 &1" once the text filter had been through it."""
    bad, good = f"{BAD} 2>&1 | tail -20", f"{GOOD} 2>&1 | tail -20"
    write_lessons(launched, CommandLesson(bad, 4, good, "environment"))
    out = output("PreToolUse", sample("PreToolUse.Bash.json", launched, bad))
    assert f"Run `{good}`, not `{bad}`" in out["additionalContext"]


@pytest.mark.parametrize("mode", ["hint", "block"])
def test_a_passing_command_loading_from_outside_is_never_a_hint_or_reason(
    launched: Path, mode: str
) -> None:
    """Issue 25 item 9: the passing ``LD_PRELOAD=/tmp/evil.so PYTHONPATH=/tmp/evil python -m
    pytest`` was offered as the guard's reason; no lesson is made of it at all."""
    evil = "LD_PRELOAD=/tmp/evil.so PYTHONPATH=/tmp/evil python -m pytest -q tests/test_cart.py"
    write_lessons(launched, CommandLesson(BAD, 6, evil, "environment", fixed=6))
    settings(launched, f"guard: {mode}")
    assert run_hook("PreToolUse", sample("PreToolUse.Bash.json", launched, BAD)) == (0, "", "")
    failure = sample("PostToolUseFailure.Bash.json", launched, BAD, error=ERROR)
    assert run_hook("PostToolUseFailure", failure)[1] == ""


def test_guard_off_says_nothing(launched: Path) -> None:
    write_lessons(launched, CommandLesson(BAD, 5, GOOD, "environment"))
    settings(launched, "guard: off")
    assert run_hook("PreToolUse", sample("PreToolUse.Bash.json", launched, BAD)) == (0, "", "")


def test_the_same_command_dressed_differently_is_recognised(launched: Path) -> None:
    write_lessons(launched, CommandLesson(BAD, 3, GOOD, "environment"))
    dressed = f"cd {launched} && python  -m pytest -q tests/test_cart.py 2>&1 | tail -n 30"
    out = output("PreToolUse", sample("PreToolUse.Bash.json", launched, dressed))
    assert GOOD in out["additionalContext"]


@pytest.mark.parametrize(
    "command",
    [
        GOOD,  # the right one
        "echo about-to-fail; exit 1",  # the captured payload's own command
    ],
)
def test_commands_without_a_lesson_get_no_output(launched: Path, command: str) -> None:
    write_lessons(launched, CommandLesson(BAD, 6, GOOD, "environment"))
    assert run_hook("PreToolUse", sample("PreToolUse.Bash.json", launched, command)) == (0, "", "")


def test_below_the_threshold_there_is_no_guard(launched: Path) -> None:
    write_lessons(launched, CommandLesson(BAD, 2, GOOD, "environment"), threshold=3)
    settings(launched, "guard: block")
    assert run_hook("PreToolUse", sample("PreToolUse.Bash.json", launched, BAD)) == (0, "", "")


def test_a_fix_in_a_file_is_no_guard(launched: Path) -> None:
    write_lessons(launched, CommandLesson(BAD, 5, fix_paths=("src/cart/pricing.py",)))
    settings(launched, "guard: block")
    assert run_hook("PreToolUse", sample("PreToolUse.Bash.json", launched, BAD)) == (0, "", "")


def test_without_lessons_the_payload_is_not_even_read(launched: Path) -> None:
    """No lookup: the runtime returns before reading stdin, as for an event it ignores."""
    assert not (Path(os.environ["POKAYOKAY_HOME"]) / "lessons").exists()
    assert run_hook("PreToolUse", b"not json at all") == (0, "", "")
    write_lessons(launched, CommandLesson(BAD, 3, GOOD, "environment"))
    code, _, err = run_hook("PreToolUse", b"not json at all")
    assert code == 1 and "PreToolUse hook skipped" in err  # now it reads, and fails open


def test_a_subfolder_launch_finds_the_repository_lessons(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sub = project / "services" / "api"
    sub.mkdir(parents=True)
    write_lessons(project, CommandLesson(BAD, 3, GOOD, "environment"))
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(sub))
    out = output("PreToolUse", sample("PreToolUse.Bash.json", sub, BAD))
    assert GOOD in out["additionalContext"]


def test_another_tool_is_ignored(launched: Path) -> None:
    write_lessons(launched, CommandLesson(BAD, 3, GOOD, "environment"))
    assert run_hook("PreToolUse", sample("PreToolUse.Edit.json", launched)) == (0, "", "")


def test_a_broken_settings_file_still_hints(launched: Path) -> None:
    write_lessons(launched, CommandLesson(BAD, 3, GOOD, "environment"))
    settings(launched, "guard: [unclosed")
    out = output("PreToolUse", sample("PreToolUse.Bash.json", launched, BAD))
    assert GOOD in out["additionalContext"]


# --- the failure-time lesson ------------------------------------------------------------------


def test_a_known_failure_gets_what_worked_next_to_the_tool_result(launched: Path) -> None:
    write_lessons(launched, CommandLesson(BAD, 3, GOOD, "environment", fixed=3))
    payload = sample("PostToolUseFailure.Bash.json", launched, BAD, error=ERROR)
    out = output("PostToolUseFailure", payload)
    assert out["additionalContext"] == (
        "pokayokay: "
        f"Run `{GOOD}`, not `{BAD}`: its dependencies live in `.venv`. "
        "It failed in 3 earlier sessions of this project too; "
        "the corrected form passed after it (3 times)."
    )
    assert len(out["additionalContext"]) <= 400


def test_a_failure_fixed_by_edits_names_the_files(launched: Path) -> None:
    fixed = CommandLesson(
        BAD, 2, fix_paths=("src/cart/pricing.py", "src/cart/tax.py"), mistakes=(("pytest",),)
    )
    write_lessons(launched, fixed)
    out = output(
        "PostToolUseFailure", sample("PostToolUseFailure.Bash.json", launched, BAD, error=ERROR)
    )
    assert out["additionalContext"].endswith(
        "it passed after edits to `src/cart/pricing.py`, `src/cart/tax.py`."
    )


def test_edits_that_fixed_another_mistake_are_not_offered(launched: Path) -> None:
    """Issue 24 item 6: the context is chosen by the mistake, never by the command text alone."""
    other = CommandLesson(BAD, 2, fix_paths=("src/cart/pricing.py",), mistakes=(("F401",),))
    unknown = CommandLesson("make", 3, fix_paths=("src/util.c",))  # no mistake known: silent
    write_lessons(launched, other, unknown)
    for command in (BAD, "make"):
        failure = sample("PostToolUseFailure.Bash.json", launched, command, error=ERROR)
        assert run_hook("PostToolUseFailure", failure)[:2] == (0, "")


@pytest.mark.parametrize(
    "command",
    [
        "python -m pytest -q tests/test_other.py",
        "python -m pytest ./tests/test_cart.py",
        "python -m pytest -q -x ./tests/test_cart.py 2>&1 | tail -5",
        f"cd {SAMPLE_ROOT} && python -m pytest",
    ],
)
@pytest.mark.parametrize("mode", ["hint", "block"])
def test_a_lesson_about_the_interpreter_holds_for_any_run_of_the_tool(
    launched: Path, command: str, mode: str
) -> None:
    """Issue 24 item 6: the lesson about ``python -m pytest`` without the venv fired for the exact
    test file only, and ``guard: block`` was bypassed by adding ``-q`` or ``./``."""
    write_lessons(launched, CommandLesson(BAD, 4, GOOD, "environment"))
    settings(launched, f"guard: {mode}")
    out = output("PreToolUse", sample("PreToolUse.Bash.json", launched, command))
    said = out.get("additionalContext") or out.get("permissionDecisionReason")
    assert "`python -m pytest`" in said and "`.venv/bin/python -m pytest`" in said
    assert (out.get("permissionDecision") == "deny") is (mode == "block")
    failure = sample("PostToolUseFailure.Bash.json", launched, command, error=ERROR)
    assert "`.venv/bin/python -m pytest`" in output("PostToolUseFailure", failure)[
        "additionalContext"
    ]
    for right in (".venv/bin/python -m pytest -q tests/test_other.py", "python3 -m pytest"):
        assert run_hook("PreToolUse", sample("PreToolUse.Bash.json", launched, right))[1] == ""


def test_the_failure_is_still_captured_when_a_lesson_is_given(launched: Path) -> None:
    from pokayokay.failures.store import FailureStore

    write_lessons(launched, CommandLesson(BAD, 3, GOOD, "environment"))
    output("PostToolUseFailure", sample("PostToolUseFailure.Bash.json", launched, BAD, error=ERROR))
    with FailureStore.for_project(launched) as store:
        assert [f.command for f in store.failures()] == [BAD]


def test_an_unknown_failure_and_an_interrupt_get_nothing(launched: Path) -> None:
    write_lessons(launched, CommandLesson(BAD, 3, GOOD, "environment"))
    other = sample("PostToolUseFailure.Bash.json", launched)
    assert run_hook("PostToolUseFailure", other) == (0, "", "")
    interrupted = sample("PostToolUseFailure.Bash.json", launched, BAD, is_interrupt=True)
    assert run_hook("PostToolUseFailure", interrupted) == (0, "", "")


def test_a_corrupt_lookup_costs_nothing_but_the_lesson(launched: Path) -> None:
    path = Path(lesson_lookup.lookup_path(str(launched)))
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\x00\xff{not json")
    assert run_hook("PreToolUse", sample("PreToolUse.Bash.json", launched, BAD)) == (0, "", "")
    payload = sample("PostToolUseFailure.Bash.json", launched, BAD, error=ERROR)
    assert run_hook("PostToolUseFailure", payload) == (0, "", "")


def test_a_command_with_a_secret_is_recognised_without_storing_it(launched: Path) -> None:
    secret = "PGPASSWORD=hunter2secretvalue psql -h db -c 'select 1'"
    write_lessons(launched, CommandLesson(secret, 3, secret.replace("psql", "bin/psql"), "command"))
    stored = Path(lesson_lookup.lookup_path(str(launched))).read_bytes()
    assert b"hunter2secretvalue" not in stored
    assert "hunter2secretvalue" not in str(lesson_lookup.load_for(str(launched)))
    out = output("PreToolUse", sample("PreToolUse.Bash.json", launched, secret))
    assert "[redacted:password] bin/psql" in out["additionalContext"]
    assert "hunter2secretvalue" not in out["additionalContext"]


def test_the_personal_settings_file_sets_the_guard_too(launched: Path) -> None:
    write_lessons(launched, CommandLesson(BAD, 3, GOOD, "environment"))
    settings(launched, "max_lines: 180")
    (launched / ".claude" / "pokayokay.local.md").write_text("---\nguard: block\n---\n", "utf-8")
    out = output("PreToolUse", sample("PreToolUse.Bash.json", launched, BAD))
    assert out["permissionDecision"] == "deny"


def test_settings_that_never_name_the_guard_are_not_loaded(
    launched: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pokayokay.config import settings as settings_module

    loaded: list[Path] = []
    real = settings_module.load_settings

    def spy(project: Path) -> Any:
        loaded.append(project)
        return real(project)

    monkeypatch.setattr(settings_module, "load_settings", spy)
    write_lessons(launched, CommandLesson(BAD, 3, GOOD, "environment"))
    settings(launched, "max_lines: 180")
    out = output("PreToolUse", sample("PreToolUse.Bash.json", launched, BAD))
    assert GOOD in out["additionalContext"]
    assert loaded == []
    settings(launched, "guard: hint")  # now a file names it: loaded
    assert GOOD in output("PreToolUse", sample("PreToolUse.Bash.json", launched, BAD))[
        "additionalContext"]
    assert loaded == [launched]


def test_a_fifo_named_like_the_settings_never_blocks_the_guard(launched: Path) -> None:
    write_lessons(launched, CommandLesson(BAD, 3, GOOD, "environment"))
    (launched / ".claude").mkdir(exist_ok=True)
    os.mkfifo(launched / ".claude" / "pokayokay.md")
    code, out, _err = run_hook("PreToolUse", sample("PreToolUse.Bash.json", launched, BAD))
    assert code == 0 and GOOD in json.loads(out)["hookSpecificOutput"]["additionalContext"]
