"""Which skills fit a prompt, and why: lexical relevance adjusted by the project's memory.

Pure: skills, prompt and memory signals in, an :class:`Advice` and its text out (the hook in
``pokayokay.hooks.prompt`` and :func:`suggest_cli` gather the inputs).

Relevance: the TF-IDF cosine of ``pokayokay.recall.index`` (same analysis: stemming, synonyms, weak
words) between the prompt and each skill's name (counted twice) plus description and
``when_to_use``, with IDF over the catalog. A skill is suggested when it scores at least
:data:`FLOOR` and at least :data:`RELATIVE` of the best score; at most :data:`MAX_SUGGESTIONS`.

Memory signals (spec §3):

* ``spike-results.md`` — when the prompt asks a question already recorded there, spike skills
  are not suggested and the GO/NO-GO conclusion is stated with its date.
* recurring failures — a failure signature seen in at least :data:`RECURRING_SESSIONS` sessions,
  in a path under the folder of a path the prompt names, boosts the skill that addresses its
  category (a testing skill for ``testing`` failures) to the bar and says so.
* graduated rules — rules whose ``paths:`` match a path the prompt names are named.
* ``chain-learnings.md`` — a suggested skill gets a risk note when the latest session on a
  similar task used it and ended failing.

Calibration (``tests/test_suggest.py`` recomputes it): 22 skills in
``tests/data/suggest/skills`` and 60 prompts in ``tests/data/suggest/prompts.json`` (44 with an
expected top skill, 16 irrelevant). Floors from 0.20 to 0.215 give the best precision@1 among
those silent on every irrelevant prompt: 0.909 (40/44; the 4 misses are silences, no wrong top
skill), silence 1.00 (16/16). :data:`FLOOR` sits inside that plateau at 0.21: the highest
irrelevant prompt scores 0.198 ("what model are you" against a skill about model fields), the
lowest hit 0.215. A floor of 0.16 would reach 0.955 but speak on 1 irrelevant prompt in 16.

Hot path: standard library only at import time; ``pokayokay.recall.index`` is imported on use.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from pokayokay.failures.model import FailureGroup
    from pokayokay.learnings.chain import SessionOutcome
    from pokayokay.learnings.spikes import Spike
    from pokayokay.skills.catalog import Skill

FLOOR = 0.21
RELATIVE = 0.6
MAX_SUGGESTIONS = 3
RECURRING_SESSIONS = 2
BOOST = 0.05
MAX_CHARS = 600
SPIKE_OVERLAP = 0.6  # share of a spike question's terms the prompt must hold
TASK_OVERLAP = 0.5  # share of the shorter task's terms two tasks must share
CHAIN_LOOKBACK = 10
PREFIX = "pokayokay: "

# Terms (after analysis) that say a skill addresses a failure category.
CATEGORY_WORDS: dict[str, tuple[str, ...]] = {
    "testing": ("test", "testing", "pytest", "jest", "vitest", "unittest", "tdd"),
    "lint": ("lint", "linter", "ruff", "eslint", "flake8", "format"),
    "types": ("type", "typing", "mypy", "typecheck", "pyright", "typescript"),
    "build": ("build", "compile", "bundle", "webpack"),
    "dependencies": ("dependency", "dependencies", "upgrade", "package", "lockfile"),
    "git": ("git", "merge", "rebase", "commit"),
}
_TOOL_WORDS = "pytest jest vitest mocha tox nox go cargo npm pnpm yarn ruff mypy eslint tsc make"
_TOOLS = frozenset(_TOOL_WORDS.split())
_PATH = re.compile(
    r"(?<![\w/.-])(?:\./)?((?:[\w.-]+/)+[\w.-]*|[\w-]+(?:\.[\w-]+)*\.[A-Za-z][A-Za-z0-9]{0,5})"
    r"(?![\w/-])"
)
_URLISH = re.compile(r"^(?:https?|ftp|www)\b|://")
_NAME_OK = re.compile(r"[A-Za-z0-9][A-Za-z0-9:_.-]{0,80}")


# Plain classes, not dataclasses: this module is on the prompt hook's path, and importing
# dataclasses costs more than scoring 200 skills.


class Signals:
    """The memory signals for one prompt."""

    __slots__ = ("chain", "failure_groups", "rules", "spikes")

    def __init__(
        self,
        spikes: Sequence[Spike] = (),
        failure_groups: Sequence[FailureGroup] = (),
        rules: Sequence[tuple[str, tuple[str, ...]]] = (),  # (rule file, its paths: patterns)
        chain: Sequence[SessionOutcome] = (),
    ) -> None:
        self.spikes = spikes
        self.failure_groups = failure_groups
        self.rules = rules
        self.chain = chain


class Suggestion:
    __slots__ = ("name", "reasons", "score")

    def __init__(self, name: str, score: float, reasons: list[str] | None = None) -> None:
        self.name = name
        self.score = score
        self.reasons = reasons if reasons is not None else []

    def __repr__(self) -> str:
        return f"Suggestion({self.name!r}, {self.score}, {self.reasons!r})"


class Advice:
    __slots__ = ("rules", "spike", "suggestions")

    def __init__(
        self,
        suggestions: list[Suggestion],
        spike: Spike | None = None,
        rules: list[tuple[str, str]] | None = None,  # (rule file, prompt path)
    ) -> None:
        self.suggestions = suggestions
        self.spike = spike
        self.rules = rules if rules is not None else []

    @property
    def empty(self) -> bool:
        return not (self.suggestions or self.spike or self.rules)

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
    ``conftest.py``), in order, deduplicated; URLs and absolute paths are skipped."""
    out: list[str] = []
    for match in _PATH.finditer(prompt[:4000]):
        start = match.start()
        if start > 0 and prompt[start - 1] in ":/~":
            continue
        path = match[1].rstrip(".")
        if not path or _URLISH.search(path) or path.startswith(("..", "/")):
            continue
        if "/" not in path and not re.search(r"[A-Za-z]", path.rsplit(".", 1)[-1]):
            continue  # 1.2.3
        if path not in out:
            out.append(path)
    return out


