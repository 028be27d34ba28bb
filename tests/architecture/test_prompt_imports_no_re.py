"""The warm prompt imports no ``re`` (issue 26): ``re`` with what it imports (enum, functools,
collections) and a dozen compiled patterns were half an interpreter start of every prompt.

The registered UserPromptSubmit command runs, as ``init`` wrote it into the project's
settings, on the benchmarks' realistic project (graduated rules, a failure store, learnings,
skills, a long MEMORY.md; ``benchmarks.suites.budgets.realistic_project``, smaller, with the
``chain-learnings.md`` fifty SessionEnds leave) for each
prompt kind the budget rows time: a prompt naming project files, a plain prompt, and a plain
prompt right after Claude rewrote MEMORY.md. ``PYTHONPROFILEIMPORTTIME`` (or ``-X importtime``,
for an interpreter started with ``-S -E``) lists every module the hook's interpreter imports."""

from __future__ import annotations

import subprocess

import pytest

from benchmarks.fixtures.lab import Lab, Project
from benchmarks.fixtures.memory import encode_payload, moved_payload
from benchmarks.suites.budgets import (
    CODE_PROMPT,
    PASTED_PROMPT,
    PATH_PROMPT,
    WARM_PROMPT,
    realistic_project,
)
from benchmarks.suites.realistic import registered_argv
from pokayokay.names import CHAIN_LEARNINGS_FILE

NEVER = ("re", "enum", "dataclasses", "typing")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Project:
    lab = Lab(tmp_path_factory.mktemp("lab"))
    project = realistic_project(lab, learnings=300, events=2_000, memory_lines=200)
    # the chain-learnings.md fifty SessionEnds leave (read when a suggestion is shown)
    assert (project.memory_file.parent / CHAIN_LEARNINGS_FILE).is_file()
    return project


def _imported(project: Project, prompt: str, session: str) -> tuple[set[str], bytes]:
    payload = moved_payload("UserPromptSubmit.json", project.path, prompt=prompt)
    payload["session_id"] = session
    argv = registered_argv(project, "UserPromptSubmit")
    if argv[:2] == ["/bin/sh", "-c"]:
        # -E (the registered start without site, decision 0141) ignores the variable below
        argv = [*argv[:2], argv[2].replace(" -S -E ", " -X importtime -S -E ")]
    proc = subprocess.run(
        argv,
        input=encode_payload(payload),
        env=dict(project.env, PYTHONPROFILEIMPORTTIME="1"),
        cwd=project.path,
        capture_output=True,
        timeout=120,
        check=True,
    )
    lines = proc.stderr.decode(errors="replace").splitlines()
    modules = {
        line.rsplit("|", 1)[-1].strip() for line in lines if line.startswith("import time:")
    }
    return modules, proc.stdout


def _rewrite(project: Project, n: int) -> None:
    """Claude rewrote MEMORY.md: one entry's wording changes, the length stays."""
    text = project.memory_file.read_text("utf-8")
    project.memory_file.write_text(text.replace("Memory", f"Mem{n:02d}", 1), "utf-8")


# Written as people write: full stops, a question, an aside in brackets, a flag in backticks
# (each of these compiled a pattern, importing ``re``, until decision 0182's profile).
PROSE_PROMPT = (
    "The checkout totals test fails again (see tests/test_checkout.py). Why? "
    "Add a `--dry-run` flag to the export command, then fix src/app/checkout.py for good."
)


# Asking to explain, in the words of a non-ASCII keyboard, a link that 404s and a relative clause
# (each reached a pattern until decision 0184's count of the prompts that did).
ASKING_PROMPT = (
    "Explain what the retry_after() helper does — the docs link that points at it 404s, "
    "and signing in on my machine fails"
)
PROMPTS = {
    "path prompt": PATH_PROMPT,
    "prompt in sentences": PROSE_PROMPT,
    "prompt naming code": CODE_PROMPT,
    "prompt asking to explain": ASKING_PROMPT,
    "prompt with pasted output": PASTED_PROMPT,
    "prompt with a fenced block": "the export fails:\n```\nKeyError: 'total'\n```\nfix it",
}


@pytest.mark.parametrize(
    "kind",
    [
        "path prompt", "plain prompt", "prompt after a rewrite", "prompt in sentences",
        "prompt naming code", "prompt asking to explain", "prompt with pasted output",
        "prompt with a fenced block",
    ],
)  # fmt: skip
def test_the_registered_prompt_hook_imports_no_re(project: Project, kind: str) -> None:
    prompt = PROMPTS.get(kind, WARM_PROMPT)
    if kind == "prompt after a rewrite":
        _rewrite(project, 1)
    modules, out = _imported(project, prompt, f"no-re-{kind.replace(' ', '-')}")
    # the hook ran through (the analysers and the recall index were imported), and spoke
    assert "pokayokay.relevance.scan" in modules and "pokayokay.recall.sources" in modules
    if kind in ("path prompt", "prompt in sentences"):
        assert b"hookSpecificOutput" in out
    heavy = sorted(m for m in modules if m in NEVER)
    assert not heavy, f"the {kind} imports {heavy}"


def test_the_import_listing_sees_re_when_it_is_imported(project: Project) -> None:
    """The check above can fail: a prompt editing documentation reaches a pattern that stays a
    regex (relevance.asks' docs check), and the listing shows ``re``."""
    modules, _out = _imported(project, "resize the logo image in the README", "no-re-control")
    assert "re" in modules
