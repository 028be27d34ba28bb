"""The pure half of consolidation: trigger boundaries, qualification, the three pre-checks with
concrete pairs (true positives and near misses), routing, the text written into targets, and the
split at H2 boundaries."""

from __future__ import annotations

from collections import Counter
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pokayokay.learnings.aging.entries import LearningEntry, parse_entries
from pokayokay.learnings.consolidate.consolidation import (
    batch_problem,
    plan_batch,
    qualifying,
    should_trigger,
)
from pokayokay.learnings.consolidate.consolidation_config import (
    BULLET_MAX,
    DEFAULT_CONFIG,
    ConsolidationConfig,
)
from pokayokay.learnings.consolidate.routing import (
    Route,
    SectionInfo,
    append_blocks,
    keyword_route,
    normalise_target_path,
    remove_entries,
    route,
    section_bullet,
)
from pokayokay.learnings.consolidate.similarity import stem
from pokayokay.learnings.consolidate.splitting import (
    INDEX_END,
    INDEX_START,
    part_numbers,
    split_file,
)
from pokayokay.learnings.model import EntryAge
from pokayokay.memory.document import count_lines
from pokayokay.memory.sections import DEFAULT_SECTIONS

TODAY = date(2026, 3, 1)
SECTIONS = [SectionInfo(s.id, s.title, s.archive) for s in DEFAULT_SECTIONS]


def entry(title: str, body: str, start: int = 0) -> LearningEntry:
    lines = [f"## {title}\n", *(line + "\n" for line in body.strip("\n").split("\n")), "\n"]
    return LearningEntry(title, start, tuple(lines))


def age(e: LearningEntry, days: int, added: date | None = date(2026, 1, 1)) -> EntryAge:
    return EntryAge(e.title, e.line, days, added, "c" * 40 if added else None)


def staging(*items: tuple[str, str]) -> list[LearningEntry]:
    """Entries as they would sit in one file, one after the other."""
    text = "# Learnings\n\n" + "".join(
        f"## {t}\n" + "".join(x + "\n" for x in b.strip("\n").split("\n")) + "\n" for t, b in items
    )
    return parse_entries(text)[1]


ARCHIVE = Route("memory", "learnings-archive.md", None, False, "learnings-archive.md")
RULES = Route("project", ".claude/rules/testing.md", None, True, ".claude/rules/testing.md")


def decide(
    items: list[tuple[str, str]],
    days: list[int] | None = None,
    target: Route = ARCHIVE,
    target_text: str = "",
    dates: list[date] | None = None,
) -> dict[str, tuple[str, str]]:
    """title → (action, kind) for a batch of every entry given (none kept back as recent: these
    tests are about the pre-checks; retention has its own)."""
    entries = staging(*items)
    days = days or [10] * len(entries)
    dates = dates or [date(2026, 1, 1 + i) for i in range(len(entries))]
    ages = [age(e, d, when) for e, d, when in zip(entries, days, dates, strict=True)]
    batch = qualifying(ages, ConsolidationConfig(keep_recent=0))
    plan = plan_batch(
        entries,
        ages,
        batch,
        {i: target for i in batch},
        {target.key: target_text},
        today=TODAY,
        source=".claude/learnings.md",
    )
    return {d.title: (d.action, d.kind) for d in plan.decisions}


# -- trigger -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("lines", "expected"), [(149, False), (150, False), (151, True)])
def test_size_trigger_is_more_than_150_lines(lines: int, expected: bool) -> None:
    found = should_trigger(lines, 0, [3, 2])
    assert found.triggered is expected
    assert str(lines) in found.reasons[0]


@pytest.mark.parametrize(("staleness", "expected"), [(13, False), (14, True), (15, True)])
def test_staleness_trigger_is_14_active_days(staleness: int, expected: bool) -> None:
    found = should_trigger(20, staleness, [30])
    assert found.triggered is expected
    assert any(f"{staleness} active days since the last consolidation" in r for r in found.reasons)