def _area(path: str) -> str:
    """The folder a prompt path points at (``src/api/app.py`` → ``src/api``)."""
    path = path.rstrip("/")
    if "." not in path.rsplit("/", 1)[-1] and "/" in path:
        return path
    return path.rsplit("/", 1)[0] if "/" in path else ""


def _terms(text: str) -> set[str]:
    from pokayokay.recall.terms import term_counts, weak_terms

    weak = weak_terms()
    return {t for t in term_counts(text) if t not in weak}


def _category_terms(category: str) -> set[str]:
    from pokayokay.recall.terms import tokenize

    return {t for w in CATEGORY_WORDS.get(category, ()) for t in tokenize(w)}


def _skill_key(name: str) -> str:
    return name.strip().lstrip("/").casefold()


def _is_spike_skill(skill: Skill) -> bool:
    from pokayokay.recall.terms import tokenize

    spike_terms = set(tokenize("spike spikes"))
    return any(t in spike_terms for t in skill.terms)


def _matched_words(prompt: str, shared: set[str], limit: int = 3) -> list[str]:
    from pokayokay.recall.terms import tokenize

    out: list[str] = []
    for word in re.findall(r"[^\W_]+", prompt[:4000]):
        if len(out) >= limit:
            break
        lower = word.lower()
        if lower not in out and any(t in shared for t in tokenize(word)):
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


def _failure_reason(
    group: FailureGroup, areas: Sequence[tuple[str, str]]
) -> tuple[str, str] | None:
    """``(area, reason)`` when ``group`` recurred under one of the prompt's ``areas``."""
    if group.sessions < RECURRING_SESSIONS:
        return None
    for area, _path in areas:
        prefix = f"{area}/" if area else ""
        if any(p.startswith(prefix) or p == _path for p in group.paths):
            tool = group.category
            words = (group.sample_command or "").replace("/", " ").split()
            for word in words:
                if word in _TOOLS:
                    tool = word
                    break
            where = f"under {area}/" if area else "in the project root"
            return area, f"{tool} failures recurred in {group.sessions} sessions {where}"
    return None


