"""The lesson lookup's content (pure) and its refresh when the lessons change.

A *command lesson* is one failing command and what worked after it: the variant of it that
passed (a correction, :mod:`pokayokay.failures.corrections`) or the files whose edit made it pass.
:func:`lookup_content` turns them into the texts the hooks print as they are
(:mod:`pokayokay.hooks.guard`, :mod:`pokayokay.hooks.subagent`):

* ``failure`` — next to a failed command (PostToolUseFailure): that it failed in N earlier
  sessions and what worked then;
* ``hint`` / ``block`` — before the command runs (PreToolUse), only for a command that failed in
  at least the graduation threshold of sessions and has a known correction (``guard: true``);
* ``always`` — the environment lessons (how commands run here), for subagents.

Every command is quoted only as evidence, exactly as it ran (secrets redacted) in a CommonMark
code span (:func:`shown`); a dangerous one — a download piped to a shell, a loader or path
variable pointed outside the project — or one with a link or an instruction phrase is never
quoted, so it yields no lesson, hint, guard reason or environment line. Texts are facts in
pokayokay's words, never instructions, and each fits its budget. Each text opens with the
lesson's teaching sentence (:mod:`pokayokay.rules.teaching`: "Use `make test`, not
`make tests`."), then its evidence.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from pokayokay.failures.model import FailureGroup
from pokayokay.infra.lesson_lookup import LOOKUP_VERSION, command_key

FAILURE_BUDGET = 400
HINT_BUDGET = 400
MAX_ALWAYS = 5
MAX_FIX_FILES = 3
MAX_COMMAND = 120
MAX_PATH = 80
ENVIRONMENT = "environment"


class CommandLesson(NamedTuple):
    failing: str  # the failing command as stored (redacted at capture)
    sessions: int  # distinct sessions in which it failed
    corrected: str | None = None  # the variant that passed after it, if one did
    kind: str | None = None  # "environment" or "command" for a correction
    fix_paths: tuple[str, ...] = ()  # files edited between the failure and the success
    fixed: int = 0  # how often the correction passed right after it (0: not counted)
    # the literal fragments of each mistake an edit fixed (:func:`mistake_fragments`); empty for
    # a correction, whose lesson is how the command runs, whatever it printed
    mistakes: tuple[tuple[str, ...], ...] = ()
    key: str = ""  # the mistake's group key, category and error line, for the teaching sentence
    category: str = ""
    error_line: str = ""


MAX_OTHERS = 4  # entries for other mistakes of one command
MIN_FRAGMENT = 4
MAX_FRAGMENTS = 4


def mistake_fragments(signature: str) -> tuple[str, ...]:
    """The pieces of a failure group's key that the failing output shows as they are.

    A mistake's key (:mod:`pokayokay.failures.mistakes`) is ``<tool>:<code>`` or
    ``test:<test id>``: the code or the test id (each part of a ``file > title`` id) is in the
    output (``F401``, ``tests/test_cart.py::test_total``, ``ModuleNotFoundError``). A key that
    is a normalised output line instead keeps the text between the placeholders normalisation
    put in (``<n>``, ``<tmp>``, ...). The longest :data:`MAX_FRAGMENTS` of at least
    :data:`MIN_FRAGMENT` characters are kept; a failure whose output holds them all is that
    mistake (:func:`pokayokay.infra.lesson_lookup.mistake_matches`)."""
    import re

    head, colon, rest = signature.partition(":")
    if colon and rest and re.fullmatch(r"[a-z][a-z0-9 _-]{0,15}", head) and "<" not in rest:
        pieces = [p.strip() for p in rest.split(" > ")]
        minimum = 2  # a rule code: E1, F401
    else:
        pieces = [p.strip() for p in re.split(r"0x<hex>|<[a-z]+>", signature)]
        minimum = MIN_FRAGMENT
    kept = [p for p in pieces if len(p) >= minimum and "[redacted:" not in p]
    return tuple(sorted(dict.fromkeys(kept), key=len, reverse=True)[:MAX_FRAGMENTS])


def shown(command: str) -> str | None:
    """``command`` as a lesson quotes it (exact, secrets redacted), or None (dangerous, a link,
    an instruction phrase, or nothing readable left)."""
    from pokayokay.safety.shown import shown_command

    return shown_command(command, MAX_COMMAND)


def _span(command: str) -> str:
    """A code span for hook context, which Claude Code wraps in ``<system-reminder>``: that tag
    and pokayokay's marker comments escaped (:func:`pokayokay.safety.exact.quoted`)."""
    from pokayokay.safety.exact import quoted

    return quoted(command)


def _path(path: str) -> str | None:
    """A file name as an exact code span, or None when it carries a heading or an imperative."""
    from pokayokay.rules.evidence import shown_path

    return shown_path(path) if len(path) <= MAX_PATH else None


def _times(n: int) -> str:
    return "1 earlier session" if n == 1 else f"{n} earlier sessions"


def _first_fit(texts: Sequence[str], budget: int) -> str | None:
    """The first of ``texts`` that fits ``budget`` (the fullest is tried first)."""
    return next((t for t in texts if len(t) <= budget), None)


