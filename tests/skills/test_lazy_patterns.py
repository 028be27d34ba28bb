"""The suggestion's text analysis with its rarely needed patterns compiled lazily: the cheap
gates in front of them (ASCII keyword check, phrase substrings) never change an answer."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from pokayokay.infra.lazyre import Lazy, built_once
from pokayokay.relevance import skill_terms as terms
from pokayokay.relevance.skill_match import profile

# The phrase patterns fold_phrases replaced (the oracle of its plain scan), in its order.
PHRASE_PATTERNS = (
    (r"\bpull[ -]requests?\b|\bmerge[ -]requests?\b", " pullrequest "),
    (r"\bend[ -]to[ -]end\b", " e2e "),
    (r"\bslide[ -]?decks?\b|\bpitch[ -]decks?\b", " pptx "),
    (r"\bword (?:doc|docs|document|documents|file|files)\b", " docx "),
    (r"\bgoogle sheets\b", " googlesheets "),
    (r"\bgoogle docs\b", " googledocs "),
    (r"\bsign(?:ing|ed|s)?[ -]?(?:in|on)\b|\blog(?:ging|ged|s)?[ -]in\b", " login "),
    (r"\bsign(?:ing|ed|s)?[ -]?up\b", " signup "),
    (r"\bgithub actions\b", " githubactions "),
    (r"\bcore web vitals\b", " webvitals "),
    (r"\bmodel context protocol\b", " mcp "),
    (r"\bn ?\+ ?1\b", " nplusone "),
    (r"\b(?:on|from) (?:my|your|our|a|the) (?:local )?machines?\b", " locally "),
    (r"\bcannot (?:read|set) propert(?:y|ies) of (?:undefined|null)\b", " typeerror "),
)


def folded_by_regex_alone(text: str) -> str:
    """fold_phrases as it was: every phrase pattern, ignoring case, in order."""
    for pattern, term in PHRASE_PATTERNS:
        text = re.sub(pattern, term, text, flags=re.I)
    return text


def test_each_phrase_folds_onto_the_term_its_pattern_did() -> None:
    assert [term for _spellings, term in terms._PHRASES] == [t for _p, t in PHRASE_PATTERNS]
    for (spellings, _term), (pattern, _t) in zip(terms._PHRASES, PHRASE_PATTERNS, strict=True):
        for spelling in spellings:  # each spelling is one its pattern matches whole
            assert re.fullmatch(pattern, spelling), spelling


def evoked_by_regex_alone(text: str) -> set[str]:
    """The evoked terms by one regex per phrase: the phrase, ending at a word end."""
    phrases, words = terms._evoke_table()
    lower = text.lower()
    out: set[str] = set()
    for word in re.findall(r"[a-z][a-z0-9-]*", lower):
        out.update(words.get(word, ()))
    for phrase, added in phrases:
        end = r"(?![^\W\d_])" if phrase[-1].isalnum() else ""
        if re.search(re.escape(phrase) + end, lower):
            out.update(added)
    if re.search(r"\b(?:GET|POST|PUT|PATCH|DELETE)\b", text):
        out.update(terms.tokenize("http endpoint"))
    return out


# Pieces of real prompts, the spellings the phrases fold and their near misses.
PIECES = [
    "open a pull request", "Pull-Requests", "merge requests", "end to end", "End-To-End tests",
    "endpoint", "slide deck", "pitch-decks", "word document", "Word files", "google sheets",
    "Google Docs", "sign in", "signing-on", "log in", "Logged-in", "logs in", "changelog",
    "sign up", "signed-up", "design", "github actions", "GitHub Actions", "core web vitals",
    "model context protocol", "N+1", "n + 1 queries", "since v2", "since version", "under load",
    "status code", "black friday", "POST /api/orders", "PATCH", "post", "ſign in", "K",
    "the checkout total test fails again in tests/test_checkout.py",
    "fix src/checkout/total.py", "—", "ünïcode", "login", "request", ",", " ", "\n", ".", "-",
    "pull", "merge", "slide", "pitch", "deck", "word", "google", "sign", "signs", "signed", "up",
    "on", "in", "on my", "local", "machine", "machines", "n", "+", "1", "cannot set property",
    "of null", "end", "to", "word files", "a", "the", "our", "İ", "ı", "ſ", "K", "SIGNİN",
    "pull requestſ", "pulL-ReqUests",
]  # fmt: skip
texts = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=12)), max_size=8).map(" ".join)


@settings(max_examples=600, deadline=None)
@given(texts)
def test_fold_phrases_answers_as_the_regex_alone(text: str) -> None:
    assert terms.fold_phrases(text) == folded_by_regex_alone(text)


@settings(max_examples=400, deadline=None)
@given(texts)
def test_evoked_terms_answer_as_the_regex_alone(text: str) -> None:
    assert terms.evoked_terms(text) == evoked_by_regex_alone(text)


def test_an_evoking_phrase_ends_at_a_word_end() -> None:
    changelog = set(terms.tokenize("changelog release"))
    assert changelog <= terms.evoked_terms("what changed since v2.3, write it up")
    assert not changelog & terms.evoked_terms("it broke since version control moved")


def test_every_phrase_spelling_is_folded() -> None:
    """Example spellings, in any case, each folded whole and nowhere inside a word."""
    spellings = [
        "pull request", "merge-requests", "end-to-end", "end to end", "slidedeck", "pitch decks",
        "word doc", "google sheets", "google docs", "signin", "signs on", "log-in",
        "logging in", "sign-up", "github actions", "core web vitals", "model context protocol",
        "n+1", "n + 1", "on my local machine", "Cannot read properties of undefined",
    ]  # fmt: skip
    for text in spellings:
        for written in (text, text.upper(), text.title()):
            assert terms.fold_phrases(written) != written, written
            assert terms.fold_phrases(f"({written})") != f"({written})", written
            assert terms.fold_phrases(f"x{written}x") == f"x{written}x", written


def test_profiles_are_built_by_the_lazy_patterns() -> None:
    description = (
        "Builds and edits Excel workbooks (.xlsx): formulas, pivot tables and charts. Use when "
        'the user says "make a spreadsheet" or mentions Pandas. Do not use for Google Sheets; '
        "use the gsheets skill instead."
    )
    made = profile("xlsx", description)
    # the lead sentence, the quoted trigger (folded: "spreadsheet" is xlsx), the extension and
    # the name; the negative clause's words; the proper names
    assert made.fields == {
        "build": 1.6, "edit": 1.6, "xlsx": 2.5, "formula": 1.0, "pivot": 1.0, "tabl": 1.0,
        "chart": 1.0, "user": 1.0, "say": 1.0, "mak": 1.6, "mention": 1.0, "panda": 1.0,
    }  # fmt: skip
    assert made.phrases == [["mak", "xlsx"]]
    assert made.negative == {"googlesheet", "gsheet"}
    assert made.anchors == {"xlsx", "panda"}


def test_lazy_compiles_once_on_first_use() -> None:
    lazy = Lazy(r"(?P<word>[a-z]+)-(\d+)", re.I)
    assert lazy._regex is None
    assert lazy.pattern == r"(?P<word>[a-z]+)-(\d+)"
    found = lazy.search("see ABC-12 and def-3")
    assert found is not None and found["word"] == "ABC"
    first = lazy.regex
    assert lazy.findall("abc-1 x-22") == [("abc", "1"), ("x", "22")]
    assert [m[0] for m in lazy.finditer("a-1 b-2")] == ["a-1", "b-2"]
    assert lazy.match("q-9") is not None and lazy.match(" q-9") is None
    assert lazy.split("a-1,b-2", 1) == ["", "a", "1", ",b-2"]
    assert lazy.sub("<\\g<word>>", "a-1 b-2") == "<a> <b>"
    assert lazy.regex is first


def test_built_once_makes_its_value_on_the_first_call_only() -> None:
    made: list[object] = []

    def make() -> object:
        made.append(object())
        return made[-1]

    get = built_once(make)
    assert made == []  # nothing built until asked
    first = get()
    assert get() is first and get() is first
    assert made == [first]


def test_the_capture_pattern_tables_are_built_once_and_shared() -> None:
    """The failures modules build their Lazy pattern tables through :func:`built_once`."""
    from pokayokay.failures import evidence_paths, mistakes, signature

    for table in (evidence_paths._patterns, mistakes._p, signature._patterns):
        patterns = table()
        assert table() is patterns
        assert any(isinstance(v, Lazy) for v in vars(patterns).values())


def test_fold_phrases_answers_as_the_regex_alone_on_the_real_texts() -> None:
    from tests.helpers.scan_oracle import real_texts

    for text in real_texts():
        assert terms.fold_phrases(text) == folded_by_regex_alone(text), text
