"""Which skills fit a prompt, and why: lexical relevance adjusted by the project's memory.

Pure: skills, prompt and memory signals in, an :class:`Advice` and its text out (the hook in
``pokayokay.hooks.prompt`` and :func:`suggest_cli` gather the inputs).

Relevance: ``pokayokay.relevance.skill_match`` (each skill's name, description and ``when_to_use``
read into fields, trigger phrases, file extensions, bigrams and negative clauses; specificity over
the catalog). A skill is suggested when it scores at least :data:`FLOOR` and at least
:data:`RELATIVE` of the best score; at most :data:`MAX_SUGGESTIONS`. Its evidence follows the
rule recall follows too (:mod:`pokayokay.relevance.evidence`: two plain words, or one rare over
the catalog), and only a person's words are read (:mod:`pokayokay.recall.turns`: nothing for a
slash command, a turn Claude Code wrote such as ``<task-notification>``, or pasted output).

Memory signals (spec §3):

* ``spike-results.md`` — when the prompt asks a question already recorded there, spike skills
  are not suggested and the GO/NO-GO conclusion is stated with its date.
* recurring failures — a failure signature seen in at least two sessions where a project file
  the prompt names points (``pokayokay.skills.failure_boost``) boosts the skill that clearly
  addresses its category and tool (a pytest skill for pytest failures, never a Playwright or a
  spreadsheet skill) to the bar and says so; with no such skill the recurring failure is stated
  alone.
* graduated rules — rules whose ``paths:`` match a project file the prompt names are named.

Paths count only when the caller checked them (:attr:`Signals.paths`): a dotted word in a prompt
(``time.sleep``, ``os.path.join``) is not a file.
* ``chain-learnings.md`` — a suggested skill gets a risk note when the latest session on a
  similar task used it and ended failing.

Calibration (``tests/skills/test_suggest_eval.py`` recomputes it): ``tests/data/skills_eval``
holds 38 skills written like a public collection (long descriptions with trigger lists, quoted
trigger phrases, file extensions and "Do NOT use for" clauses, across documents, web, data,
infra, APIs, testing and review) and 257 prompts: 198 with the skill they call for, 59 ordinary
coding prompts that call for none. Two batches were written after the method was tuned and scored
blind before joining the set: 44 + 15 prompts at 79.5 % hit and 100 % silence (the method was
then revised), 35 + 10 at 91.4 % hit and 80 % silence (final method; one "unrelated" prompt there
asked for request-id logging, which the observability skill names, and was relabelled). With
:data:`FLOOR` at 1.04 the expected skill is among the suggestions for 95.5 % of the prompts
(189/198; 90.9 % before the evoked-terms table, now in ``relevance/vocabulary``) and 57 of
the 59 unrelated prompts get nothing (96.6 %). ``held_out.json`` holds two more batches scored
blind (80 + 45 prompts, 88.8 % hits and 93.3 % silence together; see the eval test). Floors
from 1.00 to 1.10 keep the same silence; 0.98 and below start speaking on unrelated prompts.
The older set in ``tests/data/suggest`` (22 short skills, 60 prompts) gives 95.5 % hits,
100 % silence.

Hot path: standard library only at import time; ``pokayokay.relevance.skill_match`` and, for spikes
and chain learnings, ``pokayokay.relevance.analyser`` are imported on use.
"""

from __future__ import annotations

from pokayokay.infra import Value
from pokayokay.relevance.scan import looks_like_url, skill_name_ok, word_chunks
from pokayokay.relevance.scan_names import prompt_path_matches

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from pokayokay.learnings.outcomes.chain_entries import SessionOutcome
    from pokayokay.learnings.outcomes.spikes import Spike
    from pokayokay.relevance.gate import Gate
    from pokayokay.relevance.own_words import OwnWords
    from pokayokay.relevance.skill_match import Query, Stats
    from pokayokay.skills.catalog import Skill
    from pokayokay.skills.failure_boost import FailureGroup

