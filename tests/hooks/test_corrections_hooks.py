"""Issue 24 items 5, 6 and 9 through the registered hook entry points, on real failing outputs
(tests/data/lesson_corpus) in Claude Code's payload shapes (tests/data/claude-code-samples): a
failure, then the command that really fixed it, in one to four sessions; then ``graduate`` and
what the next session's hooks tell the model, and what the store keeps for Recent Bug Fixes."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from helpers.hooks import edit_payload, run_hook, sample_payload
from helpers.paths import DATA_DIR
from ruamel.yaml import YAML

from pokayokay.cli import main as cli
from pokayokay.failures.model import FailureGroup
from pokayokay.failures.store import FailureStore
from pokayokay.hooks import runtime as hook

CASES = DATA_DIR / "lesson_corpus" / "cases"


def case(name: str) -> dict[str, Any]:
    value: dict[str, Any] = YAML(typ="safe").load((CASES / f"{name}.yaml").read_text("utf-8"))
    return value


@pytest.fixture(autouse=True)
def capture_handlers(monkeypatch: pytest.MonkeyPatch, project: Path) -> None:
    monkeypatch.setitem(hook.HANDLERS, "PostToolUseFailure", "capture:post_tool_use_failure")
    monkeypatch.setitem(hook.HANDLERS, "PostToolUse", "capture:post_tool_use")
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))


def sample(name: str, project: Path, session: str, **changes: Any) -> dict[str, Any]:
    return sample_payload(name, project, session_id=session, **changes)


def send(event: str, payload: dict[str, Any]) -> str:
    out, err = io.StringIO(), io.StringIO()
    code = hook.run(event, io.BytesIO(json.dumps(payload).encode()), out, err)
    assert (code, err.getvalue()) == (0, "")
    return out.getvalue()


def context(out: str) -> str:
    if not out:
        return ""
    value: dict[str, Any] = json.loads(out)["hookSpecificOutput"]
    return str(value.get("additionalContext") or value.get("permissionDecisionReason") or "")


_uses = iter(range(1, 1_000_000))


def fail(project: Path, session: str, command: str, output: str, exit_code: int = 1) -> str:
    payload = sample(
        "PostToolUseFailure.Bash.json", project, session, tool_use_id=f"toolu_{next(_uses)}"
    )
    payload["tool_input"] = {"command": command, "description": "check"}
    payload["error"] = f"Exit code {exit_code}\n{output}"
    return context(send("PostToolUseFailure", payload))


def succeed(project: Path, session: str, command: str) -> None:
    payload = sample("PostToolUse.Bash.json", project, session, tool_use_id=f"toolu_{next(_uses)}")
    payload["tool_input"] = {"command": command, "description": "check"}
    assert send("PostToolUse", payload) == ""


def edit(project: Path, session: str, rel: str, old: str, new: str) -> None:
    payload = edit_payload(project, rel, old, new, session_id=session)
    assert send("PostToolUse", payload) == ""


def before(project: Path, session: str, command: str) -> str:
    payload = sample("PreToolUse.Bash.json", project, session)
    payload["tool_input"] = {"command": command, "description": "check"}
    code, out, err = run_hook("PreToolUse", payload)
    assert (code, err) == (0, "")
    return context(out)


def graduate(project: Path) -> None:
    assert cli.main(["graduate", "--project", str(project), "--quiet"]) == 0


def store(project: Path) -> FailureStore:
    from pokayokay.infra.state import project_state_dir

    return FailureStore(project_state_dir(project) / "failures.db")


def groups(project: Path) -> list[FailureGroup]:
    with store(project) as opened:
        return opened.failure_groups()


def bug_fixes(project: Path, session: str) -> list[Any]:
    with store(project) as opened:
        return opened.session_fixes(session)


# --- item 5: corrections that are corrections ---------------------------------------------------


def test_a_make_target_typo_then_the_right_target_is_an_environment_lesson(project: Path) -> None:
    typo = case("make-no-rule-tests-typo")
    for session in ("s1", "s2", "s3"):
        fail(project, session, typo["command"], typo["output"], typo["exit_code"])
        succeed(project, session, "make test")
    corrections = [c for g in groups(project) for c in g.corrections]
    assert [(c.failing, c.corrected, c.kind) for c in corrections] == [
        ("make tests", "make test", "environment")
    ]
    assert bug_fixes(project, "s1") == []  # an invocation mistake is no bug fix (item 9)
    graduate(project)
    told = fail(project, "s4", "make tests", typo["output"], typo["exit_code"])
    assert told.count("`make test`") == 1 and "the corrected form passed after it" in told
    assert "`make test`" in before(project, "s4", "make tests")


@pytest.mark.parametrize(
    ("failing", "rehearsed"),
    [("make tests", "make -n test"), ("make tests", "make --dry-run test")],
)
def test_a_dry_run_that_passes_is_no_correction(
    project: Path, failing: str, rehearsed: str
) -> None:
    """``make tests`` then ``make -n test`` (the lab's real pair): the dry run passing proves
    nothing about ``make test``, so nothing is learned from it (decision 0117)."""
    typo = case("make-no-rule-tests-typo")
    for session in ("s1", "s2", "s3"):
        fail(project, session, failing, typo["output"], typo["exit_code"])
        succeed(project, session, rehearsed)
    assert [c for g in groups(project) for c in g.corrections] == []
    graduate(project)
    assert rehearsed not in fail(project, "s4", failing, typo["output"], typo["exit_code"])
    assert rehearsed not in before(project, "s4", failing)


@pytest.mark.parametrize("name", ["npm-missing-script-lint", "pnpm-missing-script-lint"])
def test_a_missing_lint_script_then_the_linter_itself_is_learned(project: Path, name: str) -> None:
    """``npm run lint`` (Missing script) then ``npx xo``: failed in 4 sessions and never learned,
    hinted or shown at failure time."""
    missing = case(name)
    runner = "npx xo" if name.startswith("npm") else "pnpm exec eslint lib"
    for session in ("s1", "s2", "s3", "s4"):
        fail(project, session, missing["command"], missing["output"], missing["exit_code"])
        succeed(project, session, runner)
    (correction,) = [c for g in groups(project) for c in g.corrections]
    assert (correction.failing, correction.corrected, correction.kind) == (
        missing["command"],
        runner,
        "environment",
    )
    graduate(project)
    assert f"`{runner}`" in fail(project, "s5", missing["command"], missing["output"], 1)
    assert f"`{runner}`" in before(project, "s5", missing["command"])


def test_another_command_after_an_edit_is_no_substitute(project: Path) -> None:
    missing = case("npm-missing-script-lint")
    fail(project, "s1", missing["command"], missing["output"], missing["exit_code"])
    edit(project, "s1", "package.json", '"scripts": {}', '"scripts": {"lint": "xo"}')
    succeed(project, "s1", "npx xo")
    assert [c for g in groups(project) for c in g.corrections] == []


def test_a_check_then_its_formatter_is_no_correction(project: Path) -> None:
    """``black --check f`` then ``black -q f`` was recorded as "use ``black -q f``, not
    ``black --check f``"."""
    check = case("black-check-would-reformat")
    formatter = check["fix"]["command"].replace(" src/", " -q src/", 1)
    for session in ("s1", "s2", "s3"):
        fail(project, session, check["command"], check["output"], check["exit_code"])
        succeed(project, session, formatter)
    assert [c for g in groups(project) for c in g.corrections] == []
    assert bug_fixes(project, "s1") == []
    graduate(project)
    assert before(project, "s4", check["command"]) == ""
    assert formatter not in fail(project, "s4", check["command"], check["output"], 1)


def test_a_file_name_typo_then_the_real_file_is_a_command_correction(project: Path) -> None:
    """``pytest tests/test_carts.py`` (no such file) then the file that exists; the same
    command on another existing file is a narrowing, never a correction."""
    typo = case("pytest-file-not-found")
    (project / "tests").mkdir()
    (project / "tests" / "test_cart.py").write_text("def test_add_item():\n    pass\n")
    (project / "tests" / "test_carts_old.py").write_text("def test_x():\n    pass\n")
    for session in ("s1", "s2"):
        fail(project, session, typo["command"], typo["output"], typo["exit_code"])
        succeed(project, session, typo["fix"]["command"])
    corrections = [c for g in groups(project) for c in g.corrections]
    assert [(c.failing, c.corrected, c.kind, c.times) for c in corrections] == [
        (typo["command"], typo["fix"]["command"], "command", 2)
    ]
    # a test file that exists, failing, then another that passes: no correction
    assertion = case("pytest-assertion-count")
    fail(project, "s3", assertion["command"], assertion["output"], assertion["exit_code"])
    succeed(project, "s3", ".venv/bin/python -m pytest tests/test_carts_old.py")
    assert [c for g in groups(project) for c in g.corrections] == corrections


def test_a_changed_flag_value_and_a_changed_link_of_a_chain_are_corrections(
    project: Path,
) -> None:
    """``flake8 --max-line-length 88`` then ``--max-line-length 100``; ``cd web && npm test``
    then ``cd web && npm run test:unit``, and ``npm ci && npm test`` where only the second
    link changed."""
    long_lines = case("flake8-e501-line-too-long")
    jest = case("npm-test-jest-failures")
    wider = long_lines["command"].replace("88", "100")
    chains = [
        ("cd web && npm test", "cd web && npm run test:unit"),
        ("npm ci && npm test", "npm ci && npm run test:unit"),
    ]
    fail(project, "s1", long_lines["command"], long_lines["output"], long_lines["exit_code"])
    succeed(project, "s1", wider)
    for n, (failing, passing) in enumerate(chains, start=2):
        fail(project, f"s{n}", failing, jest["output"], jest["exit_code"])
        succeed(project, f"s{n}", passing)
    found = {(c.failing, c.corrected, c.kind) for g in groups(project) for c in g.corrections}
    assert found == {
        (long_lines["command"], wider, "command"),
        *((failing, passing, "command") for failing, passing in chains),
    }
    # two links changed: not one correction
    fail(project, "s9", "npm ci && npm test", jest["output"], jest["exit_code"])
    succeed(project, "s9", "npm install && npm run test:unit")
    assert {
        (c.failing, c.corrected, c.kind) for g in groups(project) for c in g.corrections
    } == found


def test_a_formatter_rule_never_says_no_fix_was_observed(project: Path) -> None:
    """The check's formatter wrote the files in every session: no correction (decision 0085),
    and the rule names the formatter's run as what ended it, not "no fix observed"."""
    check = case("black-check-would-reformat")
    formatter = check["fix"]["command"]
    for name in check["files"]:
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        if not name.endswith("tests"):
            (project / name).write_text("x = 1\n")
    for session in ("s1", "s2", "s3"):
        fail(project, session, check["command"], check["output"], check["exit_code"])
        succeed(project, session, f"cd . && {formatter}")  # a chain: its one link is the run
    assert [c for g in groups(project) for c in g.corrections] == []
    graduate(project)
    rules = list((project / ".claude" / "rules").rglob("*.md"))
    assert rules
    text = "\n".join(rule.read_text("utf-8") for rule in rules)
    assert "no fix has been observed" not in text
    assert formatter in text


# --- items 5 and 9: the fix credited is the edit after which the check passed ------------------


def test_a_revert_is_not_credited_and_the_fix_is_a_recent_bug_fix(project: Path) -> None:
    link = case("make-ld-undefined-reference")
    fail(project, "s1", "make", link["output"], link["exit_code"])
    edit(project, "s1", "src/main.c", "parse_config(argv[1]);", "parse_cfg(argv[1]);")
    edit(project, "s1", "src/main.c", "parse_cfg(argv[1]);", "parse_config(argv[1]);")  # undone
    fail(project, "s1", "make", link["output"], link["exit_code"])
    edit(project, "s1", "src/config.c", "int parse_cfg(", "int parse_config(")
    succeed(project, "s1", "make")
    (group,) = [g for g in groups(project) if g.fix_paths]
    assert group.fix_paths == ("src/config.c",)
    assert [e.path for e in group.fix_edits] == ["src/config.c"]
    (fix,) = bug_fixes(project, "s1")
    assert (fix.command, fix.paths) == ("make", ("src/config.c",))


# --- item 6: failure-time context is chosen by the mistake ------------------------------------


def test_a_compile_error_is_not_told_about_an_unrelated_link_fix(project: Path) -> None:
    """A gcc typo in main.c was told the command "passed after edits to src/util.c"."""
    link = case("make-ld-undefined-reference")
    for session in ("s1", "s2"):
        fail(project, session, "make", link["output"], link["exit_code"])
        edit(project, session, "src/config.c", "int parse_cfg(", "int parse_config(")
        succeed(project, session, "make")
    graduate(project)
    typo = case("gcc-expected-semicolon")
    assert fail(project, "s3", "make", typo["output"], 2) == ""
    told = fail(project, "s3", "make", link["output"], link["exit_code"])
    assert "passed after edits to `src/config.c`" in told


@pytest.mark.parametrize(
    ("name", "other"),
    [
        ("pytest-wrong-interpreter-python3-m", "python3 -m pytest -q ./tests/test_cart.py"),
        ("pytest-wrong-interpreter-system-pytest", "pytest -x tests/test_db.py 2>&1 | tail -20"),
        ("pytest-wrong-interpreter-usr-bin-python3", "/usr/bin/python3 -m pytest -q"),
    ],
)
@pytest.mark.parametrize("mode", ["hint", "block"])
def test_an_interpreter_lesson_fires_for_any_run_of_the_tool(
    project: Path, name: str, other: str, mode: str
) -> None:
    """The pre-run hint fired for the exact test file only; ``guard: block`` was bypassed by
    adding ``-q`` or ``./``."""
    wrong = case(name)
    right = wrong["fix"]["command"]
    for session in ("s1", "s2", "s3"):
        fail(project, session, wrong["command"], wrong["output"], wrong["exit_code"])
        succeed(project, session, right)
    assert bug_fixes(project, "s1") == []  # an invocation mistake is no bug fix (item 9)
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / "pokayokay.md").write_text(f"---\nguard: {mode}\n---\n", "utf-8")
    graduate(project)
    payload = sample("PreToolUse.Bash.json", project, "s4")
    payload["tool_input"] = {"command": other, "description": "run the tests"}
    code, out, err = run_hook("PreToolUse", payload)
    assert (code, err) == (0, "")
    decision = json.loads(out)["hookSpecificOutput"]
    assert ("`.venv/bin/python -m pytest`" in context(out)) is True
    assert (decision.get("permissionDecision") == "deny") is (mode == "block")
    assert before(project, "s4", ".venv/bin/python -m pytest -q ./tests/test_cart.py") == ""
    assert "`.venv/bin/python -m pytest`" in fail(project, "s4", other, wrong["output"], 1)


