"""Every lesson pokayokay writes passes the rubric (tests/helpers/rubric.py), on the real lesson
corpus (tests/data/lesson_corpus/: 90 real failing tool outputs).

Each case recurs in 3 sessions through the real hooks, as Claude Code sends the calls, in a git
repository holding the case's files: once with no fix (the call fails in each session), once
with a fix between (the labelled correction run after it when it passed, else an edit to each
of the case's ``paths`` and the same command passing). The failure store then graduates
(:func:`pokayokay.rules.graduation.plan_graduation`, threshold 3) and the lesson lookup is
built (:func:`pokayokay.rules.lessons.lookup_content`): every lesson in every rule file, in
``recurring-failures.md`` and in every hook text is checked against the rubric.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from helpers.corpus import SESSION, fill, payload, project
from helpers.hooks import edit_payload, run_hook, sample_payload
from helpers.paths import DATA_DIR
from helpers.rubric import Source, Written, check, in_hook_text, in_markdown
from ruamel.yaml import YAML

from pokayokay.failures.model import FailureGroup
from pokayokay.failures.store import FailureStore
from pokayokay.rules.graduation import plan_graduation
from pokayokay.rules.lessons import command_lessons, lookup_content

CORPUS = DATA_DIR / "lesson_corpus" / "cases"
SESSIONS = 3
QUICK = (  # one case of each kind of lesson, for the unmarked run
    "pytest-wrong-interpreter-python3-m",
    "make-no-rule-tests-typo",
    "ruff-check-unused-imports",
    "make-ld-undefined-reference",
    "pytest-assertion-count",
    "tsc-ts2345-argument-type",
    "permission-denied-script-not-executable",
    "git-merge-conflict",
)


def load_cases() -> list[dict[str, Any]]:
    return [
        YAML(typ="safe").load(path.read_text(encoding="utf-8"))
        for path in sorted(CORPUS.glob("*.yaml"))
    ]


def _send(event: str, data: dict[str, Any], case: dict[str, Any]) -> None:
    code, _, err = run_hook(event, data)  # stdout: the lesson next to a failure, once known
    assert (code, err) == (0, ""), (case["id"], event, err)


def fix_of(case: dict[str, Any]) -> tuple[str, str] | None:
    """("correction", command) when the labelled correction passed, ("edit", command) when the
    case names files to fix, else None (nothing to simulate)."""
    fix = case.get("fix") or {}
    if fix.get("kind") == "correction" and fix.get("exit_code") == 0:
        return "correction", str(fix["command"])
    if case["paths"]:
        return "edit", str(case["command"])
    return None


def recur(tmp_path: Path, case: dict[str, Any], n: int, fixed: bool) -> tuple[Path, Source]:
    """Run the case in :data:`SESSIONS` sessions (with its fix after the failure when
    ``fixed``) and return the project and the source material a lesson may quote."""
    root = project(tmp_path / ("fixed" if fixed else "unfixed"), case)
    fix = fix_of(case) if fixed else None
    edits: list[str] = []
    for session in range(SESSIONS):
        sid = f"{SESSION[:-2]}{session:02d}"
        event, data = payload(case, root, n * 10 + session, "Bash")
        data["session_id"] = sid
        _send(event, data, case)
        if fix is None:
            continue
        kind, command = fix
        if kind == "edit":
            for rel in case["paths"][:3]:
                old, new = f"# {rel}", f"# {rel} (fixed)"
                edits += [old, new]
                edit = edit_payload(root, rel, old, new, session_id=sid)
                _send("PostToolUse", edit, case)
        success = sample_payload("PostToolUse.Bash.json", root, session_id=sid)
        success["cwd"] = data["cwd"]
        success["tool_input"] = {"command": fill(command, root), "description": "run it"}
        _send("PostToolUse", success, case)
    fix_command = (fix_of(case) or ("", ""))[1]
    source = Source(
        output=fill(case["output"], root),
        commands=tuple(c for c in (fill(case["command"], root), fill(fix_command, root)) if c),
        files=tuple([*case["paths"], *case.get("files", [])]),
        edits=tuple(edits),
        root=str(root),
    )
    return root, source


def stored(root: Path) -> tuple[list[FailureGroup], dict[tuple[str, str], int]]:
    with FailureStore.for_project(str(root)) as store:
        return store.failure_groups(), store.command_sessions()


def written(root: Path, case: dict[str, Any]) -> list[Written]:
    """Every lesson graduation and the lesson lookup write for the project."""
    groups, failed_in = stored(root)
    plan = plan_graduation(
        groups,
        threshold=SESSIONS,
        project_files=[*case["paths"], *case.get("files", [])],
        existing_rules={},
        today=date(2026, 11, 28),
    )
    out = [w for rule in plan.rules for w in in_markdown(rule.path, rule.text)]
    out += in_markdown("recurring-failures.md", plan.recurring_failures)
    content = lookup_content(command_lessons(groups, failed_in), SESSIONS) or {}
    entries = [*content.get("commands", {}).values(), *content.get("invocations", {}).values()]
    for entry in [*entries, *(o for e in entries for o in e.get("others", []))]:
        for field in ("failure", "hint", "block"):
            if field in entry:
                out.append(in_hook_text(field, entry[field]))
    out += [in_hook_text("always", line) for line in content.get("always", [])]
    return out


def grade(tmp_path: Path, cases: list[dict[str, Any]]) -> tuple[int, list[str], list[str]]:
    """(cases whose every lesson passes, the complaints, side-by-side lines)."""
    passed, complaints, sides = 0, [], []
    for n, case in enumerate(cases):
        ok = True
        for fixed in (False, True):
            if fixed and fix_of(case) is None:
                continue
            root, source = recur(tmp_path / case["id"], case, n, fixed)
            groups, _ = stored(root)
            source = replace(source, keys=tuple(g.signature for g in groups))
            lessons = written(root, case)
            # a fix the store credits must be taught: no "what is known" line for it
            credited = any(g.corrections or g.fix_paths or g.fix_edits for g in groups)
            if not lessons:
                ok = False
                complaints.append(f"{case['id']} fixed={fixed}: no lesson written")
            for lesson in lessons:
                # a hook text exists only for a lesson with a fix; a rule's lesson has one
                # when the simulated fix closed its mistake (its evidence line says so)
                has_fix = lesson.where in ("failure", "hint", "block", "always") or bool(
                    (lesson.evidence and "passed after it" in lesson.evidence)
                    or "fixed by" in lesson.evidence
                )
                found = check(
                    lesson.sentence, lesson.evidence, source, fixed=has_fix, edits=lesson.edits
                )
                if credited and not has_fix and lesson.where.startswith(".claude"):
                    found.append("the store credits a fix but the rule does not teach it")
                for problem in found:
                    ok = False
                    complaints.append(f"{case['id']} fixed={fixed} {lesson.where}: {problem}")
            if fixed:
                ours = next((w for w in lessons if w.where.startswith(".claude")), None)
                if ours is not None:
                    sides.append(
                        f"{case['id']}\n  label: {case['lesson']}\n  ours:  "
                        f"{ours.sentence}\n         {ours.evidence}"
                    )
        passed += ok
    return passed, complaints, sides


def _report(total: int, passed: int, complaints: list[str], sides: list[str]) -> None:
    print(f"\nlesson rubric: {passed}/{total} cases pass")
    for line in complaints:
        print("  ", line)
    for side in sides:
        print(side)


def test_the_quick_cases_pass_the_rubric(tmp_path: Path) -> None:
    cases = [c for c in load_cases() if c["id"] in QUICK]
    assert len(cases) == len(QUICK)
    passed, complaints, sides = grade(tmp_path, cases)
    _report(len(cases), passed, complaints, sides)
    assert passed == len(cases), complaints


@pytest.mark.slow
def test_every_corpus_lesson_passes_the_rubric(tmp_path: Path) -> None:
    cases = load_cases()
    assert len(cases) >= 80
    passed, complaints, sides = grade(tmp_path, cases)
    _report(len(cases), passed, complaints, sides)
    assert complaints == []
    assert passed == len(cases)
