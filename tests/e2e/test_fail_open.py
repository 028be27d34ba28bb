"""A broken pokayokay never breaks a Claude Code session (spec principle 5, §6 fail-open)."""

from __future__ import annotations

import os
import sys

import pytest

from .conftest import E2E, RunResult
from .memory_docs import ids_in, over_budget_memory
from .mock_api import text, tool_use

pytestmark = pytest.mark.e2e

FINAL_REPLY = "FAIL-OPEN-FINAL-REPLY-5c1e"
FAILING_COMMAND = "python3 -c 'import sys; sys.exit(3)'"
TURNS = [
    [tool_use("Bash", {"command": FAILING_COMMAND, "description": "fail on purpose"})],
    [text(FINAL_REPLY)],
]

# Each fake records its argv in CALLS (so the test knows the client really ran it), swallows the
# payload, then misbehaves.
FAKES = {
    "garbage-exit-1": (
        "#!/bin/sh\n"
        'printf "%s\\n" "$*" >> "{calls}"\n'
        "cat > /dev/null\n"
        "printf 'garbage \\001\\002 <<not json>> %s\\n' \"$1\"\n"
        "exit 1\n"
    ),
    "python-traceback": (
        "#!{python}\n"
        "import sys\n"
        "with open({calls!r}, 'a') as f:\n"
        "    f.write(' '.join(sys.argv[1:]) + '\\n')\n"
        "sys.stdin.read()\n"
        "def curate():\n"
        "    raise RuntimeError('fake pokayokay crashed while curating')\n"
        "curate()\n"
    ),
    "malformed-json": (
        "#!/bin/sh\n"
        'printf "%s\\n" "$*" >> "{calls}"\n'
        "cat > /dev/null\n"
        "printf '{{\"hookSpecificOutput\": {{\"hookEventName\": \"SessionStart\", \"addit'\n"
        "exit 0\n"
    ),
}


def assert_session_completed(run: RunResult) -> None:
    assert run.exit_code == 0, run.describe()
    assert not run.timed_out
    result = run.result_event
    assert result.get("subtype") == "success", result
    assert result.get("is_error") is False, result
    assert result.get("result") == FINAL_REPLY, result
    # Both scripted turns were asked for: the tool result went back to the model.
    assert [r.turn_index for r in run.main_requests] == [0, 1], run.describe()


def hook_responses(run: RunResult) -> list[dict[str, object]]:
    return [e for e in run.events if e.get("type") == "system"
            and e.get("subtype") == "hook_response"]


@pytest.mark.parametrize("fake", sorted(FAKES))
def test_misbehaving_pokayokay_does_not_break_the_session(e2e: E2E, fake: str) -> None:
    e2e.init_pokayokay()
    e2e.write_memory(over_budget_memory().text)
    fake_bin = e2e.root / "fake-bin"
    fake_bin.mkdir()
    calls = e2e.root / "fake-calls.log"
    # Every program the registered hooks run: `pokayokay-event <Event>` (or `pokayokay hook
    # <Event>`) and, for the per-tool-call events, `pokayokay-spool <Event>`.
    for name in ("pokayokay", "pokayokay-spool", "pokayokay-event"):
        script = fake_bin / name
        script.write_text(FAKES[fake].format(calls=str(calls), python=sys.executable),
                          encoding="utf-8")
        script.chmod(0o755)
    env = dict(e2e.env, PATH=os.pathsep.join([str(fake_bin), e2e.env["PATH"]]))

    run = e2e.run_claude(e2e.project, f"fail-open with {fake}", TURNS, env=env,
                         extra_args=["--include-hook-events"])

    assert_session_completed(run)
    invoked = calls.read_text(encoding="utf-8").splitlines() if calls.exists() else []
    # The client ran the fake for the session hooks, and the failure hook, and went on.
    for event in ("SessionStart", "PostToolUseFailure", "SessionEnd"):
        assert any(line.split()[-1:] == [event] for line in invoked), (event, invoked)
    responses = hook_responses(run)
    assert any(r.get("hook_event") == "SessionStart" for r in responses), run.events
    if fake != "malformed-json":
        assert all(r.get("exit_code") == 1 for r in responses), responses


def test_broken_settings_file_does_not_break_the_session(e2e: E2E) -> None:
    e2e.init_pokayokay()
    doc = over_budget_memory()
    memory = e2e.write_memory(doc.text)
    broken = e2e.project / ".claude" / "pokayokay.md"
    broken.write_text(
        "---\n"
        "sections: [completed_work, {budget: 20\n"
        "  max_lines: : : 12\n"
        "\t- tab indented: [\n"
        "---\n"
        "# team settings\n",
        encoding="utf-8",
    )

    run = e2e.run_claude(e2e.project, "fail-open with broken settings", TURNS,
                         extra_args=["--include-hook-events"])

    assert_session_completed(run)
    # The real pokayokay ran (the project's hooks were loaded) and did not block anything.
    responses = hook_responses(run)
    assert any(r.get("hook_event") == "SessionStart" for r in responses), run.events
    assert all(r.get("exit_code") != 2 for r in responses), responses
    # Not silent: the user is told which settings file pokayokay could not use.
    assert "pokayokay.md" in run.stderr, run.stderr
    # Whatever it did or refused to do, nothing of Claude's was lost and no entry vanished.
    after = memory.read_text(encoding="utf-8")
    assert after.startswith(doc.leading) and after.endswith(doc.trailing), after
    everything = after + "".join(
        p.read_text(encoding="utf-8") for p in memory.parent.glob("*-archive.md"))
    for prefix, ids in doc.ids.items():
        assert set(ids) <= ids_in(everything, prefix), prefix
    assert broken.read_text(encoding="utf-8").startswith("---\nsections: [completed_work")
