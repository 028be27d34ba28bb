"""chain-learnings.md: transcript facts, the entry, the 50-entry bound, and SessionEnd."""

from __future__ import annotations

import json
import time
from datetime import date
from pathlib import Path

import pytest

from pokayokay.failures.model import Failure
from pokayokay.infra.locate import resolve_memory_location
from pokayokay.learnings.outcomes.chain import (
    ARCHIVE_NAME,
    FILE_NAME,
    MAX_ENTRIES,
    SessionOutcome,
    TranscriptFacts,
    append,
    outcome_of,
    read,
    read_transcript,
    rotate,
    session_end_chain,
)
from pokayokay.learnings.outcomes.chain_entries import parse
from pokayokay.learnings.outcomes.spikes import CHAIN_LINK


def _line(record: dict[str, object]) -> str:
    return json.dumps(record)


def _transcript(project: Path) -> list[str]:
    return [
        _line({"type": "user", "isMeta": True, "message": {"content": "<command-name>x"}}),
        _line({"type": "user", "message": {"role": "user", "content": "migrate the users table"}}),
        "not json at all {",
        _line(
            {
                "type": "assistant",
                "message": {
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "t1",
                            "name": "Skill",
                            "input": {"skill": "db-migrations"},
                        },
                        {
                            "type": "tool_use",
                            "id": "t2",
                            "name": "Edit",
                            "input": {"file_path": str(project / "migrations" / "0042.py")},
                        },
                        {
                            "type": "tool_use",
                            "id": "t3",
                            "name": "Bash",
                            "input": {"command": "pytest"},
                        },
                    ]
                },
            }
        ),
        _line(
            {
                "type": "user",
                "message": {
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "t3",
                            "is_error": False,
                            "content": "ok",
                        }
                    ]
                },
            }
        ),
        _line(
            {
                "type": "assistant",
                "isSidechain": True,
                "message": {
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "s1",
                            "name": "Skill",
                            "input": {"skill": "sidechain"},
                        }
                    ]
                },
            }
        ),
        _line(
            {
                "type": "assistant",
                "message": {
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "t4",
                            "name": "Skill",
                            "input": {"command": "/testing"},
                        },
                        {
                            "type": "tool_use",
                            "id": "t5",
                            "name": "Write",
                            "input": {"file_path": "/etc/x"},
                        },
                        {
                            "type": "tool_use",
                            "id": "t6",
                            "name": "Bash",
                            "input": {"command": "pytest"},
                        },
                        {"type": "tool_use", "id": "t7", "name": "Skill", "input": "garbage"},
                    ]
                },
            }
        ),
        _line(
            {
                "type": "user",
                "message": {
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "t6",
                            "is_error": True,
                            "content": "Exit 1",
                        }
                    ]
                },
            }
        ),
    ]


def test_read_transcript(tmp_path: Path) -> None:
    facts = read_transcript(_transcript(tmp_path), str(tmp_path))
    assert facts.task == "migrate the users table"
    assert facts.skills == ("db-migrations", "testing")
    assert facts.files == ("migrations/0042.py", "/etc/x")
    assert facts.last_command_failed is True
    assert read_transcript([], str(tmp_path)) == TranscriptFacts()


def _failure(session: str, category: str) -> Failure:
    return Failure(time.time(), session, "Bash", "pytest", "sig", category, (), "boom", 1)


def test_outcome_and_round_trip() -> None:
    facts = TranscriptFacts("migrate users", ("db-migrations",), ("a.py", "b.py"), True)
    failures = [_failure("s1", "testing"), _failure("s1", "testing"), _failure("s2", "build")]
    outcome = outcome_of("s1", facts, failures, date(2025, 3, 2))
    assert outcome.failures == 2 and outcome.categories == (("testing", 2),)
    assert outcome.result == "failed"
    assert parse(outcome.render()) == [outcome]
    recovered = outcome_of("s1", TranscriptFacts(last_command_failed=False), failures, date.today())
    assert recovered.result == "recovered"
    assert outcome_of("s9", TranscriptFacts(), failures, date.today()).result == "clean"


def _entry(i: int) -> SessionOutcome:
    return SessionOutcome("2025-03-02", f"s{i}", f"task {i}", (), 0, (), ("x.py",), "clean")


