"""Issue 26's budget table, one row per line, each through the command ``init`` registered for
its event, on the state of a project in use: graduated rules and a store of 20,000 failure
events, 2,000 learnings, 200 skills, a 500-line MEMORY.md and the ``chain-learnings.md`` fifty
SessionEnds leave (``realistic_project``). The
scaling rows change one of those and keep the rest: learnings 100 -> 5,000, rules 10 -> 100,
MEMORY.md 50 -> 5,000 lines; the issue asks them to be flat to within one floor.

The rows are named ``budget: …`` so that ``run.py --only budget:`` runs the table alone.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from dataclasses import replace

from benchmarks.fixtures.failures import fill_project_store
from benchmarks.fixtures.lab import Lab, Project, backdate_settled, wait_until_settled
from benchmarks.fixtures.learnings import (
    SUGGEST_SKILLS,
    generate_learnings,
    write_learnings,
    write_skills,
)
from benchmarks.fixtures.memory import encode_payload, memory_text, moved_payload
from benchmarks.harness import Measurable, Spec
from benchmarks.suites.common import no_output
from benchmarks.suites.realistic import (
    initialised,
    registered_argv,
    registered_case,
)
from pokayokay.names import CHAIN_LEARNINGS_FILE

EVENTS = 20_000
LEARNINGS = 2_000
MEMORY_LINES = 500
# Names two files the failure kinds live in (benchmarks.fixtures.failures) and a failing test.
PATH_PROMPT = (
    "the checkout totals test fails again in tests/test_checkout.py, fix src/app/checkout.py"
)
STATE = "graduated rules, 20k events, 2,000 learnings, 200 skills, 500-line MEMORY.md"
WARM_PROMPT = "why does the checkout total round the discount the wrong way for some carts"
# Written as coding prompts often are: an identifier, a call, a pull request (45% of the train
# split's prompts reached a regular expression somewhere on the prompt path).
CODE_PROMPT = (
    "apply_discount() in the CartTotals class rounds each line before summing; "
    "make it round once at the end and open a pull request"
)
# A test run's output pasted under the question, unfenced, as users paste it.
PASTED_PROMPT = (
    "the checkout totals test fails after my change, what broke?\n\n"
    "=================================== FAILURES ===================================\n"
    "__________________________________ test_total __________________________________\n\n"
    "    def test_total():\n"
    ">       assert total([1, 2]) == 4\n"
    "E       assert 3 == 4\n"
    "E        +  where 3 = total([1, 2])\n\n"
    "tests/test_checkout.py:12: AssertionError\n"
    "=========================== short test summary info ============================\n"
    "FAILED tests/test_checkout.py::test_total - assert 3 == 4\n"
    "========================= 1 failed, 41 passed in 0.52s ========================="
)


def _rule_text(i: int) -> str:
    """A rule as graduation writes one (frontmatter, marker, sections), scoped to a module of
    its own; every tenth one also loads for the files the path prompt names."""
    paths = [f"/src/app/mod{i:03d}/*.py", f"/tests/test_mod{i:03d}.py"]
    if i % 10 == 0:
        paths.append("/src/app/*.py")
    listed = "".join(f'  - "{p}"\n' for p in paths)
    return (
        f"---\npaths:\n{listed}---\n# Testing mistakes: `FAILED tests/test_mod{i:03d}.py::"
        f"test_total - assert 4 == 3`\n\n<!-- pokayokay-rule: id=testing-mod{i:03d}; "
        f"signatures={i:012x}; graduated=2026-11-20 -->\nRecorded by pokayokay from mistakes in "
        f"earlier sessions of this project (12 sessions, 40 times), for files matching "
        f"`{paths[0]}`.\n\n## `FAILED tests/test_mod{i:03d}.py::test_total - assert 4 == 3`\n"
        f"- What goes wrong: `pytest tests/test_mod{i:03d}.py -q` failed.\n- How often: 12 "
        f"sessions, 40 times, last 2026-11-19.\n- What fixed it: edits to "
        f"`src/app/mod{i:03d}/total.py` made it pass.\n\n<!-- pokayokay-rule-end: pokayokay "
        f"rewrites everything above on its next graduation; notes below this line are kept -->\n"
    )


def realistic_project(
    lab: Lab,
    *,
    learnings: int = LEARNINGS,
    rules: int | None = None,
    memory_lines: int = MEMORY_LINES,
    events: int = EVENTS,
    tag: str = "",
) -> Project:
    """The project of the table (see the module). ``rules`` None: the rules ``graduate`` writes
    from the store; a number: that many rules as graduation writes them (and no others), each
    loaded in 30 sessions. Built once per shape (and ``tag``), untimed, its caches warm.

    MEMORY.md's length is not part of the shape: the rows that vary it share one project (a
    build is 10-13 s, mostly the store and graduation) and get their MEMORY.md written back
    and the caches warmed again, untimed, whenever the last row left another one there."""
    key = f"budget project ({learnings} learnings, rules {rules}{tag})"

    def make() -> Project:
        project = initialised(lab, key)
        write_learnings(project.memory_dir, generate_learnings(learnings))
        project.memory_file.write_text(memory_text(memory_lines), "utf-8")
        write_skills(project.path, SUGGEST_SKILLS, project.env)
        (project.memory_dir / CHAIN_LEARNINGS_FILE).write_text(chain_learnings(50), "utf-8")
        fill_project_store(lab, project, events, sessions=200)
        folder = project.path / ".claude" / "rules" / "pokayokay"
        if rules is None:
            subprocess.run(
                [lab.console_script(), "graduate", "--project", str(project.path)],
                env=project.env,
                cwd=project.path,
                check=True,
                capture_output=True,
            )
            if not list(folder.glob("*.md")):
                raise SystemExit("graduation wrote no rule for the budget rows")
        else:
            folder.mkdir(parents=True, exist_ok=True)
            for i in range(rules):
                (folder / f"testing-mod{i:03d}.md").write_text(_rule_text(i), "utf-8")
            now = time.time()
            with project.store() as store:
                for i in range(rules):
                    for s in range(30):
                        store.record_rule_load(
                            f"load-{s}",
                            f".claude/rules/pokayokay/testing-mod{i:03d}.md",
                            f"src/app/mod{i:03d}/total.py",
                            now - 86400 * 20 + s * 600,
                        )
        warm(lab, project, memory_text(memory_lines))
        return project

    project = lab.shared(key, make)
    text = memory_text(memory_lines)
    if project.memory_file.read_text("utf-8") != text:
        warm(lab, project, text)
    return project


def chain_learnings(entries: int) -> str:
    """``chain-learnings.md`` as ``entries`` SessionEnds leave it (a third of them failed): the
    prompt reads it when it shows a suggestion (the risk note)."""
    from pokayokay.learnings.outcomes.chain_entries import SessionOutcome

    outcomes = [
        SessionOutcome(
            day=f"2026-11-{1 + n % 28:02d}",
            session_id=f"{n:08x}-bench",
            task=f"fix the checkout totals in module {n}",
            skills=("skill-000",),
            failures=n % 3,
            categories=(("testing", n % 3),) if n % 3 else (),
            files=(f"src/app/mod{n:03d}/total.py",),
            result=("clean", "recovered", "failed")[n % 3],
        )
        for n in range(entries)
    ]
    return "# Chain learnings\n\n" + "\n".join(o.render() for o in outcomes)


def warm(lab: Lab, project: Project, memory: str) -> None:
    """The state a project is in between two sessions: the last session ended (its SessionEnd
    ran, as registered: curation, the graduation stamp), Claude then wrote MEMORY.md back to
    ``memory``, and a session built every cache the hooks keep (a SessionStart, a path prompt,
    a subagent); then the folders are left to settle (all untimed)."""
    from pokayokay.recall.sources import load

    location = project.location
    load(location.memory_dir, location.project_dir, project.state_dir, budget=float("inf"))
    run_registered(project, "SessionEnd", moved_payload("SessionEnd.other.json", project.path))
    project.memory_file.write_text(memory, "utf-8")
    # The fixture's files backdated, not waited for (3.5 s less a build); before the second
    # pass a real wait: a change time cannot be backdated and some keys also trust a ctime only
    # once it is settled (with a backdate there, SubagentStart's first timed run rebuilt).
    settle = backdate_settled
    for _ in range(2):
        settle(location.memory_dir, project.path / ".claude", project.state_dir)
        settle = wait_until_settled
        run_registered(
            project, "SessionStart", moved_payload("SessionStart.startup.json", project.path)
        )
        run_registered(
            project,
            "UserPromptSubmit",
            moved_payload("UserPromptSubmit.json", project.path, prompt=PATH_PROMPT),
        )
        run_registered(project, "SubagentStart", moved_payload("SubagentStart.json", project.path))
    wait_until_settled(location.memory_dir, project.path / ".claude", project.state_dir)


def run_registered(project: Project, event: str, payload: dict[str, object]) -> None:
    subprocess.run(
        registered_argv(project, event),
        input=encode_payload(payload),
        env=project.env,
        cwd=project.path,
        check=True,
        capture_output=True,
    )


def ahead(**shape: int | str | None) -> Callable[[Lab], Project]:
    """A row's ``prepare``: its project built before anything is timed (``harness.prebuild``),
    at the table's MEMORY.md length (a row needing another writes it back when it runs)."""
    kept = {key: value for key, value in shape.items() if key != "memory_lines"}
    return lambda lab: realistic_project(lab, **kept)  # type: ignore[arg-type]


