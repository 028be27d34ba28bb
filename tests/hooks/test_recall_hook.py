"""The recall hook: UserPromptSubmit (and SessionStart) through pokayokay's hook runtime, fed the
real UserPromptSubmit payload captured from Claude Code 2.1.330, with learnings stored in the
memory folder Claude Code would use."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers.gitrepo import git
from helpers.hooks import prompt_payload, run_hook
from helpers.paths import REPO_ROOT

from pokayokay.hooks import recall as handler
from pokayokay.infra.locate import resolve_memory_location
from pokayokay.infra.state import project_state_dir
from pokayokay.learnings import model as learnings
from pokayokay.learnings.topics import topic_file
from pokayokay.recall import block as recall_block
from pokayokay.recall.cache_io import read_index_file
from pokayokay.recall.sources import ENTRIES_FILE, INDEX_FILE
from pokayokay.relevance import note_index as recall
from pokayokay.relevance.postings import bucket_of
from pokayokay.safety.sanitize import excerpt

EVENT = "UserPromptSubmit"
CONSOLE_SCRIPT = Path(sys.executable).parent / "pokayokay"
HANDLER_MODULE = REPO_ROOT / "pokayokay" / "hooks" / "recall.py"

NOTES = [
    (
        "Never run alembic upgrade head directly against the staging database; use make migrate "
        "ENV=staging, which takes the advisory lock first.",
        "anti-patterns",
    ),
    ("Use make seed to load the demo tenant with sample invoices for local work.", "patterns"),
    (
        "The Stripe webhook tests sign payloads with the test secret from tests/helpers/stripe.py; "
        "never mock construct_event.",
        "anti-patterns",
    ),
]
RELATED = "how do I apply the new migration on staging?"
UNRELATED = "write a haiku about autumn leaves"


def memory_of(project: Path) -> Path:
    return resolve_memory_location(project).memory_dir


def store(project: Path, notes: list[tuple[str, str]] = NOTES) -> Path:
    memory = memory_of(project)
    memory.mkdir(parents=True, exist_ok=True)
    for text, category in notes:
        name = learnings.make_name(text)
        learning = learnings.Learning(
            name=name,
            description=excerpt(text, learnings.DESCRIPTION_MAX),
            text=text,
            category=category,
            hash=learnings.identity(text),
        )
        (memory / learnings.file_name_for(name)).write_text(topic_file.render(learning), "utf-8")
    return memory


payload = prompt_payload


def run(data: dict[str, Any] | bytes, event: str = EVENT) -> tuple[int, str, str]:
    return run_hook(event, data)


def context_of(stdout: str, event: str = EVENT) -> str:
    assert stdout.endswith("\n") and stdout.count("\n") == 1
    data = json.loads(stdout)
    assert set(data) == {"hookSpecificOutput"}
    specific = data["hookSpecificOutput"]
    assert set(specific) == {"hookEventName", "additionalContext"}
    assert specific["hookEventName"] == event
    context: str = specific["additionalContext"]
    assert len(context) < 10_000  # Claude Code spills larger strings to a file
    return context


def assert_fenced(context: str, advisory: str = recall_block.ADVISORY) -> list[str]:
    lines = context.split("\n")
    assert lines[:2] == [advisory, recall_block.OPEN_TAG]
    assert lines[-2:] == [recall_block.CLOSE_TAG, recall_block.REANCHOR]
    found = lines[2:-2]
    assert 1 <= len(found) <= recall.TOP_K
    assert len("\n".join(found)) <= recall_block.BUDGET
    for line in found:
        assert re.fullmatch(r"- \[\d\.\d\d\] [a-z, -]+: .+", line), line
    return found


# ------------------------------------------------------------------------------------------------
# the prompt hook


def test_related_prompt_gets_the_fenced_learning(project: Path) -> None:
    store(project)
    code, out, err = run(payload(project, RELATED))
    assert (code, err) == (0, "")
    found = assert_fenced(context_of(out))
    assert "alembic upgrade head" in found[0] and "anti-patterns" in found[0]
    score = float(found[0][3:7])
    assert recall.FLOOR <= score <= 1.0


def test_prompt_context_is_the_bare_block(project: Path) -> None:
    store(project)
    block = handler.prompt_context(payload(project, RELATED))
    assert context_of(handler.user_prompt_submit(payload(project, RELATED), EVENT)) == block
    assert_fenced(block)
    assert handler.prompt_context(payload(project, UNRELATED)) == ""


def test_unrelated_prompt_gets_nothing_at_all(project: Path) -> None:
    store(project)
    assert run(payload(project, UNRELATED)) == (0, "", "")


@pytest.mark.parametrize("prompt", ["", "  ", "ok", None, 42, ["migration"]])
def test_empty_or_odd_prompts_get_nothing(project: Path, prompt: object) -> None:
    store(project)
    data = payload(project, "x")
    data["prompt"] = prompt
    assert run(data) == (0, "", "")
    assert not project_state_dir(str(project)).exists()  # returned before any work


def test_no_memory_at_all_writes_nothing(project: Path) -> None:
    assert run(payload(project, RELATED)) == (0, "", "")
    assert not project_state_dir(str(project)).exists()
    assert not memory_of(project).exists()


def test_unknown_payload_keys_are_ignored(project: Path) -> None:
    store(project)
    data = payload(project, RELATED)
    data["some_future_field"] = {"nested": [1, 2]}
    data["source"] = "user"
    code, out, _ = run(data)
    assert code == 0 and assert_fenced(context_of(out))


def test_claude_project_dir_wins_over_cwd(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store(project)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    code, out, _ = run(payload(elsewhere, RELATED))
    assert code == 0 and assert_fenced(context_of(out))


def test_memory_dir_override(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store(project)
    other = tmp_path / "other-memory"
    other.mkdir()
    monkeypatch.setenv("POKAYOKAY_MEMORY_DIR", str(other))
    assert run(payload(project, RELATED)) == (0, "", "")


def test_second_prompt_uses_the_cache(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pokayokay.recall import entries as recall_entries

    store(project)
    first = run(payload(project, RELATED))

    def no_parsing(*args: object) -> None:
        raise AssertionError("a file was re-read although nothing changed")

    monkeypatch.setattr(recall_entries, "read_learning", no_parsing)
    monkeypatch.setattr(recall_entries, "DecisionSource", no_parsing)
    assert run(payload(project, RELATED)) == first


def test_a_new_learning_is_recalled_on_the_next_prompt(project: Path) -> None:
    store(project)
    prompt = "the playwright suite shows a blank page"
    assert run(payload(project, prompt)) == (0, "", "")
    store(
        project, [("Playwright tests need npm run build first, else a blank page.", "heuristics")]
    )
    code, out, _ = run(payload(project, prompt))
    assert code == 0 and "Playwright" in assert_fenced(context_of(out))[0]


def with_a_key_decision(project: Path) -> None:
    """The project's store, with one key decision promoted into MEMORY.md."""
    memory = store(project)
    (memory / "MEMORY.md").write_text(
        "# Memory\n\n## Key Decisions\n<!-- pokayokay: promoted from session handoffs -->\n"
        "- 2025-11-04: Chose Celery with Redis over RQ for background jobs.\n"
        "<!-- /pokayokay -->\n",
        "utf-8",
    )


