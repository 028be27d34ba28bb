"""Mistake families: which failure groups share one rule file, and that file's name (pure).

A rule file teaches one family of mistakes, so a lesson about ``tests/test_cart.py`` never loads
because someone opened ``web/app.ts`` and unrelated mistakes never share a heading. A family is
defined from the recorded data only:

* **the tool and its code** for a keyed signature (``ruff:F401``, ``mypy:arg-type``,
  ``tsc:TS2322``): every file that tripped the same check is one family;
* **the test module** for a failing test (``test:tests/test_cart.py::test_total`` and
  ``…::test_tax`` are the family ``tests/test_cart.py``; jest's ``file > title`` likewise; a
  test id naming no file, Go's ``TestTotal``, takes its first failure path; a free-text
  signature starting with a runner's ``FAILED tests/x.py::…`` or ``FAIL src/x.test.ts`` line
  names its module too);
* **the exception class** of a free-text failure whose error line starts with one
  (``KeyError: …``), within its category;
* otherwise **the signature itself** (one mistake, one family);
* and two groups whose main correction is the same corrected command are one family whatever
  their keys (the same fix teaches both). Environment lessons (the mistake is how a command is
  run) form the one family :data:`~pokayokay.names.ENVIRONMENT_RULE`.

:func:`family_stem` names a family's rule file from its key alone, so the name never depends
on which other families exist or on their order: a readable slug of the key (``ruff-f401``,
``test-tests-test-cart``) and eight hex digits of the key's SHA-256, so distinct keys give
distinct stems even where slugs fold case and punctuation; never a name of
:data:`~pokayokay.names.RESERVED_RULE_STEMS`, and never words that would read to the model as
said to it (:func:`pokayokay.safety.instructions.speaks`: then the kind and the hash only).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from pokayokay.failures.model import FailureGroup
from pokayokay.failures.signature import command_key, short_id
from pokayokay.names import ENVIRONMENT_RULE, RESERVED_RULE_STEMS
from pokayokay.rules.evidence import (
    ENVIRONMENT,
    category_name,
    environment_lesson,
    rule_slug,
    usable_corrections,
)
from pokayokay.safety.instructions import speaks

__all__ = [
    "MAX_STEM",
    "Family",
    "family_key",
    "family_stem",
    "group_families",
]

MAX_STEM = 48  # characters of a family's file stem, hash suffix included
_HASH = 8
_KEY = re.compile(r"\A([a-z][\w-]*(?: [a-z]+)?):(\S.*)\Z")  # evidence's group key
_EXCEPTION = re.compile(r"\A([A-Z][A-Za-z0-9_]*(?:Error|Exception|Warning|Exit|Interrupt)):")
# A test runner's summary line in a free-text signature: pytest ``FAILED tests/x.py::test_y``,
# jest ``FAIL src/Cart.test.tsx``: the test module.
_TEST_LINE = re.compile(r"\A(?:FAILED|ERROR|FAIL)\s+([\w./-]+?\.\w+)(?:::|\s|\Z)")


@dataclass(frozen=True)
class Family:
    """One mistake family: its key, its rule file's stem, and its groups (strongest first)."""

    key: str
    stem: str
    groups: tuple[FailureGroup, ...]


def family_key(group: FailureGroup) -> str:
    """The family ``group`` belongs to before corrections merge families (see the module)."""
    if group.category == ENVIRONMENT or environment_lesson(group):
        return ENVIRONMENT_RULE
    signature = group.signature
    match = _KEY.match(signature)
    if match and " | " not in signature and "\n" not in signature:
        tool, code = match.group(1), match.group(2)
        if tool == "test":
            return f"test:{_test_module(code, group.paths)}"
        return f"{tool}:{code}"
    first = signature.split(" | ", 1)[0].strip()
    test = _TEST_LINE.match(first)
    if test:
        return f"test:{test.group(1)}"
    # The category as rule names show it: its first plain word (never configured free text).
    category = category_name(group.category).lower() or "recurring"
    exception = _EXCEPTION.match(first)
    if exception:
        return f"{category}:exception:{exception.group(1)}"
    return f"{category}:mistake:{short_id(signature)}"


def _test_module(test_id: str, paths: Sequence[str]) -> str:
    """The module of a failing test: before ``::`` (pytest) or `` > `` (jest, vitest, bun);
    for an id without one (Go, cargo, unittest), the first failure path, else the id."""
    for separator in ("::", " > "):
        if separator in test_id:
            return test_id.split(separator, 1)[0]
    return min(paths) if paths else test_id


def _readable(key: str) -> str:
    kind, _, rest = key.partition(":")
    if kind == "test":
        module = rest.rsplit(".", 1)[0] if "/" in rest or "." in rest else rest
        return rule_slug(f"test {module}")
    sub, _, detail = rest.partition(":")
    if sub == "exception":
        return rule_slug(f"{kind} {detail}")
    if sub == "mistake":
        return rule_slug(f"{kind} mistake")
    return rule_slug(f"{kind} {rest}")


def family_stem(key: str) -> str:
    """The stem of the rule file of the family ``key``: deterministic, at most
    :data:`MAX_STEM` characters of ``[a-z0-9-]``, never reserved, distinct for distinct keys
    (a readable slug of the key and a suffix of its SHA-256, since slugs fold case and
    punctuation: ``ruff:F401`` → ``ruff-f401-…``)."""
    if key == ENVIRONMENT_RULE:
        return ENVIRONMENT_RULE
    readable = _readable(key) or "mistake"
    if speaks(readable.replace("-", " ")):
        # A name read as something said to the model (a test file called
        # ``test_ignore_previous_instructions.py``): only its kind and the hash.
        readable = rule_slug(key.partition(":")[0]) or "mistake"
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:_HASH]
    head = readable[: MAX_STEM - _HASH - 1].rstrip("-") or "mistake"
    stem = f"{head}-{digest}"
    return stem if stem not in RESERVED_RULE_STEMS else f"mistake-{digest}"


def _main_fix(group: FailureGroup) -> str | None:
    usable = usable_corrections(group)
    return command_key(usable[0].corrected) if usable else None


def group_families(groups: Sequence[FailureGroup]) -> list[Family]:
    """``groups`` partitioned into families: by :func:`family_key`, then groups sharing their
    main corrected command joined (transitively). Sorted by stem; each family's groups strongest
    first. Independent of the order of ``groups``."""
    ordered = sorted(groups, key=lambda g: g.signature)
    keys = [family_key(g) for g in ordered]
    parent = list(range(len(ordered)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def join(i: int, j: int) -> None:
        a, b = find(i), find(j)
        if a != b:
            parent[max(a, b)] = min(a, b)

    first_of: dict[tuple[str, str], int] = {}
    for i, (group, key) in enumerate(zip(ordered, keys, strict=True)):
        markers = [("key", key)]
        fix = _main_fix(group)
        if fix is not None and key != ENVIRONMENT_RULE:
            markers.append(("fix", fix))
        for marker in markers:
            if marker in first_of:
                join(i, first_of[marker])
            else:
                first_of[marker] = i
    clusters: dict[int, list[int]] = {}
    for i in range(len(ordered)):
        clusters.setdefault(find(i), []).append(i)
    out = []
    for members in clusters.values():
        # The family's key: the smallest key among its members (stable whatever joined it).
        key = min(keys[i] for i in members)
        members_groups = sorted(
            (ordered[i] for i in members),
            key=lambda g: (-g.sessions, -g.occurrences, -g.last_seen, g.signature),
        )
        out.append(Family(key, family_stem(key), tuple(members_groups)))
    return sorted(out, key=lambda f: (f.stem, f.key))
