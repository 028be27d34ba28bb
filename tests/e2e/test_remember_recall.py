"""`/remember` through the real client stores a learning as a Claude Code memory; a later session
gets it back, fenced, beside a related prompt and not beside an unrelated one (issue 6).

What Claude Code 2.1.330 does with `claude -p "/remember <text>"` (seen in these tests):

* the UserPromptSubmit hooks run first, on the raw `/remember …` prompt;
* then the command file's ```` ```! ```` block runs (`pokayokay remember --stdin`, allowed by the
  command's own `allowed-tools`), and its output replaces the block: the model receives the
  `<command-name>/remember</command-name>` / `<command-args>…</command-args>` lines and, as a
  separate text block, `Stored: <name> (<category>)` followed by the rest of the command body;
* when the block fails (`pokayokay remember` exits non-zero on a too-short text, refusal on
  stderr), the invocation is aborted: no request reaches the model, and the client answers
  locally, `Shell command failed for pattern "…": [stderr]\\n<refusal>`, as a synthetic
  assistant message and the result text, still exiting 0.

The mock answers a request as the run's main conversation only when a user message contains the
scripted prompt; an expanded slash command no longer contains `/remember <text>` verbatim, so the
slash-command runs are scripted on the `<command-args>` text (:func:`run_slash_command`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from .conftest import ALLOWED_TOOLS, E2E, RunResult, explain, pokayokay_log, scripted_on
from .mock_api import RecordedRequest, Turn, message_text, text, tool_use

pytestmark = pytest.mark.e2e

LEARNING = (
    "Never run alembic upgrade head directly against the staging database; use the "
    "migrate-staging make target so the backup runs first"
)
RELATED_PROMPT = "I need to apply the new alembic migration to staging"
UNRELATED_PROMPT = "Rename the CSS class for the footer links"
TOO_SHORT_TEXT = "fix bug"

REMEMBER_TIP = "Tip: Use `/remember <learning>` to capture insights."
TOO_SHORT = "Learning too short (need at least 20 characters). Please provide more detail."
SESSION_START_CONTEXT = "SessionStart hook additional context: "
PROMPT_CONTEXT = "UserPromptSubmit hook additional context: "
OPEN_TAG = "<pokayokay-recall>"
CLOSE_TAG = "</pokayokay-recall>"
# What the command body says after the output of its ```! block.
COMMAND_BODY_START = "The text above is the output of `pokayokay remember`"
# The shell source of the command file, which the model must never see (the output replaces it).
COMMAND_SOURCE_MARKERS = (
    "```!", "POKAYOKAY_REMEMBER_END", "pokayokay remember --reply", "command -v"
)
# Claude Code's memory types (interfaces doc §2.4).
MEMORY_TYPES = {"user", "feedback", "project", "reference"}
NAME_MAX = 60

REMEMBER_REPLY = "E2E-REMEMBER-REPLY-41d7"
RELATED_REPLY = "E2E-RELATED-REPLY-41d7"
UNRELATED_REPLY = "E2E-UNRELATED-REPLY-41d7"
TOO_SHORT_REPLY = "E2E-TOO-SHORT-REPLY-41d7"


# --- helpers ---------------------------------------------------------------------------------


def restrict_user_permissions(e2e: E2E) -> None:
    """User settings that do not allow Bash: `/remember` must run on the `allowed-tools` grant of
    its own command file, as for a user who never allowed Bash (in `-p` mode a ```! block that
    needs approval aborts the command, so this is checked for real)."""
    allow = [tool for tool in ALLOWED_TOOLS if tool != "Bash"]
    (e2e.config_dir / "settings.json").write_text(
        json.dumps({"permissions": {"allow": allow}}, indent=2) + "\n", encoding="utf-8"
    )


def run_slash_command(
    e2e: E2E, monkeypatch: pytest.MonkeyPatch, command: str, args: str, turns: list[Turn]
) -> RunResult:
    """`claude -p "/<command> <args>"`, the mock answering ``turns`` to the expanded command."""
    with scripted_on(e2e, monkeypatch, f"<command-args>{args}</command-args>"):
        return e2e.run_claude(e2e.project, f"/{command} {args}", turns)


def run_phrase_command(
    e2e: E2E,
    monkeypatch: pytest.MonkeyPatch,
    command: str,
    cli: str,
    phrases: dict[str, list[str]],
    reply: str,
) -> RunResult:
    """`claude -p "/<command>"` (no arguments: the mock is scripted on the expanded command's
    name), the model answering with one `pokayokay <cli> --asked-from - --reply` call whose
    quoted heredoc holds ``phrases`` as the `## NAME` batch, then ``reply``."""
    batch = "\n".join(f"## {name}\n" + "\n".join(lines) for name, lines in phrases.items())
    end = f"POKAYOKAY_{cli.upper()}_END"
    call = f"pokayokay {cli} --asked-from - --reply <<'{end}'\n{batch}\n{end}"
    turns = [[tool_use("Bash", {"command": call})], [text(reply)]]
    with scripted_on(e2e, monkeypatch, f"<command-name>/{command}</command-name>"):
        return e2e.run_claude(e2e.project, f"/{command}", turns)


def assert_completed(run: RunResult, e2e: E2E, reply: str) -> None:
    assert run.exit_code == 0 and not run.timed_out, explain(run, e2e)
    assert run.result_event.get("subtype") == "success", explain(run, e2e)
    assert run.result_event.get("result") == reply, explain(run, e2e)


def texts(message: dict[str, Any]) -> list[str]:
    """The text of each content block of ``message`` (a string content is one block)."""
    content = message.get("content")
    if isinstance(content, str):
        return [content]
    return [
        str(b.get("text", ""))
        for b in content or []
        if isinstance(b, dict) and b.get("type") == "text"
    ]


def every_request_text(run: RunResult) -> str:
    return "\n".join(r.full_text for r in run.requests)


def learning_files(memory_dir: Path) -> list[Path]:
    return sorted(memory_dir.glob("learning-*.md"))


def read_topic_file(path: Path) -> tuple[dict[str, Any], str]:
    """(frontmatter, body) of a memory topic file, the frontmatter read by a YAML parser."""
    content = path.read_text(encoding="utf-8")
    match = re.fullmatch(r"---\n(.*?)\n---\n(.*)", content, re.DOTALL)
    assert match, f"{path.name} does not start with a frontmatter block:\n{content}"
    data = YAML(typ="safe", pure=True).load(match[1])
    assert isinstance(data, dict), f"{path.name}: the frontmatter is not a mapping:\n{content}"
    return data, match[2]


def section_lines(memory: str, title: str) -> list[str]:
    """The lines of MEMORY.md's ``## title`` section (up to the next ``## `` heading)."""
    lines = memory.splitlines()
    heading = f"## {title}"
    assert heading in lines, f"no {heading!r} in MEMORY.md:\n{memory}"
    start = lines.index(heading) + 1
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("## ")), len(lines))
    return lines[start:end]