def test_unknown_staleness_counts_as_stale_once_the_oldest_entry_is_14_days_old() -> None:
    assert not should_trigger(20, None, [13, 2]).triggered
    found = should_trigger(20, None, [14, 2])
    assert found.triggered and "no consolidation" in found.reasons[0]
    assert not should_trigger(0, None, []).triggered


def test_both_triggers_give_both_reasons() -> None:
    assert len(should_trigger(151, 14, [1]).reasons) == 2


@pytest.mark.parametrize(("days", "qualifies"), [(6, False), (7, True), (8, True)])
def test_freshness_threshold_is_7_active_days(days: int, qualifies: bool) -> None:
    e = entry("A", "text")
    assert (qualifying([age(e, days)], ConsolidationConfig(keep_recent=0)) == [0]) is qualifies


def test_uncommitted_entries_never_qualify_and_order_is_oldest_first() -> None:
    a, b, c = entry("A", "x"), entry("B", "y", 3), entry("C", "z", 6)
    ages = [age(a, 8), age(b, 0, None), age(c, 20)]
    assert qualifying(ages, ConsolidationConfig(keep_recent=0)) == [2, 0]


def test_the_most_recent_entries_stay_in_staging() -> None:
    """Seed 004: the 3 (up to 5) most recent learnings stay, however old; ties go by file order
    (new learnings go at the bottom)."""
    items = [entry(t, "text", i * 3) for i, t in enumerate("ABCDEFG")]
    days = [40, 30, 30, 30, 20, 12, 9]
    ages = [age(e, d) for e, d in zip(items, days, strict=True)]
    assert qualifying(ages) == [0, 1, 2, 3]  # E, F, G (the youngest three) stay
    assert qualifying(ages, ConsolidationConfig(keep_recent=5)) == [0, 1]  # C, D go too
    tied = [age(e, 30) for e in items[:5]]
    assert qualifying(tied) == [0, 1]  # the last three in the file are the most recent


@pytest.mark.parametrize(("count", "ok"), [(2, False), (3, True), (4, True)])
def test_minimum_batch_is_3(count: int, ok: bool) -> None:
    problem = batch_problem(count)
    assert (problem is None) is ok
    if problem:
        assert "only 2 entries are at least 7 active days old" in problem and "3" in problem


def test_config_from_settings_reads_prefixed_attributes() -> None:
    class Fake:
        consolidation_size_trigger = 80
        consolidation_min_batch = 5
        consolidation_archive = None

    config = ConsolidationConfig.from_settings(Fake())
    assert (config.size_trigger, config.min_batch, config.archive) == (
        80,
        5,
        DEFAULT_CONFIG.archive,
    )
    assert ConsolidationConfig.from_settings(object()) == DEFAULT_CONFIG


# -- pre-check: supersession -------------------------------------------------------------------

SUPERSESSION_PAIRS = [
    (
        ("Migrations", "Run migrations with alembic upgrade head before starting the API server."),
        (
            "Migrations via make",
            "Migrations now run via make migrate instead of alembic upgrade head; the API server "
            "start script calls it.",
        ),
    ),
    (
        ("Formatter", "Use black for formatting Python code."),
        ("Formatter change", "Use ruff format instead of black for formatting Python code."),
    ),
    (
        ("Webhook retries", "The webhook handler retries failed deliveries three times."),
        (
            "Webhook retries gone",
            "The webhook handler no longer retries failed deliveries; the queue redelivers them.",
        ),
    ),
    (
        ("Payment gateway in unit tests", "Mock the payment gateway in unit tests with the fake."),
        (
            "Payment gateway mocks",
            "Do not mock the payment gateway in unit tests; use the sandbox client.",
        ),
    ),
]


