"""Team memory end to end (issue 28, "Done when"): a lesson earned in one clone loads in another
clone's session when Claude reads the file it is about.

A bare remote holds a small project with pokayokay initialised and ``team: true`` in the
committed ``.claude/pokayokay.md``. Three clones, each with its own HOME, POKAYOKAY_HOME and
CLAUDE_CONFIG_DIR (three teammates on three machines), run the REAL ``claude`` CLI against the
scripted mock Messages API:

1. teammate A breaks the cart, runs the tests (red), fixes it (green): one session, one
   teammate, nothing graduates; A commits what pokayokay wrote (``git add -A``) and pushes;
2. teammate B pulls and hits the same failing test: two teammates, so B's SessionEnd graduates
   the rule (``graduation.teammates`` defaults to 2); B commits and pushes;
3. teammate C, before pulling, reads the cart: no rule reaches the model (the evidence is on
   the remote, not in C's clone); C pulls, and in C's next session SessionStart reads the pulled
   evidence and graduates, so the rule's text reaches the model next to the Read of the cart;
4. teammate A pulls and reads the cart: the rule reaches A's model too.

The rule files of A, B and C are byte-identical (they are derived on every clone and never
committed), and nothing of the failing run's output, nor of the fixing edit, is in the committed
team folder.

This is the one team-memory e2e test (it took in the assertions of the former
``test_team_memory.py``, whose teammates ran through the hooks rather than the client).
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from .conftest import ALLOWED_TOOLS, E2E, RunResult, build_env
from .mock_api import Turn, text, tool_use
from .test_graduation import (
    BUGGY_CART,
    CART,
    FIXED_CART,
    RULES_DIR,
    TEST_COMMAND,
    UNRELATED,
    add_shop,
    break_and_fix_turns,
    check_red_then_green,
    last_result,
    newest_message,
    result_text,
)

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

TEAM_DIR = ".claude/pokayokay/team"
TEAM_SETTINGS = "---\nteam: true\n---\n\nTeam memory is on for this project.\n"
TEST_ID = "tests/test_cart.py::test_total_multiplies_by_quantity"


# -- a team over git ---------------------------------------------------------------------------


def git(cwd: Path, env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, f"git {' '.join(args)} in {cwd}:\n{done.stdout}{done.stderr}"
    return done.stdout


@dataclass
class Teammate:
    """One clone of the remote and the machine it lives on (its own homes and CLI config)."""

    name: str
    box: E2E  # the sandbox whose project is this clone; sessions run with its environment

    @property
    def clone(self) -> Path:
        return self.box.project

    def git(self, *args: str) -> str:
        return git(self.clone, self.box.env, *args)

    def session(self, prompt: str, turns: list[Turn]) -> RunResult:
        return self.box.run_claude(self.clone, prompt, turns)

    def read_cart(self, label: str) -> RunResult:
        """A session that reads an unrelated file, then the cart, then ends."""
        run = self.session(
            f"{label}: look at the cart",
            [
                [tool_use("Read", {"file_path": str(self.clone / UNRELATED)})],
                [tool_use("Read", {"file_path": str(self.clone / CART)})],
                [text(f"{label}-DONE")],
            ],
        )
        assert run.exit_code == 0, run.describe()
        assert run.result_event.get("result") == f"{label}-DONE", run.describe()
        assert len(run.main_requests) == 3, run.describe()
        assert "def total(items)" in result_text(last_result(run, 2))
        return run

    def changed(self) -> list[str]:
        """What ``git add -A`` would commit now (porcelain, untracked files listed one by one)."""
        out = self.git("status", "--porcelain", "--untracked-files=all")
        return sorted(line[3:] for line in out.splitlines())

    def commit_and_push(self, message: str) -> None:
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)
        self.pull()
        self.git("push", "-q", "origin", "HEAD:main")

    def pull(self) -> None:
        self.git("pull", "-q", "--no-rebase", "--no-edit", "origin", "main")

    def rules(self) -> dict[str, bytes]:
        folder = self.clone / RULES_DIR
        return {p.name: p.read_bytes() for p in sorted(folder.glob("*.md"))}

    def writer_file(self) -> str:
        """This teammate's own team file, by its name in the folder."""
        writer = (self.box.state_dir() / "team-writer-id").read_text("ascii").strip()
        return f"{TEAM_DIR}/{writer}.jsonl"