def _names_both(sentence: str, failing_span: str, corrected_span: str) -> bool:
    """Whether the teaching sentence already quotes both commands ("Run `X`, not `Y`: …")."""
    return failing_span in sentence and corrected_span in sentence


def teaching_sentence(lesson: CommandLesson) -> str | None:
    """The sentence that opens the lesson's texts (:mod:`pokayokay.rules.teaching`): the
    corrected command ("Use `make test`, not `make tests`."), or the file the fixing edit
    changed, worded by the kind of mistake; None when nothing can be named."""
    from pokayokay.rules import teaching
    from pokayokay.rules.mistake_kinds import Mistake

    if lesson.corrected:
        return teaching.correction_sentence(lesson.failing, lesson.corrected, lesson.kind)
    found = teaching.edit_sentence(
        Mistake(
            key=lesson.key,
            category=lesson.category,
            error_line=lesson.error_line,
            failing=lesson.failing,
            fix_paths=lesson.fix_paths,
            sessions=lesson.sessions,
        )
    )
    return found[1] if found else None


def command_entry(lesson: CommandLesson, threshold: int) -> dict[str, Any] | None:
    """The lookup entry of one lesson, or None when nothing safe can be said."""
    failing = shown(lesson.failing)
    if failing is None or lesson.sessions < 1:
        return None
    corrected = shown(lesson.corrected) if lesson.corrected else None
    if lesson.corrected and corrected is None:
        return None  # the variant that passed cannot be quoted safely: say nothing
    where = "of this project"
    failing_span = _span(failing)
    sentence = teaching_sentence(lesson)
    if sentence is None:
        return None
    if corrected is not None:
        corrected_span = _span(corrected)
        count = f" ({lesson.fixed} times)" if lesson.fixed > 1 else ""
        short = f"pokayokay: {sentence} It failed in {_times(lesson.sessions)} {where}."
        # a sentence naming both commands is not followed by both again (issue 24 item 6)
        passed = f"{corrected_span} is the form that passed"
        if _names_both(sentence, failing_span, corrected_span):
            failing_span, corrected_span = "It", "the corrected form"
            passed = "the corrected form passed"
        failure = _first_fit(
            [
                f"pokayokay: {sentence} {failing_span} failed in {_times(lesson.sessions)} "
                f"{where} too; {corrected_span} passed after it{count}.",
                short,
            ],
            FAILURE_BUDGET,
        )
        if failure is None:
            return None
        entry: dict[str, Any] = {
            "sessions": lesson.sessions,
            "corrected": corrected,
            "failure": failure,
            "guard": lesson.sessions >= threshold,
        }
        hint = _first_fit(
            [
                f"pokayokay: {sentence} {failing_span} failed in {_times(lesson.sessions)} "
                f"{where}; {passed}.",
                short,
            ],
            HINT_BUDGET,
        )
        block = _first_fit(
            [
                f"pokayokay guard: {sentence} {failing_span} failed in "
                f"{_times(lesson.sessions)} {where}, and {corrected_span} passed instead. "
                "This call was not run (guard: block).",
                f"pokayokay guard: {sentence} It failed in {_times(lesson.sessions)} {where}. "
                "This call was not run (guard: block).",
            ],
            HINT_BUDGET,
        )
        if entry["guard"] and hint is not None and block is not None:
            entry["hint"], entry["block"] = hint, block
        else:
            entry["guard"] = False
        return entry
    paths = [p for p in (_path(x) for x in lesson.fix_paths[:MAX_FIX_FILES]) if p]
    if not paths:
        return None
    files = ", ".join(paths)
    more = len(lesson.fix_paths) - len(paths)
    if more > 0:
        files += f" and {more} more"
    fitted = _first_fit(
        [
            f"pokayokay: {sentence} {failing_span} failed in {_times(lesson.sessions)} {where} "
            f"too; it passed after edits to {files}.",
            f"pokayokay: {sentence} It failed in {_times(lesson.sessions)} {where} too.",
        ],
        FAILURE_BUDGET,
    )
    if fitted is None:
        return None
    mistakes = [list(f) for f in lesson.mistakes if f]
    return {
        "sessions": lesson.sessions,
        "failure": fitted,
        "guard": False,
        "mistakes": mistakes,  # shown only next to the same mistake, never for the command alone
    }


def invocation_lesson(lesson: CommandLesson) -> tuple[str, CommandLesson] | None:
    """(invocation key, lesson) for an environment correction about how the tool runs
    (``python -m pytest x`` → ``.venv/bin/python -m pytest x``: same tool, same arguments,
    another interpreter, runner or variable), stated for any run of the tool; None otherwise."""
    from pokayokay.failures.corrections import difference, parse
    from pokayokay.infra.lesson_lookup import invocation_key

    if lesson.kind != ENVIRONMENT or not lesson.corrected:
        return None
    bad, good = parse(lesson.failing), parse(lesson.corrected)
    if bad is None or good is None or (bad.tool, bad.args) != (good.tool, good.args):
        return None
    if difference(lesson.failing, lesson.corrected) is None:
        return None
    failing, corrected = invocation_key(lesson.failing), invocation_key(lesson.corrected)
    if not failing or not corrected or failing == corrected:
        return None
    return failing, lesson._replace(failing=failing, corrected=corrected)