def prompt_case(lab: Lab, name: str, project: Project, prompt: str, n: int) -> Measurable:
    """The prompt hook on ``prompt``, a new text each run (``prompt`` and the run's number): a
    user does not send one prompt twice, and whatever is kept by prompt (the dense service's last
    vector, a cache keyed on the text) would otherwise time a repeat."""

    def payload(run: int) -> bytes:
        text = f"{prompt} (take {run})"
        return encode_payload(moved_payload("UserPromptSubmit.json", project.path, prompt=text))

    return registered_case(lab, name, "UserPromptSubmit", project, n, stdin_each=payload)


def _prompt_row(name: str, prompt: str, **shape: int | None) -> Spec:
    def build(lab: Lab, n: int) -> Measurable:
        project = realistic_project(lab, **shape)  # type: ignore[arg-type]
        return prompt_case(lab, name, project, prompt, n)

    return Spec(name, build, prepare=ahead(**shape))


def _event_row(name: str, event: str, sample: str, **shape: int | None) -> Spec:
    def build(lab: Lab, n: int) -> Measurable:
        project = realistic_project(lab, **shape)  # type: ignore[arg-type]
        payload = encode_payload(moved_payload(sample, project.path))
        check = no_output if event == "SessionEnd" else None
        return registered_case(lab, name, event, project, n, stdin=payload, check_each=check)

    return Spec(name, build, prepare=ahead(**shape))


