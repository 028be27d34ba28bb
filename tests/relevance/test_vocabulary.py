"""The relevance vocabulary (issue 23, items 1 and 5) is data: ``pokayokay/relevance/vocabulary/
*.tsv`` (recall's concepts, synonyms and weak words; skill suggestion's evoked subjects and
generic words). Every entry says where it came from and gives an example, as
``scripts/audit_vocabulary.py`` computes them from the non-evaluation sources and the train and
dev prompts today."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import pytest
from helpers.paths import REPO_ROOT
from helpers.splits import (
    HELD_OUT_FOLDER,
    TEST2_FOLDER,
    TEST3_FOLDER,
    TEST4_FOLDER,
    TEST5_FOLDER,
    TEST6_FOLDER,
    TEST7_FOLDER,
    TEST8_FOLDER,
    TEST9_FOLDER,
    TEST10_FOLDER,
    TEST11_FOLDER,
    TEST12_FOLDER,
    TEST_FOLDER,
)

# Data files and a dev script (scripts/audit_vocabulary.py): the same on every Python (decision
# 0155).
pytestmark = pytest.mark.one_python

FOLDER = REPO_ROOT / "pokayokay" / "relevance" / "vocabulary"
COLUMNS = ["group", "kind", "entry", "class", "source", "example"]


@pytest.fixture(scope="module")
def script() -> Iterator[Any]:
    sys.path.insert(0, str(REPO_ROOT / "scripts"))
    try:
        import audit_vocabulary
    finally:
        sys.path.remove(str(REPO_ROOT / "scripts"))
    yield audit_vocabulary


@pytest.fixture(scope="module")
def rows(script: Any) -> list[dict[str, str]]:
    out = []
    for table, name in script.FILES.items():
        lines = (FOLDER / f"{name}.tsv").read_text("utf-8").splitlines()
        assert lines[0].split("\t") == COLUMNS
        for line in lines[1:]:
            cells = line.split("\t")
            assert len(cells) == len(COLUMNS), line
            assert cells[1] in ("word", "phrase"), line
            out.append({"table": table, **dict(zip(COLUMNS, cells, strict=True))})
    return out


def test_every_entry_of_every_table_has_a_row_and_no_row_is_stale(
    script: Any, rows: list[dict[str, str]]
) -> None:
    listed = sorted((r["table"], r["group"], r["entry"]) for r in rows)
    entries = sorted((e.table, e.group, e.text) for e in script.entries())
    assert listed == entries
    assert len(rows) > 2000  # the concept table alone holds about 2,100


def test_every_row_says_where_the_entry_came_from_and_shows_it(rows: list[dict[str, str]]) -> None:
    classes = {"source", "train", "evaluation prompts", "one prompt", "unattested"}
    for row in rows:
        assert row["class"] in classes, row
        assert row["source"], row
        if row["class"] == "unattested":
            continue  # general vocabulary with no example in the repository: listed as such
        assert row["example"], row
        body = row["entry"].removeprefix("?").lower().split()[0].replace("#", "")
        assert body in row["example"].lower(), row  # the example holds the entry
    sources = [r for r in rows if r["class"] == "source"]
    assert all(
        r["source"].startswith(
            ("tests/data/recall_eval/", "tests/data/recall/", "tests/data/skills_eval/skills/")
        )
        for r in sources
    )
    unread = (
        TEST_FOLDER, HELD_OUT_FOLDER, TEST2_FOLDER, TEST3_FOLDER, TEST4_FOLDER, TEST5_FOLDER,
        TEST6_FOLDER, TEST7_FOLDER, TEST8_FOLDER, TEST9_FOLDER, TEST10_FOLDER, TEST11_FOLDER,
        TEST12_FOLDER,
    )  # fmt: skip
    for path in FOLDER.glob("*.tsv"):  # no entry cites a split written blind
        text = path.read_text("utf-8")
        assert not any(f"tests/data/{folder.name}/" in text for folder in unread)


def test_the_file_is_what_the_audit_computes(script: Any, rows: list[dict[str, str]]) -> None:
    found = script.entries()
    script.classify(found)
    computed = sorted((e.table, e.group, e.text, e.kind, e.source) for e in found)
    assert computed == sorted(
        (r["table"], r["group"], r["entry"], r["class"], r["source"]) for r in rows
    )


def test_no_table_entry_rests_on_one_evaluation_prompt(rows: list[dict[str, str]]) -> None:
    """The 282 concepts and 68 skill evokes that did were dropped (decisions 0166, 0167): on five
    unseen splits scored through the hook the concepts had bought nothing (315 -> 314 hits,
    235 -> 235 silences); the hits they held were those of the prompts that had justified them."""
    tables = {"concepts", "skill-evokes"}
    assert not [r for r in rows if r["table"] in tables and r["class"] == "one prompt"]
