"""``spike-results.md``: GO/NO-GO conclusions of spikes, one entry per question.

Written by ``pokayokay spike record "<question>" --go|--no-go "<conclusion>"``; read by skill
suggestion, which suppresses a spike skill when the prompt asks an answered question and
surfaces the conclusion with its date instead. The file lives in the memory folder and is linked
from MEMORY.md's Topic Index (:func:`index_topic_files`, shared with ``chain-learnings.md``).

Entry format (newest last; re-recording a question replaces its entry)::

    ## 2025-03-02 — Can we use SQLite FTS5 for search?
    - Verdict: NO-GO
    - Conclusion: FTS5 lacks per-tenant ranking; use Postgres full-text instead.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from pokayokay.infra.regular import read_regular
from pokayokay.names import CHAIN_LEARNINGS_FILE, SPIKES_FILE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from pokayokay.infra.locate import MemoryLocation
    from pokayokay.memory.sections import Settings

FILE_NAME = SPIKES_FILE
MAX_ENTRIES = 200
QUESTION_CHARS = 200
CONCLUSION_CHARS = 400
HEADER = (
    "# Spike results\n\n"
    "<!-- pokayokay: GO/NO-GO conclusions, newest last; written by `pokayokay spike record` -->\n"
)
SPIKE_LINK = "- See [spike-results.md](spike-results.md) for spike GO/NO-GO conclusions"
CHAIN_LINK = (
    "- See [chain-learnings.md](chain-learnings.md) for session outcomes "
    "(skills used, failures, files touched)"
)
_LINK_PREFIXES = ("- See [spike-results.md](", "- See [chain-learnings.md](")

_HEADING = re.compile(r"^## (\d{4}-\d{2}-\d{2}) — (.+?)\s*$")
_VERDICT = re.compile(r"^- Verdict: (GO|NO-GO)\s*$")
_CONCLUSION = re.compile(r"^- Conclusion: (.*?)\s*$")


@dataclass(frozen=True)
class Spike:
    day: str  # ISO date
    question: str
    go: bool
    conclusion: str

    @property
    def verdict(self) -> str:
        return "GO" if self.go else "NO-GO"

    def render(self) -> str:
        return (
            f"## {self.day} — {self.question}\n"
            f"- Verdict: {self.verdict}\n"
            f"- Conclusion: {self.conclusion}\n"
        )


def parse(text: str) -> list[Spike]:
    """The entries of ``spike-results.md`` (malformed ones are skipped), in file order."""
    out: list[Spike] = []
    current: list[str] | None = None  # [day, question, verdict, conclusion]

    def flush() -> None:
        if current is not None and current[2]:
            out.append(Spike(current[0], current[1], current[2] == "GO", current[3]))

    for line in text.splitlines():
        heading = _HEADING.match(line)
        if heading:
            flush()
            current = [heading[1], heading[2], "", ""]
            continue
        if current is None:
            continue
        verdict = _VERDICT.match(line)
        if verdict:
            current[2] = verdict[1]
            continue
        conclusion = _CONCLUSION.match(line)
        if conclusion:
            current[3] = conclusion[1]
    flush()
    return out


def render(spikes: list[Spike]) -> str:
    return HEADER + "".join("\n" + spike.render() for spike in spikes)


def _key(question: str) -> str:
    return " ".join(question.casefold().split()).rstrip("?. ")


def with_spike(spikes: list[Spike], spike: Spike) -> list[Spike]:
    """``spikes`` with ``spike`` recorded: an entry for the same question is replaced (the new
    one goes last), and only the newest :data:`MAX_ENTRIES` are kept (pure)."""
    kept = [s for s in spikes if _key(s.question) != _key(spike.question)]
    return [*kept, spike][-MAX_ENTRIES:]


def read_topic_text(memory_dir: Path, name: str) -> str:
    """The text of the topic file ``name`` in ``memory_dir`` ("" when it is missing or cannot be
    read: a topic file is optional). Bytes that are not UTF-8 read as U+FFFD, so the parsers of
    ``spike-results.md`` and ``chain-learnings.md`` always get text."""
    try:
        data = read_regular(memory_dir / name)
    except OSError:
        return ""
    return data.decode("utf-8", "replace")


def read(memory_dir: Path) -> list[Spike]:
    return parse(read_topic_text(memory_dir, FILE_NAME))


def topic_lock(location: MemoryLocation, environ: Mapping[str, str] | None) -> Path:
    """The lock file serialising writes to a memory folder's topic files (in the state folder)."""
    from pokayokay.infra.locate import slugify
    from pokayokay.infra.state import state_home

    env = dict(os.environ if environ is None else environ)
    return state_home(env) / "locks" / f"{slugify(str(location.memory_dir))}.topics.lock"


