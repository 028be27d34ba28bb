"""Whether the spooled tool calls can change the failure signals a prompt reads.

UserPromptSubmit reads failure signals (``pokayokay.skills.failure_boost``) when the prompt names
project paths. Tool calls still in the spool (a turn the user interrupted has no Stop) are not in
the store yet, and ingesting them costs a path search, a store write and a new read of the
signals. They are ingested before the signals are read only when they can change whether a
recurring failure shows for the named paths; otherwise the turn's Stop, SessionEnd or a CLI
reader takes them in, and the prompt reads the store as it is.

A failure boost needs a group that failed in :data:`RECURRING_SESSIONS` sessions, in a category
the suggestion uses, placed where the prompt points (same file, same kind of file in the same
folder, under a named folder, or the tests of a named source file). A failure joins the group of
its signature (a new signature starts a group of one session), gives it its category (the
category follows the newest failure) and its paths. The cached signals keep every group's
signature (decision 0128), and each spooled failure's (signature, category) is computed by the
capture's own parse (:func:`pokayokay.hooks.capture.failure_keys`: no path search, no store;
the output classified only when a signature is one of the signals' groups), so one failure more
changes whether a boost shows only by (:func:`can_change`):

* joining a recurring group of a used category in another category, or one not placed where
  the prompt points yet (its paths may grow to that place);
* joining, in a used category, a group that failed in one other session (or in an unknown
  one), or that recurred in a category the suggestion does not use, unless a group of that
  category recurring at the named place in more sessions than the joined group can reach is
  shown before it (one group a category, most sessions first: the answer stays word for word),
  or, the project's skills read (:func:`stated_after`), no skill may address the joined group
  and the suggestion states other unaddressed failures, of more sessions, in its place;
* starting a group in two sessions at once (spooled failures of two parallel sessions);
* making a bare or partial file name in the prompt resolvable (``conftest.py`` →
  ``tests/conftest.py``: only paths a failure named resolve it), when the record holds that name.

Any of these, a record that cannot be parsed, or a spool too large to scan, means "ingest
first" (signals with no group a failure can join need no record parsed: the answer is no). What
can lag by one prompt otherwise is wording of a boost that shows anyway: its session
count, and which of several recurring groups of one category at the named place is shown.
"""

from __future__ import annotations

import os

from pokayokay.infra import spool, spool_frames

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Sequence
    from typing import Any

    from pokayokay.skills.catalog import Skill
    from pokayokay.skills.failure_boost import FailureSignals

# Spooled events whose handler can record a failure.
FAILURE_EVENTS = frozenset({"PostToolUseFailure", "PostToolBatch"})
# Pending spool bytes scanned at most; a larger spool is ingested first (bounded) unscanned.
SCAN_MAX = 4 << 20


def pending_failures(folder: str) -> list[tuple[str, bytes, str]] | None:
    """(session id, payload bytes, launch folder) of each spooled record not ingested yet that
    can record a failure, oldest first; None when the pending bytes exceed :data:`SCAN_MAX` or hold
    something that is no record (the ingester deals with that: the caller ingests)."""
    found: list[tuple[str, bytes, str]] = []
    total = 0
    for name, start in ((spool.CLAIMED, _cursor(folder)), (spool.ACTIVE, 0)):
        try:
            with open(os.path.join(folder, name), "rb") as fh:
                if os.fstat(fh.fileno()).st_size - start > SCAN_MAX - total:
                    return None
                fh.seek(start)
                data = fh.read(SCAN_MAX - total + 1)
        except FileNotFoundError:
            continue  # ingested meanwhile: nothing to scan
        total += len(data)
        if total > SCAN_MAX or not _failures_in(data, found):
            return None
    return found


