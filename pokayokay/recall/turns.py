"""Whose words a prompt holds: the user's, a slash command's arguments, or a machine's (pure).

UserPromptSubmit fires for every turn Claude Code adds to the conversation, not only for what a
person typed. Recall and skill suggestion read the person's words; nothing else earns them a
note or a skill. Everything here is recognised by its *shape*, never by a list of words:

* **A machine wrapper.** Claude Code wraps the turns it writes itself in elements with
  hyphenated lower-case names, and the whole prompt is then nothing but such elements:
  ``<task-notification>…</task-notification>`` after a background subagent stopped (a real
  payload: ``tests/data/claude-code-samples/UserPromptSubmit.task-notification.json``),
  ``<local-command-stdout>``, ``<system-reminder>``, ``<bash-stdout>``. A person's prompt that
  merely quotes such a tag has words outside it and stays a person's prompt.
* **A slash command.** ``<command-name>/deploy</command-name><command-message>…
  </command-message><command-args>the staging rollout</command-args>`` (the wrapped form) or
  ``/deploy the staging rollout`` (as typed). The person chose a command already, so no skill
  is suggested; its arguments are the person's words, so recall reads them, except for
  ``/remember``, whose arguments are the note being stored (recalling notes like it beside it
  is noise; ``remember`` itself compares it with the stored ones). A command with no
  arguments has nothing to read.
* **Pasted tool output.** Most non-blank lines look like output rather than prose: traceback
  frames, ``file:line:col`` diagnostics, log lines opening on a timestamp or a bracketed
  level, test-runner markers (``E   assert``, ``>   call()``), rules of ``=`` or ``-``. At
  least :data:`MIN_OUTPUT_LINES` such lines and :data:`OUTPUT_SHARE` of the lines (an indented
  line under an output line counting as one: a frame's source line): a question with one quoted
  error line is still a question.
"""

from __future__ import annotations

from pokayokay.infra.lazyre import DOTALL, Lazy

# A turn is pasted output when at least this many of its lines, and this share of its
# non-blank lines, look like output.
MIN_OUTPUT_LINES = 2
OUTPUT_SHARE = 0.6
# Lines looked at (a pasted log can be long; its head says what it is).
MAX_LINES = 200
# The command whose arguments are a note being stored, not a task.
REMEMBER = "remember"

# The whole text is one or more elements whose names are hyphenated lower-case words.
_WRAPPED = Lazy(r"\s*(?:<([a-z]+(?:-[a-z]+)+)>.*?</\1>\s*)+", DOTALL)
_ELEMENT = Lazy(r"<([a-z]+(?:-[a-z]+)+)>(.*?)</\1>", DOTALL)
_TYPED_COMMAND = Lazy(r"/([A-Za-z0-9][\w:.-]*)(?:\s+(.*))?", DOTALL)
# Lines that read as a program's output rather than a sentence.
_OUTPUT_LINE = Lazy(
    r"\s*(?:"
    r"Traceback \(most recent call last\):"  # a Python traceback
    r"|File \"[^\"]+\", line \d+"  # ... and its frames
    r"|at \S+ \(?\S+:\d+(?::\d+)?\)?$"  # a JavaScript or Java stack frame
    r"|[\w./\\-]+[:(]\d+(?:[:,]\d+)?\)?(?::|\s+-\s)"  # file:line[:col]: a diagnostic
    r"|\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}"  # a log line's timestamp
    r"|\[?\d{2}:\d{2}:\d{2}"  # ... or its time
    r"|\[[A-Z]{3,8}\]"  # ... or its bracketed level
    r"|[A-Z]{4,8}:[\w.]+:"  # ... or Python logging's "LEVEL:logger:" (not "TODO: ...")
    r"|[EF>]\s{2,}\S"  # pytest's E and > lines
    r"|[=_*-]{5,}"  # a rule
    r"|[\w.]+(?:Error|Exception|Warning)(?::|$)"  # an exception's type line
    r"|\^+\s*$"  # a caret under a column
    r"|(?:Found\s+)?\d+\s+(?:passed|failed|errors?|warnings?|problems?)\b"  # a summary
    r"|\$ \S"  # a shell prompt and its command (not "#" or ">": markdown)
    r")"
)


def machine_wrapper(prompt: str) -> bool:
    """Whether the whole prompt is elements Claude Code writes (see the module docstring)."""
    return prompt.lstrip().startswith("<") and _WRAPPED.fullmatch(prompt) is not None


def pasted_output(prompt: str) -> bool:
    """Whether most of the prompt's lines look like a program's output."""
    if prompt.count("\n") < MIN_OUTPUT_LINES - 1:
        return False
    lines = [line for line in prompt.splitlines()[:MAX_LINES] if line.strip()]
    output = 0
    previous = False
    for line in lines:
        # an indented line under an output line belongs to it (a frame's source line)
        previous = bool(_OUTPUT_LINE.match(line)) or (previous and line.startswith(("  ", "\t")))
        output += previous
    return output >= MIN_OUTPUT_LINES and output >= OUTPUT_SHARE * len(lines)


def command(prompt: str) -> tuple[str, str] | None:
    """``(name, arguments)`` of a slash-command turn, typed or wrapped; None for any other."""
    text = prompt.strip()
    if text.startswith("/"):
        found = _TYPED_COMMAND.fullmatch(text)
        return (found[1], (found[2] or "").strip()) if found else ("", text[1:].strip())
    if not machine_wrapper(text):
        return None
    parts: dict[str, str] = {found[1]: found[2] for found in _ELEMENT.finditer(text)}
    if "command-name" not in parts:
        return None
    name = parts["command-name"].strip().lstrip("/")
    return name, parts.get("command-args", "").strip()


def recall_text(prompt: str) -> str:
    """What recall reads of a turn: the prompt, a user's command's arguments, or "" (a
    machine's turn, pasted output, ``/remember``, a command without arguments)."""
    found = command(prompt)
    if found is not None:
        name, args = found
        if name.rsplit(":", 1)[-1] == REMEMBER or machine_wrapper(args) or pasted_output(args):
            return ""
        return args
    if machine_wrapper(prompt) or pasted_output(prompt):
        return ""
    return prompt


def suggest_text(prompt: str) -> str:
    """What skill suggestion reads of a turn: the prompt, or "" for a command (the user chose
    one already), a machine's turn or pasted output."""
    if command(prompt) is not None or machine_wrapper(prompt) or pasted_output(prompt):
        return ""
    return prompt
