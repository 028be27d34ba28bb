"""UserPromptSubmit: recalled notes and fitting skills, in ONE ``additionalContext``.

Joins the recall block (``pokayokay.hooks.recall.prompt_context``) and the skill suggestion
(``pokayokay.skills.suggest``). Prints nothing at all when both are empty: no noise on every prompt.

Hot path: standard library only at import time. Memory signals are read only when they can
matter: failure groups and rule files only when the prompt names a path, the spike and chain
files only when they exist.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path
    from typing import Any

    from pokayokay.infra.locate import MemoryLocation
    from pokayokay.skills.suggest import Advice, Signals

MIN_PROMPT_CHARS = 3


def gather_signals(project: Path, location: MemoryLocation, named_paths: Sequence[str]) -> Signals:
    """The memory signals for one prompt (read lazily, each fail-soft)."""
    from pokayokay.skills.suggest import Signals

    spikes: list[Any] = []
    chain: list[Any] = []
    groups: list[Any] = []
    rules: list[tuple[str, tuple[str, ...]]] = []
    memory_dir = location.memory_dir
    if os.path.exists(os.path.join(memory_dir, "spike-results.md")):
        from pokayokay.learnings.spikes import read as read_spikes

        spikes = list(read_spikes(memory_dir))
    if os.path.exists(os.path.join(memory_dir, "chain-learnings.md")):
        from pokayokay.learnings.chain import read as read_chain

        chain = list(read_chain(memory_dir))
    if named_paths:
        from pokayokay.infra.state import project_state_dir
        from pokayokay.names import FAILURES_DB

        try:
            if (project_state_dir(str(location.project_key)) / FAILURES_DB).exists():
                from pokayokay.failures.store import FailureStore

                with FailureStore.for_project(location.project_key) as store:
                    groups = list(store.failure_groups())
        except Exception:  # a locked or damaged store must not cost the prompt its context
            groups = []
        rules_dir = os.path.join(project, ".claude", "rules", "pokayokay")
        if os.path.isdir(rules_dir):
            from pokayokay.rules.files import discover

            rules = [
                (rule.rel_path, rule.paths)
                for rule in discover(project)
                if rule.is_pokayokay and rule.conditional and rule.paths
            ]
    return Signals(spikes=spikes, failure_groups=groups, rules=rules, chain=chain)


def advice_for(
    project: Path,
    prompt: str,
    *,
    paths: Sequence[str] = (),
    location: MemoryLocation | None = None,
) -> Advice:
    """The suggestion for ``prompt`` in ``project`` (catalog, signals, scoring)."""
    from pokayokay.infra.locate import memory_location_for
    from pokayokay.skills.catalog import load_catalog
    from pokayokay.skills.suggest import prompt_paths, suggest

    loc = location if location is not None else memory_location_for(project)
    skills = load_catalog(project)
    named = [*paths, *prompt_paths(prompt)]
    signals = gather_signals(project, loc, named)
    return suggest(prompt, skills, signals, paths=paths)


def suggestion_context(payload: dict[str, Any]) -> str:
    """The suggestion text for the payload's prompt, or ""."""
    from pathlib import Path

    from pokayokay.hooks.runtime import project_dir

    prompt = payload.get("prompt")
    if not isinstance(prompt, str) or len(prompt.strip()) < MIN_PROMPT_CHARS:
        return ""
    return advice_for(Path(project_dir(payload)), prompt).text()


def user_prompt_submit(payload: dict[str, Any], event: str) -> str:
    """The hook: one ``additionalContext`` with the recall block and the suggestion, or
    nothing at all. A failure of one part does not lose the other (it is logged)."""
    parts = []
    for name in ("recall", "suggest"):
        try:
            if name == "recall":
                from pokayokay.hooks.recall import prompt_context

                part = prompt_context(payload)
            else:
                part = suggestion_context(payload)
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
