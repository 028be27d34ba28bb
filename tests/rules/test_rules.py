"""Rule files: discovery, Claude Code's frontmatter reading, match, lint, and the CLI functions."""

from __future__ import annotations

import json
import os
from datetime import date
from pathlib import Path

import pytest

from pokayokay.cli.rules import cmd_rules_lint, cmd_rules_list, cmd_rules_match, cmd_rules_show
from pokayokay.errors import PokayokayError
from pokayokay.infra.git import list_project_files
from pokayokay.infra.locate import resolve_memory_location
from pokayokay.rules import files as rules_mod
from pokayokay.rules.files import (
    RuleFile,
    always_loaded,
    discover,
    match,
    parse_rule,
    split_frontmatter,
)
from pokayokay.rules.lint import lint, lint_rule
from pokayokay.rules.load_stats import store_rule_path
from pokayokay.rules.retirement import ARCHIVE_NAME, retire

TESTING_RULE = """\
---
paths:
  - "/src/cart/**"
  - "/tests/test_cart.py"
---
# Testing: cart

- After changing files under src/cart/, run `pytest tests/test_cart.py`.

<!-- pokayokay-rule: id=testing; signatures=3f2a9c1d0b4e,77b0e2aa11cc; graduated=2026-11-01; \
paths=/src/cart/**,/tests/test_cart.py -->
"""

FILES = [
    "README.md",
    "docs/guide.md",
    "src/app.py",
    "src/cart/cart.py",
    "src/cart/deep/util.py",
    "tests/test_cart.py",
]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    for name in FILES:
        write(root / name, "x\n")
    rules = root / ".claude" / "rules"
    write(rules / "style.md", "# Style\n\nUse four spaces.\n")
    write(rules / "python.md", "---\npaths:\n  - src/**/*.py\n---\n# Python\n")
    write(rules / "sub" / "docs.md", "---\npaths: docs/**, *.md\n---\n# Docs\n")
    write(rules / "pokayokay" / "testing.md", TESTING_RULE)
    write(rules / "notes.txt", "---\npaths: [x]\n---\nnot a rule\n")
    write(rules / "LOUD.MD", "not a rule either (suffix is case-sensitive)\n")
    return root


def by_path(found: list[RuleFile]) -> dict[str, RuleFile]:
    return {rule.rule_path: rule for rule in found}


# ---------------------------------------------------------------------------------------------
# discover


def test_discover_finds_md_files_recursively(project: Path) -> None:
    found = discover(project)
    assert [r.rule_path for r in found] == [
        "pokayokay/testing.md",
        "python.md",
        "style.md",
        "sub/docs.md",
    ]
    rules = by_path(found)
    assert rules["style.md"].paths is None and rules["style.md"].always_loaded
    assert rules["python.md"].paths == ("src/**/*.py",)
    assert rules["sub/docs.md"].paths == ("docs", "*.md")
    assert rules["sub/docs.md"].rel_path == ".claude/rules/sub/docs.md"
    assert rules["sub/docs.md"].path == project.absolute() / ".claude/rules/sub/docs.md"
    assert rules["python.md"].body == "# Python\n"
    assert rules["python.md"].frontmatter == {"paths": ["src/**/*.py"]}


def test_pokayokay_rule_and_bookkeeping(project: Path) -> None:
    rule = by_path(discover(project))["pokayokay/testing.md"]
    assert rule.is_pokayokay
    assert rule.paths == ("/src/cart", "/tests/test_cart.py")
    assert rule.bookkeeping is not None
    assert rule.id == "testing"
    assert rule.signatures == ("3f2a9c1d0b4e", "77b0e2aa11cc")
    assert rule.bookkeeping.graduated == "2026-11-01"
    assert rule.bookkeeping.scoped
    assert not by_path(discover(project))["python.md"].is_pokayokay


def test_discover_follows_symlinks_and_survives_loops(project: Path, tmp_path: Path) -> None:
    shared = write(tmp_path / "shared" / "team.md", "---\npaths: ['*.py']\n---\nteam\n")
    rules = project / ".claude" / "rules"
    (rules / "linked").mkdir()
    os.symlink(shared, rules / "linked" / "team.md")
    os.symlink(rules, rules / "sub" / "loop")  # a folder loop
    found = by_path(discover(project))
    assert found["linked/team.md"].paths == ("*.py",)
    assert found["linked/team.md"].path == project.absolute() / ".claude/rules/linked/team.md"
    assert not any("loop/loop" in name for name in found)


