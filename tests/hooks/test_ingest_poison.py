"""Issue 25 items 2 and 3: a poison or torn spool record never stops capture.

A record that kills its ingester, runs over its time budget or fails is kept in the quarantine
(raw, 0600, listed by ``doctor``) and the records behind it are stored; a torn write (a writer
cut short by a file-size limit) costs that record alone; a spool written before the upgrade is
still read once."""

from __future__ import annotations

import json
import multiprocessing
import os
import resource
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from helpers.paths import FIXTURE_SAMPLES_DIR, REPO_ROOT

from pokayokay.cli import main as cli
from pokayokay.failures.store import FailureStore
from pokayokay.hooks import ingest
from pokayokay.infra import spool, spool_quarantine

SAMPLE_ROOT = "/home/dev/project"
SPOOL_PY = REPO_ROOT / "pokayokay" / "infra" / "spool.py"


def failure(project: Path, n: int, error: str = "") -> dict[str, Any]:
    text = (FIXTURE_SAMPLES_DIR / "PostToolUseFailure.Bash.json").read_text(encoding="utf-8")
    payload: dict[str, Any] = json.loads(text.replace(SAMPLE_ROOT, str(project)))
    payload["tool_input"] = {"command": f"make target-{n}"}
    payload["tool_use_id"] = f"toolu_{n:04d}"
    payload["error"] = error or f"Exit code 2\nmake: *** No rule to make target 'target-{n}'."
    return payload


def hook(project: Path, payload: dict[str, Any], limit: int | None = None) -> Any:
    """The registered PostToolUseFailure command (the spool file, no site); ``limit``: the
    largest file it may write (RLIMIT_FSIZE), as a full disk or a quota would cut it short."""

    def cap() -> None:
        if limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    env = dict(os.environ, CLAUDE_PROJECT_DIR=str(project))
    return subprocess.run(
        [sys.executable, "-S", "-E", str(SPOOL_PY), "PostToolUseFailure"],
        input=json.dumps(payload).encode(), capture_output=True, env=env, timeout=60,
        preexec_fn=cap,
    )  # fmt: skip


def commands(project: Path) -> list[str]:
    with FailureStore.for_project(project) as store:
        return sorted(str(f.command) for f in store.failures())


def where(project: Path) -> str:
    return spool.spool_dir(str(project))


def kept(project: Path) -> list[spool_quarantine.Quarantined]:
    return sorted(spool_quarantine.listing(), key=lambda item: item.path)


def test_a_torn_write_costs_that_record_alone(project: Path) -> None:
    """5 records, one cut short by a file-size limit, 20 more: 25 of 26 stored (5 before)."""
    for n in range(5):
        assert hook(project, failure(project, n)).returncode == 0
    active = Path(where(project)) / spool.ACTIVE
    size = active.stat().st_size
    big = failure(project, 5, "Exit code 1\n" + "x" * 200_000)
    torn = hook(project, big, limit=size + 50_000)
    assert torn.returncode == 1  # fails open, never silently: one stderr line
    assert torn.stderr.decode().count("\n") == 1 and b"short write" in torn.stderr
    assert active.stat().st_size == size + 50_000
    for n in range(6, 26):
        assert hook(project, failure(project, n)).returncode == 0
    result = ingest.ingest(where(project))
    assert (result.done, result.quarantined, result.left) == (25, 1, False)
    assert commands(project) == sorted(f"make target-{n}" for n in range(26) if n != 5)
    [item] = kept(project)
    assert item.reason == spool_quarantine.TORN and item.size == 50_000
    raw = Path(item.path).read_bytes()
    assert raw.startswith(spool.MAGIC) and b"x" * 1000 in raw
    assert stat.S_IMODE(os.stat(item.path).st_mode) == 0o600


def _hang_on_poison() -> None:
    from pokayokay.hooks import capture

    real = capture.post_tool_use_failure

    def handler(payload: dict[str, Any], event: str) -> str:
        if "POISON" in str(payload.get("error")):
            time.sleep(600)  # what a runaway pattern does: the ingester is killed meanwhile
        return real(payload, event)

    capture.post_tool_use_failure = handler


def _ingest_hanging(folder: str) -> None:
    _hang_on_poison()
    ingest.ingest(folder, wait=10.0)
    os._exit(0)


def _in_progress(folder: str) -> tuple[int, int]:
    """(offset, attempts) of the record marked in progress; (0, 0): none."""
    try:
        fields = (Path(folder) / spool.INFLIGHT).read_bytes().split()
    except FileNotFoundError:
        return 0, 0
    return (int(fields[1]), int(fields[2])) if len(fields) == 3 else (0, 0)


