"""The prompt's rule scopes: the same as reading every rule, with a file parsed again only when
it changed (rules.scopes)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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


def uncached_pairs(project: Path, paths: list[str]) -> list[tuple[str, str]]:
    """What skills.suggest computes without the cache: each rule, the first path it loads for."""
    from pokayokay.rules.claude_match import matches

    pairs = []
    for rel, patterns in expected(project):
        for path in paths:
            if matches(list(patterns), path.rstrip("/")):
                pairs.append((rel, path))
                break
    return pairs


PATTERNS = ["src/**/*.py", "src/a.py", "tests/**", "web/**/*.ts", "!src/gen/**", "*.md", "src/"]
PATHS = ["src/a.py", "src/gen/x.py", "tests/test_a.py", "web/app/ui.ts", "README.md", "src/",
         "docs/guide.md", "lib/b.py"]  # fmt: skip


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["a.md", "b.md", "sub/c.md"]),
            st.lists(st.sampled_from(PATTERNS), max_size=3),
            st.lists(st.sampled_from(PATHS), max_size=4),
        ),
        min_size=1, max_size=5,
    )
)  # fmt: skip
def test_rules_for_paths_answer_as_matching_every_rule_through_any_change(
    tmp_path: Path, steps: list[tuple[str, list[str], list[str]]]
) -> None:
    """Whatever rule is rewritten (or emptied) between prompts, and whatever paths a prompt
    names, the cached answer is the uncached one, and the scopes are a full read's."""
    import uuid

    root = tmp_path / uuid.uuid4().hex
    project, cache = root / "p", str(root / "rule-scopes.marshal")
    write(project, "pokayokay/base.md", rule(["src/**/*.py"]))
    for n, (name, patterns, paths) in enumerate(steps):
        text = rule(patterns, body=f"- step {n}") if patterns else "# Always\n"
        write(project, f"pokayokay/{name}", text, age=60.0 + n)
        for _ in range(2):  # the second call answers from the cache
            got_scopes, pairs = scopes.rules_for_paths(project, cache, paths)
            assert got_scopes == expected(project)
            assert pairs == uncached_pairs(project, paths)


def test_a_warm_prompt_neither_parses_nor_matches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pokayokay.rules import claude_match

    project, cache = tmp_path / "p", str(tmp_path / "state" / "rule-scopes.marshal")
    write(project, "pokayokay/testing.md", rule(["src/**/*.py"]))
    write(project, "pokayokay/lint.md", rule(["web/**"]))
    paths = ["src/app.py", "web/"]
    first = scopes.rules_for_paths(project, cache, paths)
    assert first[1] == [
        (".claude/rules/pokayokay/lint.md", "web/"),
        (".claude/rules/pokayokay/testing.md", "src/app.py"),
    ]

    def refuse(*args: object) -> object:
        raise AssertionError("parsed or matched on a warm prompt")

    monkeypatch.setattr(scopes, "read_rule", refuse)
    monkeypatch.setattr(claude_match, "matches", refuse)
    assert scopes.rules_for_paths(project, cache, paths) == first
    # A rule that changes is parsed again and every answer is found again.
    monkeypatch.undo()
    write(project, "pokayokay/lint.md", rule(["docs/**"]), age=30.0)
    assert scopes.rules_for_paths(project, cache, paths)[1] == [
        (".claude/rules/pokayokay/testing.md", "src/app.py")
    ]


def test_answers_are_not_cached_while_a_rule_file_is_racy(tmp_path: Path) -> None:
    project, cache = tmp_path / "p", str(tmp_path / "state" / "rule-scopes.marshal")
    path = write(project, "pokayokay/testing.md", rule(["src/a.py"]), age=0.0)
    assert scopes.rules_for_paths(project, cache, ["src/a.py"])[1] == [
        (".claude/rules/pokayokay/testing.md", "src/a.py")
    ]
    stat = path.stat()
    path.write_text(rule(["src/b.py"]), "utf-8")  # the same size and time
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert scopes.rules_for_paths(project, cache, ["src/a.py"])[1] == []


def test_the_prefix_is_the_rules_folder() -> None:
    assert files.RULES_DIR.as_posix() + "/" == scopes.RULES_PREFIX


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(st.sampled_from(PATHS), min_size=1, max_size=4),
    st.lists(
        st.tuples(st.sampled_from(["a.md", "b.md", "sub/c.md"]),
                  st.lists(st.sampled_from(PATTERNS), max_size=3)),
        min_size=1, max_size=4,
    ),
)  # fmt: skip
def test_refresh_leaves_every_named_path_answered_as_matching_would(
    tmp_path: Path, named: list[str], rewrites: list[tuple[str, list[str]]]
) -> None:
    """SessionStart's catch-up worker refreshes the cache after graduation rewrote rules: then
    a prompt naming any path named before neither parses nor matches, and its answer is the
    uncached one. While a rewritten file is racy, ``refresh`` says how long to wait and keeps
    the paths to answer."""
    import uuid

    from pokayokay.rules import claude_match

    root = tmp_path / uuid.uuid4().hex
    project, cache = root / "p", str(root / "rule-scopes.marshal")
    write(project, "pokayokay/base.md", rule(["src/**/*.py"]))
    scopes.rules_for_paths(project, cache, named)  # the prompts before
    for n, (name, patterns) in enumerate(rewrites):
        text = rule(patterns, body=f"- rewrite {n}") if patterns else "# Always\n"
        write(project, f"pokayokay/{name}", text, age=0.0)
    assert 0.0 < scopes.refresh(project, cache) <= scopes.RACY_SECONDS
    for n, (name, _patterns) in enumerate(rewrites):  # the files settle
        path = project / ".claude" / "rules" / "pokayokay" / name
        old = path.stat().st_mtime - 60 - n
        os.utime(path, (old, old))
    assert scopes.refresh(project, cache) == 0.0
    want = uncached_pairs(project, named)

    def refuse(*args: object) -> object:
        raise AssertionError("parsed or matched after refresh")

    with pytest.MonkeyPatch.context() as m:
        m.setattr(scopes, "read_rule", refuse)
        m.setattr(claude_match, "matches", refuse)
        got_scopes, pairs = scopes.rules_for_paths(project, cache, named)
    assert pairs == want
    assert got_scopes == expected(project)