def test_discover_without_rules_folder(tmp_path: Path) -> None:
    assert discover(tmp_path) == []


def test_oversized_rule_is_skipped(project: Path) -> None:
    big = project / ".claude" / "rules" / "big.md"
    big.write_bytes(b"---\npaths: [x]\n---\n" + b"a" * (rules_mod.MAX_RULE_BYTES + 1))
    rule = by_path(discover(project))["big.md"]
    assert rule.skipped is not None and "4 MiB" in rule.skipped
    assert not rule.conditional and not rule.always_loaded
    assert [f.code for f in lint_rule(rule)] == ["unreadable"]


# ---------------------------------------------------------------------------------------------
# Claude Code's frontmatter reading


def test_frontmatter_ends_at_the_first_dashes_anywhere() -> None:
    parsed = split_frontmatter("---\npaths: [a---b]\n---\nbody\n")
    assert parsed.text == "paths: [a"
    # "[a" is not YAML; Claude Code's fallback quotes it: the pattern is "[a" (matches nothing)
    assert parsed.used_fallback and parsed.data == {"paths": "[a"}
    parsed = split_frontmatter("---\npaths: a---b\n---\nbody\n")
    assert parsed.data == {"paths": "a"}
    assert parsed.body == "b\n---\nbody\n"


def test_frontmatter_needs_a_second_dashes() -> None:
    assert split_frontmatter("---\npaths: [x]\nno end\n").present is False
    assert split_frontmatter("----\npaths: [x]\n---\n").present is False
    assert split_frontmatter("\ufeff---\npaths: [x]\n---\nb").data == {"paths": ["x"]}
    assert split_frontmatter("---  \r\npaths: [x]\r\n---\r\nb").data == {"paths": ["x"]}


def test_frontmatter_quoting_fallback_rescues_bare_globs() -> None:
    parsed = split_frontmatter("---\npaths: *.md\n---\n")
    assert parsed.used_fallback and parsed.data == {"paths": "*.md"}
    parsed = split_frontmatter("---\npaths: {a,b}/*.md\n---\n")
    assert parsed.data == {"paths": "{a,b}/*.md"}
    parsed = split_frontmatter("---\npaths:\n\t- a\n---\n")  # tabs become two spaces
    assert parsed.data == {"paths": ["a"]}


def test_a_repeated_key_replaces_the_earlier_one() -> None:
    # Checked with Claude Code 2.1.330: the rule loaded for app.py, not nothing.txt.
    parsed = split_frontmatter("---\npaths: [nothing.txt]\npaths: [app.py]\n---\n")
    assert parsed.data == {"paths": ["app.py"]}
    assert parsed.duplicate_keys == ("paths",)


def test_quoted_items_separated_by_commas_break_the_whole_frontmatter() -> None:
    parsed = split_frontmatter('---\npaths: "a/**", "*.md"\n---\nbody\n')
    assert parsed.yaml_error is not None
    assert parsed.data == {}


# ---------------------------------------------------------------------------------------------
# match


def test_match_lists_the_rules_claude_code_loads(project: Path) -> None:
    assert [r.rule_path for r in match(project, "src/cart/deep/util.py")] == [
        "pokayokay/testing.md",
        "python.md",
    ]
    assert [r.rule_path for r in match(project, "README.md")] == ["sub/docs.md"]
    assert [r.rule_path for r in match(project, "docs/guide.md")] == ["sub/docs.md"]
    assert match(project, "other/file.txt") == []
    absolute = str(project / "tests" / "test_cart.py")
    assert [r.rule_path for r in match(project, absolute)] == ["pokayokay/testing.md"]
    assert match(project, str(project.parent / "elsewhere.py")) == []
    assert [r.rule_path for r in always_loaded(discover(project))] == ["style.md"]


# ---------------------------------------------------------------------------------------------
# lint: one bad rule file per finding


def lint_text(text: str, rule_path: str = "r.md", files: list[str] | None = None) -> list[str]:
    rule = parse_rule(text, rule_path, Path("/p/.claude/rules") / rule_path, rule_path)
    return [f.code for f in lint_rule(rule, FILES if files is None else files)]


