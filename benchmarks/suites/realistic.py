"""Rows with realistic state: the command ``init`` registers for each event (not a launcher of
our choosing), 35 KB outputs, the prompt right after a capture, 2,000 learnings and 200 skills,
a store of 200,000 events with graduated rules that load, and hostile sizes.

Every hook row runs the handler ``pokayokay init`` wrote into the project's
``.claude/settings.json`` (exec form as given, shell form under ``/bin/sh -c``), so the same rows
measure any version of pokayokay: whatever it registers is what Claude Code would run.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from typing import Any

from benchmarks.fixtures.failures import (
    failure_kinds,
    fill_project_store,
    write_project_files,
)
from benchmarks.fixtures.lab import Lab, Project, slug, wait_until_settled
from benchmarks.fixtures.learnings import (
    RECALL_LEARNINGS,
    SUGGEST_SKILLS,
    generate_learnings,
    write_learnings,
    write_skills,
)
from benchmarks.fixtures.memory import encode_payload, memory_text, moved_payload
from benchmarks.harness import Case, Measurable, Spec
from benchmarks.suites.common import hook_case, no_output
from pokayokay.names import RECALL_ENTRIES_FILE, RECALL_FIXES_FILE, RECALL_INDEX_FILE

SESSION = "0ebb4b7c-7011-44b6-afdb-8302b6c943e8"
BIG_STORE = 200_000
HOSTILE_CAP = 3
PROMPT = "the checkout total test fails again in tests/test_checkout.py, fix src/checkout/total.py"


def pytest_output(size: int = 35_000) -> str:
    """A real-looking pytest failure of about ``size`` bytes (traceback, captured logs)."""
    head = (
        "Exit code 1\n============================= test session starts "
        "==============================\nplatform linux -- Python 3.12.3, pytest-8.3.2\n"
        "collected 148 items\n\ntests/test_checkout.py ....F...........\n\n"
        "=================================== FAILURES ===================================\n"
        "__________________________ test_total_with_discount ___________________________\n\n"
        "    def test_total_with_discount():\n"
        "        cart = Cart([Item('a', 1999), Item('b', 500)])\n"
        ">       assert checkout_total(cart, discount=0.1) == 2249\nE       assert 2250 == 2249\n"
        "E        +  where 2250 = checkout_total(<Cart 2 items>, discount=0.1)\n\n"
        "tests/test_checkout.py:41: AssertionError\n"
        "------------------------------ Captured log call -------------------------------\n"
    )
    lines: list[str] = []
    n = total = 0
    while len(head) + total < size:
        n += 1
        total += len(lines[-1]) if lines else 0
        lines.append(
            f"DEBUG    checkout.pricing:pricing.py:{80 + n % 40} line {n}: applied rule "
            f"discount-{n % 9} to item sku-{n:05d} (subtotal={1999 + n} cents)\n"
        )
    tail = (
        "=========================== short test summary info ============================\n"
        "FAILED tests/test_checkout.py::test_total_with_discount - assert 2250 == 2249\n"
        "========================= 1 failed, 147 passed in 3.21s ========================="
    )
    return head + "".join(lines) + tail


def registered_argv(project: Project, event: str) -> list[str]:
    """The command ``init`` registered for ``event`` in the project's settings."""
    data = json.loads((project.path / ".claude" / "settings.json").read_text("utf-8"))
    handler = data["hooks"][event][0]["hooks"][0]
    if "args" in handler:
        return [handler["command"], *handler["args"]]
    return ["/bin/sh", "-c", handler["command"]]


def initialised(lab: Lab, name: str) -> Project:
    project = lab.project(slug(name))
    project.restore(memory_text(80).encode())
    write_project_files(project.path, failure_kinds())
    subprocess.run(
        [lab.console_script(), "init", *lab.init_args, "--project", str(project.path)],
        env=project.env, cwd=project.path, check=True, capture_output=True,
    )
    return project


def registered_case(
    lab: Lab, name: str, event: str, project: Project, n: int, **kwargs: Any
) -> Case:
    case = hook_case(lab, name, event, project, n, **kwargs)
    case.argv = registered_argv(project, event)
    return case


