"""Stale lessons (issue 24 item 10): a rule whose files are all gone, or whose check passed in N
sessions in a row after it loaded, is flagged in ``status`` and ``report`` and retired by the
retirement policy. Real state: the hooks are driven with payloads captured from Claude Code
(PostToolUseFailure, InstructionsLoaded, SessionEnd), the store and the rule files are real."""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from helpers.hooks import run_hook
from helpers.hooks import sample_payload as sample
from hypothesis import given, settings
from hypothesis import strategies as st

from pokayokay.cli.rules import cmd_rules_list, cmd_rules_show
from pokayokay.config.settings import load_settings
from pokayokay.failures.model import Failure
from pokayokay.failures.store import FailureStore
from pokayokay.infra.locate import resolve_memory_location
from pokayokay.report.collect import collect
from pokayokay.report.text import render_text
from pokayokay.rules.claude_match import Matcher, normalise_patterns
from pokayokay.rules.staleness import (
    FILES_GONE,
    PASSED,
    clean_streak,
    files_gone,
    staleness,
)
from pokayokay.status import status

TEST_FILE = "tests/test_cart.py"
ERROR = (
    "Exit code 1\n"
    "FAILED tests/test_cart.py::test_total - AssertionError: assert 3 == 4\n"
    "1 failed in 0.12s"
)
N = 3  # graduation.stale_after_sessions in the project's committed settings
RULES = Path(".claude/rules/pokayokay")


@pytest.fixture
def project(project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (project / "tests").mkdir()
    (project / TEST_FILE).write_text("def test_total():\n    assert 3 == 4\n")
    (project / ".claude").mkdir()
    # retire_after_sessions far away: only staleness may retire the rule in these tests.
    (project / ".claude" / "pokayokay.md").write_text(
        f"---\ngraduation:\n  stale_after_sessions: {N}\n  retire_after_sessions: 50\n---\n"
    )
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    return project


def hook(event: str, payload: dict[str, Any]) -> None:
    assert run_hook(event, payload) == (0, "", "")


def failing_session(project: Path, session: str) -> None:
    """A session that ran the tests, failed, and ended."""
    hook(
        "PostToolUseFailure",
        sample(
            "PostToolUseFailure.Bash.json",
            project,
            session_id=session,
            tool_use_id=f"toolu_{session}",
            tool_input={"command": f"pytest {TEST_FILE}", "description": "run the tests"},
            error=ERROR,
        ),
    )
    hook("SessionEnd", sample("SessionEnd.other.json", project, session_id=session))


def loaded_session(project: Path, session: str, rule: Path, *, fails: bool = False) -> None:
    """A session in which Claude Code loaded ``rule`` for the test file (and the mistake
    happened again after that when ``fails``), then ended."""
    hook(
        "InstructionsLoaded",
        sample(
            "InstructionsLoaded.path_glob_match.json",
            project,
            session_id=session,
            file_path=str(rule),
            globs=[TEST_FILE],
            trigger_file_path=str(project / TEST_FILE),
        ),
    )
    if fails:
        failing_session(project, session)
    else:
        hook("SessionEnd", sample("SessionEnd.other.json", project, session_id=session))


def graduated(project: Path) -> Path:
    for i in range(3):
        failing_session(project, f"fail-{i}")
    (rule,) = sorted((project / RULES).glob("*.md"))
    return rule


class Views(NamedTuple):
    status_rule: dict[str, Any]
    status_text: str
    report_text: str


def views(project: Path) -> Views:
    location = resolve_memory_location(project)
    settings = load_settings(project)
    data = status(location, settings)
    (rule,) = [r for r in data["rules"] if r["pokayokay"]]
    from pokayokay.status import render_status

    report = collect(project, location, settings, since="30d")
    return Views(rule, render_status(data), render_text(report))


def archive(project: Path) -> str:
    path = resolve_memory_location(project).memory_dir / "rules-archive.md"
    return path.read_text(encoding="utf-8") if path.exists() else ""


def test_a_rule_whose_check_passed_in_n_loaded_sessions_in_a_row_is_flagged_then_retired(
    project: Path,
) -> None:
    rule = graduated(project)
    # Two quiet loaded sessions, then the mistake again after loading: the streak restarts.
    loaded_session(project, "load-1", rule)
    loaded_session(project, "load-2", rule)
    loaded_session(project, "load-3", rule, fails=True)
    assert rule.exists() and views(project).status_rule["stale"] is None
    # N - 1 quiet loaded sessions: not yet.
    for i in range(N - 1):
        loaded_session(project, f"quiet-{i}", rule)
    assert rule.exists()
    seen = views(project)
    assert seen.status_rule["stale"] is None and seen.status_rule["verdict"] == "recurred"
    # The N-th quiet session: stale. Before its SessionEnd, status and report say so.
    hook(
        "InstructionsLoaded",
        sample(
            "InstructionsLoaded.path_glob_match.json",
            project,
            session_id="quiet-last",
            file_path=str(rule),
            globs=[TEST_FILE],
            trigger_file_path=str(project / TEST_FILE),
        ),
    )
    seen = views(project)
    assert seen.status_rule["verdict"] == "stale"
    assert seen.status_rule["stale_kind"] == PASSED
    assert f"in the {N} sessions in a row that loaded it" in seen.status_rule["stale"]
    assert "  stale: its mistake has not happened" in seen.status_text
    assert f"[stale] {RULES / rule.name}" in seen.report_text
    assert "Stale: " in seen.report_text
    # Its SessionEnd retires it through the retirement policy: archived verbatim, file gone.
    text = rule.read_text(encoding="utf-8")
    hook("SessionEnd", sample("SessionEnd.other.json", project, session_id="quiet-last"))
    assert not rule.exists()
    kept = archive(project)
    assert "Stale (check passed)" in kept and text.rstrip("\n") in kept


def test_a_rule_whose_files_are_all_gone_is_flagged_then_retired(project: Path) -> None:
    rule = graduated(project)
    assert views(project).status_rule["paths"] == [f"/{TEST_FILE}"]
    assert views(project).status_rule["stale"] is None
    (project / TEST_FILE).rename(project / "tests" / "test_basket.py")  # renamed away
    # Whatever its loads said, nothing can load it any more.
    seen = views(project)
    assert seen.status_rule["verdict"] == "stale"
    assert seen.status_rule["stale_kind"] == FILES_GONE
    assert "no file of the project matches its paths" in seen.status_text
    assert f"[stale] {RULES / rule.name}" in seen.report_text
    # `rules list` and `rules show` say so too.
    listed = json.loads(cmd_rules_list(project, as_json=True)[1])
    (row,) = [r for r in listed["rules"] if r["managed"]]
    assert row["stale"] == seen.status_rule["stale"] and row["retire_due"] is True
    assert "stale: no file of the project" in cmd_rules_show(project, rule.stem, as_json=False)[1]
    text = rule.read_text(encoding="utf-8")
    hook("SessionEnd", sample("SessionEnd.other.json", project, session_id="after-rename"))
    assert not rule.exists()
    assert "Stale (files gone)" in archive(project) and text.rstrip("\n") in archive(project)


def test_a_rule_still_failing_is_never_stale(project: Path) -> None:
    rule = graduated(project)
    for i in range(N + 2):
        loaded_session(project, f"again-{i}", rule, fails=True)
    assert rule.exists() and views(project).status_rule["stale"] is None


# --- the pure parts ---------------------------------------------------------------------------


def test_files_gone_uses_claude_codes_matcher() -> None:
    files = ["src/cart.py", "docs/Guide.md"]
    assert not files_gone(["/src/cart.py"], files)
    assert not files_gone(["/docs/guide.md"], files)  # case-insensitive, like Claude Code
    assert files_gone(["/src/orders.py", "/tests/test_orders.py"], files)
    assert not files_gone(None, [])  # loads at every session start: never "gone"


_NAME = st.sampled_from(["a", "A", "b", "src", "x.py", "X.PY", "#c", "!d", " e", "f "])
_PATH = st.lists(_NAME, min_size=1, max_size=3).map("/".join)
_PATTERN = st.one_of(
    _PATH.map(lambda p: "/" + p), _PATH, _PATH.map(lambda p: p + "/"), _PATH.map(lambda p: p + "/*")
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_PATTERN, min_size=1, max_size=3), st.lists(_PATH, max_size=6))
def test_files_gone_agrees_with_the_matcher(patterns: list[str], files: list[str]) -> None:
    """The quick literal-path answer never disagrees with Claude Code's matcher."""
    normalised = normalise_patterns(patterns)
    matcher = Matcher(normalised)
    assert files_gone(normalised, files) == (
        bool(normalised) and not any(matcher.matches(f) for f in files)
    )