@pytest.mark.parametrize(("older", "newer"), SUPERSESSION_PAIRS)
def test_supersession_drops_the_older_entry(older: tuple[str, str], newer: tuple[str, str]) -> None:
    found = decide([older, newer, ("Unrelated", "Keep commit messages under 72 characters.")])
    assert found[older[0]] == ("drop", "superseded")
    assert found[newer[0]] == ("consolidate", "consolidated")


@pytest.mark.parametrize(("older", "newer"), SUPERSESSION_PAIRS[:2])
def test_the_newer_entry_is_newer_by_date_not_by_position(
    older: tuple[str, str], newer: tuple[str, str]
) -> None:
    # the older entry sits below the newer one in the file: the dates decide
    other = ("Unrelated", "Keep commit messages under 72 characters.")
    found = decide(
        [newer, older, other], dates=[date(2026, 1, 5), date(2026, 1, 1), date(2026, 1, 2)]
    )
    assert found[older[0]] == ("drop", "superseded")
    assert found[newer[0]] == ("consolidate", "consolidated")


SUPERSESSION_NEAR_MISSES = [
    # same topic, no negation: two compatible facts
    (
        ("Pytest fail fast", "Run tests with pytest -x to stop at the first failure."),
        ("Pytest in parallel", "Run tests with pytest -n auto to speed up the suite."),
    ),
    # negation, different topic
    (
        ("Secrets", "Don't commit .env files; secrets live in the vault."),
        ("Linting", "Use ruff for linting and formatting."),
    ),
    # same topic, both negative: they agree
    (
        ("Main branch", "Never push directly to main; open a PR."),
        ("Protected main", "Do not push to main directly, CI blocks it."),
    ),
    # a negation that is not about the other entry's words
    (
        ("Lockfile", "Commit the generated lockfile so CI installs are reproducible."),
        ("Secrets in git", "Never commit secrets to the repository."),
    ),
]


@pytest.mark.parametrize(("older", "newer"), SUPERSESSION_NEAR_MISSES)
def test_supersession_near_misses_are_consolidated(
    older: tuple[str, str], newer: tuple[str, str]
) -> None:
    found = decide([older, newer, ("Unrelated", "Keep commit messages under 72 characters.")])
    assert found[older[0]] == ("consolidate", "consolidated")
    assert found[newer[0]] == ("consolidate", "consolidated")


def test_superseded_by_an_entry_too_young_to_move_is_escalated() -> None:
    older, newer = SUPERSESSION_PAIRS[1]
    found = decide([older, newer, ("Other", "Keep commit messages short.")], days=[10, 2, 10])
    assert found[older[0]] == ("escalate", "superseded-by-younger")
    assert newer[0] not in found  # not in the batch


def test_grey_zone_supersession_is_escalated() -> None:
    older = (
        "Page cache",
        "Cache rendered API responses in Redis for five minutes to cut page latency.",
    )
    newer = ("API keys", "Do not cache API keys in Redis; the secrets manager rotates them hourly.")
    found = decide([older, newer, ("Other", "Keep commit messages short.")])
    assert found[older[0]] == ("escalate", "possibly-superseded")


# -- pre-check: contradiction with the target -------------------------------------------------

RULES_TEXT = """---
paths: ["tests/**"]
---
# Testing rules

- Never mock the database in integration tests; use the test container.
- Run the suite with `pytest -q` before pushing.
"""


def test_contradiction_with_the_target_is_escalated_not_dropped() -> None:
    item = ("Mocking the database", "Mock the database in integration tests; it keeps them fast.")
    found = decide(
        [item, ("Other", "Keep commit messages short."), ("More", "Prefer tabs.")],
        target=RULES,
        target_text=RULES_TEXT,
    )
    assert found[item[0]] == ("escalate", "contradiction")


