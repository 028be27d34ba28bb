"""Recurring failures where a prompt points, and the skill (if any) that clearly addresses them
(pure).

* **Where.** Only project files the prompt names count (the caller checks them: see
  ``pokayokay.skills.advice.project_paths``). A failure group counts for a named file when it
  failed in that file, or in a file of the same kind (same extension) in the same folder or
  below; for a named folder, in any file under it. A file in the project root brings only the
  failures of root files: never the whole project's.
* **Which skill.** A skill addresses a failure category only when its own text clearly concerns
  it: it names the failing tool (``pytest``, ``ruff``), or it names no other tool of that
  category (a Playwright skill does not address pytest failures) and category words weigh at
  least :data:`MIN_CONCERN` in it (the skill's name counting most). Words shared by chance
  ("formatting" cells in a spreadsheet skill) are not category words.
* **Otherwise** the recurring failure is stated with no skill.

The reason text holds only numbers, a tool or category name from the fixed lists below and the
path the user typed: nothing from a failure's output reaches the model.

**Cached** (``pokayokay.skills.advice.cached_signals``; this module stays pure): the groups
this module can use (recurring, in a known category) and every failure path, kept in
``suggest-failures.json`` in the state folder and keyed by the store's change marker
(``failures.db.changed``, touched after every write and only then), as recall's fix texts are.
A prompt that names a path opens no database and groups no row unless something was written to
the store since.
"""

from __future__ import annotations

from pokayokay.infra.lazyre import Lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Any, Protocol

    from pokayokay.skills.catalog import Skill

    class FailureGroup(Protocol):
        """What this module reads of a failure group (``pokayokay.failures.model.FailureGroup``
        or the cached :class:`GroupSignal`)."""

        @property
        def category(self) -> str: ...
        @property
        def sessions(self) -> int: ...
        @property
        def last_seen(self) -> float: ...
        @property
        def paths(self) -> tuple[str, ...]: ...
        @property
        def sample_command(self) -> str | None: ...

RECURRING_SESSIONS = 2
MIN_CONCERN = 2.5

# Words (before analysis) that say a skill concerns a failure category.
CATEGORY_WORDS: dict[str, tuple[str, ...]] = {
    "testing": ("test", "tests", "testing", "unittest", "tdd", "test suite"),
    "lint": ("lint", "linter", "linting", "code style", "style guide"),
    "types": ("type checking", "typecheck", "type hints", "type errors", "typing", "types"),
    "build": ("build", "compile", "compilation", "bundle", "bundler"),
    "dependencies": ("dependency", "dependencies", "lockfile", "upgrade"),
    "git": ("git", "merge", "rebase"),
}
# The tools of each category: a skill naming one of them is about that tool.
CATEGORY_TOOLS: dict[str, tuple[str, ...]] = {
    "testing": (
        "pytest", "jest", "vitest", "mocha", "unittest", "tox", "nox", "playwright", "cypress",
        "selenium", "rspec", "phpunit", "k6", "locust", "jmeter", "hypothesis", "junit",
    ),
    "lint": (
        "ruff", "eslint", "flake8", "pylint", "black", "prettier", "stylelint", "golangci",
        "rubocop", "shellcheck",
    ),
    "types": ("mypy", "pyright", "tsc", "typescript", "pytype"),
    "build": ("webpack", "vite", "tsc", "make", "gradle", "maven", "cargo", "esbuild", "bazel"),
    "dependencies": ("pip", "npm", "pnpm", "yarn", "poetry", "uv", "cargo", "bundler"),
    "git": ("git",),
}  # fmt: skip


def tool_of(group: FailureGroup) -> str | None:
    """The known tool of the group's sample command (``pytest``, ``ruff``), if any."""
    tools = CATEGORY_TOOLS.get(group.category, ())
    for word in (group.sample_command or "").replace("/", " ").replace("=", " ").split():
        word = word.strip("'\"").lower()
        if word in tools:
            return word
    return None


