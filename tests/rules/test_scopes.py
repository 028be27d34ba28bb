"""The prompt's rule scopes: the same as reading every rule, with a file parsed again only when
it changed (rules.scopes)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pokayokay.rules import files, scopes
from pokayokay.rules.files import discover


def rule(patterns: list[str], body: str = "- Run `make test`.") -> str:
    listed = "".join(f'  - "{p}"\n' for p in patterns)
    return f"---\npaths:\n{listed}---\n\n# Testing\n\n{body}\n"


def write(project: Path, name: str, text: str, age: float = 60.0) -> Path:
    path = project / ".claude" / "rules" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    old = path.stat().st_mtime - age
    os.utime(path, (old, old))
    return path


def expected(project: Path) -> list[tuple[str, tuple[str, ...]]]:
    return [
        (r.rel_path, tuple(r.paths))
        for r in discover(project)
        if r.is_pokayokay and r.conditional and r.paths
    ]


def test_scopes_equal_a_full_read_and_follow_every_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, cache = tmp_path / "p", str(tmp_path / "state" / "rule-scopes.marshal")
    write(project, "pokayokay/testing.md", rule(["src/**/*.py"]))
    write(project, "pokayokay/lint.md", rule(["src/a.py", "src/b.py"]))
    write(project, "mine.md", rule(["docs/**"]))  # not pokayokay's: no scope
    write(project, "pokayokay/always.md", "# Always loaded\n")
    assert scopes.conditional_scopes(project, cache) == expected(project)
    assert os.path.exists(cache)

    parsed: list[str] = []
    real = files.read_rule

    def counting(project_dir: Path, path: Path, rule_path: str) -> files.RuleFile:
        parsed.append(rule_path)
        return real(project_dir, path, rule_path)

    monkeypatch.setattr(scopes, "read_rule", counting)
    assert scopes.conditional_scopes(project, cache) == expected(project)
    assert parsed == []  # nothing changed: nothing parsed

    write(project, "pokayokay/lint.md", rule(["src/c.py"]))  # changed
    write(project, "pokayokay/new.md", rule(["web/**/*.ts"]))  # added
    (project / ".claude" / "rules" / "pokayokay" / "testing.md").unlink()  # removed
    assert scopes.conditional_scopes(project, cache) == expected(project)
    assert sorted(parsed) == ["pokayokay/lint.md", "pokayokay/new.md"]


def test_a_file_written_just_now_is_read_again_until_its_time_settles(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Same size, same coarse timestamp: the cache must not keep the old scope."""
    project, cache = tmp_path / "p", str(tmp_path / "state" / "rule-scopes.marshal")
    path = write(project, "pokayokay/testing.md", rule(["src/a.py"]), age=0.0)
    assert scopes.conditional_scopes(project, cache) == [
        (".claude/rules/pokayokay/testing.md", ("src/a.py",))
    ]
    stat = path.stat()
    path.write_text(rule(["src/b.py"]), "utf-8")  # the same size
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # and the same time
    assert scopes.conditional_scopes(project, cache) == [
        (".claude/rules/pokayokay/testing.md", ("src/b.py",))
    ]


def test_without_a_cache_or_with_a_damaged_one_every_file_is_read(tmp_path: Path) -> None:
    project = tmp_path / "p"
    write(project, "pokayokay/testing.md", rule(["src/**/*.py"]))
    assert scopes.conditional_scopes(project, None) == expected(project)
    damaged = tmp_path / "damaged.marshal"
    damaged.write_bytes(b"\x00garbage")
    assert scopes.conditional_scopes(project, str(damaged)) == expected(project)