def dense_project(lab: Lab) -> Project:
    """The table's project with the dense opinion on (``pokayokay[dense]``, decision 0181): the
    resident model started as SessionStart starts it, this project's 200 skills and 2,000 notes
    encoded, before anything is timed. It runs until the lab's state folder goes (it leaves when
    its pipe does). A project of its own, the table's shape: the MEMORY.md rows rewrite theirs
    many times, and the service would still be encoding what changed while these rows time."""
    import sys

    from pokayokay.relevance.dense.client import alive

    project = realistic_project(lab, tag=", dense")
    dense = replace(project, env={**project.env, "POKAYOKAY_DENSE": "1"})

    def start() -> Project:
        log = dense.path.parent / "dense-service.log"  # where it says the notes are encoded
        with log.open("wb") as err:
            subprocess.Popen(
                [sys.executable, "-m", "pokayokay.skills.dense_service", "--warm",
                 str(dense.path)],
                env=dense.env, cwd=dense.path, stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=err, start_new_session=True,
            )  # fmt: skip
        deadline = time.monotonic() + 300  # 2,000 real-size notes: over a minute (0187)
        while not (alive(dense.env) and b" notes encoded for " in log.read_bytes()):
            if time.monotonic() > deadline:
                raise SystemExit(f"the dense opinion's service did not start: {log}")
            time.sleep(0.5)
        return dense

    return lab.shared("budget project, dense opinion running", start)


def dense_rows() -> list[Spec]:
    """The prompt hook and SessionStart with the dense opinion on: the prompt asks the resident
    model at its start and reads the answer after recall (a new prompt each run:
    :func:`prompt_case`); SessionStart starts it (here: asks the running one to encode the
    project's skills, one detached process)."""
    rows = []
    for name, prompt in (
        (f"budget: prompt naming a project file, dense opinion on ({STATE})", PATH_PROMPT),
        ("budget: warm prompt, 2,000 learnings, dense opinion on", WARM_PROMPT),
    ):

        def build(lab: Lab, n: int, name: str = name, prompt: str = prompt) -> Measurable:
            return prompt_case(lab, name, dense_project(lab), prompt, n)

        rows.append(Spec(name, build, prepare=dense_project, in_smoke=False))
    name = f"budget: SessionStart, dense opinion on ({STATE})"

    def session(lab: Lab, n: int) -> Measurable:
        project = dense_project(lab)
        payload = encode_payload(moved_payload("SessionStart.startup.json", project.path))
        return registered_case(lab, name, "SessionStart", project, n, stdin=payload)

    rows.append(Spec(name, session, prepare=dense_project, in_smoke=False))
    return rows