FLOOR = 1.04
RELATIVE = 0.6
MAX_SUGGESTIONS = 3
# Recurring failures no skill addresses, stated at most (most sessions first).
MAX_UNADDRESSED = 2
BOOST = 0.05
MAX_CHARS = 600
SPIKE_OVERLAP = 0.6  # share of a spike question's terms the prompt must hold
TASK_OVERLAP = 0.5  # share of the shorter task's terms two tasks must share
CHAIN_LOOKBACK = 10
PREFIX = "pokayokay: "

# The paths of a prompt, the URL check and the skill-name check are plain scans, each
# property-tested against the pattern it replaced (:mod:`pokayokay.relevance.scan_names`:
# ``prompt_path_matches``; :mod:`pokayokay.relevance.scan`: ``looks_like_url``,
# ``skill_name_ok``); a prompt imports no ``re``.
_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


# Slotted classes, not dataclasses: this module is on the prompt hook's path, and importing
# dataclasses costs more than scoring 200 skills (``Signals`` is a ``Value``: decision 0154).


class Signals(Value):
    """The memory signals for one prompt."""

    spikes: Sequence[Spike] = ()
    failure_groups: Sequence[FailureGroup] = ()
    rules: Sequence[tuple[str, tuple[str, ...]]] = ()  # (rule file, its paths: patterns)
    chain: Sequence[SessionOutcome] = ()
    paths: Sequence[str] = ()  # the project files and folders (``src/api/``) it names
    # (rule, path) for each rule that loads for one of ``paths``, when the reader found
    # them already (``rules.scopes.rules_for_paths``, cached); None: matched here.
    matched_rules: Sequence[tuple[str, str]] | None = None
    # reads ``chain`` (its latest CHAIN_LOOKBACK entries, all the note looks at) when a
    # suggestion is shown (its only use: the risk note): every
    # project past a few SessionEnds has the file, and parsing it imports re, json,
    # dataclasses, pathlib and datetime, about a floor on a prompt that suggests nothing
    chain_reader: Callable[[], Sequence[SessionOutcome]] | None = None


class Suggestion:
    __slots__ = ("name", "reasons", "score")

    def __init__(self, name: str, score: float, reasons: list[str] | None = None) -> None:
        self.name = name
        self.score = score
        self.reasons = reasons if reasons is not None else []

    def __repr__(self) -> str:
        return f"Suggestion({self.name!r}, {self.score}, {self.reasons!r})"


class Advice:
    __slots__ = ("failures", "rules", "spike", "suggestions")

    def __init__(
        self,
        suggestions: list[Suggestion],
        spike: Spike | None = None,
        rules: list[tuple[str, str]] | None = None,  # (rule file, prompt path)
        failures: list[str] | None = None,  # recurring failures no skill addresses
    ) -> None:
        self.suggestions = suggestions
        self.spike = spike
        self.rules = rules if rules is not None else []
        self.failures = failures if failures is not None else []

    @property
    def empty(self) -> bool:
        return not (self.suggestions or self.spike or self.rules or self.failures)

    def text(self) -> str:
        """The ``additionalContext`` text: factual, at most :data:`MAX_CHARS`; "" when empty."""
        if self.empty:
            return ""
        parts: list[str] = []
        if self.suggestions:
            shown = []
            for s in self.suggestions:
                why = "; ".join(s.reasons)
                shown.append(f"/{s.name} ({why})" if why else f"/{s.name}")
            parts.append("skills that fit this prompt — " + ", ".join(shown) + ".")
        if self.spike is not None:
            sp = self.spike
            parts.append(
                f"spike already answered on {sp.day}: “{sp.question}” — {sp.verdict}: "
                f"{sp.conclusion}" + ("" if sp.conclusion.endswith((".", "!", "?")) else ".")
            )
        for reason in self.failures:
            parts.append(f"{reason}.")
        for rule, path in self.rules:
            parts.append(f"rule {rule} applies to {path}.")
        text = PREFIX + " ".join(parts)
        if len(text) > MAX_CHARS:
            text = text[: MAX_CHARS - 1].rstrip() + "…"
        return text


# --------------------------------------------------------------------------------------------
# Helpers


