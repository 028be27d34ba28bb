"""Team records (pure): a record round-trips, a line read from any teammate is taken or refused
(never an exception), nothing redaction removes is ever written or taken, and the team's
evidence does not depend on the order writers or compaction put the records in."""

from __future__ import annotations

import json

import pytest
from helpers.graduation import DAY, T0, group
from helpers.secrets import SECRETS
from hypothesis import given, settings
from hypothesis import strategies as st

from pokayokay.failures.model import Correction
from pokayokay.safety.redact import contains_secret
from pokayokay.team.aggregate import graduating, latest, team_evidence
from pokayokay.team.records import (
    EVIDENCE,
    Refused,
    TeamRecord,
    decode_line,
    encode_line,
    from_group,
    safe_path,
    tombstone,
)

WORD = st.text(st.sampled_from("abcdefgh_/.-:0123456789"), min_size=1, max_size=20)
PATHS = st.lists(
    st.lists(st.sampled_from(["src", "tests", "cart.py", "a", "b.ts"]), min_size=1, max_size=3)
    .map("/".join),
    max_size=4,
)


@st.composite
def groups(draw: st.DrawFn) -> object:
    first = draw(st.integers(0, 2**31))
    return group(
        signature=draw(WORD),
        category=draw(st.sampled_from(["testing", "lint", "environment", "typing"])),
        sessions=draw(st.integers(1, 50)),
        occurrences=draw(st.integers(1, 200)),
        first=float(first),
        last=float(first + draw(st.integers(0, 10**6))),
        paths=draw(PATHS),
        fix_paths=draw(PATHS),
        sample_command=draw(st.none() | WORD),
        corrections=[Correction(draw(WORD), draw(WORD), "command", draw(st.integers(0, 9)))],
    )


@given(groups())
def test_a_record_reads_back_as_written(g: object) -> None:
    record = from_group(g)  # type: ignore[arg-type]
    assert record is not None
    assert decode_line(encode_line(record)) == record


@given(st.text(max_size=300))
def test_any_line_is_taken_or_refused_never_raised(line: str) -> None:
    assert isinstance(decode_line(line), (TeamRecord, Refused))


@settings(max_examples=300)
@given(st.dictionaries(st.sampled_from(
    ["v", "kind", "mistake", "category", "sessions", "occurrences", "first", "last", "paths",
     "fix_paths", "command", "corrections", "at"]),
    st.none() | st.booleans() | st.integers(-5, 2**34) | st.text(max_size=8)
    | st.lists(st.text(max_size=5) | st.integers(), max_size=4),
))
def test_json_objects_of_any_shape_are_taken_or_refused(data: dict[str, object]) -> None:
    assert isinstance(decode_line(json.dumps(data)), (TeamRecord, Refused))


@pytest.mark.parametrize("secret", SECRETS, ids=lambda s: s.kind)
def test_no_secret_is_written_and_none_is_taken(secret: object) -> None:
    leak = secret.command or secret.text  # type: ignore[attr-defined]
    g = group(sample_command=leak,
              corrections=[Correction(leak, f"{leak} --retry", "command", 2)])
    record = from_group(g)
    assert record is not None
    line = encode_line(record)
    assert secret.secret not in line  # type: ignore[attr-defined]
    assert not contains_secret(line)
    assert isinstance(decode_line(line), TeamRecord)
    # A teammate's line carrying the secret as it is: refused, not repaired.
    hostile = json.loads(line)
    hostile["command"] = leak[:400]
    if contains_secret(leak[:400]):
        assert isinstance(decode_line(json.dumps(hostile)), Refused)


@pytest.mark.parametrize(
    "path", ["/etc/passwd", "../outside.py", "src/../../x", "~/notes", "C:/x", "a\\b", "a//b", ""]
)
def test_paths_outside_the_project_are_refused(path: str) -> None:
    assert not safe_path(path)
    line = json.loads(encode_line(from_group(group()) or tombstone("x", 0)))
    line["paths"] = [path]
    assert isinstance(decode_line(json.dumps(line)), Refused)
    # And this writer never shares one: such a path is left out of its record.
    record = from_group(group(paths=("src/cart.py", path)))
    assert record is not None and record.paths == ("src/cart.py",)


def test_private_spans_are_never_written_and_refused_when_read() -> None:
    record = from_group(group(sample_command="deploy <private>hunter2 host</private> now"))
    assert record is not None and record.command is not None
    assert "hunter2" not in record.command
    line = json.loads(encode_line(record))
    line["command"] = "deploy <private>hunter2</private>"
    assert isinstance(decode_line(json.dumps(line)), Refused)


def test_a_key_redaction_would_change_is_not_shared() -> None:
    leak = SECRETS[0].secret
    assert from_group(group(signature=f"test:tests/x.py::{leak}")) is None


RECORDS = st.lists(
    st.builds(
        TeamRecord,
        kind=st.just(EVIDENCE),
        mistake=st.sampled_from(["m1", "m2", "m3"]),
        category=st.sampled_from(["testing", "lint"]),
        sessions=st.integers(0, 5),
        occurrences=st.integers(0, 9),
        first=st.just(int(T0)),
        last=st.integers(int(T0), int(T0 + 30 * DAY)),
        paths=st.sampled_from([(), ("src/a.py",), ("src/a.py", "tests/b.py")]),
    )
    | st.builds(tombstone, st.sampled_from(["m1", "m2"]), st.integers(0, 2**31)),
    max_size=8,
)


@given(st.dictionaries(st.sampled_from(["w1", "w2", "w3", "w4"]), RECORDS))
def test_team_evidence_ignores_order_and_compaction(files: dict[str, list[TeamRecord]]) -> None:
    evidence = team_evidence(files)
    assert team_evidence(dict(reversed(list(files.items())))) == evidence
    assert team_evidence({w: latest(r) for w, r in files.items()}) == evidence
    for g in evidence.groups:
        assert g.sessions == sum(evidence.writers[g.signature].values())
        assert evidence.teammates[g.signature] == len(evidence.writers[g.signature])


def test_graduation_by_sessions_or_by_teammates() -> None:
    def rec(mistake: str, sessions: int) -> TeamRecord:
        return TeamRecord(EVIDENCE, mistake, "testing", sessions, sessions, 0, 1)

    evidence = team_evidence({
        "w1": [rec("alone-thrice", 3), rec("two-people", 1), rec("alone-once", 1)],
        "w2": [rec("two-people", 1)],
    })
    assert graduating(evidence, threshold=3, teammates=2) == {"alone-thrice", "two-people"}
    assert graduating(evidence, threshold=3, teammates=3) == {"alone-thrice"}
    assert graduating(evidence, threshold=2, teammates=3) == {"alone-thrice", "two-people"}