def test_report_and_graduate_agree(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``report`` said "ready: run pokayokay graduate" and ``graduate`` said "up to date"."""
    missing, typo = case("npm-missing-script-lint"), case("gcc-expected-semicolon")
    for session in ("s1", "s2", "s3"):
        fail(project, session, missing["command"], missing["output"], missing["exit_code"])
        succeed(project, session, "npx xo")
        fail(project, session, "gcc -c /tmp/scratch.c", typo["output"].replace("src/", "/tmp/"))
    capsys.readouterr()
    assert cli.main(["report", "--project", str(project)]) == 0
    near = capsys.readouterr().out.split("Near the graduation threshold", 1)[1]
    states = [line.rsplit("(", 1)[1] for line in near.splitlines() if "of 3 sessions" in line]
    ready = [s for s in states if s.startswith("ready")]
    assert len(ready) == 1 and len(states) > 1, near
    assert all(
        s.startswith("no rule: the evidence names no file") for s in states if s not in ready
    )
    assert cli.main(["graduate", "--project", str(project)]) == 0
    said = capsys.readouterr().out
    assert "up to date" not in said
    rules = list((project / ".claude" / "rules").rglob("*.md"))
    assert any("`npx xo`" in rule.read_text("utf-8") for rule in rules)
    assert cli.main(["report", "--project", str(project)]) == 0
    assert "ready: run" not in capsys.readouterr().out