def _terms(words: Iterable[str]) -> frozenset[str]:
    from pokayokay.skills.terms import tokenize

    return frozenset(t for w in words for t in tokenize(w))


_SETS: dict[tuple[str, str | None], tuple[frozenset[str], frozenset[str], frozenset[str]]] = {}


def _category_sets(
    category: str, tool: str | None
) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """(the category's tools, the failing tool, the category's words) as terms, memoised."""
    key = (category, tool)
    found = _SETS.get(key)
    if found is None:
        tools = _terms(CATEGORY_TOOLS.get(category, ()))
        own = _terms([tool]) if tool else frozenset()
        found = (tools, own, _terms(CATEGORY_WORDS.get(category, ())) - tools)
        _SETS[key] = found
    return found


def concern(skill: Skill, category: str, tool: str | None) -> float:
    """How clearly ``skill`` concerns ``category`` failures from ``tool`` (0: it does not)."""
    prof = skill.profile
    if prof is None or category not in CATEGORY_WORDS:
        return 0.0
    fields = prof.fields
    tools, own, words = _category_sets(category, tool)
    strength = sum(fields.get(t, 0.0) for t in words)
    if own and any(t in fields for t in own):
        return strength + 2.0 * max(fields[t] for t in own if t in fields)
    if own and any(t in fields for t in tools - own):
        return 0.0  # about another tool of the category
    return strength if strength >= MIN_CONCERN else 0.0


def _suffix(path: str) -> str:
    last = path.rstrip("/").rsplit("/", 1)[-1]
    return last.rsplit(".", 1)[-1].lower() if "." in last.lstrip(".") else ""


# What a path shown to the model may hold: a path, nothing that reads as prose or markup.
_SHOWN_PATH = Lazy(r"[\w./@+-]{1,160}")


def place(group: FailureGroup, named: Sequence[str]) -> str | None:
    """Where (``in src/app.py``, ``under src/api/``, ``in the project root``) ``group`` failed
    among the paths the prompt names; None when it failed elsewhere."""
    found = _place(group, named)
    if found is None or _SHOWN_PATH.fullmatch(found.split(" ", 1)[1].replace(" ", "_")):
        return found
    return "in a file the prompt names"


def _place(group: FailureGroup, named: Sequence[str]) -> str | None:
    for path in named:
        if path.endswith("/"):  # a folder
            if any(p.startswith(path) for p in group.paths):
                return f"under {path}"
            continue
        if path in group.paths:
            return f"in {path}"
        folder = path.rsplit("/", 1)[0] if "/" in path else ""
        kind = _suffix(path)
        for p in group.paths:
            if _suffix(p) != kind:
                continue
            if folder and p.startswith(f"{folder}/"):
                return f"under {folder}/"
            if not folder and "/" not in p:
                return "in the project root"
    return None


class Recurring:
    """A failure group that recurred where the prompt points, and the skill addressing it."""

    __slots__ = ("category", "reason", "skill")

    def __init__(self, category: str, reason: str, skill: str | None) -> None:
        self.category = category
        self.reason = reason
        self.skill = skill

    def __repr__(self) -> str:
        return f"Recurring({self.category!r}, {self.reason!r}, {self.skill!r})"


def recurring(
    groups: Sequence[FailureGroup],
    named: Sequence[str],
    skills: Sequence[Skill],
    excluded: Iterable[str] = (),
) -> list[Recurring]:
    """One :class:`Recurring` per failure category that recurred under ``named`` (most sessions
    first), each with the skill that clearly addresses it or None."""
    if not named:
        return []
    skip = set(excluded)
    out: list[Recurring] = []
    done: set[str] = set()
    for group in sorted(groups, key=lambda g: (-g.sessions, -g.last_seen)):
        if group.sessions < RECURRING_SESSIONS or group.category in done:
            continue
        if group.category not in CATEGORY_WORDS:
            continue
        where = place(group, named)
        if where is None:
            continue
        done.add(group.category)
        tool = tool_of(group)
        reason = f"{tool or group.category} failures recurred in {group.sessions} sessions {where}"
        best, best_strength = None, 0.0
        for skill in skills:
            if not skill.model_invocable or skill.name in skip:
                continue
            strength = concern(skill, group.category, tool)
            if strength > best_strength:
                best, best_strength = skill.name, strength
        out.append(Recurring(group.category, reason, best))
    return out


