"""The strings every match of a pattern contains (``pokayokay.infra.literals``) and the lazy
patterns that skip a text without them (``Lazy(..., literals=True)``): a text holding none of
the strings is never matched by :mod:`re` (property-tested on generated patterns and texts),
and the failure classifier's rows, which use them, answer what their compiled patterns answer
on every case of the failure corpus."""

from __future__ import annotations

import random
import re
import warnings

import pytest
from helpers.paths import DATA_DIR
from hypothesis import example, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from pokayokay.failures.classify import BUILTIN_RULES, classify
from pokayokay.infra.lazyre import IGNORECASE, Lazy
from pokayokay.infra.literals import required_literals

_ATOMS = [
    "a", "b", "c", ":", "-", " ", "ab", "abc", r"\.", r"\(", r"\[", r"\n", r"\d", r"\w", r"\s",
    r"\S", r"\b", r"\A", "^", "$", ".", "[ab]", "[^a]", "[]a]", r"[\]b]", "(?=a)", "(?!b)",
    "(?<=a)", "(?<!c)", "(?m)", "(?s)", r"\1", r"\0",
]  # fmt: skip
_QUANTIFIERS = ["", "", "", "?", "*", "+", "{0,2}", "{1,3}", "{2}", "??", "+?", "{2,}"]


