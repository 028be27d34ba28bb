"""The skill catalog: locations, frontmatter, precedence and the mtime-keyed cache."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers.gitrepo import git
from helpers.paths import DATA_DIR

from pokayokay.skills import catalog as skills_catalog
from pokayokay.skills.catalog import (
    load_catalog,
    parse_frontmatter,
    parse_frontmatter_fast,
    skill_from_text,
)


def _skill(folder: Path, name: str, description: str, extra: str = "") -> Path:
    path = folder / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nname: {name}\ndescription: {description}\n{extra}---\n\n# body\n")
    return path


def test_fast_parser_scalars() -> None:
    head = (
        "name: testing\n"
        "description: >\n  Write tests\n  with pytest: fixtures.\n"
        "when_to_use: 'it''s red'\n"
        "allowed-tools: [Read, Grep]\n"
        "metadata:\n  owner: x\n"
    )
    assert parse_frontmatter_fast(head) == {
        "name": "testing",
        "description": "Write tests with pytest: fixtures.",
        "when_to_use": "it's red",
    }
    assert parse_frontmatter_fast('description: "a \\"quoted\\" text"\n') == {
        "description": 'a "quoted" text'
    }
    assert parse_frontmatter_fast("description: plain # comment\n") == {"description": "plain"}
    assert parse_frontmatter_fast("description: first\n  continued line\n") == {
        "description": "first continued line"
    }


def test_unusual_frontmatter_falls_back_to_yaml(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "---\ndescription: &a anchored text\nname: x\n---\nbody\n"
    assert parse_frontmatter_fast("description: &a anchored text\n") is None
    assert parse_frontmatter(text)["description"] == "anchored text"


def test_no_ruamel_for_well_formed_files(monkeypatch: pytest.MonkeyPatch) -> None:
    import pokayokay.rules.files

    def boom(text: str) -> object:
        raise AssertionError("YAML parser used")

    monkeypatch.setattr(pokayokay.rules.files, "split_frontmatter", boom)
    data_dir = DATA_DIR / "suggest" / "skills"
    for path in sorted(data_dir.glob("*/SKILL.md")):
        meta = parse_frontmatter(path.read_text())
        assert meta["description"], path


def test_skill_names_and_invocation_flag() -> None:
    text = "---\nname: Other Name\ndescription: d\ndisable-model-invocation: true\n---\n"
    project = skill_from_text(text, "dirname", "/p", "project")
    assert project.name == "dirname" and not project.model_invocable
    plugin = skill_from_text("---\nname: lint\ndescription: d\n---\n", "x", "/p", "plugin", "tools")
    assert plugin.name == "tools:lint" and plugin.model_invocable
    assert skill_from_text("no frontmatter", "bare", "/p", "project").description == ""


def test_locations_and_precedence(tmp_path: Path, isolated_home: Path) -> None:
    repo = tmp_path / "repo"
    sub = repo / "pkg" / "app"
    sub.mkdir(parents=True)
    git(repo, "init", "-q")
    _skill(repo / ".claude" / "skills", "root-skill", "from the repo root")
    _skill(sub / ".claude" / "skills", "near-skill", "from the launch folder")
    _skill(sub / ".claude" / "skills", "shared", "project version")
    _skill(tmp_path / ".claude" / "skills", "outside", "above the repo: not read")
    config = isolated_home / ".claude"
    _skill(config / "skills", "shared", "personal version")
    plugin_root = config / "plugins" / "cache" / "market" / "toolbox" / "1.2.0"
    (plugin_root / ".claude-plugin").mkdir(parents=True)
    (plugin_root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "toolbox"}))
    _skill(plugin_root / "skills", "lint", "lint things")
    unnamed = config / "plugins" / "cache" / "market" / "other" / "0.1.0"
    _skill(unnamed / "skills", "fmt", "format things")

    skills = {s.name: s for s in load_catalog(sub)}
    assert set(skills) == {"shared", "near-skill", "root-skill", "toolbox:lint", "other:fmt"}
    assert skills["shared"].source == "personal"
    assert skills["shared"].description == "personal version"
    assert skills["toolbox:lint"].source == "plugin"


def test_cache_skips_parsing_unchanged_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / ".claude" / "skills"
    for i in range(200):
        _skill(folder, f"skill-{i:03d}", f"does task number {i} with widgets")
    first = load_catalog(tmp_path)
    assert len(first) == 200
    calls: list[str] = []
    real = skills_catalog.skill_from_text

    def counting(*args: object, **kwargs: object) -> object:
        calls.append(str(args[1]))
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(skills_catalog, "skill_from_text", counting)
    second = load_catalog(tmp_path)
    assert calls == []
    assert [(s.name, s.description, s.terms) for s in second] == [
        (s.name, s.description, s.terms) for s in first
    ]
    changed = folder / "skill-007" / "SKILL.md"
    changed.write_text("---\ndescription: now about gadgets entirely\n---\n")
    os.utime(changed, ns=(1, 1))
    third = {s.name: s for s in load_catalog(tmp_path)}
    assert calls == ["skill-007"]
    assert third["skill-007"].description == "now about gadgets entirely"


def test_corrupt_cache_is_ignored(tmp_path: Path) -> None:
    _skill(tmp_path / ".claude" / "skills", "one", "first skill")
    load_catalog(tmp_path)
    cache = skills_catalog._cache_path(str(tmp_path), None)
    assert cache.exists()
    cache.write_text("{not json")
    assert [s.name for s in load_catalog(tmp_path)] == ["one"]
    cache.write_text(json.dumps({"format": 1, "analysis": 1, "files": {"x": 1}}))
    assert [s.name for s in load_catalog(tmp_path)] == ["one"]
