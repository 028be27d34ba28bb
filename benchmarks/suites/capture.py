"""Capture hooks: PostToolUseFailure, PostToolUse (Bash success, closing a fix episode, Edit)
and PostToolBatch, each on a project whose failure store already holds 2,000 failures."""

from __future__ import annotations

import sqlite3
import subprocess

from benchmarks.fixtures.failures import (
    CAPTURE_HISTORY,
    FIX_COMMAND,
    capture_project,
    open_fix_episode,
)
from benchmarks.fixtures.lab import Lab
from benchmarks.fixtures.memory import encode_payload, moved_payload
from benchmarks.harness import Measurable, Spec
from benchmarks.suites.common import hook_case, no_output


def specs() -> list[Spec]:
    out: list[Spec] = []

    def failure(lab: Lab, n: int) -> Measurable:
        name = "hook PostToolUseFailure (capture)"
        project = capture_project(lab, name)
        sample = moved_payload("PostToolUseFailure.Bash.json", project.path)
        before = project.stored_failures()

        def payload(i: int) -> bytes:
            # A new tool call every run: the store keeps one row per tool_use_id.
            return encode_payload({**sample, "tool_use_id": f"toolu_bench_{i:05d}"})

        def verify(runs: int) -> str | None:
            added = project.stored_failures() - before
            if added != runs:
                return f"{runs} failures sent, {added} new rows in failures.db"
            return None

        return hook_case(
            lab,
            name,
            "PostToolUseFailure",
            project,
            n,
            stdin_each=payload,
            check_each=no_output,
            verify=verify,
            note=f"a new tool_use_id each run: one row (one transaction) in a store of "
            f"{CAPTURE_HISTORY:,} failures",
        )

    out.append(Spec("hook PostToolUseFailure (capture)", failure))

    def bash_success(lab: Lab, n: int) -> Measurable:
        name = "hook PostToolUse (Bash success, capture)"
        project = capture_project(lab, name)
        with project.store() as store:
            before = (store.failures(), store.failure_groups())

        def verify(runs: int) -> str | None:
            with project.store() as store:
                if (store.failures(), store.failure_groups()) != before:
                    return "a success with no open fix episode changed the failure store"
            return None

        return hook_case(
            lab,
            name,
            "PostToolUse",
            project,
            n,
            stdin=encode_payload(moved_payload("PostToolUse.Bash.json", project.path)),
            check_each=no_output,
            verify=verify,
            note="no open fix episode for the command (the common case): one indexed read",
        )

    out.append(Spec("hook PostToolUse (Bash success, capture)", bash_success))

    def bash_closing(lab: Lab, n: int) -> Measurable:
        name = "hook PostToolUse (Bash success closing a fix episode)"
        project = capture_project(lab, name)
        payload = moved_payload("PostToolUse.Bash.json", project.path)
        session = str(payload["session_id"])

        def closed(proc: subprocess.CompletedProcess[bytes]) -> str | None:
            problem = no_output(proc)
            if problem:
                return problem
            with project.store() as store:
                if store.record_success(session, "Bash", FIX_COMMAND) != 0:
                    return "the hook did not close the session's fix episode"
            return None

        def verify(runs: int) -> str | None:
            with project.store() as store:
                groups = [g for g in store.failure_groups() if FIX_COMMAND in g.fix_commands]
            if not groups or "setup.cfg" not in groups[0].fix_paths:
                return f"no failure group got {FIX_COMMAND!r} and setup.cfg as its fix"
            return None

        return hook_case(
            lab,
            name,
            "PostToolUse",
            project,
            n,
            stdin=encode_payload(payload),
            before_each=lambda: open_fix_episode(project, session, edit="setup.cfg"),
            check_each=closed,
            verify=verify,
            note="before each run (untimed) the command failed and setup.cfg was edited: "
            "the hook closes the episode (one write transaction)",
        )

    out.append(Spec("hook PostToolUse (Bash success closing a fix episode)", bash_closing))

    def edit(lab: Lab, n: int) -> Measurable:
        name = "hook PostToolUse (Edit, capture)"
        project = capture_project(lab, name)
        payload = moved_payload("PostToolUse.Edit.json", project.path)
        session = str(payload["session_id"])
        open_fix_episode(project, session)

        def edits() -> int:
            """Rows of the store's ``edits`` table (FailureStore has no reader for them)."""
            conn = sqlite3.connect(f"file:{project.store().path}?mode=ro", uri=True)
            try:
                row = conn.execute(
                    "SELECT count(*) FROM edits WHERE session_id = ? AND path = 'setup.cfg'",
                    (session,),
                ).fetchone()
            finally:
                conn.close()
            return int(row[0])

        def verify(runs: int) -> str | None:
            recorded = edits()
            if recorded != runs:
                return f"{runs} edits of setup.cfg sent, {recorded} recorded"
            with project.store() as store:
                store.record_success(session, "Bash", FIX_COMMAND)
                groups = [g for g in store.failure_groups() if FIX_COMMAND in g.fix_commands]
            if not groups or groups[0].fix_paths != ("setup.cfg",):
                return "closing the episode did not make setup.cfg its fix"
            return None

        return hook_case(
            lab,
            name,
            "PostToolUse",
            project,
            n,
            stdin=encode_payload(payload),
            check_each=no_output,
            verify=verify,
            note="the session has an open fix episode: each edit is one row (one transaction)",
        )

    out.append(Spec("hook PostToolUse (Edit, capture)", edit))

    def batch(lab: Lab, n: int) -> Measurable:
        name = "hook PostToolBatch (nothing to record)"
        project = capture_project(lab, name)
        before = project.stored_failures()

        def verify(runs: int) -> str | None:
            if project.stored_failures() != before:
                return "a batch with nothing to record changed the failure store"
            return None

        return hook_case(
            lab,
            name,
            "PostToolBatch",
            project,
            n,
            stdin=encode_payload(moved_payload("PostToolBatch.json", project.path)),
            check_each=no_output,
            verify=verify,
            note="one `Exit code 1` result, left to PostToolUseFailure: the store is not opened",
        )

    out.append(Spec("hook PostToolBatch (nothing to record)", batch))
    return out
