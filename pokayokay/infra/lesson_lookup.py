"""The precomputed lesson lookup the per-tool-call hooks read: one small file per project.

Graduation writes it whenever the lessons change (``pokayokay.rules.lessons``), so the hooks that
run before a command (PreToolUse) or right after it failed (PostToolUseFailure) do one ``stat``
when a project has no lessons, and one small read plus a dictionary look-up when it has some:
they never open the failure store, compute a signature or load the settings on a miss.

Layout: ``<state>/lessons/<key>.marshal`` (:mod:`pokayokay.infra.marshal_format`: read in a
fraction of the time JSON takes without json's C reader, decision 0168) where ``<key>`` is
:func:`~pokayokay.infra.state.folder_key` of the project folder the lessons belong to (the
canonical git root, and the launch folder too when the session was launched elsewhere). A hook
looks for its launch folder's file and then its parents' (a session launched in a subfolder
finds the repository's lessons). The file holds::

    {"version": 3,
     "commands": {"<command key>": {"sessions": 4, "guard": true,
                                    "failure": "<text for PostToolUseFailure>",
                                    "hint": "<text for PreToolUse>",
                                    "corrected": "<the command that passed>"}},
     "invocations": {"<invocation key>": {... the same fields ...}},
     "always": ["<environment lesson line>", ...]}

``commands`` is keyed by the whole command (:func:`command_key`); ``invocations`` by how a tool
is run (:func:`invocation_key`: ``python -m pytest``) for the environment lessons whose mistake is
that (the interpreter, a runner, a variable): such a lesson holds for any run of the tool, with
any file or flag, so ``python -m pytest -q ./tests/other.py`` finds it too. An entry may carry
``mistakes``: the literal fragments of the failure it was learned from (:func:`mistake_matches`);
its ``failure`` text is then shown only next to a failure whose output has them, never for the
command text alone.

Every text in it was sanitised and redacted when it was written: the hooks print it as is.
Standard library and :mod:`pokayokay.infra.state` only (``os`` and ``sys`` at import;
``marshal``, built in, when a file exists: never ``json`` or ``re``).
"""

from __future__ import annotations

import os

from pokayokay.infra.state import folder_key, state_folder  # the spool's rules (os and sys only)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

LOOKUP_VERSION = 3  # 2: commands quoted exactly; 3: invocations, mistakes. Older ones are not read
LOOKUP_DIR = "lessons"
LOOKUP_SUFFIX = ".marshal"  # infra.marshal_format
LEGACY_SUFFIX = ".json"  # the lookup before decision 0168: read, replaced at the next write
# A lookup is a few lessons; a larger file is not ours (or broken) and is not read.
MAX_LOOKUP_BYTES = 256 << 10


def lookup_path(folder: str, environ: Mapping[str, str] | None = None) -> str:
    key = folder_key(os.path.abspath(folder))
    return os.path.join(state_folder(environ), LOOKUP_DIR, key + LOOKUP_SUFFIX)