def prompt_paths(prompt: str) -> list[str]:
    """Project-relative paths named in a prompt (``src/api/app.py``, ``src/api/``,
    ``conftest.py``), in order, deduplicated; URLs (with or without a scheme:
    ``docs.python.org/3/``, ``git@github.com:org/repo``) and absolute paths are skipped."""
    out: list[str] = []
    for match in prompt_path_matches(prompt[:4000]):
        start = match.start
        if start > 0 and prompt[start - 1] in ":/~@":
            continue
        path = match.groups[0].rstrip(".")
        if not path or looks_like_url(path) or path.startswith(("..", "/")):
            continue
        if _is_web_address(prompt, start):
            continue  # example.com/docs/api, docs.example.dev:8080/x: no scheme
        if "/" not in path and not any(c in _LETTERS for c in path.rsplit(".", 1)[-1]):
            continue  # 1.2.3
        if path not in out:
            out.append(path)
    return out


def _is_host(segment: str) -> bool:
    """A first path segment that reads as a host name (``docs.python.org``): dotted, not a
    dotfile, its last label letters only. A project folder is seldom named so (``.github``,
    ``foo.egg-info`` and ``v1.2`` are not)."""
    if "." not in segment or segment.startswith("."):
        return False
    last = segment.rsplit(".", 1)[1]
    return len(last) >= 2 and last.isascii() and last.isalpha()


_TOKEN_END = frozenset(" \t\r\n'\"()[]{}<>,;`")


def _is_web_address(prompt: str, start: int) -> bool:
    """The token starting at ``start`` is a web address without its scheme: a host name
    (:func:`_is_host`), maybe a port, then a path (``docs.python.org/3/``, ``a.dev:8080/x``;
    ``app.py:12`` is a line of a file)."""
    end = start
    while end < len(prompt) and prompt[end] not in _TOKEN_END:
        end += 1
    token = prompt[start:end]
    host, slash, _ = token.partition("/")
    return bool(slash) and _is_host(host.partition(":")[0])


def _terms(text: str) -> set[str]:
    from pokayokay.relevance.analyser import term_counts, weak_terms

    weak = weak_terms()
    return {t for t in term_counts(text) if t not in weak}


def _skill_key(name: str) -> str:
    return name.strip().lstrip("/").casefold()


def _is_spike_skill(skill: Skill) -> bool:
    from pokayokay.relevance.skill_terms import tokenize

    spike_terms = set(tokenize("spike spikes"))  # said of it, not only in its body (0205)
    return skill.profile is not None and not spike_terms.isdisjoint(skill.profile.described)


def _matched_words(prompt: str, shared: set[str], limit: int = 3) -> list[str]:
    from pokayokay.relevance.skill_terms import evoked_terms, tokenize

    out: list[str] = []
    for word in word_chunks(prompt[:4000]):
        if len(out) >= limit:
            break
        lower = word.lower()
        if lower not in out and (
            any(t in shared for t in tokenize(word)) or evoked_terms(lower) & shared
        ):
            out.append(lower)
    return out


def answered_spike(prompt: str, spikes: Sequence[Spike]) -> Spike | None:
    """The newest recorded spike whose question the prompt asks again, if any."""
    prompt_terms = _terms(prompt)
    for spike in reversed(list(spikes)):
        question = _terms(spike.question)
        if len(question) < 2:
            continue
        shared = question & prompt_terms
        if len(shared) >= 2 and len(shared) / len(question) >= SPIKE_OVERLAP:
            return spike
    return None


def _similar_task(a: str, b: str) -> bool:
    ta, tb = _terms(a), _terms(b)
    if not ta or not tb:
        return False
    shared = ta & tb
    return len(shared) >= 2 and len(shared) / min(len(ta), len(tb)) >= TASK_OVERLAP


# --------------------------------------------------------------------------------------------
# The suggestion


def usable_skills(skills: Sequence[Skill]) -> list[Skill]:
    """The skills suggestion may name: model-invocable, analysed, with a name it can print."""
    return [
        s
        for s in skills
        if s.model_invocable and s.profile is not None and skill_name_ok(s.name)
    ]