def test_rotate_keeps_the_newest() -> None:
    text = ""
    moved_all: list[str] = []
    for i in range(MAX_ENTRIES + 3):
        text, moved = rotate(text, _entry(i).render())
        moved_all.extend(moved)
    kept = parse(text)
    assert len(kept) == MAX_ENTRIES
    assert kept[0].session_id == "s3" and kept[-1].session_id == f"s{MAX_ENTRIES + 2}"
    assert [parse(m)[0].session_id for m in moved_all] == ["s0", "s1", "s2"]


def test_append_archives_overflow(tmp_path: Path) -> None:
    location = resolve_memory_location(tmp_path, memory_dir=tmp_path / "memory")
    for i in range(5):
        append(location, _entry(i), keep=3)
    assert [e.session_id for e in read(location.memory_dir)] == ["s2", "s3", "s4"]
    archive = (location.memory_dir / ARCHIVE_NAME).read_text()
    assert [e.session_id for e in parse(archive)] == ["s0", "s1"]


def test_session_end_writes_entry_and_links_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pokayokay.config.settings import load_settings
    from pokayokay.failures.store import FailureStore
    from pokayokay.memory.apply import ensure_memory_template

    project = tmp_path / "proj"
    project.mkdir()
    location = resolve_memory_location(project, memory_dir=tmp_path / "memory")
    ensure_memory_template(location, load_settings(project))
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("\n".join(_transcript(project)) + "\n")
    with FailureStore.for_project(location.project_key) as store:
        store.record_failure(_failure("sess-1", "testing"))
        store.record_failure(_failure("other", "build"))
    payload = {"session_id": "sess-1", "transcript_path": str(transcript), "cwd": str(project)}
    session_end_chain(payload, project, location)
    (entry,) = read(location.memory_dir)
    assert entry.session_id == "sess-1"
    assert entry.skills == ("db-migrations", "testing")
    assert entry.failures == 1 and entry.result == "failed"
    assert CHAIN_LINK in location.memory_file.read_text()
    assert (location.memory_dir / FILE_NAME).read_text().count("## ") == 1


def test_session_end_is_fail_safe_and_skips_empty_sessions(tmp_path: Path) -> None:
    location = resolve_memory_location(tmp_path, memory_dir=tmp_path / "memory")
    session_end_chain({"session_id": "s", "transcript_path": "/nonexistent"}, tmp_path, location)
    assert not (location.memory_dir / FILE_NAME).exists()
    session_end_chain({"session_id": 5}, tmp_path, location)  # wrong type: nothing, no raise
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the memory folder should be")
    bad = resolve_memory_location(tmp_path, memory_dir=blocked)
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("\n".join(_transcript(tmp_path)) + "\n")
    session_end_chain({"session_id": "s", "transcript_path": str(transcript)}, tmp_path, bad)


def test_outcome_is_unknown_without_evidence_of_recovery() -> None:
    failures = [_failure("s1", "testing")]
    unread = TranscriptFacts(readable=False)
    outcome = outcome_of("s1", unread, failures, date(2026, 11, 20))
    assert (outcome.result, outcome.result_note) == ("unknown", "the transcript could not be read")
    assert parse(outcome.render()) == [outcome]
    no_result = outcome_of("s1", TranscriptFacts(), failures, date(2026, 11, 20))
    assert no_result.result == "unknown"


def test_session_end_with_an_unreadable_transcript_says_unknown(tmp_path: Path) -> None:
    from pokayokay.failures.store import FailureStore

    project = tmp_path / "proj"
    project.mkdir()
    location = resolve_memory_location(project, memory_dir=tmp_path / "memory")
    with FailureStore.for_project(location.project_key) as store:
        store.record_failure(_failure("sess-2", "testing"))
    payload = {"session_id": "sess-2", "transcript_path": str(tmp_path / "gone.jsonl")}
    session_end_chain(payload, project, location)
    (entry,) = read(location.memory_dir)
    assert entry.result == "unknown" and entry.failures == 1


def test_a_private_task_never_reaches_chain_learnings(tmp_path: Path) -> None:
    prompt = (
        "deploy the billing service <private>the staging password is Tr0ub4dor&3, "
        "customer ACME-SECRET-77</private> and check the logs"
    )
    lines = [_line({"type": "user", "message": {"role": "user", "content": prompt}})]
    facts = read_transcript(lines, str(tmp_path))
    assert facts.task == "deploy the billing service [private] and check the logs"
    assert "ACME-SECRET-77" not in outcome_of("s", facts, [], date(2026, 11, 20)).render()
