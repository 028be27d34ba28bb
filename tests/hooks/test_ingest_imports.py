"""What ingesting a spooled failure imports (decision 0153): the prompt ingests a failure that
recurs for the first time (decision 0136), so every module the ingest loads is paid inside a
prompt. ``dataclasses`` (which brings ``inspect``, ``ast``, ``dis`` and ``tokenize``) and
``difflib`` (only for a failure naming a missing file) are not among them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.hooks.test_ingest import PYTEST_ERROR, failure, hook, stored

NOT_LOADED = ("dataclasses", "inspect", "ast", "dis", "difflib")


def test_ingesting_a_spooled_failure_loads_no_heavy_module(project: Path) -> None:
    for name in ("tests/test_cart.py", "src/cart.py"):
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text("# placeholder\n")
    hook("PostToolUseFailure", failure(project, "pytest tests/test_cart.py", PYTEST_ERROR), project)
    script = (
        "import json, sys\n"
        "from pokayokay.hooks import ingest\n"
        f"result = ingest.ingest_project({str(project)!r})\n"
        f"print(json.dumps([result.done, [m for m in {NOT_LOADED!r} if m in sys.modules]]))\n"
    )
    env = dict(os.environ, CLAUDE_PROJECT_DIR=str(project), PYTHONHASHSEED="0")
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, env=env, timeout=60, check=True
    ).stdout
    done, loaded = json.loads(out)
    assert done == 1 and len(stored(project)) == 1  # the failure was ingested, not skipped
    assert loaded == []


def test_the_ingests_named_tuples_are_built_from_types_not_strings() -> None:
    """``typing.NamedTuple`` compiles each field's annotation that is a string (what ``from
    __future__ import annotations`` makes of every one) into a ``ForwardRef``: 52 ``compile()``
    calls for the ingest's eight named tuples, 0.34 floors inside the prompt that ingests
    (decision 0159). Their modules keep real types in the fields' annotations."""
    from pokayokay.failures.model import Correction, Failure, FailureGroup, FixEdit
    from pokayokay.failures.store_reads import RuleEffect, RuleLoad, SessionFix
    from pokayokay.infra.spool_quarantine import Quarantined

    for kind in (Failure, Correction, FixEdit, FailureGroup, RuleLoad, SessionFix, RuleEffect):
        assert not [a for a in kind.__annotations__.values() if isinstance(a, str)], kind
    assert not [a for a in Quarantined.__annotations__.values() if isinstance(a, str)]