def test_contradiction_with_a_memory_section_bullet() -> None:
    section = Route("section", "learnings-archive.md", "key_decisions", False, "Key Decisions")
    text = "- 2026-01-10 Deploys always go through the staging environment first.\n"
    item = ("Hotfix deploys", "Skip staging for hotfix deploys.")
    found = decide(
        [item, ("A", "Keep commit messages short."), ("B", "Prefer tabs.")],
        target=section,
        target_text=text,
    )
    assert found[item[0]] == ("escalate", "contradiction")


def test_contradiction_with_a_target_the_entry_is_not_routed_to() -> None:
    """The issue's case: the entry goes to the archive topic file, and contradicts a bullet of
    Key Decisions; it was checked only against the archive and consolidated."""
    section = Route("section", "learnings-archive.md", "key_decisions", False, "Key Decisions")
    text = "- 2026-01-10 Deploys always go through the staging environment first.\n"
    item = ("Hotfix deploys", "Skip staging for hotfix deploys.")
    others = [("A", "Keep commit messages short."), ("B", "Prefer tabs.")]
    entries = staging(item, *others)
    ages = [age(e, 10, date(2026, 1, 1 + i)) for i, e in enumerate(entries)]
    batch = qualifying(ages, ConsolidationConfig(keep_recent=0))
    routes: dict[int, Route | str] = {i: ARCHIVE for i in batch}
    for texts, expected in (
        ({ARCHIVE.key: ""}, "consolidated"),  # what was checked before: the target alone
        ({ARCHIVE.key: "", section.key: text}, "contradiction"),
    ):
        plan = plan_batch(entries, ages, batch, routes, texts, today=TODAY, source="l.md")
        found = {d.title: d for d in plan.decisions}
        assert found[item[0]].kind == expected
    assert found[item[0]].action == "escalate"
    assert "MEMORY.md § key_decisions" in found[item[0]].reason
    assert found[item[0]].target == ARCHIVE.label  # where it would have gone


def test_default_routes_are_every_keyword_target() -> None:
    from pokayokay.learnings.consolidate.routing import default_routes

    keys = [found.key for found in default_routes(SECTIONS)]
    assert keys == [
        ("section", "key_decisions"),
        ("section", "architecture_notes"),
        ("memory", "learnings-archive.md"),
    ]
    assert [found.key for found in default_routes(SECTIONS[:1])] == [keys[2]]


CONTRADICTION_NEAR_MISSES = [
    # same topic, same polarity: agrees with the rule (and is not a copy of it)
    (
        "Integration database",
        "Integration tests talk to the real database container, never a mock "
        "of it; startup takes ten seconds.",
    ),
    # negation elsewhere, other topic
    ("Lockfile", "Commit the generated lockfile so CI installs are reproducible."),
    # shares one word only
    ("Database indexes", "Add an index for every foreign key column in the orders table."),
]


@pytest.mark.parametrize("item", CONTRADICTION_NEAR_MISSES)
def test_contradiction_near_misses_are_consolidated(item: tuple[str, str]) -> None:
    found = decide(
        [item, ("Other", "Keep commit messages short."), ("More", "Prefer tabs.")],
        target=RULES,
        target_text=RULES_TEXT,
    )
    assert found[item[0]] == ("consolidate", "consolidated")


def test_grey_zone_contradiction_is_escalated() -> None:
    text = "- Never cache session tokens in Redis; they must expire with the login session.\n"
    item = (
        "Redis cache sizing",
        "Cache rendered pages in Redis with an LRU policy and 2 GB limit.",
    )
    found = decide(
        [item, ("A", "Keep commit messages short."), ("B", "Prefer tabs.")],
        target=RULES,
        target_text=text,
    )
    assert found[item[0]] == ("escalate", "possible-contradiction")


# -- pre-check: redundancy ---------------------------------------------------------------------


def test_redundant_when_the_text_is_already_in_the_target() -> None:
    text = "# Notes\n\nBefore anything else, run make migrate before starting the API server.\n"
    item = ("Migrate first", "Run `make migrate` before starting the API server.")
    found = decide(
        [item, ("A", "Keep commit messages short."), ("B", "Prefer tabs.")], target_text=text
    )
    assert found[item[0]] == ("drop", "redundant")