def failure_payload(
    project: Project, n: int, error: str, command: str, session: str = SESSION
) -> bytes:
    payload = moved_payload("PostToolUseFailure.Bash.json", project.path)
    payload.update(error=error, tool_use_id=f"toolu_bench_{n:06d}", session_id=session,
                   tool_input={"command": command, "description": "run the tests"})
    return encode_payload(payload)


def capture_specs() -> list[Spec]:
    big = pytest_output()

    def failure_row(lab: Lab, n: int) -> Measurable:
        project = initialised(lab, "registered-failure")
        return registered_case(
            lab, "registered PostToolUseFailure (35 KB pytest output)", "PostToolUseFailure",
            project, n, stdin_each=lambda i: failure_payload(
                project, i, big, "pytest tests/test_checkout.py"),
            check_each=no_output, note="the command init registers, run as Claude Code runs it",
        )

    def success_row(open_episode: bool) -> Spec:
        what = "a failure earlier in the session" if open_episode else "nothing open"
        name = f"registered PostToolUse (Bash success, {what})"

        def build(lab: Lab, n: int) -> Measurable:
            project = initialised(lab, name)
            payload = moved_payload("PostToolUse.Bash.json", project.path)
            session = payload["session_id"] if open_episode else "another-session"
            if open_episode:
                failure = moved_payload("PostToolUseFailure.Bash.json", project.path)
                failure.update(session_id=session, tool_input=payload["tool_input"])
                subprocess.run(registered_argv(project, "PostToolUseFailure"),
                               input=encode_payload(failure), env=project.env,
                               cwd=project.path, check=True, capture_output=True)
            else:
                payload["session_id"] = session
            return registered_case(lab, name, "PostToolUse", project, n,
                                   stdin=encode_payload(payload), check_each=no_output)

        return Spec(name, build)

    def batch_row(with_error: bool) -> Spec:
        what = "an Edit error" if with_error else "nothing to record"
        name = f"registered PostToolBatch ({what})"

        def build(lab: Lab, n: int) -> Measurable:
            project = initialised(lab, name)
            payload = moved_payload("PostToolBatch.json", project.path)
            if with_error:
                payload["tool_calls"][0]["tool_response"] = (
                    "<tool_use_error>String to replace not found in file.\nString: "
                    "def checkout_total(items):</tool_use_error>")
            return registered_case(lab, name, "PostToolBatch", project, n,
                                   stdin=encode_payload(payload), check_each=no_output)

        return Spec(name, build)

    def instructions_row(lab: Lab, n: int) -> Measurable:
        project = initialised(lab, "registered-instructions")
        rule = project.path / ".claude" / "rules" / "pokayokay" / "testing.md"
        rule.parent.mkdir(parents=True, exist_ok=True)
        rule.write_text("---\npaths:\n  - \"tests/**\"\n---\n# Tests\n", "utf-8")
        payload = moved_payload("InstructionsLoaded.path_glob_match.json", project.path)
        payload.update(file_path=str(rule), trigger_file_path=str(project.path / "tests" / "a.py"))
        return registered_case(lab, "registered InstructionsLoaded (a rule loads)",
                               "InstructionsLoaded", project, n,
                               stdin=encode_payload(payload), check_each=no_output)

    return [
        Spec("registered PostToolUseFailure (35 KB pytest output)", failure_row),
        success_row(True),
        success_row(False),
        batch_row(False),
        batch_row(True),
        Spec("registered InstructionsLoaded (a rule loads)", instructions_row),
    ]


def prompt_project(lab: Lab, *, events: int = 20_000) -> Project:
    """2,000 learnings, 200 skills and ``events`` stored failures (0: no failure captured yet,
    a project's first days), the caches built."""
    def make() -> Project:
        project = initialised(lab, f"prompt-realistic-{events}")
        write_learnings(project.memory_dir, generate_learnings(RECALL_LEARNINGS))
        write_skills(project.path, SUGGEST_SKILLS, project.env)
        if events:
            fill_project_store(lab, project, events, sessions=200)
        from pokayokay.recall.sources import load

        location = project.location
        load(location.memory_dir, location.project_dir, project.state_dir, budget=float("inf"))
        wait_until_settled(location.memory_dir, project.path / ".claude" / "skills")
        return project

    return lab.shared(f"the realistic prompt project ({events:,} events)", make)


