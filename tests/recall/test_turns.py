"""Whose words a prompt holds (``pokayokay.recall.turns``): a turn Claude Code wrote itself, a
slash command, pasted tool output, or a person's prompt. Real payloads where the client sends
them; properties for the shapes."""

from __future__ import annotations

import json

import pytest
from helpers.paths import FIXTURE_SAMPLES_DIR, SAMPLES_DIR
from hypothesis import given
from hypothesis import strategies as st

from pokayokay.recall.turns import (
    command,
    machine_wrapper,
    pasted_output,
    recall_text,
    suggest_text,
)


def _sample_prompt(name: str) -> str:
    for folder in (FIXTURE_SAMPLES_DIR, SAMPLES_DIR):
        path = folder / name
        if path.exists():
            prompt: str = json.loads(path.read_text("utf-8"))["prompt"]
            return prompt
    pytest.fail(f"no sample {name}")


TASK_NOTIFICATION = _sample_prompt("UserPromptSubmit.task-notification.json")
PERSON = _sample_prompt("UserPromptSubmit.json")


def test_the_real_task_notification_is_a_machine_turn() -> None:
    assert TASK_NOTIFICATION.startswith("<task-notification>")
    assert machine_wrapper(TASK_NOTIFICATION)
    assert recall_text(TASK_NOTIFICATION) == "" and suggest_text(TASK_NOTIFICATION) == ""


def test_the_real_typed_prompt_is_the_persons() -> None:
    assert not machine_wrapper(PERSON) and not pasted_output(PERSON)
    assert recall_text(PERSON) == PERSON == suggest_text(PERSON)


@pytest.mark.parametrize(
    "prompt",
    [
        "<local-command-stdout>Compacted. ctrl+o to see full summary</local-command-stdout>",
        "<system-reminder>\nThe user opened the file src/api/users.py\n</system-reminder>",
        "<bash-input>pytest -q</bash-input>\n<bash-stdout>3 passed</bash-stdout>"
        "<bash-stderr></bash-stderr>",
    ],
)
def test_other_wrappers_are_machine_turns(prompt: str) -> None:
    assert recall_text(prompt) == "" and suggest_text(prompt) == ""


def test_a_person_quoting_a_wrapper_keeps_their_words() -> None:
    prompt = "why did <task-notification> show up twice after the refund subagent finished?"
    assert not machine_wrapper(prompt)
    assert recall_text(prompt) == prompt == suggest_text(prompt)


def test_a_wrapped_slash_command_recalls_on_its_arguments_and_suggests_nothing() -> None:
    wrapped = (
        "<command-message>deploy-check is running…</command-message>\n"
        "<command-name>/deploy-check</command-name>\n"
        "<command-args>the staging rollout of the billing service</command-args>"
    )
    assert command(wrapped) == ("deploy-check", "the staging rollout of the billing service")
    assert recall_text(wrapped) == "the staging rollout of the billing service"
    assert suggest_text(wrapped) == ""


def test_remember_and_argumentless_commands_get_nothing() -> None:
    for prompt in (
        "/remember always run make migrate, never alembic directly",
        "<command-name>/remember</command-name><command-args>use uv</command-args>",
        "<command-name>/pokayokay:remember</command-name><command-args>use uv</command-args>",
        "/compact",
        "<command-name>/clear</command-name><command-message>clear</command-message>",
    ):
        assert recall_text(prompt) == "" and suggest_text(prompt) == "", prompt


def test_a_typed_command_recalls_on_its_arguments() -> None:
    typed = command("/review-pr  the cart total rounding")
    assert typed == ("review-pr", "the cart total rounding")
    assert recall_text("/review-pr the cart total rounding") == "the cart total rounding"
    assert suggest_text("/review-pr the cart total rounding") == ""


