"""spike-results.md: parse, record, replace, and the Topic Index links."""

from __future__ import annotations

import dataclasses
from datetime import date
from pathlib import Path

from pokayokay.infra.locate import resolve_memory_location
from pokayokay.learnings.outcomes import chain
from pokayokay.learnings.outcomes.spikes import (
    CHAIN_LINK,
    SPIKE_LINK,
    Spike,
    owns_link,
    parse,
    read,
    read_topic_text,
    record,
    render,
    spike_cli,
    with_spike,
)


def _location(tmp_path: Path):  # type: ignore[no-untyped-def]
    project = tmp_path / "proj"
    project.mkdir()
    return project, resolve_memory_location(project, memory_dir=tmp_path / "memory")


def test_round_trip_and_replace() -> None:
    a = Spike("2025-01-02", "Can we use FTS5?", True, "Yes, 20 ms at 1M rows.")
    b = Spike("2025-01-03", "Is gRPC worth it?", False, "No: the proxy cannot speak it.")
    assert parse(render([a, b])) == [a, b]
    again = Spike("2025-02-01", "can we use fts5", False, "No after all.")
    assert with_spike([a, b], again) == [b, again]
    assert parse("## 2025-01-01 — no verdict\n- Conclusion: x\n") == []


def test_record_and_cli(tmp_path: Path) -> None:
    project, location = _location(tmp_path)
    spike = record(location, "Can we <b>use</b> FTS5?\n", True, "Works.", today=date(2025, 1, 2))
    assert spike.question == "Can we <b>use</b> FTS5?"  # the user's words, exactly
    assert read(location.memory_dir) == [spike]
    code, out = spike_cli("Is gRPC worth it?", False, "No.", project, location)
    assert code == 0 and "recorded NO-GO" in out
    assert [s.verdict for s in read(location.memory_dir)] == ["GO", "NO-GO"]
    code, out = spike_cli("   ", True, "x", project, location)
    assert code == 2 and "empty" in out


def test_topic_index_links_keep_other_entries(tmp_path: Path) -> None:
    from pokayokay.config.settings import load_settings
    from pokayokay.memory.apply import ensure_memory_template

    project, location = _location(tmp_path)
    settings = load_settings(project)
    ensure_memory_template(location, dataclasses.replace(settings, empty_sections=True))
    memory = location.memory_file
    learning = "- [testing](learning-testing.md) — run pytest with -x first"
    lines = memory.read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith("## Topic Index"))
    lines.insert(at + 2, learning + "\n")
    memory.write_text("".join(lines))
    code, _ = spike_cli("Can we use FTS5?", True, "Yes.", project, location)
    assert code == 0
    after = memory.read_text()
    assert SPIKE_LINK in after and learning in after
    assert CHAIN_LINK not in after  # chain-learnings.md does not exist yet
    spike_cli("Another?", False, "No.", project, location)
    assert memory.read_text().count(SPIKE_LINK) == 1


def test_owns_only_its_links() -> None:
    assert owns_link(SPIKE_LINK) and owns_link(CHAIN_LINK)
    assert not owns_link("- [x](learning-x.md) — mentions spike-results.md")
    assert not owns_link("- See `memory/chain-learnings.md` for my own notes")


def test_topic_files_read_alike_missing_undecodable_or_not_a_file(tmp_path: Path) -> None:
    """``spike-results.md`` and ``chain-learnings.md`` are read by one helper: a missing topic
    file (or a folder in its place) is no entry, and bytes that are not UTF-8 read as U+FFFD
    instead of failing the parse, in both files."""
    memory = tmp_path / "memory"
    memory.mkdir()
    assert read_topic_text(memory, "spike-results.md") == ""
    assert read(memory) == [] and chain.read(memory) == []
    spike = Spike("2025-01-02", "Can we use FTS5?", True, "Yes, caf\ufffd is fine.")
    (memory / "spike-results.md").write_bytes(
        render([spike]).replace("\ufffd", "\x00").encode().replace(b"\x00", b"\xe9")
    )
    assert read_topic_text(memory, "spike-results.md").count("\ufffd") == 1
    assert read(memory) == [spike]
    (memory / "chain-learnings.md").write_bytes(
        b"# Chain\n\n## 2025-01-02 session s1\n- Task: fix caf\xe9\n- Result: clean\n"
    )
    (outcome,) = chain.read(memory)
    assert (outcome.session_id, outcome.task) == ("s1", "fix caf\ufffd")
    (memory / "chain-learnings.md").unlink()
    (memory / "chain-learnings.md").mkdir()
    assert chain.read(memory) == []
