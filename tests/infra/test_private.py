"""``<private>…</private>``: the pure function, and every store point it guards, checked by
grepping every file pokayokay wrote (state folder, memory folder, project)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers.hooks import run_hook
from helpers.hooks import sample_payload as sample
from hypothesis import given, settings
from hypothesis import strategies as st

from pokayokay.infra.private import (
    PLACEHOLDER,
    has_private,
    may_hold_private,
    strip_private,
    strip_private_value,
)

SECRET = "ZEBRA-QUOKKA-7731"  # what must never appear in a file pokayokay wrote


# --- the function -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain text", "plain text"),
        ("a <private>b</private> c", f"a {PLACEHOLDER} c"),
        ("a <PRIVATE>b</Private> c <private>d</private>", f"a {PLACEHOLDER} c {PLACEHOLDER}"),
        ("token: <private>\nline 1\nline 2\n</private>\ndone", f"token: {PLACEHOLDER}\ndone"),
        ("< private >x</ private >y", f"{PLACEHOLDER}y"),
        ("cut off <private>the rest of the paste", f"cut off {PLACEHOLDER}"),
        ("stray </private> tag", "stray  tag"),
        ("the word private is fine, <privateer> too", "the word private is fine, <privateer> too"),
        ("<private><private>x</private>y</private>", f"{PLACEHOLDER}y"),
    ],
)
def test_strip_private(text: str, expected: str) -> None:
    assert strip_private(text) == expected


_piece = st.text(alphabet=st.characters(blacklist_characters="<>"), max_size=30)


@given(_piece, _piece, _piece)
def test_what_is_inside_never_survives(before: str, inside: str, after: str) -> None:
    marked = f"{SECRET}{inside}{SECRET}"
    out = strip_private(f"{before}<private>{marked}</private>{after}")
    assert out == f"{before}{PLACEHOLDER}{after}"
    assert not has_private(out)


@given(st.text(max_size=200))
def test_idempotent_and_leaves_untagged_text_alone(text: str) -> None:
    once = strip_private(text)
    assert strip_private(once) == once
    if "private" not in text.lower():
        assert once == text


# Text built around the tag in any case, with the characters whose lower case is not theirs
# alone (Kelvin sign, dotted capital I, final sigma) and bytes that are not UTF-8.
_TAGGY = st.lists(
    st.sampled_from(["<", ">", "/", "private", "PRIVATE", "PrİVATE", "prıvate", "\u212a", "ς", "x"])
    | st.text(max_size=5),
    max_size=12,
).map("".join)


@given(_TAGGY, st.binary(max_size=8))
def test_bytes_without_the_word_hold_no_private_text(text: str, junk: bytes) -> None:
    """What readers rely on to skip the text's scan (``recall.readers``): no "private" in the
    bytes' ASCII lower case means ``strip_private`` leaves their decoded text alone."""
    for data in (text.encode("utf-8"), text.encode("utf-8") + junk, junk + text.encode("utf-8")):
        if not may_hold_private(data):
            decoded = data.decode("utf-8", "replace")
            assert strip_private(decoded) == decoded


# The dotted capital I is the one character whose lower case is two characters: a tag found in
# the lower-cased text must still be cut at its place in the text itself.
_DOTTED = st.text(alphabet=st.sampled_from("İıiIKk\u212aς x\n"), max_size=30)


def _dotted_case(before: str, inside: str, after: str) -> None:
    out = strip_private(f"{before}<private>{SECRET}{inside}</private>{after}")
    assert out == f"{before}{PLACEHOLDER}{after}"
    assert SECRET not in out


@given(_DOTTED, _DOTTED, _DOTTED)
def test_a_dotted_capital_i_moves_no_cut(before: str, inside: str, after: str) -> None:
    _dotted_case(before, inside, after)


@pytest.mark.slow
@settings(max_examples=2500, deadline=None)
@given(_DOTTED, _DOTTED, _DOTTED)
def test_a_dotted_capital_i_moves_no_cut_many(before: str, inside: str, after: str) -> None:
    _dotted_case(before, inside, after)


def test_twelve_dotted_capitals_before_the_tag_keep_the_secret_out() -> None:
    # str.lower() made the text 12 characters longer: the cut fell inside the span, and the
    # first characters of the secret were kept before the placeholder.
    text = "İ" * 12 + f"<private>{SECRET}</private> tail </private>"
    assert strip_private(text) == "İ" * 12 + f"{PLACEHOLDER} tail "


def test_json_values_keys_included() -> None:
    value = {"a": ["x <private>1</private>", {"<private>k</private>": 2}], "n": None}
    assert strip_private_value(value) == {"a": [f"x {PLACEHOLDER}", {PLACEHOLDER: 2}], "n": None}


