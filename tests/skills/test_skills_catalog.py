"""The skill catalog: locations, frontmatter, precedence and the mtime-keyed cache."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers.gitrepo import git
from helpers.paths import DATA_DIR

from pokayokay.skills import catalog as skills_catalog
from pokayokay.skills import discovery
from pokayokay.skills.catalog import (
    load_catalog,
    parse_frontmatter,
    skill_from_text,
)
from pokayokay.skills.skill_frontmatter import parse_frontmatter_fast


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
    assert [(s.name, s.description, s.profile.to_data()) for s in second if s.profile] == [
        (s.name, s.description, s.profile.to_data()) for s in first if s.profile
    ]
    # The catalog-wide statistics come from the cache too.
    assert second.stats is not None
    assert second.stats.to_data() == first.statistics().to_data()
    changed = folder / "skill-007" / "SKILL.md"
    changed.write_text("---\ndescription: now about gadgets entirely\n---\n")
    os.utime(changed, ns=(1, 1))
    third = {s.name: s for s in load_catalog(tmp_path)}
    assert calls == ["skill-007"]
    assert third["skill-007"].description == "now about gadgets entirely"


def test_corrupt_cache_is_ignored(tmp_path: Path) -> None:
    _skill(tmp_path / ".claude" / "skills", "one", "first skill")
    load_catalog(tmp_path)
    cache = Path(skills_catalog._cache_path(str(tmp_path), None))
    assert cache.exists()
    cache.write_text("{not json")
    assert [s.name for s in load_catalog(tmp_path)] == ["one"]
    cache.write_text(json.dumps({"format": 1, "analysis": 1, "files": {"x": 1}}))
    assert [s.name for s in load_catalog(tmp_path)] == ["one"]


def test_a_warm_catalog_neither_analyses_nor_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The profiles and the catalog statistics come from the cache on an unchanged catalog."""
    from pokayokay.relevance import skill_match as match

    folder = tmp_path / ".claude" / "skills"
    _skill(folder, "xlsx", "Spreadsheets (.xlsx, .csv): formulas and charts. Not for PDFs.")
    _skill(folder, "pdf", "Read and write PDF files; use the xlsx skill instead for tables.")
    first = load_catalog(tmp_path)
    expected = first.statistics().to_data()

    def refuse(*args: object, **kwargs: object) -> object:
        raise AssertionError("recomputed on a warm catalog")

    monkeypatch.setattr(match.Stats, "of", refuse)
    monkeypatch.setattr(match, "profile", refuse)
    warm = load_catalog(tmp_path)
    assert warm.statistics().to_data() == expected
    assert [s.profile.to_data() for s in warm if s.profile] == [
        s.profile.to_data() for s in first if s.profile
    ]


# --------------------------------------------------------------------------------------------
# The prompt's quick check (module docstring): the skill folders' mtimes, then a stat of each
# suggested SKILL.md; the full check at SessionEnd and for every other caller.

EVAL_SKILLS = DATA_DIR / "skills_eval" / "skills"
MIGRATION_PROMPT = "add a tenant_id column to the orders table and backfill it without locking"
CELERY_SKILL = (
    "Run and debug Celery workers and beat schedules. Use this skill when a task hangs in the "
    "queue, workers must be restarted after a task signature change, or retries pile up."
)
CELERY_PROMPT = "the celery workers keep failing after I changed a task signature, restart them?"


def _settle(*folders: Path) -> None:
    """Folders last changed ten minutes ago, as in a real project."""
    import time

    old = time.time() - 600
    for folder in folders:
        os.utime(folder, (old, old))


@pytest.fixture
def skilled(tmp_path: Path, isolated_home: Path) -> Path:
    import shutil

    project = tmp_path / "shop"
    project.mkdir()
    shutil.copytree(EVAL_SKILLS, project / ".claude" / "skills")
    _settle(project / ".claude" / "skills")
    load_catalog(project)  # the full check, as SessionStart runs it
    return project


def _suggested(project: Path, prompt: str) -> list[str]:
    from pokayokay.skills.advice import advice_for

    return [s.name for s in advice_for(project, prompt, quick=True).suggestions]