def environment_line(lesson: CommandLesson) -> str | None:
    """One always-loaded line for an environment correction, or None."""
    if lesson.kind != ENVIRONMENT or not lesson.corrected:
        return None
    failing, corrected = shown(lesson.failing), shown(lesson.corrected)
    if failing is None or corrected is None:
        return None
    sentence = teaching_sentence(lesson)
    if sentence is None:
        return None
    sessions = "1 session" if lesson.sessions == 1 else f"{lesson.sessions} sessions"
    failing_span, corrected_span = _span(failing), _span(corrected)
    if _names_both(sentence, failing_span, corrected_span):
        failing_span, corrected_span = "It", "the corrected form"
    evidence = f"{failing_span} failed here in {sessions}; {corrected_span} passed instead."
    return f"{sentence} {evidence}"


def lookup_content(lessons: Iterable[CommandLesson], threshold: int) -> dict[str, Any] | None:
    """The lookup file's content for ``lessons``, or None when there is nothing to say (the
    lookup is then removed, so the hooks cost a ``stat``)."""
    commands: dict[str, dict[str, Any]] = {}
    invocations: dict[str, dict[str, Any]] = {}
    always: list[tuple[int, str]] = []
    ordered = sorted(lessons, key=lambda x: (x.corrected is None, -x.sessions, x.failing))
    from pokayokay.safety.commands import redact_secrets

    for lesson in ordered:
        key = command_key(redact_secrets(lesson.failing))  # as capture stores commands
        if not key:
            continue
        entry = command_entry(lesson, threshold)
        if entry is None:
            continue
        if key in commands:
            # The same command fixed by other edits for another mistake (a typo in main.c, a
            # link error fixed in util.c): kept beside it, chosen by the mistake at failure time.
            first = commands[key]
            others = first.setdefault("others", [])
            if "mistakes" in first and "mistakes" in entry and len(others) < MAX_OTHERS:
                others.append(entry)
            if not others:
                del first["others"]
            continue
        commands[key] = entry
        general = invocation_lesson(lesson)
        if general is not None and general[0] not in invocations:
            general_entry = command_entry(general[1], threshold)
            if general_entry is not None:
                invocations[redact_secrets(general[0])] = general_entry
        line = environment_line(lesson)
        if line is not None and lesson.sessions >= threshold:
            always.append((lesson.sessions, line))
    if not commands:
        return None
    always.sort(key=lambda x: -x[0])
    return {
        "redacted": any("[redacted:" in key for key in commands),
        "version": LOOKUP_VERSION,
        "threshold": threshold,
        "commands": commands,
        "invocations": invocations,
        "always": [line for _, line in always[:MAX_ALWAYS]],
    }


def lookup_folders(project_key: str, launch_dirs: Sequence[str] = ()) -> list[str]:
    """The folders a lookup is written for: the project (git root), and any launch folder that
    is not inside it (a linked worktree), since hooks look from their launch folder upwards."""
    import os

    root = os.path.abspath(project_key)
    out = [root]
    for folder in launch_dirs:
        absolute = os.path.abspath(folder)
        if absolute != root and not absolute.startswith(root.rstrip(os.sep) + os.sep):
            out.append(absolute)
    return out


# --- from the failure store ---------------------------------------------------------------


def command_lessons(
    groups: Sequence[FailureGroup], failed_in: Mapping[tuple[str, str], int]
) -> list[CommandLesson]:
    """The lessons a failure store holds (pure): every failing command with a correction (the
    most frequent one), and every command of a group whose fix was an edit. ``failed_in`` maps
    (group key, command) to the distinct sessions in which that command failed that way."""
    by_command: dict[str, int] = {}
    for (_, command), sessions in failed_in.items():
        by_command[command] = max(by_command.get(command, 0), sessions)
    out: list[CommandLesson] = []
    corrected: set[str] = set()
    for group in groups:
        for fix in group.corrections:  # most frequent first
            if fix.failing in corrected:
                continue
            corrected.add(fix.failing)
            sessions = by_command.get(fix.failing, fix.times)
            out.append(CommandLesson(fix.failing, sessions, fix.corrected, fix.kind, (), fix.times))
    for group in groups:
        paths = tuple(dict.fromkeys([*(e.path for e in group.fix_edits), *group.fix_paths]))
        if not paths:
            continue
        for (signature, command), sessions in sorted(failed_in.items()):
            if signature == group.signature and command not in corrected:
                mistake = (mistake_fragments(group.signature),)
                out.append(
                    CommandLesson(
                        command,
                        sessions,
                        fix_paths=paths,
                        mistakes=mistake,
                        key=group.signature,
                        category=group.category,
                        error_line=group.excerpt,
                    )
                )
    return out
