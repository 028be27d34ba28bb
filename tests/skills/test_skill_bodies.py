"""A ``SKILL.md``'s body as a weak field of skill suggestion (decision 0205): its prose outside
code blocks, its most used words the description lacks at :data:`BODY_WEIGHT`, their own
document frequency, the gate's ``body_share``, and the cache keeping them."""

from __future__ import annotations

from pathlib import Path

from pokayokay.relevance.gate import FEATURES
from pokayokay.relevance.skill_gating import evidence
from pokayokay.relevance.skill_match import (
    BODY_TERMS,
    BODY_WEIGHT,
    EXT_WEIGHT,
    LEAD_WEIGHT,
    NAME_PART_WEIGHT,
    NAME_WEIGHT,
    TRIGGER_WEIGHT,
    Query,
    Stats,
    profile,
)
from pokayokay.relevance.skill_terms import tokenize
from pokayokay.skills.catalog import Catalog, catalog_from_folder, load_catalog
from pokayokay.skills.skill_frontmatter import body_text

TDD = """---
name: test-driven-development
description: Use when implementing any feature or bugfix, before writing implementation code
---

# Test-Driven Development

Write the test first. Watch it fail. Write minimal code to pass.

```python
def test_retries_failed_operations():
    assert retry(operation) == "success"
```

Red, green, refactor: a failing test before any production code.
"""


def test_the_body_is_the_prose_after_the_frontmatter_without_code_blocks() -> None:
    body = body_text(TDD)
    assert body.startswith("\n# Test-Driven Development\n")
    assert "retry(operation)" not in body and "```" not in body
    assert body.endswith("Red, green, refactor: a failing test before any production code.\n")
    assert body_text("\ufeff" + TDD) == body
    assert body_text("no frontmatter at all\n") == "no frontmatter at all\n"
    assert body_text("---\nname: x\ndescription: y\n---") == ""


def test_the_most_used_body_words_the_description_lacks_weigh_little() -> None:
    prof = profile(
        "test-driven-development",
        "Use when implementing any feature or bugfix, before writing implementation code",
        body=body_text(TDD),
    )
    assert prof.fields["fail"] == prof.fields["red"] == BODY_WEIGHT
    assert "fail" in prof.body and "red" in prof.body
    assert prof.fields["featur"] != BODY_WEIGHT  # a description's word keeps its weight
    assert "featur" not in prof.body
    assert "retry" not in prof.fields and "oper" not in prof.fields  # code blocks left out
    # Only the most used ones: a long body adds at most BODY_TERMS words, the most used first.
    words = [f"zz{a}{b}{c}" for a in "bcdfgh" for b in "klmnp" for c in "rstvw"]
    assert len(set(tokenize(" ".join(words)))) == len(words) > BODY_TERMS
    half = BODY_TERMS // 2
    long_body = " ".join(" ".join([w] * (3 if i < half else 1)) for i, w in enumerate(words))
    body = profile("x", "Do one thing.", body=long_body).body
    assert len(body) == BODY_TERMS
    assert set(tokenize(" ".join(words[:half]))) <= body


def test_no_other_part_of_a_profile_weighs_what_a_body_word_does() -> None:
    """``Profile.body`` is read back from the weight alone (the cache does not repeat it)."""
    others = (1.0, NAME_WEIGHT, NAME_PART_WEIGHT, LEAD_WEIGHT, EXT_WEIGHT, TRIGGER_WEIGHT)
    assert min(others) > BODY_WEIGHT


def _three_skills(folder: Path) -> Catalog:
    for name, description, body in (
        ("alpha", "Draw charts of sales.", "Use fixtures. Use fixtures."),
        ("beta", "Write fixtures for tests.", "Charts are drawn with fixtures."),
        ("gamma", "Deploy the app.", "Rollback with fixtures and canaries."),
    ):
        (folder / name).mkdir()
        (folder / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: {description}\n---\n{body}\n", "utf-8"
        )
    return catalog_from_folder(folder)


def test_a_word_only_bodies_hold_has_its_own_document_frequency(tmp_path: Path) -> None:
    """A description's word keeps the frequency of the descriptions; one only bodies hold is
    counted over those bodies."""
    catalog = _three_skills(tmp_path)
    stats = Stats.of(catalog)
    assert stats.df["fixtur"] == 1  # beta's description; alpha's and gamma's bodies not counted
    assert stats.df["canary"] == 1  # only gamma's body
    assert "fixtur" in next(s for s in catalog if s.name == "alpha").profile.body  # type: ignore[union-attr]


