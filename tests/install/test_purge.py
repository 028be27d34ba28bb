"""`uninstall` says what it leaves; `uninstall --purge` leaves the work tree exactly as before
`init` (checked on a real git repository: `git status --porcelain` and every file's hash), keeps
a copy of the graduated rules that `init --restore` brings back, and keeps every MEMORY.md entry.
"""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from pokayokay.cli.main import main
from pokayokay.hooks import runtime as hook
from pokayokay.infra.locate import resolve_memory_location
from pokayokay.infra.state import state_home

CI_FAILURE = """Exit code 1
Traceback (most recent call last):
  File "{root}/scripts/release.py", line 12, in <module>
    import tomllib
ModuleNotFoundError: No module named 'tomllib'
"""
USER_SETTINGS = {"permissions": {"allow": ["Bash(make test)"]}, "model": "sonnet"}
USER_RULE = "---\npaths:\n  - \"src/**/*.py\"\n---\nUse type hints on every public function.\n"


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], check=True, capture_output=True, text=True
    ).stdout


def snapshot(root: Path) -> tuple[str, dict[str, str]]:
    """`git status --porcelain` (untracked files listed one by one) and every file's hash."""
    status = git(root, "status", "--porcelain", "--untracked-files=all", "--ignored")
    hashes = {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file() and ".git" not in path.relative_to(root).parts
    }
    return status, hashes


def cli(root: Path, *args: str) -> str:
    buffer = io.StringIO()
    with redirect_stdout(buffer):
        code = main([*args, "--project", str(root)])
    assert code == 0, buffer.getvalue()
    return buffer.getvalue()


def failure(root: Path, session: str) -> None:
    payload: dict[str, Any] = {
        "session_id": session,
        "transcript_path": f"/tmp/{session}.jsonl",
        "cwd": str(root),
        "hook_event_name": "PostToolUseFailure",
        "tool_name": "Bash",
        "tool_input": {"command": "python scripts/release.py --dry-run"},
        "tool_use_id": f"toolu_{session}",
        "error": CI_FAILURE.format(root=root),
        "is_interrupt": False,
    }
    out, err = io.StringIO(), io.StringIO()
    assert hook.run("PostToolUseFailure", io.BytesIO(json.dumps(payload).encode()), out, err) == 0


@pytest.fixture(params=["fresh", "configured"])
def repo(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    root = (tmp_path / "release-tools").resolve()
    (root / "scripts").mkdir(parents=True)
    (root / "scripts" / "release.py").write_text("import tomllib\n")
    (root / ".gitignore").write_text("*.pyc\n")
    if request.param == "configured":
        # A team that already has Claude Code settings and a hand-written rule.
        (root / ".claude" / "rules").mkdir(parents=True)
        (root / ".claude" / "settings.json").write_text(json.dumps(USER_SETTINGS, indent=2))
        (root / ".claude" / "rules" / "style.md").write_text(USER_RULE)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "init")
    (root / "notes.txt").write_text("untracked work in progress\n")
    return root


def use_pokayokay(root: Path) -> None:
    """Three sessions fail the same way, the rule graduates, a learning is stored."""
    for n in range(3):
        failure(root, f"5e55{n}000-aaaa-4bbb-8ccc-00000000000{n}")
    cli(root, "graduate")
    assert list((root / ".claude" / "rules" / "pokayokay").glob("*.md"))
    cli(root, "remember", "The release script needs Python 3.11 or newer: it imports tomllib.")


def test_purge_restores_the_work_tree_exactly(repo: Path) -> None:
    before = snapshot(repo)
    init_out = cli(repo, "init")
    assert "capturing-learnings" in init_out
    assert (repo / ".claude" / "skills" / "capturing-learnings" / "SKILL.md").is_file()
    use_pokayokay(repo)
    assert snapshot(repo) != before
    location = resolve_memory_location(repo)
    rule = next((repo / ".claude" / "rules" / "pokayokay").glob("*.md"))
    rule_bytes = rule.read_bytes()

    out = cli(repo, "uninstall", "--purge")

    assert snapshot(repo) == before, out
    assert "removed 1 graduated rule file from .claude/rules/pokayokay/" in out
    # The project's state folder is gone; the copy of the rule is kept elsewhere in the state.
    projects = state_home() / "projects"
    assert not projects.exists() or list(projects.iterdir()) == []
    purged = list((state_home() / "purged").rglob(rule.name))
    assert [p.read_bytes() for p in purged] == [rule_bytes]
    # MEMORY.md keeps the learning's index line as a plain bullet, without any marker.
    memory = location.memory_file.read_text("utf-8")
    assert "<!-- pokayokay" not in memory and "<!-- /pokayokay -->" not in memory
    assert "](learning-" in memory
    assert "learning-" in " ".join(p.name for p in location.memory_dir.iterdir())

    # init --restore brings the rule back, byte for byte.
    restored = cli(repo, "init", "--restore")
    assert f"restored .claude/rules/pokayokay/{rule.name}" in restored
    assert rule.read_bytes() == rule_bytes


