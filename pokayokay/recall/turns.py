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
* **Pasted tool output.** Nothing of the person's is left once the lines a program wrote are
  set aside (:func:`pokayokay.relevance.own_words.only_output`, the one detector skill
  suggestion's own words use too: traceback frames, diagnostics, log lines, test runners'
  per-test and summary lines, fenced blocks, the indented block under an output line). A
  request above a paste, however short, is the person's and is read; a one-line prompt quoting
  an error is a question.
"""

from __future__ import annotations

from pokayokay.infra.lazyre import DOTALL, Lazy
from pokayokay.relevance.own_words import only_output

# The command whose arguments are a note being stored, not a task.
REMEMBER = "remember"

# The whole text is one or more elements whose names are hyphenated lower-case words.
_WRAPPED = Lazy(r"\s*(?:<([a-z]+(?:-[a-z]+)+)>.*?</\1>\s*)+", DOTALL)
_ELEMENT = Lazy(r"<([a-z]+(?:-[a-z]+)+)>(.*?)</\1>", DOTALL)
_TYPED_COMMAND = Lazy(r"/([A-Za-z0-9][\w:.-]*)(?:\s+(.*))?", DOTALL)


def machine_wrapper(prompt: str) -> bool:
    """Whether the whole prompt is elements Claude Code writes (see the module docstring)."""
    return prompt.lstrip().startswith("<") and _WRAPPED.fullmatch(prompt) is not None


def pasted_output(prompt: str) -> bool:
    """Whether nothing of the prompt is the person's: every line holding a word is a program's
    output (:func:`pokayokay.relevance.own_words.only_output`)."""
    return only_output(prompt)


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
