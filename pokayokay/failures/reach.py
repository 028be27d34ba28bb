"""Whether a failing tool call can be given a stored signature, read without its parse.

The prompt's spool gate (:mod:`pokayokay.hooks.spool_gate`) asks the capture's parse for the
(signature, category) of a spooled failure only to learn whether it joins one of the groups the
failure signals hold. The parse imports ``re`` and the capture pipeline, redacts the output,
finds its mistakes and classifies it: more than a floor of a prompt's time. This module answers
the first half of the question with plain string scans: when no signature the signals hold can
come out of the call's texts, the parse cannot yield one either, the gate's keys are empty and
its verdict is "no" (decision 0143).

The test is a necessary condition of "the parse yields ``signature``": every word of the
signature (a run of ASCII letters and digits, compared lower-cased) is in the call's texts (its
error cut as the parse cuts it, its command, its tool name) or in what the parse writes itself
(:data:`WRITTEN`). Every step of the parse keeps the words it does not write:

* mistake keys (:mod:`pokayokay.failures.mistakes`) are ``<tool>:<body>``: the tool is written
  by the parse, so the part before the first ``:`` is not read (a text signature's first part
  is then simply not checked); the body is captured from the output's lines (whitespace
  collapsed, cut at 200 characters, pytest's parameters dropped, lower-cased for a slug whose
  numbers and quoted names become separators), joined with ``.``, `` > `` or ``-``, or written
  (``black:would-reformat``, ``prettier:format``, ``git:merge-conflict`` ...);
* text signatures (:func:`pokayokay.failures.signature.normalise`) keep lines of the output with
  run-specific parts replaced by placeholders (``<n>``, ``<hex>``, ``<tmp>`` ...), each between
  ``<`` and ``>``; Claude Code's refusals keep their stable part (``[<command>]``); a call with
  no meaningful output is ``<command> failed with no output (exit code <n>)``;
* redaction (of the texts and of the signature) writes ``[redacted:<kind>]`` between brackets:
  a marker's words are set aside before the words are read.

Two steps join words that were apart in the output, and a word not found is tried as such a
join before it counts as missing: the project root cut out of a path (``x/<root>/y`` reads
``xy``: each later piece stands after a ``/`` in the texts) and gcc's ``-Werror=flag`` read as
``-Wflag`` (the piece after ``=``). An output holding an ANSI escape (whose removal joins
words anywhere) is never ruled out. A word longer than :data:`LONG_WORD` is not tried as a join
(it counts as found). ``tests/failures/test_reach.py`` holds every signature the parse gives
the real outputs in tests/data, and generated ones built to hit each of these steps, to
:func:`can_reach`.

No ``re`` and no I/O of its own (the parse's ``cut_text`` comes from the spool module): the
prompt's spool gate runs it in a process that has not
imported the capture pipeline.
"""

from __future__ import annotations

from pokayokay.infra.spool import cut_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

# The tools whose command the parse reads (pokayokay.hooks.capture.COMMAND_TOOLS, held equal by
# tests/failures/test_category_bound.py; that module is no import of the gate's string scans).
COMMAND_TOOLS = frozenset({"Bash", "PowerShell"})
# What the parse writes that the output need not hold: mistake keys' written bodies and gcc's
# ``-W``, the fallback signature of an output with nothing meaningful, the placeholders of a
# normalised line, the refusal's command and redaction's marker.
WRITTEN = (
    "black:would-reformat black:cannot-parse prettier:format git:merge-conflict git:rejected-"
    " -W"
    " tool failed with no output (exit code"
    " <tmp> <site-packages> <uuid> <time> 0x<hex> <hex> <dur> <n> ~ [<command>]"
    " [redacted:"
).lower()
MARKER = "[redacted:"
# Words longer than this that are not found are not tried as joins (they count as found).
LONG_WORD = 64
_SEPARATORS = ("/", "=")  # what stands before a joined piece in the output (root cut, -Werror=)
# ASCII letters and digits kept, every other byte a space (non-ASCII became ``?`` first).
_WORD_BYTES = bytes(c if (48 <= c <= 57 or 97 <= c <= 122) else 32 for c in range(256))
_WORD_STARTS = frozenset(bytes((c,)) for c in range(256) if _WORD_BYTES[c] != 32)