def record(
    location: MemoryLocation,
    question: str,
    go: bool,
    conclusion: str,
    *,
    today: date | None = None,
    environ: Mapping[str, str] | None = None,
) -> Spike:
    """Record one conclusion in ``<memory_dir>/spike-results.md`` (locked, atomic)."""
    from pokayokay.errors import PokayokayError
    from pokayokay.infra.safe_write import encode_text, file_lock, read_bytes, replace_if_unchanged
    from pokayokay.memory.apply import checked_target
    from pokayokay.safety.sanitize import excerpt

    q = excerpt(question, QUESTION_CHARS)
    c = excerpt(conclusion, CONCLUSION_CHARS)
    if not q:
        raise PokayokayError("the spike question is empty")
    if not c:
        raise PokayokayError("the spike conclusion is empty")
    spike = Spike((today or date.today()).isoformat(), q, go, c)
    target = checked_target(location, FILE_NAME)
    target.parent.mkdir(parents=True, exist_ok=True)
    with file_lock(topic_lock(location, environ), 10.0):
        old = read_bytes(target)
        spikes = parse(old.decode("utf-8", "replace")) if old is not None else []
        new = encode_text(render(with_spike(spikes, spike)))
        replace_if_unchanged(target, old, new)
    return spike


def owns_link(entry: str) -> bool:
    """Is this Topic Index entry one of pokayokay's links to its two topic files?"""
    text = entry.strip()
    return "\n" not in text and text.startswith(_LINK_PREFIXES)


def index_topic_files(
    location: MemoryLocation, settings: Settings, environ: Mapping[str, str] | None = None
) -> str | None:
    """Link ``spike-results.md`` and ``chain-learnings.md`` (those that exist) from the Topic
    Index of MEMORY.md. Returns a note when MEMORY.md could not be updated, else None."""
    from pokayokay.errors import PokayokayError
    from pokayokay.memory.apply import SectionEdit, run_curation
    from pokayokay.memory.sections import TOPIC_INDEX_ID

    if settings.section(TOPIC_INDEX_ID) is None:
        return "the Topic Index section is turned off in the settings; MEMORY.md not linked"
    if not location.memory_file.exists():
        return None  # nothing to link from yet; curation creates MEMORY.md
    wanted = tuple(
        link
        for link, name in ((CHAIN_LINK, CHAIN_LEARNINGS_FILE), (SPIKE_LINK, FILE_NAME))
        if (location.memory_dir / name).exists()
    )
    edit = SectionEdit(TOPIC_INDEX_ID, entries=wanted, owns=owns_link)
    try:
        run_curation(location, settings, write=True, edit=edit, environ=environ)
    except PokayokayError as exc:
        return f"MEMORY.md not linked ({exc.message})"
    return None


def spike_cli(
    question: str, go: bool, conclusion: str, project_dir: Path, location: MemoryLocation
) -> tuple[int, str]:
    """``pokayokay spike record "<question>" --go|--no-go "<conclusion>"``."""
    from pokayokay.config.settings import load_settings
    from pokayokay.errors import PokayokayError

    try:
        spike = record(location, question, go, conclusion)
    except PokayokayError as exc:
        return exc.exit_code, f"pokayokay: spike not recorded: {exc.message}"
    out = [
        f"recorded {spike.verdict} for “{spike.question}” ({spike.day}) in "
        f"{location.memory_dir / FILE_NAME}"
    ]
    try:
        settings = load_settings(project_dir)
        note = index_topic_files(location, settings)
    except PokayokayError as exc:
        note = f"MEMORY.md not linked ({exc.message})"
    else:
        from pokayokay.learnings.outcomes.observed import KEY_DECISIONS, spike_entry, write_entries

        entry = spike_entry(spike.question, spike.verdict, spike.conclusion, spike.day)
        decided = write_entries(location, settings, {KEY_DECISIONS: [entry]})
        note = note or (f"Key Decisions: {decided}" if decided else None)
    if note:
        out.append(f"note: {note}")
    return 0, "\n".join(out)
