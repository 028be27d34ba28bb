"""Failure capture: PostToolUseFailure, PostToolBatch and PostToolUse write the failure store.

The hottest code in pokayokay: once registered, PostToolUse runs after every successful tool call.
So this module imports only the standard library at module level, pokayokay's modules are
imported inside the handlers that need them (a success never loads the signature, classifier or
sanitiser regexes), and each handler does one short SQLite transaction at most — a Bash success
with no open fix episode, the common case, only reads.

* ``PostToolUseFailure``: a tool that started failed. Bash/PowerShell errors arrive as
  ``"Exit code N\\n<output>"`` (no ``tool_response``); other tools' errors are plain text. An
  interrupt (``is_interrupt: true``) is the user stopping Claude, not a mistake: skipped; so is
  a ``pokayokay`` command whose exit is a documented answer (``remember --mode model`` exiting 5
  in ask-first mode: :func:`pokayokay.failures.classify.own_answer`).
* ``PostToolBatch``: every result of the batch, as the text the model got. Only the failures no
  other hook sees are recorded here: ``<tool_use_error>`` validation errors (e.g. Edit's
  ``String to replace not found in file.``), PreToolUse hook denials, permission denials and user
  rejections. ``Exit code N`` results are left to PostToolUseFailure and successes to
  PostToolUse; a ``tool_use_id`` is stored once anyway, so no call is counted twice.
* ``PostToolUse``: a success. For Bash/PowerShell it closes the session's open fix episodes of
  the same command or of a command it corrects (``python -m pytest`` → ``.venv/bin/python -m
  pytest``: a correction, see :mod:`pokayokay.failures.corrections`); a session with no open
  episode costs one indexed read. For Edit/MultiEdit/Write/NotebookEdit it records the edited
  project file and, only while an episode is open, a few exact, redacted lines of the change.

One output may name several mistakes (:mod:`pokayokay.failures.mistakes`): each is its own
failure row, keyed by its group key (``ruff:F401``, ``test:<test id>``). Secrets are redacted
from the command and the output before anything is built from them.

Paths: the project root is the canonical git root of ``CLAUDE_PROJECT_DIR`` (else the payload's
``cwd``), or that folder itself outside git; relative paths in commands and output are taken
relative to the payload's ``cwd``.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Container
    from typing import Any

    from pokayokay.failures.classify import Rule
    from pokayokay.failures.model import Failure
    from pokayokay.failures.store import FailureStore

COMMAND_TOOLS = frozenset({"Bash", "PowerShell"})
EDIT_TOOLS = frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit"})

# Bash and PowerShell errors start "Exit code N" on a line of its own: read by exit_header.
_EXIT_PREFIX = "Exit code "
# Results in a PostToolBatch that no other hook reports. An optional "Error: " prefix is the
# transcript's form of the same text. A pattern string, compiled by ``re.match``'s cache on the
# first batch: the failure hook and the prompt's spool gate import this module and read none.
_BATCH_FAILURE = (
    r"\A\s*(?:Error: )?(?:<tool_use_error>|\w+:\S+ hook error\b|Permission to use \S"
    r"|The user doesn't want to)"
)


def exit_header(error: str) -> tuple[int, int] | None:
    """(exit code, end of the header line) of an error starting ``Exit code N``, the line
    ending there or at the text's end; None otherwise. A string scan equal to the pattern
    ``\\AExit code (-?\\d+)[ \\t]*(?:\\r?\\n|\\Z)`` (``\\d`` is :meth:`str.isdecimal`;
    ``tests/hooks/test_exit_header.py`` holds it to that pattern): the prompt's spool gate reads
    a spooled failure without compiling it."""
    if not error.startswith(_EXIT_PREFIX):
        return None
    start = at = len(_EXIT_PREFIX)
    if error.startswith("-", at):
        at += 1
    digits = at
    while at < len(error) and error[at].isdecimal():
        at += 1
    if at == digits:
        return None
    code = int(error[start:at])
    while at < len(error) and error[at] in " \t":
        at += 1
    if at == len(error):
        return code, at
    if error.startswith("\n", at):
        return code, at + 1
    if error.startswith("\r\n", at):
        return code, at + 2
    return None


class _Project:
    """Where one payload happened: the project root, its other spellings, the command's cwd."""

    def __init__(self, payload: dict[str, Any]) -> None:
        from pokayokay.hooks.runtime import project_dir
        from pokayokay.infra.location_rules import project_root

        launch = project_dir(payload)
        self.root = project_root(launch)
        cwd = payload.get("cwd")
        self.cwd = cwd if isinstance(cwd, str) and os.path.isabs(cwd) else launch
        self.launch = launch
        self._aliases: tuple[str, ...] | None = None
        self._rules: tuple[Rule, ...] | None = None

    @property
    def aliases(self) -> tuple[str, ...]:
        if self._aliases is None:
            from pokayokay.failures.evidence_paths import root_aliases

            self._aliases = root_aliases(self.root, (self.launch, self.cwd))
        return self._aliases

    def user_rules(self) -> tuple[Rule, ...]:
        """The settings' ``failure_categories:`` rows, from their compiled JSON (no YAML)."""
        if self._rules is None:
            from pokayokay.failures.user_categories import user_rules
            from pokayokay.infra.state import project_state_path

            self._rules = user_rules(self.root, project_state_path(self.root))
        return self._rules

    def store(self) -> FailureStore | _Borrowed:
        """The project's store for one ``with`` block: opened and closed, or, while the spool is
        ingested (:class:`stores_kept_open`), one connection kept for all the records."""
        from pokayokay.failures.store import FailureStore

        kept = _kept
        if kept is None:
            return FailureStore.for_project(self.root)
        if self.root not in kept:
            kept[self.root] = FailureStore.for_project(self.root)
        return _Borrowed(kept[self.root])