def _failures_in(data: bytes, found: list[tuple[str, bytes, str]]) -> bool:
    """Add the failure records of ``data`` (whole records, back to back) to ``found``; False
    when ``data`` is anything else (a torn or foreign tail included)."""
    at = 0
    while at < len(data):
        _kind, size, record = spool_frames.next_frame(data, at, True)
        if record is None:
            return False
        event, _ts_ns, where, payload = record
        if event in FAILURE_EVENTS and (
            event != "PostToolBatch" or any(h in payload for h in spool.BATCH_FAILURE_HINTS)
        ):
            found.append((spool.session_of(payload), payload, where))
        at += size
    return True


def _cursor(folder: str) -> int:
    """How far the claimed segment is ingested (0 when unknown: scanning more is safe)."""
    try:
        with open(os.path.join(folder, spool.CURSOR), "rb") as fh:
            fields = fh.read(128).split()
        return int(fields[1] if len(fields) == 3 else fields[-1]) if fields else 0
    except (OSError, ValueError):
        return 0


def could_change(
    records: Sequence[tuple[str, bytes, str]],
    project: str,
    named: Sequence[str],
    signals: FailureSignals,
    skills: Callable[[], Sequence[Skill]] | None = None,
) -> bool:
    """Whether ingesting ``records`` (from :func:`pending_failures`) can change whether a
    recurring failure shows for the paths ``named`` in a prompt in ``project``. See the module
    docstring; ``skills``: :func:`can_change`'s."""
    if not records:
        return False
    from pokayokay.skills.advice import project_paths
    from pokayokay.skills.failure_boost import RECURRING_SESSIONS

    sessions = {session for session, _data, _where in records}
    if len(sessions) >= RECURRING_SESSIONS or "" in sessions:
        return True
    for raw in named:
        path = raw.strip().removeprefix("./").rstrip("/")
        if not path or os.path.exists(os.path.join(project, path)):
            continue
        base = path.rsplit("/", 1)[-1]
        if not base.isascii() or any(base.encode("ascii") in r[1] for r in records):
            return True  # a record may be what resolves the name to a project file
    resolved = project_paths(project, named, signals.known)
    if not resolved:
        return False  # no path to place a boost at, whatever the store holds
    known = {group.signature for group in signals.groups}
    known.update(group.signature for group in signals.near)
    if not known:
        return False  # no group a failure can join: can_change passes over every key, unparsed
    payloads = _payloads(records)
    if payloads is None:
        return True  # a record failure_keys does not read: ingested first
    # A failure whose texts cannot give any signature the signals hold joins no group:
    # can_change passes over its keys whatever they are, so it is not parsed (decision 0143).
    # Nor is one that can join only groups recurring at the named place whose category its
    # command binds (decision 0150): can_change passes over those keys too.
    parsed: list[dict[str, Any]] = []
    for payload in payloads:
        reached = _reached(payload, known)
        if reached == [] or _settled(payload, reached, sessions, resolved, signals, skills):
            continue
        parsed.append(payload)
    if not parsed:
        return False
    payloads = parsed
    keys = _keys(payloads, known)
    return can_change(keys, sessions, resolved, signals, skills, _commands(payloads))


def _commands(payloads: Sequence[dict[str, Any]]) -> list[str] | None:
    """The commands of the failed calls ``payloads`` hold (a group's sample command becomes its
    newest failure's); None when one has none (the group keeps a sample the signals lack)."""
    found: list[str] = []
    for payload in payloads:
        tool_input = payload.get("tool_input")
        command = tool_input.get("command") if isinstance(tool_input, dict) else None
        if not isinstance(command, str):
            return None
        found.append(command)
    return found


def _payloads(records: Sequence[tuple[str, bytes, str]]) -> list[dict[str, Any]] | None:
    """Each record's payload as the ingester hands it over (its launch folder under
    ``SPOOLED_PROJECT_KEY``); None when a record is not one
    :func:`pokayokay.hooks.capture.failure_keys` reads (a PostToolBatch, a payload that does
    not parse)."""
    from pokayokay.hooks.runtime import SPOOLED_PROJECT_KEY
    from pokayokay.infra.lean_json import loads  # json.loads without json's import

    payloads: list[dict[str, Any]] = []
    for _session, data, where in records:
        try:
            payload = loads(data.decode("utf-8", "surrogatepass"))
        except ValueError:
            return None
        if not isinstance(payload, dict) or payload.get("hook_event_name") != "PostToolUseFailure":
            return None
        payload[SPOOLED_PROJECT_KEY] = where  # as the ingester hands it over
        payloads.append(payload)
    return payloads