def fresh_prompt_spec() -> Spec:
    name = (f"registered UserPromptSubmit ({RECALL_LEARNINGS:,} learnings, {SUGGEST_SKILLS} "
            "skills, no failure captured yet: warm)")

    def build(lab: Lab, n: int) -> Measurable:
        project = prompt_project(lab, events=0)
        payload = encode_payload(moved_payload("UserPromptSubmit.json", project.path,
                                               prompt=PROMPT))
        return registered_case(lab, name, "UserPromptSubmit", project, n, stdin=payload)

    return Spec(name, build, prepare=lambda lab: prompt_project(lab, events=0))


def prompt_specs() -> list[Spec]:
    base = f"registered UserPromptSubmit ({RECALL_LEARNINGS:,} learnings, {SUGGEST_SKILLS} skills"

    def row(what: str, *, capture: bool = False, stop: bool = False, cold: bool = False,
            recurs: bool = False) -> Spec:
        name = f"{base}, 20k events: {what})"

        def build(lab: Lab, n: int) -> Measurable:
            project = prompt_project(lab)
            payload = encode_payload(moved_payload("UserPromptSubmit.json", project.path,
                                                   prompt=PROMPT))
            counter = [0]
            failure_argv = registered_argv(project, "PostToolUseFailure")
            stop_argv = registered_argv(project, "Stop")
            stop_payload = encode_payload(moved_payload("Stop.json", project.path))

            def run(argv: list[str], data: bytes) -> None:
                subprocess.run(argv, input=data, env=project.env, cwd=project.path, check=True,
                               capture_output=True)

            def before() -> None:
                if cold:
                    for name in (RECALL_INDEX_FILE, RECALL_ENTRIES_FILE, RECALL_FIXES_FILE):
                        (project.state_dir / name).unlink(missing_ok=True)
                if capture:
                    counter[0] += 1
                    error = pytest_output(3_000)
                    if recurs:  # the same test failed once in an earlier session, long stored
                        error = error.replace("test_total_with_discount",
                                              f"test_total_{counter[0]}")
                        run(failure_argv, failure_payload(
                            project, 600_000 + counter[0], error, "pytest tests/test_checkout.py",
                            session=f"earlier-{counter[0]}"))
                        run(stop_argv, stop_payload)  # stored, caches refreshed
                    run(failure_argv, failure_payload(project, 500_000 + counter[0], error,
                                                      "pytest tests/test_checkout.py"))
                if stop:  # the turn ends: Claude Code runs it in the background, to its end
                    run(stop_argv, stop_payload)
                    if _spooled(project):
                        raise SystemExit("the Stop hook left the capture in the spool")

            def left(runs: int) -> str | None:
                return None if _spooled(project) else "the prompt ingested the capture"

            return registered_case(lab, name, "UserPromptSubmit", project,
                                   min(n, 5) if cold else n, stdin=payload,
                                   before_each=before if (capture or cold) else None,
                                   verify=left if recurs else None)

        return Spec(name, build, prepare=prompt_project)

    return [
        row("warm"),
        # The turn was interrupted (no Stop): the capture waits in the spool. Its test's group
        # recurs already where the prompt points (the steady case), so the prompt's spool gate
        # leaves it there for the next Stop; it does not ingest it.
        row("right after a capture", capture=True),
        # The same, but the failing test failed in one earlier session: the capture makes it
        # recur, where the project's tests recur in far more sessions, so the boost cannot
        # change and the prompt leaves it to the turn's Stop (decision 0165; it ingested it
        # before reading the failure signals).
        row("right after a capture that makes a failure recur", capture=True, recurs=True),
        # The normal sequence: the failing call, the turn's Stop (background ingest), the prompt.
        row("after a capture and the turn's Stop", capture=True, stop=True),
        row("cold cache", cold=True),
        fresh_prompt_spec(),
    ]


