"""Skill suggestion's decision to speak: the :class:`~pokayokay.relevance.gate.Evidence` of
the skills :func:`pokayokay.skills.suggest.suggest` ranked for their words, and the ones the
fitted gate lets through.

Pure. A skill's content units are the prompt's terms that are not generic words
(:func:`~pokayokay.relevance.skill_terms.generic_terms`), its file extensions included; a term
is rare when its IDF over the catalog is above the catalog's median word-occurrence IDF
(:func:`~pokayokay.relevance.gate.rare_idf`), and named when it was found only inside a path,
a file name or an identifier (``Query.in_code``).
"""

from __future__ import annotations

import math

from pokayokay.relevance.gate import Evidence, rare_idf
from pokayokay.relevance.skill_terms import generic_terms

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from pokayokay.relevance.gate import Gate
    from pokayokay.relevance.skill_match import Query, Stats
    from pokayokay.skills.catalog import Skill

_rare_of: list[tuple[Stats, float]] = []  # the last catalog's rare-word IDF

# A second skill speaks only when its score is at least this share of the first's (issue 23
# item 3: one by default). Chosen on the dev split (decision 0122): 0.85 keeps every dev hit.
SECOND = 0.85


def catalog_rare_idf(stats: Stats) -> float:
    for known, value in _rare_of:
        if known is stats:
            return value
    value = rare_idf(stats.df.values(), stats.n)
    _rare_of[:] = [(stats, value)]
    return value


def evidence(
    query: Query,
    stats: Stats,
    chosen: Sequence[Skill],
    scores: Mapping[str, float],
    cosines: Mapping[str, float] | None = None,
    *,
    calls: float,
) -> list[Evidence]:
    """The evidence of each of ``chosen`` (ranked, best first); ``scores``: every skill's score
    for the prompt (the runner-up of a skill is the best other score not above its own; 0 for
    a skill only the dense opinion chose); ``cosines``: the dense opinion, when there is one;
    ``calls``: how likely the prompt is to call for a skill at all (decision 0195: the shipped
    model's at a prompt, the fitting script's out-of-fold value when it fits)."""
    from pokayokay.relevance.dense.texts import opinion_features, ranking
    from pokayokay.relevance.skill_match import evidence as shared_terms

    ranked = None if cosines is None else ranking(cosines)

    generic = generic_terms()
    units = frozenset((query.terms | query.exts) - generic)
    threshold = catalog_rare_idf(stats)
    n = stats.n
    rare = frozenset(
        t
        for t in units
        if stats.df.get(t, 0) and math.log((n + 1) / (stats.df[t] + 1)) + 1.0 >= threshold
    )
    named = frozenset(query.in_code - generic)
    out = []
    for skill in chosen:
        assert skill.profile is not None  # suggest() ranks only skills with a profile
        _total, shared = shared_terms(query, skill.profile)
        score = scores.get(skill.name, 0.0)
        others = [s for name, s in scores.items() if name != skill.name and s <= score]
        out.append(
            Evidence(
                score,
                max(others, default=0.0),
                frozenset(shared) & units,
                rare,
                named,
                len(units),
                dense=None if cosines is None else opinion_features(cosines, skill.name, ranked),
                calls=calls,
                body=units & skill.profile.body,
            )
        )
    return out


def speak(
    gate: Gate | bool,
    query: Query,
    stats: Stats,
    chosen: Sequence[Skill],
    scores: Mapping[str, float],
    cosines: Mapping[str, float] | None = None,
    *,
    prompt: str,
) -> list[Skill]:
    """The skills of ``chosen`` the gate lets speak: one by default, a second only when nearly
    as probable and about something else (:func:`~pokayokay.relevance.gate.select`); a skill
    carrying how a user might ask for it is judged by its own gate (decision 0176). With
    ``cosines`` (the dense opinion), the gates fitted with it judge (decision 0181). ``prompt``:
    the prompt as typed, read by the ``calls`` feature's model (decision 0195) when a gate
    decides."""
    from pokayokay.relevance.calls import SKILLS as CALLS_SKILLS
    from pokayokay.relevance.calls import calls as prompt_calls
    from pokayokay.relevance.fitted import DENSE_KIND, SKILLS
    from pokayokay.relevance.fitted import speak as fitted_speak

    kept = fitted_speak(
        gate,
        SKILLS if cosines is None else DENSE_KIND[SKILLS],
        chosen,
        lambda: evidence(
            query, stats, chosen, scores, cosines, calls=prompt_calls(prompt, CALLS_SKILLS)
        ),
        lambda skill: skill.profile is not None and skill.profile.asked,
    )
    if len(kept) > 1:
        first = scores.get(kept[0].name, 0.0)
        kept = kept[:1] + [s for s in kept[1:] if scores.get(s.name, 0.0) >= SECOND * first]
    return kept