def _reached(payload: dict[str, Any], known: Collection[str]) -> list[str] | None:
    """The signatures in ``known`` the capture's parse of ``payload`` may give
    (:mod:`pokayokay.failures.reach`: string scans, no parse); None when it may give any. A
    call the capture records nothing for (an interrupt, no tool) gives none."""
    from pokayokay.failures.reach import call_text, can_reach

    tool = payload.get("tool_name")
    if payload.get("is_interrupt") is True or not isinstance(tool, str) or not tool:
        return []
    error = payload.get("error")
    tool_input = payload.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    text = call_text(
        tool,
        command if isinstance(command, str) else None,
        error if isinstance(error, str) else "",
    )
    if text is None:
        return None
    return [signature for signature in known if can_reach(signature, text)]


def _settled(
    payload: dict[str, Any],
    reached: list[str] | None,
    sessions: Collection[str],
    resolved: Sequence[str],
    signals: FailureSignals,
    skills: Callable[[], Sequence[Skill]] | None = None,
) -> bool:
    """Whether every key the capture's parse can give ``payload`` is one :func:`can_change`
    passes over, known without the parse (decision 0150): :func:`can_change` says no for each
    signature it may reach in the category its command binds
    (:mod:`pokayokay.failures.category_bound`, kept with the signals), its output holds no
    string that unbinds it, and the project has no classifier rows of its own."""
    bounds = signals.bounds
    tool_input = payload.get("tool_input")
    if not reached or not bounds or not isinstance(tool_input, dict):
        return False
    command = tool_input.get("command")
    if not isinstance(command, str):
        return False
    bound = bounds.get(command)
    if bound is None:
        return False
    from pokayokay.failures.reach import COMMAND_TOOLS, bound_holds

    if payload.get("tool_name") not in COMMAND_TOOLS:
        return False

    category, witnesses = bound
    keys = [(signature, category) for signature in reached]
    if can_change(keys, sessions, resolved, signals, skills, [command]):
        return False
    error = payload.get("error")
    return bound_holds(witnesses, error if isinstance(error, str) else "") and not _user_rows(
        payload
    )


def _user_rows(payload: dict[str, Any]) -> bool:
    """Whether the project of ``payload`` has classifier rows of its own (settings
    ``failure_categories:``), read as the capture reads them (its root, the rows' JSON)."""
    from pokayokay.failures.user_categories import cached_rows
    from pokayokay.hooks.runtime import project_dir
    from pokayokay.infra.location_rules import project_root
    from pokayokay.infra.state import project_state_path

    root = project_root(project_dir(payload))  # the capture's root (hooks.capture._Project)
    return bool(cached_rows(root, project_state_path(root)))


def _keys(payloads: Sequence[dict[str, Any]], known: Collection[str]) -> list[tuple[str, str]]:
    """(signature, category) of every failure the payloads hold whose signature is in
    ``known`` (the store's groups the signals keep: :func:`can_change` passes over any other
    whatever its category, so an output naming none is not classified), as their ingest stores
    them."""
    from pokayokay.hooks.capture import failure_keys

    keys: list[tuple[str, str]] = []
    for payload in payloads:
        keys.extend(failure_keys(payload, known))
    return keys


