"""The error tree and the one table of exit codes. No other module defines an exit code.

Exit codes of the CLI (documented in the README's table, which a test checks against this one):

* 0 — success (for ``curate --check``: nothing to do)
* 1 — ``--check`` found changes due, ``doctor`` found a problem, or a hook failed open
* 2 — bad usage or bad input (arguments, settings files, unreadable files)
* 3 — an unexpected internal error (traceback in the log file)
* 4 — a safety invariant failed: nothing was written
* 5 — ``remember --mode model``: not stored, propose the learning to the user
* 6 — ``remember --mode model``: capture is off
* 141 — the reader of the output went away (``pokayokay status | head -1``): quiet, as git is
"""

from __future__ import annotations

# Plain ints (not an IntEnum): the hook hot path imports this module and ``enum`` costs there.
EXIT_OK = 0
EXIT_CHANGES_DUE = 1
EXIT_FAILED_OPEN = 1  # a hook that failed open: Claude Code shows a non-blocking error
EXIT_USAGE = 2
EXIT_INTERNAL = 3
EXIT_INVARIANT = 4
EXIT_PROPOSE = 5
EXIT_CAPTURE_OFF = 6
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE: what a shell reports for git killed by SIGPIPE

# code -> meaning, in the README's words (tests/test_docs.py compares the two tables).
EXIT_CODES: dict[int, str] = {
    EXIT_OK: "success (`curate --check`: nothing to do)",
    EXIT_CHANGES_DUE: (
        "`curate --check`: changes are due; `doctor`: a problem was found; "
        "a hook that failed open"
    ),
    EXIT_USAGE: (
        "bad usage or bad input (arguments, settings files, an unreadable or binary `MEMORY.md`, "
        "a file or folder pokayokay may not write: permissions, read-only, immutable, a name "
        "too long)"
    ),
    EXIT_INTERNAL: "an unexpected internal error (the traceback is in the log)",
    EXIT_INVARIANT: "a safety invariant failed: nothing was written",
    EXIT_PROPOSE: (
        "`remember --mode model`: not stored, propose the learning to the user "
        "(ask-first, or the silent budget is spent)"
    ),
    EXIT_CAPTURE_OFF: "`remember --mode model`: capture is off",
    EXIT_BROKEN_PIPE: (
        "the reader of the output went away (`pokayokay status` piped into `head -1`): quiet, "
        "as git is"
    ),
}


# Exits that answer the caller rather than report a failure: (subcommand, code). A Bash call of
# ``pokayokay <subcommand>`` ending with one of these is not a mistake, so failure capture does
# not record it and the session is not marked failed (pokayokay.failures.classify.own_answer).
ANSWER_EXITS: frozenset[tuple[str, int]] = frozenset(
    {
        ("remember", EXIT_PROPOSE),
        ("remember", EXIT_CAPTURE_OFF),
        ("curate", EXIT_CHANGES_DUE),  # only `curate --check` exits 1
    }
)


class PokayokayError(Exception):
    """An expected failure with a message meant for the user."""

    exit_code = EXIT_USAGE

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class SettingsError(PokayokayError):
    """A settings file is unreadable or holds a bad value (names file and key)."""


class InvariantViolation(PokayokayError):
    """Curation would have broken a safety invariant; nothing was written."""

    exit_code = EXIT_INVARIANT


class ConcurrentChangeError(PokayokayError):
    """The file kept changing under us while we tried to write it."""

    exit_code = EXIT_INTERNAL
