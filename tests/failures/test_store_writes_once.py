"""``store_writes.insert_failure`` redacts a failure's command once, not twice.

It redacts every text field of the failure (the store's own guarantee, whoever calls it) and
then stored the command's key through ``command_key``, which redacted the command again. The
key is now made from the redacted command alone. The property: on the commands and outputs of
the labelled failure corpus, with secrets of every shape mixed in, the rows the store holds are
byte-identical to the rows written the old way (``command_key`` redacting again), table for
table.
"""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path

import pytest
from helpers.paths import DATA_DIR
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from pokayokay.failures import store_writes
from pokayokay.failures.model import Failure
from pokayokay.failures.store import FailureStore

CORPUS = YAML(typ="safe").load((DATA_DIR / "failure_corpus.yaml").read_text("utf-8"))
COMMANDS = sorted({str(c["command"]) for c in CORPUS if c.get("command")})
OUTPUT_LINES = sorted(
    {line for c in CORPUS for line in str(c.get("output", "")).split("\n") if line.strip()}
)
SECRETS = (
    "PGPASSWORD=hunter2hunter2 ",
    "--token ghp_0123456789abcdefghijABCDEFGHIJ012345 ",
    "curl -H 'Authorization: Bearer sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123' ",
    "mysql -pS3cretPassw0rd ",
    "AKIAIOSFODNN7EXAMPLE ",
    "postgres://app:Zq8vX2mP9wLr@db.internal/app ",
    "",
)
TABLES = ("failures", "signatures", "group_sessions", "group_paths", "episodes",
          "episode_signatures", "sessions")  # fmt: skip


def _old_command_key(command: str) -> str:
    """The stored command as it was written before: redacted again, then its key."""
    from pokayokay.failures.signature import command_key
    from pokayokay.safety.redact import redact

    return command_key(redact(command))


def _rows(path: Path) -> dict[str, list[tuple[object, ...]]]:
    conn = sqlite3.connect(path)
    try:
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        return {
            table: sorted(conn.execute(f"SELECT * FROM {table}").fetchall(), key=repr)
            for table in TABLES
            if table in names
        }
    finally:
        conn.close()


def _stored(
    failures: list[Failure], folder: Path, name: str
) -> dict[str, list[tuple[object, ...]]]:
    path = folder / f"{name}.db"
    with FailureStore(path) as store:
        store.record_failures([(f, f"toolu_{n}") for n, f in enumerate(failures)])
    return _rows(path)


def _check(failures: list[Failure]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        new = _stored(failures, folder, "new")
        with pytest.MonkeyPatch.context() as patched:
            patched.setattr(
                store_writes, "signature_command_key", _old_command_key
            )  # the old path: the command redacted a second time before its key
            old = _stored(failures, folder, "old")
    assert new == old
    assert new["failures"], "nothing stored"


FAILURE = st.builds(
    lambda n, secret, command, line, session: Failure(
        ts=1_700_000_000.0 + n,
        session_id=session,
        tool="Bash",
        command=secret + command,
        signature=f"sig:{line[:60]}",
        category="testing",
        paths=("src/app.py",),
        excerpt=secret + line,
        exit_code=1,
    ),
    st.integers(0, 10_000),
    st.sampled_from(SECRETS),
    st.sampled_from(COMMANDS),
    st.sampled_from(OUTPUT_LINES),
    st.sampled_from(("s-a", "s-b")),
)


def test_the_stored_rows_of_the_corpus_are_unchanged() -> None:
    failures = [
        Failure(
            ts=1_700_000_000.0 + n,
            session_id=("s-a", "s-b")[n % 2],
            tool=str(case.get("tool", "Bash")),
            command=SECRETS[n % len(SECRETS)] + str(case["command"]),
            signature=str(case.get("signature") or case["id"]),
            category="testing",
            paths=(),
            excerpt=str(case.get("output", ""))[:300],
            exit_code=1,
        )
        for n, case in enumerate(CORPUS)
        if case.get("command")
    ]
    assert len(failures) >= 50
    _check(failures)


@given(failures=st.lists(FAILURE, min_size=1, max_size=6))
@settings(max_examples=25, deadline=None)
def test_the_stored_rows_are_unchanged(failures: list[Failure]) -> None:
    _check(failures)


@pytest.mark.slow
@given(failures=st.lists(FAILURE, min_size=1, max_size=10))
@settings(max_examples=400, deadline=None)
def test_the_stored_rows_are_unchanged_many(failures: list[Failure]) -> None:
    _check(failures)


def test_the_command_is_redacted_once_per_insert(monkeypatch: pytest.MonkeyPatch) -> None:
    """The work this saves: one redaction of the command per insert, not two."""
    from pokayokay.safety import redact as redact_module

    calls: list[str] = []
    real = redact_module.redact

    def counting(text: str, *args: object, **kwargs: object) -> str:
        calls.append(text)
        return real(text, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(redact_module, "redact", counting)
    command = "PGPASSWORD=hunter2hunter2 psql -c 'select 1'"
    failure = Failure(
        ts=1.0, session_id="s", tool="Bash", command=command, signature="sig", category="shell",
        paths=(), excerpt="x", exit_code=1,
    )  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp, FailureStore(Path(tmp) / "f.db") as store:
        store.record_failures([(failure, "toolu_1")])
        stored = store.failures()[0].command
    # the command, or the command already redacted: one redaction of it in all
    assert calls.count(command) + calls.count(real(command)) == 1, calls
    assert stored is not None and "hunter2" not in stored
