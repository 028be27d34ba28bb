"""What a rule, a lesson or a memory entry may quote of a command or a line of code (pure): the
text exactly as it was, secrets redacted and cut to a length with "…", or nothing.

Never a rewritten text: a command that is dangerous (:func:`pokayokay.safety.commands.danger`:
a download piped to a shell, a loader or path variable pointed outside the project …), spans
several lines, holds a link (:func:`pokayokay.safety.instructions.has_link`) or an instruction
phrase (:func:`pokayokay.safety.instructions.injected`) is not shown at all. The caller puts what
is shown in a code span (:func:`pokayokay.safety.exact.code_span`).
"""

from __future__ import annotations

from collections.abc import Iterable

from pokayokay.safety import sanitize
from pokayokay.safety.commands import danger, redact_secrets
from pokayokay.safety.instructions import has_link, injected

__all__ = ["MAX_CODE_LINE", "MAX_COMMAND", "shown_code_line", "shown_command", "shown_commands"]

MAX_COMMAND = 120
MAX_CODE_LINE = 100


def _exact(text: str, limit: int) -> str | None:
    """``text`` redacted and cleaned, exact otherwise (cut to ``limit`` with "…"), or ``None``
    when it holds a line break, a link or an instruction phrase, or nothing readable."""
    cleaned = sanitize.clean(redact_secrets(text)).strip()
    if "\n" in cleaned or "\r" in cleaned or not any(ch.isalnum() for ch in cleaned):
        return None
    if has_link(cleaned) or injected(cleaned):
        return None
    return sanitize.excerpt(cleaned, limit)


def shown_command(command: str, limit: int = MAX_COMMAND) -> str | None:
    """``command`` as a rule may quote it: exactly as it ran (secrets redacted; cut to
    ``limit`` with "…"), or ``None`` when it is dangerous (:func:`danger`), spans several
    lines, holds a link or an instruction phrase, or nothing readable is left. The caller puts
    it in a code span (:func:`pokayokay.safety.exact.code_span`)."""
    if danger(command):
        return None
    return _exact(command, limit)


def shown_commands(commands: Iterable[str]) -> list[str]:
    """The commands that may be shown, each as :func:`shown_command` shows it."""
    return [shown for command in commands if (shown := shown_command(command)) is not None]


def shown_code_line(line: str, limit: int = MAX_CODE_LINE) -> str:
    """One line of an edit excerpt, exact (secrets redacted, cut to ``limit`` with "…"), or
    ``""`` when it holds a link or an instruction phrase, or nothing readable."""
    return _exact(line, limit) or ""