def test_purge_right_after_init_removes_the_memory_template(repo: Path) -> None:
    before = snapshot(repo)
    cli(repo, "init")
    memory = resolve_memory_location(repo).memory_file
    assert memory.is_file()
    out = cli(repo, "uninstall", "--purge")
    assert snapshot(repo) == before
    assert not memory.exists()
    assert f"removed {memory}: it held nothing but pokayokay's empty sections" in out
    assert "--restore: no purged rules to bring back" in cli(repo, "init", "--restore")


def test_plain_uninstall_lists_what_stays_and_how_to_remove_it(repo: Path) -> None:
    settings = repo / ".claude" / "settings.json"
    settings_before = settings.read_bytes() if settings.exists() else None
    cli(repo, "init")
    use_pokayokay(repo)
    location = resolve_memory_location(repo)

    out = cli(repo, "uninstall")

    lines = out.splitlines()
    start = lines.index("left in place:")
    left = "\n".join(lines[start:])
    assert (
        "  .claude/rules/pokayokay/: 1 graduated rule file. Claude Code keeps loading it; "
        "`pokayokay uninstall --purge` removes it (keeping a copy), or delete the folder"
    ) in left
    assert (
        "  .claude/skills/capturing-learnings/: the capturing-learnings skill (tells Claude when "
        "to offer /remember); `--purge` removes it, or delete the folder"
    ) in left
    assert f"  {location.memory_file}: pokayokay's section markers" in left
    assert f"  {location.memory_dir}: 1 learning stored with /remember" in left
    assert "pokayokay's state for this project (failures.db" in left
    assert lines[-1].startswith("the pokayokay program itself stays installed")
    # The team's own settings file is back to its very bytes (init had re-serialised it).
    assert (settings.read_bytes() if settings.exists() else None) == settings_before
    # The hooks and /remember are gone; the rule is still there (it was only listed).
    assert not (repo / ".claude" / "commands" / "remember.md").exists()
    assert list((repo / ".claude" / "rules" / "pokayokay").glob("*.md"))


def test_purge_leaves_no_pointer_to_a_removed_rule_and_no_evidence(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The issue's two cases: after `--purge`, MEMORY.md still named the rule files it deleted,
    and the lesson lookup left behind gave the pre-run hint again after a new `init`."""
    from pokayokay.infra import lesson_lookup, spool
    from pokayokay.rules.lessons import CommandLesson, lookup_content

    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(repo))
    cli(repo, "init")
    use_pokayokay(repo)
    rule = next((repo / ".claude" / "rules" / "pokayokay").glob("*.md"))
    pointer = f".claude/rules/pokayokay/{rule.name}"
    location = resolve_memory_location(repo)
    memory_before = location.memory_file.read_text("utf-8")
    assert pointer in memory_before  # graduation's Active Patterns entry
    # What graduation writes once a failing command has a passing variant, and a hook record
    # the next session would ingest.
    bad, good = "python scripts/release.py --dry-run", "python3.11 scripts/release.py --dry-run"
    content = lookup_content([CommandLesson(bad, 3, good, "environment")], 3)
    assert lesson_lookup.write_lookup([str(repo)], content)
    pending = Path(spool.spool_dir(str(repo)))
    pending.mkdir(parents=True, exist_ok=True)
    (pending / "active.spool").write_bytes(b'{"event": "PostToolUseFailure"}\n')

    def pre_run_hint() -> str:
        payload = {
            "session_id": "5e55a000-aaaa-4bbb-8ccc-000000000009",
            "transcript_path": "/tmp/x.jsonl",
            "cwd": str(repo),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": bad, "description": "dry run"},
            "tool_use_id": "toolu_9",
        }
        out, err = io.StringIO(), io.StringIO()
        assert hook.run("PreToolUse", io.BytesIO(json.dumps(payload).encode()), out, err) == 0
        return out.getvalue()

    assert good in pre_run_hint()

    out = cli(repo, "uninstall", "--purge")

    memory = location.memory_file.read_text("utf-8")
    assert ".claude/rules/pokayokay/" not in memory
    assert "](learning-" in memory  # every other entry kept
    assert "entries pointing at the 1 removed rule file(s) removed" in out
    copies = list((state_home() / "purged").rglob("MEMORY.md"))
    assert [c.read_text("utf-8") for c in copies] == [memory_before]
    assert lesson_lookup.find_lookup(str(repo)) is None
    assert not pending.exists()

    cli(repo, "init")
    assert pre_run_hint() == ""
    assert lesson_lookup.find_lookup(str(repo)) is None
