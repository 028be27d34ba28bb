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
path the user typed; nothing from a failure's output reaches the model, with one exception:
when the prompt names the source file of a failing test (``pokayokay.failures.pairing``:
``tests/x/test_y.py`` tests ``src/x/y.py``), the test id and its one error line are named, each
each in a code span exactly as the tool printed it, or not at all when it speaks to the reader
(:func:`shown_code`).

**Cached** (``pokayokay.skills.advice.cached_signals``; this module stays pure): the groups
this module can use (recurring, in a known category) and every failure path, kept in
``suggest-failures.marshal`` (``pokayokay.infra.packed``) in the state folder and keyed by the
store's change marker (``failures.db.changed``, touched after every write and only then), as
recall's fix texts are.
A prompt that names a path opens no database and groups no row unless something was written to
the store since.
"""

from __future__ import annotations

from itertools import repeat

from pokayokay.infra import Value
from pokayokay.relevance.scan import shown_path_ok

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from typing import Any, Protocol

    from pokayokay.skills.catalog import Skill

    # What a command binds its failures' category to (decision 0150): the category, and the
    # strings whose absence from a failure's cut output proves it
    # (``pokayokay.failures.category_bound``).
    Bound = tuple[str, tuple[str, ...]]

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
        @property
        def signature(self) -> str: ...
        @property
        def excerpt(self) -> str: ...


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
    found = tools_in(group.category, group.sample_command or "")
    return found[0] if found else None


def tools_in(category: str, command: str) -> list[str]:
    """The known tools of ``category`` among the words of ``command``, in order."""
    tools = CATEGORY_TOOLS.get(category, ())
    words = (w.strip("'\"").lower() for w in command.replace("/", " ").replace("=", " ").split())
    return [word for word in words if word in tools]


def _terms(words: Iterable[str]) -> frozenset[str]:
    from pokayokay.relevance.skill_terms import tokenize

    return frozenset(t for w in words for t in tokenize(w))


# The terms (``_terms``: relevance.skill_terms.tokenize) of each category's tools and of its
# words less its tools', and of each tool (``tool:term,term``), read ahead: tokenising them
# cost each prompt naming a path with recurring failures about 3.8 M instructions (decision
# 0150). tests/skills/test_failure_boost_terms.py holds them to ``_terms`` (and prints them
# again when the analyser or a list above changes).
CATEGORY_TERMS: dict[str, tuple[str, str]] = {
    "testing": (
        "cypress hypothesis jest jmeter junit k6 locust mocha nox phpunit playwright pytest "
        "rspec selenium tox unittest vitest",
        "suit tdd test",
    ),
    "lint": (
        "black eslint flak golangci prettier pylint rubocop ruf shellcheck stylelint",
        "cod guid lint linter styl",
    ),
    "types": (
        "mypy pyright pytyp tsc typescript",
        "check error hint typ typecheck",
    ),
    "build": (
        "bazel cargo esbuild gradl mak maven tsc vit webpack",
        "build bundl bundler compil compilat",
    ),
    "dependencies": (
        "bundler cargo npm pip pnpm poetry uv yarn",
        "dependency lockfil upgrad",
    ),
    "git": (
        "git",
        "merg rebas",
    ),
}
TOOL_TERMS = (
    "bazel:bazel black:black bundler:bundler cargo:cargo cypress:cypress esbuild:esbuild "
    "eslint:eslint flake8:flak git:git golangci:golangci gradle:gradl hypothesis:hypothesis "
    "jest:jest jmeter:jmeter junit:junit k6:k6 locust:locust make:mak maven:maven mocha:mocha "
    "mypy:mypy nox:nox npm:npm phpunit:phpunit pip:pip playwright:playwright pnpm:pnpm "
    "poetry:poetry prettier:prettier pylint:pylint pyright:pyright pytest:pytest pytype:pytyp "
    "rspec:rspec rubocop:rubocop ruff:ruf selenium:selenium shellcheck:shellcheck "
    "stylelint:stylelint tox:tox tsc:tsc typescript:typescript unittest:unittest uv:uv "
    "vite:vit vitest:vitest webpack:webpack yarn:yarn"
)
_TOOL_TERMS: dict[str, frozenset[str]] = {}  # TOOL_TERMS read, on first use


def _tool_terms(tool: str) -> frozenset[str]:
    """``_terms([tool])``, from :data:`TOOL_TERMS` for a listed tool."""
    if not _TOOL_TERMS:
        for entry in TOOL_TERMS.split():
            name, terms = entry.split(":")
            _TOOL_TERMS[name] = frozenset(terms.split(","))
    found = _TOOL_TERMS.get(tool)
    return _terms([tool]) if found is None else found


_Sets = tuple[frozenset[str], frozenset[str], frozenset[str], frozenset[str]]
_SETS: dict[tuple[str, str | None], _Sets] = {}


def _category_sets(category: str, tool: str | None) -> _Sets:
    """(the category's tools, the failing tool, the category's words, all three) as terms,
    memoised."""
    key = (category, tool)
    found = _SETS.get(key)
    if found is None:
        ahead = CATEGORY_TERMS.get(category)
        if ahead is not None:
            tools, words = frozenset(ahead[0].split()), frozenset(ahead[1].split())
        else:
            tools = _terms(CATEGORY_TOOLS.get(category, ()))
            words = _terms(CATEGORY_WORDS.get(category, ())) - tools
        own = _tool_terms(tool) if tool else frozenset()
        found = (tools, own, words, tools | own | words)
        _SETS[key] = found
    return found


def concern(skill: Skill, category: str, tool: str | None) -> float:
    """How clearly ``skill`` concerns ``category`` failures from ``tool`` (0: it does not)."""
    prof = skill.profile
    if prof is None or category not in CATEGORY_WORDS:
        return 0.0
    tools, own, words, every = _category_sets(category, tool)
    if prof.fields.keys().isdisjoint(every):
        # Most skills of a catalog: no word of the category, its tools or the failing tool, so
        # no strength and no tool (one set check in C; a prompt naming a file with recurring
        # failures weighs every skill per category).
        return 0.0
    fields = prof.described  # what it says it is for, not the words only its body holds (0205)
    if fields.keys().isdisjoint(every):
        return 0.0  # only its body speaks of them
    # dict.get mapped in C over the same set, in the same order: the same sum, a fifth of the
    # time (a prompt naming a file with recurring failures weighs every skill per category)
    strength = sum(map(fields.get, words, repeat(0.0)))
    if own and not fields.keys().isdisjoint(own):
        return strength + 2.0 * max(fields[t] for t in own if t in fields)
    if own and not fields.keys().isdisjoint(tools - own):
        return 0.0  # about another tool of the category
    return strength if strength >= MIN_CONCERN else 0.0


def _suffix(path: str) -> str:
    last = path.rstrip("/").rsplit("/", 1)[-1]
    return last.rsplit(".", 1)[-1].lower() if "." in last.lstrip(".") else ""


# What a path shown to the model may hold: a path, nothing that reads as prose or markup
# (:func:`pokayokay.relevance.scan.shown_path_ok`: ``[\w./@+-]{1,160}``, whole).


def place(group: FailureGroup, named: Sequence[str]) -> str | None:
    """Where (``in src/app.py``, ``under src/api/``, ``in the project root``, ``in the tests
    of src/app.py``) ``group`` failed among the paths the prompt names; None when it failed
    elsewhere."""
    found = _place(group, named)
    if found is None:
        tested = failing_test(group, named)
        found = None if tested is None else f"in the tests of {tested[1]}"
    if found is None or shown_path_ok(found.split(" ", 1)[1].replace(" ", "_")):
        return found
    return "in a file the prompt names"


def failing_test(group: FailureGroup, named: Sequence[str]) -> tuple[str, str] | None:
    """``(test id, source file)`` when ``group`` is a failing test (``test:<id>``) whose test
    file tests a source file the prompt names (``pokayokay.failures.pairing``)."""
    if not group.signature.startswith("test:"):
        return None
    from pokayokay.failures.pairing import covers, file_of_test_id

    test_id = group.signature[5:]
    files = [f for f in (file_of_test_id(test_id), *group.paths) if f]
    for path in named:
        if not path.endswith("/") and any(covers(f, path) for f in files):
            return test_id, path
    return None


# A test id or an error line shown to the model: at most this many characters.
MAX_SHOWN_LINE = 120
# The tags a shown line must not close or open: recall's fence, which the same prompt's context
# may hold (``pokayokay.recall.block.TAG``), and the one Claude Code wraps hook context in.
_SHOWN_TAGS = ("pokayokay-recall", "system-reminder")


def shown_code(text: str) -> str:
    """``text`` as the model may read it: a code span of its first line exactly as the tool
    printed it (secrets redacted, terminal escapes dropped, cut at a word boundary to
    :data:`MAX_SHOWN_LINE` with "…", a tag of :data:`_SHOWN_TAGS` escaped), or ``""`` when that
    line speaks to the reader (an instruction, a link, a dangerous command:
    :func:`pokayokay.safety.sanitize.tool_line`): then nothing of it is shown."""
    from pokayokay.safety.commands import redact_secrets
    from pokayokay.safety.exact import code_span, escape
    from pokayokay.safety.sanitize import tool_line

    line = tool_line(redact_secrets(text), MAX_SHOWN_LINE)
    return code_span(escape(line, _SHOWN_TAGS)) if line else ""


# What opens a test runner's line before the test id or the message: pytest's ``E``/``>``,
# ``FAILED``/``ERROR``, vitest's and go's ``FAIL``, jest's ``●``, vitest's ``×``/``❯``, ava's ``✘``.
_MARKERS = frozenset(("E", ">", "FAILED", "ERROR", "FAIL", "-", "●", "×", "✗", "❯", "✘"))


def test_said(group: FailureGroup) -> tuple[str, str]:
    """A failing test's id and its error line as the model may read them (:func:`shown_code`,
    :func:`error_line`; "" for what may not be shown). Computed when the signals' cache is
    written (checking that a line does not speak compiles patterns: about 8 ms a process) and
    read from it by the prompt (:attr:`GroupSignal.shown`)."""
    shown = getattr(group, "shown", None)
    if shown is not None:
        return shown  # type: ignore[no-any-return]
    test_id = group.signature[5:]
    return shown_code(test_id), error_line(group.excerpt, test_id)


def error_line(excerpt: str, test_id: str = "") -> str:
    """The one error line of a failing test's stored excerpt (its key lines joined by `` | ``):
    the first that holds more than a marker (pytest's ``E``, ``FAILED``) and the test's own
    name or file (``FAIL  src/a.test.ts > total > rounds``, ``● cart › total``, ``FAIL
    src/a.test.js``: a header, not what the test said), without the test id a summary line
    opens on (``FAILED tests/a.py::test_b - assert 1 == 2``); then the sides of a failed
    comparison stored after it (``Expected: 400; Received: 399.6``)."""
    from pokayokay.failures.said import values_after

    # the id, its title (after the file: ``src/a.test.ts > total > rounds``) and its file
    # (jest's ``FAIL src/a.test.js`` header names only that)
    file = test_id.split(" > ", 1)[0] if " > " in test_id else ""
    names = [n for n in (test_id, test_id.split(" > ", 1)[-1], file) if n]
    parts = excerpt.split(" | ")
    for at, part in enumerate(parts):
        rest = part
        for name in names:
            rest = rest.replace(name, " ")
        if names and all(word in _MARKERS for word in rest.split()):
            continue  # the test's header: its name and a marker, nothing it said
        words = part.split()
        skip = 0
        while skip < len(words) and words[skip] in _MARKERS:
            skip += 1
        if len(words) > skip + 2 and words[skip + 1] == "-":  # "<test id> - <message>"
            skip += 2
        if skip < len(words):  # the rest exactly, with the sides of a failed comparison
            values = values_after([p.strip() for p in parts], at)  # stored after it
            return shown_code("; ".join([_without_words(part, skip), *values]))
    return ""


def _without_words(text: str, count: int) -> str:
    """``text`` stripped, without its first ``count`` words; the rest exactly as it was."""
    rest = text.strip()
    for _ in range(count):
        end = next((i for i, ch in enumerate(rest) if ch.isspace()), len(rest))
        rest = rest[end:].lstrip()
    return rest


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


def _test_reason(group: FailureGroup, *, of: str = "", where: str = "") -> str:
    """Why :func:`recurring` names a failing test: ``test `<id>` (of <source file>) failed in
    <n> sessions <where>`` (the parts given), then the error line it printed when there is one
    (each as :func:`test_said` shows it: "a test" when its id may not be shown)."""
    shown, said = test_said(group)
    source = f" (of {of})" if of else ""
    place = f" {where}" if where else ""
    named = f"test {shown}" if shown else "a test"
    return f"{named}{source} failed in {group.sessions} sessions{place}" + (
        f": {said}" if said else ""
    )


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
        tested = failing_test(group, named)
        if tested is not None:  # the prompt names the source file of a failing test
            reason = _test_reason(group, of=tested[1])
        elif group.signature.startswith("test:") and where.startswith("in ") and (
            where != "in the project root"  # only a root file of the same kind, not this one
        ):  # a test failing in the very file the prompt names (Rust's unit tests and doctests
            # live in the source file itself): named as above; never a test of a file beside it
            reason = _test_reason(group, where=where)
        best, best_strength = None, 0.0
        every = _category_sets(group.category, tool)[3]
        for skill in skills:
            if not skill.model_invocable or skill.name in skip:
                continue
            prof = skill.profile
            if prof is None or prof.fields.keys().isdisjoint(every):
                continue  # concern() is 0 for it (its first answers), and 0 is never the best
            strength = concern(skill, group.category, tool)
            if strength > best_strength:
                best, best_strength = skill.name, strength
        out.append(Recurring(group.category, reason, best))
    return out


# --------------------------------------------------------------------------------------------
# The cache of failure signals


SIGNALS_FORMAT = 6


class GroupSignal(Value):
    """What the suggestion reads of one failure group (the cached form of a ``FailureGroup``)."""

    category: str
    sessions: int
    last_seen: float
    paths: tuple[str, ...]
    sample_command: str | None
    signature: str = ""  # the group's key (what a new failure of it is stored under)
    excerpt: str = ""  # not cached: what a prompt may show of it is ``shown``
    # For a failing test (``test:<id>``): its id and error line as shown (:func:`test_said`)
    shown: tuple[str, str] | None = None

    def __repr__(self) -> str:
        return f"GroupSignal({self.category!r}, {self.sessions}, {self.paths!r})"


class NearGroup(Value, eq=True):
    """A group :func:`recurring` cannot use yet, which one failure more can make count: one
    session short of recurring, or recurring in a category the suggestion does not use (a slots
    class like :class:`GroupSignal`: ``dataclasses`` is no import of the prompt's)."""

    signature: str
    category: str
    sessions: int
    owner: str  # the one session it failed in ("" when recurring, or not known)
    paths: tuple[str, ...]

    def __repr__(self) -> str:
        return (
            f"NearGroup({self.signature!r}, {self.category!r}, {self.sessions}, "
            f"{self.owner!r}, {self.paths!r})"
        )


class FailureSignals:
    """The groups :func:`recurring` can use (each with its signature), every path a failure
    named (for resolving the bare file names a prompt holds), and ``near``: the other groups
    (:class:`NearGroup`), which one failure more can make count; with the signatures, whether
    a failure not stored yet can change the signals is decided from its own key and category
    (``pokayokay.hooks.spool_gate``)."""

    __slots__ = ("bounds", "groups", "known", "near")

    def __init__(
        self,
        groups: Sequence[FailureGroup],
        known: Sequence[str],
        near: Sequence[NearGroup] = (),
        bounds: dict[str, Bound] | None = None,
    ) -> None:
        self.groups = groups
        self.known = known
        self.near = near
        # By sample command of a kept group: the category bound its failures (decision 0150);
        # None when not computed (signals rebuilt by a prompt: no ``re`` there).
        self.bounds = bounds


def signals_from_groups(
    groups: Iterable[FailureGroup],
    owners: dict[str, str] | None = None,
    bound_of: Callable[[str], Bound | None] | None = None,
) -> FailureSignals:
    """The signals of a store's groups (pure): recurring groups of a known category, and the
    others as :class:`NearGroup`. ``owners``: the one session of each group that failed in one
    session (by signature). ``bound_of``: the category bound of a command
    (``pokayokay.failures.category_bound.bound_for_command``), asked for each kept group's
    sample command; without it the signals hold no bounds."""
    kept: list[FailureGroup] = []
    known: set[str] = set()
    near: list[NearGroup] = []
    for group in groups:
        known.update(group.paths)
        if group.sessions >= RECURRING_SESSIONS and group.category in CATEGORY_WORDS:
            kept.append(group)
            continue
        # One failure more can make it count: a second session, or (the category follows the
        # newest failure) a known category for a group that recurred in another one.
        owner = ""
        if group.sessions < RECURRING_SESSIONS:
            owner = (owners or {}).get(group.signature, "")
        near.append(
            NearGroup(group.signature, group.category, group.sessions, owner, tuple(group.paths))
        )
    bounds: dict[str, Bound] | None = None
    if bound_of is not None:
        bounds = {}
        for group in kept:
            command = group.sample_command
            if command and command not in bounds:
                bound = bound_of(command)
                if bound is not None:
                    bounds[command] = bound
    return FailureSignals(kept, sorted(known), near, bounds)


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
        for category, sessions, last_seen, command, paths, signature, shown in data["groups"]:
            groups.append(
                GroupSignal(
                    str(category),
                    int(sessions),
                    float(last_seen),
                    tuple(str(p) for p in paths),
                    command if isinstance(command, str) else None,
                    str(signature),
                    "",
                    (str(shown[0]), str(shown[1])) if isinstance(shown, list) else None,
                )
            )
        near = [
            NearGroup(str(signature), str(category), int(sessions), str(owner),
                      tuple(str(p) for p in paths))
            for signature, category, sessions, owner, paths in data["near"]
        ]  # fmt: skip
        rows = data.get("bounds")
        bounds: dict[str, Bound] | None = None
        if isinstance(rows, list):
            bounds = {
                str(command): (str(category), tuple(str(w) for w in witnesses))
                for command, category, witnesses in rows
            }
    except (TypeError, ValueError):
        return None
    return FailureSignals(groups, [str(p) for p in data["known"]], near, bounds)


def signals_to_data(signals: FailureSignals, key: list[Any]) -> dict[str, Any]:
    rows = [
        [
            g.category, g.sessions, g.last_seen, g.sample_command, list(g.paths), g.signature,
            list(test_said(g)) if g.signature.startswith("test:") else None,
        ]
        for g in signals.groups
    ]  # fmt: skip
    return {
        "format": SIGNALS_FORMAT,
        "db": key,
        "groups": rows,
        "known": list(signals.known),
        "near": [
            [n.signature, n.category, n.sessions, n.owner, list(n.paths)] for n in signals.near
        ],
        "bounds": None
        if signals.bounds is None
        else [[command, category, list(w)] for command, (category, w) in signals.bounds.items()],
    }