def usable_opinion(
    dense: Mapping[str, float], usable: Sequence[Skill], spike: bool = False
) -> dict[str, float]:
    """The dense opinion over the skills suggestion may name (``usable``; with ``spike``, an
    answered spike's skill left out as the words' ranking leaves it)."""
    names = {s.name for s in usable if not (spike and _is_spike_skill(s))}
    return {n: v for n, v in dense.items() if n in names}


def _stats(skills: Sequence[Skill]) -> Stats:
    from pokayokay.relevance.skill_match import Catalog, Stats

    if isinstance(skills, Catalog):
        return skills.statistics()
    return Stats.of(skills)


def _ranked(query: Query, usable: Sequence[Skill]) -> list[tuple[Skill, float]]:
    from pokayokay.relevance.skill_match import score

    scored = []
    for i, skill in enumerate(usable):
        if skill.profile is None:
            continue
        value = score(query, skill.profile)
        if value > 0:
            scored.append((-value, i, skill))
    scored.sort(key=lambda row: (row[0], row[1]))
    return [(skill, -neg) for neg, _i, skill in scored]


def prompt_query(prompt: str, stats: Stats, own: OwnWords | None = None) -> Query:
    """The prompt analysed for skills: its own words scored, code spans, fenced blocks and
    pasted output only counted like identifiers (:mod:`pokayokay.relevance.own_words`; ``own``:
    the prompt's own words when the caller has them already)."""
    from pokayokay.relevance.skill_match import Query

    if own is None:
        from pokayokay.relevance.own_words import own_words

        own = own_words(prompt)
    return Query(own.text, stats, own.aside)


def relevance(prompt: str, skills: Sequence[Skill]) -> list[tuple[Skill, float]]:
    """Every model-invocable skill sharing a term with the prompt, best first."""
    usable = usable_skills(skills)
    return _ranked(prompt_query(prompt, _stats(skills)), usable) if usable else []


