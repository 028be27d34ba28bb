"""The entries of ``chain-learnings.md`` as values, and their text (pure, no import at run time).

:mod:`pokayokay.learnings.outcomes.chain` writes the file at SessionEnd; skill suggestion reads
it back on a prompt that shows a suggestion (the risk note, :mod:`pokayokay.skills.suggest`).
That read is on the prompt hook's path, so this module imports no standard module: the entries
are read with plain string scans (equal to the patterns they replaced, property-tested in
``tests/learnings/outcomes/test_chain_entries.py``), and :class:`SessionOutcome` is a slotted
:class:`~pokayokay.infra.Value`, as the other value types a hook uses (docs/architecture.md,
decisions 0126 and 0154).
"""

from __future__ import annotations

from pokayokay.infra import Value

MAX_FILES_SHOWN = 8
MAX_SKILLS_SHOWN = 10
FIELDS = ("Task", "Skills", "Failures", "Files", "Result")
# the characters of a failure category's name in ``Failures: 3 (testing 2, build 1)``
_CATEGORY = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")


class SessionOutcome(Value, eq=True):
    """One session's entry: what it was asked, the skills it used, how it ended."""

    day: str
    session_id: str
    task: str
    skills: tuple[str, ...]
    failures: int
    categories: tuple[tuple[str, int], ...]  # (category, count), most first
    files: tuple[str, ...]
    result: str  # clean | recovered | failed | unknown
    result_note: str = ""

    def render(self) -> str:
        cats = ", ".join(f"{c} {n}" for c, n in self.categories)
        failures = f"{self.failures} ({cats})" if cats else str(self.failures)
        shown = list(self.files[:MAX_FILES_SHOWN])
        if len(self.files) > MAX_FILES_SHOWN:
            shown.append(f"+{len(self.files) - MAX_FILES_SHOWN} more")
        result = f"{self.result} ({self.result_note})" if self.result_note else self.result
        return (
            f"## {self.day} session {self.session_id}\n"
            f"- Task: {self.task or '-'}\n"
            f"- Skills: {', '.join(self.skills[:MAX_SKILLS_SHOWN]) or '-'}\n"
            f"- Failures: {failures}\n"
            f"- Files: {', '.join(shown) or '-'}\n"
            f"- Result: {result}\n"
        )


def heading(line: str) -> tuple[str, str] | None:
    """``(day, session)`` of an entry's heading ``## 2025-03-02 session 1f0c2a9e``, else None."""
    if not line.startswith("## ") or line[13:22] != " session ":
        return None
    day = line[3:13]
    if not (day[4] == day[7] == "-" and (day[:4] + day[5:7] + day[8:]).isdecimal()):
        return None
    session = line[22:].rstrip()
    if not session or any(ch.isspace() for ch in session):
        return None
    return day, session


def field(line: str) -> tuple[str, str] | None:
    """``(name, value)`` of an entry's ``- Name: value`` line (one of :data:`FIELDS`)."""
    if not line.startswith("- "):
        return None
    name, sep, value = line[2:].partition(": ")
    if not sep or name not in FIELDS:
        return None
    return name, value.rstrip()


def categories(failures: str) -> tuple[tuple[str, int], ...]:
    """The ``(category, count)`` pairs of a ``Failures:`` value: each run of lower-case
    letters, digits and ``-`` followed by a space and a number, left to right."""
    out: list[tuple[str, int]] = []
    pos, end = 0, len(failures)
    while pos < end:
        if failures[pos] not in _CATEGORY:
            pos += 1
            continue
        stop = pos
        while stop < end and failures[stop] in _CATEGORY:
            stop += 1
        if stop + 1 < end and failures[stop] == " " and failures[stop + 1].isdecimal():
            digits = stop + 1
            while digits < end and failures[digits].isdecimal():
                digits += 1
            out.append((failures[pos:stop], int(failures[stop + 1 : digits])))
            pos = digits
        else:
            pos = stop  # a shorter run ends at the same character: none of them matches
    return tuple(out)


def _leading_number(text: str) -> int:
    digits = 0
    while digits < len(text) and text[digits].isdecimal():
        digits += 1
    return int(text[:digits]) if digits else 0


def _note(result: str) -> str:
    """What stands between the first ``(`` and the last ``)`` of a ``Result:`` value."""
    opened = result.find("(")
    closed = result.rfind(")")
    return result[opened + 1 : closed] if 0 <= opened < closed else ""


def _latest_start(lines: list[str], latest: int) -> int:
    """The index of the line that starts the ``latest``-th entry from the end (0 when there
    are fewer entries)."""
    seen = 0
    for at in range(len(lines) - 1, -1, -1):
        line = lines[at]
        if line.startswith("## ") and heading(line) is not None:
            seen += 1
            if seen == latest:
                return at
    return 0


def parse(text: str, latest: int | None = None) -> list[SessionOutcome]:
    """The entries of ``chain-learnings.md``, in file order (malformed fields read as empty).
    ``latest``: only the last ``latest`` entries, the tail of the full list; the lines before
    them are not read (an entry is its heading and the lines up to the next one)."""
    out: list[SessionOutcome] = []
    lines = text.splitlines()
    if latest is not None:
        if latest <= 0:
            return out
        lines = lines[_latest_start(lines, latest) :]
    current: dict[str, str] | None = None

    def flush() -> None:
        if current is None:
            return
        failures_text = current.get("Failures", "0")
        result_text = current.get("Result", "")
        skills = current.get("Skills", "-")
        files = current.get("Files", "-")
        task = current.get("Task", "-")
        out.append(
            SessionOutcome(
                day=current["day"],
                session_id=current["session"],
                task="" if task == "-" else task,
                skills=() if skills == "-" else tuple(s.strip() for s in skills.split(",")),
                failures=_leading_number(failures_text),
                categories=categories(failures_text),
                files=() if files == "-" else tuple(f.strip() for f in files.split(",")),
                result=result_text.split(" ", 1)[0] if result_text else "",
                result_note=_note(result_text),
            )
        )

    for line in lines:
        found = heading(line)
        if found is not None:
            flush()
            current = {"day": found[0], "session": found[1]}
            continue
        named = field(line)
        if named is not None and current is not None:
            current[named[0]] = named[1]
    flush()
    return out


def read(memory_dir: str, name: str, latest: int | None = None) -> list[SessionOutcome]:
    """The entries of the topic file ``name`` in ``memory_dir`` (none when it is missing or
    cannot be read; bytes that are not UTF-8 read as U+FFFD); ``latest``: as :func:`parse`."""
    import os

    from pokayokay.infra.regular import read_regular

    try:
        data = read_regular(os.path.join(memory_dir, name))
    except OSError:
        return []
    return parse(data.decode("utf-8", "replace"), latest)
