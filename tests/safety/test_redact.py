"""Redaction: every secret shape of the corpus is gone from every text function's output, and
look-alikes (git SHAs, UUIDs, lockfile hashes, base64 test data, ordinary words) survive."""

from __future__ import annotations

import re

import pytest
from helpers.secrets import NEGATIVES, SECRETS, Secret
from hypothesis import given
from hypothesis import strategies as st

from pokayokay.safety.redact import (
    MAX_INPUT,
    SHAPES,
    UNSCANNED,
    Shape,
    redact,
    redact_tree,
    redacted_kinds,
)
from pokayokay.safety.sanitize import clean, excerpt

MARK = re.compile(r"\[redacted:[a-z0-9-]+\]")


def test_the_corpus_covers_at_least_twenty_shapes() -> None:
    assert len({s.kind for s in SECRETS}) >= 30
    assert len(NEGATIVES) >= 40


@pytest.mark.parametrize("case", SECRETS, ids=[s.kind for s in SECRETS])
def test_every_shape_is_redacted_in_every_text_output(case: Secret) -> None:
    for text in filter(None, (case.text, case.command)):
        for out in (redact(text), clean(text), excerpt(text, 4000), excerpt(text)):
            assert case.secret not in out
        assert MARK.search(redact(text)), redact(text)


def test_the_whole_corpus_is_redacted() -> None:
    leaked = [s.kind for s in SECRETS if s.secret in redact(s.text)]
    total = len(SECRETS)
    print(f"secrets corpus: {total - len(leaked)}/{total} redacted")
    assert leaked == []


def test_at_most_five_percent_of_the_negatives_are_touched() -> None:
    touched = [text for text in NEGATIVES if redact(text) != text]
    share = len(touched) / len(NEGATIVES)
    print(f"negatives touched: {len(touched)}/{len(NEGATIVES)} ({share:.0%}): {touched}")
    assert share <= 0.05


@pytest.mark.parametrize(
    "text",
    [
        "commit 3f2a9c1b7d4e5f60718293a4b5c6d7e8f9012345",
        "123e4567-e89b-12d3-a456-426614174000",
        "sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUR7hqbQhbgXIB6Nbg==",
        'data = "SGVsbG8sIHdvcmxkISBUaGlzIGlzIHRlc3QgZGF0YQ=="',
    ],
)
def test_the_named_negatives_survive_exactly(text: str) -> None:
    assert redact(text) == text


def test_the_replacement_names_the_kind_and_keeps_the_context() -> None:
    secret = next(s for s in SECRETS if s.kind == "pgpassword prefix")
    assert redact(secret.text) == (
        "PGPASSWORD='[redacted:password]' psql -h db.internal -U shop -c 'select 1'"
    )
    url = next(s for s in SECRETS if s.kind == "database url")
    assert "postgresql://shop:[redacted:url-password]@db.internal:5432/shop" in redact(url.text)
    assert redacted_kinds(url.text) == ["url-password"]


def test_a_private_key_cut_off_before_its_end_line_is_redacted_to_the_end() -> None:
    pem = next(s for s in SECRETS if s.kind == "rsa private key").text
    cut = pem[: pem.index("-----END")]
    assert redact(cut) == "ValueError: could not parse key:\n[redacted:private-key]"


def test_redaction_is_idempotent_on_the_corpus() -> None:
    for case in SECRETS:
        once = redact(case.text)
        assert redact(once) == once
        assert clean(clean(case.text)) == clean(case.text)


def test_json_like_values_are_redacted_all_the_way_down() -> None:
    github = next(s for s in SECRETS if s.kind == "github classic")
    data = {"rows": [{"command": github.command, "n": 3}], github.secret: (github.text,)}
    out = redact_tree(data)
    assert github.secret not in repr(out)
    assert out["rows"][0]["n"] == 3


def test_the_table_is_extendable() -> None:
    internal = Shape("acme-token", r"\bacme_[a-z0-9]{24}\b", ("acme_",))
    text = "the deploy hook rejected acme_0123456789abcdefghijklmn for release 4.2"
    assert redact(text) == text
    assert redact(text, extra=[internal]) == (
        "the deploy hook rejected [redacted:acme-token] for release 4.2"
    )
    assert all(isinstance(shape, Shape) for shape in SHAPES)


def test_input_beyond_the_bound_is_never_passed_on_unexamined() -> None:
    github = next(s for s in SECRETS if s.kind == "github classic")
    text = "x" * MAX_INPUT + " " + github.secret
    out = redact(text)
    assert github.secret not in out
    assert out.endswith(UNSCANNED)


def test_pathological_input_stays_linear() -> None:
    # Inputs built to make a backtracking pattern explode: long runs of key-like and
    # token-like characters with a near-miss at the end. A quadratic pattern would not
    # finish this within the test run; a linear one does it in milliseconds.
    for unit in ("a=", "aaaa", "sk-", "eyJ", "a:b@", "-u a:", "PASSWORD", "==", "x_key"):
        redact(unit * 60_000 + "!")
    redact("-----BEGIN RSA PRIVATE KEY-----\n" * 20_000)


@given(st.text(max_size=300))
def test_any_text_redacts_idempotently(text: str) -> None:
    once = redact(text)
    assert redact(once) == once


@given(
    st.sampled_from(SECRETS),
    st.text(alphabet=st.characters(categories=["L", "N", "Zs", "P"]), max_size=80),
    st.text(alphabet=st.characters(categories=["L", "N", "Zs", "P"]), max_size=80),
)
def test_a_secret_stays_redacted_whatever_surrounds_it(
    case: Secret, before: str, after: str
) -> None:
    text = f"{before}\n{case.text}\n{after}"
    assert case.secret not in redact(text)
