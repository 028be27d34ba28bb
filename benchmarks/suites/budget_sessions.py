"""The rows of issue 26's budget table that are a session's sequence of events (one new session
per run, in Claude Code's event order): the prompt right after a capture in a new session in its
four cases, SessionStart after a killed session left a capture, that catch-up's detached worker,
the first prompt after it, and the first prompt of a new session after SessionEnd. The project
they run on, and the other rows: :mod:`benchmarks.suites.budgets`.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

from benchmarks.fixtures.lab import Lab, Project, wait_until_settled, wait_while_running
from benchmarks.fixtures.memory import encode_payload, moved_payload
from benchmarks.harness import Case, Measurable, Spec
from benchmarks.suites.budgets import (
    PATH_PROMPT,
    STATE,
    ahead,
    realistic_project,
    run_registered,
)
from benchmarks.suites.realistic import (
    failure_payload,
    pytest_output,
    registered_argv,
    registered_case,
)


def build_output(name: str) -> str:
    """A failing ``make build`` as it prints (about 1.1 KB): the native modules compiled and
    linked, then Python's byte-compilation of the package stopping at a syntax error in
    ``src/app/checkout.py`` whose message holds ``name`` (which names the failure's group: the
    signature keeps the message). The project's build failures recur in ``src/native/`` only,
    so nothing of category ``build`` shows where the benchmarks' path prompt points."""
    lines = ["Exit code 2", "mkdir -p build/native build/lib"]
    for module in ("hashing", "resize", "parse"):
        lines.append(
            "gcc -O2 -Wall -Werror -fPIC -Isrc/native -I/usr/include/python3.12 "
            f"-c src/native/{module}.c -o build/native/{module}.o"
        )
    lines += [
        "gcc -shared -o build/lib/_native.so build/native/hashing.o build/native/resize.o "
        "build/native/parse.o",
        "python -m compileall -d app src/app",
        "Listing 'src/app'...",
        *(f"Compiling 'src/app/{m}.py'..." for m in ("__init__", "billing", "checkout")),
        "*** Error compiling 'src/app/checkout.py'...",
        '  File "src/app/checkout.py", line 41',
        f"    def checkout_total(cart, {name}, {name}=0.0):",
        " " * (31 + len(name)) + "^" * len(name),
        f"SyntaxError: duplicate argument '{name}' in function definition",
        *(f"Compiling 'src/app/{m}.py'..." for m in ("reports", "search", "users", "webhooks")),
        "make: *** [Makefile:14: build] Error 1",
    ]
    return "\n".join(lines)


def _captures(project: Project) -> Callable[..., None]:
    """Run the registered PostToolUseFailure hook for a failing ``pytest`` call of a session
    (``test``: the failing test's name, which names the failure's group in the store), or with
    ``build``, a failing ``make build`` (:func:`build_output`, ``test`` the name in its
    message)."""
    failure_argv = registered_argv(project, "PostToolUseFailure")

    def capture(session: str, n: int, test: str = "", build: bool = False) -> None:
        output = pytest_output(3_000)
        command = "pytest tests/test_checkout.py"
        if build:
            output, command = build_output(test), "make build"
        elif test:
            output = output.replace("test_total_with_discount", test)
        data = failure_payload(project, n, output, command, session=session)
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
    mark = str(project.path).encode()

    def ours(argv: list[bytes]) -> bool:
        mine = any(a == b"pokayokay" or a.startswith(b"pokayokay.") for a in argv)
        return mine and mark in argv

    wait_while_running(ours, limit)


def settle(project: Project) -> None:
    """Untimed: SessionStart's detached work done and the folders settled, as they are by the
    time a person has typed the session's first prompt."""
    wait_for_detached(project)
    location = project.location
    wait_until_settled(location.memory_dir, project.path / ".claude", project.state_dir)


