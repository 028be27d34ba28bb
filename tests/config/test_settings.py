from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pokayokay.config.settings import OPTIONS, SECTION_FIELDS, load_settings
from pokayokay.errors import EXIT_USAGE, SettingsError
from pokayokay.memory.sections import DEFAULT_SECTIONS, Settings

TEAM = ".claude/pokayokay.md"
LOCAL = ".claude/pokayokay.local.md"


def write(project: Path, name: str, frontmatter: str, body: str = "Notes for humans.\n") -> Path:
    path = project / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\n{frontmatter}---\n{body}", encoding="utf-8")
    return path


def ids(settings: Settings) -> list[str]:
    return [spec.id for spec in settings.sections]


def test_defaults_without_files(tmp_path: Path) -> None:
    settings = load_settings(tmp_path)
    assert settings == Settings()
    assert settings.sections == DEFAULT_SECTIONS
    assert (settings.max_lines, settings.max_bytes) == (200, 25_000)
    assert settings.sources == {}
    assert settings.warnings == ()


def test_no_files_does_not_import_ruamel(tmp_path: Path) -> None:
    code = (
        "import sys; from pathlib import Path; "
        "from pokayokay.config.settings import load_settings; "
        f"load_settings(Path({str(tmp_path)!r})); print('ruamel' in ' '.join(sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_file_without_frontmatter_is_no_settings(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    (tmp_path / TEAM).write_text("# pokayokay settings\n\nNothing here yet.\n---\n")
    assert load_settings(tmp_path) == Settings()


def test_empty_frontmatter_and_empty_file(tmp_path: Path) -> None:
    write(tmp_path, TEAM, "")
    (tmp_path / LOCAL).write_text("")
    assert load_settings(tmp_path) == Settings()


def test_team_file_only(tmp_path: Path) -> None:
    write(
        tmp_path, TEAM,
        "max_lines: 150\nmax_bytes: 20000\nsections:\n  key_decisions:\n    budget: 25\n"
        "    title: Decisions\n",
        body="# Team settings\n\nmax_lines: 3 (in the body: ignored)\n",
    )
    settings = load_settings(tmp_path)
    assert (settings.max_lines, settings.max_bytes) == (150, 20_000)
    spec = settings.section("key_decisions")
    assert spec is not None
    assert (spec.title, spec.budget, spec.archive) == ("Decisions", 25, "decisions-archive.md")
    assert spec.marker == "promoted from session handoffs"
    assert ids(settings) == [s.id for s in DEFAULT_SECTIONS]
    assert settings.sources == {
        "max_lines": TEAM,
        "max_bytes": TEAM,
        "sections.key_decisions.budget": TEAM,
        "sections.key_decisions.title": TEAM,
    }


def test_local_overrides_team_key_by_key(tmp_path: Path) -> None:
    write(
        tmp_path, TEAM,
        "max_lines: 150\nsections:\n  key_decisions:\n    budget: 25\n    title: Decisions\n"
        "  completed_work: false\n",
    )
    write(
        tmp_path, LOCAL,
        "max_lines: 120\nsections:\n  key_decisions:\n    budget: 10\n  recent_bug_fixes:\n"
        "    max_entries: null\n",
    )
    settings = load_settings(tmp_path)
    assert settings.max_lines == 120
    spec = settings.section("key_decisions")
    assert spec is not None
    # Budget from the personal file, title still from the team file: merged, not replaced.
    assert (spec.title, spec.budget) == ("Decisions", 10)
    assert settings.section("completed_work") is None
    bugs = settings.section("recent_bug_fixes")
    assert bugs is not None and bugs.max_entries is None
    assert settings.sources == {
        "max_lines": LOCAL,
        "sections.key_decisions.budget": LOCAL,
        "sections.key_decisions.title": TEAM,
        "sections.completed_work": TEAM,
        "sections.recent_bug_fixes.max_entries": LOCAL,
    }


def test_local_can_turn_a_section_back_on(tmp_path: Path) -> None:
    write(tmp_path, TEAM, "sections:\n  completed_work: false\n")
    write(tmp_path, LOCAL, "sections:\n  completed_work: {}\n")
    settings = load_settings(tmp_path)
    assert ids(settings) == [s.id for s in DEFAULT_SECTIONS]
    assert settings.sources == {"sections.completed_work": LOCAL}


def test_local_can_turn_a_section_off(tmp_path: Path) -> None:
    write(tmp_path, TEAM, "sections:\n  topic_index:\n    budget: 12\n")
    write(tmp_path, LOCAL, "sections:\n  topic_index: false\n")
    settings = load_settings(tmp_path)
    assert "topic_index" not in ids(settings)
    assert settings.sources["sections.topic_index"] == LOCAL


def test_disabled_section(tmp_path: Path) -> None:
    write(tmp_path, TEAM, "sections:\n  active_patterns: false\n  completed_work: false\n")
    settings = load_settings(tmp_path)
    assert ids(settings) == ["key_decisions", "architecture_notes", "recent_bug_fixes",
                             "topic_index"]


def test_custom_sections_go_before_topic_index_in_order(tmp_path: Path) -> None:
    write(
        tmp_path, TEAM,
        "sections:\n"
        "  runbooks:\n    title: Runbooks\n    budget: 8\n    archive: runbooks-archive.md\n"
        "    max_entries: 4\n"
        "  glossary:\n    title: Glossary\n    budget: 6\n    archive: glossary.md\n"
        "    marker: terms we use\n",
    )
    write(
        tmp_path, LOCAL,
        "sections:\n  mine:\n    title: Mine\n    budget: 3\n    archive: mine.md\n"
        "  runbooks:\n    budget: 12\n",
    )
    settings = load_settings(tmp_path)
    assert ids(settings) == [
        "completed_work", "key_decisions", "architecture_notes", "active_patterns",
        "recent_bug_fixes", "runbooks", "glossary", "mine", "topic_index",
    ]
    runbooks = settings.section("runbooks")
    glossary = settings.section("glossary")
    assert runbooks is not None and glossary is not None
    assert (runbooks.title, runbooks.budget, runbooks.archive, runbooks.max_entries) == (
        "Runbooks", 12, "runbooks-archive.md", 4,
    )
    assert glossary.marker_line == "<!-- pokayokay: terms we use -->"
    assert runbooks.marker  # a default marker is supplied
    assert settings.sources["sections.runbooks"] == TEAM
    assert settings.sources["sections.runbooks.budget"] == LOCAL
    assert settings.sources["sections.mine"] == LOCAL


def test_custom_section_at_the_end_when_topic_index_is_off(tmp_path: Path) -> None:
    write(
        tmp_path, TEAM,
        "sections:\n  topic_index: false\n"
        "  runbooks:\n    title: Runbooks\n    budget: 8\n    archive: runbooks-archive.md\n",
    )
    assert ids(load_settings(tmp_path))[-1] == "runbooks"


def test_custom_section_can_be_disabled(tmp_path: Path) -> None:
    write(
        tmp_path, TEAM,
        "sections:\n  runbooks:\n    title: Runbooks\n    budget: 8\n    archive: rb.md\n",
    )
    write(tmp_path, LOCAL, "sections:\n  runbooks: false\n")
    assert "runbooks" not in ids(load_settings(tmp_path))


def test_section_with_null_entry_keeps_defaults(tmp_path: Path) -> None:
    write(tmp_path, TEAM, "sections:\n  key_decisions:\n")
    assert load_settings(tmp_path).sections == DEFAULT_SECTIONS


def test_values_are_trimmed(tmp_path: Path) -> None:
    write(tmp_path, TEAM, "sections:\n  key_decisions:\n    title: '  Decisions  '\n")
    spec = load_settings(tmp_path).section("key_decisions")
    assert spec is not None and spec.title == "Decisions"


# (frontmatter, file, expected one-line message); every message names the file and the key.
BAD_VALUES: list[tuple[str, str]] = [
    ("max_lines: 201\n",
     f"{TEAM}: max_lines: expected an integer from 1 to 200, got 201"),
    ("max_lines: 0\n",
     f"{TEAM}: max_lines: expected an integer from 1 to 200, got 0"),
    ("max_lines: '150'\n",
     f"{TEAM}: max_lines: expected an integer from 1 to 200, got '150'"),
    ("max_lines: true\n",
     f"{TEAM}: max_lines: expected an integer from 1 to 200, got true"),
    ("max_bytes: 25001\n",
     f"{TEAM}: max_bytes: expected an integer from 1 to 25000, got 25001"),
    ("max_bytes: 1.5\n",
     f"{TEAM}: max_bytes: expected an integer from 1 to 25000, got 1.5"),
    ("sections: [a, b]\n",
     f"{TEAM}: sections: expected a mapping of section ids, got a list"),
    ("sections:\n  key_decisions: true\n",
     f"{TEAM}: sections.key_decisions: expected false or a mapping, got true"),
    ("sections:\n  key_decisions: off\n",
     f"{TEAM}: sections.key_decisions: expected false or a mapping, got 'off'"),
    ("sections:\n  key_decisions:\n    budget: forty\n",
     f"{TEAM}: sections.key_decisions.budget: expected an integer ≥ 1, got 'forty'"),
    ("sections:\n  key_decisions:\n    budget: 0\n",
     f"{TEAM}: sections.key_decisions.budget: expected an integer ≥ 1, got 0"),
    ("sections:\n  key_decisions:\n    title: ''\n",
     f"{TEAM}: sections.key_decisions.title: expected a title (a non-empty single line of "
     "text), got ''"),
    ("sections:\n  key_decisions:\n    title: 12\n",
     f"{TEAM}: sections.key_decisions.title: expected a title (a non-empty single line of "
     "text), got 12"),
    ('sections:\n  key_decisions:\n    title: "Two\\nlines"\n',
     f"{TEAM}: sections.key_decisions.title: expected a title on a single line"),
    ("sections:\n  key_decisions:\n    archive: notes/decisions.md\n",
     f"{TEAM}: sections.key_decisions.archive: expected a plain file name (no folders), in the "
     "memory folder, got 'notes/decisions.md'"),
    ("sections:\n  key_decisions:\n    archive: decisions.txt\n",
     f"{TEAM}: sections.key_decisions.archive: expected a file name ending in .md, of letters, "
     "digits, '.', '_' and '-' only, got 'decisions.txt'"),
    ("sections:\n  key_decisions:\n    archive: MEMORY.md\n",
     f"{TEAM}: sections.key_decisions.archive: MEMORY.md is a file pokayokay generates in the "
     "memory folder; an archive there would be overwritten — choose another name"),
    ("sections:\n  key_decisions:\n    archive: recurring-failures.md\n",
     f"{TEAM}: sections.key_decisions.archive: recurring-failures.md is a file pokayokay "
     "generates in the memory folder; an archive there would be overwritten — choose another "
     "name"),
    ("sections:\n  key_decisions:\n    archive: Rules-Archive.md\n",
     f"{TEAM}: sections.key_decisions.archive: Rules-Archive.md is a file pokayokay generates "
     "in the memory folder; an archive there would be overwritten — choose another name"),
    # The case: accepted, then rewritten by the chain learnings and by consolidation.
    ("sections:\n  key_decisions:\n    archive: chain-learnings-archive.md\n",
     f"{TEAM}: sections.key_decisions.archive: chain-learnings-archive.md is a file pokayokay "
     "generates in the memory folder; an archive there would be overwritten — choose another "
     "name"),
    ("sections:\n  key_decisions:\n    archive: consolidation-report.md\n",
     f"{TEAM}: sections.key_decisions.archive: consolidation-report.md is a file pokayokay "
     "generates in the memory folder; an archive there would be overwritten — choose another "
     "name"),
    ("sections:\n  key_decisions:\n    archive: learning-decisions.md\n",
     f"{TEAM}: sections.key_decisions.archive: learning-decisions.md is a file pokayokay "
     "generates in the memory folder; an archive there would be overwritten — choose another "
     "name"),
    ("sections:\n  key_decisions:\n    archive: Learnings-Archive-Part-2.md\n",
     f"{TEAM}: sections.key_decisions.archive: Learnings-Archive-Part-2.md is a file pokayokay "
     "generates in the memory folder; an archive there would be overwritten — choose another "
     "name"),
    ("consolidation:\n  archive: kept.md\nsections:\n  key_decisions:\n    archive: Kept.md\n",
     f"{TEAM}: sections.key_decisions.archive: 'Kept.md' is consolidation's archive or dropped "
     "file; choose another name"),
    ("consolidation:\n  archive: spike-results.md\n",
     f"{TEAM}: consolidation.archive: spike-results.md is a file pokayokay generates in the "
     "memory folder; an archive there would be overwritten — choose another name"),
    ("sections:\n  key_decisions:\n    archive: " + "d" * 298 + ".md\n",
     f"{TEAM}: sections.key_decisions.archive: the file name is 301 characters long; at most "
     "100"),
    ("sections:\n  key_decisions:\n    archive: 'old decisions.md'\n",
     f"{TEAM}: sections.key_decisions.archive: expected a file name ending in .md, of letters, "
     "digits, '.', '_' and '-' only, got 'old decisions.md'"),
    ("sections:\n  key_decisions:\n    marker: 'a --> b'\n",
     f"{TEAM}: sections.key_decisions.marker: the marker text must not contain '-->', got "
     "'a --> b'"),
    ("sections:\n  recent_bug_fixes:\n    max_entries: 0\n",
     f"{TEAM}: sections.recent_bug_fixes.max_entries: expected an integer ≥ 1 or null, got 0"),
    ("sections:\n  my_notes:\n    title: My Notes\n    archive: my-notes.md\n",
     f"{TEAM}: sections.my_notes.budget: required for a new section ('my_notes' is not one of "
     "completed_work, key_decisions, architecture_notes, active_patterns, recent_bug_fixes, "
     "topic_index)"),
    ("sections:\n  'bad id':\n    title: X\n",
     f"{TEAM}: sections.bad id: a section id is letters, digits, '_' and '-' only"),
    ("sections:\n  mine:\n    title: key decisions\n    budget: 3\n    archive: mine.md\n",
     f"{TEAM}: sections.mine.title: 'key decisions' is already the title of section "
     "'key_decisions'"),
    ("sections:\n  mine:\n    title: Mine\n    budget: 3\n    archive: decisions-archive.md\n",
     f"{TEAM}: sections.mine.archive: 'decisions-archive.md' is already the archive of section "
     "'key_decisions'"),
    ("sections:\n  key_decisions:\n    title: Completed Work\n",
     f"{TEAM}: sections.key_decisions.title: 'Completed Work' is already the title of section "
     "'completed_work'"),
]


@pytest.mark.parametrize(("frontmatter", "message"), BAD_VALUES)
def test_bad_values(tmp_path: Path, frontmatter: str, message: str) -> None:
    write(tmp_path, TEAM, frontmatter)
    with pytest.raises(SettingsError) as info:
        load_settings(tmp_path)
    assert info.value.message == message
    assert "\n" not in info.value.message
    assert info.value.exit_code == EXIT_USAGE


@pytest.mark.parametrize(("frontmatter", "message"), BAD_VALUES[:3] + BAD_VALUES[9:11])
def test_bad_values_in_the_personal_file_name_it(
    tmp_path: Path, frontmatter: str, message: str
) -> None:
    write(tmp_path, TEAM, "max_lines: 100\n")
    write(tmp_path, LOCAL, frontmatter)
    with pytest.raises(SettingsError) as info:
        load_settings(tmp_path)
    assert info.value.message == message.replace(TEAM, LOCAL)


def test_missing_field_of_custom_section_blames_the_defining_file(tmp_path: Path) -> None:
    write(tmp_path, TEAM, "sections:\n  key_decisions:\n    budget: 5\n")
    write(tmp_path, LOCAL, "sections:\n  mine:\n    title: Mine\n    budget: 3\n")
    with pytest.raises(SettingsError, match=r"^\.claude/pokayokay\.local\.md: sections\.mine\."
                                            r"archive: required for a new section"):
        load_settings(tmp_path)


def test_custom_section_completed_across_files(tmp_path: Path) -> None:
    write(tmp_path, TEAM, "sections:\n  mine:\n    title: Mine\n    budget: 3\n")
    write(tmp_path, LOCAL, "sections:\n  mine:\n    archive: mine.md\n")
    spec = load_settings(tmp_path).section("mine")
    assert spec is not None and spec.archive == "mine.md"


def test_duplicate_title_across_files_blames_the_file_that_set_it(tmp_path: Path) -> None:
    write(tmp_path, TEAM, "sections:\n  key_decisions:\n    title: Notes\n")
    write(tmp_path, LOCAL, "sections:\n  architecture_notes:\n    title: notes\n")
    with pytest.raises(SettingsError) as info:
        load_settings(tmp_path)
    assert info.value.message == (
        f"{LOCAL}: sections.architecture_notes.title: 'notes' is already the title of section "
        "'key_decisions'"
    )


def test_duplicate_title_of_a_disabled_section_is_fine(tmp_path: Path) -> None:
    write(
        tmp_path, TEAM,
        "sections:\n  key_decisions: false\n"
        "  decisions:\n    title: Key Decisions\n    budget: 40\n"
        "    archive: decisions-archive.md\n",
    )
    assert ids(load_settings(tmp_path)).count("decisions") == 1


def test_broken_yaml_names_file_and_line(tmp_path: Path) -> None:
    write(tmp_path, TEAM, "max_lines: 100\nsections:\n  key_decisions: budget: 3\n")
    with pytest.raises(SettingsError) as info:
        load_settings(tmp_path)
    assert info.value.message == (
        f"{TEAM}: line 4: invalid YAML frontmatter (mapping values are not allowed here)"
    )


def test_duplicate_yaml_key_is_an_error(tmp_path: Path) -> None:
    write(tmp_path, TEAM, "max_lines: 100\nmax_lines: 120\n")
    with pytest.raises(SettingsError, match=r"^\.claude/pokayokay\.md: line 3: invalid YAML "
                                            r"frontmatter \(found duplicate key"):
        load_settings(tmp_path)


def test_control_character_in_yaml(tmp_path: Path) -> None:
    write(tmp_path, TEAM, "max_lines: 100\ntitle: a\x07b\n")
    with pytest.raises(SettingsError, match=r"^\.claude/pokayokay\.md: line 3: invalid YAML"):
        load_settings(tmp_path)


def test_unclosed_frontmatter(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    (tmp_path / TEAM).write_text("---\nmax_lines: 100\n\n# Settings\n")
    with pytest.raises(SettingsError) as info:
        load_settings(tmp_path)
    assert info.value.message == (
        f"{TEAM}: line 1: frontmatter opened with '---' is never closed by a '---' line"
    )


@pytest.mark.parametrize(
    ("frontmatter", "shown"),
    [("- a\n- b\n", "a list"), ("just text\n", "'just text'"), ("42\n", "42")],
)
def test_frontmatter_not_a_mapping(tmp_path: Path, frontmatter: str, shown: str) -> None:
    write(tmp_path, LOCAL, frontmatter)
    with pytest.raises(SettingsError) as info:
        load_settings(tmp_path)
    expected = f"{LOCAL}: frontmatter: expected a mapping of settings, got {shown}"
    assert info.value.message == expected


def test_not_utf8(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    (tmp_path / TEAM).write_bytes(b"---\nmax_lines: 100\ntitle: caf\xe9\n---\n")
    with pytest.raises(SettingsError) as info:
        load_settings(tmp_path)
    assert info.value.message == f"{TEAM}: line 3: not UTF-8 text (byte 0xe9)"


def test_binary_file(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    (tmp_path / TEAM).write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(SettingsError, match=r"^\.claude/pokayokay\.md: not a text file"):
        load_settings(tmp_path)


def test_settings_path_is_a_folder(tmp_path: Path) -> None:
    (tmp_path / TEAM).mkdir(parents=True)
    with pytest.raises(SettingsError, match=r"^\.claude/pokayokay\.md: is a folder"):
        load_settings(tmp_path)


def test_bom_and_crlf_are_accepted(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    (tmp_path / TEAM).write_bytes("\ufeff---\r\nmax_lines: 99\r\n---\r\nbody\r\n".encode())
    assert load_settings(tmp_path).max_lines == 99


def test_unknown_keys_are_warnings(tmp_path: Path) -> None:
    write(
        tmp_path, TEAM,
        "sectoins:\n  key_decisions: false\nmax_lines: 100\n"
        "sections:\n  key_decisions:\n    budjet: 3\n",
    )
    write(tmp_path, LOCAL, "colour: blue\n")
    settings = load_settings(tmp_path)
    assert settings.warnings == (
        f"{TEAM}: unknown key 'sectoins' (ignored)",
        f"{TEAM}: unknown key 'sections.key_decisions.budjet' (ignored)",
        f"{LOCAL}: unknown key 'colour' (ignored)",
    )
    assert settings.max_lines == 100
    assert settings.sections == DEFAULT_SECTIONS


def test_schema_table_covers_settings_and_section_fields() -> None:
    defaults = Settings()
    for option in OPTIONS:
        assert hasattr(defaults, option.attr)
    assert set(SECTION_FIELDS) <= {f for f in DEFAULT_SECTIONS[0].__dataclass_fields__}


def test_every_file_pokayokay_writes_in_the_memory_folder_is_reserved() -> None:
    """The names the writers use, taken from the writers themselves: none may be an archive."""
    from pokayokay import names
    from pokayokay.learnings import model
    from pokayokay.learnings.consolidate import consolidate_apply, splitting
    from pokayokay.learnings.outcomes import chain

    written = [
        chain.FILE_NAME,
        chain.ARCHIVE_NAME,
        consolidate_apply.REPORT_NAME,
        model.file_name_for("decisions"),
        splitting.part_name(names.LEARNINGS_ARCHIVE_FILE, 2),
        splitting.part_name(names.LEARNINGS_DROPPED_FILE, 11),
        *names.GENERATED_MEMORY_FILES,
    ]
    assert all(names.generated_memory_file(name) for name in written)
    assert not names.generated_memory_file("decisions-archive.md")
    assert not names.generated_memory_file("learnings-archive-part-x.md")
    assert not names.generated_memory_file("learnings-archive.md", (names.LEARNINGS_ARCHIVE_FILE,))


# -- retired keys (decision 0142: the semantic extra) ------------------------------------------


@pytest.mark.parametrize(
    "value", ["on", "off", "auto", "false", "banana", "3", "null", "{model: big}", "[a, b]"]
)
def test_a_retired_key_is_a_warning_naming_it_retired_whatever_its_value(
    tmp_path: Path, value: str
) -> None:
    """``recall.semantic`` (the retired semantic extra): accepted with any value, never an
    error and never "unknown key"; the other keys of the file still apply."""
    write(tmp_path, TEAM, f"recall:\n  semantic: {value}\nmax_lines: 120\n")
    settings = load_settings(tmp_path)
    assert settings.max_lines == 120
    (warning,) = settings.warnings
    assert warning.startswith(f"{TEAM}: 'recall.semantic' is retired (ignored): semantic recall")
    assert "unknown" not in warning and "pokayokay semantic remove" in warning
    assert "recall.semantic" not in settings.sources


def test_a_retired_key_beside_an_unknown_one_gets_each_its_own_warning(tmp_path: Path) -> None:
    write(tmp_path, LOCAL, "recall:\n  semantic: on\n  semantik: on\n")
    warnings = load_settings(tmp_path).warnings
    assert len(warnings) == 2
    assert "'recall.semantic' is retired" in warnings[0]
    assert warnings[1] == f"{LOCAL}: unknown key 'recall.semantik' (ignored)"


def test_the_retired_environment_variable_is_a_warning_with_or_without_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pokayokay.names import ENV_SEMANTIC

    assert load_settings(tmp_path).warnings == ()
    monkeypatch.setenv(ENV_SEMANTIC, "off")
    (warning,) = load_settings(tmp_path).warnings
    assert warning.startswith(f"environment: {ENV_SEMANTIC} is retired (ignored): ")
    write(tmp_path, TEAM, "recall:\n  semantic: off\n")
    warnings = load_settings(tmp_path).warnings
    assert len(warnings) == 2 and warnings[1] == warning