def _kill_when_in_progress(folder: str, offset: int, attempts: int) -> None:
    """Start a hanging ingester and kill it once it is handling the record at ``offset``."""
    child = multiprocessing.get_context("fork").Process(target=_ingest_hanging, args=(folder,))
    child.start()
    give_up = time.monotonic() + 60
    while _in_progress(folder) != (offset, attempts):
        assert time.monotonic() < give_up, "the ingester never reached the poison record"
        assert child.is_alive()
        time.sleep(0.02)
    assert child.pid is not None
    os.kill(child.pid, signal.SIGKILL)
    child.join(30)


def test_a_record_that_kills_its_ingester_is_quarantined_and_capture_goes_on(
    project: Path,
) -> None:
    """Issue 25 item 2: 4 killed ingesters used to store 0 of the 10 failures behind it."""
    assert hook(project, failure(project, 0)).returncode == 0
    poison = failure(project, 1, "Exit code 1\nPOISON " + " " * 8000)
    assert hook(project, poison).returncode == 0
    for n in range(2, 12):
        assert hook(project, failure(project, n)).returncode == 0
    folder = where(project)
    first = (Path(folder) / spool.ACTIVE).read_bytes().index(spool.MAGIC, 1)
    for attempt in (1, 2):  # two ingesters die on the poison record (a hook's timeout kills them)
        _kill_when_in_progress(folder, first, attempt)
    assert commands(project) == ["make target-0"]
    result = ingest.ingest(folder)  # the next ingester quarantines it and takes in the rest
    assert (result.done, result.skipped, result.quarantined) == (10, 1, 1)
    assert commands(project) == sorted(f"make target-{n}" for n in range(12) if n != 1)
    [item] = kept(project)
    assert item.reason == spool_quarantine.STOPPED
    raw = Path(item.path).read_bytes()
    assert raw.startswith(spool.MAGIC) and b"POISON" in raw
    assert not ingest.pending(folder)


def test_one_dead_ingester_is_not_enough_to_quarantine_a_record(project: Path) -> None:
    for n in range(3):
        assert (
            hook(project, failure(project, n, "" if n != 1 else "Exit code 1\nPOISON")).returncode
            == 0
        )
    folder = where(project)
    first = (Path(folder) / spool.ACTIVE).read_bytes().index(spool.MAGIC, 1)
    _kill_when_in_progress(folder, first, 1)
    result = ingest.ingest(folder)
    assert (result.done, result.quarantined) == (2, 0)
    assert commands(project) == [f"make target-{n}" for n in range(3)]


