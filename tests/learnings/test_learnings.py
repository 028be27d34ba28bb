"""pokayokay.learnings.model: identity, category, names, the topic file format, the index line, and
the near-duplicate threshold measured on a labelled paraphrase set."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest
from helpers.paths import DATA_DIR
from hypothesis import given
from hypothesis import strategies as st
from ruamel.yaml import YAML

from pokayokay.learnings import model as learnings
from pokayokay.learnings.model import (
    NAME_MAX,
    Learning,
    LearningFormatError,
    identity,
    index_line,
    infer_category,
    is_index_line,
    make_name,
    normalise,
    unique_name,
)
from pokayokay.learnings.topics.topic_file import parse, quote, render
from pokayokay.learnings.wording import NEAR_DUPLICATE_THRESHOLD, near_duplicate, similarity

PARAPHRASES = DATA_DIR / "learnings" / "paraphrases.json"
KEBAB = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
HASH = "0" * 63 + "1"


def sample(**changes: object) -> Learning:
    base = Learning(
        name="always-run-tests-before-committing",
        description="Always run the tests before committing.",
        text="Always run the tests before committing.",
        category="patterns",
        confidence="medium",
        source="user",
        observations=1,
        hash=identity("Always run the tests before committing."),
        created="2026-11-22T10:00:00Z",
        last_seen="2026-11-22T10:00:00Z",
    )
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


# --- identity ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "variant",
    [
        "Always run the tests before committing.",
        "always run the tests before committing.",
        "  Always   run the tests\nbefore committing.  ",
        "ALWAYS RUN THE TESTS BEFORE COMMITTING.",
        "Always\trun the tests before\r\ncommitting.",
    ],
)
def test_identity_ignores_whitespace_and_case(variant: str) -> None:
    assert identity(variant) == identity("Always run the tests before committing.")
    assert normalise(variant) == "always run the tests before committing."


def test_identity_differs_for_different_text() -> None:
    assert identity("Always run the tests before committing.") != identity(
        "Always run the tests before committing!"
    )
    assert re.fullmatch(r"[0-9a-f]{64}", identity("x"))


# --- category ---------------------------------------------------------------------------------

CATEGORY_CASES = [
    # The examples of the /remember spec (seed 002, AC-1 and AC-12).
    ("never use --force-push on main", "anti-patterns"),
    ("always run tests before committing", "patterns"),
    ("Python hooks need stderr suppression", "heuristics"),
    ("always suppress stderr in hook subprocesses to prevent JSON corruption", "patterns"),
    # What not to do.
    ("Don't edit generated files under src/gen", "anti-patterns"),
    ("dont call the payment sandbox from unit tests", "anti-patterns"),
    ("Do not commit .env files, they hold secrets", "anti-patterns"),
    ("Avoid wildcard imports in this codebase", "anti-patterns"),
    ("Stop using print for debugging; the logger is configured", "anti-patterns"),
    ("You should not mock the database in integration tests", "anti-patterns"),
    ("Tests must never hit the production API", "anti-patterns"),
    ("Always avoid sleeping in tests; poll with a timeout", "anti-patterns"),
    ("Never force-push to main; rebase your branch instead", "anti-patterns"),
    ("Remember not to run migrations on the shared database", "anti-patterns"),
    ("Mutating the settings dict in place is a mistake: copy it", "anti-patterns"),
    ("Don’t (curly apostrophe) skip the changelog entry", "anti-patterns"),
    # Recommended approaches.
    ("Prefer pathlib over os.path in new code", "patterns"),
    ("Use uv run pytest so the project venv is used", "patterns"),
    ("Run ruff --fix before pushing", "patterns"),
    ("The user prefers small commits with one change each", "patterns"),
    ("Quote file paths in shell commands", "patterns"),
    ("Write the ADR before changing the schema", "patterns"),
    ("Make sure the mock server runs before the e2e suite", "patterns"),
    ("Migrations should be reversible", "patterns"),
    ("Pin GitHub Actions to a commit SHA rather than a tag", "patterns"),
    ("Use snake_case for JSON fields; don't mix in camelCase", "patterns"),
    ("It is better to retry once than to fail the whole deploy", "patterns"),
    # Rules of thumb and facts about the system.
    ("The staging API returns 502 right after a deploy", "heuristics"),
    ("Docker builds on ARM Macs fail with exec format error", "heuristics"),
    ("The dev server doesn't stop cleanly on SIGTERM", "heuristics"),
    ("Caching avoids the three second startup of the CLI", "heuristics"),
    ("SQLite locks when two writers overlap", "heuristics"),
    ("Python hooks can't write to stdout without breaking JSON", "heuristics"),
    ("The CI image has Python 3.10 only", "heuristics"),
]


@pytest.mark.parametrize(("text", "expected"), CATEGORY_CASES)
def test_category_is_inferred(text: str, expected: str) -> None:
    assert infer_category(text) == expected


def test_category_cues_are_tables() -> None:
    assert learnings.ANTI_PATTERN_CUES and learnings.PATTERN_CUES
    assert set(learnings.CATEGORIES) == {"anti-patterns", "patterns", "heuristics", "decision"}
    # a decision is said, never inferred
    assert "decision" not in {learnings.infer_category(t) for t in ("We decided to use X.",)}


# --- names ------------------------------------------------------------------------------------

NAME_CASES = [
    (
        "always suppress stderr in hook subprocesses to prevent JSON corruption",
        "always-suppress-stderr-hook-subprocesses",
    ),
    ("never use --force-push on main", "never-use-force-push-main"),
    ("Don't edit generated files under src/gen", "dont-edit-generated-files-src-gen"),
    ("Café crème: l'été à Zürich is UTF-8 text", "cafe-creme-lete-zurich-utf-8"),
]


@pytest.mark.parametrize(("text", "expected"), NAME_CASES)
def test_names(text: str, expected: str) -> None:
    assert make_name(text) == expected


@given(st.text(min_size=1, max_size=400))
def test_names_are_kebab_case_and_short(text: str) -> None:
    name = make_name(text)
    assert 0 < len(name) <= NAME_MAX
    assert KEBAB.fullmatch(name), name


def test_name_of_text_without_latin_letters() -> None:
    name = make_name("日本語だけのメモはここにある")
    assert name.startswith("note-") and KEBAB.fullmatch(name)


def test_name_of_one_very_long_word_is_cut() -> None:
    name = make_name("x" * 200 + " is a very long identifier")
    assert name == "x" * 40


def test_unique_name_adds_a_suffix_within_the_limit() -> None:
    assert unique_name("run-tests", []) == "run-tests"
    assert unique_name("run-tests", ["run-tests"]) == "run-tests-2"
    assert unique_name("run-tests", ["run-tests", "run-tests-2"]) == "run-tests-3"
    long = "a" * 30 + "-" + "b" * 29
    assert len(long) == NAME_MAX
    suffixed = unique_name(long, [long])
    assert len(suffixed) <= NAME_MAX and suffixed.endswith("-2") and KEBAB.fullmatch(suffixed)


# --- the topic file ---------------------------------------------------------------------------


def test_render_is_claude_codes_memory_format() -> None:
    text = render(sample())
    assert text == (
        "---\n"
        "name: always-run-tests-before-committing\n"
        'description: "Always run the tests before committing."\n'
        "metadata:\n"
        "  type: feedback\n"
        "  category: patterns\n"
        "  confidence: medium\n"
        "  source: user\n"
        "  observations: 1\n"
        f'  hash: "{identity("Always run the tests before committing.")}"\n'
        '  created: "2026-11-22T10:00:00Z"\n'
        '  last_seen: "2026-11-22T10:00:00Z"\n'
        "---\n"
        "Always run the tests before committing.\n"
    )
    front = YAML(typ="safe").load(text.split("---\n")[1])
    assert set(front) == {"name", "description", "metadata"}
    assert front["metadata"]["type"] in ("user", "feedback", "project", "reference")
    assert KEBAB.fullmatch(front["name"]) and len(front["name"]) <= NAME_MAX
    assert "\n" not in front["description"]


def test_parse_reads_what_render_writes() -> None:
    learning = sample(observations=7, confidence="low", source="session-capture")
    assert parse(render(learning)) == learning


NASTY = [
    'quote " and backslash \\ and colon: and # hash',
    "yes",
    "null",
    "123",
    "0x1F",
    "1e5",
    "- a list?",
    "{flow: mapping}",
    "[a, b]",
    "&anchor *alias !tag |block >folded %directive @at `tick",
    "tab\there, newline\nthere, return\r, nul\0, bell\a, esc\x1b",
    "unicode: é ü ß 日本 🎉 \u2028 \u2029 \x85 \ufeff \ud800",
    "'single' and ''double single''",
    "---",
    "...",
    "",
]


@pytest.mark.parametrize("value", NASTY)
def test_quoting_round_trips_through_a_real_yaml_parser(value: str) -> None:
    for field in ("description", "source", "created"):
        learning = sample(**{field: value})
        text = render(learning)
        block = text.split("\n---\n")[0].removeprefix("---\n")
        loaded = YAML(typ="safe", pure=True).load(block)
        got = loaded[field] if field == "description" else loaded["metadata"][field]
        assert got == value
        expected = " ".join(value.split()) if field == "description" else value.strip()
        if field == "source" and not expected:
            expected = "user"  # the default for a learning without a source
        assert getattr(parse(text), field) == expected


@given(st.text(max_size=80))
def test_quote_is_a_yaml_scalar_for_any_text(value: str) -> None:
    loaded = YAML(typ="safe", pure=True).load(f"key: {quote(value)}\n")
    assert loaded["key"] == value


@given(st.text(max_size=60), st.text(max_size=30))
def test_the_fast_reader_reads_what_pokayokay_writes_as_ruamel_does(
    description: str, source: str
) -> None:
    from pokayokay.infra import frontmatter

    text = render(sample(description=description, source=source))
    block = text.split("\n---\n")[0].removeprefix("---\n")
    fast = frontmatter.load(block)
    assert fast is not frontmatter.UNSUPPORTED  # no YAML library for pokayokay's own files
    slow = YAML(typ="safe", pure=True).load(block)
    assert fast == slow


def test_parse_accepts_frontmatter_claude_or_a_person_edited() -> None:
    text = (
        "---\n"
        "# edited by hand\n"
        "name: 'always-run-tests'\n"
        "description: >-\n"
        "  Always run the tests\n"
        "  before committing.\n"
        "modified: 2026-11-23T08:00:00Z\n"
        "metadata: {type: feedback, category: patterns, observations: 3, reviewed: true}\n"
        "---\n"
        "Always run the tests before committing.\n\n**Why:** CI is slow.\n"
    )
    learning = parse(text)
    assert learning.name == "always-run-tests"
    assert learning.description == "Always run the tests before committing."
    assert learning.observations == 3
    assert learning.category == "patterns"
    assert learning.text == "Always run the tests before committing.\n\n**Why:** CI is slow."
    assert "modified" in learning.extra
    assert learning.extra_metadata == {"reviewed": True}
    # The hash was missing: it is the identity of the body.
    assert learning.hash == identity(learning.text)
    again = parse(render(learning.reinforced("2026-11-24T00:00:00Z")))
    assert again.observations == 4
    assert again.extra_metadata == {"reviewed": True}
    assert "modified" in again.extra
    assert again.text == learning.text


def test_parse_fills_in_what_is_missing() -> None:
    learning = parse("---\nname: x-y\n---\nNever deploy on Fridays without a rollback plan.\n")
    assert learning.category == "anti-patterns"
    assert learning.confidence == "medium"
    assert learning.observations == 1
    assert learning.memory_type == "feedback"


@pytest.mark.parametrize(
    "text",
    [
        "no frontmatter at all",
        "---\nname: x\n",  # never closed
        "---\n- a\n- list\n---\nbody text that is long enough\n",
        "---\nname: x\n---\n\n   \n",
        "---\nname: [unclosed\n---\nbody text that is long enough\n",
    ],
)
def test_parse_refuses_what_is_not_a_learning(text: str) -> None:
    with pytest.raises(LearningFormatError):
        parse(text)


def test_reinforced_counts_and_raises_confidence_only() -> None:
    low = sample(confidence="low")
    assert low.reinforced("2026-12-01T00:00:00Z", "medium").confidence == "medium"
    high = sample(confidence="high")
    up = high.reinforced("2026-12-01T00:00:00Z", "low")
    assert up.confidence == "high"
    assert up.observations == 2 and up.last_seen == "2026-12-01T00:00:00Z"
    assert up.created == high.created


# --- the index line ---------------------------------------------------------------------------


def test_index_line_format_and_length() -> None:
    line = index_line(sample())
    assert line == (
        "- [always-run-tests-before-committing](learning-always-run-tests-before-committing.md)"
        " — Always run the tests before committing."
    )
    assert is_index_line(line)
    long = sample(description="word " * 80)
    assert len(index_line(long)) <= 190
    assert index_line(long).endswith("…")


@pytest.mark.parametrize(
    ("entry", "ours"),
    [
        ("- [run-tests](learning-run-tests.md) — Run the tests", True),
        ("- [run-tests](learning-other.md) — Run the tests", False),
        ("- [Claude note](note-1.md) — kept as is", False),
        ("- [topic-index-archive.md](topic-index-archive.md) — archived Topic Index", False),
        ("- [Run tests](learning-run-tests.md) — Title case is not ours", False),
        ("Some prose mentioning learning-run-tests.md", False),
    ],
)
def test_is_index_line(entry: str, ours: bool) -> None:
    assert is_index_line(entry) is ours


# --- near duplicates --------------------------------------------------------------------------


def test_near_duplicate_picks_the_best_match_above_the_threshold() -> None:
    candidates = [
        ("a", "Always run the linter before committing."),
        ("b", "Run the tests before every commit, always."),
        ("c", "The staging API returns 502 after a deploy."),
    ]
    found = near_duplicate("Always run the test suite before committing.", candidates)
    assert found is not None and found[0] == "b" and found[1] >= NEAR_DUPLICATE_THRESHOLD
    assert near_duplicate("Docker needs --platform linux/amd64 on ARM Macs", candidates) is None
    assert similarity("same words here", "same words here") == pytest.approx(1.0)
    assert similarity("", "anything at all") == 0.0


def _scores() -> list[tuple[float, dict[str, object]]]:
    data = json.loads(PARAPHRASES.read_text("utf-8"))
    return [(similarity(str(p["a"]), str(p["b"])), p) for p in data["pairs"]]


def _precision_recall(
    scored: list[tuple[float, dict[str, object]]], threshold: float
) -> tuple[float, float, int]:
    tp = sum(1 for s, p in scored if s >= threshold and p["duplicate"])
    fp = sum(1 for s, p in scored if s >= threshold and not p["duplicate"])
    fn = sum(1 for s, p in scored if s < threshold and p["duplicate"])
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    return precision, recall, len(scored)


def test_paraphrase_set_is_labelled_and_large_enough() -> None:
    pairs = json.loads(PARAPHRASES.read_text("utf-8"))["pairs"]
    assert len(pairs) >= 40
    duplicates = sum(1 for p in pairs if p["duplicate"])
    assert duplicates >= 20 and len(pairs) - duplicates >= 20
    assert {p["split"] for p in pairs} == {"calibration", "holdout", "fresh"}
    assert all(p["a"] != p["b"] for p in pairs)


def test_near_duplicate_threshold_precision_and_recall() -> None:
    scored = _scores()
    report = []
    for split in ("calibration", "holdout", "fresh", None):
        part = [(s, p) for s, p in scored if split is None or p["split"] == split]
        precision, recall, n = _precision_recall(part, NEAR_DUPLICATE_THRESHOLD)
        report.append(f"{split or 'all'}: n={n} precision={precision:.2f} recall={recall:.2f}")
        # No false merge anywhere in the labelled set: a false merge loses a learning.
        assert precision == 1.0, report
    print(f"near-duplicate threshold {NEAR_DUPLICATE_THRESHOLD}: " + "; ".join(report))
    _, recall_all, _ = _precision_recall(scored, NEAR_DUPLICATE_THRESHOLD)
    fresh = [(s, p) for s, p in scored if p["split"] == "fresh"]
    _, recall_fresh, _ = _precision_recall(fresh, NEAR_DUPLICATE_THRESHOLD)
    assert recall_all >= 0.80, report
    assert recall_fresh >= 0.70, report


def test_threshold_is_the_calibration_rule() -> None:
    """The lowest threshold without a false merge on the calibration half, rounded up to the
    next 0.05 (as the module docstring says)."""
    scored = _scores()
    worst_miss = max(s for s, p in scored if not p["duplicate"] and p["split"] == "calibration")
    expected = (int(worst_miss * 20) + 1) / 20
    assert pytest.approx(expected) == NEAR_DUPLICATE_THRESHOLD


def test_polarity_keeps_opposite_advice_apart() -> None:
    assert similarity("Always enable WAL mode for SQLite.", "Never enable WAL mode for SQLite.") < (
        NEAR_DUPLICATE_THRESHOLD
    )
    assert similarity("Never force-push to the main branch.", "Do not force push to main.") >= (
        NEAR_DUPLICATE_THRESHOLD
    )
