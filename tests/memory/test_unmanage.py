"""`uninstall --purge` takes pokayokay's scaffolding out of MEMORY.md and keeps every entry in
place: a golden file on the demo's curated MEMORY.md, and properties on generated documents."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from pokayokay.memory.sections import DEFAULT_SECTIONS, END_MARKER
from pokayokay.memory.unmanage import is_title_only, unmanage

GOLDEN = Path(__file__).parent / "golden_unmanage"


def test_golden_demo_memory() -> None:
    source = (GOLDEN / "MEMORY.md").read_text("utf-8")
    expected = (GOLDEN / "expected.md").read_text("utf-8")
    assert unmanage(source) == expected
    # Every line that is not pokayokay's is still there, in the same order.
    kept = [line for line in source.splitlines() if "pokayokay:" not in line
            and line != END_MARKER and line != "## Active Patterns"]
    assert [line for line in expected.splitlines() if line] == [line for line in kept if line]


def test_the_template_alone_is_only_a_title() -> None:
    from pokayokay.infra.templating import render

    text = render("MEMORY.md.j2", sections=DEFAULT_SECTIONS, end_marker=END_MARKER)
    assert unmanage(text) == "# Memory\n"
    assert is_title_only(unmanage(text))


def test_markers_in_a_code_fence_are_left_alone() -> None:
    text = (
        "# Memory\n\n## Notes\n```markdown\n## Example\n<!-- pokayokay: example -->\n"
        f"{END_MARKER}\n```\n"
    )
    assert unmanage(text) == text


entry = st.text(
    alphabet=st.characters(whitelist_categories=("Ll", "Lu", "Nd"), whitelist_characters=" -`"),
    min_size=1, max_size=30,
).map(lambda s: "- " + s.strip() + " entry")


@given(st.lists(st.tuples(st.sampled_from(DEFAULT_SECTIONS), st.lists(entry, max_size=4)),
                max_size=6),
       st.lists(entry, max_size=3))
def test_entries_kept_markers_gone_idempotent(
    sections: list[tuple[object, list[str]]], notes: list[str]
) -> None:
    parts = ["# Memory\n", *(f"{n}\n" for n in notes)]
    for spec, entries in sections:
        parts.append(f"\n## {spec.title}\n{spec.marker_line}\n")  # type: ignore[attr-defined]
        parts.extend(f"{e}\n" for e in entries)
        parts.append(f"{END_MARKER}\n")
    text = "".join(parts)
    out = unmanage(text)
    assert "<!-- pokayokay" not in out and END_MARKER not in out
    assert [ln for ln in out.splitlines() if ln.startswith("- ")] == [
        ln for ln in text.splitlines() if ln.startswith("- ")
    ]
    assert unmanage(out) == out
    assert "\n\n\n" not in out


def test_entries_pointing_at_a_removed_rule_go_and_nothing_else() -> None:
    removed = [".claude/rules/pokayokay/ruff-f401.md"]
    source = (
        "# Memory\n\n"
        "Claude's note on .claude/rules/pokayokay/ruff-f401.md stays: it is Claude's text.\n\n"
        "## Active Patterns\n"
        "<!-- pokayokay: graduated to .claude/rules/ when confirmed -->\n"
        "- Unused imports: see .claude/rules/pokayokay/ruff-f401.md (3 sessions)\n"
        "  continued on an indented line\n"
        "- Pytest runs: see .claude/rules/pokayokay/test-x.md (4 sessions)\n"
        "<!-- /pokayokay -->\n\n"
        "## Topic Index\n"
        "<!-- pokayokay: links to detail files -->\n"
        "- [Unused imports](.claude/rules/pokayokay/ruff-f401.md)\n"
        "<!-- /pokayokay -->\n"
    )
    expected = (
        "# Memory\n\n"
        "Claude's note on .claude/rules/pokayokay/ruff-f401.md stays: it is Claude's text.\n\n"
        "## Active Patterns\n"
        "- Pytest runs: see .claude/rules/pokayokay/test-x.md (4 sessions)\n"
    )
    assert unmanage(source, removed) == expected
    assert ".claude/rules/pokayokay/ruff-f401.md (3 sessions)" in unmanage(source)
