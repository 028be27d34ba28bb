"""The benchmark runner's structure: row names unique and listed by ``run.py --list``, every
hook row built through ``suites.common.hook_case`` and wired as Claude Code would run it.

Nothing here times anything: speed lives in benchmarks/run.py, never in assertions."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.fixtures.lab import Lab
from benchmarks.harness import FLOOR, Case
from benchmarks.suites import all_specs
from pokayokay.hooks.events import HOOKED_EVENTS

# The benchmarks are a dev tool CI runs on its main Python only (decision 0155).
pytestmark = pytest.mark.one_python

REPO = Path(__file__).resolve().parents[2]
BENCHMARKS = REPO / "benchmarks"


@pytest.fixture
def lab(tmp_path: Path) -> Lab:
    return Lab(tmp_path / "lab")


def test_row_names_are_unique_and_run_py_lists_them_in_order(lab: Lab) -> None:
    names = [spec.name for spec in all_specs(lab)]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
    assert names[0] == FLOOR
    listed = subprocess.run(
        [sys.executable, str(BENCHMARKS / "run.py"), "--list"],
        capture_output=True,
        text=True,
        check=True,
        cwd=lab.root,
    ).stdout.splitlines()
    assert listed == names
    # The wrappers people already type select through the same names.
    assert any(n.startswith("hook UserPromptSubmit (recall") for n in listed)
    assert any(n.startswith("ages on ") for n in listed)


@pytest.mark.slow
def test_every_hook_row_is_a_hook_case_wired_like_claude_code(lab: Lab) -> None:
    """Builds every hook row (fixtures included, a few seconds) without running it."""
    hooked = {spec.event for spec in HOOKED_EVENTS}
    hook_rows = [spec for spec in all_specs(lab) if spec.name.startswith("hook ")]
    assert len(hook_rows) >= 15
    for spec in hook_rows:
        case = spec.build(lab, 1)
        assert isinstance(case, Case), spec.name
        assert case.name == spec.name
        assert case.hook_event is not None, f"{spec.name} was not built by hook_case"
        assert case.argv[-1] == case.hook_event, case.argv
        assert spec.name.startswith(f"hook {case.hook_event} "), (spec.name, case.hook_event)
        # Claude Code runs the hook from the project, and says so in CLAUDE_PROJECT_DIR.
        assert case.env["CLAUDE_PROJECT_DIR"] == str(case.cwd)
        assert case.cwd.is_relative_to(lab.root)
        for run in (0, 1):
            payload = json.loads(case.payload(run))
            assert payload["hook_event_name"] == case.hook_event, spec.name
            if "cwd" in payload and payload["cwd"] != "/home/dev/project":
                assert payload["cwd"] == str(case.cwd), spec.name  # a moved sample
        if "unknown event" in spec.name:
            assert case.hook_event not in hooked
        else:
            assert case.hook_event in hooked, f"{spec.name}: pokayokay does not hook it"


def test_only_hook_case_builds_a_case_that_runs_a_hook() -> None:
    """A ``Case(...)`` written by hand with a ``"hook"`` argument would bypass hook_case (and
    its project wiring); only hook_case itself may construct such a Case."""
    offenders = []
    for path in sorted(BENCHMARKS.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Case"):
                continue
            strings = {
                n.value
                for arg in node.args[:2]
                for n in ast.walk(arg)
                if isinstance(n, ast.Constant)
            }
            if "hook" in strings:
                offenders.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert offenders == []


def test_every_benchmark_script_is_documented() -> None:
    """A script next to run.py (a wrapper, or a simulation such as team_size.py) is reachable
    only if benchmarks/README.md says how to run it."""
    readme = (BENCHMARKS / "README.md").read_text(encoding="utf-8")
    scripts = [
        p.name
        for p in sorted(BENCHMARKS.glob("*.py"))
        if '__name__ == "__main__"' in p.read_text(encoding="utf-8")
    ]
    assert "team_size.py" in scripts and "run.py" in scripts
    assert [name for name in scripts if f"`{name}`" not in readme] == []