def test_redundant_when_a_passage_covers_its_words() -> None:
    text = "- CI and local builds match because the Node version is pinned in .nvmrc\n"
    item = ("Node version", "Pin the Node version in .nvmrc so CI and local builds match.")
    found = decide(
        [item, ("A", "Keep commit messages short."), ("B", "Prefer tabs.")], target_text=text
    )
    assert found[item[0]] == ("drop", "redundant")


def test_redundancy_near_miss_related_but_new() -> None:
    text = "- Pin the Node version in .nvmrc so CI and local builds match.\n"
    item = ("Python version", "Pin the Python version in .python-version for pyenv users.")
    found = decide(
        [item, ("A", "Keep commit messages short."), ("B", "Prefer tabs.")], target_text=text
    )
    assert found[item[0]] == ("consolidate", "consolidated")


def test_redundancy_near_miss_short_text_is_not_contained_everywhere() -> None:
    text = "We use ruff. Use ruff.\n"
    item = ("Ruff", "Use ruff.")
    found = decide(
        [item, ("A", "Keep commit messages short."), ("B", "Prefer tabs.")], target_text=text
    )
    assert found[item[0]] == ("consolidate", "consolidated")


def test_grey_zone_redundancy_is_escalated() -> None:
    text = "- Pin the Node version in .nvmrc so local builds match.\n"
    item = ("Node pin", "Pin the Node version in .nvmrc so CI and local docker builds match.")
    found = decide(
        [item, ("A", "Keep commit messages short."), ("B", "Prefer tabs.")], target_text=text
    )
    assert found[item[0]] == ("escalate", "possibly-redundant")


def test_a_duplicate_within_the_batch_is_redundant_with_the_first() -> None:
    text = "Pin the Node version in .nvmrc so CI and local builds match."
    found = decide([("Node", text), ("Node again", text), ("Other", "Prefer tabs in Makefiles.")])
    assert found["Node"] == ("consolidate", "consolidated")
    assert found["Node again"] == ("drop", "redundant")


def test_stem_is_consistent() -> None:
    assert stem("tests") == stem("testing") == stem("tested") == stem("test")
    assert stem("databases") == stem("database")
    assert stem("mocking") == stem("mocks") == stem("mock")
    assert stem(".env") == ".env" and stem("v2") == "v2"


# -- routing -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "kind", "where"),
    [
        ("Target: MEMORY.md#Key Decisions", "section", "key_decisions"),
        ("Target: MEMORY.md#architecture notes", "section", "architecture_notes"),
        ("- **Target:** `.claude/rules/testing.md`", "project", ".claude/rules/testing.md"),
        ("target: docs/architecture.md", "project", "docs/architecture.md"),
        ("Target: ./docs/../docs/a.md", "project", "docs/a.md"),
        ("Target: memory:testing-notes.md", "memory", "testing-notes.md"),
    ],
)
def test_explicit_target_lines(line: str, kind: str, where: str) -> None:
    found = route(entry("T", f"Something to remember.\n{line}"), SECTIONS)
    assert isinstance(found, Route) and found.explicit
    assert found.kind == kind
    assert (found.section_id if kind == "section" else found.path) == where


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("Target: ../outside.md", "inside the project"),
        ("Target: /etc/motd.md", "inside the project"),
        ("Target: docs/notes.txt", "ending in .md"),
        ("Target: .git/config.md", "inside the project"),
        ("Target: MEMORY.md#Nope", "no managed section"),
        ("Target: MEMORY.md", "name the section"),
        ("Target: memory:sub/x.md", "no folders"),
        ("Target: .claude/learnings.md", "learnings file itself"),
    ],
)
def test_bad_targets_are_problems(line: str, problem: str) -> None:
    found = route(entry("T", f"Plain words here.\n{line}"), SECTIONS)
    assert isinstance(found, str) and problem in found


