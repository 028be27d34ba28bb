"""The advice for one prompt: the skill catalog, the memory signals (spike results, chain
learnings, recurring failures of the named files, rules that load for them) and the suggestion
scoring, joined. What the UserPromptSubmit hook and the suggest command both give."""

from __future__ import annotations

import os

from pokayokay.names import CHAIN_LEARNINGS_FILE, SPIKES_FILE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path
    from typing import Any

    from pokayokay.infra.locate import MemoryLocation
    from pokayokay.infra.location_rules import MemoryPaths
    from pokayokay.relevance.dense.client import Pending
    from pokayokay.skills.failure_boost import FailureSignals
    from pokayokay.skills.suggest import Advice, Signals


def project_paths(
    project: Path | str, named: Sequence[str], known: Sequence[str] = ()
) -> list[str]:
    """The paths among ``named`` (from a prompt) that are project files or folders: those that
    exist under ``project`` (folders get a trailing ``/``), and bare or partial names of a file
    in ``known`` (project files the failure store saw: ``conftest.py`` → ``tests/conftest.py``).
    A dotted word (``time.sleep``, ``os.path.join``) names nothing and is dropped."""
    root = os.fspath(project)
    out: list[str] = []
    for raw in named:
        path = raw.strip().removeprefix("./").rstrip("/")
        if not path or path.startswith(("/", "..")) or "\0" in path:
            continue
        full = os.path.join(root, path)
        found: list[str] = []
        if os.path.isdir(full):
            found = [f"{path}/"]
        elif os.path.isfile(full):
            found = [path]
        else:
            found = [k for k in known if k == path or k.endswith(f"/{path}")][:3]
        for item in found:
            if item not in out:
                out.append(item)
    return out


# Suffixes of files a project keeps: a bare name with one of them (``conftest.py``) may be a
# project file elsewhere in the tree; ``time.sleep`` or ``os.path.join`` cannot.
FILE_SUFFIXES = frozenset(
    """
    py pyi ipynb js jsx mjs cjs ts tsx vue svelte go rs java kt kts scala rb php cs c h cc cpp
    hpp swift m sh bash zsh ps1 sql md rst txt adoc json jsonc yml yaml toml ini cfg conf env
    xml html htm css scss sass less tf tfvars hcl proto graphql gql lock mod sum gradle
    """.split()  # noqa: SIM905 - a word list reads better as text
)


def _maybe_project_file(project: str, path: str) -> bool:
    """Whether ``path`` (from a prompt) can be a project file, cheaply: it exists, or its suffix
    is one a project's files have."""
    clean = path.strip().removeprefix("./").rstrip("/")
    if not clean or clean.startswith(("/", "..")):
        return False
    if os.path.exists(os.path.join(project, clean)):
        return True
    last = clean.rsplit("/", 1)[-1]
    return "." in last and last.rsplit(".", 1)[-1].lower() in FILE_SUFFIXES


def needs_failure_signals(project: Path | str, named_paths: Sequence[str]) -> bool:
    """Whether a prompt naming ``named_paths`` needs the failure signals (and the rules): it
    names something that can be a project file or folder. Stats only."""
    root = os.fspath(project)
    return any(_maybe_project_file(root, p) for p in named_paths)


def gather_signals(
    project: Path | str,
    location: MemoryLocation | MemoryPaths,
    named_paths: Sequence[str],
    write_signals: bool = True,
) -> Signals:
    """The memory signals for one prompt (read lazily, each fail-soft). ``named_paths`` are
    the paths the prompt (or the caller) names, unchecked. ``write_signals``: see
    :func:`cached_signals` (``write``)."""
    from pokayokay.skills.suggest import Signals

    spikes: list[Any] = []
    groups: list[Any] = []
    known: list[str] = []
    rules: list[tuple[str, tuple[str, ...]]] = []
    rules_cache: str | None = None
    memory_dir = location.memory_dir
    if os.path.exists(os.path.join(memory_dir, SPIKES_FILE)):
        from pathlib import Path

        from pokayokay.learnings.outcomes.spikes import read as read_spikes

        spikes = list(read_spikes(Path(memory_dir)))
    chain_reader = None
    if os.path.exists(os.path.join(memory_dir, CHAIN_LEARNINGS_FILE)):

        def chain_reader() -> list[Any]:  # only when a suggestion is shown (Signals)
            from pokayokay.learnings.outcomes.chain_entries import read
            from pokayokay.skills.suggest import CHAIN_LOOKBACK

            # the suggestion looks at the latest entries only: the rest is not parsed
            return read(str(memory_dir), CHAIN_LEARNINGS_FILE, latest=CHAIN_LOOKBACK)
    if needs_failure_signals(project, named_paths):
        from pokayokay.infra.state import project_state_path

        try:
            state = project_state_path(str(location.project_key))
            found = cached_signals(state, write=write_signals)
            groups, known = list(found.groups), list(found.known)
        except Exception as exc:  # a locked or damaged store must not cost the prompt its context
            from pokayokay.infra.logs import fail_open

            fail_open("failure signals for the skill suggestion", exc)
            groups, known = [], []
        rules_dir = os.path.join(project, ".claude", "rules", "pokayokay")
        if os.path.isdir(rules_dir):
            from pokayokay.infra.state import project_state_path
            from pokayokay.names import RULE_SCOPES_FILE

            state = project_state_path(str(location.project_key))
            rules_cache = os.path.join(state, RULE_SCOPES_FILE)
    paths = project_paths(project, named_paths, known) if named_paths else []
    matched: list[tuple[str, str]] | None = None
    if rules_cache is not None:
        from pokayokay.rules.scopes import rules_for_paths

        rules, matched = rules_for_paths(project, rules_cache, paths)
    return Signals(
        spikes=spikes, failure_groups=groups, rules=rules, paths=paths, matched_rules=matched,
        chain_reader=chain_reader,
    )  # fmt: skip


