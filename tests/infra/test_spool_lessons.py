"""The spool entry (what PostToolUseFailure runs once registered): `<private>` spans never reach
the spool file, and a failure with a known lesson gets it as additionalContext — through the real
script with `python -S -E`, as the registered hook command runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from helpers.paths import FIXTURE_SAMPLES_DIR, REPO_ROOT

from pokayokay.infra import lesson_lookup, spool
from pokayokay.rules.lessons import CommandLesson, lookup_content

SPOOL_PY = REPO_ROOT / "pokayokay" / "infra" / "spool.py"
BAD = "python -m pytest -q tests/test_cart.py"
GOOD = ".venv/bin/python -m pytest -q tests/test_cart.py"
SECRET = "ZEBRA-QUOKKA-7731"


def failure_payload(command: str, error: str) -> bytes:
    payload = json.loads((FIXTURE_SAMPLES_DIR / "PostToolUseFailure.Bash.json").read_text())
    payload["tool_input"] = {**payload["tool_input"], "command": command}
    payload["error"] = error
    return json.dumps(payload).encode()


def run_spool(data: bytes, project: Path, *flags: str) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, CLAUDE_PROJECT_DIR=str(project))
    return subprocess.run(
        [sys.executable, "-S", "-E", *flags, str(SPOOL_PY), "PostToolUseFailure"],
        input=data, capture_output=True, env=env, timeout=60, check=False,
    )


def spooled(project: Path) -> bytes:
    return (Path(spool.spool_dir(str(project))) / spool.ACTIVE).read_bytes()


def test_private_spans_never_reach_the_spool(tmp_path: Path) -> None:
    data = failure_payload(
        f"psql <private>--password {SECRET}</private> -c 'select 1'",
        f"Exit code 2\npsql: <private>token {SECRET}</private> rejected",
    )
    result = run_spool(data, tmp_path)
    assert (result.returncode, result.stderr) == (0, b"")
    raw = spooled(tmp_path)
    assert SECRET.encode() not in raw
    assert b"psql [private] -c 'select 1'" in raw  # the rest is kept, JSON still valid


def test_without_lessons_nothing_is_answered_and_json_is_not_imported(tmp_path: Path) -> None:
    result = run_spool(failure_payload(BAD, "Exit code 1\nNo module named pytest"), tmp_path,
                       "-X", "importtime")
    assert result.returncode == 0 and result.stdout == b""
    imported = {line.rsplit("|", 1)[1].strip() for line in result.stderr.decode().splitlines()
                if line.startswith("import time:") and "|" in line}
    assert not imported & {"json", "pokayokay.infra.lesson_lookup", "pokayokay.infra.lean_json"}


def test_a_known_failure_gets_its_lesson_from_the_spool_entry(tmp_path: Path) -> None:
    content = lookup_content([CommandLesson(BAD, 3, GOOD, "environment", (), 3)], 3)
    lesson_lookup.write_lookup([str(tmp_path)], content)
    result = run_spool(failure_payload(BAD, "Exit code 1\nNo module named pytest"), tmp_path)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)["hookSpecificOutput"]
    assert out == {
        "hookEventName": "PostToolUseFailure",
        "additionalContext": f"pokayokay: Run `{GOOD}`, not `{BAD}`: its dependencies live in "
        "`.venv`. It failed in 3 earlier sessions of this project "
        "too; the corrected form passed after it (3 times).",
    }
    assert BAD.encode() in spooled(tmp_path)  # and it was spooled all the same
    other = run_spool(failure_payload("make", "Exit code 2\nmake: *** [all] Error 2"), tmp_path)
    assert other.returncode == 0 and other.stdout == b""