LINT_CASES = [
    ("clean", "---\npaths:\n  - src/**/*.py\n---\nx\n", []),
    ("no frontmatter", "# just text\n", []),
    ("bare glob rescued", "---\npaths: *.md\n---\nx\n", []),
    ("yaml-invalid", '---\npaths: "a/**", "*.md"\n---\nx\n', ["yaml-invalid"]),
    ("yaml-invalid bad indent", "---\npaths:\n  - a\n - b\n---\nx\n", ["yaml-invalid"]),
    ("quoted-comma-item", '---\npaths: src/**, "*.md"\n---\nx\n', ["quoted-comma-item"]),
    ("quoted-comma-item in list", "---\npaths: ['src, \"*.md\"']\n---\n", ["quoted-comma-item"]),
    ("quoted-pattern", "---\npaths: ['\"*.md\"']\n---\n", ["quoted-pattern"]),
    ("globs-key", "---\nglobs: [src/**]\n---\nx\n", ["globs-key"]),
    ("globs and paths", "---\nglobs: [a]\npaths: [src]\n---\n", ["globs-key"]),
    ("paths-type number", "---\npaths: 5\n---\n", ["paths-type"]),
    ("paths-type mapping", "---\npaths: {src: 1}\n---\n", ["paths-type"]),
    ("paths-type item", "---\npaths: [src, 3]\n---\n", ["paths-type"]),
    ("paths-empty null", "---\npaths:\n---\n", ["paths-empty"]),
    ("paths-empty list", "---\npaths: []\n---\n", ["paths-empty"]),
    ("matches-everything", "---\npaths: '**'\n---\n", ["matches-everything"]),
    ("matches-everything /**", "---\npaths: ['/**', '**/**']\n---\n", ["matches-everything"]),
    ("pattern-matches-everything", "---\npaths: ['**', src]\n---\n",
     ["pattern-matches-everything"]),
    ("pattern-no-match", "---\npaths: [lib/**]\n---\n", ["pattern-no-match"]),
    ("pattern-invalid", "---\npaths: ['[/', src]\n---\n", ["pattern-invalid"]),
    ("pattern-invalid comment", "---\npaths: ['#src', src]\n---\n", ["pattern-invalid"]),
    ("pattern-quirk", "---\npaths: ['src/[!a]*.py']\n---\n", ["pattern-quirk"]),
    ("frontmatter-unclosed", "---\npaths: [src]\n# rule\n", ["frontmatter-unclosed"]),
    ("frontmatter-ends-early", "---\npaths: src---x\n---\n", ["frontmatter-ends-early"]),
    ("frontmatter-not-mapping", "---\n- src\n---\n", ["frontmatter-not-mapping"]),
    ("duplicate-key", "---\npaths: [src]\npaths: [docs]\n---\n", ["duplicate-key"]),
]  # fmt: skip


@pytest.mark.parametrize(("name", "text", "codes"), LINT_CASES, ids=[c[0] for c in LINT_CASES])
def test_lint_finding(name: str, text: str, codes: list[str]) -> None:
    assert lint_text(text) == codes


def test_lint_pokayokay_rule_scoped_in_bookkeeping_but_without_paths() -> None:
    text = (
        "# Testing\n\n<!-- pokayokay-rule: id=testing; signatures=abc; "
        "graduated=2026-11-01; paths=/src/cart/** -->\n"
    )
    assert lint_text(text, "pokayokay/testing.md") == ["scoped-without-paths"]
    unscoped = text.replace("paths=/src/cart/**", "paths=")
    assert lint_text(unscoped, "pokayokay/testing.md") == []
    assert lint_text("# Testing\n", "pokayokay/testing.md") == ["bookkeeping-missing"]


def test_lint_graduated_rule_whose_where_line_names_globs_but_paths_is_gone() -> None:
    # The layout of templates/rule.md.j2, with the frontmatter deleted by hand.
    body = (
        "# Testing failures\n\n<!-- pokayokay-rule: id=testing-cart; signatures=3f2a9c1d0b4e; "
        "graduated=2026-11-01 -->\n- Where: `/src/cart/**`, `/tests/test_cart.py`.\n"
    )
    rule = parse_rule(body, "pokayokay/testing-cart.md", Path("/p/x.md"), "x.md")
    assert rules_mod.graduated_globs(rule.body) == ("/src/cart/**", "/tests/test_cart.py")
    (finding,) = lint_rule(rule)
    assert finding.code == "scoped-without-paths" and "/src/cart/**" in finding.message
    project_wide = body.replace(
        "- Where: `/src/cart/**`, `/tests/test_cart.py`.",
        "- Where: anywhere in the project (no `paths:`, so this rule loads at the start of "
        "every session).",
    )
    rule = parse_rule(project_wide, "pokayokay/testing.md", Path("/p/x.md"), "x.md")
    assert lint_rule(rule) == []