def _patterns() -> st.SearchStrategy[str]:
    def item(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        group = st.tuples(st.sampled_from(["(?:", "(", "(?P<n>", "(?m:"]), inner).map(
            lambda t: f"{t[0]}{t[1]})"
        )
        return st.tuples(st.sampled_from(_ATOMS) | group, st.sampled_from(_QUANTIFIERS)).map(
            lambda t: t[0] + t[1] if t[0] not in ("(?m)", "(?s)") else t[0]
        )

    def alternation(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        sequence = st.lists(item(inner), min_size=1, max_size=5).map("".join)
        return st.lists(sequence, min_size=1, max_size=3).map("|".join)

    return st.recursive(st.sampled_from(["a", "bc", r"\d"]), alternation, max_leaves=12)


def _compiles(pattern: str) -> bool:
    """Whether ``pattern`` is a pattern on every supported Python: one that compiles only with a
    warning (global flags not at the start, ``a(?m)``: deprecated in 3.10, an error since 3.11)
    is not."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            re.compile(pattern)
        except (re.error, DeprecationWarning, FutureWarning):
            return False
    return True


_TEXTS = st.text(alphabet="abc:- .([]\n1", max_size=24)


@settings(max_examples=300, deadline=None)
@given(_patterns(), st.lists(_TEXTS, min_size=1, max_size=8))
@example("ab+c", ["abbc", "ac", "abc"])
@example(r"\bfoo(?:bar|baz)?x", ["foox", "foobarx"])
@example(r"a:\d+ (?:bc|b)c", ["a:1 bc", "a:12 bcc"])
@example(r"(a|b):\1c", ["a:ac", "b:bc", "a:bc"])
def test_a_text_without_the_strings_is_never_matched(pattern: str, texts: list[str]) -> None:
    _never_matched(pattern, texts)


def _seeded_pattern(rng: random.Random, depth: int = 0) -> str:
    """A pattern of ``_patterns()``'s grammar (atoms, quantifiers, groups, alternations, nested
    twice at most), from ``rng``."""
    if depth >= 2 or rng.random() < 0.3:
        return rng.choice(["a", "bc", r"\d"])
    sequences = []
    for _ in range(rng.randint(1, 3)):
        items = []
        for _ in range(rng.randint(1, 5)):
            if rng.random() < 0.25:
                opener = rng.choice(["(?:", "(", "(?P<n>", "(?m:"])
                atom = f"{opener}{_seeded_pattern(rng, depth + 1)})"
            else:
                atom = rng.choice(_ATOMS)
            items.append(atom if atom in ("(?m)", "(?s)") else atom + rng.choice(_QUANTIFIERS))
        sequences.append("".join(items))
    return "|".join(sequences)


def _seeded_case(seed: int) -> tuple[str, list[str]]:
    """A pattern and one to eight texts of ``_TEXTS``'s alphabet (short ones often), built from
    one drawn seed: the slow run's thousands of examples cost the engine one draw each."""
    rng = random.Random(seed)
    texts = [
        "".join(rng.choices("abc:- .([]\n1", k=rng.choice([0, 1, 2, 3, 4, 6, 9, 14, 24])))
        for _ in range(rng.randint(1, 8))
    ]
    return _seeded_pattern(rng), texts


@pytest.mark.slow
@settings(max_examples=4000, deadline=None)
@given(st.integers(0, 2**64 - 1))
def test_a_text_without_the_strings_is_never_matched_at_length(seed: int) -> None:
    _never_matched(*_seeded_case(seed))


def _never_matched(pattern: str, texts: list[str]) -> None:
    if ("(?P<n>" in pattern and pattern.count("(?P<n>") > 1) or not _compiles(pattern):
        return  # a name used twice, a look-behind of variable width: not a pattern
    needs = required_literals(pattern)
    if needs is None:
        return
    assert needs and all(needs)
    compiled = re.compile(pattern)
    lazy = Lazy(pattern, literals=True)
    for text in texts:
        if not any(need in text for need in needs):
            assert compiled.search(text) is None, (pattern, text, needs)
        assert (lazy.search(text) is None) is (compiled.search(text) is None)
        assert (lazy.match(text) is None) is (compiled.match(text) is None)
        assert (lazy.fullmatch(text, 1) is None) is (compiled.fullmatch(text, 1) is None)


def test_what_the_reader_finds_and_what_it_leaves() -> None:
    assert required_literals(r"\b(?:Permission denied|EACCES)\b") == ("Permission denied", "EACCES")
    # the most selective of an alternative's runs and groups: its shortest string the longest
    assert required_literals(r"Hunk #\d+ FAILED at ") == (" FAILED at ",)
    assert required_literals(r"pip3? install|uv (?:pip|add)") == (" install", "uv ")
    assert required_literals(r"\w+:\S+ hook error\b|x\d") == (" hook error", "x")
    assert required_literals(r"\w+:\S+ hook error\b") == (" hook error",)
    assert required_literals(r"ab(?:cd|ef)") == ("ab",)  # a tie keeps the first
    assert required_literals(r"a(?:bcd|efg)") == ("bcd", "efg")
    assert required_literals(r"(?:^|[\s;])(?:git)(?=$|\s)") == ("git",)
    assert required_literals(r"(?m)^FAILED \S+|^--- FAIL: ") == ("FAILED ", "--- FAIL: ")
    assert required_literals("ab+c") == ("ab",)
    assert required_literals(r"(\w+) \1:") == (" ",)  # a group reference is some text
    assert required_literals(r"(a)\1\1xyz") == ("xyz",)
    for unread in ("a|", "x?", r"\x41", "(?i)abc", "a{", "(?#c)a", "[[]a"):
        assert required_literals(unread) is None, unread
    assert required_literals("abc", IGNORECASE) is None


def test_a_lazy_pattern_is_not_compiled_for_a_text_without_its_words() -> None:
    lazy = Lazy(r"ModuleNotFoundError|No module named ", literals=True)
    assert lazy.search("FAILED tests/test_cart.py::test_total - assert 4 == 3") is None
    assert lazy._regex is None  # not compiled
    assert lazy.search("E   ModuleNotFoundError: No module named 'x'") is not None
    assert lazy._regex is not None
    plain = Lazy(r"ModuleNotFoundError")
    assert plain.search("nothing") is None and plain._regex is not None  # not asked: compiled


def test_the_classifier_rows_answer_as_their_compiled_patterns_on_the_corpus() -> None:
    corpus = YAML(typ="safe").load((DATA_DIR / "failure_corpus.yaml").read_text("utf-8"))
    texts: list[tuple[str, str | None, str]] = []
    for case in corpus:
        output = str(case.get("output") or "")
        command = case.get("command")
        texts.append((str(case.get("tool") or "Bash"), command, output))
    assert len(texts) > 30
    decided = 0
    for rule in BUILTIN_RULES:
        for pattern in (rule.tool, rule.command, rule.error):
            if pattern is None:
                continue
            compiled = re.compile(pattern.pattern)
            for tool, command, output in texts:
                for text in (tool, command or "", output):
                    lazy = Lazy(pattern.pattern, literals=True)
                    assert (lazy.search(text) is None) is (compiled.search(text) is None)
                    assert (lazy.fullmatch(text) is None) is (compiled.fullmatch(text) is None)
                    decided += lazy._regex is None
    assert decided > 1000  # most answers came without a compile

    def compiled_classify(tool: str, command: str | None, error: str) -> str:
        for rule in BUILTIN_RULES:
            looks = [
                (rule.tool, tool, True), (rule.command, command, False), (rule.error, error, False)
            ]  # fmt: skip
            if all(
                p is None
                or (text is not None and (re.fullmatch if whole else re.search)(p.pattern, text))
                for p, text, whole in looks
            ):
                return rule.category
        return "shell"

    for tool, command, output in texts:
        assert classify(tool, command, output) == compiled_classify(tool, command, output)
