"""pokayokay.failures.upgrade: an old store (built here as the old code wrote it: raw rows, no
redaction, no auto-vacuum) is redacted and switched to incremental vacuum once, outside the
hooks, in bounded batches that resume after an interruption; afterwards no secret is left in
the database, its WAL, or any file of the state folder."""

from __future__ import annotations

import json
import sqlite3
import time
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from pokayokay.cli import main as cli
from pokayokay.failures import upgrade
from pokayokay.failures.schema import MIGRATIONS
from pokayokay.failures.store import FailureStore
from pokayokay.hooks import session
from pokayokay.infra.locate import resolve_memory_location
from pokayokay.safety.redact import redact

NOW = time.time()
GITHUB = "ghp_R8vZk2QmT5nWp9LxY3cHs7DfJ1aBe4Ug6KtM"
DB_PASSWORD = "Tr0ub4dor-Horse-9"
STRIPE = "sk_live_51HbX9aK2mPq8RvT3wZyLc7NdE4fGhJ6"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJkZXYifQ.Qm9ndXNTaWduYXR1cmVCeXRlczEyMzQ"
AWS = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ8vT2LmNa"
SECRETS = (GITHUB, DB_PASSWORD, STRIPE, JWT, AWS)

PUSH = f"git push https://x-access-token:{GITHUB}@github.com/acme/shop.git main"
PSQL = f"psql postgres://admin:{DB_PASSWORD}@db.internal:5432/app -c 'select 1'"
PSQL_OTHER = "psql postgres://admin:An0ther-Pa55word-7@db.internal:5432/app -c 'select 1'"
PUSH_ERROR = (
    f"remote: Permission to acme/shop.git denied to deploy-bot. | fatal: unable to access "
    f"'https://x-access-token:{GITHUB}@github.com/acme/shop.git/': The requested URL returned "
    "error: 403"
)
PSQL_ERROR = (
    f"psql: error: connection to postgres://admin:{DB_PASSWORD}@db.internal:5432/app failed: "
    'FATAL:  password authentication failed for user "admin"'
)
CURL = f'curl -H "Authorization: Bearer {JWT}" https://api.acme.io/v2/orders'
EDIT = f"-STRIPE_SECRET_KEY=sk_test_placeholder | +STRIPE_SECRET_KEY={STRIPE}"
ENV_PATH = f"config/AWS_SECRET_ACCESS_KEY={AWS}.env"


def test_the_texts_carry_what_current_redaction_removes() -> None:
    for text, secret in (
        (PUSH, GITHUB),
        (PSQL, DB_PASSWORD),
        (CURL, JWT),
        (EDIT, STRIPE),
        (ENV_PATH, AWS),
        (PUSH_ERROR, GITHUB),
        (PSQL_ERROR, DB_PASSWORD),
        (f"psql: postgres://admin:{DB_PASSWORD}@db.internal:<n>/app rejected", DB_PASSWORD),
    ):
        assert secret in text and secret not in redact(text)