@pytest.mark.parametrize(
    ("title", "body", "section"),
    [
        ("Database choice", "We decided to use Postgres over MySQL for JSONB.", "key_decisions"),
        ("From now on", "Releases are cut on Tuesdays from now on.", "key_decisions"),
        (
            "API layer",
            "The api module sits in the service layer; handlers stay thin.",
            "architecture_notes",
        ),
        ("Notes", "We decided the module owns it.", "key_decisions"),  # a tie
        ("Flaky test", "test_upload fails when the tmp dir is on tmpfs.", None),
    ],
)
def test_keyword_router(title: str, body: str, section: str | None) -> None:
    assert keyword_route(entry(title, body)) == section
    found = route(entry(title, body), SECTIONS)
    assert isinstance(found, Route) and not found.explicit
    if section is None:
        assert (found.kind, found.path) == ("memory", "learnings-archive.md")
    else:
        assert (found.kind, found.section_id) == ("section", section)


def test_router_falls_back_to_the_archive_when_the_section_is_disabled() -> None:
    found = route(entry("Choice", "We decided to use Postgres."), [SECTIONS[0]])
    assert isinstance(found, Route) and found.kind == "memory"


def test_normalise_target_path() -> None:
    assert normalise_target_path("a\\b.md") == "a/b.md"
    assert normalise_target_path("C:/x.md") is None
    assert normalise_target_path("..") is None


# -- text written into targets -----------------------------------------------------------------


def test_section_bullet_is_one_short_line_with_date_and_link() -> None:
    e = entry("Use Postgres", "- We decided on **Postgres** for [JSONB](https://x) support.\n" * 5)
    bullet = section_bullet(e, "learnings-archive.md", TODAY)
    assert bullet.startswith("- 2026-03-01 Use Postgres — We decided on **Postgres** for JSONB")
    assert bullet.endswith("([full text](learnings-archive.md#use-postgres))")
    assert len(bullet) <= BULLET_MAX and "\n" not in bullet
    long = entry("x" * 300, "body")
    assert len(section_bullet(long, "learnings-archive.md", TODAY)) <= BULLET_MAX


def test_append_blocks_adds_a_header_and_never_appends_twice() -> None:
    out = append_blocks("", ["## A\nbody\n<!-- n -->\n"], "# Header\n")
    assert out == "# Header\n\n## A\nbody\n<!-- n -->\n"
    assert append_blocks(out, ["## A\nbody\n<!-- n -->\n"], "# Header\n") == out
    assert append_blocks("text", ["## B\n"], "") == "text\n\n## B\n"


def test_remove_entries_removes_each_block_once_and_reports_missing() -> None:
    text = "# L\n\n## A\na\n\n## B\nb\n\n## A\na\n\n## C\nc\n"
    _, entries = parse_entries(text)
    new, missing = remove_entries(text, [entries[0].text, entries[3].text, "## Z\nz\n"])
    assert new == "# L\n\n## B\nb\n\n## A\na\n\n"
    assert missing == ["## Z\nz\n"]


# -- split -------------------------------------------------------------------------------------


def sectioned(sizes: list[int], preamble: str = "# Topic\n\nIntro line.\n\n") -> str:
    out = preamble
    for n, size in enumerate(sizes):
        out += f"## Section {n}\n" + "".join(f"line {n}.{k}\n" for k in range(size - 1))
    return out


def nonblank(text: str) -> Counter[str]:
    return Counter(line for line in text.splitlines() if line.strip())


