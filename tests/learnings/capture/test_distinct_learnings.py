"""`/remember` never discards a distinct learning (issue 12): only exact repeats and near-verbatim
rewordings are reinforced; contradictions are stored, both, and flagged in `status` and
`consolidate`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.paths import DATA_DIR
from hypothesis import given, settings
from hypothesis import strategies as st

from pokayokay.infra.locate import MemoryLocation, resolve_memory_location
from pokayokay.learnings.capture.remember import remember
from pokayokay.learnings.topics.stored import contradicting_learnings, load_learnings
from pokayokay.learnings.wording import distinct_because, near_duplicate, similarity
from pokayokay.memory.sections import Settings

PARAPHRASES = DATA_DIR / "learnings" / "paraphrases.json"

SUBSYSTEMS = [
    "auth", "billing", "search", "ingest", "export", "notify", "cache",
    "scheduler", "payments", "reports", "media", "audit", "gateway", "sync",
]  # fmt: skip


@pytest.fixture
def location(tmp_path: Path) -> MemoryLocation:
    project = tmp_path / "project"
    project.mkdir()
    return resolve_memory_location(project, memory_dir=tmp_path / "memory")


def store(location: MemoryLocation, text: str):  # type: ignore[no-untyped-def]
    return remember(text, project_dir=location.project_dir, location=location, settings=Settings())


def texts(location: MemoryLocation) -> list[str]:
    stored, problems = load_learnings(location.memory_dir)
    assert not problems
    return sorted(s.learning.text for s in stored)


def test_swapped_choices_are_a_contradiction_kept_both_and_flagged(
    location: MemoryLocation,
) -> None:
    first = store(location, "Use requests for HTTP calls in the sync workers, never httpx.")
    second = store(location, "Use httpx for HTTP calls in the sync workers, never requests.")
    assert (first.status, second.status) == ("stored", "stored")
    assert len(texts(location)) == 2
    assert any("contradicts" in n and "both are kept" in n for n in second.notes)
    flagged = contradicting_learnings(location.memory_dir)
    assert len(flagged) == 1 and "httpx" in flagged[0] and "request" in flagged[0]


def test_a_different_service_is_a_different_learning(location: MemoryLocation) -> None:
    store(location, "Never deploy billing on Fridays: the finance team is away.")
    result = store(location, "Never deploy search on Fridays: the finance team is away.")
    assert result.status == "stored"
    assert not any("contradicts" in note for note in result.notes)
    assert len(texts(location)) == 2
    assert contradicting_learnings(location.memory_dir) == []


def test_fourteen_subsystem_learnings_are_fourteen_files(location: MemoryLocation) -> None:
    for name in SUBSYSTEMS:
        result = store(location, f"The {name} subsystem needs {name}.toml in the config folder.")
        assert result.status == "stored", name
    assert len(texts(location)) == 14


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Retry the payment webhook 3 times.", "Retry the payment webhook 5 times."),
        ("Prefer pathlib over os.path in scripts.", "Prefer os.path over pathlib in scripts."),
        ("Always enable WAL mode for SQLite.", "Never enable WAL mode for SQLite."),
        ("Run migrations with make migrate.", "Run migrations with make migrate-all."),
    ],
)
def test_what_keeps_two_learnings_apart(a: str, b: str) -> None:
    assert distinct_because(a, b) is not None
    assert near_duplicate(b, [("a", a)]) is None


def test_exact_repeats_and_near_verbatim_rewordings_are_reinforced(
    location: MemoryLocation,
) -> None:
    store(location, "Always run the test suite before committing.")
    assert store(location, "  always run the TEST suite before committing. ").status == (
        "reinforced"
    )
    assert store(location, "Run the tests before every commit, always.").status == "reinforced"
    assert store(location, "Never force-push to the main branch.").status == "stored"
    assert store(location, "Do not force push to main.").status == "reinforced"
    assert len(texts(location)) == 2


def test_no_false_merge_on_the_labelled_pairs() -> None:
    """Over the 100 labelled pairs, nothing that is two learnings is ever merged; what the gate
    costs is duplicates stored twice (one more index line each)."""
    pairs = json.loads(PARAPHRASES.read_text("utf-8"))["pairs"]
    merged = [p for p in pairs if near_duplicate(p["b"], [("a", p["a"])]) is not None]
    assert all(p["duplicate"] for p in merged)
    duplicates = sum(1 for p in pairs if p["duplicate"])
    print(f"\nmerged {len(merged)} of {duplicates} labelled duplicates, no false merge")
    assert similarity(pairs[0]["a"], pairs[0]["a"]) == pytest.approx(1.0)


def test_status_and_consolidate_list_contradictions(location: MemoryLocation) -> None:
    from pokayokay.learnings.consolidate.consolidate_apply import consolidate
    from pokayokay.learnings.consolidate.consolidation_report import render_summary
    from pokayokay.status import render_status, status

    store(location, "Use requests for HTTP calls in the sync workers, never httpx.")
    store(location, "Use httpx for HTTP calls in the sync workers, never requests.")
    data = status(location, Settings())
    assert render_status(data).count("contradiction, both kept") == 1
    outcome = consolidate(location.project_dir, location, Settings(), dry_run=True)
    assert len(outcome.contradictions) == 1
    assert "contradiction, both kept" in render_summary(outcome)
    assert "Contradicting learnings (both kept)" in outcome.report_text


# --- contradictions among many stored learnings: indexed, same answer as every pair ----------

_VOCABULARY = [
    "use", "httpx", "requests", "mock", "database", "deploy", "fridays", "search", "billing",
    "never", "not", "avoid", "instead", "of", "prefer", "over", "always", "the", "tests", "run",
]  # fmt: skip


def _every_pair(items: list[tuple[str, str]]) -> list[tuple[str, str, frozenset[str]]]:
    from pokayokay.learnings.wording import contradiction

    out = []
    for i, (key_a, text_a) in enumerate(items):
        for key_b, text_b in items[i + 1 :]:
            found = contradiction(text_a, text_b)
            if found:
                out.append((key_a, key_b, found))
    return out


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_VOCABULARY), min_size=2, max_size=9), max_size=14))
def test_indexed_contradictions_equal_comparing_every_pair(word_lists: list[list[str]]) -> None:
    from pokayokay.learnings.wording import contradictions

    items = [(f"k{i}", " ".join(words)) for i, words in enumerate(word_lists)]
    assert contradictions(items) == _every_pair(items)


def test_contradictions_among_thousands_are_found_without_comparing_every_pair(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pokayokay.learnings import wording

    items = [(f"n{i}", f"the {s} subsystem {i} needs its config file {i}")
             for i, s in enumerate(SUBSYSTEMS * 150)]
    items += [("a", "use httpx, never requests"), ("b", "use requests, never httpx")]
    compared = []
    real = wording.profile_contradiction

    def counting(pa, pb):  # type: ignore[no-untyped-def]
        compared.append(1)
        return real(pa, pb)

    monkeypatch.setattr(wording, "profile_contradiction", counting)
    found = wording.contradictions(items)
    assert [(a, b) for a, b, _ in found] == [("a", "b")]
    assert len(compared) < 10  # not the 2.2 million pairs