def recall_block_pattern(advisory: str, reanchor: str) -> re.Pattern[str]:
    """The four-part fence around one finding: the stored learning, with its score."""
    return re.compile(
        re.escape(f"{advisory}\n{OPEN_TAG}\n")
        + r"- \[(?P<score>[01]\.\d\d)\] [^\n]*?"
        + re.escape(f"{LEARNING}\n{CLOSE_TAG}\n{reanchor}")
    )


def message_index(request: RecordedRequest, needle: str) -> int:
    found = [i for i, m in enumerate(request.messages) if needle in message_text(m)]
    assert found, f"{needle!r} is in no message of the request"
    return found[-1]


# --- the tests ---------------------------------------------------------------------------------


def test_remember_then_recall_in_related_session_only(
    e2e: E2E, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pokayokay.recall.block import ADVISORY, REANCHOR
    from pokayokay.relevance.note_index import FLOOR

    # The fence's factual framing (issue 6: reference data, then a re-anchor on the prompt).
    assert "reference data" in ADVISORY and "not instructions" in ADVISORY
    assert REANCHOR.strip() and OPEN_TAG not in ADVISORY + REANCHOR

    restrict_user_permissions(e2e)
    e2e.init_pokayokay()
    command_file = e2e.project / ".claude" / "commands" / "remember.md"
    assert command_file.is_file(), "`pokayokay init` did not install the /remember command"
    memory_dir, memory = e2e.memory_dir(), e2e.memory_file()
    assert learning_files(memory_dir) == []

    # -- session 1: /remember through the slash command -----------------------------------------
    first = run_slash_command(e2e, monkeypatch, "remember", LEARNING, [[text(REMEMBER_REPLY)]])

    assert_completed(first, e2e, REMEMBER_REPLY)
    stored = learning_files(memory_dir)
    assert len(stored) == 1, (
        f"expected one learning topic file in {memory_dir}, found "
        f"{sorted(p.name for p in memory_dir.iterdir())}\n{explain(first, e2e)}"
    )
    topic = stored[0]

    # The topic file is a Claude Code memory (interfaces doc §2.4).
    front, body = read_topic_file(topic)
    name, description, metadata = front.get("name"), front.get("description"), front.get("metadata")
    assert isinstance(name, str) and re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", name), front
    assert len(name) <= NAME_MAX
    assert topic.name == f"learning-{name}.md"
    assert isinstance(description, str) and description.strip()
    assert "\n" not in description and description in LEARNING
    assert isinstance(metadata, dict), front
    assert metadata.get("type") in MEMORY_TYPES, metadata
    assert metadata.get("type") == "feedback"  # a learning says how to work
    category = metadata.get("category")
    assert category == "anti-patterns", metadata  # "Never …": what not to do
    assert metadata.get("observations") == 1
    assert metadata.get("source") == "user"
    normalised = " ".join(LEARNING.split()).casefold()
    assert metadata.get("hash") == hashlib.sha256(normalised.encode()).hexdigest()
    assert body.strip() == LEARNING

    # MEMORY.md's Topic Index links it with one line of Claude Code's index format.
    memory_text = memory.read_text(encoding="utf-8")
    index_lines = [
        line for line in section_lines(memory_text, "Topic Index") if f"]({topic.name})" in line
    ]
    assert len(index_lines) == 1, memory_text
    index_line = index_lines[0]
    assert index_line.startswith(f"- [{name}]({topic.name}) — "), index_line
    # Claude Code asks for index lines "under about 150 characters"; with a 40-character name
    # the link alone takes ~100, and pokayokay keeps at least 80 characters of description, so
    # this line is longer (177): reported, not asserted. It is one line, and it is the start
    # of the description.
    assert index_line.removesuffix("…").split(" — ", 1)[1] in description, index_line

    # What the model received: the expanded command, the ```! block replaced by its output.
    request = first.first_request
    assert len(first.main_requests) == 1, explain(first, e2e)
    command_messages = [
        m
        for m in request.messages
        if m.get("role") == "user" and "<command-name>/remember</command-name>" in message_text(m)
    ]
    assert len(command_messages) == 1, request.full_text[-4000:]
    blocks = texts(command_messages[0])
    assert any(f"<command-args>{LEARNING}</command-args>" in b for b in blocks), blocks
    confirmation = f"Stored: {name} ({category})"
    output_blocks = [b for b in blocks if b.startswith(confirmation)]
    assert output_blocks, f"no block starts with {confirmation!r}: {blocks}"
    output = output_blocks[0]
    assert output.index(COMMAND_BODY_START) > len(confirmation), output
    # Only the confirmation: no "Note:" about MEMORY.md trouble, no refusal.
    assert output[: output.index(COMMAND_BODY_START)].strip() == confirmation, output
    seen_first = request.full_text
    for marker in COMMAND_SOURCE_MARKERS:
        assert marker not in seen_first, f"the command's shell source reached the model: {marker}"
    assert SESSION_START_CONTEXT + REMEMBER_TIP in seen_first

    # -- session 2: a related prompt gets the fenced learning beside it --------------------------
    second = e2e.run_claude(e2e.project, RELATED_PROMPT, [[text(RELATED_REPLY)]])

    assert_completed(second, e2e, RELATED_REPLY)
    request = second.first_request
    seen = request.full_text
    # A learning exists now: the `/remember` tip is no longer shown.
    assert REMEMBER_TIP not in seen
    # Claude Code loaded the index line pokayokay wrote (the comment markers are stripped).
    assert f"Contents of {memory}" in seen and index_line in seen
    assert seen.count(OPEN_TAG) == 1 and seen.count(CLOSE_TAG) == 1, seen[-4000:]
    match = recall_block_pattern(ADVISORY, REANCHOR).search(seen)
    assert match, f"no fenced learning in the first request:\n{seen[-4000:]}"
    assert FLOOR <= float(match["score"]) <= 1.0, match[0]
    injected = match[0]
    # It is the UserPromptSubmit hook's additional context, beside the prompt (not before it).
    assert seen[: match.start()].endswith(PROMPT_CONTEXT), seen[match.start() - 300 : match.end()]
    assert message_index(request, OPEN_TAG) >= message_index(request, RELATED_PROMPT)
    assert any(t == RELATED_PROMPT for m in request.messages for t in texts(m))
    # `pokayokay recall` shows exactly what was injected.
    shown = e2e.pokayokay("recall", RELATED_PROMPT).stdout.strip()
    assert shown == injected, f"`pokayokay recall` shows:\n{shown}\ninjected:\n{injected}"

    # -- session 3: an unrelated prompt gets nothing ---------------------------------------------
    third = e2e.run_claude(e2e.project, UNRELATED_PROMPT, [[text(UNRELATED_REPLY)]])

    assert_completed(third, e2e, UNRELATED_REPLY)
    seen_third = third.first_request.full_text
    assert REMEMBER_TIP not in seen_third
    assert any(t == UNRELATED_PROMPT for m in third.first_request.messages for t in texts(m))
    everything = every_request_text(third)
    for absent in (OPEN_TAG, CLOSE_TAG, ADVISORY, REANCHOR, PROMPT_CONTEXT):
        assert absent not in everything, f"{absent!r} reached the model for an unrelated prompt"
    verdict = json.loads(e2e.pokayokay("recall", UNRELATED_PROMPT, "--json").stdout)
    assert verdict.get("injected") is False and verdict.get("hits") == [], verdict

    # Nothing went wrong on the way: no learning added or changed by recall, no pokayokay error.
    assert learning_files(memory_dir) == [topic]
    assert read_topic_file(topic)[0]["metadata"]["observations"] == 1
    assert "Traceback" not in pokayokay_log(e2e), pokayokay_log(e2e)


def test_remember_too_short_stores_nothing_and_the_user_is_told(
    e2e: E2E, monkeypatch: pytest.MonkeyPatch
) -> None:
    restrict_user_permissions(e2e)
    e2e.init_pokayokay()
    memory_dir, memory = e2e.memory_dir(), e2e.memory_file()
    memory_before = memory.read_bytes()

    run = run_slash_command(e2e, monkeypatch, "remember", TOO_SHORT_TEXT, [[text(TOO_SHORT_REPLY)]])

    # The command ran to the end: no "Shell command failed" from the client ...
    assert_completed(run, e2e, TOO_SHORT_REPLY)
    assert "Shell command failed" not in run.stdout, explain(run, e2e)
    # ... and the refusal reached the model as the command's output, to be passed on as it is.
    request = run.first_request
    blocks = [t for m in request.messages if m.get("role") == "user" for t in texts(m)]
    answer = [b for b in blocks if b.startswith(TOO_SHORT)]
    assert answer, f"the refusal is not the command's output: {blocks}"
    assert answer[0].index(COMMAND_BODY_START) > len(TOO_SHORT), answer[0]
    for marker in COMMAND_SOURCE_MARKERS:
        assert marker not in request.full_text, marker

    # Nothing stored: no topic file, MEMORY.md untouched.
    assert learning_files(memory_dir) == []
    assert memory.read_bytes() == memory_before
    assert "Traceback" not in pokayokay_log(e2e), pokayokay_log(e2e)


NOT_INSTALLED = "Nothing was stored: pokayokay is not installed on this machine."
NOT_INSTALLED_REPLY = "E2E-NOT-INSTALLED-REPLY-41d7"


def test_remember_for_a_teammate_without_pokayokay(
    e2e: E2E, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The committed `/remember` in a clone on a machine without pokayokay: one clear sentence,
    no "command not found", no "Shell command failed"."""
    restrict_user_permissions(e2e)
    commands = e2e.project / ".claude" / "commands"
    commands.mkdir(parents=True)
    shipped = Path(__file__).resolve().parents[2] / "commands" / "remember.md"
    (commands / "remember.md").write_bytes(shipped.read_bytes())
    env = dict(e2e.env)
    env["PATH"] = os.pathsep.join(
        p for p in env["PATH"].split(os.pathsep) if p and not (Path(p) / "pokayokay").exists()
    )
    assert shutil.which("pokayokay", path=env["PATH"]) is None

    with scripted_on(e2e, monkeypatch, f"<command-args>{LEARNING}</command-args>"):
        run = e2e.run_claude(
            e2e.project, f"/remember {LEARNING}", [[text(NOT_INSTALLED_REPLY)]], env=env
        )

    assert_completed(run, e2e, NOT_INSTALLED_REPLY)
    assert "Shell command failed" not in run.stdout and "not found" not in run.stdout
    blocks = [t for m in run.first_request.messages if m.get("role") == "user" for t in texts(m)]
    assert any(b.startswith(NOT_INSTALLED) for b in blocks), blocks


# The learning of the test below, a paraphrase of it that shares no word with its text but one
# with how a teammate would ask for it, and those ways (decision 0175).
RELEASE_NOTE = (
    "Release process: bump the version in firmware/Cargo.toml, make dfu-package builds the "
    "signed zip with nrfutil, and upload it to the firmware-releases S3 bucket"
)
RELEASE_ASKED = (
    "where do field units get new OTA images from?",
    "push an OTA update to the field sensors",
    "how do I ship a new firmware version?",
)
OTA_PROMPT = "where do the field units pick up new OTA images from?"
ASKED_REPLY = "E2E-ASKED-REPLY-41d7"
OTA_REPLY = "E2E-OTA-REPLY-41d7"


def test_claude_adds_how_a_teammate_might_ask_and_a_paraphrase_finds_the_learning(
    e2e: E2E, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After `/remember`, the command asks the model to run `pokayokay remember --asked NAME`;
    the real client lets it on the command's own `allowed-tools` (the user allows no Bash), the
    phrases land in the learning's frontmatter, and a later prompt worded like them, not like
    the learning, gets the learning, and never the phrases."""
    from pokayokay.learnings.model import make_name

    restrict_user_permissions(e2e)
    e2e.init_pokayokay()
    memory_dir = e2e.memory_dir()
    name = make_name(RELEASE_NOTE)
    quoted = " ".join(f'"{p}"' for p in RELEASE_ASKED)
    command = f"pokayokay remember --asked {name} --reply {quoted}"
    turns = [[tool_use("Bash", {"command": command})], [text(ASKED_REPLY)]]

    first = run_slash_command(e2e, monkeypatch, "remember", RELEASE_NOTE, turns)

    assert_completed(first, e2e, ASKED_REPLY)
    body = "\n".join(t for m in first.first_request.messages for t in texts(m))
    assert "--asked NAME" in body, "the command body does not ask for the phrases"
    results = every_request_text(first)
    assert f"Noted {len(RELEASE_ASKED)} ways to ask for {name}." in results, explain(first, e2e)
    (topic,) = learning_files(memory_dir)
    front, stored_body = read_topic_file(topic)
    assert front["metadata"]["asked"] == list(RELEASE_ASKED)
    assert stored_body.strip() == RELEASE_NOTE

    second = e2e.run_claude(e2e.project, OTA_PROMPT, [[text(OTA_REPLY)]])

    assert_completed(second, e2e, OTA_REPLY)
    seen = second.first_request.full_text
    assert seen.count(OPEN_TAG) == 1, seen[-4000:]
    block = seen[seen.index(OPEN_TAG) : seen.index(CLOSE_TAG)]
    assert RELEASE_NOTE in block
    for phrase in RELEASE_ASKED:
        assert phrase not in seen, f"an asked phrase reached the model: {phrase}"
    assert "Traceback" not in pokayokay_log(e2e), pokayokay_log(e2e)


BACKFILL_REPLY = "E2E-BACKFILL-REPLY-5b1e"


def test_a_learning_stored_without_phrases_gets_them_from_learning_phrases(
    e2e: E2E, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A learning stored before `/remember` asked for phrases (here by the CLI) has none, and a
    paraphrase misses it. `/learning-phrases` lists it with its text; the model's one
    `pokayokay remember --asked-from -` call runs on the command's `allowed-tools` (the user
    allows no Bash); the next paraphrase gets the learning, and never the phrases."""
    from pokayokay.learnings.model import make_name

    restrict_user_permissions(e2e)
    e2e.init_pokayokay()
    e2e.pokayokay("remember", RELEASE_NOTE)
    before = e2e.pokayokay("recall", OTA_PROMPT).stdout
    assert RELEASE_NOTE[:40] not in before, "the paraphrase finds it without phrases: pick another"
    name = make_name(RELEASE_NOTE)
    phrases = {name: list(RELEASE_ASKED)}
    first = run_phrase_command(
        e2e, monkeypatch, "learning-phrases", "remember", phrases, BACKFILL_REPLY
    )

    assert_completed(first, e2e, BACKFILL_REPLY)
    seen = every_request_text(first)
    assert "1 learning(s) have no phrases yet" in seen, explain(first, e2e)
    assert f"- {name}: {RELEASE_NOTE}" in seen
    assert f"Noted {len(RELEASE_ASKED)} ways to ask for {name}." in seen, explain(first, e2e)
    (topic,) = learning_files(e2e.memory_dir())
    front, _body = read_topic_file(topic)
    assert front["metadata"]["asked"] == list(RELEASE_ASKED)

    second = e2e.run_claude(e2e.project, OTA_PROMPT, [[text(OTA_REPLY)]])

    assert_completed(second, e2e, OTA_REPLY)
    request = second.first_request.full_text
    assert request.count(OPEN_TAG) == 1 and RELEASE_NOTE in request, request[-4000:]
    for phrase in RELEASE_ASKED:
        assert phrase not in request, f"an asked phrase reached the model: {phrase}"
    assert "Traceback" not in pokayokay_log(e2e), pokayokay_log(e2e)