# Stores kept open across the records of one ingest (opening and closing the store, with its
# WAL checkpoint, was three quarters of a record's ingest: 22 of 29 ms). One ingester per
# process at a time, no threads: a module global, saved and put back like a context variable.
_kept: dict[str, FailureStore] | None = None


class _Borrowed:
    """A kept store, for a ``with`` block that must not close it."""

    __slots__ = ("_store",)

    def __init__(self, store: FailureStore) -> None:
        self._store = store

    def __enter__(self) -> FailureStore:
        return self._store

    def __exit__(self, *exc: object) -> None:
        return None


class stores_kept_open:  # named as the context manager it is
    """``with stores_kept_open():`` the handlers of this module share one open store per
    project until the block ends (the ingester's records: each still writes in its own
    transaction, with its spool position)."""

    __slots__ = ("_outer",)

    def __enter__(self) -> None:
        global _kept
        self._outer = _kept
        _kept = {}

    def __exit__(self, *exc: object) -> None:
        global _kept
        stores, _kept = _kept or {}, self._outer
        for store in stores.values():
            store.close()


def _when(payload: dict[str, Any]) -> float:
    """When the hook fired (a spooled payload carries its time; see pokayokay.hooks.ingest)."""
    from pokayokay.hooks.runtime import event_time

    return event_time(payload)


def _session(payload: dict[str, Any]) -> str:
    session = payload.get("session_id")
    return session if isinstance(session, str) else ""


