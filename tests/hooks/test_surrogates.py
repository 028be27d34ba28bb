"""A payload holding half of a surrogate pair is handled, not quarantined.

Claude Code cuts a long tool output by JavaScript string length, which can split an emoji's
UTF-16 pair; ``JSON.stringify`` then writes the half left as ``\\ud83d``. Python keeps it as a
lone code point that SQLite's UTF-8 cannot encode, so the whole failure record was quarantined
and its failure never counted (found by running the registered hooks on hostile payloads).
"""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from pokayokay.hooks import ingest
from pokayokay.infra.lean_json import loads, may_hold_surrogates, well_formed
from tests.hooks.test_ingest import failure, folder, hook, stored

CUT_EMOJI = (
    "Exit code 1\n"
    "FAILED tests/test_cart.py::test_add - AssertionError: 'done \ud83d"  # the pair cut in two
)


def test_a_failure_cut_inside_an_emoji_is_stored_through_the_registered_hook(
    project: Path,
) -> None:
    payload = failure(project, "pytest tests/test_cart.py", CUT_EMOJI)
    assert "\\ud83d" in json.dumps(payload)  # as Claude Code's JSON.stringify writes it
    hook("PostToolUseFailure", payload, project)
    result = ingest.ingest(folder(project))
    assert (result.done, result.skipped) == (1, 0)
    [kept] = stored(project)
    assert kept.command == "pytest tests/test_cart.py"
    assert "test_add" in kept.excerpt and kept.excerpt.endswith("done \ufffd")


texts = st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF))  # surrogates included


@given(texts)
def test_well_formed_text_encodes_and_keeps_every_other_character(text: str) -> None:
    out = well_formed(text)
    out.encode("utf-8")  # no lone surrogate is left
    if not any("\ud800" <= ch <= "\udfff" for ch in text):
        assert out is text
    else:
        kept = [ch for ch in text if not "\ud800" <= ch <= "\udfff"]
        assert [ch for ch in out if ch != "\ufffd" and not ch > "\uffff"] == [
            ch for ch in kept if ch != "\ufffd" and not ch > "\uffff"
        ]


@given(st.recursive(texts, lambda inner: st.lists(inner) | st.dictionaries(texts, inner)))
def test_every_string_of_a_decoded_document_is_made_well_formed(value: object) -> None:
    text = json.dumps(value)
    made = well_formed(loads(text))
    assert may_hold_surrogates(text.encode()) or json.dumps(made) == text  # False is exact
    json.dumps(made, ensure_ascii=False).encode("utf-8")  # every string encodes


def test_an_escaped_pair_is_one_character_and_a_half_is_the_replacement() -> None:
    assert well_formed(loads('{"a\\ud800": ["\\ud83d\\ude00", "x\\udc00"]}')) == {
        "a\ufffd": ["\U0001f600", "x\ufffd"]
    }
    raw = "\ud83d\ude00".encode("utf-8", "surrogatepass")  # two halves, as surrogatepass decodes
    assert well_formed(raw.decode("utf-8", "surrogatepass")) == "\U0001f600"


def test_a_hook_reads_a_prompt_cut_inside_an_emoji_as_well_formed_text() -> None:
    import io

    from pokayokay.hooks.runtime import read_payload

    data = b'{"hook_event_name": "UserPromptSubmit", "prompt": "ship it \\ud83d"}'
    assert read_payload(io.BytesIO(data))["prompt"] == "ship it \ufffd"