def test_a_quick_catalog_lists_no_skill_folder(
    skilled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    full = [s.name for s in load_catalog(skilled)]

    def refuse(folder: str) -> object:
        raise AssertionError(f"listed {folder}")

    monkeypatch.setattr(discovery, "skill_dirs", refuse)
    assert [s.name for s in load_catalog(skilled, quick=True)] == full
    assert _suggested(skilled, MIGRATION_PROMPT) == ["db-migrations"]


def test_a_skill_added_or_removed_by_hand_is_seen_by_the_next_prompt(skilled: Path) -> None:
    import shutil

    assert "celery" not in _suggested(skilled, CELERY_PROMPT)
    _skill(skilled / ".claude" / "skills", "celery", CELERY_SKILL)
    assert _suggested(skilled, CELERY_PROMPT) == ["celery"]
    shutil.rmtree(skilled / ".claude" / "skills" / "db-migrations")
    assert "db-migrations" not in _suggested(skilled, MIGRATION_PROMPT)


def test_a_suggested_skill_edited_in_place_is_read_again(skilled: Path) -> None:
    assert _suggested(skilled, MIGRATION_PROMPT) == ["db-migrations"]
    path = skilled / ".claude" / "skills" / "db-migrations" / "SKILL.md"
    text = path.read_text("utf-8")
    with open(path, "r+", encoding="utf-8") as fh:  # in place: no folder moves
        fh.write(text.replace("name: db-migrations\n", "name: db-migrations\n"
                              "disable-model-invocation: true\n"))  # fmt: skip
    assert "db-migrations" not in _suggested(skilled, MIGRATION_PROMPT)


def test_a_skill_edited_in_place_that_is_not_suggested_waits_for_the_session_end(
    skilled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SessionEnd runs the full check (decision 0105: SessionStart's check is quick)."""
    from helpers.hooks import run_hook

    path = skilled / ".claude" / "skills" / "docker" / "SKILL.md"
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(f"---\nname: docker\ndescription: {CELERY_SKILL}\n---\n\n# Celery\n")
    assert "docker" not in _suggested(skilled, CELERY_PROMPT)  # the rule: not seen yet
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(skilled))
    payload = {"session_id": "s-2", "cwd": str(skilled), "hook_event_name": "SessionEnd",
               "reason": "other", "transcript_path": str(skilled / "t.jsonl")}  # fmt: skip
    code, _out, err = run_hook("SessionEnd", payload)  # the hook runs the full check
    assert (code, err) == (0, "")
    assert _suggested(skilled, CELERY_PROMPT) == ["docker"]


def test_pokayokay_updating_its_skill_voids_every_quick_check(
    skilled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An update of pokayokay's own skill is a rename inside the skill's folder, which no
    folder of the quick key sees: the skills.changed marker does."""
    from pokayokay.learnings.capture.skill_install import SKILL_FILE, SKILL_NAME, install_skill

    folder = skilled / ".claude" / "skills"
    install_skill(folder)
    path = folder / SKILL_NAME / SKILL_FILE
    path.write_text(path.read_text("utf-8") + "\nAn older version of this skill.\n", "utf-8")
    _settle(folder, folder / SKILL_NAME)
    marker = Path(os.environ["POKAYOKAY_HOME"]) / "skills.changed"
    _settle(marker)
    load_catalog(skilled)  # the full check records the quick key
    install_skill(folder)  # pokayokay's own update
    _settle(folder, folder / SKILL_NAME)  # the folders look untouched
    listed: list[str] = []
    real = discovery.skill_dirs
    monkeypatch.setattr(discovery, "skill_dirs", lambda f: listed.append(f) or real(f))
    load_catalog(skilled, quick=True)
    assert listed  # the marker brought the full check


def test_a_skill_folder_changed_seconds_ago_is_not_trusted(
    skilled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _skill(skilled / ".claude" / "skills", "celery", CELERY_SKILL)
    load_catalog(skilled)
    listed: list[str] = []
    real = discovery.skill_dirs
    monkeypatch.setattr(discovery, "skill_dirs", lambda f: listed.append(f) or real(f))
    load_catalog(skilled, quick=True)
    assert listed  # a folder changed under SETTLE_NS ago: the full check again


def test_the_term_tables_travel_in_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The evoked-terms table and the generic terms are kept in the skills cache: a warm prompt
    takes them as analysed, reading no vocabulary file (never from a cache of other table
    files: one edited is parsed again and the cache rewritten by one full check), and a cache
    written before it kept them is rewritten by one full check."""
    import shutil

    from pokayokay.infra import packed
    from pokayokay.relevance import skill_terms as terms
    from pokayokay.relevance import vocabulary
    from pokayokay.relevance.analyser import LazyTerms

    folder = tmp_path / ".claude" / "skills"
    _skill(folder, "one", "first skill")
    for settled in (folder, folder / "one"):  # as old as a real project's: the quick key holds
        os.utime(settled, ns=(1, 1))
    load_catalog(tmp_path)
    expected = (terms._evoke_table(), terms.generic_terms())
    cache = skills_catalog._cache_path(str(tmp_path), None)

    def fresh_process() -> None:
        monkeypatch.setattr(terms, "_evokes", None)
        monkeypatch.setattr(terms, "_GENERIC", LazyTerms(terms.GENERIC, terms._term))

    fresh_process()
    read: list[str] = []
    real_entries = vocabulary.entries
    with monkeypatch.context() as reading:
        reading.setattr(vocabulary, "_read", {})  # nothing read yet in this "process"
        reading.setattr(vocabulary, "entries", lambda name: read.append(name) or real_entries(name))
        load_catalog(tmp_path, quick=True)
        assert (terms._evokes, terms._GENERIC.known()) == expected  # taken from the cache
        assert terms.generic_terms() == expected[1] and terms.evoked_terms("is it vulnerable")
    assert read == []  # no table read, parsed or analysed

    fresh_process()
    edited = tmp_path / "vocabulary"
    shutil.copytree(os.path.dirname(vocabulary.path("skill_evokes")), edited)
    with (edited / "skill_evokes.tsv").open("a", encoding="utf-8") as fh:
        fh.write("extra subject\tword\twordy\tunattested\t\t\n")
    with monkeypatch.context() as changed:
        changed.setattr(vocabulary, "_FOLDER", str(edited))
        changed.setattr(vocabulary, "_read", {})
        changed.setattr(vocabulary, "_texts", {})
        load_catalog(tmp_path, quick=True)
        assert terms._evokes is not None  # another file: parsed again, not taken from the cache
        assert "extra" in terms._evokes[1]["wordy"]
        assert packed.load(cache)["tables"][0] == terms.stamp()  # and the cache rewritten
    fresh_process()
    load_catalog(tmp_path, quick=True)  # the package's own files again: parsed, cache rewritten
    assert packed.load(cache)["tables"][0] == terms.stamp()

    data = packed.load(cache)
    del data["tables"]
    packed.save(cache, data)
    assert skills_catalog._load_cache(cache)[2] is None  # no quick answer from it
    load_catalog(tmp_path, quick=True)
    assert "tables" in packed.load(cache)
