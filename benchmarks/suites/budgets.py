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
from pathlib import Path

from benchmarks.fixtures.failures import fill_project_store
from benchmarks.fixtures.lab import Lab, Project, backdate_settled, wait_until_settled
from benchmarks.fixtures.learnings import (
    SUGGEST_SKILLS,
    generate_learnings,
    write_learnings,
    write_skills,
)
from benchmarks.fixtures.memory import encode_payload, memory_text, moved_payload
from benchmarks.harness import Case, Measurable, Spec
from benchmarks.suites.common import no_output
from benchmarks.suites.realistic import (
    failure_payload,
    initialised,
    pytest_output,
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
        write_skills(project.path, SUGGEST_SKILLS)
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
    from pokayokay.recall.sources import load_index

    location = project.location
    load_index(location.memory_dir, location.project_dir, project.state_dir, budget=float("inf"))
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


def _prompt_row(name: str, prompt: str, **shape: int | None) -> Spec:
    def build(lab: Lab, n: int) -> Measurable:
        project = realistic_project(lab, **shape)  # type: ignore[arg-type]
        payload = encode_payload(
            moved_payload("UserPromptSubmit.json", project.path, prompt=prompt)
        )
        return registered_case(lab, name, "UserPromptSubmit", project, n, stdin=payload)

    return Spec(name, build, prepare=ahead(**shape))


def _event_row(name: str, event: str, sample: str, **shape: int | None) -> Spec:
    def build(lab: Lab, n: int) -> Measurable:
        project = realistic_project(lab, **shape)  # type: ignore[arg-type]
        payload = encode_payload(moved_payload(sample, project.path))
        check = no_output if event == "SessionEnd" else None
        return registered_case(lab, name, event, project, n, stdin=payload, check_each=check)

    return Spec(name, build, prepare=ahead(**shape))


def bare_session_start() -> Spec:
    name = "budget: SessionStart (bare project)"

    def build(lab: Lab, n: int) -> Measurable:
        project = initialised(lab, "budget bare project")
        payload = encode_payload(moved_payload("SessionStart.startup.json", project.path))
        return registered_case(lab, name, "SessionStart", project, n, stdin=payload)

    return Spec(name, build)


def _captures(project: Project) -> Callable[..., None]:
    """Run the registered PostToolUseFailure hook for a failing ``pytest`` call of a session
    (``test``: the failing test's name, which names the failure's group in the store)."""
    failure_argv = registered_argv(project, "PostToolUseFailure")

    def capture(session: str, n: int, test: str = "") -> None:
        output = pytest_output(3_000)
        if test:
            output = output.replace("test_total_with_discount", test)
        data = failure_payload(project, n, output, "pytest tests/test_checkout.py", session=session)
        subprocess.run(
            failure_argv,
            input=data,
            env=project.env,
            cwd=project.path,
            check=True,
            capture_output=True,
        )

    return capture


def wait_for_detached(project: Project, limit: float = 60.0) -> None:
    """Wait (untimed) until no detached ``pokayokay`` command or ``python -m pokayokay.…``
    worker for ``project`` runs (Linux: read from /proc; elsewhere nothing is waited for), at
    most ``limit`` seconds."""
    proc = Path("/proc")
    if not proc.is_dir():
        return
    mark = str(project.path).encode()
    give_up = time.monotonic() + limit
    while time.monotonic() < give_up:
        running = False
        for entry in proc.iterdir():
            if not entry.name.isdigit():
                continue
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue  # ended meanwhile, or not ours to read
            ours = any(a == b"pokayokay" or a.startswith(b"pokayokay.") for a in argv)
            if ours and mark in argv:
                running = True
                break
        if not running:
            return
        time.sleep(0.05)


def settle(project: Project) -> None:
    """Untimed: SessionStart's detached work done and the folders settled, as they are by the
    time a person has typed the session's first prompt."""
    wait_for_detached(project)
    location = project.location
    wait_until_settled(location.memory_dir, project.path / ".claude", project.state_dir)


# The three cases of "a prompt right after a capture in a new session", one row each: which
# group the session's spooled failure joins decides what the prompt's spool gate does
# (``pokayokay.hooks.spool_gate``). ``new``: none (each run's test has a name of its own); the
# gate's string scans rule it out. ``first recurrence``: a group one earlier session stored; the
# failure makes it recur, so the gate ingests it inside the prompt (once per group). ``recurs``:
# a group that recurs already (the same test failing session after session); the gate finds it
# changes nothing, from the category its command binds (decision 0150: no parse). README.md
# says which budget each is held to.
AFTER_CAPTURE = "budget: prompt naming a file right after a capture in a new session"
AFTER_CAPTURE_CASES = {
    "new": "the failure joins no stored group",
    "first recurrence": "the failure recurs for the first time: the prompt ingests it",
    "recurs": "the failure's group recurs already (the steady case)",
}


def letters(n: int) -> str:
    """``n`` in letters (a signature keeps no number: ``<n>`` stands for each)."""
    out = ""
    while True:
        n, digit = divmod(n, 26)
        out = chr(97 + digit) + out
        if not n:
            return out


def after_capture_row(case: str) -> Spec:
    """One case of :data:`AFTER_CAPTURE_CASES`. Each run is one new session in Claude Code's
    real event order (docs/claude-code-interfaces.md: SessionStart runs before a session's
    first prompt; Stop runs at the end of each turn, so a turn the user interrupts has none;
    SessionEnd may never run when Claude is killed): SessionStart (``startup``, the new session
    id), the session's first prompt, its first tool call failing (captured into the spool), the
    turn interrupted (no Stop), then the timed prompt. The previous run's session was killed
    (no SessionEnd): what it left (the store written since graduation last ran, or its capture
    still in the spool) is caught up on by the next session's SessionStart
    (``pokayokay.hooks.catch_up``: in the hook, or a detached ``graduate`` on a store this
    large), so the prompt finds this session's capture alone. Between SessionStart and the
    first prompt the folders are left to settle (untimed: the seconds a person takes to type
    it, which the prompts' quick freshness checks rely on:
    ``benchmarks.fixtures.lab.wait_until_settled``). What SessionStart pays for the catch-up is
    the row :func:`killed_session_start_row`, and what the first prompt then pays (the signals
    read again from the changed store) the row :func:`first_prompt_after_catch_up_row`.

    ``first recurrence``: before its session, a killed session of its own captured the same
    failure (a test named for the run), which the session's SessionStart takes in. ``recurs``:
    two sessions (untimed, before the warm-up) made the group recur first."""
    name = f"{AFTER_CAPTURE}: {AFTER_CAPTURE_CASES[case]}"
    tag = f", captures ({case})"

    def build(lab: Lab, n: int) -> Measurable:
        # A project of its own: the captures move its store, which the other rows' must not.
        project = realistic_project(lab, tag=tag)
        capture = _captures(project)
        counter = [0]
        payload = moved_payload("UserPromptSubmit.json", project.path, prompt=PATH_PROMPT)
        start = moved_payload("SessionStart.startup.json", project.path)

        def session() -> str:
            return f"budget-new-session-{counter[0]:04d}"

        def test() -> str:  # the failing test: its name is the failure's group
            return "" if case == "recurs" else f"test_total_case_{letters(26**5 + counter[0])}"

        def before() -> None:  # untimed: the new session up to its interrupted first turn
            counter[0] += 1
            if case == "first recurrence":  # an earlier session failed the same way, killed
                capture(f"budget-earlier-session-{counter[0]:04d}", 700_000 + counter[0], test())
            run_registered(project, "SessionStart", dict(start, session_id=session()))
            settle(project)
            run_registered(project, "UserPromptSubmit", dict(payload, session_id=session()))
            capture(session(), 800_000 + counter[0], test())

        def each(run: int) -> bytes:
            return encode_payload(dict(payload, session_id=session()))

        problems: list[str] = []

        def after() -> None:  # the row is the case it names: the gate ingested or it did not
            from pokayokay.hooks.ingest import pending
            from pokayokay.infra.spool import spool_dir

            ingested = not pending(spool_dir(str(project.path), project.env))
            if ingested != (case == "first recurrence"):
                said = "ingested" if ingested else "left in the spool"
                problems.append(f"run {counter[0]}: the prompt {said} the session's capture")

        if case == "recurs":  # two sessions make the group recur before the warm-up's
            before()
            before()
        return registered_case(
            lab,
            name,
            "UserPromptSubmit",
            project,
            n,
            stdin_each=each,
            before_each=before,
            after_each=after,
            verify=lambda runs: problems[0] if problems else None,
        )

    return Spec(name, build, prepare=ahead(tag=tag))


def killed_session_start_row() -> Spec:
    """SessionStart of a new session when the previous one was killed right after a failing
    tool call (no Stop, no SessionEnd: docs/claude-code-interfaces.md): its capture is in the
    spool, and SessionStart ingests it and checks graduation (``pokayokay.hooks.catch_up``).
    This is the ingest :func:`after_capture_row` does not time in its prompt."""
    name = f"budget: SessionStart after a killed session left a capture ({STATE})"

    def build(lab: Lab, n: int) -> Measurable:
        project = realistic_project(lab, tag=", killed sessions")
        capture = _captures(project)
        counter = [0]
        start = moved_payload("SessionStart.startup.json", project.path)

        def before() -> None:  # untimed: the killed session's failing call
            wait_for_detached(project)  # the last run's detached graduate, if any
            counter[0] += 1
            capture(f"budget-killed-session-{counter[0]:04d}", 900_000 + counter[0])

        def each(run: int) -> bytes:
            return encode_payload(dict(start, session_id=f"budget-next-session-{counter[0]:04d}"))

        def ingested(runs: int) -> str | None:
            from pokayokay.hooks.ingest import pending
            from pokayokay.infra.spool import spool_dir

            wait_for_detached(project)  # the catch-up of the last run (decision 0130)
            if pending(spool_dir(str(project.path), project.env)):
                return "SessionStart left the killed session's capture in the spool"
            return None

        return registered_case(
            lab,
            name,
            "SessionStart",
            project,
            n,
            stdin_each=each,
            before_each=before,
            # The catch-up it started runs beside nothing timed: not beside the floor either.
            after_each=lambda: wait_for_detached(project),
            verify=ingested,
        )

    return Spec(name, build, prepare=ahead(tag=", killed sessions"))


def catch_up_worker_row() -> Spec:
    """What the SessionStart of :func:`killed_session_start_row` hands to its detached worker
    (``python -m pokayokay.hooks.catch_up_worker``, decision 0130): the killed session's
    capture ingested, graduation over the 20,000-event store, the prompt's caches refreshed.
    No hook budget is over it (it runs in its own session while Claude starts); the row shows
    what it costs the machine. Its wall time includes the wait for graduation's rewritten files
    to settle before it refreshes the caches that distrust them (up to 3.5 s, asleep): read the
    CPU ratio."""
    name = (
        "budget: catch-up worker after a killed session (detached, no hook budget; "
        "wall includes its settle wait)"
    )

    def build(lab: Lab, n: int) -> Measurable:
        import sys

        from pokayokay.hooks.catch_up import WORKER_MODULE
        from pokayokay.infra.detach import module_argv

        project = realistic_project(lab, tag=", catch-up worker")
        capture = _captures(project)
        counter = [0]

        def before() -> None:  # untimed: the killed session's failing call
            counter[0] += 1
            capture(f"budget-worker-killed-{counter[0]:04d}", 970_000 + counter[0])

        def ingested(runs: int) -> str | None:
            from pokayokay.hooks.ingest import pending
            from pokayokay.infra.spool import spool_dir

            if pending(spool_dir(str(project.path), project.env)):
                return "the worker left the killed session's capture in the spool"
            return None

        argv = module_argv(WORKER_MODULE, [str(project.path)])
        assert argv[0] == sys.executable
        return Case(
            name,
            argv,
            n,
            project.path,
            project.env,
            before_each=before,
            verify=ingested,
            note="CPU ratio is the work; wall includes sleeping until files settle",
        )

    return Spec(name, build, prepare=ahead(tag=", catch-up worker"))


def first_prompt_after_catch_up_row() -> Spec:
    """The first prompt of a session whose SessionStart took in what a killed session left (a
    failing call's capture: :func:`killed_session_start_row`): the store changed, so this
    prompt reads the failure signals and recall's fix texts from it again. The folders settle
    between SessionStart and the prompt (untimed), as in :func:`after_capture_row`."""
    name = "budget: first prompt after SessionStart took in a killed session's capture"

    def build(lab: Lab, n: int) -> Measurable:
        project = realistic_project(lab, tag=", first prompts")
        capture = _captures(project)
        counter = [0]
        payload = moved_payload("UserPromptSubmit.json", project.path, prompt=PATH_PROMPT)
        start = moved_payload("SessionStart.startup.json", project.path)

        def session() -> str:
            return f"budget-after-killed-{counter[0]:04d}"

        def before() -> None:  # untimed: the killed session's call, the next SessionStart
            counter[0] += 1
            capture(f"budget-killed-before-{counter[0]:04d}", 950_000 + counter[0])
            run_registered(project, "SessionStart", dict(start, session_id=session()))
            settle(project)

        def each(run: int) -> bytes:
            return encode_payload(dict(payload, session_id=session()))

        return registered_case(
            lab, name, "UserPromptSubmit", project, n, stdin_each=each, before_each=before
        )

    return Spec(name, build, prepare=ahead(tag=", first prompts"))


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
    state = STATE
    return [
        _prompt_row(f"budget: prompt naming a project file ({state})", PATH_PROMPT),
        *(after_capture_row(case) for case in AFTER_CAPTURE_CASES),
        bare_session_start(),
        _event_row(f"budget: SessionStart ({state})", "SessionStart", "SessionStart.startup.json"),
        killed_session_start_row(),
        catch_up_worker_row(),
        first_prompt_after_catch_up_row(),
        _event_row(f"budget: SubagentStart ({state})", "SubagentStart", "SubagentStart.json"),
        *(
            _prompt_row(f"budget: warm prompt, {n:,} learnings", WARM_PROMPT, learnings=n)
            for n in (100, 500, 2_000, 5_000)
        ),
        *(_prompt_row(f"budget: path prompt, {n} rules", PATH_PROMPT, rules=n) for n in (10, 100)),
        *(
            _event_row(
                f"budget: SessionEnd, {n} rules", "SessionEnd", "SessionEnd.other.json", rules=n
            )
            for n in (10, 100)
        ),
        *(session_start_memory_row(n) for n in (50, 500, 5_000)),
        *(memory_rewritten_row(n) for n in (50, 5_000)),
    ]