def test_a_record_over_its_time_budget_is_quarantined(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pokayokay.failures import classify

    real = classify.classify

    def slow(tool: str, command: str | None, error: str, *rest: Any) -> str:
        if "SLOW" in error:
            time.sleep(0.4)
        return real(tool, command, error, *rest)

    monkeypatch.setattr(classify, "classify", slow)
    monkeypatch.setattr(ingest, "RECORD_BUDGET", 0.2)
    for n in range(4):
        error = "Exit code 1\nSLOW stage" if n == 1 else ""
        assert hook(project, failure(project, n, error)).returncode == 0
    result = ingest.ingest(where(project))
    assert (result.done, result.skipped, result.quarantined) == (3, 1, 1)
    assert commands(project) == ["make target-0", "make target-2", "make target-3"]
    [item] = kept(project)
    assert item.reason == spool_quarantine.OVER_BUDGET and b"SLOW" in Path(item.path).read_bytes()
    log = (Path(os.environ["POKAYOKAY_HOME"]) / "logs" / "pokayokay.log").read_text()
    # classification runs after the mistakes are found (its first mistake decides, 0080)
    assert "over the per-record time budget before finding paths" in log


def test_a_record_that_fails_is_kept_and_doctor_lists_it(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = where(project)
    os.makedirs(folder)
    bad = spool.encode_record("PostToolUseFailure", str(project), 1, b"{not json")
    with open(os.path.join(folder, spool.ACTIVE), "ab") as fh:
        fh.write(bad)
    assert hook(project, failure(project, 1)).returncode == 0
    result = ingest.ingest(folder)
    assert (result.done, result.skipped, result.quarantined) == (1, 1, 1)
    [item] = kept(project)
    assert (item.reason, Path(item.path).read_bytes()) == (spool_quarantine.FAILED, bad)
    cli.main(["doctor", "--project", str(project)])
    out = capsys.readouterr().out
    assert "[warn] spool: 1 spooled item(s) could not be taken in" in out
    assert f"[warn] spool: kept: {item.path} (failed, {len(bad)} bytes)" in out


def test_doctor_says_so_when_nothing_was_kept_aside(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cli.main(["doctor", "--project", str(project)])
    assert "[ok  ] spool: no spooled tool call was kept aside" in capsys.readouterr().out


def old_record(event: str, project: Path, ts_ns: int, payload: bytes) -> bytes:
    """What the previous version wrote (``\\x1epky1``, no check value)."""
    hexed = str(project).encode().hex().encode()
    return b"\x1epky1 %s %d %s %d\n%s\n" % (event.encode(), ts_ns, hexed, len(payload), payload)


def test_a_spool_written_before_the_upgrade_is_read_once(project: Path) -> None:
    folder = where(project)
    os.makedirs(folder)
    old = [old_record("PostToolUseFailure", project, n, json.dumps(failure(project, n)).encode())
           for n in range(6)]  # fmt: skip
    # a segment the old ingester claimed and took in two records of, with its old cursor
    with open(os.path.join(folder, spool.CLAIMED), "wb") as fh:
        fh.write(b"".join(old[:4]))
    with FailureStore.for_project(project):
        pass
    with open(os.path.join(folder, spool.CURSOR), "wb") as fh:
        fh.write(b"18f2a-1-abcd %d\n" % len(b"".join(old[:2])))
    with open(os.path.join(folder, spool.ACTIVE), "wb") as fh:
        fh.write(b"".join(old[4:]))
    assert hook(project, failure(project, 6)).returncode == 0  # the new version's writer
    result = ingest.ingest(folder)
    assert (result.done, result.quarantined) == (5, 0)
    assert commands(project) == sorted(f"make target-{n}" for n in range(2, 7))


def test_the_quarantine_is_bounded(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spool_quarantine, "MAX_FILES", 5)
    monkeypatch.setattr(spool_quarantine, "ITEM_MAX", 100)
    folder = where(project)
    for n in range(8):
        spool_quarantine.keep(folder, "seg", n * 1000, bytes([65 + n]) * 150, "torn")
        os.utime(os.path.join(spool_quarantine.folder_of(folder), f"seg@{n * 1000}.torn.rec"),
                 (1000 + n, 1000 + n))  # fmt: skip
    items = spool_quarantine.listing()
    want = [bytes([65 + n]) * 100 for n in range(7, 2, -1)]  # the newest five, cut
    assert [Path(item.path).read_bytes() for item in items] == want
    monkeypatch.setattr(spool_quarantine, "MAX_BYTES", 250)
    spool_quarantine.keep(folder, "seg", 9000, b"z" * 100, "torn")
    assert len(spool_quarantine.listing()) == 2


def test_a_transient_error_is_not_counted_as_a_dead_ingester(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store busy three times in a row leaves the record each time, never quarantines it."""
    import sqlite3

    from pokayokay.hooks import capture

    real = capture.post_tool_use_failure
    busy = [3]

    def handler(payload: dict[str, Any], event: str) -> str:
        if busy[0]:
            busy[0] -= 1
            raise sqlite3.OperationalError("database is locked")
        return real(payload, event)

    monkeypatch.setattr(capture, "post_tool_use_failure", handler)
    assert hook(project, failure(project, 0)).returncode == 0
    for _ in range(3):
        assert ingest.ingest(where(project)).left
    result = ingest.ingest(where(project))
    assert (result.done, result.quarantined, result.left) == (1, 0, False)
    assert commands(project) == ["make target-0"]


def test_concurrent_writers_some_cut_short_lose_only_their_own_records(project: Path) -> None:
    """Writers racing on one spool, a third of them under a file-size limit that cuts their
    write short (or refuses it): every writer that exited 0 is stored exactly once."""
    env = dict(os.environ, CLAUDE_PROJECT_DIR=str(project))
    assert hook(project, failure(project, 0)).returncode == 0  # the spool folder exists
    active = Path(where(project)) / spool.ACTIVE
    running: list[tuple[int, Any]] = []
    for n in range(1, 31):
        limit = active.stat().st_size + 600 if n % 3 == 0 else None

        def cap(limit: int | None = limit) -> None:
            if limit is not None:
                resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

        error = f"Exit code 2\nmake: *** No rule to make target 'target-{n}'." + "." * (n * 40)
        child = subprocess.Popen(
            [sys.executable, "-S", "-E", str(SPOOL_PY), "PostToolUseFailure"],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env=env, preexec_fn=cap,
        )  # fmt: skip
        assert child.stdin is not None
        child.stdin.write(json.dumps(failure(project, n, error)).encode())
        child.stdin.close()
        running.append((n, child))
    exited = {n: child.wait(60) for n, child in running}
    assert any(code != 0 for code in exited.values())  # some writes were cut short
    result = ingest.ingest(where(project))
    assert not result.left
    written = [0] + [n for n, code in exited.items() if code == 0]
    assert commands(project) == sorted(f"make target-{n}" for n in written)
    assert ingest.ingest(where(project)).done == 0