TRACEBACK = """Traceback (most recent call last):
  File "src/api/users.py", line 41, in deactivate
    user = repo.get(user_id)
  File "src/db/repo.py", line 12, in get
    raise KeyError(key)
KeyError: 'u-17'"""

DIAGNOSTICS = """src/state/cart.ts:14:7 - error TS2322: Type 'string' is not assignable.
src/state/cart.ts:22:3 - error TS2304: Cannot find name 'total'.
Found 2 errors in the same file, starting at: src/state/cart.ts:14"""

LOG = """2026-11-20 10:31:07,112 INFO worker started pid=4411
2026-11-20 10:31:09,540 WARNING retrying job 17 (attempt 2)
2026-11-20 10:31:12,003 ERROR job 17 failed: connection reset"""

PYTEST = """FAILED tests/api/test_users.py::test_deactivate - assert 404 == 200
E       assert 404 == 200
E        +  where 404 = <Response [404]>.status_code
==================== 1 failed, 12 passed in 0.91s ===================="""


@pytest.mark.parametrize("pasted", [TRACEBACK, DIAGNOSTICS, LOG, PYTEST])
def test_pasted_tool_output_gets_nothing(pasted: str) -> None:
    assert pasted_output(pasted)
    assert recall_text(pasted) == "" and suggest_text(pasted) == ""
    # ... a request above it, however short, is the person's and is read (decision 0134)
    asked = "why?\n" + pasted
    assert not pasted_output(asked)
    assert recall_text(asked) == asked == suggest_text(asked)


def test_a_question_quoting_one_error_line_is_a_question() -> None:
    prompt = (
        "the deactivate endpoint returns KeyError: 'u-17' for users created before the\n"
        "migration; can you make the repository fall back to the legacy id column?\n"
        "keep the old behaviour for admins"
    )
    assert not pasted_output(prompt)
    assert recall_text(prompt) == prompt


_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=9)
_TAG = st.lists(_WORD, min_size=2, max_size=3).map("-".join)
_BODY = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="<>"), max_size=80
)


@given(st.lists(st.tuples(_TAG, _BODY), min_size=1, max_size=4), st.sampled_from(["", "\n", " "]))
def test_any_prompt_made_only_of_wrapper_elements_is_a_machine_turn(
    elements: list[tuple[str, str]], sep: str
) -> None:
    prompt = sep.join(f"<{tag}>{body}</{tag}>" for tag, body in elements)
    assert machine_wrapper(prompt)
    assert suggest_text(prompt) == ""
    if not any(tag == "command-name" for tag, _ in elements):
        assert recall_text(prompt) == ""


@given(st.lists(_WORD, min_size=1, max_size=12), _TAG, _BODY)
def test_words_outside_the_elements_keep_a_prompt_the_persons(
    words: list[str], tag: str, body: str
) -> None:
    prompt = f"<{tag}>{body}</{tag}> " + " ".join(words)
    assert not machine_wrapper(prompt)


@given(st.lists(st.lists(_WORD, min_size=3, max_size=12).map(" ".join), min_size=1, max_size=8))
def test_prose_lines_are_never_pasted_output(lines: list[str]) -> None:
    prompt = "\n".join(lines)
    assert not pasted_output(prompt)
    assert recall_text(prompt) == prompt


def test_a_markdown_prompt_is_a_persons() -> None:
    prompt = (
        "# Plan\n> the customer wrote: refunds take a week\n# Steps\n"
        "> and the email never arrives\n- make refunds instant\n- send the email"
    )
    assert not pasted_output(prompt)
    assert recall_text(prompt) == prompt == suggest_text(prompt)


def test_a_list_of_todos_is_a_persons_and_python_logging_is_output() -> None:
    todos = "TODO: make refunds instant\nTODO: send the email\nNOTE: keep the old endpoint"
    assert not pasted_output(todos)
    logged = "INFO:billing.refunds:refund 17 queued\nWARNING:billing.mail:retrying\nERROR:x:boom"
    assert pasted_output(logged)