def old_store(path: Path) -> None:
    """A schema-4 store as pokayokay wrote it before redaction and auto-vacuum: every row
    inserted directly, secrets and all."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    for statements in MIGRATIONS[:4]:
        for statement in statements:
            if not statement.startswith("--"):
                conn.execute(statement)
    conn.execute("PRAGMA user_version=4")
    sig_push = f"git push failed: {PUSH_ERROR}"
    sig_psql = f"psql: postgres://admin:{DB_PASSWORD}@db.internal:<n>/app rejected"
    sig_psql_other = "psql: postgres://admin:An0ther-Pa55word-7@db.internal:<n>/app rejected"
    rows = [
        (NOW - 300, "s1", "Bash", PUSH, sig_push, "git", [ENV_PATH], PUSH_ERROR, 128, "t1"),
        (NOW - 200, "s2", "Bash", PUSH, sig_push, "git", [], PUSH_ERROR, 128, "t2"),
        (NOW - 100, "s1", "Bash", PSQL, sig_psql, "db", [], PSQL_ERROR, 2, "t3"),
        (
            NOW - 50,
            "s3",
            "Bash",
            PSQL_OTHER,
            sig_psql_other,
            "db",
            [],
            "password rejected",
            2,
            "t4",
        ),
        (NOW - 40, "s3", "Bash", CURL, "curl: (22) 401", "network", [], CURL, 22, None),
    ]
    for ts, sid, tool, command, sig, cat, paths, excerpt, code, use in rows:
        conn.execute(
            "INSERT INTO failures (ts, session_id, tool, command, signature, category, paths,"
            " excerpt, exit_code, tool_use_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (ts, sid, tool, command, sig, cat, json.dumps(paths), excerpt, code, use),
        )
    for sig, cat, occ, sessions, command, excerpt in (
        (sig_push, "git", 2, 2, PUSH, PUSH_ERROR),
        (sig_psql, "db", 1, 1, PSQL, PSQL_ERROR),
        (sig_psql_other, "db", 1, 1, PSQL_OTHER, "rejected"),
        ("curl: (22) 401", "network", 1, 1, CURL, CURL),
    ):
        conn.execute(
            "INSERT INTO signatures VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (sig, cat, occ, sessions, NOW - 300, NOW - 40, command, excerpt),
        )
    for sig, sid in ((sig_push, "s1"), (sig_push, "s2"), (sig_psql, "s1"), (sig_psql_other, "s3")):
        conn.execute("INSERT INTO group_sessions VALUES (?, ?, ?)", (sig, sid, NOW - 40))
    conn.execute("INSERT INTO group_paths VALUES (?, 'fail', ?, 1)", (sig_push, ENV_PATH))
    conn.execute("INSERT INTO group_paths VALUES (?, 'fix', 'src/db.py', 2)", (sig_psql,))
    conn.execute("INSERT INTO group_paths VALUES (?, 'fix', 'src/db.py', 3)", (sig_psql_other,))
    conn.execute("INSERT INTO group_fix_commands VALUES (?, ?, 1)", (sig_push, PUSH))
    conn.execute("INSERT INTO episodes VALUES (1, 's3', ?, ?)", (CURL, NOW - 40))
    conn.execute("INSERT INTO episode_signatures VALUES (1, ?)", (sig_psql,))
    conn.execute("INSERT INTO edits VALUES (1, 's3', 'deploy/.env', ?, ?)", (NOW - 30, EDIT))
    conn.execute(
        "INSERT INTO group_corrections VALUES (?, ?, ?, 'flags', 1, ?)",
        (sig_push, PUSH, PUSH + " --force-with-lease", NOW - 20),
    )
    conn.execute(
        "INSERT INTO group_fix_edits VALUES (?, 'deploy/.env', ?, 1, ?)", (sig_psql, EDIT, NOW)
    )
    conn.execute(
        "INSERT INTO fixes VALUES (1, 's1', ?, ?, ?, ?)",
        (NOW - 10, sig_psql, PSQL, json.dumps([ENV_PATH])),
    )
    conn.execute(
        "INSERT INTO rule_loads VALUES (1, ?, 's1', '.claude/rules/pokayokay/git.md', ?)",
        (NOW - 5, ENV_PATH),
    )
    conn.close()


def files_holding_secrets(root: Path) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        data = path.read_bytes()
        hits = [s for s in SECRETS if s.encode() in data]
        if hits:
            found[str(path.relative_to(root))] = hits
    return found


def store_path(project: Path) -> Path:
    key = resolve_memory_location(project).project_key
    return FailureStore.for_project(key).path


def test_an_old_store_keeps_its_secrets_until_upgraded_outside_the_hooks(
    project: Path, isolated_home: Path
) -> None:
    path = store_path(project)
    old_store(path)
    state = isolated_home / "pokayokay-state"
    assert set(files_holding_secrets(state)) >= {str(path.relative_to(state))}
    with FailureStore(path) as store:  # what a hook does: open and write, nothing more
        assert upgrade.due(store) == [upgrade.INCREMENTAL_VACUUM, upgrade.REDACT]
        store.record_rule_load("s9", ".claude/rules/pokayokay/git.md", "src/app.py", NOW)
        assert upgrade.due(store) == [upgrade.INCREMENTAL_VACUUM, upgrade.REDACT]
    assert files_holding_secrets(state)

    assert cli.main(["upgrade-store", "--project", str(project)]) == 0
    assert files_holding_secrets(state) == {}  # the db, its WAL and every other file
    for suffix in ("-wal", "-shm"):
        assert (
            not Path(f"{path}{suffix}").exists()
            or SECRETS[0].encode() not in Path(f"{path}{suffix}").read_bytes()
        )
    with closing(sqlite3.connect(path)) as conn, conn:
        assert conn.execute("PRAGMA auto_vacuum").fetchone()[0] == 2  # incremental
        assert conn.execute("SELECT count(*) FROM store_upgrades").fetchone()[0] == 0
        redacted = conn.execute("SELECT command FROM failures WHERE tool_use_id = 't1'").fetchone()
    assert redacted[0] == redact(PUSH)


def test_groups_that_differed_only_by_a_secret_are_merged(project: Path) -> None:
    path = store_path(project)
    old_store(path)
    with FailureStore(path) as store:
        report = upgrade.run(store)
        assert report.finished == [upgrade.REDACT, upgrade.INCREMENTAL_VACUUM]
        assert report.vacuumed and report.rewritten > 0
        groups = {g.signature: g for g in store.failure_groups()}
        merged = [g for s, g in groups.items() if s.startswith("psql: postgres://")]
    [group] = merged  # two passwords, one mistake
    assert (group.occurrences, group.sessions) == (2, 2)
    assert "[redacted:" in group.signature
    with closing(sqlite3.connect(path)) as conn, conn:
        fix_paths = conn.execute(
            "SELECT count FROM group_paths WHERE signature = ? AND kind = 'fix'",
            (group.signature,),
        ).fetchall()
        assert fix_paths == [(5,)]  # 2 + 3: the counts of both
        [(paths,)] = conn.execute("SELECT paths FROM fixes").fetchall()
        assert json.loads(paths) == [redact(ENV_PATH)]


def test_a_new_store_needs_no_upgrade(tmp_path: Path) -> None:
    with FailureStore(tmp_path / "failures.db") as store:
        store.record_rule_load("s1", ".claude/rules/x.md", None, NOW)
        assert upgrade.due(store) == []
        assert upgrade.run(store).finished == []


def _interrupting(after: int) -> Any:
    real = upgrade._clean
    calls = [0]

    def clean(value: object) -> object:
        calls[0] += 1
        if calls[0] == after:
            raise KeyboardInterrupt  # the process is stopped mid-batch
        return real(value)

    return clean


@pytest.mark.parametrize("stop_after", [1, 7, 25, 60])
def test_small_batches_interrupted_anywhere_finish_the_same(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stop_after: int
) -> None:
    reference = tmp_path / "reference" / "failures.db"
    old_store(reference)
    with FailureStore(reference) as store:
        upgrade.run(store)
        expected = sorted(g.signature for g in store.failure_groups())

    path = store_path(project)
    old_store(path)
    monkeypatch.setattr(upgrade, "BATCH", 2)
    monkeypatch.setattr(upgrade, "_clean", _interrupting(stop_after))
    with FailureStore(path) as store, pytest.raises(KeyboardInterrupt):
        upgrade.run(store)
    monkeypatch.undo()
    monkeypatch.setattr(upgrade, "BATCH", 2)
    runs = 0
    with FailureStore(path) as store:
        while upgrade.due(store):
            upgrade.run(store, budget=0.0 if runs % 2 else 0.05)
            runs += 1
            assert runs < 200
        assert sorted(g.signature for g in store.failure_groups()) == expected
    assert files_holding_secrets(path.parent) == {}


def test_one_upgrader_at_a_time(project: Path) -> None:
    import fcntl
    import os

    path = store_path(project)
    old_store(path)
    fd = os.open(f"{path}{upgrade.LOCK_SUFFIX}", os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        with FailureStore(path) as store:
            report = upgrade.run(store)
            assert report.busy and report.left == [upgrade.INCREMENTAL_VACUUM, upgrade.REDACT]
    finally:
        os.close(fd)


def test_session_end_hands_the_upgrade_to_a_detached_process(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[list[str]] = []
    monkeypatch.setattr(session, "_detach_command", lambda args, why: started.append(args))
    location = resolve_memory_location(project)
    session._upgrade_store_if_due(project, location, None)
    assert started == []  # no store yet
    with FailureStore(store_path(project)) as store:
        store.record_rule_load("s1", ".claude/rules/x.md", None, NOW)
    session._upgrade_store_if_due(project, location, None)
    assert started == []  # a new store: nothing due
    store_path(project).unlink()
    old_store(store_path(project))
    session._upgrade_store_if_due(project, location, None)
    [args] = started
    assert args[:3] == ["upgrade-store", "--quiet", "--project"]
    with FailureStore(store_path(project)) as store:
        assert upgrade.due(store)  # the hook itself upgraded nothing


def test_a_command_that_reads_the_store_upgrades_it_first(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old_store(store_path(project))
    assert cli.main(["failures", "--project", str(project)]) == 0
    out, err = capsys.readouterr()
    assert "upgrading the failure store once" in err
    assert not any(secret in out for secret in SECRETS)
    with FailureStore(store_path(project)) as store:
        assert upgrade.due(store) == []


def test_a_reader_spends_a_bounded_time_and_the_rest_waits(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from pokayokay.cli import store_upgrade

    old_store(store_path(project))
    monkeypatch.setattr(store_upgrade, "READER_BUDGET", 0.0)
    assert cli.main(["status", "--project", str(project)]) == 0
    assert "continues next time" in capsys.readouterr().err
    with FailureStore(store_path(project)) as store:
        assert upgrade.due(store) == [upgrade.INCREMENTAL_VACUUM, upgrade.REDACT]
    assert cli.main(["upgrade-store", "--project", str(project)]) == 0
    assert capsys.readouterr().out.startswith("Failure store upgraded: redact, incremental-vacuum")
    assert files_holding_secrets(store_path(project).parent) == {}
