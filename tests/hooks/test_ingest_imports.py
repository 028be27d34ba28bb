"""What ingesting a spooled failure imports (decision 0153): the prompt ingests a failure that
recurs for the first time (decision 0136), so every module the ingest loads is paid inside a
prompt. ``dataclasses`` (which brings ``inspect``, ``ast``, ``dis`` and ``tokenize``) and
``difflib`` (only for a failure naming a missing file) are not among them, nor, into a project
whose store exists, ``json`` (:mod:`pokayokay.infra.lean_json` reads and writes it), ``typing``
(the store's named tuples: :mod:`pokayokay.infra.named_tuple`) and ``pathlib`` (``urllib.parse``
and ``ipaddress`` with it): decision 0159 (creating the store, once per project, still takes its
lock file through pathlib)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.hooks.test_ingest import PYTEST_ERROR, failure, hook, stored

NOT_LOADED = ("dataclasses", "inspect", "ast", "dis", "difflib", "typing", "pathlib", "json")


def test_ingesting_a_spooled_failure_loads_no_heavy_module(project: Path) -> None:
    for name in ("tests/test_cart.py", "src/cart.py"):
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text("# placeholder\n")
    assert stored(project) == []  # the store exists (a project's first failure creates it)
    hook("PostToolUseFailure", failure(project, "pytest tests/test_cart.py", PYTEST_ERROR), project)
    script = (
        "import sys\n"
        "from pokayokay.hooks import ingest\n"
        f"result = ingest.ingest_project({str(project)!r})\n"
        f"loaded = [m for m in {NOT_LOADED!r} if m in sys.modules]\n"
        "import json\n"  # after the look: the script's own print needs it
        "print(json.dumps([result.done, loaded]))\n"
    )
    env = dict(os.environ, CLAUDE_PROJECT_DIR=str(project), PYTHONHASHSEED="0")
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, env=env, timeout=60, check=True
    ).stdout
    done, loaded = json.loads(out)
    assert done == 1 and len(stored(project)) == 1  # the failure was ingested, not skipped
    assert loaded == []