def bare_session_start() -> Spec:
    name = "budget: SessionStart (bare project)"

    def build(lab: Lab, n: int) -> Measurable:
        project = initialised(lab, "budget bare project")
        payload = encode_payload(moved_payload("SessionStart.startup.json", project.path))
        return registered_case(lab, name, "SessionStart", project, n, stdin=payload)

    return Spec(name, build)


def memory_rewritten_row(lines: int) -> Spec:
    name = f"budget: prompt right after MEMORY.md was rewritten ({lines:,} lines)"

    def build(lab: Lab, n: int) -> Measurable:
        project = realistic_project(lab, memory_lines=lines)
        text = memory_text(lines)
        counter = [0]

        def before() -> None:  # Claude rewrote it: one entry's wording changes, same length
            counter[0] += 1
            project.memory_file.write_text(
                text.replace("Memory", f"Mem{counter[0] % 10:02d}", 1), "utf-8"
            )

        payload = encode_payload(
            moved_payload("UserPromptSubmit.json", project.path, prompt=WARM_PROMPT)
        )
        return registered_case(
            lab, name, "UserPromptSubmit", project, n, stdin=payload, before_each=before
        )

    return Spec(name, build, prepare=ahead())


def session_start_memory_row(lines: int) -> Spec:
    name = f"budget: SessionStart, MEMORY.md of {lines:,} lines"

    def build(lab: Lab, n: int) -> Measurable:
        project = realistic_project(lab, memory_lines=lines)
        text = memory_text(lines)

        def before() -> None:  # the file as the session finds it (a catch-up may curate it)
            if project.memory_file.read_text("utf-8") != text:
                project.memory_file.write_text(text, "utf-8")

        payload = encode_payload(moved_payload("SessionStart.startup.json", project.path))
        return registered_case(
            lab, name, "SessionStart", project, n, stdin=payload, before_each=before
        )

    return Spec(name, build, prepare=ahead())


def specs() -> list[Spec]:
    """The table's rows, each with its three runs in ``--quick`` too (never trimmed)."""
    return [replace(spec, trim_slow_cycles=False) for spec in _rows()]


def _rows() -> list[Spec]:
    from benchmarks.suites.budget_sessions import (
        AFTER_CAPTURE_CASES,
        after_capture_row,
        catch_up_worker_row,
        first_prompt_after_catch_up_row,
        first_prompt_after_session_end_row,
        killed_session_start_row,
    )

    state = STATE
    return [
        _prompt_row(f"budget: prompt naming a project file ({state})", PATH_PROMPT),
        *(after_capture_row(case) for case in AFTER_CAPTURE_CASES),
        bare_session_start(),
        _event_row(f"budget: SessionStart ({state})", "SessionStart", "SessionStart.startup.json"),
        killed_session_start_row(),
        catch_up_worker_row(),
        first_prompt_after_catch_up_row(),
        first_prompt_after_session_end_row(),
        _event_row(f"budget: SubagentStart ({state})", "SubagentStart", "SubagentStart.json"),
        *(
            _prompt_row(f"budget: warm prompt, {n:,} learnings", WARM_PROMPT, learnings=n)
            for n in (100, 500, 2_000, 5_000)
        ),
        *(_prompt_row(f"budget: path prompt, {n} rules", PATH_PROMPT, rules=n) for n in (10, 100)),
        _prompt_row(f"budget: prompt naming code ({state})", CODE_PROMPT),
        _prompt_row(f"budget: prompt with pasted test output ({state})", PASTED_PROMPT),
        *(
            _event_row(
                f"budget: SessionEnd, {n} rules", "SessionEnd", "SessionEnd.other.json", rules=n
            )
            for n in (10, 100)
        ),
        *(session_start_memory_row(n) for n in (50, 500, 5_000)),
        *(memory_rewritten_row(n) for n in (50, 5_000)),
        *dense_rows(),
    ]
