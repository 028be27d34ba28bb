"""UserPromptSubmit (and SessionStart): notes from the project's memory similar to the prompt.

The prompt is matched against learnings, Key Decisions entries and fix episodes
(``pokayokay.recall.sources``, ``pokayokay.relevance.note_index``). When something clears the
similarity floor, the hook prints ``hookSpecificOutput.additionalContext`` holding the four-part
fenced block, which Claude Code places beside the prompt as a system reminder. When nothing does, it
prints nothing at all: no noise on every prompt.

Hot path: this module imports only the standard library at the top; the recall modules are
imported once a prompt is worth looking at. Work is capped: the prompt is read up to
``recall.MAX_QUERY_CHARS``; re-reading changed memory files stops after :data:`PARSE_BUDGET`
seconds (the next prompt continues); the corpus itself is capped in ``recall_sources``.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from pokayokay.infra.locate import MemoryLocation
    from pokayokay.infra.location_rules import MemoryPaths
    from pokayokay.relevance.dense.client import Pending


# Seconds a prompt may spend re-reading changed memory files (Claude Code waits for this hook).
PARSE_BUDGET = 1.0
# Prompts shorter than this (after trimming) hold too little to match on ("ok", "yes").
MIN_PROMPT_CHARS = 3
# ... and so do prompts with fewer terms than this once stop words are gone ("continue").
MIN_CONTENT_TERMS = 2

# Branch names that say nothing about the work at hand.
_PLAIN_BRANCHES = frozenset({"main", "master", "develop", "development", "dev", "trunk", "HEAD"})


def _block(
    payload: dict[str, Any],
    query: str,
    advisory: str | None = None,
    location: MemoryLocation | MemoryPaths | None = None,
    *,
    quick: bool = False,
    dense: Pending | None = None,
) -> str:
    from pokayokay.hooks.runtime import memory_paths
    from pokayokay.recall.sources import block_for

    session = payload.get("session_id")
    return block_for(
        location if location is not None else memory_paths(payload),
        query,
        budget=PARSE_BUDGET,
        session=session if isinstance(session, str) and session else None,
        advisory=advisory,
        quick=quick,
        dense=dense,
    )


def worth_recalling(prompt: str) -> bool:
    """Whether a prompt can be matched at all: not a slash command (``/remember ...`` is the
    user talking to a tool, not a task), and at least :data:`MIN_CONTENT_TERMS` words that say
    something (``ok``, ``yes go on``, ``continue`` do not)."""
    text = prompt.strip()
    if len(text) < MIN_PROMPT_CHARS or text.startswith("/"):
        return False
    from pokayokay.relevance.analyser import tokenize, weak_terms

    terms = tokenize(text[:400])
    strong = [t for t in terms if t not in weak_terms()]
    return len(terms) >= MIN_CONTENT_TERMS and bool(strong)


def recall_words(prompt: object) -> str:
    """What recall reads of a prompt ("" when it reads nothing: a machine's turn, pasted
    output, a command or too few words)."""
    if not isinstance(prompt, str):
        return ""
    from pokayokay.recall.turns import recall_text

    text = recall_text(prompt)
    return text if worth_recalling(text) else ""


def prompt_context(
    payload: dict[str, Any],
    location: MemoryLocation | MemoryPaths | None = None,
    dense: Pending | None = None,
    words: str | None = None,
) -> str:
    """The recall block for the payload's prompt, or "" (for a handler that joins several
    contexts on UserPromptSubmit; ``location``: the memory location, when it has it). Only the
    person's words are read (``pokayokay.recall.turns``): nothing for a turn Claude Code wrote
    (``<task-notification>``), pasted tool output or ``/remember``; a slash command's
    arguments. ``dense``: the dense opinion asked for (decision 0181); ``words``: what
    :func:`recall_words` gives the prompt, when the caller has it already."""
    text = recall_words(payload.get("prompt")) if words is None else words
    if not text:
        return ""
    return _block(payload, text, location=location, quick=True, dense=dense)


def user_prompt_submit(payload: dict[str, Any], event: str) -> str:
    """The hook: ``additionalContext`` with the block, or nothing at all."""
    from pokayokay.hooks.runtime import context_output

    block = prompt_context(payload)
    return context_output("UserPromptSubmit", block) if block else ""


# --------------------------------------------------------------------------------------------
# SessionStart: there is no prompt yet; the branch name is the best hint of the work ahead.


def _head_file(project: str | os.PathLike[str]) -> str | None:
    from pokayokay.infra.location_rules import git_toplevel  # strings: no pathlib

    top = git_toplevel(project)
    if top is None:
        return None
    dot_git = os.path.join(top, ".git")
    if os.path.isdir(dot_git):
        return os.path.join(dot_git, "HEAD")
    from pokayokay.infra.regular import open_regular

    try:
        with open_regular(dot_git) as fh:
            first = fh.read(4096).decode("utf-8", "replace").splitlines()[:1]
    except OSError:
        return None
    if not first or not first[0].startswith("gitdir:"):
        return None
    return os.path.join(top, first[0][len("gitdir:") :].strip(), "HEAD")


def branch_query(project: str | os.PathLike[str]) -> str:
    """Words of the checked-out branch (``fix/stripe-webhook-retries`` → ``fix stripe webhook
    retries``); empty on a detached HEAD or a branch like ``main`` that names no topic."""
    head = _head_file(project)
    if head is None:
        return ""
    from pokayokay.infra.regular import open_regular

    try:
        with open_regular(head) as fh:
            line = fh.read(4096).decode("utf-8", "replace").strip()
    except OSError:
        return ""
    prefix = "ref: refs/heads/"
    if not line.startswith(prefix):
        return ""
    branch = line[len(prefix) :]
    if branch in _PLAIN_BRANCHES:
        return ""
    return " ".join(branch.replace("/", " ").replace("-", " ").replace("_", " ").split())


def session_start_context(payload: dict[str, Any]) -> str:
    """The recall block for a new session, matched on the branch name ("" when none).

    It takes the prompts' quick freshness check (a note about to be shown that changed is read
    again first). The full check (every learning file stat-ed, changed ones re-read), which
    sees a learning edited in place that is no hit, is SessionEnd's
    (:func:`full_freshness_check`, docs/decisions/0105): every learning stat-ed cost a
    session start about one interpreter start per 2,000 learnings (issue 26)."""
    from pokayokay.hooks.runtime import project_dir

    query = branch_query(project_dir(payload))
    if len(query) < MIN_PROMPT_CHARS:
        return ""  # main, or a detached HEAD: the recall modules are not even imported
    from pokayokay.recall.block import ADVISORY_BRANCH

    return _block(payload, query, ADVISORY_BRANCH, quick=True)


def full_freshness_check(location: MemoryLocation, budget: float) -> None:
    """The recall index checked against every source (every learning file stat-ed, changed
    ones re-read within ``budget`` seconds, the cache and its quick key renewed): SessionEnd's,
    so that what the quick check cannot see (a learning edited in place) is seen from the
    next session on. Nothing when no index was cached yet (the first prompt builds it)."""
    from pokayokay.infra.state import project_state_dir
    from pokayokay.names import RECALL_INDEX_FILE

    if (project_state_dir(str(location.project_key)) / RECALL_INDEX_FILE).exists():
        from pokayokay.recall.sources import index_for

        index_for(location, budget=budget)


def session_start(payload: dict[str, Any], event: str) -> str:
    """A SessionStart handler of its own (for wiring without session.py's note)."""
    from pokayokay.hooks.runtime import context_output

    block = session_start_context(payload)
    return context_output("SessionStart", block) if block else ""