def _tool_input(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


class _Parsed:
    """What one failing call's output says before any path is looked for: the redacted
    command and output, the mistakes it names, its category (``_parse``)."""

    __slots__ = (
        "_category", "_signed", "_tool", "body", "command", "exit_code", "mistakes", "project",
        "tool_input",
    )  # fmt: skip

    def __init__(self, project: _Project, tool: str, tool_input: dict[str, Any], error: str):
        from pokayokay.failures.ingest_cursor import check_budget
        from pokayokay.failures.mistakes import find_mistakes
        from pokayokay.failures.signature import command_key
        from pokayokay.infra.spool import cut_text
        from pokayokay.safety.redact import redact

        # Bounded before any regex work (a 15 MiB output costs what its head and tail cost),
        # then secrets go, before anything is derived from the text: nothing stored carries one.
        error = redact(cut_text(error))
        self.tool_input = {
            key: redact(cut_text(value)) if key == "command" and isinstance(value, str) else value
            for key, value in tool_input.items()
        }
        check_budget("finding mistakes")
        self.exit_code = None
        self.body = error
        header = exit_header(error)
        if header is not None:
            self.exit_code, end = header
            self.body = error[end:]
        raw_command = self.tool_input.get("command")
        self.command = (
            command_key(raw_command)
            if tool in COMMAND_TOOLS and isinstance(raw_command, str)
            else None
        )
        self.project = project
        self._tool = tool
        self._category: str | None = None
        self._signed: tuple[str, str] | None = None  # (tool, its text signature), when asked
        self.mistakes = find_mistakes(self.body, self.command)

    @property
    def category(self) -> str:
        """The failures' category, classified when first asked (the prompt's spool gate asks
        only for a failure whose signature the store's signals hold)."""
        if self._category is None:
            from pokayokay.failures.classify import FALLBACK, classify
            from pokayokay.failures.ingest_cursor import check_budget

            check_budget("classifying")
            # The first mistake reported decides the kind (tsc's TS2345 before a TS2307 is a
            # type error, not a missing dependency); the whole output when that says nothing.
            user_rules = self.project.user_rules()
            tool, command = self._tool, self.command
            category = FALLBACK
            if len(self.mistakes) > 1:
                category = classify(tool, command, self.mistakes[0].text, user_rules)
            if category == FALLBACK:
                category = classify(tool, command, self.body, user_rules)
            self._category = category
        return self._category

    @property
    def roots(self) -> tuple[str, ...]:
        """The project root and its other spellings (looked for only when a text needs them:
        the gate's keys of an output naming a mistake never do)."""
        return (self.project.root, *self.project.aliases)

    def text_signature(self, tool: str) -> str:
        """The signature of an output that names no mistake: its normalised text, else the
        failing command (or tool). Kept once read: the spool gate's parse reads it, and the
        ingest that takes that parse over reads it again (the temporary folders it drops are
        this process's ``TMPDIR``, the same for both)."""
        signed = self._signed
        if signed is not None and signed[0] == tool:
            return signed[1]
        signature = self._text_signature(tool)
        self._signed = (tool, signature)
        return signature

    def _text_signature(self, tool: str) -> str:
        from pokayokay.failures.signature import normalise

        temp_dirs = tuple(d for d in (os.environ.get("TMPDIR"),) if d and len(d) > 1)
        signature = normalise(self.body, project_roots=self.roots, temp_dirs=temp_dirs)
        if not signature:
            # Nothing meaningful in the output: the failing command (or tool) is the signature.
            what = self.command or tool or "tool"
            code = "" if self.exit_code is None else f" (exit code {self.exit_code})"
            signature = normalise(
                f"{what} failed with no output{code}", project_roots=self.roots,
                temp_dirs=temp_dirs,
            )  # fmt: skip
        return signature

    def signatures(self, tool: str) -> list[str]:
        """The signature of each failure :func:`_build_failures` makes of this output."""
        if self.mistakes:
            return [m.key for m in self.mistakes]
        return [self.text_signature(tool)]


def _build_failures(
    project: _Project,
    session_id: str,
    tool: str,
    tool_input: dict[str, Any],
    error: str,
    ts: float,
    parsed: _Parsed | None = None,
) -> list[Failure]:
    """One failure per mistake the output names (:func:`pokayokay.failures.mistakes.find_mistakes`:
    a ruff run with three codes is three failures), else one keyed by the normalised text.
    ``parsed``: this call's parse, when the prompt's spool gate made it already."""
    from pokayokay.failures.evidence_paths import WorkTree, extract_paths
    from pokayokay.failures.ingest_cursor import check_budget
    from pokayokay.failures.model import Failure
    from pokayokay.failures.signature import key_lines, relativise, whole_lines
    from pokayokay.safety.sanitize import excerpt

    if parsed is None:
        parsed = _Parsed(project, tool, tool_input, error)
    category = parsed.category  # classified here, inside the record's time budget
    body, roots, mistakes = parsed.body, parsed.roots, parsed.mistakes
    check_budget("finding paths")
    files = WorkTree(project.root)  # only files that exist now, in the work tree or git

    def failure(signature: str, text: str, shown: str) -> Failure:
        check_budget("finding paths")
        return Failure(
            ts=ts,
            session_id=session_id,
            tool=tool,
            command=parsed.command,
            signature=signature,
            category=category,
            paths=extract_paths(
                tool,
                parsed.tool_input,
                text,
                project.root,
                cwd=project.cwd,
                aliases=project.aliases,
                files=files,
                test_run=signature.startswith("test:"),
            ),
            excerpt=excerpt(relativise(shown, roots)),  # the root cut where the tool printed it
            exit_code=parsed.exit_code,
        )

    check_budget("the signature")
    if len(mistakes) == 1:
        [mistake] = mistakes
        # A diagnostic's own line names it; a test or an exception reads better with the
        # lines around it (the assertion, the exception message).
        lines = key_lines(body, project_roots=roots)
        if lines and mistake.key.startswith("python:") and mistake.line not in lines:
            lines = [mistake.line, *lines]  # the exception's own line, never only a summary
        if lines and mistake.key.startswith(("test:", "python:")):
            return [failure(mistake.key, body, " | ".join(whole_lines(lines, body)))]
        return [failure(mistake.key, body, mistake.line)]
    if mistakes:
        return [failure(m.key, m.text, " | ".join(whole_lines([m.line], m.text))) for m in mistakes]
    signature = parsed.text_signature(tool)
    lines = key_lines(body, project_roots=roots)
    return [failure(signature, body, " | ".join(lines) if lines else body)]


def _recorded_call(payload: dict[str, Any]) -> tuple[str, dict[str, Any], str] | None:
    """(tool, tool input, error) of a PostToolUseFailure payload that records failures; None
    for one that records nothing (an interrupt, no tool, pokayokay's own answer)."""
    if payload.get("is_interrupt") is True:
        return None
    tool = payload.get("tool_name")
    error = payload.get("error")
    if not isinstance(tool, str) or not tool:
        return None
    error = error if isinstance(error, str) else ""
    tool_input = _tool_input(payload.get("tool_input"))
    if tool in COMMAND_TOOLS and "pokayokay" in str(tool_input.get("command")):
        header = exit_header(error)
        if header is not None:
            from pokayokay.failures.classify import own_answer

            if own_answer(str(tool_input.get("command")), header[0]):
                return None  # pokayokay answered (e.g. "propose this learning"): not a mistake
    return tool, tool_input, error


def failure_keys(
    payload: dict[str, Any], wanted: Container[str] | None = None
) -> list[tuple[str, str]]:
    """(signature as stored, category) of each failure :func:`post_tool_use_failure` records
    for ``payload``, in the store's group terms, with none of its path search, excerpt or store
    write (``pokayokay.hooks.spool_gate``): the same parse, so the same keys. With ``wanted``,
    only the failures whose signature it holds, and the output is classified only when one
    does (the gate's question for any other signature does not depend on its category)."""
    from pokayokay.safety.redact import redact

    call = _recorded_call(payload)
    if call is None:
        return []
    tool, tool_input, error = call
    project = _Project(payload)
    parsed = _Parsed(project, tool, tool_input, error)
    _keep_parse((project.launch, project.cwd, tool, tool_input, error), parsed)
    # The store redacts a signature once more (pokayokay.failures.store_writes).
    signatures = [redact(signature) for signature in parsed.signatures(tool)]
    if wanted is not None:
        signatures = [signature for signature in signatures if signature in wanted]
    return [(signature, parsed.category) for signature in signatures]


# The spool gate's parses (``failure_keys``), kept for the ingest that follows in the same
# process (``pokayokay.hooks.prompt``: the gate parses a spooled failure to learn its keys, and
# when they can change the prompt's boost the prompt ingests that very record). The parse is a
# function of its inputs alone (the launch folder and cwd name the project, its root spellings
# and classifier rows), so a record whose inputs are equal, compared whole, reuses it instead of
# parsing again (decision 0159); a record whose payload reads otherwise (the ingester's
# replacement of lone surrogates) is parsed again. Each parse is taken at most once; a hook
# process keeps a few (the gate parses at most the pending records under its scan bound).
_gate_parses: list[tuple[tuple[object, ...], _Parsed]] = []
GATE_PARSES_KEPT = 16


def _keep_parse(key: tuple[object, ...], parsed: _Parsed) -> None:
    if len(_gate_parses) >= GATE_PARSES_KEPT:
        del _gate_parses[0]
    _gate_parses.append((key, parsed))


def _kept_parse(key: tuple[object, ...], spooled: bool) -> _Parsed | None:
    """The gate's parse of a call with these inputs (taken: it is not handed out again); only
    for a spooled record (a live hook parses its own call)."""
    if not spooled or not _gate_parses:
        return None
    for at, (kept, parsed) in enumerate(_gate_parses):
        if kept == key:
            del _gate_parses[at]
            return parsed
    return None


def post_tool_use_failure(payload: dict[str, Any], event: str) -> str:
    """A tool that started failed: record it (interrupts excepted), and answer with what worked
    when the same command failed in earlier sessions (``guard.failure_context``)."""
    call = _recorded_call(payload)
    if call is None:
        return ""
    tool, tool_input, error = call
    from pokayokay.hooks.runtime import SPOOLED_PROJECT_KEY

    # Ingested from the spool, the hook has long answered (pokayokay.infra.spool): no lesson.
    spooled = SPOOLED_PROJECT_KEY in payload
    lesson = ""
    if not spooled:
        from pokayokay.hooks.guard import failure_context

        lesson = failure_context(payload)
    project = _Project(payload)
    parsed = _kept_parse((project.launch, project.cwd, tool, tool_input, error), spooled)
    if parsed is not None:
        project = parsed.project  # the same launch folder and cwd: its aliases found already
    built = _build_failures(
        project, _session(payload), tool, tool_input, error, _when(payload), parsed
    )
    tool_use_id = payload.get("tool_use_id")
    use_id = tool_use_id if isinstance(tool_use_id, str) else None
    with project.store() as store:
        store.record_failures([(failure, use_id) for failure in built])
    return lesson


def post_tool_batch(payload: dict[str, Any], event: str) -> str:
    """Record the batch's validation errors and denials (nothing else fires a hook for them)."""
    calls = payload.get("tool_calls")
    if not isinstance(calls, list):
        return ""
    import re

    picked = [
        call
        for call in calls
        if isinstance(call, dict)
        and isinstance(call.get("tool_response"), str)
        and isinstance(call.get("tool_name"), str)
        and re.match(_BATCH_FAILURE, call["tool_response"])
    ]
    if not picked:
        return ""
    project = _Project(payload)
    session_id = _session(payload)
    ts = _when(payload)
    items: list[tuple[Failure, str | None]] = []
    for call in picked:
        built = _build_failures(
            project,
            session_id,
            call["tool_name"],
            _tool_input(call.get("tool_input")),
            call["tool_response"],
            ts,
        )
        tool_use_id = call.get("tool_use_id")
        use_id = tool_use_id if isinstance(tool_use_id, str) else None
        items.extend((failure, use_id) for failure in built)
    with project.store() as store:
        store.record_failures(items)
    return ""


def post_tool_use(payload: dict[str, Any], event: str) -> str:
    """A success: close fix episodes (commands) or note the edited file (file edits)."""
    tool = payload.get("tool_name")
    tool_input = _tool_input(payload.get("tool_input"))
    if tool in COMMAND_TOOLS:
        command = tool_input.get("command")
        if not isinstance(command, str) or not command.strip():
            return ""
        if tool_input.get("run_in_background") is True:
            return ""  # it started; whether it succeeds is not known yet
        response = payload.get("tool_response")
        if isinstance(response, dict) and response.get("interrupted") is True:
            return ""
        project = _Project(payload)

        def exists(rel: str) -> bool:  # a file the command names, from where it ran
            return os.path.exists(os.path.join(project.cwd, rel))

        with project.store() as store:
            store.record_success(_session(payload), tool, command, _when(payload), exists)
        return ""
    if tool in EDIT_TOOLS:
        path = tool_input.get("file_path") or tool_input.get("notebook_path")
        if not isinstance(path, str) or not path:
            return ""
        from pokayokay.failures.evidence_paths import relative_path

        project = _Project(payload)
        rel = relative_path(path, project.root, cwd=project.cwd, aliases=project.aliases)
        if rel is None:
            return ""  # outside the project (e.g. the memory folder)
        session = _session(payload)
        with project.store() as store:
            if not store.has_open_episode(session):
                store.record_edit(session, rel, _when(payload))  # registers the session only
                return ""
            from pokayokay.failures.fix_edits import edit_excerpt

            change = edit_excerpt(tool, tool_input, payload.get("tool_response"))
            store.record_edit(session, rel, _when(payload), excerpt=change)
    return ""