def can_change(
    keys: Sequence[tuple[str, str]],
    sessions: Collection[str],
    resolved: Sequence[str],
    signals: FailureSignals,
    skills: Callable[[], Sequence[Skill]] | None = None,
    commands: Sequence[str] | None = None,
) -> bool:
    """Whether failures with these (signature, category) ``keys``, of the one session in
    ``sessions``, can change whether a boost shows for the project paths ``resolved``, given the
    store's ``signals`` (the list in the module docstring; pure but for calling ``skills``).
    False is exact: after they are stored, :func:`pokayokay.skills.failure_boost.recurring`
    shows a boost for the same categories, or, for a category it did not show there, one the
    suggestion does not state either (:func:`stated_after`; only with ``skills``, which gives
    the project's skill catalog and is called once, when that question first comes up, and
    ``commands``, those of the failed calls, when known)."""
    from pokayokay.skills.failure_boost import CATEGORY_WORDS, RECURRING_SESSIONS, place

    if not resolved:
        return False
    kept = {group.signature: group for group in signals.groups}
    near = {group.signature: group for group in signals.near}
    catalog: Sequence[Skill] | None = None
    for signature, category in keys:
        group = kept.get(signature)
        if group is not None:  # recurring in a used category already
            if category != group.category or place(group, resolved) is None:
                return True  # another category, or its paths may grow to the named place
            continue
        other = near.get(signature)
        if other is None or category not in CATEGORY_WORDS:
            continue  # a new group of one session, or a category the suggestion does not use
        if other.sessions < RECURRING_SESSIONS and other.owner in sessions:
            continue  # the same session again: still one
        # Recurring now in a used category, or in a second session: it counts, but
        # recurring() shows one group per category, most sessions first, so a group of this
        # category placed where the prompt points with more sessions than it can reach (one
        # more than now: the records are one session's) is shown before it, whatever else
        # it holds. The answer is then the same, word for word.
        reach = other.sessions + 1
        if not any(
            group.category == category
            and group.sessions > reach
            and place(group, resolved) is not None
            for group in signals.groups
        ):
            if skills is None:
                return True
            if catalog is None:
                catalog = skills()
            if stated_after(category, reach, resolved, signals, catalog, commands):
                return True
    return False


def stated_after(
    category: str,
    reach: int,
    resolved: Sequence[str],
    signals: FailureSignals,
    skills: Sequence[Skill],
    commands: Sequence[str] | None = None,
) -> bool:
    """Whether a group of ``category`` recurring in at most ``reach`` sessions, wherever its paths
    lead, may change what the suggestion says for ``resolved``: some skill may address it (a
    boost, a reason), or fewer than :data:`~pokayokay.skills.suggest.MAX_UNADDRESSED` other
    categories no skill addresses recur there in more sessions. The suggestion states that many
    unaddressed failures, most sessions first (a tie goes to the newer group: this one); a group
    of ``category`` already shown there has fewer sessions than ``reach``, so it is outranked by
    them too and nothing of it is said before or after. Whether a skill addresses the group
    depends on its tool, read from its sample command, which becomes its newest failure's: the
    category's tools among the words of ``commands`` (what the group's failures ran), or none
    (the sample as the store keeps it may have lost a word); any tool of the category when
    ``commands`` is None. False is exact for the skills given and any subset (the prompt's usable
    skills, less a spike's)."""
    from pokayokay.skills.failure_boost import (
        CATEGORY_TOOLS,
        RECURRING_SESSIONS,
        concern,
        place,
        recurring,
        tools_in,
    )
    from pokayokay.skills.suggest import MAX_UNADDRESSED

    if commands is None:
        tools: set[str | None] = {None, *CATEGORY_TOOLS.get(category, ())}
    else:
        tools = {None, *(tool for command in commands for tool in tools_in(category, command))}
    if any(
        skill.model_invocable and concern(skill, category, tool) > 0
        for skill in skills
        for tool in tools
    ):
        return True
    ahead = 0
    for found in recurring(signals.groups, resolved, skills):
        if found.skill is not None or found.category == category:
            continue
        most = max(
            group.sessions
            for group in signals.groups
            if group.category == found.category
            and group.sessions >= RECURRING_SESSIONS
            and place(group, resolved) is not None
        )
        ahead += most > reach
    return ahead < MAX_UNADDRESSED