# The four cases of "a prompt right after a capture in a new session", one row each: which
# group the session's spooled failure joins decides what the prompt's spool gate does
# (``pokayokay.hooks.spool_gate``). ``new``: none (each run's test has a name of its own); the
# gate's string scans rule it out. ``first recurrence``: a group one earlier session stored; the
# failure makes it recur, but the project's tests recur where the prompt points in far more
# sessions, and the suggestion shows one group a category, most sessions first: the gate finds
# it changes nothing (decision 0165; before it, the prompt ingested it, 7-9x). ``first
# recurrence, new category``: the same with a build failure, a category nothing shows where the
# prompt points: it changes the categories ``recurring()`` shows, but not what the suggestion
# says (no skill may address builds, and two categories no skill addresses recur there in more
# sessions), and the gate, reading the catalog, finds that (decision 0172; before it the prompt
# ingested it, decision 0170: 6.7x). ``recurs``: a
# group that recurs already (the same test failing session after session); the gate finds it
# changes nothing, from the category its command binds (decision 0150: no parse). README.md
# says which budget each is held to.
AFTER_CAPTURE = "budget: prompt naming a file right after a capture in a new session"
AFTER_CAPTURE_CASES = {
    "new": "the failure joins no stored group",
    "first recurrence": "the failure recurs for the first time, its category shown there already",
    "first recurrence, new category": (
        "the failure recurs for the first time, in a category nothing shows there yet"
    ),
    "recurs": "the failure's group recurs already (the steady case)",
}


