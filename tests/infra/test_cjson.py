"""JSON without importing json: the same values and text as the json module."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from helpers.paths import run_without_site
from hypothesis import given
from hypothesis import strategies as st

from pokayokay.infra import cjson

_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)


@given(_VALUES, st.sampled_from(["", " ", "\n\t ", "\r\n"]))
def test_loads_reads_what_json_reads(value: Any, space: str) -> None:
    text = space + json.dumps(value, indent=1 if space else None) + space
    assert cjson.loads(text) == json.loads(text)


@given(_VALUES)
def test_dumps_writes_what_json_writes(value: Any) -> None:
    assert cjson.dumps(value) == json.dumps(value)
    assert cjson.dumps(value, ensure_ascii=False) == json.dumps(value, ensure_ascii=False)
    compact = {"separators": (",", ":"), "sort_keys": True}
    assert cjson.dumps(value, **compact) == json.dumps(value, **compact)  # type: ignore[arg-type]


def test_special_floats_as_json_has_them() -> None:
    assert cjson.dumps([math.inf, -math.inf]) == json.dumps([math.inf, -math.inf])
    assert math.isnan(cjson.loads("NaN"))
    assert cjson.dumps(math.nan) == "NaN"


@pytest.mark.parametrize(
    "text", ["", "   ", "{", '{"a": }', '{"a": 1} x', "[1,]", "nul", "\ufeff{}"]
)
def test_what_json_refuses_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        json.loads(text)
    with pytest.raises(ValueError):
        cjson.loads(text)


def test_dumps_refuses_what_json_cannot_write() -> None:
    with pytest.raises(TypeError):
        cjson.dumps({1: "a"})
    with pytest.raises(TypeError):
        cjson.dumps({"a": object()})


def test_neither_json_nor_re_is_imported() -> None:
    out = run_without_site(
        "from pokayokay.infra import cjson\n"
        "cjson.dumps(cjson.loads('{\"a\": [1, 2.5, \"x\", null, true]}'))\n"
        "print(sorted(m for m in ('json', 're') if m in sys.modules))\n"
    )
    assert out.strip() == "[]"


@pytest.mark.parametrize(
    "text", ['{"session_id": "x", "cwd": ', "[1, 2", '{"a": "\\x"}', '{"a" 1}']
)
def test_a_malformed_document_is_a_value_error_when_json_was_never_imported(text: str) -> None:
    out = run_without_site(
        "from pokayokay.infra import cjson\n"
        "try:\n"
        "    cjson.loads(sys.argv[2])\n"
        "except ValueError as exc:\n"
        "    print('ValueError', exc)\n",
        text,
    )
    assert out.startswith("ValueError ")
