"""The spool writer: one bounded record per payload, appended with one write, importing nothing
but sys and os; sessions marked so that only successes that may close a fix episode are kept."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from helpers.paths import FIXTURE_SAMPLES_DIR, REPO_ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from pokayokay.infra import spool

SPOOL_PY = REPO_ROOT / "pokayokay" / "infra" / "spool.py"
SESSION = "0ebb4b7c-7011-44b6-afdb-8302b6c943e8"


def sample_bytes(name: str) -> bytes:
    return (FIXTURE_SAMPLES_DIR / name).read_bytes()


def run_spool(
    event: str, data: bytes, project: Path, *flags: str
) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, CLAUDE_PROJECT_DIR=str(project))
    return subprocess.run(
        [sys.executable, "-S", "-E", *flags, str(SPOOL_PY), event],
        input=data, capture_output=True, env=env, timeout=60,
    )


def records(project: Path) -> list[bytes]:
    raw = (Path(spool.spool_dir(str(project))) / spool.ACTIVE).read_bytes()
    return [chunk for chunk in raw.split(spool.MAGIC) if chunk]


def test_a_failure_is_appended_as_one_record_and_marks_the_session(tmp_path: Path) -> None:
    data = sample_bytes("PostToolUseFailure.Bash.json")
    result = run_spool("PostToolUseFailure", data, tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    [record] = records(tmp_path)
    header, body = record.split(b"\n", 1)
    event, ts_ns, where, size, check = header.split(b" ")
    assert event == b"PostToolUseFailure"
    assert bytes.fromhex(where.decode()).decode() == str(tmp_path)
    assert body == data + b"\n" and int(size) == len(data)
    assert int(check, 16) == spool.check_value(header.rsplit(b" ", 1)[0], data)
    assert int(ts_ns) > 1_700_000_000 * 10**9
    assert (Path(spool.spool_dir(str(tmp_path))) / spool.OPEN_DIR / SESSION).is_file()


def test_a_success_is_spooled_only_after_a_failure_in_its_session(tmp_path: Path) -> None:
    success = sample_bytes("PostToolUse.Bash.json")
    session = json.loads(success)["session_id"]
    assert run_spool("PostToolUse", success, tmp_path).returncode == 0
    assert not (Path(spool.spool_dir(str(tmp_path))) / spool.ACTIVE).exists()
    failure = json.loads(sample_bytes("PostToolUseFailure.Bash.json"))
    failure["session_id"] = session
    run_spool("PostToolUseFailure", json.dumps(failure).encode(), tmp_path)
    run_spool("PostToolUse", success, tmp_path)
    assert [r.split(b" ", 1)[0] for r in records(tmp_path)] == [
        b"PostToolUseFailure", b"PostToolUse",
    ]


def test_a_batch_without_failures_marks_no_session(tmp_path: Path) -> None:
    batch = sample_bytes("PostToolBatch.json")
    assert not any(hint in batch for hint in spool.BATCH_FAILURE_HINTS)
    run_spool("PostToolBatch", batch, tmp_path)
    assert len(records(tmp_path)) == 1
    assert not (Path(spool.spool_dir(str(tmp_path))) / spool.OPEN_DIR).exists()


def imported(result: subprocess.CompletedProcess[bytes]) -> set[str]:
    names = set()
    for line in result.stderr.decode().splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip())
    return names


def test_the_entry_imports_nothing_heavy(tmp_path: Path) -> None:
    result = run_spool(
        "PostToolUseFailure", sample_bytes("PostToolUseFailure.Bash.json"), tmp_path, "-X",
        "importtime",
    )
    assert result.returncode == 0
    names = imported(result)
    assert "os" in names or not names  # os may be preloaded
    assert not names & {"json", "re", "sqlite3", "pathlib", "typing"}
    # of pokayokay, only the state folder's rules (os and sys); the package entries import the
    # first two (and __future__, which pokayokay.infra's value classes need) anyway
    ours = {name for name in names if name.split(".")[0] == "pokayokay"}
    assert ours == {"pokayokay", "pokayokay.infra", "pokayokay.infra.state"}
    assert names - ours - {"__future__"} <= set(sys.builtin_module_names) | {
        "os", "posixpath", "genericpath", "stat", "_collections_abc", "abc", "codecs", "io",
        "encodings", "encodings.aliases", "encodings.utf_8", "_sitebuiltins", "ntpath",
        "_frozen_importlib_external", "zipimport", "imported package",  # the header line
    }


def test_a_15_mib_error_is_cut_head_and_tail_into_valid_json(tmp_path: Path) -> None:
    payload = json.loads(sample_bytes("PostToolUseFailure.Bash.json"))
    head = "FAILED tests/test_cart.py::test_add - assert 3 == 4\n"
    tail = "\n=== 1 failed in 9.1s ===\nEND-OF-OUTPUT"
    payload["error"] = "Exit code 1\n" + head + "x" * (15 << 20) + tail
    data = json.dumps(payload).encode()
    result = run_spool("PostToolUseFailure", data, tmp_path)
    assert result.returncode == 0, result.stderr
    [record] = records(tmp_path)
    body = record.split(b"\n", 1)[1][:-1]
    assert len(body) <= spool.RECORD_MAX
    spooled = json.loads(body)
    assert spooled["error"].startswith("Exit code 1\n" + head)
    assert spooled["error"].endswith(tail)
    assert "characters cut" in spooled["error"]
    assert spooled["tool_input"] == payload["tool_input"]


@settings(max_examples=40, deadline=None)
@given(
    unit=st.text(
        alphabet=st.sampled_from(['"', "\\", "\n", "a", "é", "😀", "\u001e", "\t", " "]),
        min_size=1, max_size=200,
    ),
    other=st.dictionaries(st.text(max_size=5), st.text(max_size=20), max_size=4),
)
def test_bounding_keeps_every_payload_valid_and_its_short_fields_intact(
    unit: str, other: dict[str, str]
) -> None:
    text = unit * (spool.RECORD_MAX // len(unit) + 2)
    payload = {"error": text, "tool_input": other, "tool_name": "Bash"}
    bounded = json.loads(spool.bound_payload(json.dumps(payload).encode()))
    assert bounded["tool_input"] == other and bounded["tool_name"] == "Bash"
    assert bounded["error"].startswith(text[: spool.FIELD_MAX // 2])
    assert bounded["error"].endswith(text[-(spool.FIELD_MAX // 2) :])
    assert len(bounded["error"]) < spool.FIELD_MAX + 100


def test_session_ids_are_read_without_parsing() -> None:
    assert spool.session_of(sample_bytes("PostToolUse.Bash.json")[:4096]) == json.loads(
        sample_bytes("PostToolUse.Bash.json"))["session_id"]
    assert spool.session_of(b'{"session_id": "../../etc"}') == ""
    assert spool.session_of(b'{"tool_name": "Bash"}') == ""


def test_an_unwritable_state_folder_fails_open_in_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "state"
    blocker.write_text("a file where the state folder should be")
    env = dict(os.environ, POKAYOKAY_HOME=str(blocker), CLAUDE_PROJECT_DIR=str(tmp_path))
    result = subprocess.run(
        [sys.executable, "-S", "-E", str(SPOOL_PY), "PostToolUseFailure"],
        input=sample_bytes("PostToolUseFailure.Bash.json"), capture_output=True, env=env,
        timeout=60,
    )
    assert result.returncode == 1
    [line] = result.stderr.decode().splitlines()
    assert line.startswith("pokayokay: PostToolUseFailure hook skipped:")


def test_other_events_and_empty_input_do_nothing(tmp_path: Path) -> None:
    assert run_spool("SessionEnd", b"{}", tmp_path).returncode == 0
    assert run_spool("PostToolUseFailure", b"  \n", tmp_path).returncode == 0
    assert not Path(spool.spool_dir(str(tmp_path))).exists()