def advice_for(
    project: Path | str,
    prompt: str,
    *,
    paths: Sequence[str] = (),
    location: MemoryLocation | MemoryPaths | None = None,
    named: Sequence[str] | None = None,
    quick: bool = False,
    write_signals: bool = True,
    dense: Pending | None = None,
) -> Advice:
    """The suggestion for ``prompt`` in ``project`` (catalog, signals, scoring). ``named``:
    the paths the prompt names (``suggest.prompt_paths``), when the caller has them. With
    ``quick`` (the prompt hook), the skill catalog is checked by its folders only, and the
    ``SKILL.md`` of each suggested skill is stat-ed: one that changed brings the full check
    and a new answer (``pokayokay.skills.catalog``). ``write_signals``: see
    :func:`cached_signals` (``write``). ``dense``: the dense opinion asked for
    (:func:`pokayokay.relevance.dense.client.ask`), read last, once the lexical work is done."""
    from pokayokay.skills.catalog import load_catalog, unchanged_since_cached
    from pokayokay.skills.suggest import prompt_paths, suggest

    loc = location
    if loc is None:
        from pokayokay.infra.location_rules import hook_memory_paths

        loc = hook_memory_paths(project)
    skills = load_catalog(project, quick=quick)
    in_prompt = prompt_paths(prompt) if named is None else named
    named = [*paths, *(p for p in in_prompt if p not in paths)]
    signals = gather_signals(project, loc, named, write_signals)
    cosines = dense.cosines() if dense is not None else None
    advice = suggest(prompt, skills, signals, dense=cosines)
    if quick and not unchanged_since_cached(skills, [s.name for s in advice.suggestions]):
        advice = suggest(prompt, load_catalog(project), signals, dense=cosines)
    return advice


# The signals this process read, by state folder, with the key they were read for.
_SIGNALS_READ: dict[str, tuple[list[Any], FailureSignals]] = {}


def cached_signals(state_dir: str, bounds: bool = False, write: bool = True) -> FailureSignals:
    """The failure signals of the project whose state folder is ``state_dir``: from
    ``suggest-failures.marshal`` when the store's change marker did not move since it was written,
    else read from the store (and the cache rewritten). Empty without a store (never created).
    ``bounds``: with the category bounds of the kept groups' commands (decision 0150; the
    capture pipeline and ``re`` imported to compute them): a cache without them is rebuilt.
    The prompt asks without, so that it never computes them. ``write`` False: signals read
    from the store are not written to the cache (a prompt that ingested the spool itself leaves
    that to the turn's Stop: ``pokayokay.infra.spool.CACHES_STALE``); the next reader that finds
    the cache stale reads the store again."""
    from pokayokay.infra import packed
    from pokayokay.names import (
        FAILURES_CHANGED,
        FAILURES_DB,
        LEGACY_SUGGEST_FAILURES_FILE,
        SUGGEST_FAILURES_FILE,
    )
    from pokayokay.recall.readers import stat_key
    from pokayokay.skills.failure_boost import (
        FailureSignals,
        signals_from_data,
        signals_from_groups,
        signals_to_data,
    )

    db = stat_key(os.path.join(state_dir, FAILURES_DB))
    if db is None:
        return FailureSignals([], [])
    # Read before the store: a write landing meanwhile leaves a key that no longer matches.
    key: list[Any] = [stat_key(os.path.join(state_dir, FAILURES_CHANGED)) or db]
    memo = _SIGNALS_READ.get(state_dir)
    if memo is not None and memo[0] == key and (not bounds or memo[1].bounds is not None):
        return memo[1]  # read already in this process (the prompt's gate)
    path = os.path.join(state_dir, SUGGEST_FAILURES_FILE)
    try:  # marshal's format (infra.packed): a 20 KB cache of a busy store in a fraction of a ms
        cached = signals_from_data(packed.load(path), key)
    except ValueError:
        cached = None
    if cached is not None and (not bounds or cached.bounds is not None):
        _SIGNALS_READ[state_dir] = (key, cached)
        return cached
    from pokayokay.failures.store import FailureStore

    with FailureStore(os.path.join(state_dir, FAILURES_DB)) as store:
        groups, owners = store.failure_groups(), store.single_session_owners()
    if bounds:
        from pokayokay.failures.category_bound import bound_for_command

        signals = signals_from_groups(groups, owners, bound_for_command)
    else:
        signals = signals_from_groups(groups, owners)
    _SIGNALS_READ[state_dir] = (key, signals)
    if not write:
        return signals
    packed.save(path, signals_to_data(signals, key))  # a cache: unwritten, the store is read
    try:  # noqa: SIM105 - contextlib is one more import on the prompt path
        os.unlink(os.path.join(state_dir, LEGACY_SUGGEST_FAILURES_FILE))  # read by no one
    except OSError:
        pass  # absent (the usual case), or left for the next write
    return signals