def test_key_decisions_are_recalled(project: Path) -> None:
    with_a_key_decision(project)
    # the plumbing: a prompt in the decision's own words reaches it through the hook
    prompt = "should the export job run as a Celery background job with Redis, or with RQ?"
    code, out, _ = run(payload(project, prompt))
    assert code == 0
    found = assert_fenced(context_of(out))
    assert found[0].startswith("- [") and "decision: 2025-11-04: Chose Celery" in found[0]


# A known cost of decision 0196 (the plain gate held the one-line decision back), won back by
# decision 0200.
def test_a_short_question_about_a_key_decision_gets_it(project: Path) -> None:
    with_a_key_decision(project)
    code, out, _ = run(payload(project, "should the export job use RQ instead of celery?"))
    assert code == 0
    assert "decision: 2025-11-04: Chose Celery" in context_of(out)


def test_a_huge_prompt_is_capped(project: Path) -> None:
    store(project)
    prompt = "lorem ipsum dolor " * 60_000 + RELATED  # ~1 MB; the relevant words come too late
    code, out, err = run(payload(project, prompt))
    assert (code, out, err) == (0, "", "")
    code, out, _ = run(payload(project, RELATED + " " + "lorem ipsum dolor " * 60_000))
    # within the cap the filler is three unknown words: the relevant start still counts
    assert code == 0 and "Never run alembic upgrade head" in context_of(out)