def test_the_gate_reads_how_much_of_a_skills_evidence_only_its_body_holds(tmp_path: Path) -> None:
    catalog = _three_skills(tmp_path)
    stats = catalog.statistics()
    by_name = {s.name: s for s in catalog}
    for name, prompt, matched, body in (
        ("alpha", "draw sales charts from the fixtures", {"draw", "sal", "chart", "fixtur"}, 0.25),
        ("gamma", "rollback the canaries", {"rollback", "canary"}, 1.0),
        ("beta", "write fixtures for the tests", {"fixtur", "test"}, 0.0),
    ):
        query = Query(prompt, stats)
        (found,) = evidence(query, stats, [by_name[name]], {name: 1.0}, calls=0.5)
        assert found.matched == matched, name
        assert found.values()[FEATURES.index("body_share")] == body, name


def test_what_a_skill_addresses_is_what_its_description_says(tmp_path: Path) -> None:
    """A failure category a skill's body alone speaks of is not one it addresses (no failure
    boost, no reason), however often the body says it: the body is a weak field of the
    prompt's match, weighed by the gate, not a claim (the benchmarks' build-failure row caught
    it: after decision 0205 the prompt ingested a capture only a body word could concern)."""
    from pokayokay.skills.failure_boost import concern

    build = "Run the build with make; the compile step and the linker must pass."
    for name, description, body in (
        ("by-body", "Draw charts of sales.", f"{build} {build}"),
        ("by-description", f"Fix failing builds: {build}", "Charts."),
    ):
        (tmp_path / name).mkdir()
        (tmp_path / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: {description}\n---\n{body}\n", "utf-8"
        )
    by_name = {s.name: s for s in catalog_from_folder(tmp_path)}
    assert by_name["by-body"].profile.body & {"build", "compil", "make"}  # type: ignore[union-attr]
    for tool in (None, "make"):
        assert concern(by_name["by-body"], "build", tool) == 0.0
        assert concern(by_name["by-description"], "build", tool) > 0.0


def test_a_skill_whose_body_alone_speaks_of_spikes_is_no_spikes_skill(tmp_path: Path) -> None:
    """An answered spike leaves its skill out of the suggestion: a skill is a spike's when its
    description says so, not when its body happens to use the word (decision 0205)."""
    from pokayokay.skills.suggest import _is_spike_skill

    spike = "Unsure whether it scales? Run a spike first; a spike answers go or no-go."
    for name, description, body in (
        ("search-migration", "Move search from Elasticsearch to Postgres full text.", spike * 3),
        ("spike", "Run a time-boxed spike that answers a go or no-go question.", "Charts."),
    ):
        (tmp_path / name).mkdir()
        (tmp_path / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: {description}\n---\n{body}\n", "utf-8"
        )
    by_name = {s.name: s for s in catalog_from_folder(tmp_path)}
    assert set(tokenize("spike")) <= by_name["search-migration"].profile.body  # type: ignore[union-attr]
    assert not _is_spike_skill(by_name["search-migration"])
    assert _is_spike_skill(by_name["spike"])


def test_the_cache_keeps_the_body_words(tmp_path: Path, isolated_home: Path) -> None:
    folder = tmp_path / ".claude" / "skills" / "test-driven-development"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(TDD, "utf-8")
    fresh = load_catalog(tmp_path)
    cached = load_catalog(tmp_path)  # read from the cache
    for catalog in (fresh, cached):
        (skill,) = list(catalog)
        assert skill.profile is not None and "red" in skill.profile.body
    assert fresh.statistics().df == cached.statistics().df


def test_a_full_check_past_its_deadline_leaves_the_rest_to_the_next(
    tmp_path: Path, isolated_home: Path
) -> None:
    """SessionEnd's 1.5 s (decision 0205: about 10 ms a SKILL.md, every one after an upgrade):
    past its deadline a full check analyses nothing more, caches what it did without the quick
    key, and the next full check (a prompt's) finishes the catalog."""
    import time

    for i in range(3):
        folder = tmp_path / ".claude" / "skills" / f"skill-{i}"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(TDD.replace("test-driven-development", f"s{i}"), "utf-8")
    cut = load_catalog(tmp_path, deadline=time.monotonic() - 1.0)
    assert cut.partial and list(cut) == []
    # The partial catalog left no quick key: a prompt's quick check runs the full one, which
    # analyses the three (a quick key taken would have given the empty catalog above).
    whole = load_catalog(tmp_path, quick=True)
    assert not whole.partial and sorted(s.name for s in whole) == ["skill-0", "skill-1", "skill-2"]
    again = load_catalog(tmp_path, quick=True)  # now from the quick key
    assert [s.name for s in again] == [s.name for s in whole]