# --------------------------------------------------------------------------------------------
# The cache of failure signals


SIGNALS_FORMAT = 2


class GroupSignal:
    """What the suggestion reads of one failure group (the cached form of a ``FailureGroup``)."""

    __slots__ = ("category", "last_seen", "paths", "sample_command", "sessions")

    def __init__(
        self,
        category: str,
        sessions: int,
        last_seen: float,
        paths: tuple[str, ...],
        sample_command: str | None,
    ) -> None:
        self.category = category
        self.sessions = sessions
        self.last_seen = last_seen
        self.paths = paths
        self.sample_command = sample_command

    def __repr__(self) -> str:
        return f"GroupSignal({self.category!r}, {self.sessions}, {self.paths!r})"


class FailureSignals:
    """The groups :func:`recurring` can use, every path a failure named (for resolving the
    bare file names a prompt holds), and ``near``: the paths of the other groups, which one
    failure more can make count (one session short of recurring, or recurring in a category
    the suggestion does not use), each with the one session it failed in ("" when that is not
    known or does not matter), for telling whether a failure not stored yet can change the
    signals (``pokayokay.hooks.spool_gate``)."""

    __slots__ = ("groups", "known", "near")

    def __init__(
        self,
        groups: Sequence[FailureGroup],
        known: Sequence[str],
        near: Sequence[tuple[str, str]] = (),
    ) -> None:
        self.groups = groups
        self.known = known
        self.near = near


def signals_from_groups(
    groups: Iterable[FailureGroup], owners: dict[str, str] | None = None
) -> FailureSignals:
    """The signals of a store's groups (pure): recurring groups of a known category only.
    ``owners``: the one session of each group that failed in one session (by signature)."""
    kept: list[FailureGroup] = []
    known: set[str] = set()
    near: set[tuple[str, str]] = set()
    for group in groups:
        known.update(group.paths)
        if group.sessions >= RECURRING_SESSIONS and group.category in CATEGORY_WORDS:
            kept.append(group)
            continue
        # One failure more can make it count: a second session, or (the category follows the
        # newest failure) a known category for a group that recurred in another one.
        owner = ""
        if group.sessions < RECURRING_SESSIONS:
            owner = (owners or {}).get(getattr(group, "signature", ""), "")
        near.update((path, owner) for path in group.paths)
    return FailureSignals(kept, sorted(known), sorted(near))


def signals_from_data(data: Any, key: list[Any]) -> FailureSignals | None:
    """The cached signals when ``data`` is a cache for ``key`` (None otherwise)."""
    if not (
        isinstance(data, dict)
        and data.get("format") == SIGNALS_FORMAT
        and data.get("db") == key
        and isinstance(data.get("groups"), list)
        and isinstance(data.get("known"), list)
        and isinstance(data.get("near"), list)
    ):
        return None
    groups = []
    try:
        for category, sessions, last_seen, command, paths in data["groups"]:
            groups.append(
                GroupSignal(
                    str(category),
                    int(sessions),
                    float(last_seen),
                    tuple(str(p) for p in paths),
                    command if isinstance(command, str) else None,
                )
            )
        near = [(str(path), str(owner)) for path, owner in data["near"]]
    except (TypeError, ValueError):
        return None
    return FailureSignals(groups, [str(p) for p in data["known"]], near)


def signals_to_data(signals: FailureSignals, key: list[Any]) -> dict[str, Any]:
    rows = [
        [g.category, g.sessions, g.last_seen, g.sample_command, list(g.paths)]
        for g in signals.groups
    ]
    return {
        "format": SIGNALS_FORMAT,
        "db": key,
        "groups": rows,
        "known": list(signals.known),
        "near": [list(pair) for pair in signals.near],
    }
