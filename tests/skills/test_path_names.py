"""A prompt's paths name a skill by part of its name only where a path says what the work is
(decision 0145): a document's path (``.github/workflows/ci.yml``, ``docs/plans/x.md``) or a
test file's (``tests/test_sync.py``), not a source module's (``src/api/users.ts``,
``pkg/migrations/runner.go``: a part of the program, which says where the work is)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import splits
from helpers.relevance_split import Lab, suggested_skills
from hypothesis import given, settings
from hypothesis import strategies as st

from pokayokay.relevance.skill_match import CODE_EXTENSIONS, Query, name_words
from pokayokay.relevance.skill_terms import generic_terms, tokenize
from pokayokay.skills.catalog import Catalog, catalog_from_folder

CATALOG: Catalog = catalog_from_folder(splits.SKILLS_FOLDER / "skills")
STATS = CATALOG.statistics()
# (a skill with a several-word name, one word of it as written in the name, which reads as a
# term of the name on its own: not "actions" of ci-github-actions, read as one phrase there)
PARTS = sorted(
    (skill.name, word)
    for skill in CATALOG
    if len(whole := set(tokenize(name_words(skill.name)))) > 1
    for word in name_words(skill.name).split()
    if tokenize(word) and set(tokenize(word)) <= whole - generic_terms()
)
CODE = sorted(CODE_EXTENSIONS - {"m", "h"})  # one-letter extensions read as words in prose
DOCUMENTS = ["md", "yml", "json", "txt", "toml"]
parts = st.sampled_from(PARTS)
plain_names = st.sampled_from(["util", "core", "runner", "index", "main", "queue"])


def _terms(word: str) -> set[str]:
    return set(tokenize(word))


def test_the_catalog_has_several_word_names_to_try() -> None:
    assert len(PARTS) >= 30 and {"api", "migrations", "accessibility"} <= {w for _s, w in PARTS}


@settings(max_examples=200, deadline=None)
@given(parts, plain_names, st.sampled_from(CODE))
def test_a_source_module_named_after_part_of_a_skill_name_names_no_skill(
    part: tuple[str, str], stem: str, ext: str
) -> None:
    """``src/<word>/<module>.<code>`` and ``src/<module>/<word>.<code>``: the word is a place in
    the program, so it counts like an identifier's words (no evidence on its own)."""
    _skill, word = part
    for path in (f"src/{word}/{stem}.{ext}", f"src/{stem}/{word}.{ext}"):
        query = Query(f"look at {path}", STATS)
        assert _terms(word) <= query.in_code, path


@settings(max_examples=200, deadline=None)
@given(parts, plain_names, st.sampled_from(DOCUMENTS))
def test_a_documents_path_names_a_skill_by_part_of_its_name(
    part: tuple[str, str], stem: str, ext: str
) -> None:
    """``<word>/<name>.md`` (``docs/plans/search.md``) and ``<word>.yml`` (``ci.yml``): a
    document kept where the skill's own documents live, or named after it."""
    _skill, word = part
    for path in (f"{word}/{stem}.{ext}", f"config/{word}.{ext}"):
        query = Query(f"look at {path}", STATS)
        assert not _terms(word) & query.in_code, path


@settings(max_examples=200, deadline=None)
@given(parts, plain_names)
def test_a_test_files_path_names_a_skill_by_part_of_its_name(
    part: tuple[str, str], stem: str
) -> None:
    """A test file by the project's conventions (``tests/<word>/test_x.py``, ``<word>/x.test.ts``,
    ``<word>/x_test.go``): the path says the work is a test."""
    _skill, word = part
    tests = (f"tests/{word}/test_{stem}.py", f"{word}/{stem}.test.ts", f"{word}/{stem}_test.go")
    for path in tests:
        query = Query(f"look at {path}", STATS)
        assert not _terms(word) & query.in_code, path


@pytest.mark.parametrize("ext", ["py", "ts", "go"])
def test_a_source_module_holding_a_whole_name_still_names_its_skill(ext: str) -> None:
    """``mcp_builder/server.py``: every word of the name, even in source code."""
    query = Query(f"add a tool to mcp_builder/server.{ext}", STATS)
    assert _terms("mcp builder") <= query.terms and not _terms("mcp builder") & query.in_code


# Prompts about a source module named after part of a skill's name (they reached
# db-migrations and web-accessibility before decision 0145), and about a test file and a plan
# document, which still reach theirs.
SILENT = [
    "explain pkg/migrations/runner.go to me",
    "rename the exported functions in web/accessibility/index.ts",
]
SPEAKING = [
    ("the deploy job in .github/workflows/ci.yml fails on node 18 only", "ci-github-actions"),
]
# A known cost of decision 0196 (the plain gate fitted on twelve more catalogs): silent.
HELD_BACK = [
    (
        "the flaky assertion in tests/test_sync.py needs a fix, it fails 1 run in 5",
        "python-testing",
    ),
]


def test_through_the_registered_hook_a_source_folder_alone_suggests_nothing(
    tmp_path: Path,
) -> None:
    lab = Lab(tmp_path)
    lab.add_skills(splits.SKILLS_FOLDER / "skills")
    for prompt in SILENT:
        assert suggested_skills(lab.prompt(prompt)) == [], prompt
    for prompt, expected in SPEAKING:
        assert expected in suggested_skills(lab.prompt(prompt)), prompt
    for prompt, expected in HELD_BACK:  # pinned: a gain here is news to record
        assert expected not in suggested_skills(lab.prompt(prompt)), prompt