# --- every store point ----------------------------------------------------------------------------


def files_holding(root: Path, needle: str) -> list[str]:
    hits = []
    for folder, _, names in os.walk(root):
        for name in names:
            path = Path(folder) / name
            try:
                data = path.read_bytes()
            except OSError:
                continue
            if needle.encode() in data or needle.encode("utf-16-le") in data:
                hits.append(str(path))
    return hits


def test_no_file_pokayokay_writes_holds_private_text(
    project: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from pokayokay.cli.main import main as cli

    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    monkeypatch.chdir(project)
    assert cli(["init", "--project", str(project)]) == 0
    private_cmd = f"psql -h db <private>--password {SECRET}</private> -c 'select 1'"

    # Hook capture: a failure whose command and output hold private text, a success of it.
    failure = sample(
        "PostToolUseFailure.Bash.json",
        project,
        tool_input={"command": private_cmd, "description": "query"},
        error=f"Exit code 2\npsql: error: <private>auth {SECRET} rejected</private> for db",
    )
    assert run_hook("PostToolUseFailure", failure)[0] == 0
    batch = sample("PostToolBatch.json", project)
    batch["tool_calls"] = [
        {
            "tool_name": "Edit",
            "tool_input": {
                "file_path": str(project / "a.py"),
                "old_string": "x",
                "new_string": "y",
            },
            "tool_use_id": "toolu_private_batch",
            "tool_response": f"<tool_use_error>String to replace not found <private>{SECRET}"
            "</private></tool_use_error>",
        }
    ]
    assert run_hook("PostToolBatch", batch)[0] == 0
    success = sample(
        "PostToolUse.Bash.json", project, tool_input={"command": private_cmd, "description": "q"}
    )
    assert run_hook("PostToolUse", success)[0] == 0

    # remember: the learning, its description and its name.
    assert cli(
        [
            "remember",
            "--project",
            str(project),
            f"Run the billing migrations with make migrate <private>the key is {SECRET}</private>"
            " before the integration tests",
        ]
    ) == 0

    # The recall cache: a learning file written by hand with private text in it.
    from pokayokay.infra.locate import memory_location_for

    memory_dir = memory_location_for(project).memory_dir
    learnings = sorted(memory_dir.glob("learning-*.md"))
    assert learnings, sorted(p.name for p in memory_dir.iterdir())
    hand = memory_dir / "learning-hand-written-alembic.md"
    hand.write_text(
        learnings[0]
        .read_text(encoding="utf-8")
        .replace("billing migrations", f"alembic upgrade <private>{SECRET} staging dsn</private>"),
        encoding="utf-8",
    )
    prompt = sample(
        "UserPromptSubmit.json", project, prompt="how do I run the billing migrations again?"
    )
    assert run_hook("UserPromptSubmit", prompt)[0] == 0

    # Chain learnings from a transcript whose first prompt holds private text.
    transcript = tmp_path / "transcript.jsonl"
    transcript.write_text(
        json.dumps(
            {
                "type": "user",
                "message": {"role": "user", "content": f"fix db <private>{SECRET}</private>"},
            }
        )
        + "\n",
        encoding="utf-8",
    )
    end = sample("SessionEnd.other.json", project, transcript_path=str(transcript))
    assert run_hook("SessionEnd", end)[0] == 0

    written = [
        p
        for p in files_holding(isolated_home, SECRET) + files_holding(project, SECRET)
        if Path(p) != hand
    ]
    assert written == []
    # ...and the stores did receive the rest of that text.
    state = isolated_home / "pokayokay-state"
    assert files_holding(state, "psql -h db")
    assert files_holding(memory_dir, "make migrate")


def test_a_failure_hook_keeps_private_text_after_dotted_capitals_off_the_disk(
    project: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The registered PostToolUseFailure hook (the spool, then the ingest) on a payload whose
    private span follows thirty dotted capital I's: no file holds the secret."""
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    dotted = "İ" * 30
    failure = sample(
        "PostToolUseFailure.Bash.json",
        project,
        tool_input={"command": f"psql {dotted} <private>{SECRET}</private>", "description": "q"},
        error=f"Exit code 2\npsql: error: {dotted}<private>auth {SECRET}</private> rejected",
    )
    assert run_hook("PostToolUseFailure", failure)[0] == 0
    assert run_hook("Stop", sample("Stop.json", project))[0] == 0
    assert files_holding(isolated_home, SECRET) + files_holding(project, SECRET) == []
    assert files_holding(isolated_home / "pokayokay-state", "psql")
