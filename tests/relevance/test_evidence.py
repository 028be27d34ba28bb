"""The one evidence rule of recall and skill suggestion (``pokayokay.relevance.evidence``): a path
alone, or one word many entries share, never speaks; two plain words or one rare word do. And
"show less, better" (``pokayokay.relevance.note_index.show_less``)."""

from __future__ import annotations

import random
import string

import pytest
from helpers.paths import DATA_DIR
from hypothesis import given, settings
from hypothesis import strategies as st

from pokayokay.relevance import note_index as recall
from pokayokay.relevance.analyser import split_names
from pokayokay.relevance.evidence import MIN_PLAIN, idf, rare, show_less, speaks
from pokayokay.relevance.note_index import Document, Hit, Index
from pokayokay.relevance.note_scores import MIN_EVIDENCE, SILENCED
from pokayokay.skills.catalog import Catalog, catalog_from_folder
from pokayokay.skills.suggest import suggest

MONOREPO_NOTES = [
    "apps/web builds with vite; run pnpm --filter web dev, never npm start at the root.",
    "packages/ui components are published from CI; bump the version in packages/ui first.",
    "CI e2e runs Playwright against apps/web on every pull request; keep the e2e seed small.",
    "The e2e suite in CI needs the stripe mock running; start it with make stripe-mock.",
    "apps/api reads DATABASE_URL from .env.local; CI sets it from the repository secrets.",
    "Feature flags live in packages/flags; never read LaunchDarkly directly from apps/web.",
    "CI caches pnpm's store keyed on pnpm-lock.yaml; a changed lockfile means a cold build.",
    "The Storybook for packages/ui deploys from CI to the design preview site.",
]


def monorepo() -> Index:
    return Index.build(
        [Document(f"L{i}", "learning", text) for i, text in enumerate(MONOREPO_NOTES)]
    )


def test_a_path_alone_recalls_nothing() -> None:
    index = monorepo()
    for prompt in (
        "refactor the reducer in apps/web/src/state/cart.ts to use a switch",
        "rename useCartTotals in packages/ui/src/hooks/cart.ts to useBasketTotals",
        "why is CI red",  # a word most notes share, and nothing else
    ):
        assert recall.recall(index, prompt).hits == [], prompt


def test_plain_words_still_recall() -> None:
    index = monorepo()
    hits = recall.recall(
        index, "the e2e suite fails in CI because the stripe mock is not up"
    ).hits
    assert [h.doc.id for h in hits][:1] == ["L3"]


def test_split_names_keeps_the_words_and_finds_the_names() -> None:
    text, names = split_names("fix refund_order in billing/refunds.py and TypeError in useCart()")
    assert names == ["refund_order", "billing/refunds.py", "useCart"]
    assert "TypeError" in text and "refund" not in text and "fix" in text


_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=8)
_PATH = st.lists(_WORD, min_size=2, max_size=5).map("/".join).map(lambda p: p + ".ts")
_IDENT = st.lists(_WORD, min_size=2, max_size=3).map("_".join)


def _names_only_recall_nothing(names: list[str]) -> None:
    """Whatever the notes say, paths and identifiers alone never bring one: here the notes
    even spell the names' words out plainly."""
    notes = [*MONOREPO_NOTES, *(f"Notes about {' '.join(n.replace('/', ' ').split('_'))}."
                                for n in names)]
    index = Index.build([Document(f"N{i}", "learning", t) for i, t in enumerate(notes)])
    assert recall.recall(index, "look at " + " and ".join(names)).hits == []


_NAMES = st.lists(st.one_of(_PATH, _IDENT), min_size=1, max_size=4)


@given(_NAMES)
def test_any_prompt_of_names_only_recalls_nothing(names: list[str]) -> None:
    _names_only_recall_nothing(names)


def _seeded_names(seed: int) -> list[str]:
    """What ``_NAMES`` draws (one to four paths or identifiers of lowercase words of three to
    eight letters), built from one drawn seed: the slow run's 3,000 examples cost the engine one
    draw each, not one per letter."""
    rng = random.Random(seed)

    def words(low: int, high: int) -> list[str]:
        return ["".join(rng.choices(string.ascii_lowercase, k=rng.randint(3, 8)))
                for _ in range(rng.randint(low, high))]  # fmt: skip

    return [
        "/".join(words(2, 5)) + ".ts" if rng.random() < 0.5 else "_".join(words(2, 3))
        for _ in range(rng.randint(1, 4))
    ]


