"""Error classes and the exit codes they map to.

Exit codes of the CLI (documented in the README):

* 0 — success (for ``curate --check``: nothing to do)
* 1 — ``--check`` found changes due, or ``doctor`` found a problem
* 2 — bad usage or bad input (arguments, settings files, unreadable files)
* 3 — an unexpected internal error (traceback in the log file)
* 4 — a safety invariant failed: nothing was written
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_CHANGES_DUE = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3
EXIT_INVARIANT = 4


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
