"""Team memory end to end (issue 28): a lesson two teammates earned in their clones loads in a
third clone's real Claude Code session when Claude reads the file it is about.

Two teammates (clones of a bare remote, each with its own home) each fail the cart's test once,
through the registered hook commands; their SessionEnd appends the redacted evidence to their own
``.claude/pokayokay/team/<writer-id>.jsonl``, which they commit and push. The third clone (the
real client's project) pulls; its next session's SessionStart sees the team folder changed,
graduates the mistake (two teammates: the team rule) and the client attaches the rule next to the
Read of the test file.
"""

from __future__ import annotations

import subprocess

import pytest
from helpers.team_clones import Clone, git

from .conftest import E2E
from .mock_api import text, tool_use
from .test_graduation import add_shop, last_result, newest_message, result_text, rule_files

pytestmark = pytest.mark.e2e

TEST_FILE = "tests/test_cart.py"
FAILING = (
    "python3 -m pytest -q tests/test_cart.py",
    "Exit code 1\nFAILED tests/test_cart.py::test_total_multiplies_by_quantity - assert 5.5 == 8.0",
)


def test_a_lesson_two_teammates_earned_loads_in_a_third_clones_session(e2e: E2E) -> None:
    add_shop(e2e)
    project = e2e.project
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / "pokayokay.md").write_text("---\nteam: true\n---\n")
    git(project, "add", ".claude/pokayokay.md")
    git(project, "commit", "-q", "-m", "pokayokay: team memory")
    remote = e2e.root / "remote.git"
    git(e2e.root, "init", "-q", "--bare", str(remote))
    git(project, "remote", "add", "origin", str(remote))
    git(project, "push", "-q", "origin", "HEAD:main")
    e2e.init_pokayokay()

    for name in ("a", "c"):
        root = e2e.root / f"teammate-{name}"
        git(e2e.root, "clone", "-q", "-b", "main", str(remote), str(root))
        (e2e.root / f"home-{name}").mkdir()
        teammate = Clone(name, root.resolve(), e2e.root / f"home-{name}")
        teammate.session([FAILING])
        teammate.sync()
        assert teammate.conflicts == []
    git(project, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
    assert len(list((project / ".claude" / "pokayokay" / "team").glob("*.jsonl"))) == 2
    assert not rule_files(project)  # pulled, not yet read

    run = e2e.run_claude(
        project,
        "look at the cart's test",
        [[tool_use("Read", {"file_path": str(project / TEST_FILE)})], [text("TEAM-DONE")]],
    )
    assert run.exit_code == 0, run.describe()
    assert run.result_event.get("result") == "TEAM-DONE", run.describe()
    [rule] = rule_files(project)
    rule_text = rule.read_text("utf-8")
    assert "2 teammates, 2 sessions" in rule_text, rule_text
    assert "test_total_multiplies_by_quantity" in rule_text
    with_test = newest_message(run, 1)
    assert "def test_total_multiplies_by_quantity" in result_text(last_result(run, 1))
    assert f"Contents of {rule.resolve()}" in with_test, with_test[-3000:]
    # The derived rule is not something to commit: the team folder is.
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all", ".claude/rules"],
        cwd=project, capture_output=True, text=True, check=True,
    ).stdout.splitlines()
    assert not [line for line in status if line.endswith(".md")], status
