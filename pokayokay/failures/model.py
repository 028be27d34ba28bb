"""The two values failure capture and rule graduation share (docs/design/graduation.md).

Pure data: ``Failure`` is one captured, already normalised failure; ``FailureGroup`` is one
signature's evidence across sessions (its ``signature`` is the group key, e.g. ``ruff:F401``
or ``test:tests/test_cart.py::test_total``, see :mod:`pokayokay.failures.mistakes`), as
:meth:`FailureStore.failure_groups` returns it.

Named tuples rather than dataclasses: hooks on every prompt and tool call import this module,
and building dataclasses at import costs milliseconds there (``_replace`` makes a changed copy).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NamedTuple
else:  # typing's class syntax without importing typing (decision 0159)
    from pokayokay.infra.named_tuple import NamedTuple


class Failure(NamedTuple):  # one captured failure, already normalised
    ts: float  # time.time()
    session_id: str
    tool: str  # "Bash", "Edit", "Write", ...
    command: str | None  # normalised command for Bash (whitespace collapsed), else None
    signature: str  # the group key: mistakes.find_mistakes(...) key, else signature.normalise(...)
    category: str  # classify.classify(...)
    paths: tuple[str, ...]  # project-relative POSIX paths involved, deduplicated, sorted
    excerpt: str  # sanitize.excerpt(...): short, sanitised, single line, ≤ 160 chars
    exit_code: int | None


class Correction(NamedTuple):  # a failing command and the variant that then passed
    failing: str
    corrected: str
    kind: str  # corrections.ENVIRONMENT or corrections.COMMAND
    times: int  # fix episodes it closed


class FixEdit(NamedTuple):  # an edit made between a failure and the success that closed it
    path: str
    excerpt: str  # a few sanitised "- old" / "+ new" lines, joined by "\n" ("" when unknown)
    times: int


class FailureGroup(NamedTuple):  # what graduation reads: one signature's evidence across sessions
    signature: str
    category: str
    sessions: int  # DISTINCT sessions in which it failed (a retry loop counts once)
    occurrences: int
    first_seen: float
    last_seen: float
    paths: tuple[str, ...]  # failure paths (project-relative)
    fix_paths: tuple[str, ...]  # files edited between a failure and the later success
    fix_commands: tuple[str, ...]  # the commands whose success closed an episode (the remedy)
    sample_command: str | None
    excerpt: str
    corrections: tuple[Correction, ...] = ()  # most frequent first
    fix_edits: tuple[FixEdit, ...] = ()  # most frequent, then most recent, first
    # the fixing commit's short SHA: known from team records (pokayokay.team.commits), None
    # from the local store; the teaching module's evidence line says "in commit abc1234"
    fix_commit: str | None = None