def test_a_failure_fails_open(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from pokayokay.recall import sources as recall_sources

    store(project)

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(recall_sources, "block_for", broken)
    code, out, err = run(payload(project, RELATED))
    # The prompt hook isolates its parts: recall failing leaves the suggestion part running.
    assert code == 0 and out == ""
    err += capsys.readouterr().err
    assert err.startswith("pokayokay: UserPromptSubmit recall skipped: RuntimeError: disk on fire")
    assert err.count("\n") == 1
    log = (Path(os.environ["POKAYOKAY_HOME"]) / "logs" / "pokayokay.log").read_text("utf-8")
    assert "disk on fire" in log and "Traceback" in log


def test_corrupt_cache_is_not_an_error(project: Path) -> None:
    store(project)
    first = run(payload(project, RELATED))
    state = project_state_dir(str(project))
    for name in (INDEX_FILE, ENTRIES_FILE):
        (state / name).write_text("[not json", "utf-8")
    assert run(payload(project, RELATED)) == first


def test_a_damaged_posting_in_the_cache_is_recovered_from(project: Path) -> None:
    """The cache file is whole, with the right fingerprint, but the bucket of postings a term of
    the prompt lives in is garbage: it is only read when a prompt uses the term, so the failure
    shows late; the hook drops the cache and answers from the files."""
    store(project)
    first = run(payload(project, RELATED))
    path = project_state_dir(str(project)) / INDEX_FILE
    found = read_index_file(str(path))
    assert found is not None
    postings = found[1].postings
    term = next(t for t in recall.query_features(RELATED).counts if postings.get(t) is not None)
    at = bucket_of(term, len(postings.offsets) - 1)
    bucket = postings.blob()[postings.offsets[at] : postings.offsets[at + 1]]
    data = bytearray(path.read_bytes())
    start = data.rindex(bucket)
    data[start : start + len(bucket)] = b"\xff" * len(bucket)
    path.write_bytes(bytes(data))
    assert run(payload(project, RELATED)) == first
    assert path.read_bytes() != bytes(data)


def test_an_unwritable_state_folder_only_costs_the_cache(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store(project)
    blocker = Path(os.environ["POKAYOKAY_HOME"])
    blocker.parent.mkdir(parents=True, exist_ok=True)
    blocker.write_text("a file where the state folder should be", "utf-8")
    code, out, err = run(payload(project, RELATED))
    assert (code, err) == (0, "") and assert_fenced(context_of(out))


# ------------------------------------------------------------------------------------------------
# SessionStart: recall on the branch name


def test_branch_query(project: Path) -> None:
    assert handler.branch_query(project) == ""  # main names no topic
    git(project, "checkout", "-q", "-b", "fix/stripe_webhook-signature")
    assert handler.branch_query(project) == "fix stripe webhook signature"
    git(project, "commit", "-q", "--allow-empty", "-m", "x")
    git(project, "checkout", "-q", "--detach")
    assert handler.branch_query(project) == ""


def test_branch_query_in_a_linked_worktree(project: Path, tmp_path: Path) -> None:
    git(project, "commit", "-q", "--allow-empty", "-m", "x")
    tree = tmp_path / "tree"
    git(project, "worktree", "add", "-q", "-b", "feature/staging-migrations", str(tree))
    assert handler.branch_query(tree) == "feature staging migrations"


def test_session_start_recalls_on_the_branch(project: Path) -> None:
    store(project)
    data = {"session_id": "s", "cwd": str(project), "hook_event_name": "SessionStart"}
    assert handler.session_start(data, "SessionStart") == ""
    assert handler.session_start_context(data) == ""
    git(project, "checkout", "-q", "-b", "feature/staging-migration-lock")
    out = handler.session_start(data, "SessionStart")
    # there is no prompt yet: the block says what it matched on
    found = assert_fenced(context_of(out, "SessionStart"), recall_block.ADVISORY_BRANCH)
    assert "prompt;" not in recall_block.ADVISORY_BRANCH
    assert "alembic" in found[0]
    assert handler.session_start_context(data) == context_of(out, "SessionStart")


def test_session_start_outside_git(tmp_path: Path) -> None:
    data = {"session_id": "s", "cwd": str(tmp_path), "hook_event_name": "SessionStart"}
    assert handler.session_start(data, "SessionStart") == ""


# ------------------------------------------------------------------------------------------------
# hot path


def test_handler_imports_only_the_standard_library_at_module_level() -> None:
    tree = ast.parse(HANDLER_MODULE.read_text("utf-8"))
    top: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.Import):
            top += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            top.append(node.module)
    assert set(top) <= {"__future__", "json", "os"}, top


def _launcher() -> list[str]:
    return [str(CONSOLE_SCRIPT), "hook", EVENT]


def test_real_subprocess_related_and_unrelated(project: Path) -> None:
    store(project)
    for prompt, expect in ((RELATED, True), (UNRELATED, False), (RELATED, True)):
        proc = subprocess.run(
            _launcher(),
            input=json.dumps(payload(project, prompt)).encode("utf-8"),
            capture_output=True,
            timeout=60,
            check=False,
        )
        assert proc.returncode == 0 and proc.stderr == b""
        if expect:
            assert_fenced(context_of(proc.stdout.decode("utf-8")))
        else:
            assert proc.stdout == b""


def test_a_warm_prompt_before_any_failure_is_captured_loads_no_json(project: Path) -> None:
    """A fresh project (learnings, no failure store yet): the registered hook's warm prompt
    does not import json (no fix digest to compute). ``re`` is imported: its patterns are
    compiled by ``re`` itself since the saved regex programs (CPython-private) were dropped."""
    store(project)
    script = [sys.executable, str(REPO_ROOT / "scripts" / "pokayokay-event"), EVENT]
    data = json.dumps(payload(project, RELATED)).encode("utf-8")
    subprocess.run(script, input=data, capture_output=True, timeout=60, check=True)  # caches
    proc = subprocess.run(
        [script[0], "-X", "importtime", *script[1:]],
        input=data, capture_output=True, timeout=60, check=True,
    )
    assert_fenced(context_of(proc.stdout.decode("utf-8")))
    imported = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.decode().splitlines()}
    assert "json" not in imported


