"""``chain-learnings.md`` read without ``re`` (the prompt hook reads it when it shows a
suggestion): the string scans of :mod:`pokayokay.learnings.outcomes.chain_entries` against the
patterns they replaced, which stay here as the oracle."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from pokayokay.learnings.outcomes import chain_entries
from pokayokay.learnings.outcomes.chain_entries import SessionOutcome, parse

HEADING = re.compile(r"^## (\d{4}-\d{2}-\d{2}) session (\S+)\s*$")
FIELD = re.compile(r"^- (Task|Skills|Failures|Files|Result): (.*?)\s*$")


def oracle(text: str) -> list[tuple[object, ...]]:
    """The parse as it was written with patterns (its fields as a tuple)."""
    out: list[tuple[object, ...]] = []
    current: dict[str, str] | None = None

    def flush() -> None:
        if current is None:
            return
        failures_text = current.get("Failures", "0")
        count = re.match(r"\d+", failures_text)
        cats = tuple((m[1], int(m[2])) for m in re.finditer(r"([a-z0-9-]+) (\d+)", failures_text))
        result_text = current.get("Result", "")
        note = re.search(r"\((.*)\)", result_text)
        skills, files, task = (current.get(k, "-") for k in ("Skills", "Files", "Task"))
        out.append((
            current["day"], current["session"], "" if task == "-" else task,
            () if skills == "-" else tuple(s.strip() for s in skills.split(",")),
            int(count[0]) if count else 0, cats,
            () if files == "-" else tuple(f.strip() for f in files.split(",")),
            result_text.split(" ", 1)[0] if result_text else "", note[1] if note else "",
        ))  # fmt: skip

    for line in text.splitlines():
        heading = HEADING.match(line)
        if heading:
            flush()
            current = {"day": heading[1], "session": heading[2]}
            continue
        field = FIELD.match(line)
        if field and current is not None:
            current[field[1]] = field[2]
    flush()
    return out


def fields(entries: list[SessionOutcome]) -> list[tuple[object, ...]]:
    return [
        (e.day, e.session_id, e.task, e.skills, e.failures, e.categories, e.files, e.result,
         e.result_note)
        for e in entries
    ]  # fmt: skip


# Lines built from the format's own pieces, mutated by characters that sit on its edges
# (unicode digits and spaces, brackets, separators), so the generator reaches every branch.
EDGY = st.sampled_from(
    ["## ", "2025-03-02", "٢٠٢٥-٠٣-٠٢", " session ", "- ", "Task", "Skills", "Failures", "Files",
     "Result", ": ", ":", " ", "\t", "\u00a0", "\u2003", "\x1c", "(", ")", ",", "-", "a", "z9",
     "build", "testing", "3", "١٢", "12b", "failed", "clean", "\n", "\r\n", "\u2028", "x" * 12]
)  # fmt: skip
TEXTS = st.lists(st.one_of(EDGY, st.text(max_size=6)), max_size=40).map("".join)
ENTRY = st.builds(
    lambda day, sid, body: f"## {day} session {sid}\n{body}",
    st.sampled_from(["2025-03-02", "٢٠٢٥-٠٣-٠٢", "2025/03/02", "2025-3-02"]),
    st.text(min_size=0, max_size=12),
    TEXTS,
)
FILES = st.lists(st.one_of(ENTRY, TEXTS), max_size=6).map("\n".join)


@settings(max_examples=800, deadline=None)
@given(FILES)
@example("## 2025-03-02 session a\n- Result: (x) y)\n- Failures: (b 2)")
@example("## 2025-03-02 session a b\n- Task: t\u00a0\n## 2025-03-02 session \u2003c\x1c")
def test_the_scans_read_what_the_patterns_read(text: str) -> None:
    assert fields(parse(text)) == oracle(text)


@settings(max_examples=150, deadline=None)
@given(FILES, st.integers(-1, 7))
@example("## 2025-03-02 session a\n- Task: t\n## 2025-03-02 session b\n- Task: u", 1)
def test_the_latest_entries_are_the_tail_of_the_whole_parse(text: str, latest: int) -> None:
    # what the prompt reads when it shows a suggestion (decision 0169)
    whole = parse(text)
    assert parse(text, latest) == (whole[max(0, len(whole) - latest) :] if latest > 0 else [])


def test_a_real_entry_and_its_rendering_round_trip() -> None:
    entry = SessionOutcome(
        "2025-03-02", "1f0c2a9e", "add email_verified to the users table",
        ("db-migrations", "testing"), 3, (("testing", 2), ("build", 1)),
        ("src/db/migrations/0042.py", "src/models/user.py"), "failed", "the last command failed",
    )  # fmt: skip
    text = "# Chain learnings\n\n" + entry.render()
    assert parse(text) == [entry]
    assert fields(parse(text)) == oracle(text)
    assert entry == SessionOutcome(*fields([entry])[0]) and hash(entry) == hash(parse(text)[0])
    assert "session_id='1f0c2a9e'" in repr(entry)


def test_categories_scan_from_left_to_right_as_finditer_does() -> None:
    for text in ("3 (testing 2, build 1)", "a 12b 3", "abc x1 5", "x 1 2", "- 7", "٣ (t ٣)"):
        expected = tuple(
            (m[1], int(m[2])) for m in re.finditer(r"([a-z0-9-]+) (\d+)", text)
        )
        assert chain_entries.categories(text) == expected, text