def test_lint_messages_explain_what_claude_code_does() -> None:
    rule = parse_rule('---\npaths: "a/**", "*.md"\n---\n', "r.md", Path("/p/r.md"), "r.md")
    (finding,) = lint_rule(rule)
    assert finding.severity == "error"
    assert "YAML list" in finding.message
    assert "start of every session" in finding.message
    rule = parse_rule("---\nglobs: [a]\n---\n", "r.md", Path("/p/r.md"), "r.md")
    (finding,) = lint_rule(rule)
    assert "paths:" in finding.message and "start of every session" in finding.message


def test_lint_project(project: Path) -> None:
    write(project / ".claude" / "rules" / "bad.md", "---\nglobs: [src/**]\n---\n")
    findings = lint(project, FILES)
    assert [(f.rule, f.code) for f in findings] == [(".claude/rules/bad.md", "globs-key")]


def test_project_files_walks_without_git(project: Path) -> None:
    names = list_project_files(project)
    assert "src/cart/cart.py" in names
    assert ".claude/rules/style.md" in names


# ---------------------------------------------------------------------------------------------
# CLI functions


def test_cmd_rules_list_text(project: Path) -> None:
    code, text = cmd_rules_list(project, as_json=False)
    assert code == 0
    lines = text.splitlines()
    assert lines[0] == "4 rules in .claude/rules/ (1 managed by pokayokay)"
    assert lines[2].split() == ["RULE", "SCOPE", "MANAGED"]
    assert any(
        line.split()[:3] == ["pokayokay/testing.md", "/src/cart,", "/tests/test_cart.py"]
        and line.split()[-1] == "pokayokay"
        for line in lines
    )
    assert any(line.startswith("style.md") and "always loaded" in line for line in lines)
    assert "no load counts yet" in text


def test_cmd_rules_list_json_with_load_counts(project: Path) -> None:
    from pokayokay.failures.model import Failure
    from pokayokay.failures.store import FailureStore

    rule = by_path(discover(project))["pokayokay/testing.md"]
    key = store_rule_path(project, rule)
    assert key == ".claude/rules/pokayokay/testing.md"
    with FailureStore.for_project(os.path.realpath(project)) as store:
        store.record_rule_load("s1", key, "src/cart/cart.py", 1000.0)
        store.record_rule_load("s1", key, "src/cart/cart.py", 1001.0)
        store.record_rule_load("s2", key, "tests/test_cart.py", 2000.0)
        store.record_rule_load("s2", ".claude/rules/python.md", "src/app.py", 2001.0)
        store.record_failure(
            Failure(2500.0, "s3", "Bash", "pytest", "FAILED test_cart", "testing",
                    ("tests/test_cart.py",), "FAILED", 1)
        )  # fmt: skip
    code, text = cmd_rules_list(project, as_json=True)
    assert code == 0
    data = json.loads(text)
    assert data["load_counts"] is True
    rows = {row["rule_path"]: row for row in data["rules"]}
    testing = rows["pokayokay/testing.md"]
    assert testing["loads"] == 3 and testing["sessions"] == 2
    assert testing["managed"] is True and testing["scope"] == "paths"
    assert testing["paths"] == ["/src/cart", "/tests/test_cart.py"]
    assert testing["last_load"].startswith("1970-01-01T00:33:20")
    assert testing["recurred"] is False  # its signatures are not the failure's
    assert rows["python.md"]["loads"] == 1
    assert rows["style.md"]["scope"] == "always" and rows["style.md"]["paths"] is None
    _, text = cmd_rules_list(project, as_json=False)
    row = next(line for line in text.splitlines() if line.startswith("pokayokay/testing.md"))
    assert row.split()[-4:-2] == ["3", "2"]


def test_cmd_rules_show(project: Path) -> None:
    code, text = cmd_rules_show(project, "testing", as_json=False)
    assert code == 0
    assert text.splitlines()[0] == "pokayokay/testing.md  (.claude/rules/pokayokay/testing.md)"
    assert "managed by pokayokay" in text
    assert "  /src/cart\n" in text and "as written" in text
    assert "signatures: 3f2a9c1d0b4e, 77b0e2aa11cc" in text
    assert "# Testing: cart" in text
    code, text = cmd_rules_show(project, ".claude/rules/sub/docs.md", as_json=True)
    data = json.loads(text)
    assert data["paths"] == ["docs", "*.md"]
    assert data["paths_as_written"] == "docs/**, *.md"
    assert data["findings"] == []
    assert data["body"] == "# Docs\n"
    assert cmd_rules_show(project, "style", as_json=False)[1].count("always loaded") == 1


