"""The fixing commit's short SHA in team records (issue 28: "the fixing commit's short SHA"):
found in git from the store's fix paths, shared, readable by older records, and said in the
team rule's evidence line ("in commit abc1234")."""

from __future__ import annotations

import json
import time
from pathlib import Path

from helpers.hooks import sample_payload
from helpers.team_clones import Clone, git, make_clones, make_remote, pytest_failure
from hypothesis import given
from hypothesis import strategies as st

from pokayokay.team.commits import Commit, fixing_commit, parse_log
from pokayokay.team.records import Refused, TeamRecord, decode_line, encode_line

ADD = "test:tests/test_cart.py::test_add"
SHAS = st.text("0123456789abcdef", min_size=40, max_size=40)
FILES = st.sampled_from(["src/a.py", "src/b.py", "tests/t.py", "README.md"])
COMMITS = st.lists(
    st.builds(Commit, SHAS, st.integers(0, 2000), st.frozensets(FILES, max_size=3)), max_size=8
)


@given(COMMITS, st.integers(0, 2000), st.sets(FILES, max_size=2))
def test_the_fixing_commit_is_the_first_after_the_failure_touching_a_fix_path(
    commits: list[Commit], last: int, fix_paths: set[str]
) -> None:
    found = fixing_commit(last, sorted(fix_paths), commits)
    candidates = [c for c in commits if c.time > last and c.paths & fix_paths]
    if not candidates:
        assert found is None
        return
    assert found is not None and len(found) == 7
    chosen = [c for c in candidates if c.short == found]
    assert chosen and all(c.time >= min(x.time for x in chosen) for c in candidates)
    assert fixing_commit(last, sorted(fix_paths), list(reversed(commits))) == found


def test_git_log_text_reads_as_commits() -> None:
    sha = "a" * 40
    text = f"\0{sha} 1700000000\n\nsrc/cart.py\ntests/test_cart.py\n\0noise\n\0{'b' * 40} 5\n"
    assert parse_log(text) == (
        Commit(sha, 1_700_000_000, frozenset({"src/cart.py", "tests/test_cart.py"})),
        Commit("b" * 40, 5, frozenset()),
    )


def test_a_record_carries_a_short_sha_and_old_records_stay_readable() -> None:
    record = TeamRecord("evidence", ADD, "test", 1, 1, 10, 20, ("tests/test_cart.py",),
                        ("src/cart.py",), None, (), "abc1234")  # fmt: skip
    line = encode_line(record)
    assert '"commit":"abc1234"' in line
    assert decode_line(line) == record
    old = json.loads(line)
    del old["commit"]  # a record written before the commit was shared
    assert decode_line(json.dumps(old)) == TeamRecord(**{**record.__dict__, "fix_commit": None})
    for bad in ("ABC1234", "abc12", "abc1234; rm -rf /", 1234567, "g" * 7):
        refused = decode_line(json.dumps({**old, "commit": bad}))
        assert isinstance(refused, Refused) and "commit" in refused.reason, bad


def _fixing_session(clone: Clone, commit: bool) -> None:
    """A session that fails test_add, edits src/cart.py, passes, commits (or not), ends."""
    clone.sessions += 1
    sid = f"{clone.name}-fix-{clone.sessions}"
    root = clone.root
    assert clone.hook("SessionStart", sample_payload("SessionStart.startup.json", root,
                                                     session_id=sid))[0] == 0  # fmt: skip
    command, error = pytest_failure("test_add")
    fail = sample_payload("PostToolUseFailure.Bash.json", root, session_id=sid, error=error,
                          tool_use_id="toolu_f", tool_input={"command": command})  # fmt: skip
    assert clone.hook("PostToolUseFailure", fail)[0] == 0
    old, new = "    return a + b", "    return a + b + 0"
    path = root / "src" / "cart.py"
    path.write_text(path.read_text().replace(old, new))
    edit = sample_payload("PostToolUse.Edit.json", root, session_id=sid)
    edit["tool_input"] = {"file_path": str(path), "old_string": old, "new_string": new}
    edit["tool_response"].update(
        filePath=str(path), oldString=old, newString=new,
        structuredPatch=[{"oldStart": 2, "oldLines": 1, "newStart": 2, "newLines": 1,
                          "lines": [f"-{old}", f"+{new}"]}],
    )  # fmt: skip
    assert clone.hook("PostToolUse", edit)[0] == 0
    passed = sample_payload("PostToolUse.Bash.json", root, session_id=sid,
                            tool_input={"command": command})  # fmt: skip
    assert clone.hook("PostToolUse", passed)[0] == 0
    if commit:
        time.sleep(1.1)  # git's times are whole seconds: the commit comes after the failure
        git(root, "commit", "-q", "-m", "fix the cart", "src/cart.py")
    end = sample_payload("SessionEnd.other.json", root, session_id=sid)
    assert clone.hook("SessionEnd", end)[0] == 0


def _shared(clone: Clone) -> dict[str, object]:
    (data,) = clone.team_files().values()
    lines = [json.loads(line) for line in data.decode().splitlines()]
    return next(line for line in reversed(lines) if line["mistake"] == ADD)


def test_the_team_rule_says_the_commit_that_fixed_the_mistake(tmp_path: Path) -> None:
    a, b = make_clones(tmp_path, make_remote(tmp_path), 2)
    _fixing_session(a, commit=False)
    assert _shared(a)["fix_paths"] == ["src/cart.py"]
    assert "commit" not in _shared(a)  # the fix is not committed: no commit is named
    _fixing_session(a, commit=True)
    head = git(a.root, "rev-parse", "--short=7", "HEAD").stdout.strip()
    assert _shared(a)["commit"] == head
    a.sync()
    assert b.pull()
    b.session([pytest_failure("test_add")])  # the second teammate: the team rule graduates
    (rule,) = b.rules().values()
    assert f"fixed by the edit to `src/cart.py` in commit `{head}`" in rule.decode(), rule.decode()
    assert b"2 teammates, 3 sessions" in rule