def find_lookup(launch_dir: str, environ: Mapping[str, str] | None = None) -> str | None:
    """The lookup file for ``launch_dir`` or its nearest parent that has one, else None.

    Costs one ``stat`` of the lessons folder when no project has lessons at all.
    """
    root = os.path.join(state_folder(environ), LOOKUP_DIR)
    if not os.path.isdir(root):
        return None
    current = os.path.abspath(launch_dir)
    while True:
        for suffix in (LOOKUP_SUFFIX, LEGACY_SUFFIX):  # JSON: as pokayokay wrote it before 0168
            candidate = os.path.join(root, folder_key(current) + suffix)
            if os.path.isfile(candidate):
                return candidate
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def read_lookup(path: str) -> dict[str, Any] | None:
    """The lookup's content, or None when it is unreadable, too large, of another format (another
    interpreter's marshal) or of another version. A lookup an earlier pokayokay wrote in JSON
    (``LEGACY_SUFFIX``) is still read, until the next graduation writes it anew."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_LOOKUP_BYTES + 1)
        if len(data) > MAX_LOOKUP_BYTES:
            return None
        if path.endswith(LEGACY_SUFFIX):
            from pokayokay.infra.lean_json import loads

            value = loads(data.decode("utf-8"))
        else:
            from pokayokay.infra.marshal_format import unpack

            value = unpack(data)
    except (OSError, ValueError):
        return None
    if not isinstance(value, dict) or value.get("version") != LOOKUP_VERSION:
        return None
    return value


def load_for(launch_dir: str, environ: Mapping[str, str] | None = None) -> dict[str, Any] | None:
    path = find_lookup(launch_dir, environ)
    return read_lookup(path) if path is not None else None


def command_key(command: str) -> str:
    """The form a command is looked up by: a leading ``cd <dir> &&``, output plumbing
    (``2>&1``, ``> /dev/null``) and trailing pagers (``| tail -n 20``) set aside, whitespace
    collapsed. Two runs of the same command Claude dressed differently get the same key.

    String operations only, so that the hooks calling this never import :mod:`re`; they give
    what the patterns ``^cd\\s+\\S+\\s*&&\\s*``, then repeatedly
    ``\\s*\\|\\s*(?:tail|head|less|more|cat|tee)\\b[^|]*$`` and
    ``\\s*(?:\\d?>&\\d|&>\\s*/dev/null|\\d?>\\s*/dev/null)\\s*$`` would remove (a test
    checks the two agree)."""
    text = _without_cd(" ".join(command.split()))
    while True:
        shorter = _without_plumbing(_without_pager(text))
        if shorter == text:
            return text.strip()
        text = shorter


def _without_cd(text: str) -> str:
    """``text`` (whitespace collapsed) without a leading ``cd <dir> &&``."""
    if not text.startswith("cd "):
        return text
    rest = text[3:]
    space = rest.find(" ")
    word, after = (rest, "") if space < 0 else (rest[:space], rest[space:])
    if word and after[1:3] == "&&":  # cd <dir> &&…
        return after[3:].lstrip(" ")
    at = word.rfind("&&", 1)  # cd <dir>&&…: the last && that leaves a directory before it
    if at < 0:
        return text
    return (word[at + 2 :] + after).lstrip(" ")


_PAGERS = ("tail", "head", "less", "more", "cat", "tee")


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


def _without_pager(text: str) -> str:
    """``text`` without a trailing ``| tail -n 20`` (a pager after the last pipe)."""
    bar = text.rfind("|")
    if bar < 0:
        return text
    after = text[bar + 1 :].lstrip(" \t\n\r\f\v")
    for pager in _PAGERS:
        rest = after[len(pager) :]
        if after.startswith(pager) and not (rest and _is_word(rest[0])):
            return text[:bar].rstrip(" \t\n\r\f\v")
    return text


def _without_plumbing(text: str) -> str:
    """``text`` without a trailing ``2>&1``, ``&>/dev/null`` or ``2> /dev/null``."""
    end = text.rstrip(" \t\n\r\f\v")
    if len(end) >= 3 and end[-1].isdecimal() and end[-3:-1] == ">&":
        cut = len(end) - 3
    elif end.endswith("/dev/null"):
        cut = len(end.rstrip(" \t\n\r\f\v")) - len("/dev/null")
        cut = len(end[:cut].rstrip(" \t\n\r\f\v")) - 1
        if cut < 0 or end[cut] != ">":
            return text
        if cut >= 1 and end[cut - 1] == "&":
            return end[: cut - 1].rstrip(" \t\n\r\f\v")
    else:
        return text
    if cut >= 1 and end[cut - 1].isdecimal():
        cut -= 1
    return end[:cut].rstrip(" \t\n\r\f\v")


_CHAINS = ("&&", "||", ";", "|", "`", "$(")


def _is_assignment(word: str) -> bool:
    name, eq, _ = word.partition("=")
    return bool(eq) and bool(name) and name.replace("_", "a").isalnum() and not name[0].isdigit()


def _is_interpreter(word: str) -> bool:
    base = word.rsplit("/", 1)[-1]
    for name in ("python", "pypy", "node", "ruby", "perl", "php"):
        if base.startswith(name):
            rest = base[len(name) :]
            return rest.replace(".", "").isdecimal() or not rest
    return False


def invocation_key(command: str) -> str:
    """How a command runs its tool, the rest set aside: the variables set before it (names
    only, ``PYTHONPATH=``), the program (a leading ``./`` dropped) and, for an interpreter run
    with ``-m``, the module: ``python -m pytest -q ./tests/x.py`` → ``python -m pytest``,
    ``PYTHONPATH=src pytest`` → ``PYTHONPATH= pytest``. "" for a chain or a pipeline (not one
    tool run). String operations only (see :func:`command_key`)."""
    text = command_key(command)
    if not text or any(mark in text for mark in _CHAINS):
        return ""
    words = text.split(" ")
    out: list[str] = []
    at = 0
    while at < len(words) and _is_assignment(words[at]):
        out.append(words[at].split("=", 1)[0] + "=")
        at += 1
    if at >= len(words):
        return ""
    program = words[at][2:] if words[at].startswith("./") else words[at]
    out.append(program)
    if _is_interpreter(program) and words[at + 1 : at + 2] == ["-m"] and at + 2 < len(words):
        out.extend(("-m", words[at + 2]))
    return " ".join(out)


def _shows(output: str, fragment: str) -> bool:
    """Whether ``output`` holds ``fragment``, or its words where a key has dashes
    (``black:would-reformat`` for "would reformat")."""
    return fragment in output or ("-" in fragment and fragment.replace("-", " ") in output)


def mistake_matches(entry: Mapping[str, Any], output: object) -> bool:
    """Whether a failure's ``output`` shows the mistake an entry was learned from: every
    fragment of one of its ``mistakes`` occurs in it. An entry without ``mistakes`` (a lesson
    about how the command runs) matches any output."""
    mistakes = entry.get("mistakes")
    if mistakes is None:
        return True
    if not isinstance(mistakes, list) or not isinstance(output, str) or not output:
        return False
    for fragments in mistakes:
        if (
            isinstance(fragments, list)
            and fragments
            and all(isinstance(f, str) and _shows(output, f) for f in fragments)
        ):
            return True
    return False


def failure_text(entry: Mapping[str, Any], output: object) -> str:
    """The text for a failure of the entry's command whose output is ``output``: the entry's,
    or that of one of its ``others`` (the same command, other mistakes) whose mistake the
    output shows; "" when none does."""
    others = entry.get("others")
    for candidate in [entry, *(others if isinstance(others, list) else [])]:
        if isinstance(candidate, dict) and mistake_matches(candidate, output):
            text = candidate.get("failure")
            if isinstance(text, str) and text:
                return text
    return ""


def command_entry(lookup: Mapping[str, Any], command: object) -> dict[str, Any] | None:
    """The lesson for a Bash ``command`` in a loaded lookup, or None: the whole command's,
    else the lesson about how its tool is run (:func:`invocation_key`)."""
    if not isinstance(command, str) or not command.strip():
        return None
    commands = lookup.get("commands")
    if not isinstance(commands, dict):
        return None
    entry = commands.get(command_key(command))
    if isinstance(entry, dict):
        return entry
    invocations = lookup.get("invocations")
    if not isinstance(invocations, dict) or not invocations:
        return None
    key = invocation_key(command)
    found = invocations.get(key) if key else None
    return found if isinstance(found, dict) else None


def write_lookup(
    folders: list[str], content: Mapping[str, Any] | None, environ: Mapping[str, str] | None = None
) -> list[str]:
    """Write (or, for ``None``: remove) the lookup of every folder in ``folders`` atomically.
    Returns the paths written or removed."""
    import json

    from pokayokay.infra.marshal_format import pack

    done: list[str] = []
    for folder in dict.fromkeys(folders):
        path = lookup_path(folder, environ)
        legacy = path.removesuffix(LOOKUP_SUFFIX) + LEGACY_SUFFIX
        try:  # the JSON an earlier pokayokay wrote (decision 0168): this one replaces it
            os.unlink(legacy)
            done.append(legacy)
        except FileNotFoundError:
            pass  # the usual case
        if content is None:
            try:
                os.unlink(path)
                done.append(path)
            except FileNotFoundError:
                pass  # already gone: the same outcome
            continue
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        plain = json.loads(json.dumps(dict(content)))  # lists, never tuples, as JSON gave them
        _replace_private(path, pack(plain))
        done.append(path)
    return done


def _replace_private(path: str, data: bytes) -> None:
    """Atomically make ``path`` hold ``data``, mode 0600, in the standard library alone:
    ``safe_write`` imports the state folder's module, which imports the spool, which imports
    this one — an import of ``safe_write`` here would close that circle."""
    tmp = f"{path}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:  # noqa: SIM105 - contextlib is one more import on the per-command path
            os.unlink(tmp)
        except OSError:
            pass  # the next writer sweeps the temp
        raise
