"""How much of a prompt one way of asking for a candidate says (decision 0177): each phrase is
analysed once, by its room's analyser, when its note is indexed or its skill analysed, and the
gate reads the best single phrase's share of the prompt's content units."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pokayokay.learnings.model import Learning, identity
from pokayokay.recall.readers import learning_document
from pokayokay.relevance.analyser import tokenize
from pokayokay.relevance.asked import phrase_terms
from pokayokay.relevance.concepts import features, query_features
from pokayokay.relevance.gate import asked_share
from pokayokay.relevance.note_gating import evidence as recall_evidence
from pokayokay.relevance.note_index import Index, recall

TEXT = (
    "Release process: bump the version in firmware/Cargo.toml and upload the signed zip to the "
    "firmware-releases bucket"
)
PHRASES = (
    "where do field units get new OTA images from?",
    "the firmware upload to the bucket fails",
)


def test_phrase_terms_are_each_phrases_own_terms_a_line() -> None:
    terms = phrase_terms(PHRASES, features)
    lines = terms.split("\n")
    assert len(lines) == 2
    assert {"field", "unit", "ota", "imag"} <= set(lines[0].split())
    assert {"firmwar", "upload", "bucket"} <= set(lines[1].split())
    assert all("+" not in t for t in terms.split())  # no bigrams: words and concepts
    assert all(len(set(line.split())) == len(line.split()) for line in lines)  # once each
    assert phrase_terms((), features) == ""
    assert phrase_terms(("the", "a"), tokenize) == ""  # a phrase of stop words says nothing


def test_the_best_single_phrase_counts_not_words_scattered_over_them() -> None:
    asked = "ota imag field\nbucket upload"
    pieces = [("ota",), ("imag",), ("bucket",), ("upload",)]
    assert asked_share(pieces, asked) == 0.5  # either phrase holds two of the four
    assert asked_share([("ota",), ("imag",), ("field",)], asked) == 1.0
    # a piece is held when any term standing for it is (a concept and its word are one piece)
    assert asked_share([("~deploy", "ota"), ("zzz",)], asked) == 0.5
    assert asked_share(pieces, "") == 0.0
    assert asked_share([], asked) == 0.0


TERMS = st.lists(st.sampled_from("abcdefg"), min_size=1, max_size=4)


@given(st.lists(TERMS, min_size=1, max_size=5), st.lists(TERMS, max_size=4), TERMS)
def test_the_share_is_a_share_and_a_phrase_more_never_lowers_it(
    pieces: list[list[str]], lines: list[list[str]], extra: list[str]
) -> None:
    asked = "\n".join(" ".join(line) for line in lines)
    share = asked_share(pieces, asked)
    assert 0.0 <= share <= 1.0
    more = "\n".join([*(" ".join(line) for line in lines), " ".join(extra)])
    assert asked_share(pieces, more) >= share


def learning(asked: tuple[str, ...]) -> Learning:
    return Learning(
        name="release", description=TEXT[:100], text=TEXT, hash=identity(TEXT), asked=asked
    )


def test_recall_evidence_reads_the_phrase_a_prompt_is_said_like() -> None:
    doc, counts = learning_document(learning(PHRASES), "learning-release.md")
    index = Index.build([doc], [counts])
    prompt = "where do the field units pick up new OTA images from?"
    hits = recall(index, prompt, gate=False).hits
    runners = [score for _doc, score in index.ranked(prompt)]
    (found,) = recall_evidence(index, query_features(prompt), prompt, hits, runners, calls=0.5)
    assert found.asked >= 0.75  # nearly every piece of the prompt is in the first phrase
    plain, plain_counts = learning_document(learning(()), "learning-release.md")
    index = Index.build([plain], [plain_counts])
    hits = recall(index, "upload the firmware to the bucket", gate=False).hits
    runners = [score for _doc, score in index.ranked("upload the firmware to the bucket")]
    query = query_features("upload the firmware to the bucket")
    (found,) = recall_evidence(
        index, query, "upload the firmware to the bucket", hits, runners, calls=0.5
    )
    assert found.asked == 0.0  # a note without phrases