# --------------------------------------------------------------------------------------------
# The suggestion


def relevance(prompt: str, skills: Sequence[Skill]) -> list[tuple[Skill, float]]:
    """Every model-invocable skill sharing a term with the prompt, best first."""
    from pokayokay.recall.index import Document, Index
    from pokayokay.recall.terms import query_terms

    usable = [s for s in skills if s.model_invocable and _NAME_OK.fullmatch(s.name)]
    if not usable:
        return []
    docs = [Document(s.name, "skill", s.name) for s in usable]
    index = Index.build(docs, [s.terms for s in usable])
    scored = index.scores(query_terms(prompt))
    return [(usable[i], scored[i]) for i in sorted(scored, key=lambda i: (-scored[i], i))]


def suggest(
    prompt: str,
    skills: Sequence[Skill],
    signals: Signals | None = None,
    *,
    paths: Sequence[str] = (),
    floor: float = FLOOR,
) -> Advice:
    """At most :data:`MAX_SUGGESTIONS` skills for ``prompt`` with their reasons, the answered
    spike it repeats, and the graduated rules for the paths it names (pure)."""
    if signals is None:
        signals = Signals()
    if prompt.lstrip().startswith("/"):
        return Advice([])  # the user is invoking a skill or command already
    ranked = relevance(prompt, skills)
    spike = answered_spike(prompt, signals.spikes) if signals.spikes else None
    if spike is not None:
        ranked = [(s, score) for s, score in ranked if not _is_spike_skill(s)]

    scores: dict[str, float] = {s.name: score for s, score in ranked}
    by_name: dict[str, Skill] = {s.name: s for s in skills if s.model_invocable}
    reasons: dict[str, list[str]] = {}
    named = [*paths, *(p for p in prompt_paths(prompt) if p not in paths)]
    areas = [(_area(p), p) for p in named]

    # Recurring failures under the named paths boost the skill addressing their category.
    if areas and signals.failure_groups:
        done: set[str] = set()
        for group in signals.failure_groups:
            if group.category in done or group.category not in CATEGORY_WORDS:
                continue
            found = _failure_reason(group, areas)
            if found is None:
                continue
            wanted = _category_terms(group.category)
            best, best_hits = None, 0
            for skill in by_name.values():
                if spike is not None and _is_spike_skill(skill):
                    continue
                hits = sum(n for t, n in skill.terms.items() if t in wanted)
                if hits > best_hits:
                    best, best_hits = skill, hits
            if best is None:
                continue
            done.add(group.category)
            scores[best.name] = max(scores.get(best.name, 0.0), floor) + BOOST
            reasons.setdefault(best.name, []).append(found[1])

    top = max(scores.values(), default=0.0)
    chosen = sorted(
        (n for n, sc in scores.items() if sc >= floor and sc >= top * RELATIVE),
        key=lambda n: (-scores[n], n),
    )[:MAX_SUGGESTIONS]

    query = _terms(prompt)
    suggestions: list[Suggestion] = []
    for name in chosen:
        why = reasons.get(name, [])
        if not why:
            shared = query & set(by_name[name].terms)
            words = _matched_words(prompt, shared)
            if words:
                why.append("matches " + ", ".join(words))
        suggestions.append(Suggestion(name, round(scores[name], 3), why))

    # Chain learnings: the latest session on a similar task used the skill and ended failing.
    if suggestions and signals.chain:
        for entry in list(signals.chain)[::-1][:CHAIN_LOOKBACK]:
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
    if named and signals.rules:
        from pokayokay.rules.claude_match import matches

        for rule, patterns in signals.rules:
            for path in named:
                if patterns and matches(list(patterns), path.rstrip("/")):
                    matched_rules.append((rule, path))
                    break
    return Advice(suggestions, spike, matched_rules[:3])


# --------------------------------------------------------------------------------------------
# The CLI core (I/O)


