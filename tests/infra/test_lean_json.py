"""JSON without importing json: the same values and text as the json module, and the same
refusals (a differential test against json on documents, mutated documents and noise)."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from helpers.paths import run_without_site
from hypothesis import given
from hypothesis import strategies as st

from pokayokay.infra import lean_json

# Every code point, lone surrogates and control characters included: payloads carry them.
_TEXT = st.text(st.characters(blacklist_categories=()))
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _TEXT,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.text(st.characters(blacklist_categories=()), max_size=8), children, max_size=4
        )
    ),
    max_leaves=20,
)


@given(_VALUES, st.sampled_from(["", " ", "\n\t ", "\r\n"]))
def test_loads_reads_what_json_reads(value: Any, space: str) -> None:
    text = space + json.dumps(value, indent=1 if space else None) + space
    assert lean_json.loads(text) == json.loads(text)


@given(_VALUES)
def test_dumps_writes_what_json_writes(value: Any) -> None:
    assert lean_json.dumps(value) == json.dumps(value)
    assert lean_json.dumps(value, ensure_ascii=False) == json.dumps(value, ensure_ascii=False)
    compact = {"separators": (",", ":"), "sort_keys": True}
    assert lean_json.dumps(value, **compact) == json.dumps(value, **compact)  # type: ignore[arg-type]


def test_special_floats_as_json_has_them() -> None:
    assert lean_json.dumps([math.inf, -math.inf]) == json.dumps([math.inf, -math.inf])
    assert math.isnan(lean_json.loads("NaN"))
    assert lean_json.dumps(math.nan) == "NaN"


@pytest.mark.parametrize(
    "text", ["", "   ", "{", '{"a": }', '{"a": 1} x', "[1,]", "nul", "\ufeff{}"]
)
def test_what_json_refuses_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        json.loads(text)
    with pytest.raises(ValueError):
        lean_json.loads(text)


def test_dumps_refuses_what_json_cannot_write() -> None:
    with pytest.raises(TypeError):
        lean_json.dumps({1: "a"})
    with pytest.raises(TypeError):
        lean_json.dumps({"a": object()})


def test_neither_json_nor_re_is_imported() -> None:
    out = run_without_site(
        "from pokayokay.infra import lean_json\n"
        'lean_json.dumps(lean_json.loads(\'{"a": [1, 2.5, "x", null, true]}\'))\n'
        "print(sorted(m for m in ('json', 're') if m in sys.modules))\n"
    )
    assert out.strip() == "[]"


@pytest.mark.parametrize(
    "text", ['{"session_id": "x", "cwd": ', "[1, 2", '{"a": "\\x"}', '{"a" 1}']
)
def test_a_malformed_document_is_a_value_error_when_json_was_never_imported(text: str) -> None:
    out = run_without_site(
        "from pokayokay.infra import lean_json\n"
        "try:\n"
        "    lean_json.loads(sys.argv[2])\n"
        "except ValueError as exc:\n"
        "    print('ValueError', exc)\n",
        text,
    )
    assert out.startswith("ValueError ")


def _outcome(read: Any, text: str) -> tuple[str, str]:
    """What a reader made of ``text``: ("value", its canonical JSON) or ("refused", "")."""
    try:
        value = read(text)
    except ValueError:
        return ("refused", "")
    return ("value", json.dumps(value, sort_keys=True))  # NaN-proof equality


# The characters JSON's grammar turns on, and a few it refuses.
_GRAMMAR = '[]{}",:0123456789.eE+- \t\n\r\\/ubfntrlsaIyNx\x00\x1f\x7f\u00e9\ud800'
_NOISE = st.text(st.sampled_from(list(_GRAMMAR)), max_size=24)


@given(_NOISE)
def test_noise_is_read_or_refused_as_json_reads_or_refuses_it(text: str) -> None:
    assert _outcome(lean_json.loads, text) == _outcome(json.loads, text)


@given(_VALUES, st.data())
def test_a_document_with_one_character_changed_is_read_or_refused_as_json_does(
    value: Any, data: st.DataObject
) -> None:
    text = json.dumps(value, ensure_ascii=data.draw(st.booleans()))
    at = data.draw(st.integers(0, len(text)))
    char = data.draw(st.sampled_from(list('"\\,:[]{}0-.eu \x01')))
    for changed in (text[:at] + char + text[at:], text[:at] + text[at + 1 :],
                    text[:at] + char + text[at + 1 :]):  # fmt: skip
        assert _outcome(lean_json.loads, changed) == _outcome(json.loads, changed)


@pytest.mark.parametrize(
    "text",
    ["-0", "0.5e-3", "1E+2", "-1.0e10", "12345678901234567890123", "[1e400, -1e400]",
     '"\\ud83d\\ude00"', '"\\ud83d"', '"\\ude00\\ud83d"', '"\\ud83d\\u0041"',
     '"\\/\\b\\f\\n\\r\\t\\"\\\\"', '{"a": 1, "a": 2, "b": 3}', '"\u00e9\u2028"',
     "[NaN, Infinity, -Infinity]", '{"": []}', "  [ 1 , { } , [ ] ]  "],
)  # fmt: skip
def test_edge_documents_read_as_json_reads_them(text: str) -> None:
    assert _outcome(lean_json.loads, text) == _outcome(json.loads, text)
    assert list(lean_json.loads(text) if text[0] == "{" else []) == list(
        json.loads(text) if text[0] == "{" else []
    )  # key order: a repeated key keeps its first place and its last value


@pytest.mark.parametrize(
    "text",
    ["01", "1.", ".5", "1e", "1e+", "+1", "--1", "1.5.2", "0x10", '"\\u12"', '"\\u12G4"',
     '"\\ud83d\\uZZZZ"', '"a\x00b"', '"tab\there"', '"\\a"', "[1 2]", '{"a" 1}', "tru",
     "nulls", "Infinit", "-", '"open', "{,}", "[,1]", '{"a":1,}'],
)  # fmt: skip
def test_edge_documents_refused_as_json_refuses_them(text: str) -> None:
    assert _outcome(lean_json.loads, text) == ("refused", "") == _outcome(json.loads, text)


def test_nesting_is_read_to_json_s_depth_and_refused_past_it_as_json_refuses_it() -> None:
    deep = "[" * 900 + "]" * 900
    assert lean_json.loads(deep) == json.loads(deep)
    for reader in (lean_json.loads, json.loads):
        with pytest.raises(RecursionError):
            reader("[" * 100_000)


def test_a_long_string_with_many_escapes_is_read_exactly() -> None:
    line = "x = 'caf\u00e9' -> <files> 2>&1 \"quoted\" \\ back\tslash \U0001f600\n"
    text = json.dumps({"tool_response": {"stdout": line * 20_000}})
    assert lean_json.loads(text) == json.loads(text)
    assert lean_json.dumps(json.loads(text)) == text
