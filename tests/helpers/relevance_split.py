"""The relevance TEST split (``tests/data/relevance_test``), scored through the registered hook.

The split was written before the code it judges by a writer who read only the README and its
inputs (three projects' notes, real SKILL.md files); ``SHA256SUMS`` holds its hash. It is scored
the way a user meets pokayokay: each note is stored with ``pokayokay remember``, the skills sit in
the project's ``.claude/skills/``, and every prompt goes through the registered
``pokayokay-event UserPromptSubmit`` command with a new session id; what reached the model is
read back from the hook's ``additionalContext``.

Never read the split's prompts while tuning: report its figures, and once its failures have been
read, it is dev data and a new test split must be written (``../shared/docs/evaluation.md``).

Figures (over the prompts of a set):
- **hit**: prompts expecting something where an expected item was shown;
- **silence**: prompts expecting nothing where nothing was shown;
- **precision**: shown items that were expected, over every item shown on any prompt.
Each with a 95 % Wilson interval.

Run ``python tests/helpers/relevance_split.py`` for the table.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pokayokay.skills.asked import Table

REPO = Path(__file__).resolve().parents[2]
SPLIT = REPO / "tests" / "data" / "relevance_test"
EVENT_SCRIPT = REPO / "scripts" / "pokayokay-event"


def prompt_imports(payload: dict[str, Any], env: dict[str, str], cwd: Path) -> set[str]:
    """The modules the prompt hook (the repository's ``pokayokay-event`` script) imports for
    ``payload``, read from ``-X importtime``."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", str(EVENT_SCRIPT), "UserPromptSubmit"],
        input=json.dumps(payload).encode("utf-8"), capture_output=True, env=env, cwd=cwd,
        timeout=60, check=True,
    )  # fmt: skip
    return {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.decode().splitlines()}
OPEN_TAG, CLOSE_TAG = "<pokayokay-recall>", "</pokayokay-recall>"
SKILLS_LEAD = "skills that fit this prompt — "


@dataclass(frozen=True)
class Rate:
    hits: int
    total: int

    @property
    def value(self) -> float:
        return self.hits / self.total if self.total else 0.0

    def interval(self, z: float = 1.96) -> tuple[float, float]:
        """The 95 % Wilson score interval."""
        n = self.total
        if not n:
            return (0.0, 1.0)
        p = self.hits / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return (max(0.0, centre - half), min(1.0, centre + half))

    def __str__(self) -> str:
        low, high = self.interval()
        return f"{self.value:.2f} [{low:.2f}, {high:.2f}] ({self.hits}/{self.total})"


@dataclass(frozen=True)
class Figures:
    hit: Rate
    silence: Rate
    precision: Rate


def check_hashes(root: Path = SPLIT) -> list[str]:
    """The files whose SHA-256 differs from ``SHA256SUMS`` (or are missing from it)."""
    listed: dict[str, str] = {}
    for line in (root / "SHA256SUMS").read_text("utf-8").splitlines():
        if line.strip():
            digest, name = line.split(maxsplit=1)
            listed[name.lstrip("*").removeprefix("./")] = digest
    problems = []
    for name, digest in listed.items():
        path = root / name
        if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            problems.append(name)
    for path in root.rglob("*"):
        name = path.relative_to(root).as_posix()
        if path.is_file() and name != "SHA256SUMS" and name not in listed:
            problems.append(f"{name} (not hashed)")
    return problems


def _words(text: str) -> set[str]:
    word = []
    out = set()
    for ch in text.casefold() + " ":
        if ch.isalnum():
            word.append(ch)
        elif word:
            out.add("".join(word))
            word = []
    return out


def recalled_lines(context: str) -> list[str]:
    """The notes' lines of the recall block in a hook's additionalContext."""
    if OPEN_TAG not in context:
        return []
    inside = context.split(OPEN_TAG, 1)[1].split(CLOSE_TAG, 1)[0]
    return [line for line in inside.splitlines() if line.startswith("- ")]