def test_staleness_thresholds() -> None:
    assert staleness(paths=["/a"], signatures=["s"], gone=False, streak=2, stale_after=3) is None
    found = staleness(paths=["/a"], signatures=["s"], gone=False, streak=3, stale_after=3)
    assert found is not None and found.kind == PASSED
    assert staleness(paths=["/a"], signatures=(), gone=False, streak=9, stale_after=3) is None
    gone = staleness(paths=["/a"], signatures=(), gone=True, streak=0, stale_after=3)
    assert gone is not None and gone.kind == FILES_GONE
    with pytest.raises(ValueError):
        staleness(paths=None, signatures=["s"], gone=False, streak=0, stale_after=0)


_EVENTS = st.lists(
    st.tuples(st.booleans(), st.integers(0, 5), st.integers(0, 100)), max_size=30
)


@settings(max_examples=60, deadline=None)
@given(_EVENTS)
def test_the_streak_matches_the_stores_sql(events: list[tuple[bool, int, int]]) -> None:
    """The pure count (status and report, over the store's rows) and the store's own SQL
    (SessionEnd's retirement) agree, and both mean "loaded sessions whose first load came
    after the last failure"."""
    rule, sig = ".claude/rules/pokayokay/r.md", "test:tests/test_cart.py::test_total"
    base = time.time() - 10_000
    home = Path(os.environ["POKAYOKAY_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(dir=home))
    with FailureStore(folder / "failures.db") as store:
        for n, (is_load, session, t) in enumerate(events):
            if is_load:
                store.record_rule_load(f"s{session}", rule, "tests/test_cart.py", base + t)
            else:
                failure = Failure(
                    base + t + 0.5, f"s{session}", "Bash", "pytest", sig, "testing",
                    ("tests/test_cart.py",), "assert 3 == 4", 1,
                )  # fmt: skip
                store.record_failure(failure, tool_use_id=f"toolu_{n}")
        loads, failures = store.rule_loads(), store.failures()
        sql = store.clean_streak(rule, [sig])
    pure = clean_streak(rule, [sig], loads, failures)
    last = max((f.ts for f in failures), default=float("-inf"))
    firsts: dict[str, float] = {}
    for load in loads:
        firsts[load.session_id] = min(firsts.get(load.session_id, load.ts), load.ts)
    assert pure == sql == sum(1 for t in firsts.values() if t > last)
