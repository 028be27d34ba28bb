"""UserPromptSubmit: recalled notes and fitting skills, in ONE ``additionalContext``.

Joins the recall block (``pokayokay.hooks.recall.prompt_context``) and the skill suggestion
(``pokayokay.skills.advice``). Prints nothing at all when both are empty: no noise on every prompt.
Only the person's words are read (``pokayokay.recall.turns``): a turn Claude Code wrote itself
(``<task-notification>``, ``<local-command-stdout>``), pasted tool output and ``/remember`` get
nothing, and return before the memory location, the spool or a catalog is touched.

Hot path: standard library only at import time, the project's memory location resolved once for
both parts. Memory signals are read only when they can matter: failure groups and rule files
only when the prompt names something that can be a project path, the spike and chain files only
when they exist.

The spool of tool calls (``pokayokay.infra.spool``): usually the turn's Stop hook
(``pokayokay.hooks.turn_end``, in the background) has ingested it already. What is left (a turn
the user interrupted has no Stop) is ingested here, bounded, only for a prompt that reads failure
signals, and only when a spooled failure can change whether a recurring failure shows for the
paths the prompt names (``pokayokay.hooks.spool_gate``, from each spooled failure's own
signature and category: a second session for a group that failed in one other session, a
category change, a recurring group's paths that may grow to the named place, two sessions at
once, a bare file name only the record resolves). Anything else can change at most the wording
of a boost that shows anyway (its session count, which recurring group of a category it
names): it is left to the next Stop, SessionEnd and the CLI readers, and the prompt reads the
store as it is (recall's fix texts too, which is consistent: the store did not change).

The first prompt after a killed session waits (at most 5 s, one stat otherwise) for
SessionStart's detached catch-up to graduate (``pokayokay.hooks.catch_up.wait_for_worker``), so
that the rule it writes is on disk before Claude's first Read (docs/decisions/0140).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from pokayokay.infra.locate import MemoryLocation
    from pokayokay.infra.location_rules import MemoryPaths
    from pokayokay.relevance.dense.client import Pending


MIN_PROMPT_CHARS = 3
# What UserPromptSubmit spends at most on the spool before reading failure signals.
PROMPT_INGEST_BUDGET = 0.25


def suggestion_context(
    payload: dict[str, Any],
    location: MemoryLocation | MemoryPaths | None = None,
    named: list[str] | None = None,
    write_signals: bool = True,
    dense: Pending | None = None,
) -> str:
    """The suggestion text for the payload's prompt, or "" (``named``: the paths the prompt
    names, when the caller has them already; ``write_signals``: see
    ``pokayokay.skills.advice.cached_signals``; ``dense``: the dense opinion asked for,
    :func:`ask_dense`)."""
    from pokayokay.hooks.runtime import project_dir
    from pokayokay.skills.advice import advice_for

    prompt = payload.get("prompt")
    if not isinstance(prompt, str):
        return ""
    from pokayokay.recall.turns import suggest_text

    prompt = suggest_text(prompt)  # "" for a command, a machine's turn, pasted output
    if len(prompt.strip()) < MIN_PROMPT_CHARS:
        return ""
    project = project_dir(payload)
    return advice_for(
        project,
        prompt,
        location=location,
        named=named,
        quick=True,
        write_signals=write_signals,
        dense=dense,
    ).text()


def ask_dense(
    project: str, words: str, location: MemoryPaths | None, recall_words: str
) -> Pending | None:
    """Ask the resident dense model about the prompt now (decision 0181): the skills, for the
    words suggestion reads, and the notes recall reads from ``location``, for recall's reading
    of the prompt; it works while recall scores. None when no service runs (one ``stat``) or
    it cannot be reached, and the lexical gates decide."""
    if len(words.strip()) < MIN_PROMPT_CHARS:
        return None
    try:
        from pokayokay.relevance.dense.client import ask

        notes = None
        if location is not None and recall_words.strip():
            from pokayokay.infra.state import project_state_path

            state = project_state_path(str(location.project_key))
            dirs = (str(location.memory_dir), str(location.project_dir), state)
            notes = (*dirs, recall_words)
        return ask(project, words, notes=notes)
    except Exception as exc:  # the opinion is a help, never a condition
        from pokayokay.infra.logs import fail_open

        fail_open("UserPromptSubmit: asking the dense opinion", exc)
        return None


def _ingest_first(
    project: str, named: list[str], location: MemoryLocation | MemoryPaths | None
) -> bool:
    """Ingest this project's spooled tool calls (bounded; two stats when there are none) when
    they can change the failure signals read next (``pokayokay.hooks.spool_gate``). True when
    it stored records: the signals are then read from the store without writing their cache,
    which the turn's Stop brings up to date (its mark :data:`pokayokay.infra.spool.CACHES_STALE`
    left in the spool folder)."""
    from pokayokay.infra.spool import pending, spool_dir

    folder = spool_dir(project)
    if not pending(folder):
        return False  # the usual case: two stats, and the ingester not even imported
    if location is not None:
        try:
            from pokayokay.hooks.spool_gate import could_change, pending_failures
            from pokayokay.infra.state import project_state_path
            from pokayokay.skills.advice import cached_signals
            from pokayokay.skills.catalog import load_catalog

            records = pending_failures(folder)
            if records is not None and (
                not records
                or not could_change(
                    records,
                    project,
                    named,
                    cached_signals(project_state_path(str(location.project_key))),
                    # every skill, checked on disk: a superset of those the suggestion weighs
                    lambda: load_catalog(project),
                )
            ):
                return False  # left to the turn's Stop, SessionEnd or a CLI reader
        except Exception as exc:  # undecided: ingest, as when it can matter
            from pokayokay.infra.logs import fail_open

            fail_open("UserPromptSubmit: checking the spool", exc)
    from pokayokay.hooks import ingest  # only when ingesting (the gate's "no" needs none)

    result = ingest.ingest_quietly(
        "UserPromptSubmit", lambda: ingest.ingest_project(project, budget=PROMPT_INGEST_BUDGET)
    )
    if result is None or not result.done:
        return False
    import os

    from pokayokay.infra.spool import CACHES_STALE

    try:  # before the signals are read: a Stop that finds it refreshes after that read
        os.close(os.open(os.path.join(folder, CACHES_STALE), os.O_WRONLY | os.O_CREAT, 0o600))
    except OSError as exc:  # the prompt writes the caches itself, as before
        from pokayokay.infra.logs import fail_open

        fail_open("UserPromptSubmit: marking the caches for the turn's Stop", exc)
        return False
    return True


def _wait_for_catch_up(project: str) -> None:
    """The first prompt after a killed session: wait (bounded) for SessionStart's detached
    catch-up to graduate, so that a rule it writes is on disk before Claude reads a file; one
    stat when no catch-up runs."""
    import os

    from pokayokay.infra.spool import CATCH_UP_RUNNING, spool_dir

    mark = os.path.join(spool_dir(project), CATCH_UP_RUNNING)
    if not os.path.exists(mark):
        return
    try:
        from pokayokay.hooks.catch_up import wait_for_worker

        wait_for_worker(mark)
    except Exception as exc:  # the prompt goes on; the rule comes with a later Read
        from pokayokay.infra.logs import fail_open

        fail_open("UserPromptSubmit: waiting for the SessionStart catch-up", exc)


def user_prompt_submit(payload: dict[str, Any], event: str) -> str:
    """The hook: one ``additionalContext`` with the recall block and the suggestion, or
    nothing at all. A failure of one part does not lose the other (it is logged)."""
    from pokayokay.hooks.runtime import memory_paths, project_dir

    project = project_dir(payload)
    # First, whatever the prompt: a slash command, "go" or a turn Claude Code wrote may also
    # lead to a Read, and the rule must be on disk by then.
    _wait_for_catch_up(project)
    prompt = payload.get("prompt")
    if not isinstance(prompt, str) or len(prompt.strip()) < MIN_PROMPT_CHARS:
        return ""
    from pokayokay.recall.turns import recall_text, suggest_text

    if not recall_text(prompt).strip() and not suggest_text(prompt).strip():
        return ""  # a turn Claude Code wrote, pasted output, ``/remember``: nothing to read
    words = suggest_text(prompt)
    location: MemoryPaths | None
    try:
        location = memory_paths(payload)
    except Exception as exc:  # each part then tries on its own, and logs
        from pokayokay.infra.logs import fail_open

        fail_open("UserPromptSubmit memory location", exc)
        location = None
    from pokayokay.hooks.recall import recall_words

    recalled = recall_words(prompt)
    # asked before suggestion's modules load: the model's forward pass runs meanwhile
    dense = ask_dense(project, words, location, recalled)
    from pokayokay.skills.advice import needs_failure_signals
    from pokayokay.skills.suggest import prompt_paths

    named = prompt_paths(words)
    ingested = False
    if needs_failure_signals(project, named):
        ingested = _ingest_first(project, named, location)
    parts = []
    for name in ("recall", "suggest"):
        try:
            if name == "recall":
                from pokayokay.hooks.recall import prompt_context

                part = prompt_context(payload, location, dense, recalled)
            else:
                part = suggestion_context(payload, location, named, not ingested, dense)
        except Exception as exc:  # one part failing must not cost the other
            from pokayokay.infra.logs import fail_open

            fail_open(f"UserPromptSubmit {name}", exc)
            part = ""
        if part:
            parts.append(part)
    if not parts:
        return ""
    from pokayokay.hooks.runtime import context_output

    return context_output("UserPromptSubmit", "\n\n".join(parts))
