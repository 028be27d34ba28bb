"""The learnings stored in the memory folder: every learning-*.md topic file, read and parsed, with
the files that could not be read reported rather than dropped."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from pokayokay.infra.regular import read_bounded

if TYPE_CHECKING:

    from pokayokay.learnings.model import Learning


# Learning files larger than this are not learnings pokayokay wrote: they are left alone.
MAX_FILE_BYTES = 256 * 1024


class StoredLearning(NamedTuple):
    """A learning topic file found in the memory folder (``data``: the bytes it held)."""

    path: Path
    learning: Learning
    data: bytes

    @property
    def file_name(self) -> str:
        return self.path.name


def learning_files(memory_dir: Path) -> list[Path]:
    """The ``learning-*.md`` files of the folder, sorted by name (symlinks included)."""
    from pokayokay.learnings.model import FILE_PREFIX

    try:
        entries = list(os.scandir(memory_dir))
    except OSError:
        return []
    names = [e.name for e in entries if e.name.startswith(FILE_PREFIX) and e.name.endswith(".md")]
    return [memory_dir / name for name in sorted(names)]


def load_learnings(memory_dir: Path) -> tuple[list[StoredLearning], list[str]]:
    """Every learning topic file in ``memory_dir`` that parses, and one problem line per file
    that was skipped (a symlink, too large, unreadable, or not in the learning format)."""
    from pokayokay.learnings.model import LearningFormatError
    from pokayokay.learnings.topics.topic_file import parse

    found: list[StoredLearning] = []
    problems: list[str] = []
    for path in learning_files(memory_dir):
        data = read_bounded(path, MAX_FILE_BYTES)
        if isinstance(data, str):
            problems.append(f"{path.name}: {data} (skipped)")
            continue
        try:
            learning = parse(data.decode("utf-8"))
        except UnicodeDecodeError:
            problems.append(f"{path.name}: not UTF-8 text (skipped)")
            continue
        except LearningFormatError as exc:
            problems.append(f"{path.name}: {exc} (skipped)")
            continue
        found.append(StoredLearning(path, learning, data))
    return found, problems


def read_stored(path: Path) -> StoredLearning | None:
    """One learning file as :func:`load_learnings` reads it, or None when it is not one (any
    more): a symlink, too large, unreadable, not UTF-8 or not in the learning format."""
    from pokayokay.learnings.model import LearningFormatError
    from pokayokay.learnings.topics.topic_file import parse

    data = read_bounded(path, MAX_FILE_BYTES)
    if isinstance(data, str):
        return None
    try:
        return StoredLearning(path, parse(data.decode("utf-8")), data)
    except (UnicodeDecodeError, LearningFormatError):
        return None


def contradicting_learnings(memory_dir: Path) -> list[str]:
    """One line per pair of stored learnings that contradict each other (both are kept: which
    one holds is for the user to say), e.g. ``learning-use-httpx.md contradicts
    learning-use-requests.md (httpx, request)``."""
    from pokayokay.learnings.wording import contradictions

    stored, _problems = load_learnings(memory_dir)
    pairs = contradictions([(s.file_name, s.learning.text) for s in stored])
    return [f"{a} contradicts {b} ({', '.join(sorted(words))})" for a, b, words in pairs]
