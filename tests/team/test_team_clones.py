"""Team memory over git, through the registered hooks: a bare remote, several clones with
separate homes, sessions captured by the hooks, commits, ``git pull --no-rebase`` and pushes."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
from helpers.team_clones import Clone, git, make_clones, make_remote, pytest_failure


def git_files(root: Path) -> dict[str, str]:
    """Every file committed at HEAD under ``.claude/``, by path."""
    names = git(root, "ls-files", "-z", ".claude").stdout.split("\0")
    return {n: git(root, "show", f"HEAD:{n}").stdout for n in names if n}


def test_a_mistake_hit_once_by_three_teammates_graduates_in_a_fourth_clone(
    tmp_path: Path,
) -> None:
    remote = make_remote(tmp_path)
    a, b, c, d = make_clones(tmp_path, remote, 4)
    for clone in (a, b, c):
        clone.session([pytest_failure("test_add")])
        assert clone.rules() == {}  # one session of one teammate graduates nothing
        clone.sync()
    assert d.pull()
    assert d.rules() == {}  # pulled, not yet read
    d.session([])  # SessionStart reads the pulled evidence (the team folder changed)
    rules = d.rules()
    assert len(rules) == 1
    text = next(iter(rules.values())).decode()
    assert "test_add" in text
    assert "3 teammates, 3 sessions" in text
    # The fourth teammate's own file holds nothing: it never failed.
    assert all(clone.conflicts == [] for clone in (a, b, c, d))


def _simulate(tmp_path: Path, clones: int, sessions: int, seed: int) -> list[Clone]:
    rng = random.Random(seed)
    remote = make_remote(tmp_path)
    team = make_clones(tmp_path, remote, clones)
    tests = ["test_add", "test_total", "test_tax", "test_discount", "test_empty"]
    pending: set[str] = set()
    for _ in range(sessions):
        clone = rng.choice(team)
        hits = [pytest_failure(t) for t in rng.sample(tests, rng.randint(0, 2))]
        clone.session(hits)
        clone.commit()
        pending.add(clone.name)
        # Clones sync in a random order, some sessions later: histories diverge and merge.
        if rng.random() < 0.5:
            chosen = rng.choice(sorted(pending))
            syncing = next(c for c in team if c.name == chosen)
            syncing.sync()
            pending.discard(syncing.name)
    for clone in team:
        clone.sync()
    for clone in team:  # everyone pulls the last pushes and reads them
        assert clone.pull()
        clone.session([])
    return team


def _check_team(team: list[Clone]) -> None:
    assert [c for clone in team for c in clone.conflicts] == []
    merges = int(git(team[0].root, "rev-list", "--merges", "--count", "HEAD").stdout)
    assert merges >= 3  # histories diverged and were merged, not only fast-forwarded
    # Every clone graduated the same rules on its own; none is committed (derived, decision 0113),
    # nor the folder's .gitignore, which ignores itself so an untracked copy never blocks a pull.
    tracked = git(team[0].root, "ls-files", ".claude/rules").stdout.split()
    assert tracked == []
    files = team[0].team_files()
    assert len(files) == sum(1 for clone in team if clone.sessions)
    rules = team[0].rules()
    assert rules  # the recurring mistakes graduated
    for clone in team[1:]:
        assert clone.team_files() == files
        assert clone.rules() == rules  # byte-identical on every clone


def test_concurrent_sessions_never_conflict_and_rules_are_identical(tmp_path: Path) -> None:
    _check_team(_simulate(tmp_path, clones=3, sessions=24, seed=7))


@pytest.mark.slow
def test_two_hundred_sessions_of_five_teammates_never_conflict(tmp_path: Path) -> None:
    _check_team(_simulate(tmp_path, clones=5, sessions=200, seed=28))


def test_no_secret_reaches_the_committed_folder(tmp_path: Path) -> None:
    """Every secret of the redaction corpus, in a failing command and in its error output,
    through the hooks of two teammates: none is in any committed file, nor any committed
    record's text redaction would change."""
    from helpers.secrets import SECRETS

    from pokayokay.safety.redact import contains_secret

    a, b = make_clones(tmp_path, make_remote(tmp_path), 2)
    for n, secret in enumerate(SECRETS):
        clone = (a, b)[n % 2]
        command = secret.command or f"pytest tests/test_cart.py  # {secret.text}"
        error = f"Exit code 1\n{secret.text}\nFAILED tests/test_cart.py::test_{n} - assert 3 == 4"
        clone.session([(command, error), (command, error)])
    a.sync()
    b.sync()
    assert a.pull()
    committed = git_files(a.root)
    records = "".join(t for n, t in committed.items() if n.startswith(".claude/pokayokay/team/"))
    assert records.count('"command":') == len(SECRETS)  # every command shared, redacted
    for name, text in committed.items():
        for secret in SECRETS:
            assert secret.secret not in text, (name, secret.kind)
        if name.startswith(".claude/pokayokay/team/"):
            assert not contains_secret(text), name


def test_a_rule_one_teammate_retires_is_retired_on_every_clone(tmp_path: Path) -> None:
    from pokayokay.cli import main as cli

    a, b = make_clones(tmp_path, make_remote(tmp_path), 2)
    a.session([pytest_failure("test_add")])
    a.sync()
    b.session([pytest_failure("test_add")])
    b.sync()
    assert a.pull()
    a.session([])
    b.session([])  # b pulled a's evidence when it synced
    assert a.rules() == b.rules() != {}
    (name,) = a.rules()
    with a.active():
        assert cli.main(["rules", "retire", name.removesuffix(".md"), "--project",
                         str(a.root)]) == 0
    a.session([])  # the retirement becomes a tombstone in a's own file
    a.sync()
    assert b.pull()
    b.session([])  # b reads the tombstone: its copy is retired (kept in its archive)
    assert a.rules() == b.rules() == {}
    b.session([pytest_failure("test_tax")])  # other evidence revives nothing
    assert b.rules() == {}
    time.sleep(1.1)  # retirements are recorded to the second: a later second is "after"
    b.session([pytest_failure("test_add")])  # a failure after the retirement does
    assert len(b.rules()) == 1


def test_a_teammate_who_ran_sessions_before_pulling_still_pulls(tmp_path: Path) -> None:
    """A graduates and pushes; B ran sessions (its own rules folder, its own ``.gitignore``)
    without committing, then pulls: the pull succeeds and B derives the same rule."""
    remote = make_remote(tmp_path)
    a, b = make_clones(tmp_path, remote, 2)
    for _ in range(3):
        a.session([pytest_failure("test_add")])
    b.session([pytest_failure("test_total")])  # nothing committed: B's files are untracked
    a.sync()
    assert b.pull()  # an untracked .gitignore in B's rules folder must not block the merge
    b.session([])
    assert a.rules() and b.rules() == a.rules()
    assert b.conflicts == []