def test_split_at_400_lines_into_parts_of_100_to_300() -> None:
    text = sectioned([20] * 20)
    assert count_lines(text) >= 400
    result = split_file(text, "architecture.md")
    assert result is not None
    counts = [count_lines(result.original), *(count_lines(t) for _, t in result.parts)]
    assert all(100 <= c <= 300 for c in counts), counts
    assert result.parts[0][0] == "architecture-part-2.md"
    after = nonblank(result.original)
    for name, part in result.parts:
        assert part.startswith(f"> Part {name.split('-')[-1][:-3]} of [architecture.md]")
        assert f"[{name}]({name})" in result.original
        after += nonblank(part)
    assert not nonblank(text) - after  # every line kept
    assert result.original.startswith("# Topic\n\nIntro line.\n\n" + INDEX_START)
    assert split_file(text, "architecture.md") == result  # deterministic


def test_no_split_below_400_lines_or_without_h2_boundaries() -> None:
    assert split_file(sectioned([20] * 19 + [15]), "a.md") is None  # 399 lines
    assert split_file("# x\n" + "line\n" * 500, "a.md") is None
    assert split_file("## only\n" + "line\n" * 500, "a.md") is None


def test_resplit_continues_numbering_and_extends_the_index() -> None:
    first = split_file(sectioned([20] * 20), "notes.md")
    assert first is not None
    numbers = [int(n.split("-")[-1][:-3]) for n, _ in first.parts]
    grown = first.original + "".join(f"## Later {n}\n" + "more\n" * 29 for n in range(10))
    second = split_file(grown, "notes.md", existing_parts=numbers)
    assert second is not None
    assert second.parts[0][0] == f"notes-part-{max(numbers) + 1}.md"
    assert second.original.count(INDEX_START) == 1 and second.original.count(INDEX_END) == 1
    for name, _ in first.parts + second.parts:
        assert f"[{name}]({name})" in second.original
    assert part_numbers("notes.md", ["notes-part-2.md", "notes-part-x.md", "other-part-3.md"]) == [
        2
    ]


def test_rule_files_repeat_their_frontmatter_in_every_part() -> None:
    text = sectioned([25] * 20, preamble='---\npaths: ["src/**"]\n---\n# Rules\n\n')
    result = split_file(text, "api.md", copy_frontmatter=True)
    assert result is not None
    for _, part in result.parts:
        assert part.startswith('---\npaths: ["src/**"]\n---\n> Part ')


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=90), min_size=2, max_size=80))
def test_split_keeps_every_line_and_sizes_when_sections_allow(sizes: list[int]) -> None:
    text = sectioned(sizes)
    result = split_file(text, "t.md")
    if count_lines(text) < 400:
        assert result is None
        return
    assert result is not None
    after = nonblank(result.original)
    for _, part in result.parts:
        after += nonblank(part)
    assert not nonblank(text) - after
    counts = [count_lines(result.original), *(count_lines(t) for _, t in result.parts)]
    assert all(100 <= c <= 300 for c in counts), counts


def test_a_duplicate_routed_elsewhere_into_the_archive_is_redundant() -> None:
    text = "Pin the Node version in .nvmrc so CI and local builds match."
    entries = staging(("Node", text), ("Node again", text), ("Other", "Prefer tabs in Makefiles."))
    ages = [age(e, 10, date(2026, 1, 1 + i)) for i, e in enumerate(entries)]
    section = Route("section", "learnings-archive.md", "key_decisions", True, "Key Decisions")
    routes: dict[int, Route | str] = {0: section, 1: ARCHIVE, 2: ARCHIVE}
    plan = plan_batch(
        entries,
        ages,
        [0, 1, 2],
        routes,
        {section.key: "", ARCHIVE.key: ""},
        today=TODAY,
        source=".claude/learnings.md",
    )
    found = {d.title: (d.action, d.kind) for d in plan.decisions}
    assert found["Node"] == ("consolidate", "consolidated")
    assert found["Node again"] == ("drop", "redundant")
    assert plan.bullets == {"key_decisions": [section_bullet(entries[0], ARCHIVE.path, TODAY)]}
    assert len(plan.blocks[ARCHIVE.key]) == 2  # Node and Other
    assert len(plan.blocks[("memory", "learnings-dropped.md")]) == 1