def suggest(
    prompt: str,
    skills: Sequence[Skill],
    signals: Signals | None = None,
    *,
    floor: float = FLOOR,
    gate: Gate | bool = True,
    dense: Mapping[str, float] | None = None,
) -> Advice:
    """At most :data:`MAX_SUGGESTIONS` skills for ``prompt`` with their reasons, the answered
    spike it repeats, the recurring failures and graduated rules of the project files it names
    (``signals.paths``), pure. ``gate``: the decision to speak over the skills chosen for the
    prompt's words (:mod:`pokayokay.relevance.skill_gating`): ``True`` the fitted one, ``False``
    none; a skill boosted by a recurring failure answers another signal and is not gated. ``dense``:
    the dense opinion's cosine of each skill with the prompt (decision 0181), when the resident
    model answered: the gate then weighs it too, and the skill it ranks first is a candidate
    even when the prompt's words chose it not."""
    from pokayokay.recall.turns import suggest_text
    from pokayokay.relevance.asks import explains_code
    from pokayokay.relevance.skill_match import EXT_WEIGHT, evidence
    from pokayokay.relevance.skill_terms import MAX_PROMPT_CHARS, generic_terms

    if signals is None:
        signals = Signals()
    if not suggest_text(prompt):
        # the user is invoking a skill or command already, or Claude Code wrote the turn
        # (``<task-notification>``), or it is pasted tool output (``pokayokay.recall.turns``)
        return Advice([])
    from pokayokay.relevance.own_words import own_words

    # code spans, fenced blocks and pasted output are set aside: names, not the task's words
    own = own_words(prompt)
    words = own.text
    usable = usable_skills(skills)
    query = prompt_query(prompt, _stats(skills), own)
    # a question the code, the text or the model answers gets no skill for its words, unless
    # it names a file of a format a skill handles ("fix the typo in deck.pptx")
    asks = explains_code(words[:MAX_PROMPT_CHARS].lower()) and not any(
        s.profile is not None and s.profile.fields.get(ext, 0.0) >= EXT_WEIGHT
        for ext in query.file_exts
        for s in usable
    )
    ranked = _ranked(query, usable) if usable and not asks else []
    spike = answered_spike(prompt, signals.spikes) if signals.spikes else None
    if spike is not None:
        ranked = [(s, score) for s, score in ranked if not _is_spike_skill(s)]

    scores: dict[str, float] = {s.name: score for s, score in ranked}
    by_name: dict[str, Skill] = {s.name: s for s in usable}
    reasons: dict[str, list[str]] = {}
    named = list(signals.paths)

    # Recurring failures where the named files are: the skill that clearly addresses them is
    # boosted to the bar; with no such skill the failure is stated alone.
    unaddressed: list[str] = []
    if named and signals.failure_groups:
        from pokayokay.skills.failure_boost import recurring  # only for a named path

        excluded = {n for n, s in by_name.items() if spike is not None and _is_spike_skill(s)}
        for found in recurring(signals.failure_groups, named, list(by_name.values()), excluded):
            if found.skill is None:
                unaddressed.append(found.reason)
                continue
            scores[found.skill] = max(scores.get(found.skill, 0.0), floor) + BOOST
            reasons.setdefault(found.skill, []).append(found.reason)

    top = max(scores.values(), default=0.0)
    chosen = sorted(
        # A boosted skill answers another signal than the prompt's words: no relative bar.
        (n for n, sc in scores.items() if sc >= floor and (sc >= top * RELATIVE or n in reasons)),
        key=lambda n: (-scores[n], n),
    )[:MAX_SUGGESTIONS]
    # A file of the skill's own format named in the prompt is evidence in its words, judged by
    # the gate like the rest, as the gate was fitted (decision 0204).
    worded = [by_name[n] for n in chosen if n not in reasons]
    opinion = None
    if dense is not None and not asks:
        from pokayokay.relevance.dense.texts import top_of

        opinion = usable_opinion(dense, usable, spike is not None)
        first_choice = top_of(opinion)
        if first_choice is not None and first_choice not in chosen:
            worded.append(by_name[first_choice])  # the model's own, judged like the others
            chosen.append(first_choice)
    if gate is not False and worded:
        from pokayokay.relevance.skill_gating import speak

        spoken = speak(gate, query, _stats(skills), worded, scores, opinion, prompt=prompt)
        kept = {s.name for s in spoken}
        chosen = [n for n in chosen if n in reasons or n in kept]

    suggestions: list[Suggestion] = []
    for name in chosen:
        why = reasons.get(name, [])
        prof = by_name[name].profile
        if not why and prof is not None:
            _total, shared = evidence(query, prof)
            fields = prof.fields
            generic = generic_terms()
            telling = {t for t in shared if t not in generic} or shared
            strongest = sorted(
                telling, key=lambda t: (-query.spec.get(t, 0.0) * fields.get(t, 1.0), t)
            )[:3]
            matched = _matched_words(words, set(strongest))
            if matched:
                why.append("matches " + ", ".join(matched))
            elif opinion is not None:
                why.append("close in meaning to what it is for")
        suggestions.append(Suggestion(name, round(scores.get(name, 0.0), 3), why))

    # Chain learnings: the latest session on a similar task used the skill and ended failing.
    chain = signals.chain
    if suggestions and not chain and signals.chain_reader is not None:
        chain = signals.chain_reader()
    if suggestions and chain:
        for entry in list(chain)[::-1][:CHAIN_LOOKBACK]:
            if not entry.task or not _similar_task(prompt, entry.task):
                continue
            if entry.result == "failed":
                used = {_skill_key(s) for s in entry.skills}
                for s in suggestions:
                    if _skill_key(s.name) in used:
                        s.reasons.append(
                            f"risk: used on a similar task in session {entry.session_id[:8]} "
                            f"({entry.day}), which ended failing"
                        )
            break  # only the latest session on this task counts

    matched_rules: list[tuple[str, str]] = []
    if signals.matched_rules is not None:
        matched_rules = list(signals.matched_rules) if named else []
    elif named and signals.rules:
        from pokayokay.rules.claude_match import matches

        for rule, patterns in signals.rules:
            for path in named:
                if patterns and matches(list(patterns), path.rstrip("/")):
                    matched_rules.append((rule, path))
                    break
    return Advice(suggestions, spike, matched_rules[:3], unaddressed[:MAX_UNADDRESSED])


# --------------------------------------------------------------------------------------------
# The CLI core (I/O)