@pytest.mark.slow
@settings(max_examples=1500)
@given(st.integers(0, 2**64 - 1))
def test_any_prompt_of_names_only_recalls_nothing_many(seed: int) -> None:
    _names_only_recall_nothing(_seeded_names(seed))


@given(st.integers(1, 5000), st.integers(0, 5000))
def test_rarity_is_monotonic_and_from_the_index(n: int, df: int) -> None:
    df = min(df, n)
    if rare(n, df) and df > 0:
        assert rare(n, df - 1)  # fewer entries holding it: at least as rare
    assert idf(n, df) <= idf(n, 0)
    assert rare(n, 0)


@given(st.floats(0, 10), st.booleans())
def test_speaks_needs_two_plain_words_or_one_rare(plain: float, any_rare: bool) -> None:
    assert speaks(plain, any_rare) == (plain >= MIN_PLAIN or (plain >= 1 and any_rare))
    assert not speaks(0.0, True)  # a rare word that is no plain word (a path's) is nothing


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return catalog_from_folder(DATA_DIR / "skills_eval" / "skills")


def test_one_common_word_suggests_no_skill(catalog: Catalog) -> None:
    """"review" is held by four skills of the catalog: not rare there, so alone it names no
    skill (without the rule, "look at the review" got /code-review and /security-review)."""
    stats = catalog.statistics()
    for word in ("review", "report", "api"):
        assert stats.df[word] >= 4 and not rare(stats.n, stats.df[word]), word
        assert suggest(f"look at the {word}", catalog).suggestions == [], word
    # two plain words still speak
    assert suggest("review the login handler for security holes", catalog).suggestions


def _hit(name: str, kind: str, score: float) -> Hit:
    return Hit(Document(name, kind, f"text of {name}"), score)


def test_show_less_one_note_a_second_only_nearly_as_strong_and_about_something_else() -> None:
    a, b, c = _hit("a", "learning", 0.9), _hit("b", "learning", 0.85), _hit("c", "learning", 0.5)
    assert show_less([a, b], [0b01, 0b01]) == [a]  # the same pieces: nothing else
    assert show_less([a, b], [0b01, 0b10]) == [a, b]  # nearly as strong, about something else
    assert show_less([a, c], [0b01, 0b10]) == [a]  # far weaker
    weak_fix = _hit("f", "fix", 0.88)
    assert show_less([a, weak_fix], [0b01, 0b10]) == [a]  # a fix on one piece never rides along
    assert show_less([weak_fix], [0b10]) == []
    fix = _hit("g", "fix", 0.88)
    assert show_less([a, fix], [0b01, 0b110]) == [a, fix]


@settings(max_examples=200)
@given(
    st.lists(
        st.tuples(st.sampled_from(["learning", "decision", "fix"]), st.floats(0.01, 1.0),
                  st.integers(0, 15)),
        max_size=8,
    )
)
def test_show_less_never_shows_more_than_two_and_keeps_the_order(
    rows: list[tuple[str, float, int]],
) -> None:
    rows.sort(key=lambda r: -r[1])
    hits = [_hit(f"d{i}", kind, score) for i, (kind, score, _m) in enumerate(rows)]
    masks = [m for _k, _s, m in rows]
    shown = show_less(hits, masks)
    assert len(shown) <= recall.TOP_K
    assert [hits.index(h) for h in shown] == sorted(hits.index(h) for h in shown)
    for h in shown:
        if h.doc.kind == "fix":
            assert masks[hits.index(h)].bit_count() >= MIN_EVIDENCE


def test_the_ranking_marks_the_notes_a_path_alone_reaches_as_silenced() -> None:
    index = monorepo()
    prompt = "refactor the reducer in apps/web/src/state/cart.ts to use a switch"
    silenced = [i for i, t in enumerate(MONOREPO_NOTES) if "apps/web" in t]
    pieces: dict[int, int] = {}
    assert list(index.ranked(prompt, pieces=pieces)) == []
    assert {d for d, mark in pieces.items() if mark == SILENCED} >= set(silenced)