def shown_categories(project: Project) -> list[str]:
    """The categories :func:`pokayokay.skills.failure_boost.recurring` shows for the paths
    :data:`PATH_PROMPT` names, from the project's signals (read from the store when it changed
    since their cache was written, which is left as it is)."""
    from pokayokay.infra.state import project_state_path
    from pokayokay.skills.advice import cached_signals
    from pokayokay.skills.failure_boost import recurring
    from pokayokay.skills.suggest import prompt_paths

    state = project_state_path(str(project.location.project_key), project.env)
    signals = cached_signals(state, write=False)
    return [r.category for r in recurring(signals.groups, prompt_paths(PATH_PROMPT), [])]


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
    failure (a test named for the run), which the session's SessionStart takes in. ``first
    recurrence, new category``: the same, with a failing ``make build`` (:func:`build_output`)
    instead of the test; nothing of category ``build`` recurs where the prompt points, and the
    prompt leaves the capture to the turn's Stop all the same (checked after each run: the
    capture left in the spool, then, a Stop run untimed, ``build`` among the categories
    ``recurring()`` shows there). ``recurs``: two sessions (untimed, before the warm-up) made
    the group recur first."""
    name = f"{AFTER_CAPTURE}: {AFTER_CAPTURE_CASES[case]}"
    build = case == "first recurrence, new category"
    tag = ", build captures" if build else f", captures ({case})"  # slugs are cut at 60

    def build_case(lab: Lab, n: int) -> Measurable:
        # A project of its own: the captures move its store, which the other rows' must not.
        project = realistic_project(lab, tag=tag)
        capture = _captures(project)
        counter = [0]
        payload = moved_payload("UserPromptSubmit.json", project.path, prompt=PATH_PROMPT)
        start = moved_payload("SessionStart.startup.json", project.path)

        def session() -> str:
            return f"budget-new-session-{counter[0]:04d}"

        def test() -> str:  # the failing test (the build's argument): it names the group
            if case == "recurs":
                return ""
            if build:
                return f"discount_case_{letters(26**5 + counter[0])}"
            return f"test_total_case_{letters(26**5 + counter[0])}"

        def before() -> None:  # untimed: the new session up to its interrupted first turn
            counter[0] += 1
            if case.startswith("first recurrence"):  # a session failed the same way, killed
                earlier = f"budget-earlier-session-{counter[0]:04d}"
                capture(earlier, 700_000 + counter[0], test(), build)
            run_registered(project, "SessionStart", dict(start, session_id=session()))
            settle(project)
            run_registered(project, "UserPromptSubmit", dict(payload, session_id=session()))
            capture(session(), 800_000 + counter[0], test(), build)

        def each(run: int) -> bytes:
            return encode_payload(dict(payload, session_id=session()))

        problems: list[str] = []

        def after() -> None:  # the row is the case it names: the gate left the capture
            from pokayokay.hooks.ingest import pending
            from pokayokay.infra.spool import spool_dir

            left = pending(spool_dir(str(project.path), project.env))
            if not left:
                problems.append(f"run {counter[0]}: the prompt ingested the session's capture")
            elif build:  # taken in now (untimed), it recurs there: a category not shown before
                stop = moved_payload("Stop.json", project.path)
                run_registered(project, "Stop", dict(stop, session_id=session()))
                if "build" not in shown_categories(project):
                    problems.append(f"run {counter[0]}: the build failure does not recur there")

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

    return Spec(name, build_case, prepare=ahead(tag=tag))


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


def session_transcript(project: Path) -> str:
    """A session's transcript as Claude Code writes it (one JSON object a line), cut to what
    SessionEnd reads from it: the prompt, and an edit of the file the prompt names (a session
    that edited nothing leaves no chain entry, and SessionEnd then writes no memory file)."""
    import json

    prompt = {"type": "user", "message": {"role": "user", "content": PATH_PROMPT}}
    edit = {
        "type": "assistant",
        "message": {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_bench_edit",
                    "name": "Edit",
                    "input": {
                        "file_path": str(project / "src" / "app" / "checkout.py"),
                        "old_string": "round(total)",
                        "new_string": "round(total, 2)",
                    },
                }
            ],
        },
    }
    return "".join(json.dumps(record) + "\n" for record in (prompt, edit))


def first_prompt_after_session_end_row() -> Spec:
    """The first prompt of a new session after the last one ended as Claude Code ends it: its
    SessionEnd ran (the session edited a file: its chain entry and curation written to the
    memory folder, then the recall index's full check), the next session's SessionStart, the
    folders settled (the minutes between two sessions), then the prompt naming project files.
    The memory folder moved moments before SessionEnd's full check: whether that check could
    vouch for the quick key decides whether this prompt stats every learning (decision 0153).
    Each run checks that SessionEnd did write the memory folder (the row is the case it
    names)."""
    name = "budget: first prompt of a new session after SessionEnd"

    def build(lab: Lab, n: int) -> Measurable:
        project = realistic_project(lab, tag=", after SessionEnd")
        counter = [0]
        payload = moved_payload("UserPromptSubmit.json", project.path, prompt=PATH_PROMPT)
        start = moved_payload("SessionStart.startup.json", project.path)
        end = moved_payload("SessionEnd.other.json", project.path)
        problems: list[str] = []

        def session() -> str:
            return f"budget-after-end-{counter[0]:04d}"

        def before() -> None:  # untimed: the last session's end, the next one's start
            folder = project.memory_dir.stat().st_mtime_ns
            transcript = project.path.parent / f"{project.path.name}-{session()}.jsonl"
            transcript.write_text(session_transcript(project.path), "utf-8")
            ended = dict(end, session_id=session(), transcript_path=str(transcript))
            run_registered(project, "SessionEnd", ended)
            if project.memory_dir.stat().st_mtime_ns == folder:
                problems.append(f"run {counter[0]}: SessionEnd left the memory folder as it was")
            counter[0] += 1
            run_registered(project, "SessionStart", dict(start, session_id=session()))
            settle(project)

        def each(run: int) -> bytes:
            return encode_payload(dict(payload, session_id=session()))

        return registered_case(
            lab,
            name,
            "UserPromptSubmit",
            project,
            n,
            stdin_each=each,
            before_each=before,
            verify=lambda runs: problems[0] if problems else None,
        )

    return Spec(name, build, prepare=ahead(tag=", after SessionEnd"))