def test_warm_prompt_imports_nothing_heavy(project: Path) -> None:
    store(project)
    run(payload(project, RELATED))  # builds the cache
    probe = (
        "import json, sys\n"
        "from pokayokay.hooks.recall import user_prompt_submit\n"
        "out = user_prompt_submit(json.loads(sys.stdin.read()), 'UserPromptSubmit')\n"
        "heavy = sorted(m for m in ('typing', 'dataclasses', 'sqlite3', 'ruamel', "
        "'pokayokay.safety.sanitize', 'pokayokay.learnings.model', 'pokayokay.memory.document', "
        "'pokayokay.config.settings', 'subprocess') "
        "if m in sys.modules)\n"
        "print(json.dumps({'out': out, 'heavy': heavy}))\n"
    )
    result = probed(probe, project, RELATED)
    assert result["heavy"] == []
    assert_fenced(context_of(result["out"]))


def probed(probe: str, project: Path, prompt: str) -> dict[str, Any]:
    """What ``probe`` (Python run in a fresh interpreter, the prompt's payload on stdin) prints
    as JSON: the registered prompt hook's answer and the modules it left imported."""
    proc = subprocess.run(
        [sys.executable, "-c", probe],
        input=json.dumps(payload(project, prompt)),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    found: dict[str, Any] = json.loads(proc.stdout)
    return found


def test_a_prompt_recall_shows_nothing_for_imports_neither_the_block_nor_the_shown_notes(
    project: Path,
) -> None:
    """The block's and the shown notes' modules are imported only when a note is shown: a prompt
    whose words reach the index (the index module is imported, the notes scored) and find no
    note, in a session shown none yet, costs neither; a prompt that finds one imports both and
    shows its block."""
    store(project)
    missing = "how do I rotate the kubernetes ingress certificates before they expire"
    assert run(payload(project, missing)) == (0, "", "")  # builds the cache, shows nothing
    probe = (
        "import json, sys\n"
        "from pokayokay.hooks.recall import user_prompt_submit\n"
        "out = user_prompt_submit(json.loads(sys.stdin.read()), 'UserPromptSubmit')\n"
        "mods = ('pokayokay.relevance.note_index', 'pokayokay.recall.block', "
        "'pokayokay.recall.shown')\n"
        "print(json.dumps({'out': out, 'loaded': [m in sys.modules for m in mods]}))\n"
    )
    missed = probed(probe, project, missing)
    assert missed == {"out": "", "loaded": [True, False, False]}
    hit = probed(probe, project, RELATED)
    assert hit["loaded"] == [True, True, True]
    assert_fenced(context_of(hit["out"]))