def _spooled(project: Project) -> bool:
    from pokayokay.hooks.ingest import pending
    from pokayokay.infra.spool import spool_dir

    return pending(spool_dir(str(project.path), project.env))


def big_store_project(lab: Lab) -> Project:
    """200,000 events, graduated rules that load in many sessions, an 80-line MEMORY.md."""

    def make() -> Project:
        from pokayokay.failures.store import FailureStore

        project = initialised(lab, "session-end-200k")
        db = project.store().path
        fill_project_store(lab, project, BIG_STORE, sessions=2_000, max_events=BIG_STORE)
        subprocess.run([lab.console_script(), "graduate", "--project", str(project.path)],
                       env=project.env, cwd=project.path, check=True, capture_output=True)
        rules = sorted((project.path / ".claude" / "rules" / "pokayokay").glob("*.md"))
        if not rules:
            raise SystemExit("graduation wrote no rule for the SessionEnd benchmark")
        with FailureStore(db, max_events=BIG_STORE) as store:
            now = time.time()
            for s in range(300):
                for rule in rules:
                    store.record_rule_load(f"load-session-{s}", str(rule.relative_to(project.path)),
                                           "src/checkout/total.py", now - 86400 * 30 + s * 60)
        return project

    return lab.shared("the 200k-event store with rules", make)


def session_end_specs() -> list[Spec]:
    def row(spooled: bool) -> Spec:
        what = "this session's failures to take in" if spooled else "nothing new"
        name = f"registered SessionEnd ({BIG_STORE // 1000}k events, rules loaded: {what})"

        def build(lab: Lab, n: int) -> Measurable:
            project = big_store_project(lab)
            failure_argv = registered_argv(project, "PostToolUseFailure")
            counter = [0]

            def before() -> None:
                for _k in range(3):
                    counter[0] += 1
                    data = failure_payload(project, 700_000 + counter[0], pytest_output(4_000),
                                           "pytest tests/test_checkout.py")
                    subprocess.run(failure_argv, input=data, env=project.env, cwd=project.path,
                                   check=True, capture_output=True)

            payload = encode_payload(moved_payload("SessionEnd.other.json", project.path))
            return registered_case(lab, name, "SessionEnd", project, n, stdin=payload,
                                   before_each=before if spooled else None, check_each=no_output,
                                   note="p95 in the JSON (times_ms)")

        return Spec(name, build, prepare=big_store_project, quick_runs=1)  # the largest store

    return [row(False), row(True)]


INGEST = (
    "try:\n    from pokayokay.hooks.ingest import ingest_all\n"
    "except ImportError:\n    pass\nelse:\n    ingest_all()\n"
)


def hostile_specs() -> list[Spec]:
    def row(what: str, error: str) -> Spec:
        name = f"hostile capture ({what}): registered hook, then ingest"

        def build(lab: Lab, n: int) -> Measurable:
            project = initialised(lab, name)
            argv = registered_argv(project, "PostToolUseFailure")
            shell = " ".join(_quote(a) for a in argv)
            ingest = f"{_quote(sys.executable)} -c {_quote(INGEST)}"
            case = registered_case(
                lab, name, "PostToolUseFailure", project, min(n, HOSTILE_CAP),
                stdin_each=lambda i: failure_payload(project, i, error, "npx jest"),
                check_each=no_output,
                verify=lambda runs: None if project.stored_failures() >= runs else (
                    f"{project.stored_failures()} failures stored after {runs} runs"),
                note="spool (or direct capture) plus one ingest",
            )
            case.argv = ["/bin/sh", "-c", f"{shell} && {ingest}"]
            return case

        return Spec(name, build)

    blank = "Exit code 1\n" + "\n" * 60_000 + " FAIL  src/cart.test.js\n"
    huge = "Exit code 1\n" + pytest_output(15 << 20)
    return [row("60,000 blank lines", blank), row("15 MiB output", huge)]


def _quote(word: str) -> str:
    import shlex

    return shlex.quote(word)


def specs() -> list[Spec]:
    return [*capture_specs(), *prompt_specs(), *session_end_specs(), *hostile_specs()]