def suggested_skills(context: str) -> list[str]:
    """The skill names of the suggestion line in a hook's additionalContext."""
    if SKILLS_LEAD not in context:
        return []
    line = context.split(SKILLS_LEAD, 1)[1].splitlines()[0]
    names = []
    for part in line.split("/")[1:]:
        name = ""
        for ch in part:
            if ch.isalnum() or ch in "-_:.":
                name += ch
            else:
                break
        name = name.rstrip(".")
        if name and name not in names:
            names.append(name)
    return names


def match_note(line: str, notes: Sequence[dict[str, Any]]) -> str | None:
    """The id of the note a recalled line shows: the best word overlap with the line's text
    (the line may be cut short), or None under half of the line's words."""
    shown = _words(line.split(":", 1)[1] if ":" in line else line)
    best, best_share = None, 0.0
    for note in notes:
        words = _words(note["text"])
        share = len(shown & words) / max(1, len(shown))
        if share > best_share:
            best, best_share = note["id"], share
    return best if best_share >= 0.5 else None


class Lab:
    """A throwaway home and project: HOME, CLAUDE_CONFIG_DIR and POKAYOKAY_HOME inside it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.home = root / "home"
        self.project = root / "project"
        self.home.mkdir(parents=True)
        self.project.mkdir()
        subprocess.run(["git", "init", "-q", str(self.project)], check=True)
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "POKAYOKAY"))},
            "HOME": str(self.home),
            "CLAUDE_CONFIG_DIR": str(self.home / ".claude"),
            "POKAYOKAY_HOME": str(self.home / "state"),
        }

    def remember(self, text: str, asked: Sequence[str] = ()) -> None:
        """Store ``text`` as ``/remember`` does; with ``asked``, then add how a teammate might
        ask for it, as the command asks Claude to (``remember --asked``, decision 0175)."""
        cli = [sys.executable, "-m", "pokayokay", "remember", "--project", str(self.project)]
        proc = subprocess.run(
            [*cli, "--stdin"], input=text.encode("utf-8"), capture_output=True, env=self.env,
            cwd=self.project, timeout=120, check=False,
        )  # fmt: skip
        if proc.returncode != 0:
            raise RuntimeError(f"remember failed: {proc.stderr.decode(errors='replace')}")
        if not asked:
            return
        stored = proc.stdout.decode("utf-8").split("\n", 1)[0]
        name = stored.split(": ", 1)[1].split(" (", 1)[0]  # "Stored: <name> (<category>)"
        proc = subprocess.run(
            [*cli, "--asked", name, *asked], capture_output=True, env=self.env,
            cwd=self.project, timeout=120, check=False,
        )  # fmt: skip
        if proc.returncode != 0:
            raise RuntimeError(f"remember --asked failed: {proc.stderr.decode(errors='replace')}")

    def add_skills(self, skills: Path) -> None:
        target = self.project / ".claude" / "skills"
        for skill in sorted(skills.iterdir()):
            if (skill / "SKILL.md").is_file():
                (target / skill.name).mkdir(parents=True)
                (target / skill.name / "SKILL.md").write_bytes((skill / "SKILL.md").read_bytes())

    def ask_skills(self, phrases: dict[str, list[str]]) -> None:
        """Add how a user might ask for each skill, as ``/skill-phrases`` has Claude do
        (``pokayokay skills --asked-from -``, decision 0176)."""
        cli = [sys.executable, "-m", "pokayokay", "skills", "--project", str(self.project)]
        text = "\n".join(f"## {name}\n" + "\n".join(asked) for name, asked in phrases.items())
        proc = subprocess.run(
            [*cli, "--asked-from", "-"], input=text.encode("utf-8"),
            capture_output=True, env=self.env, cwd=self.project, timeout=120, check=False,
        )  # fmt: skip
        if proc.returncode != 0 or b"left out" in proc.stdout:
            raise RuntimeError(f"skills --asked-from failed: {proc.stdout!r} {proc.stderr!r}")

    def start_dense(self) -> subprocess.Popen[bytes]:
        """The resident dense model for this lab (decision 0181), as SessionStart starts it:
        returns once it answers, its project's skills and notes encoded (it serves once the
        skills are, and says when the notes are: decision 0187)."""
        log = self.home / "dense-service.log"
        with log.open("wb") as err:
            service = subprocess.Popen(
                [sys.executable, "-m", "pokayokay.skills.dense_service", "--warm",
                 str(self.project)],
                env=self.env, cwd=self.project, stdin=subprocess.DEVNULL, stderr=err,
            )  # fmt: skip
        from pokayokay.relevance.dense.client import alive

        deadline = time.monotonic() + 300
        while not (alive(self.env) and b" notes encoded for " in log.read_bytes()):
            if service.poll() is not None or time.monotonic() > deadline:
                service.kill()
                raise RuntimeError(f"the dense service did not start: {log.read_text()}")
            time.sleep(0.2)
        return service

    def prompt(self, text: str) -> str:
        """The additionalContext the registered hook gives ``text`` ("" when silent)."""
        payload = {
            "session_id": str(uuid.uuid4()),
            "transcript_path": str(self.home / "transcript.jsonl"),
            "cwd": str(self.project),
            "prompt_id": str(uuid.uuid4()),
            "permission_mode": "default",
            "hook_event_name": "UserPromptSubmit",
            "prompt": text,
        }
        proc = subprocess.run(
            [sys.executable, str(EVENT_SCRIPT), "UserPromptSubmit"],
            input=json.dumps(payload).encode("utf-8"), capture_output=True, env=self.env,
            cwd=self.project, timeout=60, check=False,
        )  # fmt: skip
        if proc.returncode != 0 or proc.stderr:
            raise RuntimeError(f"hook failed: {proc.stderr.decode(errors='replace')}")
        if not proc.stdout.strip():
            return ""
        context: str = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
        return context


def asked_phrases(path: Path) -> dict[str, list[str]]:
    """How a teammate might ask for each labelled note, by the note's text: a
    ``tests/data/recall_asked`` file (decision 0175)."""
    rows = json.loads(path.read_text("utf-8"))["notes"]
    return {row["text"]: row["asked"] for row in rows}


def skills_asked(path: Path, folder: Path) -> dict[str, list[str]]:
    """How a user might ask for each skill of the catalog ``folder``, by name: a
    ``tests/data/skills_asked`` file (decision 0176)."""
    catalog = folder.resolve().relative_to(REPO).as_posix()
    rows = json.loads(path.read_text("utf-8"))["skills"]
    return {row["name"]: row["asked"] for row in rows if row["catalog"] == catalog}


def skills_asked_table(path: Path, folder: Path) -> Table:
    """:func:`skills_asked` as the table ``pokayokay skills --asked`` would have written for the
    skills of ``folder`` (:mod:`pokayokay.skills.asked`)."""
    from pokayokay.skills.asked import skill_key
    from pokayokay.skills.catalog import catalog_from_folder

    phrases = skills_asked(path, folder)
    return {
        skill_key(s.name, s.description): (s.name, tuple(phrases[s.name]), 0)
        for s in catalog_from_folder(folder)
        if s.name in phrases
    }


def figures(outcomes: Iterable[tuple[list[str], list[str]]]) -> Figures:
    """Figures from (expected, shown) pairs."""
    hit = [0, 0]
    silence = [0, 0]
    precision = [0, 0]
    for expected, shown in outcomes:
        if expected:
            hit[1] += 1
            hit[0] += any(item in expected for item in shown)
        else:
            silence[1] += 1
            silence[0] += not shown
        precision[1] += len(shown)
        precision[0] += sum(item in expected for item in shown)
    return Figures(Rate(*hit), Rate(*silence), Rate(*precision))


def score_recall(
    project_file: Path, asked: dict[str, list[str]] | None = None, dense: bool = False
) -> Figures:
    """The figures of one project file; ``asked``: how a teammate might ask for each note, by
    its text (``tests/data/recall_asked``), added as ``/remember`` has Claude add it;
    ``dense``: with the resident dense model running (decision 0181)."""
    data = json.loads(project_file.read_text("utf-8"))
    with tempfile.TemporaryDirectory(prefix="pokayokay-split-") as folder:
        lab = Lab(Path(folder))
        for note in data["notes"]:
            lab.remember(note["text"], (asked or {}).get(note["text"], ()))
        service = lab.start_dense() if dense else None
        outcomes = []
        try:
            for row in data["prompts"]:
                lines = recalled_lines(lab.prompt(row["q"]))
                shown = [match_note(line, data["notes"]) or f"?{line[:40]}" for line in lines]
                outcomes.append((list(row["expect"]), shown))
        finally:
            if service is not None:
                service.terminate()
                service.wait(30)
    return figures(outcomes)


def score_skills(
    root: Path = SPLIT / "skills", asked: Path | None = None, dense: bool = False
) -> Figures:
    """The skill figures of a split's ``skills`` folder; ``asked``: a ``tests/data/skills_asked``
    file, whose phrases for this catalog are added as ``/skill-phrases`` has Claude add them;
    ``dense``: with the resident dense model running (``pokayokay[dense]``, decision 0181)."""
    data = json.loads((root / "prompts.json").read_text("utf-8"))
    with tempfile.TemporaryDirectory(prefix="pokayokay-split-") as folder:
        lab = Lab(Path(folder))
        lab.add_skills(root)
        phrases = {} if asked is None else skills_asked(asked, root)
        if phrases:
            lab.ask_skills(phrases)
        service = lab.start_dense() if dense else None
        try:
            outcomes = [
                (list(row["expect"]), suggested_skills(lab.prompt(row["q"])))
                for row in data["prompts"]
            ]
        finally:
            if service is not None:
                service.terminate()
                service.wait(30)
    return figures(outcomes)


def recall_sets(root: Path = SPLIT / "recall") -> list[Path]:
    return sorted(root.glob("*.json"))


def combined(parts: Sequence[Figures]) -> Figures:
    def total(rates: Iterable[Rate]) -> Rate:
        rates = list(rates)
        return Rate(sum(r.hits for r in rates), sum(r.total for r in rates))

    return Figures(
        total(p.hit for p in parts),
        total(p.silence for p in parts),
        total(p.precision for p in parts),
    )


def main(argv: Sequence[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description="Score a relevance test split through the hook.")
    parser.add_argument("--split", type=Path, default=SPLIT, help="the split's folder")
    parser.add_argument(
        "--asked",
        type=Path,
        default=None,
        help="a tests/data/recall_asked file: store each note with how a teammate might ask "
        "for it (decision 0175)",
    )
    parser.add_argument(
        "--skills-asked",
        type=Path,
        default=None,
        help="a tests/data/skills_asked file: add how a user might ask for each skill "
        "(decision 0176)",
    )
    parser.add_argument("--skills-only", action="store_true", help="score the skills alone")
    parser.add_argument(
        "--dense",
        action="store_true",
        help="with the resident dense model running (pokayokay[dense], decision 0181)",
    )
    args = parser.parse_args(argv)
    root = args.split.resolve()
    asked = None if args.asked is None else asked_phrases(args.asked)
    problems = check_hashes(root)
    if problems:
        print("the split differs from SHA256SUMS: " + ", ".join(problems))
    rows: list[tuple[str, Figures]] = []
    recall_parts = []
    for path in [] if args.skills_only else recall_sets(root / "recall"):
        result = score_recall(path, asked, args.dense)
        recall_parts.append(result)
        rows.append((f"recall {path.stem}", result))
    if recall_parts:
        rows.append(("recall, all", combined(recall_parts)))
    rows.append(("skills", score_skills(root / "skills", args.skills_asked, args.dense)))
    for name, result in rows:
        print(f"{name:24} hit {result.hit}  silence {result.silence}  "
              f"precision {result.precision}")  # fmt: skip
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