def make_team(e2e: E2E, names: str) -> tuple[Path, list[Teammate]]:
    """A bare remote seeded from the fixture's project (the shop, ``pokayokay init`` and
    ``team: true``, committed), and one clone per name on a machine of its own."""
    seed = e2e.project
    add_shop(e2e)
    (seed / ".claude").mkdir(exist_ok=True)
    (seed / ".claude" / "pokayokay.md").write_text(TEAM_SETTINGS, encoding="utf-8")
    e2e.init_pokayokay()
    git(seed, e2e.env, "add", "-A")
    git(seed, e2e.env, "commit", "-q", "-m", "pokayokay with team memory")
    remote = e2e.root / "remote.git"
    git(e2e.root, e2e.env, "init", "-q", "--bare", "-b", "main", str(remote))
    git(seed, e2e.env, "push", "-q", str(remote), "HEAD:main")

    team = []
    for name in names:
        root = e2e.root / f"machine-{name}"
        env = build_env(root, e2e.mock)
        config_dir = Path(env["CLAUDE_CONFIG_DIR"])
        config_dir.mkdir(parents=True)
        (config_dir / "settings.json").write_text(
            json.dumps({"permissions": {"allow": ALLOWED_TOOLS}}, indent=2) + "\n",
            encoding="utf-8",
        )
        clone = root / "clone"
        git(root, env, "clone", "-q", str(remote), str(clone))
        box = E2E(
            root=root, claude=e2e.claude, mock=e2e.mock, project=clone.resolve(),
            home=Path(env["HOME"]), config_dir=config_dir,
            pokayokay_home=Path(env["POKAYOKAY_HOME"]), tmpdir=Path(env["TMPDIR"]), env=env,
        )  # fmt: skip
        team.append(Teammate(name, box))
    return remote, team


def log_text(mate: Teammate) -> str:
    log = mate.box.pokayokay_home / "logs" / "pokayokay.log"
    return log.read_text(encoding="utf-8", errors="replace") if log.is_file() else ""


def committed_team_text(mate: Teammate) -> dict[str, str]:
    """Every file under the team folder at the clone's HEAD, by path."""
    names = mate.git("ls-files", "-z", TEAM_DIR).split("\0")
    return {n: mate.git("show", f"HEAD:{n}") for n in names if n}


def team_break_and_fix(mate: Teammate, label: str) -> RunResult:
    run = mate.session(f"{label}: change the cart", break_and_fix_turns(mate.clone, label))
    check_red_then_green(run, label)
    assert "failed open" not in log_text(mate), log_text(mate)
    return run


# -- the test ----------------------------------------------------------------------------------