def test_cmd_rules_show_unknown_rule(project: Path) -> None:
    with pytest.raises(PokayokayError, match="no rule 'nope'"):
        cmd_rules_show(project, "nope", as_json=False)


def test_cmd_rules_match(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    code, text = cmd_rules_match(project, "src/cart/cart.py", as_json=False)
    assert code == 0
    assert text.splitlines() == [
        "Reading src/cart/cart.py makes Claude Code load:",
        "  pokayokay/testing.md  (pattern /src/cart)",
        "  python.md             (pattern src/**/*.py)",
        "Always loaded (session start): style.md",
    ]
    monkeypatch.chdir(project / "src")  # a path relative to the current folder
    data = json.loads(cmd_rules_match(project, "cart/cart.py", as_json=True)[1])
    assert data["path"] == "src/cart/cart.py"
    assert [m["rule_path"] for m in data["matched"]] == ["pokayokay/testing.md", "python.md"]
    assert data["always_loaded"][0]["rule_path"] == "style.md"
    _, text = cmd_rules_match(project, "nothing.txt", as_json=False)
    assert "No path-scoped rule matches src/nothing.txt." in text


def test_cmd_rules_lint_exit_codes(project: Path) -> None:
    code, text = cmd_rules_lint(project, as_json=False, files=FILES)
    assert (code, text) == (0, "4 rules checked: no problems.")
    write(project / ".claude" / "rules" / "bad.md", '---\npaths: "a/**", "*.md"\n---\n')
    code, text = cmd_rules_lint(project, as_json=False, files=FILES)
    assert code == 1
    assert text.splitlines()[0].startswith(".claude/rules/bad.md: error: [yaml-invalid]")
    code, text = cmd_rules_lint(project, as_json=True, files=FILES)
    data = json.loads(text)
    assert code == 1 and data["rules"] == 5
    assert [f["code"] for f in data["findings"]] == ["yaml-invalid"]


# ---------------------------------------------------------------------------------------------
# retire


def test_retire_moves_the_rule_text_into_the_archive(project: Path, tmp_path: Path) -> None:
    location = resolve_memory_location(project, memory_dir=tmp_path / "memory")
    rule_file = project / ".claude" / "rules" / "pokayokay" / "testing.md"
    result = retire(project, location, "testing", today=date(2026, 11, 22), reason="Quiet.")
    assert not rule_file.exists()
    archive = (tmp_path / "memory" / ARCHIVE_NAME).read_text(encoding="utf-8")
    assert archive.startswith("# Retired rules\n")
    assert result.heading == (
        "## 2026-11-22 — retired `testing` (.claude/rules/pokayokay/testing.md)"
    )
    assert TESTING_RULE in archive  # verbatim
    assert "Quiet." in archive
    assert [r.rule_path for r in discover(project)] == ["python.md", "style.md", "sub/docs.md"]
    # A second retirement appends; nothing before it changes.
    write(rule_file.with_name("lint.md"), "# Lint\n```\ncode\n```\n")
    retire(project, location, "lint", today=date(2026, 11, 23))
    again = (tmp_path / "memory" / ARCHIVE_NAME).read_text(encoding="utf-8")
    assert again.startswith(archive)
    assert "````markdown\n# Lint\n```\ncode\n```\n````" in again  # a longer fence


def test_retire_refuses_rules_pokayokay_does_not_manage(project: Path, tmp_path: Path) -> None:
    location = resolve_memory_location(project, memory_dir=tmp_path / "memory")
    with pytest.raises(PokayokayError, match="no rule 'python'"):
        retire(project, location, "python")
    assert (project / ".claude" / "rules" / "python.md").exists()
    assert not (tmp_path / "memory" / ARCHIVE_NAME).exists()


def test_retire_refuses_an_archive_symlinked_outside(project: Path, tmp_path: Path) -> None:
    memory = tmp_path / "memory"
    memory.mkdir()
    outside = write(tmp_path / "elsewhere.md", "keep\n")
    os.symlink(outside, memory / ARCHIVE_NAME)
    location = resolve_memory_location(project, memory_dir=memory)
    with pytest.raises(PokayokayError, match="outside the memory folder"):
        retire(project, location, "testing")
    assert (project / ".claude" / "rules" / "pokayokay" / "testing.md").exists()
    assert outside.read_text() == "keep\n"