class CallText:
    """What :func:`can_reach` reads of one failing call (:func:`call_text`): ``tokens``, the
    runs of ASCII letters and digits of its texts (lower-cased) and :data:`WRITTEN`, as a set
    and as one string (a word is part of the texts when it is part of that string: it holds no
    separator); ``after``, every prefix of a run that stands right after a ``/`` or ``=`` (made
    when a join is first tried). A plain class (the prompt's spool gate makes one; no
    ``dataclasses`` on a hook's path)."""

    __slots__ = ("_after", "_raw", "runs", "tokens")

    def __init__(self, text: str) -> None:
        self._raw = text.encode("ascii", "replace")
        self.tokens = frozenset(self._raw.translate(_WORD_BYTES).decode("ascii").split())
        self.runs = " ".join(self.tokens)
        self._after: frozenset[str] | None = None

    @property
    def after(self) -> frozenset[str]:
        if self._after is None:
            found: set[str] = set()
            for sep in _SEPARATORS:
                for piece in self._raw.split(sep.encode("ascii"))[1:]:
                    if piece[:1] in _WORD_STARTS:
                        run = piece[:LONG_WORD].translate(_WORD_BYTES).split(None, 1)[0]
                        text = run.decode("ascii")
                        found.update(text[:n] for n in range(1, len(text) + 1))
            self._after = frozenset(found)
        return self._after


def call_text(tool: str, command: str | None, error: str) -> CallText | None:
    """What :func:`can_reach` reads for one failing call: its error cut as the parse cuts it,
    its command and tool, lower-cased, and :data:`WRITTEN`; None when any signature may be
    reached (an ANSI escape, whose removal joins words)."""
    if "\x1b" in error:
        return None
    cut = cut_text(error).lower()
    return CallText("\0".join((cut, cut_text(command or "").lower(), tool.lower(), WRITTEN)))


def words(signature: str) -> list[str]:
    """The words of ``signature`` :func:`can_reach` checks: its ASCII letter and digit runs,
    lower-cased, with redaction markers (whole, or cut at the signature's end) set aside, then
    only those after its first ``:`` (when it has one)."""
    low = signature.lower()
    at = low.find(MARKER)  # set aside before the first ``:`` is looked for (a marker has one)
    while at >= 0:
        end = low.find("]", at)
        end = len(low) if end < 0 else end + 1
        low = low[:at] + " " + low[end:]
        at = low.find(MARKER, at)
    tail = low.rfind("[")
    if tail >= 0 and MARKER.startswith(low[tail:]):
        low = low[:tail]
    head, colon, body = low.partition(":")
    return _ascii_words(body if colon else head)


def _ascii_words(text: str) -> list[str]:
    """The runs of ASCII letters and digits of a lower-cased ``text``."""
    return text.encode("ascii", "replace").translate(_WORD_BYTES).decode("ascii").split()


def _joined(word: str, call: CallText) -> bool:
    """Whether ``word`` is pieces of the call's texts joined where the parse removes something:
    the first piece anywhere, each later one standing right after a ``/`` or ``=``."""
    size = len(word)
    if size > LONG_WORD:
        return True
    after = call.after
    if not any(word[i:] in after for i in range(1, size)):
        return False  # no last piece: the common answer, and the cheapest
    runs = call.runs
    reach = [False] * (size + 1)  # reach[j]: word[:j] is such pieces
    j = 1
    while j <= size and word[:j] in runs:  # the first piece (prefixes of a part are parts)
        reach[j] = True
        j += 1
    for i in range(1, size):
        if reach[i]:
            j = i + 1
            while j <= size and word[i:j] in after:  # after holds every prefix of its runs
                reach[j] = True
                j += 1
    return reach[size]


def can_reach(signature: str, call: CallText | None) -> bool:
    """False only when the parse of the call whose :func:`call_text` is ``call`` cannot give
    ``signature`` (as the store keeps it: redacted); True when it may."""
    if call is None:
        return True
    tokens, runs = call.tokens, call.runs
    for word in words(signature):
        # A whole word of the texts is found in a set; a part of one in their runs.
        if word not in tokens and word not in runs and not _joined(word, call):
            return False  # one word that is in no form in the call rules the signature out
    return True


def reaches_any(signatures: Iterable[str], call: CallText | None) -> bool:
    """Whether any of ``signatures`` may be reached (:func:`can_reach`)."""
    if call is None:
        return True
    return any(can_reach(signature, call) for signature in signatures)


def bound_holds(witnesses: Iterable[str], error: str) -> bool:
    """Whether a failing shell call whose command has the category bound with ``witnesses``
    (:func:`pokayokay.failures.category_bound.bound_for_command`) is classified in the bound's
    category: its output, cut as the parse cuts it, holds none of them (and no ANSI escape,
    whose removal in the mistakes scan joins text)."""
    if "\x1b" in error:
        return False
    cut = cut_text(error)
    return not any(witness in cut for witness in witnesses)