def test_a_lesson_earned_by_two_teammates_loads_in_a_third_clone_after_it_pulls(
    e2e: E2E,
) -> None:
    _remote, (a, b, c) = make_team(e2e, "abc")

    # 1. Teammate A: one red-then-green session. One teammate, one session: no rule.
    red_a = team_break_and_fix(a, "TEAM-A1")
    assert a.rules() == {}, log_text(a)
    writer_a_file = a.writer_file()
    # What A would commit is A's own evidence file only: the derived rules folder (its
    # .gitignore included) stays out of git, and the store lives in A's state folder.
    assert (a.clone / RULES_DIR / ".gitignore").is_file()
    assert a.changed() == [writer_a_file], a.changed()
    a.commit_and_push("A: a session of work")

    # 2. Teammate B pulls and hits the same failing test: the second teammate graduates it.
    b.pull()
    red_b = team_break_and_fix(b, "TEAM-B1")
    rules_b = b.rules()
    assert len(rules_b) == 1, log_text(b)
    (rule_name,) = rules_b  # named by its family (docs/decisions/0101)
    assert rule_name.startswith("test-"), rule_name
    rule_b = rules_b[rule_name].decode("utf-8")
    assert f"# Failing test `{TEST_ID}`" in rule_b, rule_b
    assert "2 teammates, 2 sessions" in rule_b, rule_b
    assert f'  - "/{CART}"' in rule_b, rule_b  # path-scoped to the file the fix touched
    writer_b_file = b.writer_file()
    assert writer_b_file != writer_a_file
    assert b.changed() == [writer_b_file], b.changed()  # the rule itself is ignored by git
    b.commit_and_push("B: a session of work")

    # 3. Teammate C, before pulling: the evidence is on the remote, not in C's clone.
    heading = next(line for line in rule_b.splitlines() if line.startswith("# "))
    rule_c_path = (c.clone / RULES_DIR / rule_name).resolve()
    before = c.read_cart("TEAM-C1")
    for request in before.main_requests:
        assert heading not in request.full_text
        assert f"Contents of {rule_c_path}" not in request.full_text
    assert c.rules() == {}
    # Nothing C's pre-pull session wrote stands in the pull's way.
    c.pull()
    assert c.rules() == {}  # pulled evidence, no rule yet: SessionStart derives it

    after = c.read_cart("TEAM-C2")
    assert c.rules() == rules_b, log_text(c)  # byte-identical to B's
    loaded = f"Contents of {rule_c_path}"
    at_start, after_guide = after.main_requests[0].full_text, after.main_requests[1].full_text
    for seen in (at_start, after_guide):  # path-scoped: not at start, not for the guide
        assert loaded not in seen and heading not in seen
    with_cart = newest_message(after, 2)
    assert loaded in with_cart, with_cart[-3000:]
    assert heading in with_cart, with_cart[-3000:]
    assert "2 teammates, 2 sessions" in with_cart, with_cart[-3000:]
    # The rule C derived is nothing to commit (folded in from the former test_team_memory.py):
    # git sees no rule file of C's, its .gitignore included.
    assert [p for p in c.changed() if p.startswith(RULES_DIR)] == [], c.changed()

    # 4. Teammate A pulls B's evidence: A's clone derives the same rule and loads it.
    a.pull()
    again = a.read_cart("TEAM-A2")
    assert a.rules() == rules_b, log_text(a)
    assert f"Contents of {(a.clone / RULES_DIR / rule_name).resolve()}" in newest_message(
        again, 2
    )

    # The committed team folder: one file per writer, and no raw tool output, no edit.
    committed = committed_team_text(c)
    assert sorted(committed) == sorted([writer_a_file, writer_b_file]), committed
    shared = "".join(committed.values())
    for line in shared.splitlines():
        record = json.loads(line)
        assert record["mistake"] == f"test:{TEST_ID}", record
    raw_lines = set()
    for red in (red_a, red_b):
        output = result_text(last_result(red, 3))
        assert "1 failed" in output
        raw_lines |= {ln.strip() for ln in output.splitlines() if len(ln.strip()) >= 12}
    raw_lines |= {ln.strip() for ln in (BUGGY_CART + FIXED_CART).splitlines() if ln.strip()}
    assert "E       assert 3.5 == 8.0" in raw_lines, raw_lines  # the output was seen ...
    leaked = sorted(ln for ln in raw_lines if ln in shared)
    assert leaked == [], (leaked, shared)  # ... and none of its lines was shared
    for fragment in ("assert 3.5 == 8.0", "AssertionError", "1 failed", "price * quantity"):
        assert fragment not in shared, fragment
    for absolute in (str(a.clone), str(b.clone), str(a.box.home), str(b.box.home)):
        assert absolute not in shared
    # Each rule names its evidence, never a machine: no clone path in any clone's rule.
    assert all(str(m.clone) not in rule_b for m in (a, b, c))
    assert TEST_COMMAND in rule_b or TEST_ID in rule_b
